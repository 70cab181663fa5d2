/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The frequency-translating filter engine (freq_xlating_filter) against the
 * float64 definition of GNU Radio's freq_xlating_fir_filter_ccc
 * (reference::freq_xlating: start phase, retune phase steps), over random
 * chunkings, retunes and new taps between calls, in place, split as several
 * engines split a stream (continue_at()), and the phase arithmetic
 * (cycles_after()) against exact integer arithmetic far into a stream.
 */

#define BOOST_TEST_MODULE qa_freq_xlating_filter
#include <boost/test/unit_test.hpp>

#include "conv_check.h"
#include "reference.h"
#include "stream_chunks.h"

#include <gnuradio/wideband/core/freq_xlating_filter.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

using namespace conv_check;
using wideband_reference::translation;

BOOST_TEST_GLOBAL_FIXTURE(compile_report);

namespace {

// fft_filter's bound (qa_fft_filter.cc): the rotation adds float rounding only.
constexpr double l2_bound = 1e-5;
constexpr double sampling_freq = 2.5e6;

std::vector<cfloat> scaled_taps(size_t count, uint32_t seed)
{
    std::vector<cfloat> taps = random_signal(count, seed);
    for (auto& t : taps)
        t /= std::sqrt(float(count));
    return taps;
}

// Called before call k with the samples streamed so far and the outputs.
using before_call = std::function<void(
    size_t k, uint64_t samples, uint64_t outputs, core::freq_xlating_filter&)>;

// x through run() in calls of the given sizes; returns every output.
std::vector<cfloat> stream(core::freq_xlating_filter& f,
                           const std::vector<cfloat>& x,
                           const std::vector<size_t>& chunks,
                           const before_call& before = {},
                           bool split = false)
{
    const cl::CommandQueue& q = queue();
    cl::Buffer output;
    size_t capacity = 0;
    std::vector<cfloat> y;
    uint64_t at = 0;
    for (size_t k = 0; k < chunks.size(); ++k) {
        if (before)
            before(k, at, y.size(), f);
        // New taps can need more room per call (a longer FFT, whole blocks).
        if (f.max_output_elements() > capacity) {
            capacity = f.max_output_elements();
            output = poisoned_buffer(capacity);
        }
        write_call(f, x, at, chunks[k], split);
        cl::Event done;
        const size_t n = f.run(q, chunks[k], output, {}, done);
        if (n)
            done.wait();
        const std::vector<cfloat> got = read_back(output, n);
        y.insert(y.end(), got.begin(), got.end());
        at += chunks[k];
    }
    return y;
}

core::freq_xlating_filter_options
options(size_t taps, size_t D, double center, size_t max_input, uint32_t seed)
{
    core::freq_xlating_filter_options o;
    o.taps = scaled_taps(taps, seed);
    o.decimation = D;
    o.center_freq = center;
    o.sampling_freq = sampling_freq;
    o.max_input_samples = max_input;
    return o;
}

std::vector<translation> one_segment(const core::freq_xlating_filter_options& o)
{
    return { { 0, o.center_freq / o.sampling_freq, o.taps } };
}

} // namespace

// Centres anywhere in +-fs/2 (the edges too), decimations from 1 to 1000,
// taps from 1 to 4001, each over random chunkings.
BOOST_AUTO_TEST_CASE(against_the_definition)
{
    struct shape {
        size_t taps, decimation;
        double center;
    };
    const shape shapes[] = { { 1, 1, 0.3e6 },        { 64, 1, -1.25e6 },
                             { 301, 7, 1.25e6 },     { 257, 3, 123456.789 },
                             { 2000, 100, -0.77e6 }, { 4001, 1000, 0.41e6 } };
    uint32_t seed = 1;
    for (const shape& s : shapes) {
        BOOST_TEST_CONTEXT(s.taps << " taps, decimation " << s.decimation << ", centre "
                                  << s.center)
        {
            const auto o = options(s.taps, s.decimation, s.center, 20000, seed++);
            const size_t outputs = std::max<size_t>(3000, 2 * s.taps / s.decimation);
            const std::vector<cfloat> x = random_signal(outputs * s.decimation, seed++);
            core::freq_xlating_filter f(context(), o);
            const std::vector<cfloat> y =
                stream(f, x, random_chunks(x.size(), s.decimation, 20000, seed++));
            const auto ref = wideband_reference::freq_xlating(
                x, s.decimation, one_segment(o), y.size());
            BOOST_TEST(y.size() == x.size() / s.decimation);
            BOOST_TEST_MESSAGE(format(check_accuracy(y, ref, l2_bound, "outputs")));
        }
    }
}

// Retunes and new taps (fewer, more: a longer FFT) between calls, from the
// first output of the next call on, with the in-tree block's phase steps;
// the same stream split as several engines split it. One engine keeps the
// history its taps need: when they grow, older samples count as zero (as in
// fft_filter); split, the caller writes the history each call.
BOOST_AUTO_TEST_CASE(retunes_between_calls)
{
    const size_t D = 5;
    for (const bool split : { false, true }) {
        BOOST_TEST_CONTEXT((split ? "split" : "one engine"))
        {
            const auto o = options(129, D, 0.2e6, 7000, 11);
            core::freq_xlating_filter f(context(), o);
            const std::vector<cfloat> x = random_signal(150000, 12);
            std::vector<translation> segments = one_segment(o);
            const double centres[] = { -0.9e6, 1.1e6, 0.0, -0.31e6 };
            const std::vector<cfloat> taps[] = {
                o.taps, scaled_taps(40, 13), scaled_taps(700, 14), o.taps
            };
            const std::vector<cfloat> y = stream(
                f,
                x,
                random_chunks(x.size(), D, 7000, 15),
                [&](size_t k, uint64_t, uint64_t outputs, core::freq_xlating_filter& e) {
                    if (k % 9 != 8 || segments.size() > std::size(centres))
                        return;
                    const size_t i = segments.size() - 1;
                    e.retune(centres[i], taps[i], outputs);
                    const size_t held = segments.back().taps.size() - 1;
                    const uint64_t position = outputs * D;
                    segments.push_back(
                        { outputs,
                          centres[i] / sampling_freq,
                          taps[i],
                          split || position < held ? 0 : position - held });
                },
                split);
            BOOST_TEST(segments.size() == 5u);
            const auto ref = wideband_reference::freq_xlating(x, D, segments, y.size());
            BOOST_TEST(y.size() == x.size() / D);
            BOOST_TEST_MESSAGE(format(check_accuracy(y, ref, l2_bound, "outputs")));
        }
    }
}

// In place (read where the samples are, written straight into the output),
// with a retune midway.
BOOST_AUTO_TEST_CASE(in_place)
{
    const size_t D = 4;
    const auto o = options(300, D, -0.6e6, 3000, 21);
    core::freq_xlating_filter f(context(), o);
    BOOST_TEST(f.runs_in_place());
    const std::vector<cfloat> x = random_signal(60000, 22);
    const cl::Buffer input = device_buffer(x);
    const cl::Buffer output = poisoned_buffer(x.size());
    std::vector<translation> segments = one_segment(o);
    std::mt19937 rng(23);
    size_t consumed = 0, produced = 0;
    for (size_t k = 0; consumed < x.size(); ++k) {
        if (k == 10) {
            f.retune(0.7e6, o.taps, produced);
            segments.push_back({ produced, 0.7e6 / sampling_freq, o.taps });
        }
        const size_t available = std::min<size_t>(
            x.size() - consumed, std::uniform_int_distribution<size_t>(1, 3000)(rng));
        const auto r = f.run_in_place(queue(),
                                      { input, consumed, available },
                                      { output, produced, x.size() - produced },
                                      {});
        r.done.wait();
        consumed += r.consumed;
        produced += r.produced;
    }
    const std::vector<cfloat> y = read_back(output, produced);
    // all but the last samples short of a block (of at most fft_size() samples)
    BOOST_TEST(produced > (x.size() - f.fft_size()) / D);
    const auto ref = wideband_reference::freq_xlating(x, D, segments, produced);
    BOOST_TEST_MESSAGE(format(check_accuracy(y, ref, l2_bound, "outputs")));
}

// The phase in cycles after counts far beyond 2^53 / rate, against exact
// integer arithmetic: a rate of a / 2^40 cycles per sample is exact in a
// double, and a * count mod 2^40 is exact in 128 bits.
BOOST_AUTO_TEST_CASE(cycles_after_is_exact)
{
    std::mt19937_64 rng(31);
    constexpr double scale = 1099511627776.0; // 2^40
    double worst = 0;
    for (int i = 0; i < 2000; ++i) {
        const int64_t a = int64_t(rng() % (uint64_t(1) << 40)) - (int64_t(1) << 39);
        const uint64_t count = rng() >> (rng() % 40);
        using int128 = __int128;
        const int128 mod = int128(1) << 40;
        const int128 wrapped = ((int128(a) * int128(count)) % mod + mod) % mod;
        const double exact = double(wrapped) / scale;
        double error = std::abs(core::cycles_after(double(a) / scale, count) - exact);
        error = std::min(error, 1 - error); // 0.999... and 0 are the same phase
        worst = std::max(worst, error);
    }
    BOOST_TEST_MESSAGE("cycles_after: worst error " << worst << " cycles");
    BOOST_TEST(worst < 1e-8);
}

BOOST_AUTO_TEST_CASE(rejects_bad_options)
{
    const auto good = options(10, 2, 0.1e6, 0, 41);
    const auto rejects = [&](auto change, const std::string& words) {
        auto o = good;
        change(o);
        BOOST_CHECK_EXCEPTION(core::freq_xlating_filter(context(), o),
                              std::invalid_argument,
                              [&](const std::invalid_argument& e) {
                                  const std::string m = e.what();
                                  BOOST_TEST_MESSAGE(m);
                                  return m.find(words) != std::string::npos;
                              });
    };
    using opts = core::freq_xlating_filter_options;
    rejects([](opts& o) { o.decimation = 0; }, "decimation must be >= 1");
    rejects([](opts& o) { o.taps.clear(); }, "taps must not be empty");
    rejects([](opts& o) { o.taps[3] = cfloat(NAN, 0); }, "taps must be finite");
    rejects([](opts& o) { o.center_freq = 1.3e6; }, "center_freq must be within");
    rejects([](opts& o) { o.center_freq = INFINITY; }, "center_freq must be within");
    rejects([](opts& o) { o.sampling_freq = 0; }, "sampling_freq must be");
    rejects([](opts& o) { o.sampling_freq = NAN; }, "sampling_freq must be");

    // A retune that throws leaves the filter as it was.
    core::freq_xlating_filter f(context(), good);
    BOOST_CHECK_THROW(f.retune(2e6, good.taps, 0), std::invalid_argument);
    BOOST_CHECK_THROW(f.retune(0, {}, 0), std::invalid_argument);
    BOOST_TEST(f.center_freq() == good.center_freq);
    const std::vector<cfloat> x = random_signal(4000, 42);
    const std::vector<cfloat> y = stream(f, x, fixed_chunks(x.size(), 1000));
    check_accuracy(y,
                   wideband_reference::freq_xlating(x, 2, one_segment(good), y.size()),
                   l2_bound,
                   "after the refused retunes");
}
