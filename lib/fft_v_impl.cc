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
template <class T>
gr::io_signature::sptr
checked_signature(int fft_size, const std::vector<float>& window, bool output)
{
    constexpr int largest = INT_MAX / int(sizeof(gr_complex)); // io_signature's item size
    const std::string name = std::string("wideband.") + fft_v_input<T>::name;
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
                  : gr::io_signature::make(1, 1, fft_size * fft_v_input<T>::item_bytes);
}

} // namespace

template <class T>
typename fft_v<T>::sptr fft_v<T>::make(int fft_size,
                                       bool forward,
                                       const std::vector<float>& window,
                                       bool shift,
                                       int /* nthreads */,
                                       const std::string& device)
{
    core::environment::check();
    return gnuradio::make_block_sptr<fft_v_impl<T>>(
        fft_size, forward, window, shift, device);
}

template <class T>
fft_v_impl<T>::fft_v_impl(int fft_size,
                          bool forward,
                          const std::vector<float>& window,
                          bool shift,
                          const std::string& device)
    : gr::block(fft_v_input<T>::name,
                checked_signature<T>(fft_size, window, false),
                checked_signature<T>(fft_size, window, true)),
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

template <class T>
core::fft_stream_options
fft_v_impl<T>::engine_options(const std::vector<float>& window) const
{
    core::fft_stream_options options;
    options.direction =
        d_forward ? core::fft_direction::forward : core::fft_direction::inverse;
    options.window = window;
    options.shift = d_shift;
    options.input_format = fft_v_input<T>::format;
    options.max_input_samples = this->max_input_samples();
    return options;
}

template <class T>
std::unique_ptr<core::fft_stream>
fft_v_impl<T>::make_engine(const core::device_context::sptr& context)
{
    return std::make_unique<core::fft_stream>(
        context, d_fft_size, engine_options(d_window));
}

template <class T>
void fft_v_impl<T>::apply_settings(core::fft_stream& engine)
{
    engine.set_window(d_window);
}

// A wrong length returns false and keeps the current window, as
// gr::fft::fft_vcc and fft_vfc do, rather than throwing: set_window() is GRC's callback
// for a changed variable, and a drop-in must not turn what the in-tree block shrugs off
// into an exception in a running (GUI) flowgraph. The error is logged.
template <class T>
bool fft_v_impl<T>::set_window(const std::vector<float>& window)
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

template <class T>
std::vector<float> fft_v_impl<T>::window() const
{
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    return d_window;
}

template class fft_v<gr_complex>;
template class fft_v<float>;
template class fft_v_impl<gr_complex>;
template class fft_v_impl<float>;

} // namespace wideband
} // namespace gr
