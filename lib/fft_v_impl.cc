/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fft_vcc_impl.h"
#include <gnuradio/io_signature.h>
#include <gnuradio/wideband/core/environment.h>

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace gr {
namespace wideband {

namespace {

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
    if (const std::string problem =
            core::fft_stream::window_problem(window, size_t(fft_size));
        !problem.empty())
        throw std::invalid_argument("wideband.fft_vcc: " + problem);
    // Outputs name gr-wideband's buffer type (device-resident to gr-wideband
    // readers, pinned to host readers); inputs take the writer's (see
    // opencl_buffer).
    return output ? gr::io_signature::make(
                        1, 1, fft_size * sizeof(gr_complex), opencl_buffer::type)
                  : gr::io_signature::make(1, 1, fft_size * sizeof(gr_complex));
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
    : gr::block("fft_vcc",
                checked_signature(fft_size, window, false),
                checked_signature(fft_size, window, true)),
      base(core::device_context::get_all(device), { 1, 1 }, size_t(fft_size)),
      d_fft_size(fft_size),
      d_forward(forward),
      d_shift(shift),
      d_window(window)
{
    // The engine's checks on every device, before the flowgraph runs.
    for (const auto& context : contexts())
        core::fft_stream::check(context->info(), d_fft_size, engine_options(window));
}

core::fft_stream_options
fft_vcc_impl::engine_options(const std::vector<float>& window) const
{
    core::fft_stream_options options;
    options.direction =
        d_forward ? core::fft_direction::forward : core::fft_direction::inverse;
    options.window = window;
    options.shift = d_shift;
    options.max_input_samples = max_input_samples();
    return options;
}

std::unique_ptr<core::fft_stream>
fft_vcc_impl::make_engine(const core::device_context::sptr& context)
{
    return std::make_unique<core::fft_stream>(
        context, d_fft_size, engine_options(d_window));
}

void fft_vcc_impl::apply_settings(core::fft_stream& engine)
{
    engine.set_window(d_window);
}

// A wrong length returns false and keeps the current window, as
// gr::fft::fft_vcc does, rather than throwing: set_window() is GRC's callback for
// a changed variable, and a drop-in must not turn what the in-tree block shrugs
// off into an exception in a running (GUI) flowgraph. The error is logged.
bool fft_vcc_impl::set_window(const std::vector<float>& window)
{
    if (const std::string problem = core::fft_stream::window_problem(window, d_fft_size);
        !problem.empty()) {
        d_logger->error("set_window: {:s}. Keeping the current window.", problem);
        return false;
    }
    std::lock_guard<std::mutex> lock(settings_mutex());
    d_window = window;
    settings_changed();
    return true;
}

std::vector<float> fft_vcc_impl::window() const
{
    std::lock_guard<std::mutex> lock(settings_mutex());
    return d_window;
}

} // namespace wideband
} // namespace gr
