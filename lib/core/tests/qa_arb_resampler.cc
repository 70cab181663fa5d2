/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The arbitrary resampler engine against a float64 reference of GNU Radio's
 * pfb_arb_resampler_ccf: the in-tree kernel's loops as written there (its
 * float accumulator, floor and fmodf), the filter sums in double. Rates
 * 0.6144, 1/3.7, 2.5 and 1, filter sizes 32 and 7, chunkings of the stream,
 * checkpoint intervals, set_rate(), set_taps() and set_filter() between calls,
 * and the options it must reject. Inputs are never zero, so that a sample read
 * from a wrong place shows.
 */

#define BOOST_TEST_MODULE qa_arb_resampler
#include <boost/test/unit_test.hpp>

#include "conv_check.h"
#include "stream_chunks.h"

#include <gnuradio/wideband/core/arb_resampler.h>

#include <cmath>
#include <complex>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace conv_check;

BOOST_TEST_GLOBAL_FIXTURE(compile_report);

namespace {

// Float sums of T <= 16 products each (o0, o1) against double: about 1e-7.
constexpr double l2_bound = 1e-5;

// Samples of magnitude in [0.5, 1], random phase: never zero.
std::vector<cfloat> never_zero(size_t count, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> mag(0.5f, 1.0f), phase(0.0f, 6.2831853f);
    std::vector<cfloat> x(count);
    for (auto& v : x)
        v = std::polar(mag(rng), phase(rng));
    return x;
}

std::vector<float> random_taps(size_t count, uint32_t seed)
{
    std::vector<float> taps = random_reals(count, seed);
    for (auto& t : taps)
        t /= std::sqrt(float(count) / 8.0f);
    return taps;
}

using change = wideband_reference::arb_change;

// Runs the engine over x in calls of `chunks` samples; before the call that
// starts at output n, `changes[n]` (the engine's outputs so far) apply.
std::vector<cfloat> run_engine(core::arb_resampler& engine,
                               const std::vector<cfloat>& x,
                               const std::vector<size_t>& chunks,
                               const std::map<size_t, change>& changes = {},
                               std::map<size_t, change>* applied = nullptr)
{
    std::vector<cfloat> y;
    size_t at = 0, call = 0;
    for (size_t n : chunks) {
        const auto c = changes.find(call++);
        if (c != changes.end()) {
            if (c->second.rate > 0.0f)
                engine.set_rate(c->second.rate);
            if (!c->second.taps.empty())
                engine.set_taps(c->second.taps);
            if (applied)
                (*applied)[y.size()] = c->second;
        }
        write_call(engine, x, at, n, false);
        at += n;
        const size_t room = engine.max_output_elements();
        const cl::Buffer out = poisoned_buffer(room + tail_slack);
        cl::Event done;
        const size_t produced = engine.run(queue(), n, out, {}, done);
        done.wait();
        BOOST_REQUIRE_LE(produced, room);
        const std::vector<cfloat> got = read_back(out, room + tail_slack);
        y.insert(y.end(), got.begin(), got.begin() + produced);
        for (size_t k = produced; k < got.size(); ++k)
            BOOST_CHECK_MESSAGE(is_poison(got[k]),
                                "call writes element " << k << " past its " << produced
                                                       << " outputs");
    }
    return y;
}

core::arb_resampler_options options(float rate,
                                    const std::vector<float>& taps,
                                    unsigned R,
                                    size_t max_input,
                                    size_t interval = 64)
{
    core::arb_resampler_options o;
    o.rate = rate;
    o.taps = taps;
    o.filter_size = R;
    o.max_input_samples = max_input;
    o.checkpoint_interval = interval;
    return o;
}

} // namespace

BOOST_AUTO_TEST_CASE(rates_filter_sizes_and_chunkings)
{
    const float rates[] = { 0.6144f, 1.0f / 3.7f, 2.5f, 1.0f };
    const unsigned sizes[] = { 32, 7 };
    const size_t total = 3000, max_input = 512;
    const std::vector<cfloat> x = never_zero(total, 1);
    uint32_t seed = 10;
    for (unsigned R : sizes)
        for (float rate : rates) {
            // 16 and 8 taps per filter, one filter short of the last row
            const std::vector<float> taps =
                random_taps((R == 32 ? 16 : 8) * R - 3, seed++);
            const std::vector<cdouble> ref =
                wideband_reference::arb_resampler(x, rate, taps, R);
            std::vector<cfloat> first;
            const std::vector<std::vector<size_t>> chunkings = {
                fixed_chunks(total, max_input),
                random_chunks(total, 3, max_input, seed++),
                edge_chunks(total, 5, max_input),
            };
            for (size_t c = 0; c < chunkings.size(); ++c) {
                core::arb_resampler engine(context(), options(rate, taps, R, max_input));
                const std::vector<cfloat> y = run_engine(engine, x, chunkings[c]);
                const std::string what = "rate " + std::to_string(rate) + ", R " +
                                         std::to_string(R) + ", chunking " +
                                         std::to_string(c);
                const accuracy a = check_accuracy(y, ref, l2_bound, what);
                // rate * total outputs, give or take the last sample's
                BOOST_CHECK_LE(std::abs(double(y.size()) - double(rate) * total),
                               double(rate) + 2.0);
                if (c == 0) {
                    BOOST_TEST_MESSAGE(what << ": " << y.size() << " outputs, "
                                            << format(a));
                }
                if (c == 0)
                    first = y;
                else
                    check_identical(y, first, what + " vs chunking 0");
                BOOST_CHECK_EQUAL(engine.outputs_scheduled(), y.size());
            }
        }
}

BOOST_AUTO_TEST_CASE(checkpoint_intervals_give_the_same_output)
{
    const std::vector<cfloat> x = never_zero(2000, 2);
    const std::vector<float> taps = random_taps(32 * 8, 3);
    std::vector<cfloat> first;
    for (size_t interval : { 1, 64, 256 }) {
        core::arb_resampler engine(context(),
                                   options(1.0f / 3.7f, taps, 32, 700, interval));
        const std::vector<cfloat> y = run_engine(engine, x, fixed_chunks(2000, 700));
        if (first.empty())
            first = y;
        else
            check_identical(y, first, "interval " + std::to_string(interval));
    }
}

// A long stream at a rate whose float accumulator drifts from the exact
// phase: the outputs still follow the float recurrence, output for output.
BOOST_AUTO_TEST_CASE(long_stream_keeps_the_float_phase)
{
    const size_t total = 40000;
    const std::vector<cfloat> x = never_zero(total, 4);
    const std::vector<float> taps = random_taps(32 * 4, 5);
    core::arb_resampler engine(context(), options(0.6144f, taps, 32, 8192));
    const std::vector<cfloat> y = run_engine(engine, x, fixed_chunks(total, 8192));
    check_accuracy(y,
                   wideband_reference::arb_resampler(x, 0.6144f, taps, 32),
                   l2_bound,
                   "long stream");
}

BOOST_AUTO_TEST_CASE(settings_between_calls)
{
    const size_t total = 3000;
    const std::vector<cfloat> x = never_zero(total, 6);
    const std::vector<float> taps = random_taps(32 * 6, 7),
                             other = random_taps(32 * 6 - 5, 8);
    const std::vector<size_t> chunks = random_chunks(total, 3, 400, 9);
    std::map<size_t, change> by_call;
    by_call[2].rate = 2.5f;
    by_call[4].taps = other;
    by_call[6].rate = 1.0f / 3.7f;
    by_call[6].taps = taps;
    core::arb_resampler engine(context(), options(0.6144f, taps, 32, 400));
    std::map<size_t, change> by_output;
    const std::vector<cfloat> y = run_engine(engine, x, chunks, by_call, &by_output);
    check_accuracy(y,
                   wideband_reference::arb_resampler(x, 0.6144f, taps, 32, by_output),
                   l2_bound,
                   "set_rate, set_taps");
}

BOOST_AUTO_TEST_CASE(set_filter_starts_there)
{
    const std::vector<cfloat> x = never_zero(1000, 11);
    const std::vector<float> taps = random_taps(7 * 5, 12);
    core::arb_resampler engine(context(), options(2.5f, taps, 7, 256));
    BOOST_CHECK_EQUAL(engine.phase().filter, 3u); // (35 / 2) % 7
    engine.set_filter(5);
    const std::vector<cfloat> y = run_engine(engine, x, fixed_chunks(1000, 256));
    check_accuracy(y,
                   wideband_reference::arb_resampler(x, 2.5f, taps, 7, {}, 5),
                   l2_bound,
                   "set_filter(5)");
}

BOOST_AUTO_TEST_CASE(bounds_and_rejected_options)
{
    const std::vector<float> taps = random_taps(64, 13);
    const auto info = context()->info();
    check_rejected(
        [&] { core::arb_resampler::check_fits(info, options(0.0f, taps, 32, 64)); },
        { "rate" });
    check_rejected(
        [&] { core::arb_resampler::check_fits(info, options(-1.0f, taps, 32, 64)); },
        { "rate" });
    check_rejected(
        [&] { core::arb_resampler::check_fits(info, options(NAN, taps, 32, 64)); },
        { "rate" });
    check_rejected(
        [&] { core::arb_resampler::check_fits(info, options(1.0f, {}, 32, 64)); },
        { "taps" });
    check_rejected(
        [&] { core::arb_resampler::check_fits(info, options(1.0f, taps, 0, 64)); },
        { "filter_size" });
    check_rejected(
        [&] { core::arb_resampler::check_fits(info, options(1.0f, taps, 32, 64, 48)); },
        { "checkpoint_interval" });
    core::arb_resampler engine(context(), options(2.5f, taps, 32, 64));
    check_rejected([&] { engine.set_rate(0.0f); }, { "rate" });
    check_rejected([&] { engine.set_taps({}); }, { "taps" });
    BOOST_CHECK_THROW(engine.continue_at(0), std::logic_error);
    BOOST_CHECK(engine.variable_ratio());
    BOOST_CHECK_EQUAL(engine.decimation_rate(), 12u);
    BOOST_CHECK_EQUAL(engine.fractional_rate(), 32.0f / 2.5f - 12.0f);
    BOOST_CHECK_EQUAL(engine.taps_per_filter(), 2u);
    BOOST_CHECK_EQUAL(engine.history_samples(), 1u);
    // 64 samples make about 160 outputs; the bound is a little above.
    BOOST_CHECK_GE(engine.max_output_elements(), 160u);
    BOOST_CHECK_LE(engine.max_output_elements(), 180u);
}
