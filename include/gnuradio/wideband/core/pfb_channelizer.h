/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_PFB_CHANNELIZER_H
#define INCLUDED_WIDEBAND_CORE_PFB_CHANNELIZER_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/fft_plan.h>
#include <gnuradio/wideband/core/sample_format.h>
#include <gnuradio/wideband/core/stream_engine.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

//! How the channels of a batch of frames are laid out in an output buffer.
enum class channel_layout {
    channel_major, //!< each mapped channel's frames contiguous (one row per output
                   //!< stream)
    frame_major    //!< each frame's mapped channels contiguous (one vector per frame)
};

struct WIDEBAND_CORE_API pfb_channelizer_options {
    //! The most channels: far beyond any use, and the limit keeps the host's
    //! per-channel tables (the full channel map) bounded before sizes are checked.
    static constexpr size_t max_channels = size_t(1) << 24;

    size_t channels = 0;     //!< M in [1, max_channels]
    std::vector<float> taps; //!< prototype low-pass filter, unnormalised, not empty
    //! r: M / r must be an integer D in [1, M], the input samples per output frame
    double oversample_rate = 1.0;
    /*!
     * Channels to output, in output order (0 = DC, 1..M/2 positive, then
     * negative frequencies: channel c is centred on +c/M cycles per input sample).
     * Empty: all channels 0..M-1.
     */
    std::vector<size_t> channel_map;
    channel_layout layout = channel_layout::channel_major;
    //! Input samples one enqueue() may bring (0: about 2^20); rounded down to
    //! whole frames of D samples, at least one.
    size_t max_input_samples = 0;
    //! Tuning and tests: the longest FFT computed in one kernel with the FIR (0: device
    //! limit).
    size_t max_fused_channels = 0;
    /*!
     * How the fused kernel reads its samples (tuning and tests): automatic takes
     * the sliding history where it fits with 4 or more frames per step on a
     * device with on-chip local memory (a GPU; on CPUs the caches serve the
     * repeated reads and the per-frame kernel runs several times faster), and
     * where it does not there, D divides M and at least M/16 channels are
     * mapped, the separate FIR (each branch's history in a work-item's
     * registers), FFT and gather passes; sliding wherever it fits; per_frame
     * reads each frame's K*M samples.
     */
    enum class history_mode { automatic, sliding, per_frame };
    history_mode history = history_mode::automatic;
    /*!
     * Channel maps of at most this many channels (a decimator's one), fewer
     * than M, are computed as rotated sums of the branch filters, without the
     * M-point FFT, where D divides M and K * M / D is at most 32 (0: always
     * the FFT).
     */
    size_t max_direct_channels = 4;
    //! The input samples: complex float, or integers taken as their values,
    //! converted as the first kernel reads them.
    sample_format input_format = sample_format::fc32;
};

/*!
 * \brief The polyphase filterbank analysis channelizer of GNU Radio's
 * pfb.channelizer_ccf, streaming, on one OpenCL device.
 *
 * Output q of channel c equals the in-tree block's (see kernels/pfb_fir.cl for the
 * formula): the same channel numbering, the same first sample, the same
 * oversampling behaviour. A frame (one sample of every channel) comes out for
 * every D = M / r input samples; the filter's state (the last K*M - 1 input
 * samples, K = taps per branch) and any samples short of a frame are kept on
 * the device between calls, so any split of the stream into calls gives the
 * same output as one call.
 *
 * Where M fits on chip (up to 4096 channels at least; 6144 with 48 KiB of local
 * memory) the branch filters and the FFT are one kernel and the FFT input never
 * touches global memory. Where moreover D divides M and the last (K-1) M/D + 1
 * samples of every branch fit in registers (sliding(); on GPUs), runs of
 * consecutive frames keep them there and read each input sample once instead
 * of K times.
 * Larger or non-smooth M take a FIR kernel, an fft_plan and a gather. Only the
 * mapped channels are written.
 *
 * Use: write the new samples where input_region() says, then enqueue(). The
 * engine alternates between two input windows (input_regions() = 2): a write
 * for call k+1 may overlap call k, but must wait for call k-1's result::done,
 * which read the same window. set_taps(), set_channel_map() and reset() apply
 * from the next enqueue() on; the device work they need (moving or clearing
 * the history) is enqueued by that enqueue(), on its queue, after its wait list.
 * Not thread-safe; the caller serialises its calls.
 */
class WIDEBAND_CORE_API pfb_channelizer : public splittable_engine
{
public:
    /*!
     * \throws std::invalid_argument for channels < 1, empty or non-finite taps, an
     *         oversample rate that does not give an integer D in [1, channels], a
     *         channel index >= channels, or buffers the device cannot hold
     */
    pfb_channelizer(device_context::sptr context, const pfb_channelizer_options& options);
    ~pfb_channelizer() override;

    /*!
     * \brief What the constructor checks, without a device context: throws
     * std::invalid_argument for the options it rejects and when an engine
     * would need a device buffer larger than \p device allows (too many
     * channels or taps, or too large a max_input_samples; see
     * check_buffer_fits()), as set_taps() and set_channel_map() do.
     */
    static void check_fits(const device_info& device,
                           const pfb_channelizer_options& options);

    /*!
     * \brief check_fits() before the prototype and the channel map exist: the
     * options' channels, oversample rate, layout and max_input_samples with
     * \p taps taps and \p outputs mapped channels (options.taps and
     * options.channel_map are not read), so that a caller can refuse sizes
     * beyond the device before designing a prototype.
     */
    static void check_sizes_fit(const device_info& device,
                                const pfb_channelizer_options& options,
                                size_t taps,
                                size_t outputs);

    pfb_channelizer(const pfb_channelizer&) = delete;
    pfb_channelizer& operator=(const pfb_channelizer&) = delete;

    size_t channels() const;
    size_t decimation() const;      //!< D = M / r input samples per frame
    size_t taps_per_branch() const; //!< K = ceil(taps / M)
    size_t outputs() const;         //!< mapped channels (output slots)
    size_t max_input_samples() const override;
    //! Bytes of an input sample of options.input_format.
    size_t input_sample_bytes() const override;
    //! Frames one enqueue() of \p samples new samples produces.
    size_t frames_for(size_t samples) const;
    //! True when FIR and FFT run as one kernel.
    bool fused() const;
    //! True when the fused kernel keeps each branch's history in registers.
    bool sliding() const;
    //! Whether the mapped channels are rotated sums, without the FFT
    //! (options.max_direct_channels).
    bool direct() const;
    const std::vector<size_t>& channel_map() const;
    const std::vector<float>& taps() const;

    //! Where the next enqueue()'s samples go: \p buffer from element \p offset on.
    region input_region() const override;

    struct result {
        size_t frames; //!< output frames written
        cl::Event done;
    };
    /*!
     * \brief Channelizes \p samples new samples (already written, or enqueued
     * before \p wait completes, at input_region()).
     *
     * Writes frames_for(samples) frames to \p output: channel-major rows of
     * \p row_stride elements (>= frames), or frame-major vectors of outputs()
     * elements. Returns after enqueueing; result::done completes with the output.
     *
     * \throws std::invalid_argument when samples exceeds max_input_samples() or
     *         \p output is too small
     */
    result enqueue(const cl::CommandQueue& queue,
                   size_t samples,
                   const cl::Buffer& output,
                   size_t row_stride,
                   const std::vector<cl::Event>& wait = {});

    // stream_engine: compact output (channel-major rows of the call's frames, or
    // frame-major), frames_for(samples) * outputs() elements; a frame per D samples.
    stream_ratio step() const override { return { decimation(), outputs() }; }
    size_t max_output_elements() const override;
    size_t input_regions() const override { return 2; }
    size_t run(const cl::CommandQueue& queue,
               size_t samples,
               const cl::Buffer& output,
               const std::vector<cl::Event>& wait,
               cl::Event& done) override;
    //! In place, the steps are frames; needs one output stream (frame-major
    //! output, or a single channel) and complex float input.
    bool runs_in_place() const override;
    in_place_result run_in_place(const cl::CommandQueue& queue,
                                 const span& input,
                                 const span& output,
                                 const std::vector<cl::Event>& wait) override;

    /*!
     * New taps, used from the next enqueue() on. The history is kept; when the
     * taps per branch grow, samples older than the history held are taken as zero.
     */
    void set_taps(const std::vector<float>& taps);
    //! A new channel map, used from the next enqueue() on.
    void set_channel_map(const std::vector<size_t>& channel_map);
    //! Back to zero history, as at construction, from the next enqueue() on.
    void reset();

    // splittable_engine: the history is K*M - D samples; continue_at() also
    // sets the frame count, which the commutator position follows.
    size_t history_samples() const override;
    size_t continue_at(uint64_t position) override;

private:
    class impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_PFB_CHANNELIZER_H */
