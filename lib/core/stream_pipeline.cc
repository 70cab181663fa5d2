/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/wideband/core/host_copy.h>
#include <gnuradio/wideband/core/stream_pipeline.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace wideband {
namespace core {

stream_pipeline::stream_pipeline(device_context::sptr context,
                                 stream_engine& engine,
                                 size_t depth)
    : d_context(std::move(context)),
      d_engine(engine),
      d_upload(d_context->create_queue()),
      d_compute(d_context->create_queue()),
      d_download(d_context->create_queue()),
      d_slots(std::max<size_t>(depth, 1)),
      d_sample_bytes(engine.input_sample_bytes()),
      d_element_bytes(engine.output_element_bytes())
{
    for (auto& s : d_slots)
        s.input.reset(
            new pinned_buffer(d_context, d_engine.max_input_samples() * d_sample_bytes));
}

void stream_pipeline::fit_output(slot& s) const
{
    // The engine's output can grow (new taps, a longer channel map): the slot
    // being filled is free, so its buffers can be replaced.
    const size_t bytes =
        std::max<size_t>(d_engine.max_output_elements(), 1) * d_element_bytes;
    if (s.device_output_bytes < bytes) {
        s.device_output = cl::Buffer(d_context->context(), CL_MEM_READ_WRITE, bytes);
        s.device_output_bytes = bytes;
    }
    if (!d_output_on_device && (!s.output || s.output->size() < bytes))
        s.output.reset(new pinned_buffer(d_context, bytes));
}

stream_pipeline::~stream_pipeline() { discard(); }

template <typename Upload>
size_t stream_pipeline::launch(size_t samples, bool source_in_use, Upload&& upload)
{
    if (!can_submit())
        throw std::logic_error("stream_pipeline: submit() with every slot in flight");
    if (samples > d_engine.max_input_samples())
        throw std::invalid_argument("stream_pipeline: chunk of " +
                                    std::to_string(samples) +
                                    " samples exceeds the engine's " +
                                    std::to_string(d_engine.max_input_samples()));
    const size_t index = d_next;
    slot& s = d_slots[index];
    d_next = (d_next + 1) % d_slots.size();
    // Deliveries from device memory may still be reading the slot's output: at
    // most depth chunks of a stream are on the device at a time.
    if (s.delivered() != nullptr)
        s.delivered.wait();
    s.delivered = cl::Event();
    fit_output(s);

    // The region the engine gives was last read by the run input_regions() ago.
    std::vector<cl::Event> region_free;
    if (d_engine_runs.size() >= d_engine.input_regions())
        region_free.push_back(d_engine_runs.front());

    std::vector<cl::Event> uploaded;
    if (samples > 0) {
        cl::Event e;
        upload(
            s, d_engine.input_region(), region_free.empty() ? nullptr : &region_free, e);
        d_upload.flush();
        if (source_in_use)
            d_source_read = e;
        uploaded.push_back(e);
    }
    s.elements =
        d_engine.run(d_compute, samples, s.device_output, uploaded, s.engine_done);
    d_compute.flush();
    d_engine_runs.push_back(s.engine_done);
    while (d_engine_runs.size() > d_engine.input_regions())
        d_engine_runs.pop_front();

    if (s.elements > 0 && !d_output_on_device) {
        std::vector<cl::Event> computed{ s.engine_done };
        d_download.enqueueReadBuffer(s.device_output,
                                     CL_FALSE,
                                     0,
                                     s.elements * d_element_bytes,
                                     s.output->data(),
                                     &computed,
                                     &s.downloaded);
        d_download.flush();
    } else {
        s.downloaded = s.engine_done;
    }
    d_in_flight.push_back(index);
    return s.elements;
}

size_t stream_pipeline::submit(const void* input, size_t samples)
{
    // The host copy into pinned memory and the upload go in pieces, each piece
    // uploaded as soon as it is copied, so that the two overlap; pieces large
    // enough that handing each to the copy threads costs little (benchmarks.md,
    // "Host staging copies").
    const size_t piece_bytes = size_t(16) << 20;
    return launch(samples,
                  false,
                  [&](slot& s,
                      const stream_engine::region& r,
                      const std::vector<cl::Event>* region_free,
                      cl::Event& done) {
                      auto* staging = static_cast<char*>(s.input->data());
                      const auto* from = static_cast<const char*>(input);
                      const size_t bytes = samples * d_sample_bytes;
                      for (size_t first = 0; first < bytes; first += piece_bytes) {
                          const size_t count = std::min(piece_bytes, bytes - first);
                          host_copy(staging + first, from + first, count);
                          d_upload.enqueueWriteBuffer(r.buffer,
                                                      CL_FALSE,
                                                      r.offset * d_sample_bytes + first,
                                                      count,
                                                      staging + first,
                                                      region_free,
                                                      &done);
                          d_upload.flush();
                      }
                  });
}

size_t stream_pipeline::submit_pinned(const void* input, size_t samples)
{
    return launch(samples,
                  true,
                  [&](slot&,
                      const stream_engine::region& r,
                      const std::vector<cl::Event>* region_free,
                      cl::Event& done) {
                      d_upload.enqueueWriteBuffer(r.buffer,
                                                  CL_FALSE,
                                                  r.offset * d_sample_bytes,
                                                  samples * d_sample_bytes,
                                                  input,
                                                  region_free,
                                                  &done);
                  });
}

size_t stream_pipeline::submit_device(const cl::Buffer& source,
                                      size_t offset,
                                      size_t samples,
                                      const std::vector<cl::Event>& after)
{
    return launch(samples,
                  true,
                  [&](slot&,
                      const stream_engine::region& r,
                      const std::vector<cl::Event>* region_free,
                      cl::Event& done) {
                      std::vector<cl::Event> wait = after;
                      if (region_free)
                          wait.insert(
                              wait.end(), region_free->begin(), region_free->end());
                      d_upload.enqueueCopyBuffer(source,
                                                 r.buffer,
                                                 offset * d_sample_bytes,
                                                 r.offset * d_sample_bytes,
                                                 samples * d_sample_bytes,
                                                 wait.empty() ? nullptr : &wait,
                                                 &done);
                  });
}

void stream_pipeline::set_output_on_device(bool on)
{
    if (!d_in_flight.empty() && on != d_output_on_device)
        throw std::logic_error(
            "stream_pipeline: set_output_on_device() with chunks in flight");
    d_output_on_device = on;
}

cl::Event stream_pipeline::copy_oldest(size_t first,
                                       size_t count,
                                       const cl::Buffer& destination,
                                       size_t offset,
                                       const std::vector<cl::Event>& after)
{
    slot& s = d_slots[d_in_flight.front()];
    if (count == 0)
        return cl::Event();
    std::vector<cl::Event> wait = after;
    wait.push_back(s.engine_done);
    d_download.enqueueCopyBuffer(s.device_output,
                                 destination,
                                 first * d_element_bytes,
                                 offset * d_element_bytes,
                                 count * d_element_bytes,
                                 &wait,
                                 &s.delivered);
    d_download.flush();
    return s.delivered;
}

void stream_pipeline::read_oldest(size_t first, size_t count, void* destination)
{
    if (count == 0)
        return;
    slot& s = d_slots[d_in_flight.front()];
    const std::vector<cl::Event> computed{ s.engine_done };
    d_download.enqueueReadBuffer(s.device_output,
                                 CL_FALSE,
                                 first * d_element_bytes,
                                 count * d_element_bytes,
                                 destination,
                                 &computed,
                                 &s.delivered);
}

void stream_pipeline::wait_deliveries() { d_download.finish(); }

const cl::Event& stream_pipeline::source_read() const { return d_source_read; }

void stream_pipeline::wait_source_read()
{
    if (d_source_read())
        d_source_read.wait();
    d_source_read = cl::Event();
}

bool stream_pipeline::oldest_ready() const
{
    if (d_in_flight.empty())
        return false;
    const slot& s = d_slots[d_in_flight.front()];
    return s.downloaded.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() == CL_COMPLETE;
}

void stream_pipeline::wait_oldest()
{
    if (d_in_flight.empty())
        throw std::logic_error("stream_pipeline: nothing in flight");
    d_slots[d_in_flight.front()].downloaded.wait();
}

const void* stream_pipeline::oldest_data() const
{
    if (d_output_on_device)
        throw std::logic_error("stream_pipeline: oldest() with the output on the device");
    return d_slots[d_in_flight.front()].output->data();
}

size_t stream_pipeline::oldest_elements() const
{
    return d_slots[d_in_flight.front()].elements;
}

void stream_pipeline::pop() { d_in_flight.pop_front(); }

void stream_pipeline::discard()
{
    try {
        d_upload.finish();
        d_compute.finish();
        d_download.finish();
    } catch (const cl::Error&) {
        // a failed device: nothing left to wait for
    }
    d_in_flight.clear();
    d_engine_runs.clear();
}

} // namespace core
} // namespace wideband
} // namespace gr
