/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The channel bank (channel_bank) against the float64 definition of GNU
 * Radio's freq_xlating_fir_filter_ccc for every channel
 * (reference::freq_xlating): centres anywhere (between bins, at the band's
 * edges), decimations that share factors with the FFT length and ones that do
 * not, random taps (every bin of the window matters) and designed low-pass
 * taps (narrow windows), random chunkings, complex integer input, retunes,
 * and the arguments it refuses.
 */

#define BOOST_TEST_MODULE qa_channel_bank
#include <boost/test/unit_test.hpp>

#include "conv_check.h"
#include "reference.h"
#include "stream_chunks.h"

#include <gnuradio/wideband/core/channel_bank.h>

#include <cmath>
#include <functional>

using namespace conv_check;
using wideband_reference::translation;

BOOST_TEST_GLOBAL_FIXTURE(compile_report);

namespace {

constexpr double fs = 1.0e6;

std::vector<cfloat> random_taps(size_t count, uint32_t seed)
{
    std::vector<cfloat> taps = random_signal(count, seed);
    for (auto& t : taps)
        t /= std::sqrt(float(count));
    return taps;
}

// A windowed-sinc low-pass to `cutoff` (of fs), Blackman-Harris window.
std::vector<cfloat> low_pass(size_t count, double cutoff)
{
    std::vector<cfloat> taps(count);
    const double middle = double(count - 1) / 2;
    for (size_t k = 0; k < count; ++k) {
        const double t = double(k) - middle;
        const double sinc = t == 0 ? 2 * cutoff : std::sin(2 * M_PI * cutoff * t) / (M_PI * t);
        const double x = 2 * M_PI * double(k) / double(count - 1);
        const double w = 0.35875 - 0.48829 * std::cos(x) + 0.14128 * std::cos(2 * x) -
                         0.01168 * std::cos(3 * x);
        taps[k] = cfloat(float(sinc * w), 0.0f);
    }
    return taps;
}

using before_call = std::function<void(size_t k, core::channel_bank&)>;

/*
 * x through the bank in calls of the given sizes: each channel's outputs.
 * The samples are written in the bank's input format (x holds integers in
 * range for sc16 and sc8). \p split: every call continues the stream as
 * several devices split it (continue_at(), the history written in front of
 * the call's samples);
 * \p frame_major: the bank's outputs come frame after frame.
 */
std::vector<std::vector<cfloat>> stream(core::channel_bank& bank,
                                        const std::vector<cfloat>& x,
                                        const std::vector<size_t>& chunks,
                                        const before_call& before = {},
                                        bool split = false,
                                        bool frame_major = false)
{
    const cl::CommandQueue& q = queue();
    const cl::Buffer output = poisoned_buffer(bank.max_output_elements());
    std::vector<std::vector<cfloat>> y(bank.channels());
    size_t at = 0;
    for (size_t k = 0; k < chunks.size(); ++k) {
        if (before)
            before(k, bank);
        write_call(bank, x, at, chunks[k], split, bank.input_format());
        const auto result = bank.enqueue(q, chunks[k], output);
        result.done.wait();
        size_t elements = 0;
        for (size_t count : result.counts)
            elements += count;
        const std::vector<cfloat> all = read_back(output, elements);
        for (size_t c = 0; c < y.size(); ++c)
            for (size_t i = 0; i < result.counts[c]; ++i)
                y[c].push_back(frame_major ? all[c + y.size() * i]
                                           : all[result.offsets[c] + i]);
        at += chunks[k];
    }
    return y;
}

void check_channels(const core::channel_bank_options& o,
                    const std::vector<cfloat>& x,
                    const std::vector<std::vector<cfloat>>& y,
                    double bound,
                    const std::vector<std::vector<translation>>& segments = {})
{
    for (size_t c = 0; c < o.channels.size(); ++c) {
        const auto& ch = o.channels[c];
        BOOST_TEST_CONTEXT("channel " << c << ": centre " << ch.center_freq << ", D "
                                      << ch.decimation << ", " << ch.taps.size()
                                      << " taps")
        {
            BOOST_TEST(y[c].size() == x.size() / ch.decimation);
            const auto ref = wideband_reference::freq_xlating(
                x,
                ch.decimation,
                segments.empty()
                    ? std::vector<translation>{ { 0, ch.center_freq / fs, ch.taps } }
                    : segments[c],
                y[c].size());
            const accuracy a = check_accuracy(y[c], ref, bound, "outputs");
            BOOST_TEST_MESSAGE("channel " << c << ": " << format(a));
        }
    }
}

} // namespace

// Random taps (windows of every bin), mixed decimations, centres between
// bins and at +-fs/2, over random chunkings.
BOOST_AUTO_TEST_CASE(random_taps_mixed_decimations)
{
    core::channel_bank_options o;
    o.sampling_freq = fs;
    o.max_input_samples = 10000;
    const double centres[] = { 0.0, 123456.789, -0.5e6, 0.5e6, -31250.0, 377777.7 };
    const size_t decimations[] = { 1, 2, 7, 16, 100, 75 };
    const size_t taps[] = { 1, 33, 129, 64, 200, 257 };
    for (size_t c = 0; c < std::size(centres); ++c)
        o.channels.push_back({ centres[c], decimations[c], random_taps(taps[c], c + 1) });
    core::channel_bank bank(context(), o);
    BOOST_TEST_MESSAGE(bank.describe());
    const std::vector<cfloat> x = random_signal(60000, 7);
    const auto y = stream(bank, x, random_chunks(x.size(), 100, 10000, 8));
    check_channels(o, x, y, 1e-5);
}

// Designed low-pass filters: each channel computes a narrow window of bins,
// and the output still follows the definition to about omitted_response.
BOOST_AUTO_TEST_CASE(designed_filters_narrow_windows)
{
    core::channel_bank_options o;
    o.sampling_freq = fs;
    o.max_input_samples = 50000;
    const size_t D[] = { 50, 64, 125, 97 };
    for (size_t c = 0; c < std::size(D); ++c)
        o.channels.push_back({ -0.41e6 + 0.27e6 * double(c) + 17.3 * double(c),
                               D[c],
                               low_pass(801, 0.4 / double(D[c])) });
    core::channel_bank bank(context(), o);
    BOOST_TEST_MESSAGE(bank.describe());
    for (size_t c = 0; c < bank.channels(); ++c) {
        BOOST_TEST_MESSAGE("channel " << c << ": " << bank.window_bins(c) << " of "
                                      << bank.fft_size() << " bins, inverse length "
                                      << bank.inverse_length(c));
        BOOST_TEST(bank.window_bins(c) < bank.fft_size() / 4);
    }
    const std::vector<cfloat> x = random_signal(200000, 9);
    const auto y = stream(bank, x, fixed_chunks(x.size(), 33333));
    check_channels(o, x, y, 1e-5);
}

// A bank whose channels all sum their windows directly (decimations prime to
// the FFT length): nothing to fold.
BOOST_AUTO_TEST_CASE(only_direct_channels)
{
    core::channel_bank_options o;
    o.sampling_freq = fs;
    o.max_input_samples = 40000;
    o.fft_size = 8000;
    o.channels = { { 0.2e6, 97, low_pass(801, 0.4 / 97) }, { -0.1e6, 101, low_pass(801, 0.4 / 101) } };
    core::channel_bank bank(context(), o);
    BOOST_TEST(bank.inverse_length(0) == 0u);
    BOOST_TEST(bank.inverse_length(1) == 0u);
    const std::vector<cfloat> x = random_signal(100000, 61);
    check_channels(o, x, stream(bank, x, fixed_chunks(x.size(), 40000)), 1e-5);
}

// Retunes and new taps of single channels between calls, from their next
// output on (the phase steps of freq_xlating_filter), the others unchanged.
BOOST_AUTO_TEST_CASE(retunes)
{
    core::channel_bank_options o;
    o.sampling_freq = fs;
    o.max_input_samples = 5000;
    o.channels = { { 0.1e6, 3, random_taps(65, 21) }, { -0.2e6, 10, random_taps(100, 22) } };
    core::channel_bank bank(context(), o);
    std::vector<std::vector<translation>> segments = {
        { { 0, 0.1e6 / fs, o.channels[0].taps } }, { { 0, -0.2e6 / fs, o.channels[1].taps } }
    };
    const std::vector<cfloat> x = random_signal(40000, 23);
    size_t streamed = 0;
    const auto chunks = random_chunks(x.size(), 10, 5000, 24);
    const auto y = stream(bank, x, chunks, [&](size_t k, core::channel_bank& b) {
        if (k == 6 || k == 13) {
            const size_t c = k == 6 ? 0 : 1;
            const double centre = k == 6 ? -0.333e6 : 0.45e6;
            const auto taps = random_taps(k == 6 ? 40 : 90, uint32_t(30 + k));
            const uint64_t at = streamed / o.channels[c].decimation;
            b.retune(c, centre, taps, at);
            segments[c].push_back({ at, centre / fs, taps });
        }
        streamed += chunks[k];
    });
    check_channels(o, x, y, 1e-5, segments);
}

// A stream split as several devices split it, each call from the history the
// caller writes; and the outputs frame after frame (one decimation).
BOOST_AUTO_TEST_CASE(split_stream_and_frame_major)
{
    for (const bool frame_major : { false, true }) {
        BOOST_TEST_CONTEXT((frame_major ? "frame-major" : "channel-major"))
        {
            core::channel_bank_options o;
            o.sampling_freq = fs;
            o.max_input_samples = 6000;
            o.frame_major = frame_major;
            const size_t D = frame_major ? 12 : 0;
            o.channels = { { -0.3e6, D ? D : 5, random_taps(100, 51) },
                           { 0.05e6, D ? D : 12, random_taps(37, 52) },
                           { 0.49e6, D ? D : 31, random_taps(150, 53) } };
            core::channel_bank bank(context(), o);
            const std::vector<cfloat> x = random_signal(50000, 54);
            const auto y = stream(
                bank, x, random_chunks(x.size(), 31, 6000, 55), {}, true, frame_major);
            check_channels(o, x, y, 1e-5);
        }
    }
}

// Complex int16 and int8 input over the types' whole range, taken as its
// values (converted as the forward FFT reads the window): in random chunks,
// and as a split stream whose caller writes the history as integers. The
// channels of split_stream_and_frame_major: only the forward FFT's kernels
// are new.
BOOST_AUTO_TEST_CASE(integer_inputs)
{
    uint32_t seed = 70;
    for (const core::sample_format format :
         { core::sample_format::sc16, core::sample_format::sc8 })
        for (const bool split : { false, true }) {
            BOOST_TEST_CONTEXT(core::sample_format_name(format)
                               << (split ? ", split stream" : ""))
            {
                core::channel_bank_options o;
                o.sampling_freq = fs;
                o.max_input_samples = 6000;
                o.input_format = format;
                o.channels = { { -0.3e6, 5, random_taps(100, 51) },
                               { 0.05e6, 12, random_taps(37, 52) },
                               { 0.49e6, 31, random_taps(150, 53) } };
                core::channel_bank bank(context(), o);
                BOOST_TEST((bank.input_format() == format));
                BOOST_TEST(bank.input_sample_bytes() == core::sample_bytes(format));
                const std::vector<cfloat> x =
                    random_integer_signal(50000, format, ++seed);
                const auto chunks = random_chunks(x.size(), 31, 6000, ++seed);
                check_channels(o, x, stream(bank, x, chunks, {}, split), 1e-5);
            }
        }
}

BOOST_AUTO_TEST_CASE(rejects_bad_channels)
{
    core::channel_bank_options good;
    good.sampling_freq = fs;
    good.channels = { { 0.1e6, 2, random_taps(10, 41) }, { 0.2e6, 4, random_taps(12, 42) } };
    const auto rejects = [&](auto change, const std::string& words) {
        auto o = good;
        change(o);
        BOOST_CHECK_EXCEPTION(core::channel_bank(context(), o),
                              std::invalid_argument,
                              [&](const std::invalid_argument& e) {
                                  const std::string m = e.what();
                                  BOOST_TEST_MESSAGE(m);
                                  return m.find(words) != std::string::npos;
                              });
    };
    using opts = core::channel_bank_options;
    rejects([](opts& o) { o.channels.clear(); }, "channels must not be empty");
    rejects([](opts& o) { o.channels[1].decimation = 0; }, "channel 1: decimation must be >= 1");
    rejects([](opts& o) { o.channels[0].taps.clear(); }, "channel 0: taps must not be empty");
    rejects([](opts& o) { o.channels[1].taps[2] = cfloat(0, NAN); },
            "channel 1: taps must be finite");
    rejects([](opts& o) { o.channels[1].center_freq = -0.6e6; },
            "channel 1: center_freq must be within");
    rejects([](opts& o) { o.sampling_freq = -1; }, "sampling_freq must be");
    rejects([](opts& o) { o.fft_size = 37 * 41; }, "fft_size");
    rejects([](opts& o) { o.frame_major = true; }, "one decimation for all channels");

    core::channel_bank bank(context(), good);
    BOOST_CHECK_THROW(bank.retune(2, 0, good.channels[0].taps, 0), std::invalid_argument);
    BOOST_CHECK_THROW(bank.retune(0, 0, random_taps(13, 43), 0), std::invalid_argument);
    BOOST_CHECK_THROW(bank.retune(0, 0.7e6, good.channels[0].taps, 0), std::invalid_argument);
}
