/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fft_vcc_impl.h"
#include "pipelined_work.h"
#include <gnuradio/io_signature.h>
#include <gnuradio/wideband/core/environment.h>
#include <gnuradio/wideband/core/stream_config.h>

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace gr {
namespace wideband {

namespace {

// Why a window cannot be used, or "" when it can. Non-finite values are taken,
// as by the in-tree block: GNU Radio's own window functions give NaN for
// fft_size 1.
std::string window_problem(const std::vector<float>& window, size_t fft_size)
{
    if (!window.empty() && window.size() != fft_size)
        return "window has " + std::to_string(window.size()) +
               " values; it must be empty (no window) or have fft_size (" +
               std::to_string(fft_size) + ") values";
    return "";
}

// The block's input and output signature. Checks the arguments first, before
// anything is built, so that bad ones give one clear message instead of an
// io_signature or OpenCL error.
gr::io_signature::sptr
checked_signature(int fft_size, const std::vector<float>& window, bool output)
{
    constexpr int largest = INT_MAX / int(sizeof(gr_complex)); // io_signature's item size
    if (fft_size < 1 || fft_size > largest)
        throw std::invalid_argument("wideband.fft_vcc: fft_size must be 1.." +
                                    std::to_string(largest) + " (got " +
                                    std::to_string(fft_size) + ")");
    if (const std::string problem = window_problem(window, size_t(fft_size));
        !problem.empty())
        throw std::invalid_argument("wideband.fft_vcc: " + problem);
    // Outputs name gr-wideband's buffer type (device-resident to gr-wideband
    // readers, pinned to host readers); inputs take the writer's (see
    // opencl_buffer).
    return output ? gr::io_signature::make(
                        1, 1, fft_size * sizeof(gr_complex), opencl_buffer::type)
                  : gr::io_signature::make(1, 1, fft_size * sizeof(gr_complex));
}

size_t vectors_per_call(const core::device_info& info, size_t fft_size)
{
    const size_t vector_bytes = fft_size * sizeof(gr_complex);
    if (vector_bytes > info.max_alloc_bytes)
        throw std::invalid_argument(
            "wideband.fft_vcc: fft_size " + std::to_string(fft_size) + " needs " +
            std::to_string(vector_bytes) + "-byte buffers; " + info.name +
            " allocates at most " + std::to_string(info.max_alloc_bytes) + " bytes");
    // As many samples per call as the streaming blocks take (enough to amortise
    // a transfer's and a launch's fixed costs, small enough for low latency).
    const size_t budget = std::min<size_t>(
        core::stream_config::for_device(info).chunk_samples * sizeof(gr_complex),
        info.max_alloc_bytes);
    return std::max<size_t>(1, budget / vector_bytes);
}

} // namespace

fft_vcc::sptr fft_vcc::make(int fft_size,
                            bool forward,
                            const std::vector<float>& window,
                            bool shift,
                            int /* nthreads */,
                            const std::string& device)
{
    core::environment::check();
    return gnuradio::make_block_sptr<fft_vcc_impl>(
        fft_size, forward, window, shift, device);
}

fft_vcc_impl::fft_vcc_impl(int fft_size,
                           bool forward,
                           const std::vector<float>& window,
                           bool shift,
                           const std::string& device)
    : gr::sync_block("fft_vcc",
                     checked_signature(fft_size, window, false),
                     checked_signature(fft_size, window, true)),
      d_fft_size(fft_size),
      d_forward(forward),
      d_shift(shift),
      d_context(core::device_context::get(device)),
      d_max_vectors(vectors_per_call(d_context->info(), d_fft_size)),
      d_queue(d_context->create_queue()),
      d_input(d_context->context(),
              CL_MEM_READ_ONLY,
              d_max_vectors * d_fft_size * sizeof(gr_complex)),
      d_output(d_context->context(),
               CL_MEM_WRITE_ONLY,
               d_max_vectors * d_fft_size * sizeof(gr_complex)),
      d_window(window),
      d_plan(make_plan(window))
{
    // Room for two full device batches, so that work() gets whole batches
    // (GNU Radio's default would give a 512-point FFT 16 vectors per call).
    // The per-port form: the all-ports one logs an info line per block.
    set_min_output_buffer(0, long(2 * d_max_vectors));
}

std::shared_ptr<const core::fft_plan>
fft_vcc_impl::make_plan(const std::vector<float>& window) const
{
    core::fft_options options;
    options.direction =
        d_forward ? core::fft_direction::forward : core::fft_direction::inverse;
    options.batch = d_max_vectors;
    options.window = window;
    options.shift = d_shift;
    return std::make_shared<const core::fft_plan>(d_context, d_fft_size, options);
}

// A wrong length returns false and keeps the current window, as
// gr::fft::fft_vcc does, rather than throwing: set_window() is GRC's callback for
// a changed variable, and a drop-in must not turn what the in-tree block shrugs
// off into an exception in a running (GUI) flowgraph. The error is logged.
bool fft_vcc_impl::set_window(const std::vector<float>& window)
{
    if (const std::string problem = window_problem(window, d_fft_size);
        !problem.empty()) {
        d_logger->error("set_window: {:s}. Keeping the current window.", problem);
        return false;
    }
    // Built outside the lock: a new configuration compiles kernels, and work()
    // keeps running with the old plan meanwhile.
    auto plan = make_plan(window);
    std::lock_guard<std::mutex> lock(d_plan_mutex);
    d_window = window;
    d_plan = std::move(plan);
    return true;
}

std::vector<float> fft_vcc_impl::window() const
{
    std::lock_guard<std::mutex> lock(d_plan_mutex);
    return d_window;
}

std::string fft_vcc_impl::device_name() const { return d_context->info().name; }

core::device_context::sptr fft_vcc_impl::opencl_context() const { return d_context; }

bool fft_vcc_impl::start()
{
    guarded_start(*this, device_name(), [this] { d_ports_known = false; });
    return sync_block::start();
}

int fft_vcc_impl::work(int noutput_items,
                       gr_vector_const_void_star& input_items,
                       gr_vector_void_star& output_items)
{
    return guarded_work(*this, device_name(), [&] {
        return transform(noutput_items, input_items, output_items);
    });
}

int fft_vcc_impl::transform(int noutput_items,
                            gr_vector_const_void_star& input_items,
                            gr_vector_void_star& output_items)
{
    std::shared_ptr<const core::fft_plan> plan;
    {
        std::lock_guard<std::mutex> lock(d_plan_mutex);
        plan = d_plan;
    }
    if (!d_ports_known) {
        d_input_port = input_port(*this, 0);
        d_output_port = output_port(*this, 0);
        d_ports_known = true;
    }
    const size_t vectors = std::min<size_t>(noutput_items, d_max_vectors);
    const size_t bytes = vectors * d_fft_size * sizeof(gr_complex);

    // Device-resident neighbours are transformed in place in their buffers,
    // ordered by the buffers' events; host memory (pinned or not) goes through
    // the block's own device buffers and is done with when work() returns.
    // One in-order queue: the transform waits for the upload, the blocking
    // read-back for the transform.
    const bool input_on_device = d_input_port.where == stream_port::kind::device;
    const bool output_on_device = d_output_port.where == stream_port::kind::device;
    std::vector<cl::Event> after;
    cl::Event uploaded;
    if (input_on_device)
        after = d_input_port.buffer->read_after();
    else
        d_queue.enqueueWriteBuffer(
            d_input, CL_FALSE, 0, bytes, input_items[0], nullptr, &uploaded);
    if (output_on_device)
        for (const cl::Event& e : d_output_port.buffer->write_after())
            after.push_back(e);
    const cl::Event transformed = plan->enqueue_at(
        d_queue,
        input_on_device ? d_input_port.buffer->device_memory() : d_input,
        input_on_device ? d_input_port.element_offset(input_items[0]) : 0,
        output_on_device ? d_output_port.buffer->device_memory() : d_output,
        output_on_device ? d_output_port.element_offset(output_items[0]) : 0,
        after,
        vectors);
    d_queue.flush();
    if (input_on_device)
        d_input_port.buffer->read_by(this, transformed);
    else if (output_on_device)
        uploaded.wait();
    if (output_on_device)
        d_output_port.buffer->written_by(transformed);
    else
        d_queue.enqueueReadBuffer(d_output, CL_TRUE, 0, bytes, output_items[0]);
    return static_cast<int>(vectors);
}

} // namespace wideband
} // namespace gr
