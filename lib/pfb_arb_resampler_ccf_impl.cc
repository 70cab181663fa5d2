/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "pfb_arb_resampler_ccf_impl.h"
#include <gnuradio/io_signature.h>
#include <gnuradio/math.h>
#include <gnuradio/wideband/core/environment.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace gr {
namespace wideband {

namespace {

core::arb_resampler_options engine_options(float rate,
                                           const std::vector<float>& taps,
                                           unsigned int filter_size,
                                           const core::device_info& device)
{
    core::arb_resampler_options options;
    options.rate = rate;
    options.taps = taps;
    options.filter_size = filter_size;
    options.max_input_samples =
        core::stream_config::for_device(device).max_input_samples(1);
    return options;
}

// The engine's checks, in the block's name (the engine validates, the block
// forwards).
void check_fits(const std::vector<core::device_context::sptr>& contexts,
                float rate,
                const std::vector<float>& taps,
                unsigned int filter_size)
{
    try {
        for (const auto& context : contexts)
            core::arb_resampler::check_fits(
                context->info(),
                engine_options(rate, taps, filter_size, contexts.front()->info()));
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("pfb_arb_resampler_ccf: ") + e.what());
    }
}

std::vector<core::device_context::sptr> checked_contexts(float rate,
                                                         const std::vector<float>& taps,
                                                         unsigned int filter_size,
                                                         const std::string& device)
{
    // The arguments first, in the block's words, before any device is opened.
    core::arb_resampler_options options;
    options.rate = rate;
    options.taps = taps;
    options.filter_size = filter_size;
    try {
        core::arb_resampler::check_arguments(options);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("pfb_arb_resampler_ccf: ") + e.what());
    }
    auto contexts = core::device_context::get_all(device);
    check_fits(contexts, rate, taps, filter_size);
    return contexts;
}

} // namespace

pfb_arb_resampler_ccf::sptr pfb_arb_resampler_ccf::make(float rate,
                                                        const std::vector<float>& taps,
                                                        unsigned int filter_size,
                                                        const std::string& device)
{
    core::environment::check();
    return gnuradio::make_block_sptr<pfb_arb_resampler_ccf_impl>(
        rate, taps, filter_size, device);
}

pfb_arb_resampler_ccf_impl::pfb_arb_resampler_ccf_impl(float rate,
                                                       const std::vector<float>& taps,
                                                       unsigned int filter_size,
                                                       const std::string& device)
    : gr::block("pfb_arb_resampler_ccf",
                gr::io_signature::make(1, 1, sizeof(gr_complex)),
                gr::io_signature::make(1, 1, sizeof(gr_complex), opencl_buffer::type)),
      base(checked_contexts(rate, taps, filter_size, device), { 1, 1 }),
      d_filter_size(filter_size),
      d_rate(rate),
      d_taps(taps),
      d_filter(core::arb_resampler::start_filter(taps.size(), filter_size))
{
    {
        std::lock_guard<std::mutex> lock(settings_mutex());
        set_variable_rate(rate);
    }
    // The in-tree kernel's group delay and phase offset estimate, computed
    // as there (types and order of operations) from the constructor's
    // settings, which later settings leave as they are there too.
    const unsigned dec_rate = core::arb_resampler::decimation_rate_for(rate, filter_size);
    const float flt_rate = core::arb_resampler::fractional_rate_for(rate, filter_size);
    const float delay = rate * (taps_per_filter() - 1.0) / 2.0;
    d_delay = static_cast<int>(std::lround(delay));
    const float accum = d_delay * flt_rate;
    const int accum_int = static_cast<int>(accum);
    const float accum_frac = accum - accum_int;
    const int end_filter = static_cast<int>(std::lround(fmodf(
        d_filter + d_delay * dec_rate + accum_int, static_cast<float>(filter_size))));
    d_est_phase_change = d_filter - (end_filter + accum_frac);
}

std::unique_ptr<core::arb_resampler>
pfb_arb_resampler_ccf_impl::make_engine(const core::device_context::sptr& context)
{
    auto engine = std::make_unique<core::arb_resampler>(
        context,
        engine_options(d_rate, d_taps, d_filter_size, contexts().front()->info()));
    // The in-tree block starts at the filter of its constructor's taps.
    engine->set_filter(d_filter);
    d_rate_changed = d_taps_changed = d_filter_changed = false;
    return engine;
}

void pfb_arb_resampler_ccf_impl::apply_settings(core::arb_resampler& engine)
{
    if (d_rate_changed)
        engine.set_rate(d_rate);
    if (d_taps_changed)
        engine.set_taps(d_taps);
    if (d_filter_changed)
        engine.set_filter(d_filter);
    d_rate_changed = d_taps_changed = d_filter_changed = false;
}

void pfb_arb_resampler_ccf_impl::set_taps(const std::vector<float>& taps)
{
    std::lock_guard<std::mutex> lock(settings_mutex());
    check_fits(contexts(), d_rate, taps, d_filter_size);
    d_taps = taps;
    d_taps_changed = true;
    settings_changed();
}

std::vector<std::vector<float>> pfb_arb_resampler_ccf_impl::taps() const
{
    std::lock_guard<std::mutex> lock(settings_mutex());
    const size_t T = (d_taps.size() + d_filter_size - 1) / d_filter_size;
    std::vector<std::vector<float>> filters(d_filter_size, std::vector<float>(T, 0.0f));
    for (size_t k = 0; k < d_taps.size(); ++k)
        filters[k % d_filter_size][k / d_filter_size] = d_taps[k];
    return filters;
}

void pfb_arb_resampler_ccf_impl::print_taps()
{
    // The in-tree block's format.
    const std::vector<std::vector<float>> filters = taps();
    for (size_t i = 0; i < filters.size(); ++i) {
        std::printf("filter[%zu]: [", i);
        for (float t : filters[i])
            std::printf(" %.4e", t);
        std::printf("]\n");
    }
}

void pfb_arb_resampler_ccf_impl::set_rate(float rate)
{
    std::lock_guard<std::mutex> lock(settings_mutex());
    check_fits(contexts(), rate, d_taps, d_filter_size);
    d_rate = rate;
    d_rate_changed = true;
    set_variable_rate(rate);
}

void pfb_arb_resampler_ccf_impl::set_phase(float ph)
{
    // The in-tree check and arithmetic, its exception type.
    if ((ph < 0) || (ph >= 2.0 * GR_M_PI))
        throw std::runtime_error(
            "pfb_arb_resampler_ccf: set_phase value out of bounds [0, 2pi).");
    const float ph_diff = 2.0 * GR_M_PI / (float)d_filter_size;
    std::lock_guard<std::mutex> lock(settings_mutex());
    d_filter = static_cast<int>(ph / ph_diff);
    d_filter_changed = true;
    settings_changed();
}

float pfb_arb_resampler_ccf_impl::phase() const
{
    const float ph_diff = 2.0 * GR_M_PI / static_cast<float>(d_filter_size);
    std::lock_guard<std::mutex> lock(settings_mutex());
    return d_filter * ph_diff;
}

unsigned int pfb_arb_resampler_ccf_impl::decimation_rate() const
{
    std::lock_guard<std::mutex> lock(settings_mutex());
    return core::arb_resampler::decimation_rate_for(d_rate, d_filter_size);
}

float pfb_arb_resampler_ccf_impl::fractional_rate() const
{
    std::lock_guard<std::mutex> lock(settings_mutex());
    return core::arb_resampler::fractional_rate_for(d_rate, d_filter_size);
}

unsigned int pfb_arb_resampler_ccf_impl::taps_per_filter() const
{
    std::lock_guard<std::mutex> lock(settings_mutex());
    return unsigned((d_taps.size() + d_filter_size - 1) / d_filter_size);
}

float pfb_arb_resampler_ccf_impl::phase_offset(float freq, float fs)
{
    const float adj = (2.0 * GR_M_PI) * (freq / fs) / static_cast<float>(d_filter_size);
    return -adj * d_est_phase_change;
}

} // namespace wideband
} // namespace gr
