/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_PIPELINED_WORK_H
#define INCLUDED_WIDEBAND_PIPELINED_WORK_H

#include <gnuradio/block.h>
#include <gnuradio/gr_complex.h>
#include <gnuradio/wideband/core/host_copy.h>
#include <gnuradio/wideband/core/stream_pipeline.h>

#include <gnuradio/wideband/opencl_buffer.h>

#include "work_profile.h"
#include <algorithm>
#include <cstdlib>

namespace gr {
namespace wideband {

/*!
 * \brief The general_work() of a block that streams through a
 * core::stream_pipeline: input goes in as chunks, output comes out of the oldest
 * chunk as it is ready, in order, partly when the output buffer is short.
 *
 * A chunk's output is items_per_chunk = elements / elements_per_item items; the
 * block moves them out in deliver(chunk, chunk_items, first, count, produced),
 * with move_out() for each of its outputs. Input is taken from wherever its
 * buffer keeps it (host, pinned host or device memory; see opencl_buffer).
 */
class pipelined_work
{
public:
    explicit pipelined_work(core::stream_pipeline& pipeline) : d_pipeline(pipeline) {}

    //! Output still in flight: the block asks for no input (which also lets the
    //! end of a stream flush it).
    bool pending() const { return d_pipeline.in_flight() > 0; }

    /*!
     * \brief Chunk outputs stay on the device and move_out() copies or DMAs
     * them to the output buffers, instead of a download to staging memory and
     * a host copy from there. Worth it when an output is in device memory, or
     * when a few pinned outputs take whole contiguous parts; call before the
     * first step().
     */
    void set_output_on_device(bool on) { d_pipeline.set_output_on_device(on); }

    /*!
     * \brief One call: submits up to \p max_chunk of the \p available samples at
     * \p input (through \p port) when a slot is free (returns them in \p
     * consumed), then delivers up to \p room items. Blocks on the oldest chunk
     * only when the pipeline is full or no input came (the end of a stream);
     * otherwise takes what is done.
     */
    template <typename Deliver>
    size_t step(const stream_port& port,
                const void* input,
                size_t available,
                size_t max_chunk,
                size_t room,
                size_t elements_per_item,
                size_t& consumed,
                Deliver&& deliver)
    {
        d_profile.begin_call();
        consumed = 0;
        if (d_pipeline.can_submit() && available > 0) {
            consumed = std::min(available, max_chunk);
            submit(port, input, consumed);
        }
        d_profile.mark(work_profile::submit);
        size_t produced = 0;
        while (d_pipeline.in_flight() > 0 && produced < room) {
            if (!d_pipeline.oldest_ready()) {
                if (d_pipeline.can_submit() && consumed > 0)
                    break;
                d_pipeline.wait_oldest();
                d_profile.mark(work_profile::wait_output);
            }
            const size_t items = d_pipeline.oldest_elements() / elements_per_item;
            const size_t count = std::min(room - produced, items - d_delivered);
            deliver(d_pipeline.output_on_device() ? nullptr : d_pipeline.oldest(),
                    items,
                    d_delivered,
                    count,
                    produced);
            produced += count;
            d_delivered += count;
            if (d_delivered == items) {
                d_pipeline.pop();
                d_delivered = 0;
            }
            d_profile.mark(work_profile::deliver);
        }
        // GNU Radio may reuse the input and hand the output on as soon as
        // work() returns; the upload of this chunk and the delivery of the last
        // ran at the same time (both PCIe directions, or copy engines).
        if (consumed > 0)
            d_pipeline.wait_source_read();
        d_profile.mark(work_profile::wait_source);
        if (produced > 0 && d_pipeline.output_on_device())
            d_pipeline.wait_deliveries();
        d_profile.mark(work_profile::wait_delivery);
        d_profile.end_call(consumed, produced);
        return produced;
    }

    //! WIDEBAND_PROFILE's line for this block (empty when off).
    std::string profile_report() const { return d_profile.report(); }

    /*!
     * \brief Moves \p count elements of the oldest chunk, from element \p first
     * on (of \p chunk, its host copy, unless the output stays on the device), to
     * element \p at of the work() output \p output reached through \p port.
     */
    void move_out(const gr_complex* chunk,
                  size_t first,
                  size_t count,
                  const stream_port& port,
                  void* output,
                  size_t at)
    {
        gr_complex* out = static_cast<gr_complex*>(output) + at;
        if (!d_pipeline.output_on_device())
            core::host_copy(out, chunk + first, count * sizeof(gr_complex));
        else if (port.where == stream_port::kind::device)
            d_pipeline.copy_oldest(first,
                                   count,
                                   port.buffer->device_memory(),
                                   port.element_offset(output) + at);
        else
            d_pipeline.read_oldest(first, count, out);
    }

private:
    void submit(const stream_port& port, const void* input, size_t samples)
    {
        const auto* samples_at = static_cast<const gr_complex*>(input);
        switch (port.where) {
        case stream_port::kind::device:
            d_pipeline.submit_device(
                port.buffer->device_memory(), port.element_offset(input), samples);
            break;
        case stream_port::kind::pinned_host:
            d_pipeline.submit_pinned(samples_at, samples);
            break;
        default:
            d_pipeline.submit(samples_at, samples);
        }
    }

    core::stream_pipeline& d_pipeline;
    size_t d_delivered = 0; // items of the oldest chunk already delivered
    work_profile d_profile;
};

/*!
 * \brief Input samples per chunk a pipelined block aims at on \p device: large
 * enough that transfers run at the bus's speed and launch and hand-over costs
 * vanish, small enough to bound latency. A GPU needs 2^22 (with 2^19 a block
 * inside GNU Radio ran at under a tenth of its engine's speed on an H100);
 * CPU devices keep 2^19 (memory, latency).
 */
inline size_t chunk_samples_for(const core::device_info& device)
{
    if (const char* v = std::getenv("WIDEBAND_CHUNK_SAMPLES"))
        return std::max<size_t>(std::strtoull(v, nullptr, 0), 1024);
    return (device.type & CL_DEVICE_TYPE_GPU) ? size_t(1) << 22 : size_t(1) << 19;
}

//! Chunks in flight per block.
inline size_t pipeline_depth()
{
    if (const char* v = std::getenv("WIDEBAND_PIPELINE_DEPTH"))
        return std::max<size_t>(std::strtoull(v, nullptr, 0), 1);
    return 2;
}

/*!
 * \brief Upstream buffers are sized from a block's output multiple (GNU Radio
 * makes them at least twice decimation * output_multiple): a pipelined block
 * asks for half a chunk per output multiple.
 */
inline size_t buffer_hint_samples_for(const core::device_info& device)
{
    return chunk_samples_for(device) / 2;
}

/*!
 * For check_topology(): with max_noutput_items below the output multiple (which
 * a pipelined block sets large) the scheduler never calls work(), so the
 * multiple gives way.
 */
inline void fit_output_multiple(gr::block& block)
{
    if (block.is_set_max_noutput_items() &&
        block.max_noutput_items() < block.output_multiple())
        block.set_output_multiple(std::max(1, block.max_noutput_items()));
}

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_PIPELINED_WORK_H */
