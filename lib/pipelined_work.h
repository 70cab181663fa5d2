/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_PIPELINED_WORK_H
#define INCLUDED_WIDEBAND_PIPELINED_WORK_H

#include <gnuradio/block.h>
#include <gnuradio/buffer_double_mapped.h>
#include <gnuradio/wideband/core/host_copy.h>
#include <gnuradio/wideband/core/multi_device_pipeline.h>

#include <gnuradio/wideband/opencl_buffer.h>

#include "work_profile.h"
#include <algorithm>
#include <deque>
#include <functional>

namespace gr {
namespace wideband {

/*!
 * \brief The general_work() of a block that streams through a
 * core::multi_device_pipeline (one device or several): input goes in as chunks, output
 * comes out of the oldest chunk as it is ready, in order, partly when the output buffer
 * is short.
 *
 * Input samples and output elements are the engines' (their sizes too). A
 * chunk's output is items_per_chunk = elements / elements_per_item items; the
 * block moves them out in deliver(chunk, chunk_items, first, count, produced),
 * with move_out() for each of its outputs. Input is taken from wherever its
 * buffer keeps it (host, pinned host or device memory; see opencl_buffer).
 *
 * Nothing waits in work() that need not: on device edges the transfers are
 * ordered by the buffers' events, and outputs that all live in device memory
 * are handed on as soon as their copies are enqueued; pinned input is released
 * (consumed) one call later, once its DMA has read it, so that the DMA runs on
 * while GNU Radio moves to the next call.
 */
class pipelined_work
{
public:
    /*!
     * \p owner: the block, which names this reader to its input buffer for as
     * long as the block lives (a new pipelined_work each run).
     */
    pipelined_work(core::multi_device_pipeline& pipeline, const gr::block& owner)
        : d_pipeline(pipeline),
          d_owner(&owner),
          d_sample_bytes(pipeline.input_sample_bytes()),
          d_element_bytes(pipeline.output_element_bytes())
    {
    }

    //! Output in flight or input held: the block asks for no input (which also
    //! lets the end of a stream flush it).
    bool pending() const { return d_pipeline.in_flight() > 0 || d_held > 0; }

    /*!
     * \brief How the block's input and outputs reach their items (read at the
     * first work() call of a stream, when GNU Radio has connected the buffers),
     * and whether chunk outputs stay on the device, for move_out() to copy or
     * DMA them to the outputs, instead of a download to staging memory and a
     * host copy from there. Worth it when an output is in device memory, or
     * when a few pinned outputs take whole contiguous parts.
     */
    void bind(const stream_port& input,
              const std::vector<stream_port>& outputs,
              bool output_on_device)
    {
        d_input = input;
        d_outputs = outputs;
        if (input.buffer)
            d_profile.note("input buffer " + std::to_string(input.buffer->bufsize()) +
                           " items");
        d_host_outputs = false;
        for (const stream_port& port : outputs)
            d_host_outputs |= port.where != stream_port::kind::device;
        d_pipeline.set_output_on_device(output_on_device);
    }

    /*!
     * \brief One call: releases the input held since the last call, submits up
     * to \p max_chunk of the rest of the \p available samples at \p input when a
     * slot is free, then delivers up to \p room items. Returns the items
     * produced and, in \p consumed, the input samples to consume. Blocks on the
     * oldest chunk only when the pipeline is full or no input came (the end of
     * a stream), and only for outputs in host memory.
     */
    template <typename Deliver>
    size_t step(const void* input,
                size_t available,
                size_t max_chunk,
                size_t room,
                size_t elements_per_item,
                size_t& consumed,
                Deliver&& deliver)
    {
        size_t produced = 0;
        step_with(
            input, available, max_chunk, consumed, [&](bool wait, bool keep_newest) {
                const size_t before = produced;
                deliver_ready(
                    wait, room, elements_per_item, produced, deliver, keep_newest);
                return produced - before;
            });
        return produced;
    }

    /*!
     * \brief As step(), for a block whose outputs run at different rates: the
     * chunk of the \p samples stream samples from sample \p start on has
     * counts(start, samples)[o] elements for output o, output after output.
     * Each output takes what fits its \p room; deliver(chunk, o, first, count,
     * at) moves \p count of the oldest chunk's elements from its element \p
     * first to item \p at of output \p o. \p produced gets each output's items.
     * Less \p room than \p enough delivers nothing unless it finishes the
     * chunk: GNU Radio's room is the least free space over all outputs, which
     * with many outputs grows a little with each reader's call, and calls that
     * move a few items each would follow every one of them.
     */
    template <typename Counts, typename Deliver>
    void step_outputs(const void* input,
                      size_t available,
                      size_t max_chunk,
                      size_t room,
                      size_t enough,
                      size_t& consumed,
                      std::vector<size_t>& produced,
                      Counts&& counts,
                      Deliver&& deliver)
    {
        produced.assign(d_outputs.size(), 0);
        d_delivered_each.resize(d_outputs.size(), 0);
        d_counts = counts;
        step_with(
            input, available, max_chunk, consumed, [&](bool wait, bool keep_newest) {
                return deliver_ready_each(
                    wait, room, enough, produced, deliver, keep_newest);
            });
    }

    //! Stream samples submitted so far: where the next chunk starts.
    uint64_t samples_submitted() const { return d_submitted; }

    //! WIDEBAND_PROFILE's line for this block (empty when off).
    std::string profile_report() const { return d_profile.report(); }

    /*!
     * \brief Moves \p count elements of the oldest chunk, from element \p first
     * on (of \p chunk, its host copy, unless the output stays on the device), to
     * element \p at of the work() output \p output of output port \p index.
     */
    void move_out(const void* chunk,
                  size_t first,
                  size_t count,
                  size_t index,
                  void* output,
                  size_t at)
    {
        const stream_port& port = d_outputs[index];
        const size_t bytes = d_element_bytes;
        char* out = static_cast<char*>(output) + at * bytes;
        if (!d_pipeline.output_on_device()) {
            core::host_copy(
                out, static_cast<const char*>(chunk) + first * bytes, count * bytes);
        } else if (port.where == stream_port::kind::device) {
            const cl::Event copied =
                d_pipeline.copy_oldest(first,
                                       count,
                                       port.buffer->device_memory(),
                                       port.element_offset(output, bytes) + at,
                                       port.buffer->write_after());
            if (copied() != nullptr)
                port.buffer->written_by(copied);
        } else {
            d_pipeline.read_oldest(first, count, out);
        }
    }

private:
    /*!
     * One call of step() or step_outputs(): releases the input held since the
     * last call, submits up to \p max_chunk of the rest of the \p available
     * samples when a slot is free, and around that delivers with
     * deliver_some(wait, keep_newest), which returns the items it moved.
     */
    template <typename DeliverSome>
    void step_with(const void* input,
                   size_t available,
                   size_t max_chunk,
                   size_t& consumed,
                   DeliverSome&& deliver_some)
    {
        d_profile.begin_call();
        consumed = 0;
        if (d_held > 0) {
            d_pipeline.wait_source_read();
            consumed = d_held;
            d_held = 0;
        }
        d_profile.mark(work_profile::wait_source);
        // Outputs that are ready leave first (the oldest is waited for when the
        // pipeline is full and input waits): their transfers then run while
        // the host copies the next chunk in.
        size_t produced =
            deliver_some(!d_pipeline.can_submit() && available > consumed, false);
        size_t submitted = 0;
        if (d_pipeline.can_submit() && available > consumed) {
            submitted = std::min(available - consumed, max_chunk);
            submit(static_cast<const char*>(input) + consumed * d_sample_bytes,
                   submitted);
        }
        // Host input went to staging memory in submit(); device reads are
        // ordered by the buffer's events; a DMA from pinned memory may still be
        // reading, so those samples are released by the next call, and their
        // chunk's output (which their tags go with) waits for that call too.
        const size_t held =
            d_input.where == stream_port::kind::pinned_host ? submitted : 0;
        consumed += submitted - held;
        d_profile.mark(work_profile::submit);
        // With nothing submitted (the end of a stream, or a full pipeline) the
        // oldest chunk is waited for.
        produced += deliver_some(submitted == 0, held > 0);
        d_held = held;
        // Host readers read the output as soon as work() returns.
        if (produced > 0 && d_pipeline.output_on_device() && d_host_outputs)
            d_pipeline.wait_deliveries();
        d_profile.mark(work_profile::wait_delivery);
        d_profile.end_call(consumed, produced);
    }

    /*!
     * Whether the oldest chunk's output can be delivered: it is there, or all
     * outputs live on the device (their copies wait for it there), or with
     * \p wait (cleared then) after waiting for it.
     */
    bool oldest_deliverable(bool& wait)
    {
        if (!d_host_outputs || d_pipeline.oldest_ready())
            return true;
        if (!wait)
            return false;
        d_pipeline.wait_oldest();
        d_profile.mark(work_profile::wait_output);
        wait = false;
        return true;
    }

    //! step_outputs()'s deliveries: each output of the oldest chunks as its
    //! room allows; a chunk is done when every output has all of it.
    template <typename Deliver>
    size_t deliver_ready_each(bool wait,
                              size_t room,
                              size_t enough,
                              std::vector<size_t>& produced,
                              Deliver& deliver,
                              bool keep_newest)
    {
        size_t moved = 0;
        while (d_pipeline.in_flight() > (keep_newest ? 1 : 0) &&
               oldest_deliverable(wait)) {
            const std::vector<size_t>& counts = d_chunk_counts.front();
            bool finishes = true;
            for (size_t o = 0; o < counts.size(); ++o)
                finishes &= counts[o] - d_delivered_each[o] <= room - produced[o];
            if (room < enough && !finishes)
                break;
            const void* chunk =
                d_pipeline.output_on_device() ? nullptr : d_pipeline.oldest<void>();
            bool complete = true;
            size_t first = 0;
            for (size_t o = 0; o < counts.size(); ++o) {
                size_t& delivered = d_delivered_each[o];
                const size_t n = std::min(room - produced[o], counts[o] - delivered);
                if (n > 0) {
                    deliver(chunk, o, first + delivered, n, produced[o]);
                    produced[o] += n;
                    delivered += n;
                    moved += n;
                }
                complete &= delivered == counts[o];
                first += counts[o];
            }
            d_profile.mark(work_profile::deliver);
            if (!complete)
                break;
            d_pipeline.pop();
            d_chunk_counts.pop_front();
            std::fill(d_delivered_each.begin(), d_delivered_each.end(), 0);
        }
        return moved;
    }

    /*!
     * Delivers chunks, oldest first, while there is room: those whose output
     * is there (any, for outputs that all live on the device, whose copies
     * wait for the chunk on the device), or with \p wait the oldest after
     * waiting for it; with \p keep_newest not the newest chunk.
     */
    template <typename Deliver>
    void deliver_ready(bool wait,
                       size_t room,
                       size_t elements_per_item,
                       size_t& produced,
                       Deliver& deliver,
                       bool keep_newest = false)
    {
        while (d_pipeline.in_flight() > (keep_newest ? 1 : 0) && produced < room) {
            if (!oldest_deliverable(wait))
                return;
            const size_t items = d_pipeline.oldest_elements() / elements_per_item;
            const size_t count = std::min(room - produced, items - d_delivered);
            deliver(d_pipeline.output_on_device() ? nullptr : d_pipeline.oldest<void>(),
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
    }

    void submit(const void* samples_at, size_t samples)
    {
        if (d_counts)
            d_chunk_counts.push_back(d_counts(d_submitted, samples));
        d_submitted += samples;
        switch (d_input.where) {
        case stream_port::kind::device:
            d_pipeline.submit_device(d_input.buffer->device_memory(),
                                     d_input.element_offset(samples_at, d_sample_bytes),
                                     samples,
                                     d_input.buffer->read_after());
            d_input.buffer->read_by(d_owner, d_pipeline.source_read());
            break;
        case stream_port::kind::pinned_host:
            d_pipeline.submit_pinned(samples_at, samples);
            d_input.buffer->read_by(d_owner, d_pipeline.source_read());
            break;
        default:
            d_pipeline.submit(samples_at, samples);
        }
    }

    core::multi_device_pipeline& d_pipeline;
    const gr::block* d_owner;
    stream_port d_input;
    std::vector<stream_port> d_outputs;
    bool d_host_outputs = true; // an output lives in host memory (pinned or not)
    size_t d_delivered = 0;     // items of the oldest chunk already delivered
    size_t d_held = 0;          // pinned input submitted by the last call, not consumed
    uint64_t d_submitted = 0;   // stream samples submitted
    // step_outputs(): each output's elements of a chunk (start, samples), those
    // of the chunks in flight, oldest first, and what each output has of the oldest.
    std::function<std::vector<size_t>(uint64_t, size_t)> d_counts;
    std::deque<std::vector<size_t>> d_chunk_counts;
    std::vector<size_t> d_delivered_each;
    const size_t d_sample_bytes, d_element_bytes; // the engines' input and output
    work_profile d_profile;
};

//! opencl_block::opencl_context() of a block on \p contexts: null for several.
inline core::device_context::sptr
single_context(const std::vector<core::device_context::sptr>& contexts)
{
    return contexts.size() == 1 ? contexts.front() : nullptr;
}

//! The devices' names, for device_name().
inline std::string device_names(const std::vector<core::device_context::sptr>& contexts)
{
    std::string names;
    for (const auto& c : contexts)
        names += (names.empty() ? "" : ", ") + c->info().name;
    return names;
}

//! One pipeline that spreads chunks over \p engines, one per context, with
//! \p depth chunks in flight per device.
template <typename Engine>
std::unique_ptr<core::multi_device_pipeline>
make_pipeline(const std::vector<core::device_context::sptr>& contexts,
              const std::vector<std::unique_ptr<Engine>>& engines,
              size_t depth)
{
    std::vector<core::splittable_engine*> each;
    for (const auto& engine : engines)
        each.push_back(engine.get());
    return std::make_unique<core::multi_device_pipeline>(contexts, each, depth);
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
