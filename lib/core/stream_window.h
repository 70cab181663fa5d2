/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_STREAM_WINDOW_H
#define INCLUDED_WIDEBAND_CORE_STREAM_WINDOW_H

#include "kernel_args.h"
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/sample_format.h>
#include <gnuradio/wideband/core/stream_pipeline.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

/*!
 * \brief The device-side input of a streaming filter: the samples of a call
 * with the filter's history in front of them.
 *
 * A window holds [history][leftover][new samples]: `history` samples before the
 * stream position (what the filter needs of the past), `leftover` samples past it
 * that made no output yet, then the call's new samples. After a call advances the
 * position, history and leftover move to the front of the other window (two
 * alternate, so the next call's upload can overlap this call's kernel). Changes
 * of the history length and resets take a new pair of windows (so that an upload
 * that overlaps the previous call never meets its kernels) and move or clear the
 * history on the caller's queue by the next call, after everything before it.
 * Samples are of the engine's input format (complex float or integers): every
 * count and offset here is in samples of that size.
 */
class stream_window
{
public:
    /*!
     * \param owner the engine, for messages ("fft_filter")
     * \param tail samples past the end of the data that kernels may read (and
     *        whose values they ignore): the windows are that much longer
     * \param format the samples' format (their size, the copy kernel's type)
     * \throws std::invalid_argument when a window does not fit the device (as
     *         set_history() does)
     */
    stream_window(device_context::sptr context,
                  const char* owner,
                  size_t history,
                  size_t max_input,
                  size_t tail = 0,
                  sample_format format = sample_format::fc32);

    //! Samples one window holds for these lengths.
    static size_t capacity_for(size_t history, size_t max_input, size_t tail)
    {
        // The leftover is short of one output step, and a step never exceeds a call.
        return history + 2 * max_input + tail;
    }

    size_t history() const { return d_history; }
    size_t leftover() const { return d_leftover; }
    //! Samples in front of the new ones.
    size_t keep() const { return d_history + d_leftover; }
    const cl::Buffer& buffer() const { return d_window[d_current]; }
    stream_engine::region input_region() const;

    //! A new history length (and tail) from the next call on; samples older
    //! than the last call kept are taken as zero.
    void set_history(size_t history, size_t tail = 0);
    //! Zero history and leftover from the next call on.
    void reset();
    /*!
     * For a stream split over several engines (splittable_engine::continue_at()):
     * the next call's history and leftover (\p leftover samples past the stream
     * position) come from the caller, who writes those keep() samples in front
     * of the new ones, from element 0 of the window. From then on no call carries
     * anything over to the next, so every call needs this first. Returns keep().
     */
    size_t continue_with(size_t leftover);
    //! Enqueues the pending history work on \p queue after \p deps (updated).
    void prepare(const cl::CommandQueue& queue, std::vector<cl::Event>& deps);
    /*!
     * For a call of \p samples new samples whose kernels read the window up to
     * element \p read: zeros from the end of the samples to there, after \p
     * deps (updated). Stale samples, even non-finite ones, would otherwise
     * reach every bin of an FFT over them.
     */
    void zero_past_samples(const cl::CommandQueue& queue,
                           size_t samples,
                           size_t read,
                           std::vector<cl::Event>& deps) const;
    /*!
     * After the call's kernels (\p deps): the position moves \p consumed of the
     * keep() + \p samples samples on; the rest beyond it becomes the leftover.
     * \p done is the last event of the call.
     */
    void advance(const cl::CommandQueue& queue,
                 size_t samples,
                 size_t consumed,
                 const std::vector<cl::Event>& deps,
                 cl::Event& done);

    /*!
     * \brief Enqueues the parts of an in-place call (stream_engine::run_in_place())
     * of at most \p max_steps output steps of \p step new samples, each reading
     * \p reach samples and writing \p step_outputs output elements.
     *
     * Output step s of the call reads the \p reach samples from window element
     * s * \p step on, the new samples following the keep() samples of the
     * window. The first steps reach into the kept samples: they read the
     * window, into which their new samples are copied behind the kept ones. The
     * others read \p input in place. One launch copies the first steps' new
     * samples and, to the other window, the next call's history and leftover.
     * The call consumes every new sample when it can compute every step they
     * complete (what is short of a step becomes the leftover), otherwise those
     * up to its last step.
     *
     * \p launch(buffer, read_start, first, count, output_offset, deps) enqueues
     * the engine's kernels for steps [first, first + count) of the call, whose
     * first reads \p buffer from element read_start on, writing \p output's
     * buffer from element output_offset on, after \p deps; it returns their
     * last event.
     */
    using step_launch = std::function<cl::Event(const cl::Buffer& buffer,
                                                size_t read_start,
                                                size_t first,
                                                size_t count,
                                                size_t output_offset,
                                                const std::vector<cl::Event>& deps)>;
    stream_engine::in_place_result run_in_place(const cl::CommandQueue& queue,
                                                const stream_engine::span& input,
                                                const stream_engine::span& output,
                                                size_t max_steps,
                                                size_t step,
                                                size_t reach,
                                                size_t step_outputs,
                                                const std::vector<cl::Event>& wait,
                                                const step_launch& launch);

private:
    void allocate(size_t capacity);
    //! Zeros over window \p window's samples [first, first + count) after \p
    //! deps (updated).
    void fill_zeros(const cl::CommandQueue& queue,
                    const cl::Buffer& window,
                    size_t first,
                    size_t count,
                    std::vector<cl::Event>& deps) const;
    // How an in-place call splits between the window and its input.
    struct in_place_split {
        size_t steps = 0;        // output steps of the call
        size_t head_steps = 0;   // the first ones, which read the window
        size_t head_samples = 0; // new samples they read
        size_t consumed = 0;     // new samples the call consumes
        size_t body_start = 0;   // where step head_steps reads the input, from
                                 // new sample 0
    };
    in_place_split
    split_in_place(size_t available, size_t max_steps, size_t step, size_t reach) const;
    //! The copies of the call (the head's new samples, the next call's history
    //! and leftover) in one launch after \p deps (updated).
    void copy_in_place(const cl::CommandQueue& queue,
                       const stream_engine::span& source,
                       const in_place_split& split,
                       size_t step,
                       std::vector<cl::Event>& deps);


    // window[current] gets `zeros` zeros, then `count` samples from `from`,
    // which holds `available` valid samples up to from_offset + count (so a
    // second change before the next call can still take more of them).
    struct history_move {
        cl::Buffer from; // null: nothing to copy
        size_t from_offset = 0, count = 0, zeros = 0, available = 0;
    };

    device_context::sptr d_context;
    const char* d_owner;
    sample_format d_format;
    size_t d_sample_bytes;
    size_t d_history, d_leftover = 0, d_max_input, d_tail;
    cl::Buffer d_window[2];
    size_t d_capacity = 0;
    int d_current = 0;
    std::optional<history_move> d_pending;
    bool d_carried = false;            // a call has copied its state to the other window
    bool d_split = false;              // continue_with() gives each call its state
    bool d_continued = false;          // ... and has given the next call's
    std::optional<kernel_args> d_copy; // copy_in_place(), built at its first use
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_STREAM_WINDOW_H */
