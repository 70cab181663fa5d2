/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The polyphase synthesizer engine against a float64 reference of GNU Radio's
 * pfb_synthesizer_ccf (the frame formula of core/pfb_synthesizer.h, direct
 * inverse DFTs; python/wideband/qa_pfb_synthesizer_ccf.py checks the formula
 * against the in-tree block itself): 1x and twox, fewer inputs than bins with
 * channel maps that leave bins unused or put two inputs on one bin, tap counts
 * that are no multiple of M, chunkings (one call, random calls, calls of a
 * stream split as multi_device_pipeline splits it, in place), set_taps() and
 * set_channel_map() between calls, and the options it must reject. Every
 * call's output buffer is poisoned first: every element it must write is
 * checked, and the elements past them must keep the poison.
 */

#define BOOST_TEST_MODULE qa_pfb_synthesizer
#include <boost/test/unit_test.hpp>

#include "conv_check.h"
#include "reference.h"
#include "stream_chunks.h"

#include <gnuradio/wideband/core/pfb_synthesizer.h>

#include <cmath>
#include <complex>
#include <sstream>
#include <string>
#include <vector>

using namespace conv_check;

BOOST_TEST_GLOBAL_FIXTURE(compile_report);

namespace {

/*
 * An output is a float32 inverse FFT (log2 P stages) followed by a K-term sum:
 * relative errors of about 2^-24 * sqrt(K + 3 log2 P) ~ 3e-7 here; 1e-5
 * leaves a wide margin while a wrong tap, bin or frame is an error of the
 * order of the output's rms.
 */
constexpr double l2_bound = 1e-5;

// A setting of the engine from output frame `from` on; the frames before
// zero_before count as zero (those a longer filter finds no history for).
struct setting {
    size_t from;
    std::vector<float> taps;
    std::vector<size_t> map; // resolved (never empty)
    size_t zero_before = 0;
};

/*
 * The frame formula in float64: frame n's P-point inverse DFT y_n of bin
 * map[i] = x[n N + i] (i < min(N, map size), later inputs winning), then
 * out[n M + i] = sum_j taps[i + j M] y_{n-j}[o_n + i], with the taps and map
 * in force at output frame n (the engine keeps input samples, so a new map
 * applies to the frames kept as well), y_g = 0 for g < zero_before.
 */
std::vector<cdouble> reference(const std::vector<cfloat>& x,
                               size_t M,
                               bool twox,
                               size_t N,
                               const std::vector<setting>& settings)
{
    const size_t P = twox ? 2 * M : M;
    const size_t frames = x.size() / N;
    std::vector<cdouble> out(frames * M);
    const double pi = std::acos(-1.0);
    auto transform = [&](size_t g, const std::vector<size_t>& map) {
        std::vector<cdouble> bins(P, 0.0), y(P, 0.0);
        for (size_t i = 0; i < std::min(N, map.size()); ++i)
            bins[map[i]] = cdouble(x[g * N + i]);
        for (size_t k = 0; k < P; ++k)
            for (size_t b = 0; b < P; ++b)
                if (bins[b] != 0.0)
                    y[k] += bins[b] * std::polar(1.0, 2 * pi * double(b * k % P) / P);
        return y;
    };
    size_t s = 0;
    for (size_t n = 0; n < frames; ++n) {
        while (s + 1 < settings.size() && settings[s + 1].from <= n)
            ++s;
        const setting& now = settings[s];
        const size_t K = (now.taps.size() + M - 1) / M;
        const size_t offset = twox && n % 2 == 0 ? M : 0;
        for (size_t j = 0; j < K && j <= n && n - j >= now.zero_before; ++j) {
            const std::vector<cdouble> y = transform(n - j, now.map);
            for (size_t i = 0; i < M; ++i) {
                const size_t t = i + j * M;
                if (t < now.taps.size())
                    out[n * M + i] += double(now.taps[t]) * y[offset + i];
            }
        }
    }
    return out;
}

std::vector<size_t> identity(size_t P)
{
    std::vector<size_t> map(P);
    for (size_t b = 0; b < P; ++b)
        map[b] = b;
    return map;
}

std::vector<float> random_taps(size_t count, uint32_t seed)
{
    std::vector<float> taps = random_reals(count, seed);
    for (auto& t : taps)
        t /= std::sqrt(float(count));
    return taps;
}

struct config {
    size_t M;
    bool twox;
    size_t N;
    std::vector<size_t> map; // empty: identity
    size_t taps;
    size_t max_input; // engine's max_input_samples
};

std::string describe(const config& c)
{
    std::ostringstream s;
    s << "M=" << c.M << (c.twox ? " twox" : " 1x") << " N=" << c.N << " taps=" << c.taps
      << " map=" << (c.map.empty() ? "identity" : "custom")
      << " max_input=" << c.max_input;
    return s.str();
}

using history_mode = core::pfb_synthesizer_options::history_mode;

// Both kernels, whatever the device would choose.
constexpr history_mode both_modes[] = { history_mode::two_passes, history_mode::sliding };

const char* name_of(history_mode mode)
{
    return mode == history_mode::sliding ? "one pass" : "two passes";
}

core::pfb_synthesizer_options options_of(const config& c,
                                         const std::vector<float>& taps,
                                         history_mode mode = history_mode::two_passes)
{
    core::pfb_synthesizer_options o;
    o.history = mode;
    o.channels = c.M;
    o.twox = c.twox;
    o.inputs = c.N;
    o.channel_map = c.map;
    o.taps = taps;
    o.max_input_samples = c.max_input;
    return o;
}

/*
 * Runs x through \p engine in calls of \p chunks samples (with \p split, each
 * continuing the stream as a split stream does). Returns every output, each
 * call's buffer checked for poison.
 */
std::vector<cfloat> stream(core::pfb_synthesizer& engine,
                           const std::vector<cfloat>& x,
                           const std::vector<size_t>& chunks,
                           bool split,
                           const std::string& what)
{
    std::vector<cfloat> all;
    size_t at = 0;
    for (size_t n : chunks) {
        write_call(engine, x, at, n, split);
        const size_t max_out = engine.max_output_elements();
        cl::Buffer out = poisoned_buffer(max_out + tail_slack);
        cl::Event done;
        const size_t written = engine.run(queue(), n, out, {}, done);
        if (written > 0)
            done.wait();
        queue().finish();
        const std::vector<cfloat> host = read_back(out, max_out + tail_slack);
        size_t missed = 0, stray = 0;
        for (size_t k = 0; k < host.size(); ++k) {
            if (k < written && has_poison(host[k]))
                ++missed;
            if (k >= written && !(is_poison(host[k].real()) && is_poison(host[k].imag())))
                ++stray;
        }
        BOOST_CHECK_MESSAGE(missed == 0 && stray == 0,
                            what << ": a call of " << n << " samples left " << missed
                                 << " outputs unwritten and changed " << stray
                                 << " past them");
        all.insert(all.end(), host.begin(), host.begin() + written);
        at += n;
    }
    return all;
}

const std::vector<config>& configs()
{
    static const std::vector<config> all = {
        { 8, false, 8, {}, 8 * 4, 64 },
        { 8, true, 8, {}, 8 * 4 + 3, 40 },
        { 6, false, 6, {}, 13, 30 },                          // M not a power of 2
        { 12, true, 12, {}, 12 * 5 - 1, 72 },                 // odd K, twox
        { 16, false, 5, { 3, 0, 15, 7, 3 }, 16 * 3 + 5, 35 }, // N < M, repeated bin
        { 8, true, 3, { 1, 14, 8 }, 8 * 6, 30 },              // bins of the upper half
        { 4, true, 8, {}, 4 * 7 + 1, 40 },                    // every bin of twox
        { 4, true, 4, { 7, 6 }, 4 * 8, 24 }, // map shorter than the inputs
        { 1, false, 1, {}, 5, 8 },
        { 2, true, 2, {}, 7, 10 },
        { 32, false, 32, {}, 1, 96 }, // K = 1: no history
    };
    return all;
}

} // namespace

BOOST_AUTO_TEST_CASE(chunkings_against_reference)
{
    uint32_t seed = 1;
    for (const config& c : configs()) {
        const std::string what = describe(c);
        const std::vector<float> taps = random_taps(c.taps, seed++);
        const size_t frames = 3 * ((c.taps + c.M - 1) / c.M) + 21;
        const std::vector<cfloat> x = random_signal(frames * c.N + 2, seed++);
        const size_t P = c.twox ? 2 * c.M : c.M;
        const std::vector<cdouble> ref = reference(
            x, c.M, c.twox, c.N, { { 0, taps, c.map.empty() ? identity(P) : c.map } });

        const std::vector<std::pair<std::string, std::vector<size_t>>> chunkings = {
            { "one call", fixed_chunks(x.size(), c.max_input) },
            { "edge calls", edge_chunks(x.size(), c.N, c.max_input) },
            { "random calls", random_chunks(x.size(), c.N, c.max_input, seed++) },
        };
        for (const auto& [name, chunks] : chunkings)
            for (bool split : { false, true })
                for (history_mode mode : both_modes) {
                    core::pfb_synthesizer engine(context(), options_of(c, taps, mode));
                    BOOST_TEST(engine.history_samples() ==
                               (engine.taps_per_branch() - 1) * c.N);
                    // one pass wherever the FFT has points to exchange
                    BOOST_TEST(engine.sliding() ==
                               (mode == history_mode::sliding && P > 1));
                    const std::string label = what + ", " + name +
                                              (split ? ", split stream, " : ", ") +
                                              name_of(mode);
                    const std::vector<cfloat> y = stream(engine, x, chunks, split, label);
                    check_accuracy(y, ref, l2_bound, label);
                }
    }
}

/*
 * Calls of hundreds of frames: the two passes' branch filters split a call
 * into runs of frames (16 or more each), each run starting from the K - 1
 * frames before it; 1x and twox, odd K, one call and random calls.
 */
BOOST_AUTO_TEST_CASE(long_calls_in_runs)
{
    uint32_t seed = 500;
    for (bool twox : { false, true }) {
        const config c{ 16, twox, 16, {}, 16 * 8 + 5, 16 * 400 };
        const std::vector<float> taps = random_taps(c.taps, seed++);
        const std::vector<cfloat> x = random_signal(700 * c.N + 3, seed++);
        const std::vector<cdouble> ref =
            reference(x, c.M, c.twox, c.N, { { 0, taps, identity(twox ? 32 : 16) } });
        for (const auto& [name, chunks] :
             std::vector<std::pair<std::string, std::vector<size_t>>>{
                 { "one call", fixed_chunks(x.size(), c.max_input) },
                 { "random calls",
                   random_chunks(x.size(), c.N, c.max_input, seed++) } }) {
            core::pfb_synthesizer engine(context(),
                                         options_of(c, taps, history_mode::two_passes));
            const std::string label = describe(c) + ", " + name;
            check_accuracy(stream(engine, x, chunks, false, label), ref, l2_bound, label);
        }
    }
}

BOOST_AUTO_TEST_CASE(in_place_against_reference)
{
    // The samples in another device buffer, the outputs written straight
    // into another, with output room of a few frames per call.
    uint32_t seed = 100;
    for (const config& c : { configs()[0], configs()[1], configs()[4] })
        for (history_mode mode : both_modes) {
            const std::string what = describe(c) + ", in place, " + name_of(mode);
            const std::vector<float> taps = random_taps(c.taps, seed++);
            const size_t frames = 40;
            const std::vector<cfloat> x = random_signal(frames * c.N, seed++);
            const size_t P = c.twox ? 2 * c.M : c.M;
            const std::vector<cdouble> ref =
                reference(x,
                          c.M,
                          c.twox,
                          c.N,
                          { { 0, taps, c.map.empty() ? identity(P) : c.map } });
            core::pfb_synthesizer engine(context(), options_of(c, taps, mode));
            BOOST_REQUIRE(engine.runs_in_place());
            const cl::Buffer in = device_buffer(x);
            cl::Buffer out = poisoned_buffer(frames * c.M + tail_slack);
            std::mt19937 rng(seed++);
            size_t consumed = 0, produced = 0;
            while (consumed < x.size()) {
                const size_t count = std::min<size_t>(
                    x.size() - consumed,
                    std::uniform_int_distribution<size_t>(0, 3 * c.N)(rng));
                const size_t room =
                    std::min(frames * c.M - produced,
                             std::uniform_int_distribution<size_t>(0, 4)(rng) * c.M);
                const auto r = engine.run_in_place(
                    queue(), { in, consumed, count }, { out, produced, room }, {});
                r.done.wait();
                BOOST_REQUIRE_LE(r.produced, room);
                consumed += r.consumed;
                produced += r.produced;
            }
            // what the last samples complete, with room for it
            const auto r = engine.run_in_place(queue(),
                                               { in, x.size(), 0 },
                                               { out, produced, frames * c.M - produced },
                                               {});
            r.done.wait();
            produced += r.produced;
            std::vector<cfloat> y = read_back(out, frames * c.M + tail_slack);
            for (size_t k = frames * c.M; k < y.size(); ++k)
                BOOST_CHECK_MESSAGE(is_poison(y[k].real()),
                                    what << ": wrote past its outputs");
            y.resize(produced);
            check_accuracy(y, ref, l2_bound, what);
        }
}

BOOST_AUTO_TEST_CASE(settings_between_calls)
{
    // New taps (K 3 -> 5 -> 2) and a new map at call boundaries that are frame
    // boundaries: the kept frames are filtered with the new taps and mapped
    // with the new map. When K grows, the frames before the K - 1 kept count
    // as zero, except in a split stream, whose caller writes the history.
    for (bool twox : { false, true })
        for (history_mode mode : both_modes) {
            const size_t M = 8, N = 6, P = twox ? 16 : 8;
            const std::string what =
                std::string("settings, ") + (twox ? "twox, " : "1x, ") + name_of(mode);
            const std::vector<float> t1 = random_taps(3 * M - 2, 7),
                                     t2 = random_taps(5 * M, 8),
                                     t3 = random_taps(2 * M - 1, 9);
            const std::vector<size_t> m1 = { 0, 1, 2, 3, 4, 5 },
                                      m2 = { 5, P - 1, 2, 2, 0, 6 };
            const std::vector<cfloat> x = random_signal(60 * N, 10);
            for (bool split : { false, true }) {
                const std::vector<cdouble> ref =
                    reference(x,
                              M,
                              twox,
                              N,
                              { { 0, t1, m1 },
                                { 13, t2, m1, split ? size_t(0) : size_t(13 - 2) },
                                { 31, t2, m2 },
                                { 44, t3, m2 } });
                core::pfb_synthesizer engine(
                    context(),
                    options_of({ M, twox, N, m1, t1.size(), 10 * N }, t1, mode));
                std::vector<cfloat> y;
                // calls over input frames [from, to)
                auto part = [&](size_t from, size_t to) {
                    const std::vector<size_t> chunks =
                        random_chunks((to - from) * N, N, 10 * N, uint32_t(from));
                    size_t at = from * N;
                    for (size_t n : chunks) {
                        write_call(engine, x, at, n, split);
                        cl::Buffer out = poisoned_buffer(engine.max_output_elements());
                        cl::Event done;
                        const size_t written = engine.run(queue(), n, out, {}, done);
                        queue().finish();
                        const std::vector<cfloat> host = read_back(out, written);
                        y.insert(y.end(), host.begin(), host.end());
                        at += n;
                    }
                };
                part(0, 13);
                engine.set_taps(t2);
                BOOST_TEST(engine.taps_per_branch() == 5u);
                part(13, 31);
                engine.set_channel_map(m2);
                part(31, 44);
                engine.set_taps(t3);
                part(44, 60);
                check_accuracy(y, ref, l2_bound, what + (split ? ", split" : ""));
                if (split)
                    continue;
                // reset(): the stream again from zero history and frame 0 (the
                // parity twox follows), with the last settings
                engine.reset();
                y.clear();
                part(0, 60);
                check_accuracy(y,
                               reference(x, M, twox, N, { { 0, t3, m2 } }),
                               l2_bound,
                               what + ", after reset()");
            }
        }
}

BOOST_AUTO_TEST_CASE(rejected_options)
{
    const std::vector<float> taps(16, 0.5f);
    auto make = [&](size_t M,
                    bool twox,
                    size_t N,
                    std::vector<size_t> map,
                    std::vector<float> t) {
        core::pfb_synthesizer_options o;
        o.channels = M;
        o.twox = twox;
        o.inputs = N;
        o.channel_map = std::move(map);
        o.taps = std::move(t);
        return [o] { core::pfb_synthesizer engine(context(), o); };
    };
    check_rejected(make(0, false, 1, {}, taps), { "channels" });
    check_rejected(make(5, true, 5, {}, taps), { "even" });
    check_rejected(make(4, false, 0, {}, taps), { "inputs" });
    check_rejected(make(4, false, 5, {}, taps), { "inputs" });
    check_rejected(make(4, true, 9, {}, taps), { "inputs" });
    check_rejected(make(4, false, 4, { 0, 4 }, taps), { "bin 4" });
    check_rejected(make(4, true, 4, { 0, 8 }, taps), { "bin 8" });
    check_rejected(make(4, false, 4, {}, {}), { "empty" });
    check_rejected(make(4, false, 4, {}, { 1.0f, NAN }), { "finite" });

    core::pfb_synthesizer_options o;
    o.channels = 4;
    o.inputs = 4;
    o.taps = taps;
    core::pfb_synthesizer engine(context(), o);
    check_rejected([&] { engine.set_taps({}); }, { "empty" });
    check_rejected([&] { engine.set_channel_map({ 0, 9 }); }, { "bin 9" });
    BOOST_TEST(engine.taps() == taps);
    BOOST_TEST(engine.channel_map() == identity(4), boost::test_tools::per_element());
}
