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
#include <vector>

namespace gr {
namespace wideband {
namespace core {

// The streaming contract between the engines (fft_filter, pfb_channelizer)
// and what drives them (stream_pipeline, multi_device_pipeline, the blocks'
// streaming_block): complex float samples in, D input samples per output step.

/*!
 * \brief A streaming engine as the pipeline drives it: complex samples in at a
 * device region, a compact block of complex output elements out.
 */
class WIDEBAND_CORE_API stream_engine
{
public:
    struct region {
        cl::Buffer buffer;
        size_t offset;   //!< complex elements
        size_t capacity; //!< complex elements free from offset on
    };
    virtual ~stream_engine() = default;

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
    //! Input samples per output step (the channelizer's frame, the filter's
    //! decimation).
    virtual size_t decimation() const = 0;
    //! Input samples before an output step that its outputs depend on.
    virtual size_t history_samples() const = 0;
    /*!
     * \brief The next call continues the stream after \p position input samples
     * with the state the caller writes, not the one of the engine's last call.
     *
     * Returns the number of samples, history_samples() + position %
     * decimation(), that the caller writes in front of the call's new samples,
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
