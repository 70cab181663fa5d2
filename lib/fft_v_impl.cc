/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fft_v_impl.h"
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
template <class Api>
gr::io_signature::sptr
checked_signature(int fft_size, const std::vector<float>& window, bool output)
{
    constexpr int largest = INT_MAX / int(sizeof(gr_complex)); // io_signature's item size
    const std::string name = std::string("wideband.") + fft_v_input<Api>::name;
    if (fft_size < 1 || fft_size > largest)
        throw std::invalid_argument(name + ": fft_size must be 1.." +
                                    std::to_string(largest) + " (got " +
                                    std::to_string(fft_size) + ")");
    if (const std::string problem =
            core::fft_stream::window_problem(window, size_t(fft_size));
        !problem.empty())
        throw std::invalid_argument(name + ": " + problem);
    // Outputs name gr-wideband's buffer type (device-resident to gr-wideband
    // readers, pinned to host readers); inputs take the writer's (see
    // opencl_buffer).
    return output ? gr::io_signature::make(
                        1, 1, fft_size * sizeof(gr_complex), opencl_buffer::type)
                  : gr::io_signature::make(1, 1, fft_size * fft_v_input<Api>::item_bytes);
}

template <class Api>
typename Api::sptr make_fft_v(int fft_size,
                              bool forward,
                              const std::vector<float>& window,
                              bool shift,
                              const std::string& device)
{
    core::environment::check();
    return gnuradio::make_block_sptr<fft_v_impl<Api>>(
        fft_size, forward, window, shift, device);
}

} // namespace

fft_vcc::sptr fft_vcc::make(int fft_size,
                            bool forward,
                            const std::vector<float>& window,
                            bool shift,
                            int /* nthreads */,
                            const std::string& device)
{
    return make_fft_v<fft_vcc>(fft_size, forward, window, shift, device);
}

fft_vfc::sptr fft_vfc::make(int fft_size,
                            bool forward,
                            const std::vector<float>& window,
                            bool shift,
                            int /* nthreads */,
                            const std::string& device)
{
    return make_fft_v<fft_vfc>(fft_size, forward, window, shift, device);
}

template <class Api>
fft_v_impl<Api>::fft_v_impl(int fft_size,
                            bool forward,
                            const std::vector<float>& window,
                            bool shift,
                            const std::string& device)
    : gr::block(fft_v_input<Api>::name,
                checked_signature<Api>(fft_size, window, false),
                checked_signature<Api>(fft_size, window, true)),
      base(core::device_context::get_all(device), { 1, 1 }, size_t(fft_size)),
      d_fft_size(fft_size),
      d_forward(forward),
      d_shift(shift),
      d_window(window)
{
    // The engine's checks on every device, before the flowgraph runs.
    for (const auto& context : this->contexts())
        core::fft_stream::check(context->info(), d_fft_size, engine_options(window));
}

template <class Api>
core::fft_stream_options
fft_v_impl<Api>::engine_options(const std::vector<float>& window) const
{
    core::fft_stream_options options;
    options.direction =
        d_forward ? core::fft_direction::forward : core::fft_direction::inverse;
    options.window = window;
    options.shift = d_shift;
    options.input_format = fft_v_input<Api>::format;
    options.max_input_samples = this->max_input_samples();
    return options;
}

template <class Api>
std::unique_ptr<core::fft_stream>
fft_v_impl<Api>::make_engine(const core::device_context::sptr& context)
{
    return std::make_unique<core::fft_stream>(
        context, d_fft_size, engine_options(d_window));
}

template <class Api>
void fft_v_impl<Api>::apply_settings(core::fft_stream& engine)
{
    engine.set_window(d_window);
}

// A wrong length returns false and keeps the current window, as
// gr::fft::fft_vcc and fft_vfc do, rather than throwing: set_window() is GRC's callback
// for a changed variable, and a drop-in must not turn what the in-tree block shrugs off
// into an exception in a running (GUI) flowgraph. The error is logged.
template <class Api>
bool fft_v_impl<Api>::set_window(const std::vector<float>& window)
{
    if (const std::string problem = core::fft_stream::window_problem(window, d_fft_size);
        !problem.empty()) {
        this->d_logger->error("set_window: {:s}. Keeping the current window.", problem);
        return false;
    }
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    d_window = window;
    this->settings_changed();
    return true;
}

template <class Api>
std::vector<float> fft_v_impl<Api>::window() const
{
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    return d_window;
}

template class fft_v_impl<fft_vcc>;
template class fft_v_impl<fft_vfc>;

} // namespace wideband
} // namespace gr
