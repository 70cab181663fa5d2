/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "freq_xlating_fft_filter_ccc_impl.h"
#include <gnuradio/io_signature.h>
#include <gnuradio/wideband/core/environment.h>
#include <gnuradio/wideband/core/fft_filter.h>

#include <stdexcept>

namespace gr {
namespace wideband {

namespace {

const pmt::pmt_t freq_key = pmt::intern("freq");

// The engine checks the rest; a negative int must not reach its size_t.
int checked_decimation(int decimation)
{
    if (decimation < 1)
        throw std::invalid_argument("freq_xlating_filter: decimation must be >= 1 (got " +
                                    std::to_string(decimation) + ")");
    return decimation;
}

} // namespace

freq_xlating_fft_filter_ccc::sptr
freq_xlating_fft_filter_ccc::make(int decimation,
                                  const std::vector<gr_complex>& taps,
                                  double center_freq,
                                  double sampling_freq,
                                  const std::string& device)
{
    core::environment::check();
    return gnuradio::make_block_sptr<freq_xlating_fft_filter_ccc_impl>(
        decimation, taps, center_freq, sampling_freq, device);
}

freq_xlating_fft_filter_ccc_impl::freq_xlating_fft_filter_ccc_impl(
    int decimation,
    const std::vector<gr_complex>& taps,
    double center_freq,
    double sampling_freq,
    const std::string& device)
    : gr::block("freq_xlating_fft_filter_ccc",
                gr::io_signature::make(1, 1, sizeof(gr_complex)),
                gr::io_signature::make(1, 1, sizeof(gr_complex), opencl_buffer::type)),
      base(core::device_context::get_all(device),
           { size_t(checked_decimation(decimation)), 1 }),
      d_decimation(decimation),
      d_sampling_freq(sampling_freq),
      d_taps(taps),
      d_center_freq(center_freq),
      d_fft_size(0)
{
    // The engine's checks on every device, before the flowgraph runs.
    for (const auto& context : this->contexts())
        core::freq_xlating_filter::check(context->info(),
                                         engine_options(taps, center_freq, 0));
    d_fft_size = core::fft_filter::choose_fft_size(
        this->contexts().front()->info(), taps.size(), size_t(decimation));

    message_port_register_in(freq_key);
    set_msg_handler(freq_key, [this](const pmt::pmt_t& m) { handle_freq_message(m); });
}

core::freq_xlating_filter_options freq_xlating_fft_filter_ccc_impl::engine_options(
    const std::vector<gr_complex>& taps, double center_freq, size_t fft_size) const
{
    core::freq_xlating_filter_options options;
    options.taps = taps;
    options.decimation = size_t(d_decimation);
    options.center_freq = center_freq;
    options.sampling_freq = d_sampling_freq;
    options.fft_size = fft_size;
    options.max_input_samples = this->max_input_samples();
    return options;
}

std::unique_ptr<core::freq_xlating_filter>
freq_xlating_fft_filter_ccc_impl::make_engine(const core::device_context::sptr& context)
{
    // The length of the last stream while it holds the taps (no kernel build).
    const bool fits = d_fft_size + 1 >= d_taps.size() + size_t(d_decimation);
    auto engine = std::make_unique<core::freq_xlating_filter>(
        context, engine_options(d_taps, d_center_freq, fits ? d_fft_size : 0));
    d_fft_size = engine->fft_size();
    d_retune_tagged = true; // a new stream starts from the settings, untagged
    return engine;
}

void freq_xlating_fft_filter_ccc_impl::apply_settings(core::freq_xlating_filter& engine)
{
    const uint64_t at = this->next_call_output();
    engine.retune(d_center_freq, d_taps, at);
    d_fft_size = engine.fft_size();
    if (!d_retune_tagged) {
        // As the in-tree block: where the new setting applies, its centre.
        this->add_item_tag(0,
                           this->stream_output_start() + at,
                           freq_key,
                           pmt::from_double(d_center_freq),
                           this->alias_pmt());
        d_retune_tagged = true;
    }
}

void freq_xlating_fft_filter_ccc_impl::set_center_freq(double center_freq)
{
    core::freq_xlating_filter::check_retune(center_freq, d_sampling_freq, taps());
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    d_center_freq = center_freq;
    d_retune_tagged = false;
    this->settings_changed();
}

double freq_xlating_fft_filter_ccc_impl::center_freq() const
{
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    return d_center_freq;
}

void freq_xlating_fft_filter_ccc_impl::set_taps(const std::vector<gr_complex>& taps)
{
    // The engine's checks, in the caller's thread.
    for (const auto& context : this->contexts())
        core::freq_xlating_filter::check(context->info(),
                                         engine_options(taps, center_freq(), 0));
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    d_taps = taps;
    d_retune_tagged = false;
    this->settings_changed();
}

std::vector<gr_complex> freq_xlating_fft_filter_ccc_impl::taps() const
{
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    return d_taps;
}

int freq_xlating_fft_filter_ccc_impl::fft_size() const
{
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    return int(d_fft_size);
}

void freq_xlating_fft_filter_ccc_impl::handle_freq_message(const pmt::pmt_t& message)
{
    pmt::pmt_t value = pmt::PMT_NIL;
    if (pmt::is_dict(message) && pmt::dict_has_key(message, freq_key))
        value = pmt::dict_ref(message, freq_key, pmt::PMT_NIL);
    else if (pmt::is_pair(message))
        value = pmt::cdr(message);
    if (!pmt::is_real(value) && !pmt::is_integer(value)) {
        d_logger->warn("freq message ignored: it carries no frequency ({:s})",
                       pmt::write_string(message));
        return;
    }
    try {
        set_center_freq(pmt::to_double(value));
    } catch (const std::invalid_argument& e) {
        // A message cannot throw back to its sender: say why, keep the centre.
        d_logger->error("freq message ignored: {:s}", e.what());
    }
}

} // namespace wideband
} // namespace gr
