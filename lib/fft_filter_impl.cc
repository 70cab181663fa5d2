/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fft_filter_impl.h"
#include <gnuradio/io_signature.h>
#include <gnuradio/wideband/core/environment.h>

#include <stdexcept>

namespace gr {
namespace wideband {

namespace {

std::vector<std::complex<float>> complex_taps(const std::vector<gr_complex>& taps)
{
    return taps;
}

std::vector<std::complex<float>> complex_taps(const std::vector<float>& taps)
{
    return std::vector<std::complex<float>>(taps.begin(), taps.end());
}

// The engine checks the rest; a negative int must not reach its size_t.
int checked_decimation(int decimation)
{
    if (decimation < 1)
        throw std::invalid_argument("fft_filter: decimation must be >= 1 (got " +
                                    std::to_string(decimation) + ")");
    return decimation;
}

} // namespace

template <class TAP_T>
typename fft_filter<TAP_T>::sptr fft_filter<TAP_T>::make(int decimation,
                                                         const std::vector<TAP_T>& taps,
                                                         int /* nthreads */,
                                                         const std::string& device,
                                                         const std::string& input_type)
{
    core::environment::check();
    return gnuradio::make_block_sptr<fft_filter_impl<fft_filter<TAP_T>>>(
        decimation, taps, device, core::parse_sample_format(input_type));
}

fft_filter_fff::sptr fft_filter_fff::make(int decimation,
                                          const std::vector<float>& taps,
                                          int /* nthreads */,
                                          const std::string& device)
{
    core::environment::check();
    return gnuradio::make_block_sptr<fft_filter_impl<fft_filter_fff>>(
        decimation, taps, device, core::sample_format::f32);
}

template <class Api>
fft_filter_impl<Api>::fft_filter_impl(int decimation,
                                      const std::vector<TAP_T>& taps,
                                      const std::string& device,
                                      core::sample_format input_format)
    : gr::block(fft_filter_kind<Api>::name,
                gr::io_signature::make(1, 1, core::sample_bytes(input_format)),
                gr::io_signature::make(1,
                                       1,
                                       fft_filter_kind<Api>::real ? sizeof(float)
                                                                  : sizeof(gr_complex),
                                       opencl_buffer::type)),
      base(core::device_context::get_all(device),
           { size_t(checked_decimation(decimation)), 1 }),
      d_decimation(decimation),
      d_input_format(input_format),
      d_taps(taps),
      d_fft_size(0)
{
    // The engine's checks on every device, before the flowgraph runs.
    for (const auto& context : this->contexts())
        core::fft_filter::check(context->info(), engine_options(taps, 0));
    d_fft_size = core::fft_filter::choose_fft_size(
        this->contexts().front()->info(), taps.size(), size_t(decimation));
}

template <class Api>
core::fft_filter_options
fft_filter_impl<Api>::engine_options(const std::vector<TAP_T>& taps,
                                     size_t fft_size) const
{
    core::fft_filter_options options;
    options.taps = complex_taps(taps);
    options.decimation = size_t(d_decimation);
    options.fft_size = fft_size;
    options.max_input_samples = this->max_input_samples();
    options.input_format = d_input_format;
    options.real_output = fft_filter_kind<Api>::real;
    return options;
}

template <class Api>
std::unique_ptr<core::fft_filter>
fft_filter_impl<Api>::make_engine(const core::device_context::sptr& context)
{
    // The length of the last stream while it holds the taps (set_taps()).
    const bool fits = d_fft_size + 1 >= d_taps.size() + size_t(d_decimation);
    auto engine = std::make_unique<core::fft_filter>(
        context, engine_options(d_taps, fits ? d_fft_size : 0));
    d_fft_size = engine->fft_size();
    return engine;
}

template <class Api>
void fft_filter_impl<Api>::apply_settings(core::fft_filter& engine)
{
    engine.set_taps(complex_taps(d_taps));
    d_fft_size = engine.fft_size();
}

template <class Api>
void fft_filter_impl<Api>::set_taps(const std::vector<TAP_T>& taps)
{
    // The engine's checks, in the caller's thread.
    for (const auto& context : this->contexts())
        core::fft_filter::check(context->info(), engine_options(taps, 0));
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    d_taps = taps;
    this->settings_changed();
}

template <class Api>
std::vector<typename fft_filter_kind<Api>::tap_type> fft_filter_impl<Api>::taps() const
{
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    return d_taps;
}

template <class Api>
int fft_filter_impl<Api>::fft_size() const
{
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    return int(d_fft_size);
}

template class fft_filter<gr_complex>;
template class fft_filter<float>;
template class fft_filter_impl<fft_filter_ccc>;
template class fft_filter_impl<fft_filter_ccf>;
template class fft_filter_impl<fft_filter_fff>;

} // namespace wideband
} // namespace gr
