/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_PFB_SYNTHESIZER_H
#define INCLUDED_WIDEBAND_CORE_PFB_SYNTHESIZER_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/stream_engine.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

struct WIDEBAND_CORE_API pfb_synthesizer_options {
    //! The most channels: as pfb_channelizer_options::max_channels, it bounds the
    //! host's per-bin table before the sizes are checked.
    static constexpr size_t max_channels = size_t(1) << 24;

    size_t channels = 0;     //!< M in [1, max_channels]; even with twox
    std::vector<float> taps; //!< prototype low-pass filter, not empty, finite
    //! GNU Radio's twox: a 2M-point inverse FFT per frame (output at twice the
    //! channel spacing), else M points
    bool twox = false;
    //! N: the samples of a frame, one per input channel, in [1, P] (P = M, or
    //! 2M with twox)
    size_t inputs = 0;
    /*!
     * Input i goes to inverse-FFT bin channel_map[i] (< P = M or 2M with
     * twox); inputs past the map's end are unused, and of several inputs on one
     * bin the last one counts (as in the in-tree block, which writes them in
     * order). Empty: the identity of P entries.
     */
    std::vector<size_t> channel_map;
    //! Input samples one call may bring (0: about 2^20); rounded down to whole
    //! frames of N samples, at least one.
    size_t max_input_samples = 0;
    /*!
     * How the frames are transformed and filtered: automatic (one pass with a
     * sliding history on devices with on-chip local memory, where the history
     * fits the registers with one branch per work-item, else two passes: an
     * inverse FFT, then branch filters that keep their history in registers),
     * sliding (one pass wherever the history fits: for tests on a CPU device),
     * or two_passes.
     */
    enum class history_mode { automatic, sliding, two_passes };
    history_mode history = history_mode::automatic;
};

/*!
 * \brief The polyphase filterbank synthesizer of GNU Radio's
 * filter.pfb_synthesizer_ccf, streaming, on one OpenCL device: frames of N
 * channel samples in, M wideband samples out per frame.
 *
 * Frame n (input samples n N .. n N + N - 1) fills the P-point inverse-FFT
 * input (bin channel_map[i] = sample i, the other bins zero); its unnormalised
 * inverse FFT y_n gives output n M + i, i < M, as
 *
 *   out[n M + i] = sum_{j<K} taps[i + j M] * y_{n-j}[o_n + i],
 *
 * K = ceil(ntaps / M) taps per branch (zero padded), y_{n<0} = 0, o_n = 0, and
 * with twox o_n = M for even n and 0 for odd n: the in-tree block's 2M branch
 * filters with alternating inputs, summed (kernels/pfb_synthesizer.cl).
 *
 * Each call transforms its frames and the K - 1 frames before them (kept as
 * input samples in the stream window: history (K - 1) N samples). In one pass
 * (sliding(): P fits on chip and the K - 1 values of each branch fit the
 * registers) a kernel runs the inverse FFTs on chip and filters them there;
 * otherwise one batched inverse fft_plan transforms them into a buffer and one
 * kernel filters. That FFT reads the frames where they are when every bin is
 * an input in order (N = P, the identity map); otherwise a scatter pass builds
 * its input first. Any split of the stream into calls gives the same output.
 *
 * set_taps() and set_channel_map() apply from the next call on; not
 * thread-safe, the caller serialises its calls.
 */
class WIDEBAND_CORE_API pfb_synthesizer : public splittable_engine
{
public:
    /*!
     * \throws std::invalid_argument for channels out of range, twox with an odd
     *         channel count, empty or non-finite taps, inputs outside [1, P],
     *         a map entry >= P, or buffers the device cannot hold
     */
    pfb_synthesizer(device_context::sptr context, const pfb_synthesizer_options& options);
    ~pfb_synthesizer() override;

    //! What the constructor checks, without a device context.
    static void check_fits(const device_info& device,
                           const pfb_synthesizer_options& options);

    pfb_synthesizer(const pfb_synthesizer&) = delete;
    pfb_synthesizer& operator=(const pfb_synthesizer&) = delete;

    size_t channels() const;        //!< M
    size_t inputs() const;          //!< N
    size_t fft_points() const;      //!< P = M, or 2M with twox
    size_t taps_per_branch() const; //!< K
    //! Whether the calls run in one pass with a sliding history (for the current K).
    bool sliding() const;
    const std::vector<float>& taps() const;
    const std::vector<size_t>& channel_map() const;

    // stream_engine: N input samples make M output samples.
    stream_ratio step() const override;
    region input_region() const override;
    size_t max_input_samples() const override;
    size_t max_output_elements() const override;
    size_t input_regions() const override { return 2; }
    size_t run(const cl::CommandQueue& queue,
               size_t samples,
               const cl::Buffer& output,
               const std::vector<cl::Event>& wait,
               cl::Event& done) override;
    bool runs_in_place() const override { return true; }
    in_place_result run_in_place(const cl::CommandQueue& queue,
                                 const span& input,
                                 const span& output,
                                 const std::vector<cl::Event>& wait) override;

    //! New taps from the next call on; the frames kept carry over (older ones
    //! count as zero when K grows).
    void set_taps(const std::vector<float>& taps);
    //! A new channel map (empty: the identity) from the next call on.
    void set_channel_map(const std::vector<size_t>& channel_map);
    //! Back to zero history and frame 0, as at construction, from the next call on.
    void reset();

    // splittable_engine: the history is (K - 1) N samples; continue_at() also
    // sets the frame count, whose parity twox follows.
    size_t history_samples() const override;
    size_t continue_at(uint64_t position) override;

private:
    class impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_PFB_SYNTHESIZER_H */
