/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * Streams run in place (stream_engine::run_in_place(): the samples read where
 * they are, in another buffer, the outputs written straight into another), for
 * fft_filter, pfb_channelizer and fft_stream: against the same engine run
 * through its own input window (run()), call for call on the samples each
 * in-place call consumed, bit for bit (to rounding for the filter, whose
 * window computes partial blocks), and against the float64 reference.
 * The samples arrive in random pieces and the output room varies, as GNU
 * Radio's buffers hand them over; set_taps() comes between calls. Every
 * output element past the ones a call produced must keep its poison.
 */

#define BOOST_TEST_MODULE qa_in_place
#include <boost/test/unit_test.hpp>

#include "conv_check.h"
#include "reference.h"

#include <gnuradio/wideband/core/fft_filter.h>
#include <gnuradio/wideband/core/fft_stream.h>
#include <gnuradio/wideband/core/pfb_channelizer.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace conv_check;
using core::stream_engine;

BOOST_TEST_GLOBAL_FIXTURE(compile_report);

namespace {

// Elements in front of the stream in its buffer and in front of the outputs:
// offsets that no power of two divides.
constexpr size_t input_lead = 37;
constexpr size_t output_lead = 11;

// Called before in-place call k, with the outputs in place so far and both engines.
template <class Engine>
using between_calls =
    std::function<void(size_t k, size_t produced, Engine& in_place, Engine& windowed)>;

struct stream_result {
    std::vector<cfloat> in_place, windowed; // real outputs as complex ones
    size_t consumed = 0;
};

// Samples in and out: complex, or real for the engines of real input and output.
template <class Sample>
Sample poison_sample()
{
    if constexpr (std::is_same_v<Sample, float>)
        return poison_value();
    else
        return poison();
}
bool finite(float v) { return std::isfinite(v); }
bool finite(const cfloat& v) { return finite(v.real()) && finite(v.imag()); }

template <class Sample>
std::vector<cfloat> as_complex(const std::vector<Sample>& v)
{
    return std::vector<cfloat>(v.begin(), v.end());
}

/*
 * Streams x through \p in_place with run_in_place() and, on the samples each
 * call consumed, through \p windowed with run().
 */
template <class Engine, class Sample = cfloat>
stream_result run_both(Engine& in_place,
                       Engine& windowed,
                       const std::vector<Sample>& x,
                       uint32_t seed,
                       const between_calls<Engine>& settings = {})
{
    const size_t capacity = output_lead + 4 * x.size() + 4096;
    const cl::Buffer output = poisoned_buffer(capacity);
    cl::Buffer scratch; // the windowed engine's output, as large as its settings need
    size_t scratch_elements = 0;
    const cl::CommandQueue& q = queue();

    std::mt19937 rng(seed);
    auto uniform = [&](size_t lo, size_t hi) {
        return std::uniform_int_distribution<size_t>(lo, hi)(rng);
    };
    const size_t max = in_place.max_input_samples();
    stream_result r;
    size_t arrived = 0, produced = 0;
    for (size_t k = 0; r.consumed < x.size() && k < 100000; ++k) {
        if (settings)
            settings(k, produced, in_place, windowed);
        // A piece arrives (often less than a step, sometimes nothing); the
        // room is anything from none to plenty.
        arrived = std::min(x.size(), arrived + uniform(0, max / 2));
        const size_t room = uniform(0, 3) == 0 ? uniform(0, 64) : uniform(0, 4 * max);
        const size_t available = std::min(arrived - r.consumed, max);
        // A fresh buffer per call, poison around the call's samples: a read of
        // anything else (samples consumed before, samples not yet given) shows.
        std::vector<Sample> given(input_lead, poison_sample<Sample>());
        given.insert(
            given.end(), x.begin() + r.consumed, x.begin() + r.consumed + available);
        given.resize(given.size() + 64, poison_sample<Sample>());
        const size_t given_room = std::min(room, capacity - output_lead - produced);
        const stream_engine::in_place_result step =
            in_place.run_in_place(q,
                                  { device_buffer(given), input_lead, available },
                                  { output, output_lead + produced, given_room },
                                  {});
        step.done.wait();
        BOOST_REQUIRE(step.consumed <= available);
        BOOST_REQUIRE(step.produced <= room);
        // Nothing written past the outputs produced, within the room given.
        if (given_room > step.produced) {
            std::vector<Sample> past(given_room - step.produced);
            q.enqueueReadBuffer(output,
                                CL_TRUE,
                                (output_lead + produced + step.produced) * sizeof(Sample),
                                past.size() * sizeof(Sample),
                                past.data());
            BOOST_REQUIRE_MESSAGE(
                std::all_of(past.begin(),
                            past.end(),
                            [](const Sample& v) { return is_poison(v); }),
                "call " << k << " wrote past its " << step.produced << " outputs");
        }
        if (step.consumed > 0) {
            // The same samples through the window.
            stream_engine::region w = windowed.input_region();
            q.enqueueWriteBuffer(w.buffer,
                                 CL_TRUE,
                                 w.offset * sizeof(Sample),
                                 step.consumed * sizeof(Sample),
                                 x.data() + r.consumed);
            if (scratch_elements < windowed.max_output_elements()) {
                scratch_elements = windowed.max_output_elements();
                scratch = poisoned_buffer(scratch_elements);
            }
            cl::Event done;
            const size_t elements = windowed.run(q, step.consumed, scratch, {}, done);
            done.wait();
            const std::vector<Sample> got = read_back<Sample>(scratch, elements);
            r.windowed.insert(r.windowed.end(), got.begin(), got.end());
        }
        r.consumed += step.consumed;
        produced += step.produced;
    }
    const std::vector<Sample> all = read_back<Sample>(output, capacity);
    r.in_place.assign(all.begin() + output_lead, all.begin() + output_lead + produced);
    BOOST_TEST(std::all_of(all.begin(),
                           all.begin() + output_lead,
                           [](const Sample& v) { return is_poison(v); }),
               "written before the output's offset");
    BOOST_TEST(std::all_of(all.begin() + output_lead,
                           all.begin() + output_lead + produced,
                           [](const Sample& v) { return finite(v); }),
               "an output is not finite: it read poison (a sample it was not given)");
    return r;
}

/*
 * The in-place outputs against the windowed ones: the windowed engine may be
 * fewer than \p step_outputs outputs ahead (it computes what the samples short
 * of a step complete; in place they wait for the rest of the step). Bit for bit
 * when \p exact, else to float rounding.
 */
void check_same(const stream_result& r, size_t step_outputs, bool exact)
{
    BOOST_TEST(r.in_place.size() <= r.windowed.size());
    BOOST_TEST(r.windowed.size() - r.in_place.size() < step_outputs);
    const size_t n = std::min(r.in_place.size(), r.windowed.size());
    const std::vector<cfloat> windowed(r.windowed.begin(), r.windowed.begin() + n);
    if (exact)
        check_identical(r.in_place, windowed, "in place against the window");
    else
        check_accuracy(r.in_place,
                       std::vector<cdouble>(windowed.begin(), windowed.end()),
                       1e-6,
                       "in place against the window");
}

std::vector<cfloat> complex_taps(size_t count, uint32_t seed)
{
    std::vector<cfloat> taps = random_signal(count, seed);
    for (auto& t : taps)
        t /= float(count);
    return taps;
}

std::vector<float> real_taps(size_t count, uint32_t seed)
{
    std::vector<float> taps = random_reals(count, seed);
    for (auto& t : taps)
        t /= float(count);
    return taps;
}

// The reference's channels of each frame, frame after frame.
std::vector<cdouble> frame_major(const wideband_reference::frames_by_channel& frames)
{
    std::vector<cdouble> v;
    for (size_t f = 0; f < frames.front().size(); ++f)
        for (const auto& channel : frames)
            v.push_back(channel[f]);
    return v;
}

} // namespace

BOOST_AUTO_TEST_CASE(fft_filter_in_place)
{
    struct shape {
        size_t taps, decimation, fft_size;
    };
    // The first steps reading the kept samples: one block; three blocks (the
    // history longer than two steps).
    for (const shape s : { shape{ 41, 1, 0 }, shape{ 300, 3, 512 } }) {
        BOOST_TEST_CONTEXT(s.taps << " taps, decimation " << s.decimation)
        {
            core::fft_filter_options o;
            o.taps = complex_taps(s.taps, 1);
            o.decimation = s.decimation;
            o.fft_size = s.fft_size;
            o.max_input_samples = 3000;
            core::fft_filter a(context(), o), b(context(), o);
            BOOST_TEST(a.runs_in_place());
            const std::vector<cfloat> x = random_signal(40000, 2);
            const stream_result r = run_both(a, b, x, 3);
            // The window computes the outputs of a part of a block from it,
            // with zeros past the samples: the same values, their rounding not.
            check_same(r, a.block_step() / s.decimation + 1, false);
            BOOST_TEST(r.consumed == x.size());
            check_accuracy(
                r.in_place,
                wideband_reference::fir(x, o.taps, s.decimation, 0, r.in_place.size()),
                1e-5,
                "against the float64 reference");
        }
    }
}

// fft_filter_fff's engine: real samples in and out, two blocks a transform.
BOOST_AUTO_TEST_CASE(real_fft_filter_in_place)
{
    for (const size_t decimation : { 1, 3 }) {
        BOOST_TEST_CONTEXT("decimation " << decimation)
        {
            core::fft_filter_options o;
            const std::vector<float> taps = real_taps(57, 4);
            o.taps.assign(taps.begin(), taps.end());
            o.decimation = decimation;
            o.input_format = core::sample_format::f32;
            o.real_output = true;
            o.max_input_samples = 3000;
            core::fft_filter a(context(), o), b(context(), o);
            BOOST_TEST(a.runs_in_place());
            const std::vector<float> x = random_reals(40000, 5);
            const stream_result r = run_both(a, b, x, 6);
            check_same(r, a.block_step() / decimation + 1, false);
            BOOST_TEST(r.consumed == x.size());
            check_accuracy(r.in_place,
                           wideband_reference::fir(
                               as_complex(x), o.taps, decimation, 0, r.in_place.size()),
                           1e-5,
                           "against the float64 reference");
        }
    }
}

// New taps apply from the next call on: in place from the next whole block
// (the window would apply them to the outputs the leftover completes first), so
// the stream is checked against the float64 reference piece by piece, each
// piece with its taps and the history the filter held (samples older than it
// zero when the taps grow).
BOOST_AUTO_TEST_CASE(fft_filter_set_taps_in_place)
{
    const size_t D = 3;
    core::fft_filter_options o;
    o.taps = complex_taps(300, 4);
    o.decimation = D;
    o.fft_size = 512;
    o.max_input_samples = 3000;
    core::fft_filter a(context(), o), b(context(), o);
    const std::vector<std::vector<cfloat>> taps = {
        o.taps, complex_taps(120, 5), complex_taps(350, 6), complex_taps(2000, 7)
    };
    std::vector<size_t> switched_at = { 0 }; // the output each piece starts at
    const std::vector<cfloat> x = random_signal(60000, 8);
    const stream_result r = run_both<core::fft_filter>(
        a, b, x, 9, [&](size_t k, size_t produced, auto& in_place, auto& windowed) {
            if (k % 15 == 14 && switched_at.size() < taps.size()) {
                in_place.set_taps(taps[switched_at.size()]);
                windowed.set_taps(taps[switched_at.size()]);
                switched_at.push_back(produced);
            }
        });
    BOOST_REQUIRE(switched_at.size() == taps.size());
    switched_at.push_back(r.in_place.size());
    uint64_t zero_before = 0;
    for (size_t i = 0; i < taps.size(); ++i) {
        const size_t first = switched_at[i], count = switched_at[i + 1] - first;
        BOOST_REQUIRE(count > 0);
        if (i > 0 && taps[i].size() > taps[i - 1].size())
            zero_before =
                std::max<uint64_t>(zero_before, first * D - (taps[i - 1].size() - 1));
        check_accuracy(std::vector<cfloat>(r.in_place.begin() + first,
                                           r.in_place.begin() + first + count),
                       wideband_reference::fir(x, taps[i], D, first, count, zero_before),
                       1e-5,
                       "outputs " + std::to_string(first) + " on, " +
                           std::to_string(taps[i].size()) + " taps");
    }
    BOOST_TEST(a.taps() == taps.back());
}

BOOST_AUTO_TEST_CASE(pfb_channelizer_in_place)
{
    struct shape {
        size_t channels, taps;
        double oversample;
        std::vector<size_t> map;
        core::channel_layout layout;
        size_t max_fused;
    };
    const shape shapes[] = {
        // fused, every channel of each frame in turn
        { 8, 40, 1.0, {}, core::channel_layout::frame_major, 0 },
        // FIR kernel, FFT and gather; one channel, oversampled
        { 16, 64, 2.0, { 3 }, core::channel_layout::channel_major, 4 },
    };
    for (const shape& s : shapes) {
        BOOST_TEST_CONTEXT(s.channels << " channels, r " << s.oversample)
        {
            core::pfb_channelizer_options o;
            o.channels = s.channels;
            o.taps = real_taps(s.taps, 10);
            o.oversample_rate = s.oversample;
            o.channel_map = s.map;
            o.layout = s.layout;
            o.max_input_samples = 2048;
            o.max_fused_channels = s.max_fused;
            core::pfb_channelizer a(context(), o), b(context(), o);
            BOOST_TEST(a.runs_in_place());
            BOOST_TEST(a.fused() == (s.max_fused == 0));
            const std::vector<cfloat> x = random_signal(30000, 11);
            const std::vector<std::vector<float>> taps = { real_taps(s.taps * 2, 12),
                                                           real_taps(s.taps / 2, 13) };
            const stream_result r = run_both<core::pfb_channelizer>(
                a, b, x, 14, [&](size_t k, size_t, auto& p, auto& q) {
                    if (k == 40 || k == 80) {
                        p.set_taps(taps[k / 40 - 1]);
                        q.set_taps(taps[k / 40 - 1]);
                    }
                });
            check_same(r, a.outputs(), true);
            BOOST_TEST(r.consumed == x.size());

            // The stream before the first set_taps against the reference.
            core::pfb_channelizer c(context(), o), d(context(), o);
            const stream_result plain = run_both(c, d, x, 15);
            const std::vector<size_t> channels =
                s.map.empty() ? std::vector<size_t>{ 0, 1, 2, 3, 4, 5, 6, 7 } : s.map;
            const size_t frames = plain.in_place.size() / channels.size();
            check_accuracy(
                plain.in_place,
                frame_major(wideband_reference::pfb_channelizer(
                    x, o.taps, s.channels, c.decimation(), channels, 0, frames)),
                1e-5,
                "against the float64 reference");
        }
    }
}

BOOST_AUTO_TEST_CASE(pfb_channelizer_rows_of_several_channels_stay_in_the_window)
{
    core::pfb_channelizer_options o;
    o.channels = 8;
    o.taps = real_taps(40, 16);
    o.layout = core::channel_layout::channel_major;
    core::pfb_channelizer a(context(), o);
    BOOST_TEST(!a.runs_in_place());
    const cl::Buffer b = poisoned_buffer(64);
    BOOST_CHECK_THROW(a.run_in_place(queue(), { b, 0, 64 }, { b, 0, 64 }, {}),
                      std::logic_error);
}

BOOST_AUTO_TEST_CASE(fft_stream_in_place)
{
    core::fft_stream_options o;
    o.max_input_samples = 1024;
    core::fft_stream a(context(), 32, o), b(context(), 32, o);
    const std::vector<cfloat> x = random_signal(20000, 17);
    const stream_result r = run_both(a, b, x, 18);
    check_same(r, 1, true);
    BOOST_TEST(r.consumed == x.size());
}
