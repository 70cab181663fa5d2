/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "pfb_decimator_ccf_impl.h"
#include <gnuradio/io_signature.h>
#include <gnuradio/wideband/core/environment.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace gr {
namespace wideband {

namespace {

void check_decim(unsigned int decim)
{
    constexpr size_t most = core::pfb_channelizer_options::max_channels;
    if (decim < 1 || decim > most)
        throw std::invalid_argument("pfb_decimator_ccf: decim must be 1.." +
                                    std::to_string(most) + " (got " +
                                    std::to_string(decim) + ")");
}

void check_channel(unsigned int channel, unsigned int decim)
{
    if (channel >= decim)
        throw std::invalid_argument("pfb_decimator_ccf: channel must be 0.." +
                                    std::to_string(decim - 1) + " for decim " +
                                    std::to_string(decim) + " (got " +
                                    std::to_string(channel) + ")");
}

// The engine's options: decim channels, one output sample of each per decim
// input samples, only `channel` computed.
core::pfb_channelizer_options engine_options(unsigned int decim,
                                             const std::vector<float>& taps,
                                             unsigned int channel,
                                             const core::device_info& device)
{
    core::pfb_channelizer_options options;
    options.channels = decim;
    options.oversample_rate = 1.0;
    options.taps = taps;
    options.channel_map = { channel };
    options.max_input_samples =
        core::stream_config::for_device(device).max_input_samples(decim);
    return options;
}

// The engine's checks of the taps and sizes on every device, in the block's
// name (the engine validates, the block forwards).
void check_fits(const std::vector<core::device_context::sptr>& contexts,
                unsigned int decim,
                const std::vector<float>& taps,
                unsigned int channel)
{
    try {
        for (const auto& context : contexts)
            core::pfb_channelizer::check_fits(
                context->info(),
                engine_options(decim, taps, channel, contexts.front()->info()));
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("pfb_decimator_ccf: ") + e.what());
    }
}

// The devices, once the arguments are known to fit them: decim and channel
// first, in the block's words, before any device is opened.
std::vector<core::device_context::sptr> checked_contexts(unsigned int decim,
                                                         const std::vector<float>& taps,
                                                         unsigned int channel,
                                                         const std::string& device)
{
    check_decim(decim);
    check_channel(channel, decim);
    auto contexts = core::device_context::get_all(device);
    check_fits(contexts, decim, taps, channel);
    return contexts;
}

} // namespace

pfb_decimator_ccf::sptr pfb_decimator_ccf::make(unsigned int decim,
                                                const std::vector<float>& taps,
                                                unsigned int channel,
                                                bool /* use_fft_rotator */,
                                                bool /* use_fft_filters */,
                                                const std::string& device)
{
    core::environment::check();
    return gnuradio::make_block_sptr<pfb_decimator_ccf_impl>(
        decim, taps, channel, device);
}

pfb_decimator_ccf_impl::pfb_decimator_ccf_impl(unsigned int decim,
                                               const std::vector<float>& taps,
                                               unsigned int channel,
                                               const std::string& device)
    : gr::block("pfb_decimator_ccf",
                // one input, or decim split ones (decim 0 is refused below)
                gr::io_signature::make(1, int(std::max(decim, 1u)), sizeof(gr_complex)),
                gr::io_signature::make(1, 1, sizeof(gr_complex), opencl_buffer::type)),
      base(checked_contexts(decim, taps, channel, device), { decim, 1 }),
      d_decim(decim),
      d_taps(taps),
      d_channel(channel)
{
}

void pfb_decimator_ccf_impl::inputs_connected(size_t inputs)
{
    if (inputs != 1 && inputs != d_decim)
        throw std::invalid_argument(
            "pfb_decimator_ccf: connect one input (the stream) or decim = " +
            std::to_string(d_decim) +
            " inputs (the stream split by stream_to_streams), not " +
            std::to_string(inputs));
}

std::unique_ptr<core::pfb_channelizer>
pfb_decimator_ccf_impl::make_engine(const core::device_context::sptr& context)
{
    return std::make_unique<core::pfb_channelizer>(
        context, engine_options(d_decim, d_taps, d_channel, contexts().front()->info()));
}

void pfb_decimator_ccf_impl::apply_settings(core::pfb_channelizer& engine)
{
    engine.set_taps(d_taps);
    engine.set_channel_map({ d_channel });
}

void pfb_decimator_ccf_impl::set_taps(const std::vector<float>& taps)
{
    std::lock_guard<std::mutex> lock(settings_mutex());
    check_fits(contexts(), d_decim, taps, d_channel);
    d_taps = taps;
    settings_changed();
}

std::vector<std::vector<float>> pfb_decimator_ccf_impl::taps() const
{
    std::lock_guard<std::mutex> lock(settings_mutex());
    const size_t per_branch = (d_taps.size() + d_decim - 1) / d_decim;
    std::vector<std::vector<float>> branches(d_decim,
                                             std::vector<float>(per_branch, 0.0f));
    for (size_t n = 0; n < d_taps.size(); ++n)
        branches[n % d_decim][n / d_decim] = d_taps[n];
    return branches;
}

void pfb_decimator_ccf_impl::print_taps()
{
    // The in-tree block's format.
    const std::vector<std::vector<float>> branches = taps();
    for (size_t i = 0; i < branches.size(); ++i) {
        std::printf("filter[%zu]: [", i);
        for (float t : branches[i])
            std::printf(" %.4e", t);
        std::printf("]\n\n");
    }
}

void pfb_decimator_ccf_impl::set_channel(unsigned int channel)
{
    check_channel(channel, d_decim);
    std::lock_guard<std::mutex> lock(settings_mutex());
    d_channel = channel;
    settings_changed();
}

unsigned int pfb_decimator_ccf_impl::channel() const
{
    std::lock_guard<std::mutex> lock(settings_mutex());
    return d_channel;
}

} // namespace wideband
} // namespace gr
