/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "stream_window.h"

#include <algorithm>
#include <stdexcept>

namespace gr {
namespace wideband {
namespace core {

stream_window::stream_window(device_context::sptr context,
                             const char* owner,
                             size_t history,
                             size_t max_input,
                             size_t tail,
                             sample_format format)
    : d_context(std::move(context)),
      d_owner(owner),
      d_format(format),
      d_sample_bytes(sample_bytes(format)),
      d_history(history),
      d_max_input(max_input),
      d_tail(tail)
{
    allocate(capacity_for(history, d_max_input, tail));
    d_pending = history_move{ cl::Buffer(), 0, 0, keep() };
}

void stream_window::allocate(size_t capacity)
{
    check_buffer_fits(
        d_context->info(),
        std::string(d_owner) + ": an input window of " + std::to_string(capacity) +
            " samples (the history and two calls of " + std::to_string(d_max_input) + ")",
        capacity * d_sample_bytes);
    // Both made before either is replaced: a failed allocation changes nothing.
    const cl::Context& ctx = d_context->context();
    cl::Buffer first(ctx, CL_MEM_READ_WRITE, capacity * d_sample_bytes);
    cl::Buffer second(ctx, CL_MEM_READ_WRITE, capacity * d_sample_bytes);
    d_window[0] = first;
    d_window[1] = second;
    d_capacity = capacity;
    d_current = 0;
}

stream_engine::region stream_window::input_region() const
{
    return { d_window[d_current], keep(), d_max_input };
}

void stream_window::set_history(size_t history, size_t tail)
{
    if (history == d_history && capacity_for(history, d_max_input, tail) <= d_capacity) {
        d_tail = tail;
        return;
    }
    // Where the valid samples are now: a pending move's source, or this window.
    cl::Buffer from = d_window[d_current];
    size_t end = keep(), available = keep();
    if (d_pending) { // not done yet: all the source holds is still there
        from = d_pending->from;
        end = d_pending->from_offset + d_pending->count;
        available = d_pending->available;
    }
    // New windows: the next call's upload may start before this call's kernels
    // and history copy are done, so it must not land in a window they use.
    // Allocated first, so that a failure leaves the window as it was.
    allocate(std::max(capacity_for(history, d_max_input, tail), d_capacity));
    d_history = history;
    d_tail = tail;
    const size_t needed = keep();
    const size_t kept = std::min(available, needed);
    d_pending = history_move{
        kept ? from : cl::Buffer(), end - kept, kept, needed - kept, available
    };
}

void stream_window::reset()
{
    d_leftover = 0;
    // New windows, for the same reason as set_history().
    allocate(d_capacity);
    d_pending = history_move{ cl::Buffer(), 0, 0, keep() };
}

size_t stream_window::continue_with(size_t leftover)
{
    // The last call that carried its state may still be copying it into the
    // window the caller is about to write: fresh windows keep them apart.
    if (d_carried && !d_split)
        allocate(d_capacity);
    d_split = d_continued = true;
    d_leftover = leftover;
    d_pending.reset();
    return keep();
}

void stream_window::prepare(const cl::CommandQueue& queue, std::vector<cl::Event>& deps)
{
    if (d_split && !d_continued)
        throw std::logic_error("stream_window: a call of a split stream without "
                               "continue_at() before it");
    d_continued = false;
    if (!d_pending)
        return;
    if (d_pending->zeros)
        fill_zeros(queue, d_window[d_current], 0, d_pending->zeros, deps);
    if (d_pending->count) {
        cl::Event event;
        queue.enqueueCopyBuffer(d_pending->from,
                                d_window[d_current],
                                d_pending->from_offset * d_sample_bytes,
                                d_pending->zeros * d_sample_bytes,
                                d_pending->count * d_sample_bytes,
                                deps.empty() ? nullptr : &deps,
                                &event);
        deps.assign(1, event);
    }
    d_pending.reset();
}

void stream_window::advance(const cl::CommandQueue& queue,
                            size_t samples,
                            size_t consumed,
                            const std::vector<cl::Event>& deps,
                            cl::Event& done)
{
    const size_t total = keep() + samples;
    d_leftover = d_leftover + samples - consumed;
    const size_t keep_after = keep();
    const int other = 1 - d_current;
    if (keep_after > 0 && !d_split) {
        queue.enqueueCopyBuffer(d_window[d_current],
                                d_window[other],
                                (total - keep_after) * d_sample_bytes,
                                0,
                                keep_after * d_sample_bytes,
                                deps.empty() ? nullptr : &deps,
                                &done);
        d_carried = true;
    } else {
        queue.enqueueMarkerWithWaitList(deps.empty() ? nullptr : &deps, &done);
    }
    d_current = other;
}

stream_window::in_place_split stream_window::split_in_place(size_t available,
                                                            size_t max_steps,
                                                            size_t step,
                                                            size_t reach) const
{
    if (d_split || reach < d_history + step)
        throw std::logic_error("stream_window: an in-place call on a window that "
                               "serves a split stream or has a step that reads "
                               "less than itself");
    // In window elements: the kept samples, then new sample j at kept + j.
    const size_t kept = keep();
    in_place_split split;
    size_t complete = 0; // the steps the samples complete
    if (kept + available >= reach)
        complete = (kept + available - reach) / step + 1;
    split.steps = std::min(complete, max_steps);
    split.head_steps = std::min(split.steps, (kept + step - 1) / step);
    if (split.head_steps)
        split.head_samples =
            std::min(available, (split.head_steps - 1) * step + reach - kept);
    if (split.steps > split.head_steps)
        split.body_start = split.head_steps * step - kept;
    // Every sample when no step is left out; else through the last step.
    const size_t next = split.steps * step + d_history; // where the next call starts
    split.consumed = split.steps == complete ? available : std::max(next, kept) - kept;
    return split;
}

void stream_window::copy_in_place(const cl::CommandQueue& queue,
                                  const stream_engine::span& source,
                                  const in_place_split& split,
                                  size_t step,
                                  std::vector<cl::Event>& deps)
{
    // The next call keeps window elements [from, kept + consumed): the history
    // before its first sample and the samples it has not used.
    const size_t kept = keep();
    const size_t from = split.steps * step;
    const size_t from_window = kept > from ? kept - from : 0;
    const size_t source_first = from > kept ? from - kept : 0;
    const size_t from_source = split.consumed - source_first;
    const size_t total = split.head_samples + from_window + from_source;
    if (total == 0)
        return;
    if (!d_copy)
        d_copy.emplace(
            *d_context, "stream_window.cl", sample_type_option(d_format), "copy_ranges");
    kernel_args& k = *d_copy;
    const cl::Buffer& current = d_window[d_current];
    const cl::Buffer& other = d_window[1 - d_current];
    // The parameters of range i, as copy_ranges names them.
    static const char* const names[3][5] = {
        { "source0", "source0_offset", "destination0", "destination0_offset", "count0" },
        { "source1", "source1_offset", "destination1", "destination1_offset", "count1" },
        { "source2", "source2_offset", "destination2", "destination2_offset", "count2" },
    };
    const auto range = [&](int i,
                           const cl::Buffer& from_buffer,
                           size_t from_offset,
                           const cl::Buffer& to_buffer,
                           size_t to_offset,
                           size_t count) {
        k.set(names[i][0], from_buffer);
        k.set(names[i][1], cl_ulong(from_offset));
        k.set(names[i][2], to_buffer);
        k.set(names[i][3], cl_ulong(to_offset));
        k.set(names[i][4], cl_ulong(count));
    };
    range(0, source.buffer, source.offset, current, kept, split.head_samples);
    range(1, current, from, other, 0, from_window);
    range(
        2, source.buffer, source.offset + source_first, other, from_window, from_source);
    cl::Event event;
    // A multiple of 64 work-items (the extra ones copy nothing), so that the
    // runtime picks a work-group size that suits the device rather than one
    // that divides an odd count.
    queue.enqueueNDRangeKernel(k.ready(),
                               cl::NullRange,
                               cl::NDRange((total + 63) / 64 * 64),
                               cl::NullRange,
                               deps.empty() ? nullptr : &deps,
                               &event);
    deps.assign(1, event);
}

void stream_window::zero_past_samples(const cl::CommandQueue& queue,
                                      size_t samples,
                                      size_t read,
                                      std::vector<cl::Event>& deps) const
{
    const size_t data = keep() + samples;
    if (read > data)
        fill_zeros(queue, d_window[d_current], data, read - data, deps);
}

void stream_window::fill_zeros(const cl::CommandQueue& queue,
                               const cl::Buffer& window,
                               size_t first,
                               size_t count,
                               std::vector<cl::Event>& deps) const
{
    // A pattern of one sample: a fill's offset and size are multiples of it.
    cl::Event event;
    const auto fill = [&](auto zero) {
        queue.enqueueFillBuffer(window,
                                zero,
                                first * d_sample_bytes,
                                count * d_sample_bytes,
                                deps.empty() ? nullptr : &deps,
                                &event);
    };
    switch (d_sample_bytes) {
    case 2:
        fill(cl_ushort(0));
        break;
    case 4:
        fill(cl_uint(0));
        break;
    default:
        fill(cl_ulong(0));
    }
    deps.assign(1, event);
}

stream_engine::in_place_result
stream_window::run_in_place(const cl::CommandQueue& queue,
                            const stream_engine::span& input,
                            const stream_engine::span& output,
                            size_t max_steps,
                            size_t step,
                            size_t reach,
                            size_t step_outputs,
                            const std::vector<cl::Event>& wait,
                            const step_launch& launch)
{
    const in_place_split split = split_in_place(
        input.count, std::min(max_steps, output.count / step_outputs), step, reach);
    std::vector<cl::Event> deps = wait;
    prepare(queue, deps);
    copy_in_place(queue, input, split, step, deps);
    if (split.head_steps)
        deps.assign(1, launch(buffer(), 0, 0, split.head_steps, output.offset, deps));
    if (split.steps > split.head_steps)
        deps.assign(1,
                    launch(input.buffer,
                           input.offset + split.body_start,
                           split.head_steps,
                           split.steps - split.head_steps,
                           output.offset + split.head_steps * step_outputs,
                           deps));
    // The next call uses the other window, into which copy_in_place() wrote.
    d_leftover = keep() + split.consumed - split.steps * step - d_history;
    d_carried = true;
    d_current = 1 - d_current;

    stream_engine::in_place_result r{ split.consumed, split.steps * step_outputs, {} };
    const auto same = [](const cl::Event& a, const cl::Event& b) { return a() == b(); };
    const bool enqueued = !(deps.size() == wait.size() &&
                            std::equal(deps.begin(), deps.end(), wait.begin(), same));
    if (enqueued && deps.size() == 1) // the call's last command
        r.done = deps.front();
    else // nothing of its own: an event of the wait list is not the call's
        queue.enqueueMarkerWithWaitList(deps.empty() ? nullptr : &deps, &r.done);
    return r;
}

} // namespace core
} // namespace wideband
} // namespace gr
