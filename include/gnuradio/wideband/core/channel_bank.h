/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_CHANNEL_BANK_H
#define INCLUDED_WIDEBAND_CORE_CHANNEL_BANK_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/sample_format.h>
#include <gnuradio/wideband/core/stream_engine.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

//! One channel of a bank: what a freq_xlating_fir_filter_ccc would be given.
struct WIDEBAND_CORE_API bank_channel {
    double center_freq = 0.0; //!< |f| <= sampling_freq / 2
    size_t decimation = 1;    //!< D >= 1
    //! Prototype (low-pass) taps, at least one, finite.
    std::vector<std::complex<float>> taps;
};

struct WIDEBAND_CORE_API channel_bank_options {
    double sampling_freq = 1.0; //!< fs > 0
    std::vector<bank_channel> channels;
    //! The input's samples: complex float, or integers taken as their values,
    //! converted as the forward FFT reads them.
    sample_format input_format = sample_format::fc32;
    //! Forward FFT length L (0: chosen); at least the longest taps + 1, no
    //! prime factor above 31.
    size_t fft_size = 0;
    //! Input samples one call may bring (0: about 2^20).
    size_t max_input_samples = 0;
    /*!
     * The outputs of a call frame after frame (output n of every channel, then
     * n + 1, ...) rather than channel after channel: one vector of all
     * channels per frame. Needs one decimation for all channels.
     */
    bool frame_major = false;
    /*!
     * Each channel computes only the bins where its filter's response
     * matters: those outside carry at most this fraction of the response's
     * amplitude (the square root of its energy there); the output error that
     * makes, relative to the output, is about this much for white input. 0:
     * every bin (exact for any taps, slow for many channels).
     */
    double omitted_response = 1e-6;
};

/*!
 * \brief A bank of frequency-translating filters on one wideband stream, by
 * fast convolution: channel c's output is GNU Radio's
 * freq_xlating_fir_filter_ccc(D_c, taps_c, f_c, fs) in double precision
 * (freq_xlating_filter.h: start phase, retune phase steps), for any centres,
 * decimations and taps per channel.
 *
 * One overlap-save forward FFT of length L (hop H = L - longest taps + 1) of the
 * stream serves every channel. Per channel and block, the bins of its window
 * (around its centre, where its filter's response matters) are multiplied by
 * the response of its taps modulated by the centre's offset from the nearest
 * bin, shifted to the block's first wanted output, folded to B = L / gcd(D, L)
 * bins and inverse-transformed at length B: decimation by gcd(D, L) in
 * frequency, the rest in time. Channels of one inverse length share one batched
 * inverse FFT. A channel whose decimation shares few factors with L (a long
 * inverse FFT for few outputs) sums its window for each output instead
 * (inverse_length() 0), whichever costs less. Phases come from exact integer
 * positions and double precision.
 *
 * Streaming: after n input samples in all, channel c has floor(n / D_c)
 * outputs; each call returns the ones it completes, per channel, in one output
 * buffer (channel after channel). Samples are kept on the device between calls
 * (the history and those short of a block), so any split of the stream into
 * calls gives the same output. Write new samples (of input_format) at
 * input_region(), then enqueue(). Not thread-safe.
 */
class WIDEBAND_CORE_API channel_bank : public splittable_engine
{
public:
    /*!
     * \throws std::invalid_argument naming the channel for a bad centre,
     *         decimation or taps; for no channels, a bad sampling_freq or
     *         fft_size, or buffers that do not fit the device
     */
    channel_bank(device_context::sptr context, const channel_bank_options& options);
    ~channel_bank();

    channel_bank(const channel_bank&) = delete;
    channel_bank& operator=(const channel_bank&) = delete;

    //! What the constructor checks, without a device context.
    static void check(const device_info& device, const channel_bank_options& options);

    size_t channels() const;
    size_t fft_size() const;
    sample_format input_format() const;
    //! New samples per forward FFT block (H).
    size_t block_step() const;
    //! The bins channel \p c computes (its window) and its inverse FFT length
    //! (0: its outputs are summed over the window directly).
    size_t window_bins(size_t c) const;
    size_t inverse_length(size_t c) const;
    std::string describe() const;

    // stream_engine. Each channel has its own rate: a call's outputs are
    // whatever its samples complete, per channel, laid out as enqueue() says;
    // step() is one sample.
    stream_ratio step() const override { return { 1, 1 }; }
    region input_region() const override;
    size_t max_input_samples() const override;
    size_t input_sample_bytes() const override { return sample_bytes(input_format()); }
    //! Output elements (all channels) a call may write.
    size_t max_output_elements() const override;
    size_t input_regions() const override { return 2; }
    size_t run(const cl::CommandQueue& queue,
               size_t samples,
               const cl::Buffer& output,
               const std::vector<cl::Event>& wait,
               cl::Event& done) override;

    // splittable_engine: the history reaches a block and a decimation back.
    size_t history_samples() const override;
    size_t continue_at(uint64_t position) override;

    struct result {
        //! Channel c's outputs of the call: output[offsets[c] .. offsets[c] +
        //! counts[c]), or with frame_major output[c + channels() * i], i < counts[c].
        std::vector<size_t> offsets, counts;
        cl::Event done;
    };
    //! Filters \p samples new samples from input_region() into \p output.
    result enqueue(const cl::CommandQueue& queue,
                   size_t samples,
                   const cl::Buffer& output,
                   const std::vector<cl::Event>& wait = {});

    /*!
     * \brief Channel \p c's new centre and taps from its output \p at_output on
     * (its next call's first output), with freq_xlating_filter's phase steps.
     * The taps may not outgrow the longest the bank was made for. If it
     * throws, the bank is unchanged.
     */
    void retune(size_t c,
                double center_freq,
                const std::vector<std::complex<float>>& taps,
                uint64_t at_output);

private:
    class impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_CHANNEL_BANK_H */
