/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "channel_bank_ccc_impl.h"
#include "stream_buffers.h"
#include <gnuradio/io_signature.h>
#include <gnuradio/wideband/core/environment.h>
#include <gnuradio/wideband/core/freq_xlating_filter.h>

#include <algorithm>
#include <stdexcept>

namespace gr {
namespace wideband {

namespace {

const pmt::pmt_t freq_key = pmt::intern("freq");

[[noreturn]] void fail(const std::string& what)
{
    throw std::invalid_argument("channel_bank_ccc: " + what);
}

// The block's lists as the engine's channels: one decimation or one tap list
// may stand for all.
core::channel_bank_options bank_options(double samp_rate,
                                        const std::vector<double>& center_freqs,
                                        const std::vector<int>& decimations,
                                        const std::vector<std::vector<gr_complex>>& taps,
                                        bool vector_output,
                                        core::sample_format input_format)
{
    const size_t C = center_freqs.size();
    if (C == 0)
        fail("center_freqs must not be empty (one centre per channel)");
    if (decimations.size() != C && decimations.size() != 1)
        fail("decimations has " + std::to_string(decimations.size()) + " entries for " +
             std::to_string(C) + " channels (give one per channel, or one for all)");
    if (taps.size() != C && taps.size() != 1)
        fail("taps has " + std::to_string(taps.size()) + " lists for " +
             std::to_string(C) + " channels (give one per channel, or one for all)");
    core::channel_bank_options o;
    o.sampling_freq = samp_rate;
    o.frame_major = vector_output;
    o.input_format = input_format;
    for (size_t c = 0; c < C; ++c) {
        const int D = decimations[decimations.size() == 1 ? 0 : c];
        if (D < 1)
            throw std::invalid_argument("channel_bank: channel " + std::to_string(c) +
                                        ": decimation must be >= 1 (got " +
                                        std::to_string(D) + ")");
        o.channels.push_back(
            { center_freqs[c], size_t(D), taps[taps.size() == 1 ? 0 : c] });
    }
    return o;
}

} // namespace

channel_bank_ccc::sptr
channel_bank_ccc::make(double samp_rate,
                       const std::vector<double>& center_freqs,
                       const std::vector<int>& decimations,
                       const std::vector<std::vector<gr_complex>>& taps,
                       const std::string& device,
                       bool vector_output,
                       const std::string& input_type)
{
    core::environment::check();
    return gnuradio::make_block_sptr<channel_bank_ccc_impl>(
        bank_options(samp_rate,
                     center_freqs,
                     decimations,
                     taps,
                     vector_output,
                     core::parse_sample_format(input_type)),
        device);
}

namespace {

gr::io_signature::sptr outputs_of(const core::channel_bank_options& o)
{
    // A reference: the signature keeps one to the (static) buffer type.
    const gr::buffer_type buffers = opencl_buffer::type;
    const int C = int(o.channels.size());
    return o.frame_major ? gr::io_signature::make(1, 1, sizeof(gr_complex) * C, buffers)
                         : gr::io_signature::make(C, C, sizeof(gr_complex), buffers);
}

size_t smallest_decimation(const core::channel_bank_options& o)
{
    size_t D = o.channels.front().decimation;
    for (const auto& c : o.channels)
        D = std::min(D, c.decimation);
    return D;
}

} // namespace

channel_bank_ccc_impl::channel_bank_ccc_impl(const core::channel_bank_options& options,
                                             const std::string& device)
    : gr::block("channel_bank_ccc",
                gr::io_signature::make(1, 1, core::sample_bytes(options.input_format)),
                outputs_of(options)),
      base(core::device_context::get_all(device), { smallest_decimation(options), 1 }),
      d_options(options),
      d_changes(options.channels.size(), 0),
      d_tagged(options.channels.size(), 0)
{
    d_options.max_input_samples = this->max_input_samples();
    // The engine's checks on every device, before the flowgraph runs.
    for (const auto& context : this->contexts())
        core::channel_bank::check(context->info(), d_options);
    if (!options.frame_major) {
        // Each output's buffer holds a chunk's worth of its channel: the
        // outputs run at their own rates, which one output multiple cannot say
        // (one for the fastest would give every output its buffer size). The
        // input buffer must hold two chunks, which GNU Radio sizes from the
        // reader's rate: one item per chunk says so (the outputs' true rates
        // are theirs; tags and deliveries follow output_rates()).
        this->set_output_multiple(1);
        this->set_relative_rate(1, uint64_t(this->max_input_items()));
        for (size_t c = 0; c < options.channels.size(); ++c)
            this->set_min_output_buffer(
                int(c),
                long(2 *
                     (this->max_input_samples() / options.channels[c].decimation + 1)));
    }
    message_port_register_in(freq_key);
    set_msg_handler(freq_key, [this](const pmt::pmt_t& message) {
        // {"freq": f, "channel": c} (channel 0 when absent), or (channel . f).
        pmt::pmt_t value = pmt::PMT_NIL;
        long channel = 0;
        if (pmt::is_dict(message)) {
            value = pmt::dict_ref(message, freq_key, pmt::PMT_NIL);
            const pmt::pmt_t c =
                pmt::dict_ref(message, pmt::intern("channel"), pmt::PMT_NIL);
            if (pmt::is_integer(c))
                channel = pmt::to_long(c);
        } else if (pmt::is_pair(message) && pmt::is_integer(pmt::car(message))) {
            channel = pmt::to_long(pmt::car(message));
            value = pmt::cdr(message);
        }
        if (!pmt::is_number(value) || channel < 0) {
            d_logger->warn(
                "freq message ignored: it names no frequency or channel ({:s})",
                pmt::write_string(message));
            return;
        }
        try {
            set_center_freq(unsigned(channel), pmt::to_double(value));
        } catch (const std::invalid_argument& e) {
            d_logger->error("freq message ignored: {:s}", e.what());
        }
    });
}

void channel_bank_ccc_impl::outputs_connected(size_t outputs)
{
    // Called before GNU Radio allocates the flowgraph's buffers.
    ensure_buffers_for_streams(outputs, d_logger);
}

size_t channel_bank_ccc_impl::elements_per_item() const
{
    return d_options.frame_major ? d_options.channels.size() : 1;
}

std::vector<core::stream_ratio> channel_bank_ccc_impl::output_rates() const
{
    std::vector<core::stream_ratio> rates;
    if (!d_options.frame_major)
        for (const auto& c : d_options.channels)
            rates.push_back({ c.decimation, 1 });
    return rates;
}

std::unique_ptr<core::channel_bank>
channel_bank_ccc_impl::make_engine(const core::device_context::sptr& context)
{
    auto engine = std::make_unique<core::channel_bank>(context, d_options);
    d_fft_size = engine->fft_size();
    d_longest_taps = 0;
    for (const auto& ch : d_options.channels)
        d_longest_taps = std::max(d_longest_taps, ch.taps.size());
    d_applied[engine.get()] = d_changes;
    std::copy(d_changes.begin(), d_changes.end(), d_tagged.begin());
    return engine;
}

void channel_bank_ccc_impl::apply_settings(core::channel_bank& engine)
{
    std::vector<uint64_t>& applied = d_applied[&engine];
    for (size_t c = 0; c < d_changes.size(); ++c) {
        if (applied[c] == d_changes[c])
            continue;
        const core::bank_channel& ch = d_options.channels[c];
        const uint64_t at = this->next_call_input() / ch.decimation;
        engine.retune(c, ch.center_freq, ch.taps, at);
        applied[c] = d_changes[c];
        if (d_tagged[c] != d_changes[c]) {
            // As freq_xlating_fir_filter: where the new setting applies, its centre.
            const size_t output = d_options.frame_major ? 0 : c;
            this->add_item_tag(unsigned(output),
                               this->stream_output_start(output) + at,
                               freq_key,
                               pmt::from_double(ch.center_freq),
                               this->alias_pmt());
            d_tagged[c] = d_changes[c];
        }
    }
}

size_t channel_bank_ccc_impl::checked_channel(unsigned int channel) const
{
    if (channel >= d_options.channels.size())
        fail("no channel " + std::to_string(channel) + " (the bank has " +
             std::to_string(d_options.channels.size()) + ")");
    return channel;
}

void channel_bank_ccc_impl::set_center_freq(unsigned int channel, double center_freq)
{
    const size_t c = checked_channel(channel);
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    core::freq_xlating_filter::check_retune(center_freq,
                                            d_options.sampling_freq,
                                            d_options.channels[c].taps,
                                            "channel_bank: channel " + std::to_string(c));
    d_options.channels[c].center_freq = center_freq;
    ++d_changes[c];
    this->settings_changed();
}

void channel_bank_ccc_impl::set_taps(unsigned int channel,
                                     const std::vector<gr_complex>& taps)
{
    const size_t c = checked_channel(channel);
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    const std::string owner = "channel_bank: channel " + std::to_string(c);
    core::freq_xlating_filter::check_retune(
        d_options.channels[c].center_freq, d_options.sampling_freq, taps, owner);
    // The engines' FFT length holds the longest taps they were made with;
    // new taps may not outgrow them (the next start makes new engines).
    if (d_longest_taps && taps.size() > d_longest_taps)
        throw std::invalid_argument(owner + ": " + std::to_string(taps.size()) +
                                    " taps exceed the " + std::to_string(d_longest_taps) +
                                    " the running bank was made for");
    d_options.channels[c].taps = taps;
    ++d_changes[c];
    this->settings_changed();
}

double channel_bank_ccc_impl::center_freq(unsigned int channel) const
{
    const size_t c = checked_channel(channel);
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    return d_options.channels[c].center_freq;
}

std::vector<gr_complex> channel_bank_ccc_impl::taps(unsigned int channel) const
{
    const size_t c = checked_channel(channel);
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    return d_options.channels[c].taps;
}

std::vector<double> channel_bank_ccc_impl::center_freqs() const
{
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    std::vector<double> f;
    for (const auto& c : d_options.channels)
        f.push_back(c.center_freq);
    return f;
}

std::vector<int> channel_bank_ccc_impl::decimations() const
{
    std::vector<int> d;
    for (const auto& c : d_options.channels)
        d.push_back(int(c.decimation));
    return d;
}

bool channel_bank_ccc_impl::stop()
{
    {
        std::lock_guard<std::mutex> lock(this->settings_mutex());
        d_longest_taps = 0;
    }
    return base::stop();
}

int channel_bank_ccc_impl::fft_size() const
{
    std::lock_guard<std::mutex> lock(this->settings_mutex());
    return int(d_fft_size);
}

} // namespace wideband
} // namespace gr
