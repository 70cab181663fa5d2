/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "pfb_channelizer_ccf_impl.h"
#include "stream_buffers.h"
#include <gnuradio/fft/window.h>
#include <gnuradio/filter/firdes.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/wideband/core/environment.h>
#include <gnuradio/wideband/core/host_copy.h>
#include <pmt/pmt.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace wideband {

namespace {

const pmt::pmt_t channel_key = pmt::intern("channel");
const pmt::pmt_t channel_map_key = pmt::intern("channel_map");

void check_numchans(unsigned int numchans)
{
    constexpr size_t most = core::pfb_channelizer_options::max_channels;
    if (numchans < 1 || numchans > most)
        throw std::invalid_argument("pfb_channelizer_ccf: numchans must be 1.." +
                                    std::to_string(most) + " (got " +
                                    std::to_string(numchans) + ")");
}

unsigned int checked_decimation(unsigned int numchans, float oversample_rate)
{
    check_numchans(numchans);
    const double d = oversample_rate > 0 ? double(numchans) / oversample_rate : 0.0;
    if (!std::isfinite(d) || std::fabs(d - std::round(d)) > 1e-5 || std::round(d) < 1 ||
        std::round(d) > numchans)
        throw std::invalid_argument(
            "pfb_channelizer_ccf: oversample_rate must be numchans/i for an integer i in "
            "[1, numchans] (numchans " +
            std::to_string(numchans) + ", got " + std::to_string(oversample_rate) + ")");
    return static_cast<unsigned int>(std::lround(d));
}

void check_map(const std::vector<int>& map, unsigned int numchans)
{
    for (int c : map)
        if (c < 0 || unsigned(c) >= numchans)
            throw std::invalid_argument(
                "pfb_channelizer_ccf: channel " + std::to_string(c) +
                " in the channel map is out of range 0.." + std::to_string(numchans - 1));
}

void check_taps(const std::vector<float>& taps)
{
    for (float t : taps)
        if (!std::isfinite(t))
            throw std::invalid_argument(
                "pfb_channelizer_ccf: taps must be finite numbers");
}

std::vector<int> full_map(const std::vector<int>& map, unsigned int numchans)
{
    if (!map.empty())
        return map;
    std::vector<int> all(numchans);
    for (unsigned int c = 0; c < numchans; ++c)
        all[c] = int(c);
    return all;
}

/*
 * The taps of create_taps()'s prototype by Kaiser's formula,
 * ceil((atten - 7.95) / (14.36 * width / fs)) + 1 with the transition width 0.2
 * of the channel spacing (fs / numchans); checks numchans, atten and the
 * design's limit first.
 */
double kaiser_tap_count(unsigned int numchans, float atten)
{
    check_numchans(numchans);
    if (!(atten > 0.0f) || !std::isfinite(atten))
        throw std::invalid_argument(
            "pfb_channelizer_ccf: atten must be a positive number of dB (got " +
            std::to_string(atten) + ")");
    const double transition = 0.2;
    const double taps =
        std::ceil(std::max(double(atten) - 7.95, 0.0) * numchans / (14.36 * transition)) +
        1.0;
    // firdes counts taps in an int; far fewer already exceed any device.
    constexpr double most_taps = double(1 << 30);
    if (taps > most_taps) {
        std::ostringstream what;
        what << "pfb_channelizer_ccf: " << numchans << " channels at atten " << atten
             << " dB need " << std::fixed << std::setprecision(0) << taps
             << " taps, more than the 2^30 the design allows: use fewer channels or a "
                "lower atten";
        throw std::invalid_argument(what.str());
    }
    return taps;
}

// The taps create_taps() gives, without designing them: Kaiser's count made
// odd, as firdes makes it.
size_t designed_tap_count(unsigned int numchans, float atten)
{
    return size_t(kaiser_tap_count(numchans, atten)) | 1;
}

// The engine's options for a block's arguments, without taps and channel map.
core::pfb_channelizer_options block_options(unsigned int numchans,
                                            unsigned int decimation,
                                            bool vector_output,
                                            core::sample_format input_format,
                                            const core::device_info& device)
{
    core::pfb_channelizer_options options;
    options.channels = numchans;
    options.input_format = input_format;
    options.oversample_rate = double(numchans) / decimation;
    options.layout = vector_output ? core::channel_layout::frame_major
                                   : core::channel_layout::channel_major;
    options.max_input_samples =
        core::stream_config::for_device(device).max_input_samples(decimation);
    return options;
}

/*
 * Every argument, and the device buffers for the taps given or to be designed,
 * checked before a prototype is designed or memory taken (designing one for
 * 2^24 channels takes half a minute and gigabytes only to be refused). Returns
 * the outputs: one per mapped channel, or one vector of them.
 */
gr::io_signature::sptr checked_outputs(unsigned int numchans,
                                       const std::vector<float>& taps,
                                       float oversample_rate,
                                       const std::vector<int>& channel_map,
                                       const std::string& device,
                                       float atten,
                                       bool vector_output,
                                       core::sample_format input_format)
{
    const unsigned int decimation = checked_decimation(numchans, oversample_rate);
    check_map(channel_map, numchans);
    check_taps(taps);
    const size_t ntaps = taps.empty() ? designed_tap_count(numchans, atten) : taps.size();
    const size_t channels = channel_map.empty() ? numchans : channel_map.size();
    const auto contexts = core::device_context::get_all(device);
    const core::pfb_channelizer_options options = block_options(
        numchans, decimation, vector_output, input_format, contexts.front()->info());
    for (const auto& context : contexts)
        core::pfb_channelizer::check_sizes_fit(
            context->info(), options, ntaps, vector_output ? channels : numchans);
    const gr::buffer_type buffers = opencl_buffer::type;
    return vector_output
               ? gr::io_signature::make(1, 1, sizeof(gr_complex) * channels, buffers)
               : gr::io_signature::make(1, int(channels), sizeof(gr_complex), buffers);
}

} // namespace

std::vector<float> pfb_channelizer_ccf::create_taps(unsigned int numchans, float atten)
{
    // The in-tree block's prototype: pass band to 0.4, stop band from 0.6 of the
    // channel spacing, designed with firdes and a Kaiser window, which reaches any
    // attenuation (optfir, the in-tree designer, crashes for large numchans in
    // GNU Radio 3.10.5). low_pass_2's cutoff is the middle of the transition band,
    // and its tap count, int(atten * fs / (22 * width)) made odd, is short of
    // Kaiser's: the width given is the one that makes low_pass_2 count Kaiser's
    // taps.
    const double kaiser_taps = kaiser_tap_count(numchans, atten);
    const double a = atten;
    const double beta = a > 50.0 ? 0.1102 * (a - 8.7)
                        : a >= 21.0
                            ? 0.5842 * std::pow(a - 21.0, 0.4) + 0.07886 * (a - 21.0)
                            : 0.0;
    const double width = a * numchans / (22.0 * (kaiser_taps + 0.5));
    return filter::firdes::low_pass_2(
        1.0, numchans, 0.5, width, a, fft::window::win_type::WIN_KAISER, beta);
}

pfb_channelizer_ccf::sptr pfb_channelizer_ccf::make(unsigned int numchans,
                                                    const std::vector<float>& taps,
                                                    float oversample_rate,
                                                    const std::vector<int>& channel_map,
                                                    const std::string& device,
                                                    float atten,
                                                    bool vector_output,
                                                    const std::string& input_type)
{
    core::environment::check();
    return gnuradio::make_block_sptr<pfb_channelizer_ccf_impl>(
        numchans,
        taps,
        oversample_rate,
        channel_map,
        device,
        atten,
        vector_output,
        core::parse_sample_format(input_type));
}

pfb_channelizer_ccf_impl::pfb_channelizer_ccf_impl(unsigned int numchans,
                                                   const std::vector<float>& taps,
                                                   float oversample_rate,
                                                   const std::vector<int>& channel_map,
                                                   const std::string& device,
                                                   float atten,
                                                   bool vector_output,
                                                   core::sample_format input_format)
    : gr::block("pfb_channelizer_ccf",
                gr::io_signature::make(1, 1, core::sample_bytes(input_format)),
                checked_outputs(numchans,
                                taps,
                                oversample_rate,
                                channel_map,
                                device,
                                atten,
                                vector_output,
                                input_format)),
      base(core::device_context::get_all(device),
           { checked_decimation(numchans, oversample_rate), 1 }),
      d_numchans(numchans),
      d_decimation(unsigned(items().input)),
      d_vector_output(vector_output),
      d_input_format(input_format),
      d_taps(taps.empty() ? create_taps(numchans, atten) : taps),
      d_map(full_map(channel_map, numchans)),
      d_slots(vector_output ? d_map.size() : 0)
{
}

std::vector<size_t>
pfb_channelizer_ccf_impl::engine_map(const std::vector<int>& map) const
{
    return std::vector<size_t>(map.begin(), map.begin() + d_slots);
}

void pfb_channelizer_ccf_impl::outputs_connected(size_t outputs)
{
    {
        std::lock_guard<std::mutex> lock(settings_mutex());
        if (!d_vector_output && outputs > d_map.size())
            throw std::invalid_argument(
                "pfb_channelizer_ccf: " + std::to_string(outputs) +
                " outputs are connected but the channel map has only " +
                std::to_string(d_map.size()) + " entries");
        d_slots = d_vector_output ? d_map.size() : outputs;
    }
    // Called before GNU Radio allocates the flowgraph's buffers.
    ensure_buffers_for_streams(outputs, d_logger);
}

void pfb_channelizer_ccf_impl::check_fits(
    const core::pfb_channelizer_options& options) const
{
    for (const auto& context : contexts())
        core::pfb_channelizer::check_fits(context->info(), options);
}

core::pfb_channelizer_options
pfb_channelizer_ccf_impl::engine_options(const std::vector<float>& taps,
                                         const std::vector<int>& map) const
{
    core::pfb_channelizer_options options = block_options(d_numchans,
                                                          d_decimation,
                                                          d_vector_output,
                                                          d_input_format,
                                                          contexts().front()->info());
    options.taps = taps;
    options.channel_map = engine_map(map);
    return options;
}

std::unique_ptr<core::pfb_channelizer>
pfb_channelizer_ccf_impl::make_engine(const core::device_context::sptr& context)
{
    d_tagged_map = d_map; // a new stream starts from the settings, untagged
    return std::make_unique<core::pfb_channelizer>(context,
                                                   engine_options(d_taps, d_map));
}

void pfb_channelizer_ccf_impl::apply_settings(core::pfb_channelizer& engine)
{
    engine.set_taps(d_taps);
    engine.set_channel_map(engine_map(d_map));
    if (d_tagged_map == d_map) // unchanged, or tagged for an engine before
        return;
    // Where the new map applies: the first item each changed output computes
    // with it (one tag of the whole map with vector output).
    const uint64_t at = this->next_call_output();
    if (d_vector_output) {
        this->add_item_tag(0,
                           this->stream_output_start() + at,
                           channel_map_key,
                           pmt::init_s32vector(d_map.size(), d_map),
                           this->alias_pmt());
    } else {
        for (size_t s = 0; s < d_slots; ++s)
            if (d_map[s] != d_tagged_map[s])
                this->add_item_tag(unsigned(s),
                                   this->stream_output_start(s) + at,
                                   channel_key,
                                   pmt::from_long(d_map[s]),
                                   this->alias_pmt());
    }
    d_tagged_map = d_map;
}

void pfb_channelizer_ccf_impl::set_taps(const std::vector<float>& taps)
{
    check_taps(taps);
    if (taps.empty())
        throw std::invalid_argument(
            "pfb_channelizer_ccf: set_taps needs at least one tap");
    std::lock_guard<std::mutex> lock(settings_mutex());
    check_fits(engine_options(taps, d_map));
    d_taps = taps;
    settings_changed();
}

std::vector<float> pfb_channelizer_ccf_impl::taps() const
{
    std::lock_guard<std::mutex> lock(settings_mutex());
    return d_taps;
}

void pfb_channelizer_ccf_impl::set_channel_map(const std::vector<int>& map)
{
    check_map(map, d_numchans);
    const std::vector<int> full = full_map(map, d_numchans);
    std::lock_guard<std::mutex> lock(settings_mutex());
    if (d_vector_output && full.size() != d_map.size())
        throw std::invalid_argument(
            "pfb_channelizer_ccf: with vector output the channel map "
            "must keep its length (" +
            std::to_string(d_map.size()) + ")");
    if (full.size() < d_slots) // d_slots is 0 until the outputs are connected
        throw std::invalid_argument(
            "pfb_channelizer_ccf: the channel map needs an entry for "
            "each of the " +
            std::to_string(d_slots) + " connected outputs");
    d_map = full;
    settings_changed();
}

std::vector<int> pfb_channelizer_ccf_impl::channel_map() const
{
    std::lock_guard<std::mutex> lock(settings_mutex());
    return d_map;
}

// A chunk's output: channel-major rows of its frames, or one vector per frame.
void pfb_channelizer_ccf_impl::deliver(const void* chunk,
                                       size_t frames,
                                       size_t first,
                                       size_t count,
                                       size_t at,
                                       gr_vector_void_star& outputs)
{
    if (d_vector_output) {
        base::deliver(chunk, frames, first, count, at, outputs);
        return;
    }
    if (chunks_on_device()) {
        for (size_t s = 0; s < d_slots; ++s)
            work().move_out(chunk, s * frames + first, count, s, outputs[s], at);
        return;
    }
    const auto* rows = static_cast<const gr_complex*>(chunk);
    const auto copy_channel = [&](size_t s) {
        std::memcpy(static_cast<gr_complex*>(outputs[s]) + at,
                    rows + s * frames + first,
                    count * sizeof(gr_complex));
    };
    if (count * d_slots * sizeof(gr_complex) < 2 * core::parallel_copy_min_bytes)
        for (size_t s = 0; s < d_slots; ++s)
            copy_channel(s);
    else
        core::parallel_for(d_slots, copy_channel);
}

} // namespace wideband
} // namespace gr
