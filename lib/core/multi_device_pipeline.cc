/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/wideband/core/multi_device_pipeline.h>
#include <gnuradio/wideband/core/pinned_buffer.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gr {
namespace wideband {
namespace core {

/*
 * One device: its engine, and its stream_pipeline. When the stream is split,
 * the pipeline drives the lane itself, which first writes the chunk's lead
 * (the samples before it) in front of the chunk, on the compute queue, then
 * runs the engine.
 */
class multi_device_pipeline::lane : public stream_engine
{
    struct staging {
        std::unique_ptr<pinned_buffer> buffer;
        cl::Event written;
    };

    device_context::sptr d_context;
    std::vector<staging> d_staging; // one per chunk in flight
    size_t d_next_staging = 0;
    staging* d_current = nullptr;
    size_t d_lead = 0;

public:
    lane(device_context::sptr context,
         splittable_engine& device_engine,
         size_t depth,
         bool split)
        : d_context(std::move(context)),
          d_staging(std::max<size_t>(depth, 1)), // as stream_pipeline's slots
          engine(device_engine),
          pipeline(new stream_pipeline(d_context,
                                       split ? static_cast<stream_engine&>(*this)
                                             : device_engine,
                                       depth))
    {
    }

    splittable_engine& engine;
    // Last, so that it is destroyed first: its destructor waits for the
    // writes that read the staging buffers.
    const std::unique_ptr<stream_pipeline> pipeline;

    //! The next call's lead: the last \p lead samples of \p tail (bytes of
    //! samples), zeros before it.
    void stage_lead(const std::vector<char>& tail, size_t lead)
    {
        d_lead = lead;
        if (lead == 0)
            return;
        const size_t bytes = lead * engine.input_sample_bytes();
        d_current = &d_staging[d_next_staging];
        d_next_staging = (d_next_staging + 1) % d_staging.size();
        // The write that used it is depth calls back, long done unless pop()
        // came before the output was ready.
        if (d_current->written() != nullptr)
            d_current->written.wait();
        if (!d_current->buffer || d_current->buffer->size() < bytes)
            d_current->buffer.reset(new pinned_buffer(d_context, bytes));
        char* to = static_cast<char*>(d_current->buffer->data());
        const size_t known = std::min(bytes, tail.size());
        std::fill(to, to + bytes - known, char(0));
        std::copy(tail.end() - known, tail.end(), to + bytes - known);
    }

    size_t input_sample_bytes() const override { return engine.input_sample_bytes(); }
    size_t output_element_bytes() const override { return engine.output_element_bytes(); }
    stream_ratio step() const override { return engine.step(); }
    region input_region() const override { return engine.input_region(); }
    size_t max_input_samples() const override { return engine.max_input_samples(); }
    size_t max_output_elements() const override { return engine.max_output_elements(); }
    size_t input_regions() const override { return engine.input_regions(); }
    size_t run(const cl::CommandQueue& queue,
               size_t samples,
               const cl::Buffer& output,
               const std::vector<cl::Event>& wait,
               cl::Event& done) override
    {
        if (d_lead > 0) {
            // In-order queue: after the engine's earlier calls, before this one.
            const region r = engine.input_region();
            queue.enqueueWriteBuffer(r.buffer,
                                     CL_FALSE,
                                     (r.offset - d_lead) * input_sample_bytes(),
                                     d_lead * input_sample_bytes(),
                                     d_current->buffer->data(),
                                     nullptr,
                                     &d_current->written);
        }
        return engine.run(queue, samples, output, wait, done);
    }
};

namespace {

[[noreturn]] void fail(const std::string& what)
{
    throw std::invalid_argument("multi_device_pipeline: " + what);
}

} // namespace

multi_device_pipeline::multi_device_pipeline(
    const std::vector<device_context::sptr>& contexts,
    const std::vector<splittable_engine*>& engines,
    size_t depth)
{
    if (engines.empty())
        fail("no engines: give one engine per device");
    if (contexts.size() != engines.size())
        fail(std::to_string(contexts.size()) + " device contexts for " +
             std::to_string(engines.size()) + " engines: give one context per engine");
    for (size_t i = 0; i < engines.size(); ++i) {
        if (!engines[i] || !contexts[i])
            fail("engine or context " + std::to_string(i) + " is null");
        if (std::find(engines.begin(), engines.begin() + i, engines[i]) !=
            engines.begin() + i)
            fail("engine " + std::to_string(i) +
                 " appears twice: each device needs its own engine");
        const splittable_engine &e = *engines[i], &first = *engines[0];
        if (e.step().input != first.step().input ||
            e.input_sample_bytes() != first.input_sample_bytes() ||
            e.max_input_samples() != first.max_input_samples())
            fail("engine " + std::to_string(i) +
                 " differs from engine 0 (input samples per step " +
                 std::to_string(e.step().input) + " vs " +
                 std::to_string(first.step().input) + ", bytes per sample " +
                 std::to_string(e.input_sample_bytes()) + " vs " +
                 std::to_string(first.input_sample_bytes()) + ", max_input_samples " +
                 std::to_string(e.max_input_samples()) + " vs " +
                 std::to_string(first.max_input_samples()) +
                 "): configure every engine alike");
    }
    const bool split = engines.size() > 1;
    for (size_t i = 0; split && i < engines.size(); ++i)
        if (engines[i]->variable_ratio())
            fail("engine " + std::to_string(i) +
                 " makes a number of outputs that depends on the stream "
                 "(variable_ratio()): its stream runs on one device");
    for (size_t i = 0; i < engines.size(); ++i)
        d_lanes.emplace_back(new lane(contexts[i], *engines[i], depth, split));
    d_last_history = engines[0]->history_samples();
}

multi_device_pipeline::~multi_device_pipeline() = default;

size_t multi_device_pipeline::max_input_samples() const
{
    return d_lanes.front()->engine.max_input_samples();
}

bool multi_device_pipeline::can_submit() const
{
    return d_lanes[d_next]->pipeline->can_submit();
}

size_t multi_device_pipeline::input_sample_bytes() const
{
    return d_lanes.front()->engine.input_sample_bytes();
}

size_t multi_device_pipeline::output_element_bytes() const
{
    return d_lanes.front()->engine.output_element_bytes();
}

void multi_device_pipeline::forget_before(size_t kept)
{
    const size_t bytes = kept * input_sample_bytes();
    if (d_tail.size() > bytes)
        std::fill(d_tail.begin(), d_tail.end() - bytes, char(0));
}

void multi_device_pipeline::remember(const void* input, size_t samples, size_t keep)
{
    const size_t bytes = samples * input_sample_bytes(),
                 keep_bytes = keep * input_sample_bytes();
    const char* from = static_cast<const char*>(input);
    const size_t from_input = std::min(bytes, keep_bytes);
    const size_t from_tail = std::min(keep_bytes - from_input, d_tail.size());
    d_tail.erase(d_tail.begin(), d_tail.end() - from_tail);
    d_tail.insert(d_tail.end(), from + bytes - from_input, from + bytes);
}

template <typename Launch>
size_t
multi_device_pipeline::submit_with(const void* input, size_t samples, Launch&& launch)
{
    if (!can_submit())
        throw std::logic_error(
            "multi_device_pipeline: submit() with every slot in flight");
    lane& next = *d_lanes[d_next];
    size_t elements;
    if (split()) {
        if (samples > max_input_samples())
            fail("chunk of " + std::to_string(samples) +
                 " samples exceeds the engines' " + std::to_string(max_input_samples()));
        const size_t history = next.engine.history_samples();
        for (const auto& l : d_lanes)
            if (l->engine.history_samples() != history)
                throw std::logic_error(
                    "multi_device_pipeline: the engines' histories differ (" +
                    std::to_string(l->engine.history_samples()) + " and " +
                    std::to_string(history) +
                    " samples): apply set_taps() to every engine");
        const size_t D = next.engine.step().input;
        // A longer history: as in one engine, what it held before counts, the
        // samples older than that are zero.
        if (history > d_last_history)
            forget_before(d_last_history + size_t(d_position % D));
        d_last_history = history;
        next.stage_lead(d_tail, next.engine.continue_at(d_position));
        elements = launch(*next.pipeline);
        remember(input, samples, history + D - 1);
    } else {
        elements = launch(*next.pipeline);
    }
    d_position += samples;
    d_elements += elements;
    d_order.push_back(d_next);
    d_last = d_next;
    d_next = (d_next + 1) % d_lanes.size();
    return elements;
}

size_t multi_device_pipeline::submit(const void* input, size_t samples)
{
    return submit_with(
        input, samples, [&](stream_pipeline& p) { return p.submit(input, samples); });
}

size_t multi_device_pipeline::submit_pinned(const void* input, size_t samples)
{
    return submit_with(input, samples, [&](stream_pipeline& p) {
        return p.submit_pinned(input, samples);
    });
}

stream_pipeline& multi_device_pipeline::only_pipeline(const char* what) const
{
    if (split())
        throw std::logic_error(std::string("multi_device_pipeline: ") + what +
                               " needs one device (device memory belongs to one)");
    return *d_lanes.front()->pipeline;
}

size_t multi_device_pipeline::submit_device(const cl::Buffer& source,
                                            size_t offset,
                                            size_t samples,
                                            const std::vector<cl::Event>& after)
{
    only_pipeline("submit_device()");
    // One device: nothing of the stream is kept on the host.
    return submit_with(nullptr, samples, [&](stream_pipeline& p) {
        return p.submit_device(source, offset, samples, after);
    });
}

const cl::Event& multi_device_pipeline::source_read() const
{
    return d_lanes[d_last]->pipeline->source_read();
}

void multi_device_pipeline::wait_source_read()
{
    d_lanes[d_last]->pipeline->wait_source_read();
}

void multi_device_pipeline::set_output_on_device(bool on)
{
    for (const auto& l : d_lanes)
        l->pipeline->set_output_on_device(on);
}

bool multi_device_pipeline::output_on_device() const
{
    return d_lanes.front()->pipeline->output_on_device();
}

cl::Event multi_device_pipeline::copy_oldest(size_t first,
                                             size_t count,
                                             const cl::Buffer& destination,
                                             size_t offset,
                                             const std::vector<cl::Event>& after)
{
    return only_pipeline("copy_oldest()")
        .copy_oldest(first, count, destination, offset, after);
}

void multi_device_pipeline::read_oldest(size_t first, size_t count, void* destination)
{
    oldest_lane().pipeline->read_oldest(first, count, destination);
}

void multi_device_pipeline::wait_deliveries()
{
    for (const auto& l : d_lanes)
        l->pipeline->wait_deliveries();
}

const multi_device_pipeline::lane& multi_device_pipeline::oldest_lane() const
{
    if (d_order.empty())
        throw std::logic_error("multi_device_pipeline: nothing in flight");
    return *d_lanes[d_order.front()];
}

bool multi_device_pipeline::oldest_ready() const
{
    return !d_order.empty() && oldest_lane().pipeline->oldest_ready();
}

void multi_device_pipeline::wait_oldest() { oldest_lane().pipeline->wait_oldest(); }

const void* multi_device_pipeline::oldest_data() const
{
    return oldest_lane().pipeline->oldest<void>();
}

size_t multi_device_pipeline::oldest_elements() const
{
    return oldest_lane().pipeline->oldest_elements();
}

void multi_device_pipeline::pop()
{
    oldest_lane().pipeline->pop();
    d_order.pop_front();
}

void multi_device_pipeline::discard()
{
    for (const auto& l : d_lanes)
        l->pipeline->discard();
    d_order.clear();
}

} // namespace core
} // namespace wideband
} // namespace gr
