/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_STREAM_ENGINE_H
#define INCLUDED_WIDEBAND_CORE_STREAM_ENGINE_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/opencl.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

// The streaming contract between the engines (fft_filter, pfb_channelizer,
// fft_stream) and what drives them (stream_pipeline, multi_device_pipeline, the
// blocks' streaming_block). An engine takes input samples of any size
// (input_sample_bytes(): complex float, or the integer samples radios deliver)
// and writes output elements of any size, a fixed number per output step of a
// fixed number of input samples (step(): decimating, interpolating or any
// rational ratio), or a number that depends on the stream (variable_ratio(): a
// resampler at an irrational rate). Chunks reach an engine through its own input
// region (run()), or, on a device-resident stream, are read where they are
// (run_in_place()).

/*!
 * \brief An engine's output step: \p input input samples make \p output
 * output elements. A decimating filter is {D, 1}, a channelizer's frame of S
 * channels {D, S}, an FFT of N points {N, N}, an interpolator by I {1, I}, a
 * resampler by P/Q {Q, P}.
 */
struct stream_ratio {
    size_t input;
    size_t output;
};

/*!
 * \brief A streaming engine as the pipeline drives it: samples in at a device
 * region, a compact block of output elements out. Offsets and counts are in
 * samples (input) and elements (output), whose sizes the engine gives.
 */
class WIDEBAND_CORE_API stream_engine
{
public:
    struct region {
        cl::Buffer buffer;
        size_t offset;   //!< samples
        size_t capacity; //!< samples free from offset on
    };
    virtual ~stream_engine() = default;

    //! Bytes of an input sample (8: complex float).
    virtual size_t input_sample_bytes() const { return 8; }
    //! Bytes of an output element (8: complex float).
    virtual size_t output_element_bytes() const { return 8; }
    /*!
     * Input samples per output step and the output elements it makes. For an
     * engine of variable_ratio(): {1, the most output elements one input
     * sample can make}, a bound for buffer sizes only.
     */
    virtual stream_ratio step() const = 0;
    /*!
     * \brief Whether the outputs of a call depend on the stream, not only on its
     * length (a resampler at an irrational rate): the caller learns them from
     * run(), output positions do not follow from input positions, and the
     * stream cannot be split over several engines (multi_device_pipeline).
     */
    virtual bool variable_ratio() const { return false; }

    //! Where the next call's new samples go.
    virtual region input_region() const = 0;
    //! The most samples one call takes.
    virtual size_t max_input_samples() const = 0;
    //! The most output elements one call writes.
    virtual size_t max_output_elements() const = 0;
    /*!
     * How many calls use different input regions before one comes back: the
     * upload for a call must wait until the engine has finished the call that
     * many calls before it (which read the same region).
     */
    virtual size_t input_regions() const { return 1; }
    /*!
     * \brief Processes \p samples new samples (in input_region(), once \p wait
     * completes) into \p output from element 0 on; returns the elements written
     * and sets \p done to the event after which they are there.
     */
    virtual size_t run(const cl::CommandQueue& queue,
                       size_t samples,
                       const cl::Buffer& output,
                       const std::vector<cl::Event>& wait,
                       cl::Event& done) = 0;

    //! Samples (elements) of a device buffer: \p count of them from \p offset on.
    struct span {
        cl::Buffer buffer;
        size_t offset;
        size_t count;
    };
    struct in_place_result {
        size_t consumed; //!< input samples
        size_t produced; //!< output elements
        cl::Event done;  //!< after which they are there
    };
    /*!
     * \brief Whether run_in_place() works with these settings (an engine that
     * writes its outputs to several places of a chunk, for example, cannot
     * write them straight into one stream).
     */
    virtual bool runs_in_place() const { return false; }
    /*!
     * \brief Output elements run_in_place() writes per step it computes (a
     * call with less output room than this computes nothing).
     */
    virtual size_t in_place_output_step() const { return step().output; }
    /*!
     * \brief A call on samples that are on the engine's device already, in
     * another buffer (the upstream block's), read where they are, with the
     * outputs written straight into \p output: no copy in or out.
     *
     * Computes the output steps that \p input (at most max_input_samples()
     * samples) completes, as many as fit \p output.count, once \p wait
     * completes; what they need of earlier samples, and the samples it cannot
     * complete a step with yet, the engine keeps from its earlier calls (a
     * small copy). Consumes every input sample, or, when the output is short
     * of room, those through the last step. \p done is an event of this call
     * (a marker when it enqueues nothing). A stream is run by one kind of call only:
     * run_in_place() throughout, or run(). A stream's last samples short of a step make
     * no output (as in GNU Radio's blocks that work in blocks of samples).
     */
    virtual in_place_result run_in_place(const cl::CommandQueue& /* queue */,
                                         const span& /* input */,
                                         const span& /* output */,
                                         const std::vector<cl::Event>& /* wait */)
    {
        throw std::logic_error("run_in_place() of an engine that does not run in place");
    }
};

/*!
 * \brief A streaming engine whose stream can be split over several engines:
 * a call can start anywhere in the stream, with the state it needs (the filter
 * history and the samples short of an output step) written by the caller
 * instead of carried over from the engine's last call.
 */
class WIDEBAND_CORE_API splittable_engine : public stream_engine
{
public:
    //! Input samples before an output step that its outputs depend on.
    virtual size_t history_samples() const = 0;
    /*!
     * \brief The next call continues the stream after \p position input samples
     * with the state the caller writes, not the one of the engine's last call.
     *
     * Returns the number of samples, history_samples() + position %
     * step().input, that the caller writes in front of the call's new samples,
     * i.e. ending at input_region().offset: the stream's samples right before
     * \p position (zeros before its start). From the first continue_at() on the
     * engine carries nothing from one call to the next, so every call needs one.
     */
    virtual size_t continue_at(uint64_t position) = 0;
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_STREAM_ENGINE_H */
