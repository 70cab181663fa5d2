/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_STREAMING_BLOCK_H
#define INCLUDED_WIDEBAND_STREAMING_BLOCK_H

#include "pipelined_work.h"
#include "stream_tags.h"
#include "work_guard.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer.h>
#include <gnuradio/wideband/core/stream_config.h>
#include <gnuradio/wideband/opencl_buffer.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace wideband {

/*!
 * \brief The GNU Radio side of a block that streams through a core engine:
 * a block supplies its signature, its engine and how its settings and a
 * chunk's output reach the engine and the outputs; this does the rest.
 *
 * It owns the devices (one, or several to spread chunks over), the engines
 * and the pipeline, built when the flowgraph starts (a stream starts from
 * zero state, with the settings of that moment), general_work()
 * (pipelined_work) or, on device-resident edges, the engine's
 * run_in_place(),
 * settings applied between chunks, tags (input item k to output item
 * floor(k * output / input) of every output, stream_tags; for an engine of
 * variable ratio GNU Radio's relative-rate placement, set_variable_rate()),
 * start(), stop(),
 * forecast(), check_topology() and latency(). A block whose signature
 * allows several inputs gets them as one stream split by stream_to_streams
 * (see inputs_connected()).
 *
 * \p Api is the block's public class (a gr::block), \p Engine its
 * core::splittable_engine. The block's constructor names the gr::block base
 * itself (GNU Radio's blocks inherit it virtually). Input items are
 * samples_per_item engine samples (1, or a vector's length), items().input
 * input items per items().output output items; a chunk's output has
 * elements_per_item() engine elements per output item, over all the outputs.
 */
template <class Api, class Engine>
class streaming_block : public Api, public opencl_block, public work_guard
{
public:
    std::string device_name() const override { return device_names(d_contexts); }
    core::device_context::sptr opencl_context() const override
    {
        return single_context(d_contexts);
    }
    core::device_context::sptr pinned_memory_context() const override
    {
        return d_contexts.front();
    }
    //! Any input is worth a call (forecast()).
    bool reads_any_amount() const override { return true; }
    //! Input samples the output may lag behind the input (the blocks whose
    //! public class has latency() override it with this).
    unsigned int latency() const
    {
        return unsigned(d_config.pipeline_depth * d_contexts.size() *
                        max_input_samples());
    }

    bool check_topology(int ninputs, int noutputs) override
    {
        inputs_connected(size_t(ninputs));
        d_split = size_t(ninputs);
        outputs_connected(size_t(noutputs));
        fit_output_multiple(*this);
        return true;
    }

    bool start() override
    {
        this->guarded_start(*this, device_name(), [this] { start_stream(); });
        return gr::block::start();
    }

    bool stop() override
    {
        if (d_pipeline)
            d_pipeline->discard();
        if (d_direct)
            d_direct_queue.finish();
        d_direct_calls.clear();
        if (d_work && !d_work->profile_report().empty())
            this->d_logger->info("profile: {:s}", d_work->profile_report());
        if (!d_direct_profile.report().empty())
            this->d_logger->info("profile, in place: {:s}", d_direct_profile.report());
        d_work.reset();
        d_pipeline.reset();
        d_engines.clear();
        return gr::block::stop();
    }

    void forecast(int, gr_vector_int& ninput_items_required) override
    {
        // Output waiting in the pipeline needs no input, which also lets the end
        // of a stream flush it; otherwise any input is worth a call (in place
        // too: the samples short of a step wait in the engine).
        std::fill(ninput_items_required.begin(),
                  ninput_items_required.end(),
                  (d_work && d_work->pending()) ? 0 : 1);
    }

    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override
    {
        return this->guarded_work(*this, device_name(), [&] {
            return stream_work(noutput_items, ninput_items, input_items, output_items);
        });
    }

protected:
    /*!
     * \p contexts: the devices; \p items: the block's rate, items.output output
     * items per items.input input items ({D, 1} decimating, {1, I}
     * interpolating, any rational ratio); \p samples_per_item: the engine's
     * samples in an input item (a vector's length). Sets the rate, the tag
     * policy and the output multiple (a chunk per output multiple, so that the
     * input buffer holds two chunks: one to work on, one for the writer to fill
     * meanwhile).
     */
    streaming_block(std::vector<core::device_context::sptr> contexts,
                    core::stream_ratio items,
                    size_t samples_per_item = 1)
        : d_contexts(std::move(contexts)),
          d_items(items),
          d_samples_per_item(samples_per_item),
          d_config(core::stream_config::for_device(d_contexts.front()->info())),
          d_tags(items)
    {
        this->set_relative_rate(uint64_t(items.output), uint64_t(items.input));
        this->set_tag_propagation_policy(gr::block::TPP_DONT); // d_tags does it
        const size_t chunk_outputs =
            std::max<size_t>(1, max_input_items() / items.input * items.output);
        this->set_output_multiple(int(chunk_outputs));
    }

    /*!
     * \brief For a block whose engine is of variable ratio
     * (core::stream_engine::variable_ratio(): a resampler), constructed with
     * items {1, 1}: \p rate output items per input item on average, from the
     * next chunk on (call it under settings_mutex(), from the constructor or a
     * setter). It sets GNU Radio's relative_rate, as the in-tree resamplers
     * do (to 12 bits, see below), and the tags go where GNU Radio's
     * propagation puts them at the exact rate
     * (stream_tags::set_relative_rate()). Such a stream runs on one device:
     * the block refuses several (the phase at a split point depends on the
     * whole stream before it).
     */
    void set_variable_rate(float rate)
    {
        if (d_contexts.size() > 1)
            throw std::invalid_argument(
                this->name() +
                ": runs on one device (its number of outputs per "
                "input depends on the stream, whose phase a split "
                "over devices would need at every split point); "
                "give one device, not " +
                std::to_string(d_contexts.size()));
        // GNU Radio sizes a single-mapped output buffer (opencl_buffer) to a
        // multiple of the relative rate's numerator and the output multiple:
        // the exact fraction of a float rate would make that numerator
        // enormous, so the relative rate is the rate to 12 bits, n / 2^k,
        // and the output multiple a multiple of n. (The tags use the exact
        // rate.)
        uint64_t den = 1;
        while (double(rate) * double(den) < 4096.0 && den < (uint64_t(1) << 52))
            den *= 2;
        uint64_t num = std::max<uint64_t>(1, uint64_t(std::llround(double(rate) * den)));
        const uint64_t common = std::gcd(num, den);
        num /= common;
        den /= common;
        this->set_relative_rate(num, den);
        // The output multiple of the first rate: GNU Radio reads it while
        // the flowgraph runs.
        if (d_variable_rate == 0.0f) {
            const double chunk_outputs = double(max_input_items()) * double(rate);
            const uint64_t multiples = uint64_t(std::ceil(chunk_outputs / double(num)));
            this->set_output_multiple(
                int(std::clamp<uint64_t>(multiples * num, 1, uint64_t(1) << 30)));
        }
        d_variable_rate = rate;
        d_settings_changed = true;
    }

    //! A new engine on \p context with the current settings (when the
    //! flowgraph starts; settings_mutex() is held).
    virtual std::unique_ptr<Engine>
    make_engine(const core::device_context::sptr& context) = 0;
    //! Gives \p engine the settings changed since the last chunk (between
    //! chunks, on the work thread; settings_mutex() is held).
    virtual void apply_settings(Engine& engine) = 0;
    /*!
     * \brief Called by check_topology() with the inputs connected; throws
     * unless the block takes that many. N > 1 inputs are one stream of complex
     * float samples split by stream_to_streams (sample n is item n / N of input
     * n % N), as the in-tree pfb_decimator_ccf takes it: they are interleaved
     * on the host into the engine's samples, so N must divide the engine's step,
     * and they cannot be device edges. Each input's tags go to the output as
     * GNU Radio's propagation puts them: item k of any input at output item
     * floor(k * output / input) of the block's rate.
     */
    virtual void inputs_connected(size_t /* inputs */) {}
    //! Called by check_topology(), before GNU Radio makes the buffers.
    virtual void outputs_connected(size_t /* outputs */) {}
    //! Chunk output elements per output item of the stream (the channels of a
    //! frame, over all outputs).
    virtual size_t elements_per_item() const { return 1; }
    /*!
     * \brief For a block whose outputs run at different rates, each output's
     * rate ({input items, output items}): a chunk's output is then each
     * output's items in turn, as many as the chunk's input completes at that
     * rate, and each output gets its own tags. Empty (the default): every
     * output at the block's rate, delivered by deliver().
     */
    virtual std::vector<core::stream_ratio> output_rates() const { return {}; }
    /*!
     * \brief Whether chunk outputs stay on the device, for move_out() to copy
     * or DMA them to the outputs, rather than a download to staging memory and
     * a host copy from there: worth it when an output lives in device memory,
     * or when the one output is pinned (the chunk's items then go there by one
     * DMA per delivery instead of a download and a host copy).
     */
    virtual bool output_on_device(const std::vector<stream_port>& outputs) const
    {
        for (const stream_port& port : outputs)
            if (port.where == stream_port::kind::device)
                return true;
        return outputs.size() == 1 && outputs[0].where == stream_port::kind::pinned_host;
    }
    /*!
     * \brief Moves \p count items of the oldest chunk (\p items in all; its host
     * copy \p chunk, null when it stays on the device), from item \p first on,
     * to item \p at of the outputs. By default one output of the chunk's
     * elements in order.
     */
    virtual void deliver(const void* chunk,
                         size_t /* items */,
                         size_t first,
                         size_t count,
                         size_t at,
                         gr_vector_void_star& outputs)
    {
        const size_t e = elements_per_item();
        d_work->move_out(chunk, first * e, count * e, 0, outputs[0], at * e);
    }

    //! The settings' lock: setters change them under it, then settings_changed().
    std::mutex& settings_mutex() const { return d_settings_mutex; }
    //! The settings changed: the engines get them before the next chunk.
    void settings_changed() { d_settings_changed = true; }

    const std::vector<core::device_context::sptr>& contexts() const { return d_contexts; }
    const core::stream_config& config() const { return d_config; }
    //! The block's rate: input items per output items.
    const core::stream_ratio& items() const { return d_items; }
    //! Input samples per engine call: whole input items, at least one step.
    size_t max_input_samples() const
    {
        const size_t step = d_items.input * d_samples_per_item;
        return d_config.max_input_samples(step) / d_samples_per_item * d_samples_per_item;
    }
    size_t max_input_items() const { return max_input_samples() / d_samples_per_item; }
    pipelined_work& work() { return *d_work; }
    //! Whether chunks stay on the device (set at the first call of a stream).
    bool chunks_on_device() const { return d_pipeline->output_on_device(); }
    /*!
     * \brief The output item, counted from the stream's start, that the next
     * engine call starts at: the first output that settings applied now
     * (apply_settings()) change. In pipelined streams it lies ahead of the
     * items produced so far, by the chunks in flight.
     */
    uint64_t next_call_output() const
    {
        return (d_direct_elements + d_pipeline->elements_submitted()) /
               elements_per_item();
    }
    //! The input sample, counted from the stream's start, that the next
    //! engine call starts at (blocks with output_rates()).
    uint64_t next_call_input() const { return d_work->samples_submitted(); }
    //! nitems_written(\p output) when the stream began (the offset of its item 0).
    uint64_t stream_output_start(size_t output = 0) const
    {
        return d_stream_output_starts.at(output);
    }

private:
    void start_stream()
    {
        {
            std::lock_guard<std::mutex> lock(d_settings_mutex);
            for (const auto& context : d_contexts)
                d_engines.push_back(make_engine(context));
            d_settings_changed = false;
        }
        d_rates = output_rates();
        d_pipeline = make_pipeline(d_contexts, d_engines, d_config.pipeline_depth);
        d_work = std::make_unique<pipelined_work>(*d_pipeline, *this);
        d_stream_begins = true;
        d_direct = false;
        d_direct_elements = 0;
        d_direct_profile = work_profile();
    }

    //! Reads how the buffers reach the items, at the first call of a stream
    //! (GNU Radio has connected them now).
    void bind_ports(size_t outputs)
    {
        d_input = input_port(*this, 0);
        if (d_split > 1) {
            for (size_t i = 0; i < d_split; ++i)
                if (input_port(*this, int(i)).where == stream_port::kind::device)
                    throw std::invalid_argument(
                        this->name() + ": its " + std::to_string(d_split) +
                        " inputs are interleaved on the host and cannot be device "
                        "edges: connect the stream to a single input");
            d_input = stream_port(); // the host copy that interleaves them
        }
        d_outputs.clear();
        for (size_t o = 0; o < outputs; ++o)
            d_outputs.push_back(output_port(*this, int(o)));
        d_direct = d_contexts.size() == 1 && outputs == 1 &&
                   d_input.where == stream_port::kind::device &&
                   d_outputs[0].where == stream_port::kind::device &&
                   d_engines.front()->runs_in_place();
        if (d_direct)
            d_direct_queue = d_contexts.front()->create_queue();
        else
            d_work->bind(d_input, d_outputs, output_on_device(d_outputs));
    }

    /*!
     * The engine's run_in_place() on what the buffers hold, straight from the
     * input buffer into the output buffer: no copy, no chunk in flight (the
     * device's queue orders the call with the neighbours' kernels). Returns
     * the items produced.
     */
    size_t direct_work(
        size_t available, size_t room, const void* input, void* output, size_t& consumed)
    {
        d_direct_profile.begin_call();
        const stream_port& in = d_input;
        const stream_port& out = d_outputs[0];
        std::vector<cl::Event> after = in.buffer->read_after();
        for (const cl::Event& e : out.buffer->write_after())
            after.push_back(e);
        const size_t e = elements_per_item();
        Engine& engine = *d_engines.front();
        const auto r = engine.run_in_place(
            d_direct_queue,
            { in.buffer->device_memory(),
              in.element_offset(input, engine.input_sample_bytes()),
              std::min(available * d_samples_per_item, max_input_samples()) },
            { out.buffer->device_memory(),
              out.element_offset(output, engine.output_element_bytes()),
              room * e },
            after);
        d_direct_queue.flush();
        in.buffer->read_by(this, r.done);
        out.buffer->written_by(r.done);
        // As many calls in flight as the pipeline would have: enough to keep
        // the device busy, and no further ahead of it.
        d_direct_elements += r.produced;
        d_direct_calls.push_back(r.done);
        while (d_direct_calls.size() > d_config.pipeline_depth) {
            d_direct_calls.front().wait();
            d_direct_calls.pop_front();
        }
        consumed = r.consumed / d_samples_per_item;
        d_direct_profile.mark(work_profile::submit);
        d_direct_profile.end_call(r.consumed, r.produced / e);
        return r.produced / e;
    }

    int stream_work(int noutput_items,
                    gr_vector_int& ninput_items,
                    gr_vector_const_void_star& input_items,
                    gr_vector_void_star& output_items)
    {
        if (d_stream_begins) {
            bind_ports(output_items.size());
            d_tags.restart(this->nitems_read(0), this->nitems_written(0));
            if (d_variable_rate > 0.0f)
                d_tags.set_relative_rate(double(d_variable_rate));
            d_stream_output_starts.clear();
            d_output_tags.clear();
            for (size_t o = 0; o < output_items.size(); ++o)
                d_stream_output_starts.push_back(this->nitems_written(int(o)));
            for (size_t o = 0; o < d_rates.size(); ++o) {
                d_output_tags.emplace_back(d_rates[o]);
                d_output_tags.back().restart(this->nitems_read(0),
                                             this->nitems_written(int(o)));
            }
            // Outputs at different rates: the room worth a delivery is half
            // the smallest output buffer, or all GNU Radio ever gives
            // (max_noutput_items), which every output reaches once its reader
            // has caught up.
            d_delivery_room = size_t(std::max(1, this->max_noutput_items()));
            for (size_t o = 0; o < d_rates.size(); ++o)
                d_delivery_room = std::min<size_t>(
                    d_delivery_room, this->detail()->output(int(o))->bufsize() / 2);
            d_stream_begins = false;
        }
        {
            std::lock_guard<std::mutex> lock(d_settings_mutex);
            if (d_settings_changed) {
                for (const auto& engine : d_engines)
                    apply_settings(*engine);
                if (d_variable_rate > 0.0f)
                    d_tags.set_relative_rate(double(d_variable_rate));
                d_settings_changed = false;
            }
        }
        // An engine whose in-place step outputs more than the room GNU Radio
        // gives (a small max_noutput_items, new taps with a longer FFT) would
        // never compute one: the stream goes on through the pipeline, from the
        // engine's state as it is (the same window).
        if (d_direct && size_t(noutput_items) * elements_per_item() <
                            d_engines.front()->in_place_output_step()) {
            d_direct_queue.finish();
            d_direct_calls.clear();
            d_direct = false;
            d_work->bind(d_input, d_outputs, output_on_device(d_outputs));
        }
        if (!d_rates.empty())
            return work_each_output(
                noutput_items, ninput_items, input_items, output_items);
        size_t consumed = 0; // input items
        size_t produced = 0;
        const void* input = input_items[0];
        size_t available = size_t(ninput_items[0]) * d_samples_per_item;
        if (d_split > 1)
            input = interleave_inputs(ninput_items, input_items, available);
        if (d_direct) {
            produced = direct_work(ninput_items[0],
                                   noutput_items,
                                   input_items[0],
                                   output_items[0],
                                   consumed);
        } else {
            produced =
                d_work->step(input,
                             available,
                             d_pipeline->max_input_samples(),
                             noutput_items,
                             elements_per_item(),
                             consumed,
                             [&](const void* chunk,
                                 size_t items,
                                 size_t first,
                                 size_t count,
                                 size_t at) {
                                 deliver(chunk, items, first, count, at, output_items);
                             });
            consumed /= d_samples_per_item * d_split;
        }
        propagate_tags(consumed, produced, output_items.size());
        this->consume_each(int(consumed));
        return int(produced);
    }

    /*!
     * The split inputs' items, interleaved into one stream of \p available
     * samples (at most a chunk; none while the pipeline is full, which the
     * copy would only repeat at the next call).
     */
    const void* interleave_inputs(const gr_vector_int& ninput_items,
                                  const gr_vector_const_void_star& input_items,
                                  size_t& available)
    {
        size_t items =
            size_t(*std::min_element(ninput_items.begin(), ninput_items.end()));
        items = std::min(items, d_pipeline->max_input_samples() / d_split);
        if (!d_pipeline->can_submit())
            items = 0;
        d_interleaved.resize(items * d_split);
        for (size_t i = 0; i < d_split; ++i) {
            const auto* in = static_cast<const gr_complex*>(input_items[i]);
            for (size_t k = 0; k < items; ++k)
                d_interleaved[k * d_split + i] = in[k];
        }
        available = d_interleaved.size();
        return d_interleaved.data();
    }

    //! stream_work() for outputs at different rates (output_rates()).
    int work_each_output(int noutput_items,
                         gr_vector_int& ninput_items,
                         gr_vector_const_void_star& input_items,
                         gr_vector_void_star& output_items)
    {
        size_t consumed = 0;
        std::vector<size_t> produced;
        d_work->step_outputs(
            input_items[0],
            size_t(ninput_items[0]) * d_samples_per_item,
            d_pipeline->max_input_samples(),
            size_t(noutput_items),
            d_delivery_room,
            consumed,
            produced,
            [rates = d_rates, spi = d_samples_per_item](uint64_t start, size_t samples) {
                // Output items that the input items up to a position complete.
                std::vector<size_t> counts;
                const uint64_t from = start / spi, to = (start + samples) / spi;
                for (const core::stream_ratio& r : rates)
                    counts.push_back(
                        size_t(to * r.output / r.input - from * r.output / r.input));
                return counts;
            },
            [&](const void* chunk, size_t o, size_t first, size_t count, size_t at) {
                d_work->move_out(chunk, first, count, o, output_items[o], at);
            });
        consumed /= d_samples_per_item;
        std::vector<tag_t> tags;
        this->get_tags_in_range(
            tags, 0, this->nitems_read(0), this->nitems_read(0) + consumed);
        for (size_t o = 0; o < output_items.size(); ++o) {
            d_output_tags[o].hold(tags);
            for (const tag_t& tag :
                 d_output_tags[o].release(this->nitems_written(int(o)) + produced[o]))
                this->add_item_tag(unsigned(o), tag);
            this->produce(int(o), int(produced[o]));
        }
        this->consume(0, int(consumed));
        return gr::block::WORK_CALLED_PRODUCE;
    }

    void propagate_tags(size_t consumed, size_t produced, size_t outputs)
    {
        std::vector<tag_t> tags;
        for (size_t i = 0; i < d_split; ++i) {
            std::vector<tag_t> input_tags;
            this->get_tags_in_range(input_tags,
                                    unsigned(i),
                                    this->nitems_read(unsigned(i)),
                                    this->nitems_read(unsigned(i)) + consumed);
            tags.insert(tags.end(), input_tags.begin(), input_tags.end());
        }
        std::stable_sort(tags.begin(), tags.end(), tag_t::offset_compare);
        d_tags.hold(tags);
        for (const tag_t& tag : d_tags.release(this->nitems_written(0) + produced))
            for (size_t o = 0; o < outputs; ++o)
                this->add_item_tag(unsigned(o), tag);
    }

    const std::vector<core::device_context::sptr> d_contexts;
    const core::stream_ratio d_items; // input items per output items
    const size_t d_samples_per_item;  // engine samples per input item
    size_t d_split = 1; // inputs, a stream split by stream_to_streams when > 1
    std::vector<gr_complex> d_interleaved; // their samples, for the engine
    const core::stream_config d_config;

    mutable std::mutex d_settings_mutex; // the block's settings against the work thread
    bool d_settings_changed = false;
    float d_variable_rate = 0.0f; // set_variable_rate(), 0 for a fixed ratio

    std::vector<std::unique_ptr<Engine>> d_engines; // one per device, while running
    std::unique_ptr<core::multi_device_pipeline> d_pipeline;
    std::unique_ptr<pipelined_work> d_work;
    stream_tags d_tags;
    bool d_stream_begins = true;
    std::vector<uint64_t> d_stream_output_starts; // nitems_written() when it began
    std::vector<core::stream_ratio> d_rates;      // output_rates(), for the stream
    std::vector<stream_tags> d_output_tags;       // per output, with d_rates
    size_t d_delivery_room = 1;                   // with d_rates: see stream_work()
    uint64_t d_direct_elements = 0;               // output elements of the in-place calls
    stream_port d_input;
    std::vector<stream_port> d_outputs;
    bool d_direct = false; // this stream runs in place (see direct_work())
    cl::CommandQueue d_direct_queue;
    std::deque<cl::Event> d_direct_calls; // in flight, oldest first
    work_profile d_direct_profile;        // WIDEBAND_PROFILE=1, in place
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_STREAMING_BLOCK_H */
