/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "pfb_synthesizer_ccf_impl.h"
#include <gnuradio/io_signature.h>
#include <gnuradio/wideband/core/environment.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <stdexcept>

namespace gr {
namespace wideband {

namespace {

// The inverse FFT's points: a frame's channels at most.
unsigned int points_of(unsigned int numchans, bool twox)
{
    return (twox ? 2 : 1) * numchans;
}

/*
 * The input signature, numchans checked first so that a bad one gives one clear
 * message instead of an io_signature error: up to P streams (the in-tree block
 * takes up to numchans, which with twox fill half the bins), or vectors of P.
 */
gr::io_signature::sptr checked_inputs(unsigned int numchans, bool twox, bool vector_input)
{
    constexpr size_t most = std::min<size_t>(core::pfb_synthesizer_options::max_channels,
                                             INT_MAX / sizeof(gr_complex) / 2);
    if (numchans < 1 || numchans > most)
        throw std::invalid_argument("pfb_synthesizer_ccf: numchans must be 1.." +
                                    std::to_string(most) + " (got " +
                                    std::to_string(numchans) + ")");
    const unsigned int points = points_of(numchans, twox);
    return vector_input ? gr::io_signature::make(1, 1, points * sizeof(gr_complex))
                        : gr::io_signature::make(1, int(points), sizeof(gr_complex));
}

std::vector<size_t> engine_map(const std::vector<int>& map)
{
    return std::vector<size_t>(map.begin(), map.end());
}

core::pfb_synthesizer_options options_for(unsigned int numchans,
                                          const std::vector<float>& taps,
                                          bool twox,
                                          size_t inputs,
                                          const std::vector<int>& map,
                                          size_t frames_per_call)
{
    core::pfb_synthesizer_options o;
    o.channels = numchans;
    o.taps = taps;
    o.twox = twox;
    o.inputs = inputs;
    o.channel_map = engine_map(map);
    o.max_input_samples = frames_per_call * inputs;
    return o;
}

// The engine's checks on every device, in the block's name.
void check_fits(const std::vector<core::device_context::sptr>& contexts,
                const core::pfb_synthesizer_options& options)
{
    try {
        for (const auto& context : contexts)
            core::pfb_synthesizer::check_fits(context->info(), options);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("pfb_synthesizer_ccf: ") + e.what());
    }
}

std::vector<int> identity_map(unsigned int numchans, bool twox)
{
    std::vector<int> map(points_of(numchans, twox));
    for (size_t b = 0; b < map.size(); ++b)
        map[b] = int(b);
    return map;
}

/*
 * Frames per engine call: a chunk of output samples (the stream config's
 * chunk, as the input of the other blocks), so that the output of a call, M
 * times its frames, stays as large as theirs whatever the number of inputs.
 */
size_t frames_per_call(const std::vector<core::device_context::sptr>& contexts,
                       unsigned int numchans)
{
    const auto config = core::stream_config::for_device(contexts.front()->info());
    return std::max<size_t>(1, config.chunk_samples / numchans);
}

} // namespace

pfb_synthesizer_ccf::sptr pfb_synthesizer_ccf::make(unsigned int numchans,
                                                    const std::vector<float>& taps,
                                                    bool twox,
                                                    const std::string& device,
                                                    bool vector_input)
{
    core::environment::check();
    return gnuradio::make_block_sptr<pfb_synthesizer_ccf_impl>(
        numchans, taps, twox, device, vector_input);
}

pfb_synthesizer_ccf_impl::pfb_synthesizer_ccf_impl(unsigned int numchans,
                                                   const std::vector<float>& taps,
                                                   bool twox,
                                                   const std::string& device,
                                                   bool vector_input)
    : gr::block("pfb_synthesizer_ccf",
                checked_inputs(numchans, twox, vector_input),
                gr::io_signature::make(1, 1, sizeof(gr_complex), opencl_buffer::type)),
      base(core::device_context::get_all(device),
           { 1, numchans },
           vector_input ? points_of(numchans, twox) : 1),
      d_numchans(numchans),
      d_twox(twox),
      d_vector_input(vector_input),
      d_frames_per_call(frames_per_call(contexts(), numchans)),
      d_inputs(points_of(numchans, twox)),
      d_taps(taps),
      d_map(identity_map(numchans, twox))
{
    check_fits(contexts(), engine_options());
    // The base sizes chunks by input items; with streams of one sample per
    // item that would be numchans times the output of a vector's chunk.
    this->set_output_multiple(int(d_frames_per_call * numchans));
}

core::pfb_synthesizer_options pfb_synthesizer_ccf_impl::engine_options() const
{
    return options_for(d_numchans, d_taps, d_twox, d_inputs, d_map, d_frames_per_call);
}

void pfb_synthesizer_ccf_impl::inputs_connected(size_t inputs)
{
    // The signature allows 1..P streams, or one of vectors of P.
    d_inputs = d_vector_input ? points_of(d_numchans, d_twox) : inputs;
}

std::unique_ptr<core::pfb_synthesizer>
pfb_synthesizer_ccf_impl::make_engine(const core::device_context::sptr& context)
{
    return std::make_unique<core::pfb_synthesizer>(context, engine_options());
}

void pfb_synthesizer_ccf_impl::apply_settings(core::pfb_synthesizer& engine)
{
    engine.set_taps(d_taps);
    engine.set_channel_map(engine_map(d_map));
}

void pfb_synthesizer_ccf_impl::set_taps(const std::vector<float>& taps)
{
    std::lock_guard<std::mutex> lock(settings_mutex());
    check_fits(contexts(),
               options_for(d_numchans, taps, d_twox, d_inputs, d_map, d_frames_per_call));
    d_taps = taps;
    settings_changed();
}

std::vector<std::vector<float>> pfb_synthesizer_ccf_impl::taps() const
{
    std::lock_guard<std::mutex> lock(settings_mutex());
    const size_t M = d_numchans;
    const size_t K = (d_taps.size() + M - 1) / M;
    std::vector<std::vector<float>> filters((d_twox ? 2 : 1) * M,
                                            std::vector<float>(K, 0.0f));
    for (size_t n = 0; n < d_taps.size(); ++n) {
        const size_t i = n % M, j = n / M;
        // twox: the odd-indexed taps in filter i, the even ones in filter M + i
        filters[d_twox && j % 2 == 0 ? M + i : i][j] = d_taps[n];
    }
    return filters;
}

void pfb_synthesizer_ccf_impl::print_taps()
{
    // The in-tree block's format.
    const std::vector<std::vector<float>> filters = taps();
    for (size_t i = 0; i < filters.size(); ++i) {
        std::printf("filter[%zu]: [", i);
        for (float t : filters[i])
            std::printf(" %.4e", t);
        std::printf("]\n\n");
    }
}

void pfb_synthesizer_ccf_impl::set_channel_map(const std::vector<int>& map)
{
    if (map.empty())
        return;
    const int points = int(points_of(d_numchans, d_twox));
    for (int b : map)
        if (b < 0 || b >= points)
            throw std::invalid_argument("pfb_synthesizer_ccf: set_channel_map: bin " +
                                        std::to_string(b) + " is out of range 0.." +
                                        std::to_string(points - 1));
    std::lock_guard<std::mutex> lock(settings_mutex());
    d_map = map;
    settings_changed();
}

std::vector<int> pfb_synthesizer_ccf_impl::channel_map() const
{
    std::lock_guard<std::mutex> lock(settings_mutex());
    return d_map;
}

} // namespace wideband
} // namespace gr
