/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The polyphase channelizer engine against the float64 reference channelizer
 * (reference.h: GNU Radio's pfb.channelizer_ccf formula, direct sums, no FFT):
 * channel counts and oversampling rates, tap counts, both output layouts, the fused and
 * the unfused path, channel maps, chunkings of the stream, set_taps(), set_channel_map()
 * and reset() between calls, and the options and calls it must reject. Every call's
 * output buffer is poisoned first: every element the call must write is checked, and
 * every other one must keep the poison.
 */

#define BOOST_TEST_MODULE qa_pfb_channelizer
#include <boost/test/unit_test.hpp>

#include "conv_check.h"
#include "reference.h"
#include "scoped_env.h"
#include "stream_chunks.h"

#include <gnuradio/wideband/core/pfb_channelizer.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

using namespace conv_check;
using core::channel_layout;

namespace {

/*
 * Accuracy bounds. An output is a float32 sum of K*M tap-sample products: each
 * branch accumulates its K terms, then an M-point FFT (log M stages, rounded
 * twiddles) combines the M branches. With random taps and samples the rounding
 * errors are independent, so a channel's relative error grows like
 * eps * sqrt(K + c log2 M), eps = 2^-24 = 6e-8 and c a few: at most about
 * 6e-8 * sqrt(8 + 3 * 10) ~ 4e-7 for the sizes here (K <= 8, M <= 1024);
 * measured values are about 1e-7. 1e-5 leaves a factor 25 for unlucky
 * roundings, while a wrong tap, phase or sample in one output is an error of
 * the order of the channel's rms, which the per-element bound catches
 * (10 * l2_bound * rms, as fft_check.cc argues: rounding errors are close to
 * complex Gaussian and never reach 10 times their rms).
 */
constexpr double l2_bound = 1e-5; // elements: conv_check::worst_point_factor times it

// Layout slack of every call's output buffer: channel-major rows are
// frames + row_gap apart, and conv_check::tail_slack elements follow the last
// one written.
constexpr size_t row_gap = 3;

// Random taps (every channel then carries about the same power, so a relative
// error per channel is meaningful), scaled to keep the outputs near 1.
std::vector<float> random_taps(size_t count, uint32_t seed)
{
    std::vector<float> taps = random_reals(count, seed);
    const float scale = 1.0f / std::sqrt(float(count));
    for (auto& t : taps)
        t *= scale;
    return taps;
}

std::vector<size_t> all_channels(size_t channels)
{
    std::vector<size_t> map(channels);
    for (size_t c = 0; c < channels; ++c)
        map[c] = c;
    return map;
}

// ---------------------------------------------------------------------------
// The reference and the comparisons (conv_check.h)

using reference_frames = wideband_reference::frames_by_channel; // [slot][frame]
using frames_by_slot = std::vector<std::vector<cfloat>>;        // [slot][frame]
/*
 * Each slot's frames against the reference: the frame counts, the relative L2
 * error within bound, every element within worst_point_factor * bound of the
 * channel's rms. One failure per call names the slots off and the worst one.
 * Returns the worst accuracy.
 */
template <typename T>
accuracy check_frames(const frames_by_slot& got,
                      const std::vector<std::vector<std::complex<T>>>& ref,
                      const std::string& what,
                      double bound = l2_bound)
{
    BOOST_REQUIRE_MESSAGE(got.size() == ref.size(),
                          what << ": " << got.size() << " output slots, expected "
                               << ref.size());
    accuracy worst;
    size_t miscounted = 0, off = 0, worst_slot = 0;
    for (size_t s = 0; s < got.size(); ++s) {
        if (got[s].size() != ref[s].size()) {
            BOOST_TEST_MESSAGE(what << ", slot " << s << ": " << got[s].size()
                                    << " frames, expected " << ref[s].size());
            ++miscounted;
            continue;
        }
        if (got[s].empty())
            continue;
        const accuracy a =
            compare(got[s], std::vector<cdouble>(ref[s].begin(), ref[s].end()));
        if (!(a.relative_l2 <= bound && a.worst_point <= worst_point_factor * bound))
            ++off;
        if (!(a.relative_l2 <= worst.relative_l2))
            worst_slot = s;
        worst.merge(a);
    }
    BOOST_CHECK_MESSAGE(miscounted == 0,
                        what << ": " << miscounted << " of " << got.size()
                             << " slots have the wrong frame count");
    BOOST_CHECK_MESSAGE(
        off == 0,
        what << ": " << off << " of " << got.size() << " slots off (bounds: relative L2 "
             << bound << ", element " << worst_point_factor * bound << " * rms); worst "
             << format(worst) << ", relative L2 worst in slot " << worst_slot);
    return worst;
}

// Bit for bit, with the first difference in the message.
void check_identical(const frames_by_slot& a,
                     const frames_by_slot& b,
                     const std::string& what)
{
    BOOST_REQUIRE_MESSAGE(a.size() == b.size(), what << ": slot counts differ");
    for (size_t s = 0; s < a.size(); ++s) {
        BOOST_REQUIRE_MESSAGE(a[s].size() == b[s].size(),
                              what << ", slot " << s << ": frame counts differ ("
                                   << a[s].size() << ", " << b[s].size() << ")");
        for (size_t f = 0; f < a[s].size(); ++f)
            if (std::memcmp(&a[s][f], &b[s][f], sizeof(cfloat)) != 0) {
                BOOST_ERROR(what << ": not bit-identical, first at slot " << s
                                 << ", frame " << f << ": " << a[s][f] << " vs "
                                 << b[s][f]);
                return;
            }
    }
}

// ---------------------------------------------------------------------------
// The engine under test

struct config {
    size_t channels = 16;
    size_t decimation = 16; // D; oversample_rate = channels / D
    channel_layout layout = channel_layout::channel_major;
    std::vector<size_t> map;       // empty: all channels
    size_t max_input_samples = 0;  // 0: the engine's default
    size_t max_fused_channels = 0; // 1: the unfused path for every M > 1
    // 0: the FFT for every channel map
    size_t max_direct_channels = core::pfb_channelizer_options().max_direct_channels;
    // the test's PoCL takes per_frame by default
    core::pfb_channelizer_options::history_mode history =
        core::pfb_channelizer_options::history_mode::automatic;
    core::sample_format input_format = core::sample_format::fc32;
    std::vector<size_t> map_or_all() const
    {
        return map.empty() ? all_channels(channels) : map;
    }
};

core::pfb_channelizer_options make_options(const config& cfg,
                                           const std::vector<float>& taps)
{
    core::pfb_channelizer_options o;
    o.channels = cfg.channels;
    o.taps = taps;
    o.oversample_rate = double(cfg.channels) / double(cfg.decimation);
    o.channel_map = cfg.map;
    o.layout = cfg.layout;
    o.max_input_samples = cfg.max_input_samples;
    o.max_fused_channels = cfg.max_fused_channels;
    o.max_direct_channels = cfg.max_direct_channels;
    o.history = cfg.history;
    o.input_format = cfg.input_format;
    return o;
}

/*
 * A pfb_channelizer with the layout it writes, fed the way its header says:
 * the samples written at input_region() (a non-blocking write the call waits
 * for), then enqueue() (or, with through_run, stream_engine::run(): compact
 * rows of the call's frames) into a fresh output buffer poisoned with NaN.
 */
class engine
{
public:
    //! On \p ctx (default: the tests' shared context and queue).
    engine(const config& cfg,
           const std::vector<float>& taps,
           core::device_context::sptr ctx = context())
        : ch(ctx, make_options(cfg, taps)),
          d_context(ctx),
          d_queue(ctx == context() ? queue() : ctx->create_queue()),
          d_layout(cfg.layout),
          d_format(cfg.input_format)
    {
        std::ostringstream s;
        s << core::sample_format_name(cfg.input_format) << " M=" << cfg.channels
          << " D=" << cfg.decimation << " taps=" << taps.size()
          << " K=" << ch.taps_per_branch()
          << (ch.direct()    ? " direct"
              : ch.sliding() ? " sliding"
              : ch.fused()   ? " fused"
                             : " unfused")
          << (cfg.layout == channel_layout::channel_major ? " channel-major"
                                                          : " frame-major")
          << " outputs=" << ch.outputs() << " max_input=" << ch.max_input_samples();
        d_name = s.str();
    }

    const std::string& name() const { return d_name; }

    //! Calls stream_engine::run() instead of enqueue().
    bool through_run = false;

    /*
     * One call with n samples. Checks the frame count against frames_for(), that
     * every element the call must write was written and that no other element
     * of the output buffer changed. Returns the call's frames.
     */
    frames_by_slot call(const cfloat* samples, size_t n)
    {
        const size_t slots = ch.outputs();
        const size_t frames = ch.frames_for(n);
        const bool rows = d_layout == channel_layout::channel_major;
        const size_t row_stride = through_run ? frames : frames + row_gap;

        const core::pfb_channelizer::region region = ch.input_region();
        BOOST_REQUIRE_EQUAL(region.capacity, ch.max_input_samples());
        BOOST_REQUIRE_LE(n, region.capacity);
        BOOST_REQUIRE_EQUAL(ch.input_sample_bytes(), core::sample_bytes(d_format));
        const staged_write input(d_queue, region, samples, n, d_format);
        const std::vector<cl::Event> wait = input.events();

        const size_t span = rows ? slots * row_stride : frames * slots;
        if (through_run)
            BOOST_REQUIRE_LE(span, ch.max_output_elements());
        const size_t size = through_run ? ch.max_output_elements() : span;
        std::vector<cfloat> host(size + tail_slack,
                                 cfloat(poison_value(), poison_value()));
        cl::Buffer out(d_context->context(),
                       CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                       host.size() * sizeof(cfloat),
                       host.data());
        cl::Event done;
        size_t written;
        if (through_run) {
            written = ch.run(d_queue, n, out, wait, done);
        } else {
            const core::pfb_channelizer::result result =
                ch.enqueue(d_queue, n, out, row_stride, wait);
            written = result.frames * slots;
            done = result.done;
        }
        BOOST_CHECK_MESSAGE(written == frames * slots,
                            d_name << ": " << written << " elements written, expected "
                                   << frames << " frames (frames_for()) * " << slots
                                   << " outputs");
        done.wait();
        d_queue.enqueueReadBuffer(
            out, CL_TRUE, 0, host.size() * sizeof(cfloat), host.data());

        frames_by_slot y(slots, std::vector<cfloat>(frames));
        std::vector<bool> must_write(host.size(), false);
        for (size_t s = 0; s < slots; ++s)
            for (size_t f = 0; f < frames; ++f) {
                const size_t at = rows ? s * row_stride + f : f * slots + s;
                must_write[at] = true;
                y[s][f] = host[at];
            }
        size_t missed = 0, stray = 0;
        for (size_t i = 0; i < host.size(); ++i) {
            const bool re = is_poison(host[i].real()), im = is_poison(host[i].imag());
            if (must_write[i] && (re || im))
                ++missed;
            if (!must_write[i] && !(re && im))
                ++stray;
        }
        BOOST_CHECK_MESSAGE(missed == 0,
                            d_name << ": " << missed << " of the " << frames * slots
                                   << " elements of a call of " << n
                                   << " samples were not written");
        BOOST_CHECK_MESSAGE(stray == 0,
                            d_name << ": " << stray << " elements outside what a call of "
                                   << n << " samples writes changed");
        return y;
    }

    //! x[begin ...] in calls of chunks[0], chunks[1], ... samples; all their frames.
    frames_by_slot
    run(const std::vector<cfloat>& x, size_t begin, const std::vector<size_t>& chunks)
    {
        frames_by_slot all(ch.outputs());
        for (size_t n : chunks) {
            BOOST_REQUIRE_LE(begin + n, x.size());
            const frames_by_slot part = call(x.data() + begin, n);
            for (size_t s = 0; s < all.size(); ++s)
                all[s].insert(all[s].end(), part[s].begin(), part[s].end());
            begin += n;
        }
        return all;
    }

    core::pfb_channelizer ch;

private:
    core::device_context::sptr d_context;
    cl::CommandQueue d_queue;
    channel_layout d_layout;
    core::sample_format d_format;
    std::string d_name;
};

struct stream_result {
    frames_by_slot frames;
    bool fused, sliding, direct;
};

/*
 * A stream of frames * D + D / 2 samples (the last call leaves samples short of a
 * frame) through a new engine in random chunks; checked against the reference.
 */
stream_result check_stream(const config& cfg,
                           const std::vector<float>& taps,
                           size_t frames,
                           uint32_t seed,
                           accuracy* worst = nullptr)
{
    engine e(cfg, taps);
    const size_t M = cfg.channels, D = cfg.decimation, N = frames * D + D / 2;
    BOOST_TEST(e.ch.channels() == M);
    BOOST_TEST(e.ch.decimation() == D);
    BOOST_TEST(e.ch.taps_per_branch() == (taps.size() + M - 1) / M);
    BOOST_TEST(e.ch.outputs() == cfg.map_or_all().size());
    const std::vector<cfloat> x = cfg.input_format == core::sample_format::fc32
                                      ? random_signal(N, seed)
                                      : random_integer_signal(N, cfg.input_format, seed);
    const frames_by_slot y =
        e.run(x, 0, random_chunks(N, D, e.ch.max_input_samples(), seed + 1));
    const accuracy a =
        check_frames(y,
                     wideband_reference::pfb_channelizer(
                         x, taps, cfg.channels, D, cfg.map_or_all(), 0, frames),
                     e.name());
    BOOST_TEST_MESSAGE(e.name() << ": " << format(a));
    if (worst)
        worst->merge(a);
    return { y, e.ch.fused(), e.ch.sliding(), e.ch.direct() };
}

} // namespace

// ---------------------------------------------------------------------------

/*
 * The sizes of the issue, each with r = 1, r = 2 where M is even and a rate
 * whose D does not divide M (r = M / D, e.g. 4/3; M = 1 and 2 have none, M = 3
 * and 5 also take D = 1), with K*M taps and with a count that is not a multiple
 * of M (the same K: no extra kernel build). All channels, random
 * chunks of at most 7 frames per call, on the fused path, which every smooth M
 * up to 4096 takes.
 */
BOOST_AUTO_TEST_CASE(accuracy_against_the_reference)
{
    struct size_case {
        size_t M;
        std::vector<size_t> decimations;
        size_t K, frames;
    };
    const size_case cases[] = {
        { 1, { 1 }, 5, 40 },
        { 2, { 2, 1 }, 4, 60 },
        { 3, { 3, 2, 1 }, 4, 60 },
        { 4, { 4, 2, 3 }, 5, 60 },
        { 5, { 5, 3, 1 }, 4, 60 },
        { 8, { 8, 4, 5 }, 6, 60 },
        { 16, { 16, 8, 12 }, 8, 60 },
        { 24, { 24, 12, 18 }, 6, 60 },
        { 64, { 64, 32, 48 }, 8, 50 },
        { 100, { 100, 50, 40 }, 5, 40 },
        { 256, { 256, 128, 192 }, 6, 30 },
        { 1024, { 1024, 512, 768 }, 8, 20 },
    };
    accuracy worst;
    uint32_t seed = 1000;
    for (const auto& sc : cases)
        for (size_t D : sc.decimations) {
            std::vector<size_t> tap_counts = { sc.K * sc.M };
            if (sc.M > 1)
                tap_counts.push_back(sc.K * sc.M - (sc.M + 1) / 2);
            for (size_t ntaps : tap_counts) {
                config cfg;
                cfg.channels = sc.M;
                cfg.decimation = D;
                cfg.max_input_samples = 7 * D;
                const bool fused =
                    check_stream(
                        cfg, random_taps(ntaps, seed), sc.frames, seed + 7, &worst)
                        .fused;
                BOOST_TEST(fused, "M=" << sc.M << " is not fused");
                seed += 10;
            }
        }
    BOOST_TEST_MESSAGE("worst over all sizes: " << format(worst));
}

/*
 * The unfused path (FIR kernel, fft_plan, gather) gives what the fused one does:
 * max_fused_channels = 1 forces it for smooth M; M = 37 and 74 (37 is no codelet
 * radix) always take it. Both layouts.
 */
BOOST_AUTO_TEST_CASE(fused_and_unfused_paths)
{
    accuracy worst;
    for (channel_layout layout :
         { channel_layout::channel_major, channel_layout::frame_major }) {
        // M = 24, r = 4/3: fused and unfused side by side.
        config cfg;
        cfg.channels = 24;
        cfg.decimation = 18;
        cfg.layout = layout;
        cfg.max_input_samples = 5 * 18;
        const std::vector<float> taps = random_taps(139, 21);
        const stream_result fused = check_stream(cfg, taps, 50, 22, &worst);
        cfg.max_fused_channels = 1;
        const stream_result unfused = check_stream(cfg, taps, 50, 22, &worst);
        BOOST_TEST(fused.fused);
        BOOST_TEST(!unfused.fused);
        // Both are within l2_bound of the reference, so of each other within twice it.
        check_frames(fused.frames, unfused.frames, "M=24 fused vs unfused", 2 * l2_bound);

        // Non-smooth M: unfused without being told.
        const std::tuple<size_t, size_t, size_t> odd_sizes[] = { { 37, 37, 120 },
                                                                 { 37, 6, 51 },
                                                                 { 74, 37, 200 } };
        for (auto [M, D, ntaps] : odd_sizes) {
            config odd;
            odd.channels = M;
            odd.decimation = D;
            odd.layout = layout;
            odd.max_input_samples = 6 * D;
            BOOST_TEST(
                !check_stream(odd, random_taps(ntaps, 30 + M + D), 50, 31 + D, &worst)
                     .fused,
                "M=" << M << " is fused");
        }
    }
    // Larger unfused transforms, M not a multiple of the FIR's 64-wide groups.
    const std::pair<size_t, size_t> large_sizes[] = { { 100, 40 }, { 256, 192 } };
    for (auto [M, D] : large_sizes) {
        config cfg;
        cfg.channels = M;
        cfg.decimation = D;
        cfg.max_fused_channels = 1;
        cfg.max_input_samples = 6 * D;
        check_stream(cfg, random_taps(5 * M - 3, 40 + M), 30, 41 + M, &worst);
    }
    BOOST_TEST_MESSAGE("worst: " << format(worst));
}

/*
 * The stream through cfg's path and through the fused per-frame kernel, each
 * against the reference and the two against each other (both within l2_bound
 * of the reference, so within twice it of each other). Returns cfg's.
 */
stream_result check_beside_per_frame(config cfg,
                                     const std::vector<float>& taps,
                                     size_t frames,
                                     uint32_t seed,
                                     accuracy* worst,
                                     const std::string& what)
{
    const stream_result result = check_stream(cfg, taps, frames, seed, worst);
    cfg.max_fused_channels = 0;
    cfg.history = core::pfb_channelizer_options::history_mode::per_frame;
    const stream_result per_frame = check_stream(cfg, taps, frames, seed, worst);
    BOOST_TEST((per_frame.fused && !per_frame.sliding));
    check_frames(result.frames, per_frame.frames, what + " vs per-frame", 2 * l2_bound);
    return result;
}

/*
 * The unfused path where D divides M (pfb_fir_sliding: each branch's history in
 * a work-item) against the reference and the fused per-frame kernel: calls of
 * hundreds of frames, so that a call has many runs of frames, r = 1 and r = 2
 * with K = 16, both layouts, all channels in order (frame-major: the FFT writes
 * the output itself) and a map with a repeated channel, integer input.
 */
BOOST_AUTO_TEST_CASE(sliding_fir_pass)
{
    accuracy worst;
    const std::tuple<size_t, size_t, size_t> sizes[] = { { 64, 32, 16 * 64 - 5 },
                                                         { 48, 48, 8 * 48 } };
    for (auto [M, D, ntaps] : sizes)
        for (channel_layout layout :
             { channel_layout::channel_major, channel_layout::frame_major })
            for (bool all : { true, false }) {
                config cfg;
                cfg.channels = M;
                cfg.decimation = D;
                cfg.layout = layout;
                if (!all)
                    cfg.map = { 3, 0, M - 1, 3 };
                cfg.max_direct_channels = 0;
                cfg.max_input_samples = 700 * D;
                const std::vector<float> taps = random_taps(ntaps, 60 + M);
                cfg.max_fused_channels = 1;
                BOOST_TEST(!check_beside_per_frame(
                                cfg, taps, 1500, 61 + M, &worst, "M=" + std::to_string(M))
                                .fused);
                cfg.input_format = core::sample_format::sc16;
                check_stream(cfg, taps, 200, 62 + M, &worst);
            }
    BOOST_TEST_MESSAGE("worst: " << format(worst));
}

/*
 * The fused kernel with a sliding history (D divides M) against the one that
 * reads every frame's samples: calls of hundreds of frames, so that runs of
 * frames span several work-groups and end mid-step; r = 1 with
 * K = 16 and r = 2 (the history spans 2K - 1 frames), both layouts, a map
 * with a repeated channel.
 */
BOOST_AUTO_TEST_CASE(sliding_and_per_frame_kernels)
{
    accuracy worst;
    const std::tuple<size_t, size_t, size_t> sizes[] = { { 64, 64, 16 * 64 - 5 },
                                                         { 16, 8, 8 * 16 } };
    for (auto [M, D, ntaps] : sizes)
        for (channel_layout layout :
             { channel_layout::channel_major, channel_layout::frame_major }) {
            config cfg;
            cfg.channels = M;
            cfg.decimation = D;
            cfg.layout = layout;
            cfg.map = { 3, 0, M - 1, 3 };
            cfg.max_direct_channels = 0;
            cfg.max_input_samples = 900 * D;
            const std::vector<float> taps = random_taps(ntaps, 50 + M);
            using mode = core::pfb_channelizer_options::history_mode;
            cfg.history = mode::sliding;
            BOOST_TEST(check_beside_per_frame(
                           cfg, taps, 2000, 51 + M, &worst, "M=" + std::to_string(M))
                           .sliding,
                       "M=" << M << " D=" << D << " is not sliding");
            // integers, converted as the sliding kernel reads them
            cfg.history = mode::sliding;
            cfg.input_format = core::sample_format::sc8;
            BOOST_TEST(check_stream(cfg, taps, 300, 52 + M, &worst).sliding);
        }
    BOOST_TEST_MESSAGE("worst: " << format(worst));
}

/*
 * The direct kernel (a few channels as rotated sums, no FFT) against the
 * reference and the FFT path: one channel (a decimator's), two and four with a
 * repeated one, both layouts (frame-major where there are several); M = 2, small M with
 * many runs per work-group, M = 100 (a reduction over a non-power of two), and M = 512 in
 * calls of 16 frames, whose branches split over work-groups (the partial sums' kernel);
 * r = 1 and 2, K * r = 32 (the most it takes), integer input, random chunks.
 */
BOOST_AUTO_TEST_CASE(direct_and_fft_paths)
{
    accuracy worst;
    struct direct_case {
        size_t M, D, ntaps, frames, max_frames;
        std::vector<size_t> map;
    };
    const direct_case cases[] = {
        { 2, 2, 7, 300, 40, { 1 } },
        { 4, 4, 16 * 4 - 1, 600, 300, { 1 } },
        { 4, 2, 8 * 4, 400, 70, { 3, 0 } },
        { 16, 16, 32 * 16, 300, 100, { 5 } },
        { 100, 100, 8 * 100 - 13, 120, 33, { 99, 1, 50, 1 } },
        { 512, 512, 6 * 512, 60, 16, { 7 } },
        { 512, 256, 5 * 512 - 100, 60, 16, { 300, 2 } },
    };
    uint32_t seed = 700;
    for (const direct_case& dc : cases)
        for (channel_layout layout :
             { channel_layout::channel_major, channel_layout::frame_major }) {
            // frame-major vectors where there are several slots
            if (layout == channel_layout::frame_major && dc.map.size() == 1)
                continue;
            config cfg;
            cfg.channels = dc.M;
            cfg.decimation = dc.D;
            cfg.layout = layout;
            cfg.map = dc.map;
            cfg.max_input_samples = dc.max_frames * dc.D;
            const std::vector<float> taps = random_taps(dc.ntaps, seed);
            const stream_result direct =
                check_stream(cfg, taps, dc.frames, seed + 1, &worst);
            cfg.max_direct_channels = 0;
            const stream_result fft =
                check_stream(cfg, taps, dc.frames, seed + 1, &worst);
            BOOST_TEST(direct.direct, "M=" << dc.M << " D=" << dc.D << " is not direct");
            BOOST_TEST(!fft.direct);
            check_frames(direct.frames,
                         fft.frames,
                         "M=" + std::to_string(dc.M) + " direct vs FFT",
                         2 * l2_bound);
            seed += 10;
        }
    // Integers, converted as the direct kernel reads them.
    config cfg;
    cfg.channels = 8;
    cfg.decimation = 4;
    cfg.map = { 6 };
    cfg.max_input_samples = 50 * 4;
    cfg.input_format = core::sample_format::sc16;
    BOOST_TEST(check_stream(cfg, random_taps(8 * 9, 790), 300, 791, &worst).direct);
    // Beyond what it unrolls (K * r = 34), or D not dividing M: the FFT.
    cfg.input_format = core::sample_format::fc32;
    BOOST_TEST(!check_stream(cfg, random_taps(8 * 17, 792), 100, 793, &worst).direct);
    cfg.decimation = 3;
    cfg.max_input_samples = 50 * 3;
    BOOST_TEST(!check_stream(cfg, random_taps(8 * 4, 794), 100, 795, &worst).direct);
    BOOST_TEST_MESSAGE("worst: " << format(worst));
}

/*
 * Complex int16 and int8 input over the types' whole range, taken as its
 * values: on the fused and the unfused path (the conversion is in each's first
 * kernel), both layouts, random chunks; the window holds the integers, and the
 * engine never runs them in place.
 */
BOOST_AUTO_TEST_CASE(integer_inputs)
{
    accuracy worst;
    for (core::sample_format input_format :
         { core::sample_format::sc16, core::sample_format::sc8 })
        for (size_t max_fused : { 0, 1 }) {
            config cfg;
            cfg.channels = 24;
            cfg.decimation = 18;
            cfg.layout =
                max_fused ? channel_layout::channel_major : channel_layout::frame_major;
            cfg.max_input_samples = 5 * 18;
            cfg.max_fused_channels = max_fused;
            cfg.input_format = input_format;
            const stream_result r =
                check_stream(cfg, random_taps(139, 21), 50, 22, &worst);
            BOOST_TEST(r.fused == !max_fused);
            BOOST_TEST(!engine(cfg, random_taps(139, 21)).ch.runs_in_place());
        }
    BOOST_TEST_MESSAGE("worst: " << format(worst));
}

/*
 * Channel maps: one channel, a subset out of order, duplicates, all channels
 * reversed with extra duplicates; on both paths in both layouts. Then maps
 * changed between calls: the frames continue, each under the map of its call.
 */
BOOST_AUTO_TEST_CASE(channel_maps)
{
    const size_t M = 16, D = 8;
    const std::vector<float> taps = random_taps(61, 50);
    const std::vector<size_t> all = all_channels(M);
    std::vector<size_t> reversed(all.rbegin(), all.rend());
    reversed.push_back(0);
    reversed.push_back(15);
    reversed.push_back(0);
    const std::vector<std::vector<size_t>> maps = {
        { 3 }, { 5, 0, 15, 8, 1 }, { 2, 2, 7, 2 }, reversed
    };
    uint32_t seed = 60;
    for (size_t max_fused : { 0, 1 })
        for (channel_layout layout :
             { channel_layout::channel_major, channel_layout::frame_major }) {
            config cfg;
            cfg.channels = M;
            cfg.decimation = D;
            cfg.layout = layout;
            cfg.max_fused_channels = max_fused;
            cfg.max_input_samples = 6 * D;
            for (const auto& map : maps) {
                cfg.map = map;
                check_stream(cfg, taps, 40, ++seed);
            }

            // Map changes between calls, with samples short of a frame pending.
            engine e(cfg, taps); // the last map
            const size_t N = 60 * D + 3;
            const std::vector<cfloat> x = random_signal(N, ++seed);
            const std::vector<std::vector<size_t>> sequence = {
                maps[3], maps[0], maps[2], {}, maps[1]
            };
            const size_t part = N / sequence.size();
            size_t begin = 0, first_frame = 0;
            for (size_t i = 0; i < sequence.size(); ++i) {
                if (i > 0)
                    e.ch.set_channel_map(sequence[i]);
                const std::vector<size_t> map =
                    sequence[i].empty() ? all_channels(M) : sequence[i];
                BOOST_TEST(e.ch.channel_map() == map);
                BOOST_TEST(e.ch.outputs() == map.size());
                const size_t n = i + 1 < sequence.size() ? part + i : N - begin;
                const frames_by_slot y =
                    e.run(x, begin, random_chunks(n, D, 6 * D, ++seed));
                begin += n;
                const size_t frames = begin / D - first_frame;
                check_frames(y,
                             wideband_reference::pfb_channelizer(
                                 x, taps, M, D, map, first_frame, frames),
                             e.name() + ", map change " + std::to_string(i));
                first_frame += frames;
            }
        }
}

/*
 * Map changes that move a GPU's engine between the separate passes (every
 * channel of M = 1024, K = 16, r = 2, whose branch histories do not fit a
 * work-group) and the fused kernel (20 channels: it computes only those); on
 * other devices the same stream through the fused kernel alone.
 */
BOOST_AUTO_TEST_CASE(map_changes_between_passes_and_fused)
{
    const size_t M = 1024, D = 512;
    const std::vector<float> taps = random_taps(16 * M, 55);
    std::vector<size_t> twenty;
    for (size_t c = 0; c < 20; ++c)
        twenty.push_back((c * 211) % M);
    config cfg;
    cfg.channels = M;
    cfg.decimation = D;
    cfg.max_direct_channels = 0;
    cfg.max_input_samples = 16 * D;
    engine e(cfg, taps);
    const size_t N = 48 * D + 5;
    const std::vector<cfloat> x = random_signal(N, 56);
    const std::vector<std::vector<size_t>> sequence = { {}, twenty, {} };
    size_t begin = 0, first_frame = 0;
    for (size_t i = 0; i < sequence.size(); ++i) {
        if (i > 0)
            e.ch.set_channel_map(sequence[i]);
        const std::vector<size_t> map =
            sequence[i].empty() ? all_channels(M) : sequence[i];
        const size_t n = i + 1 < sequence.size() ? N / 3 : N - begin;
        BOOST_TEST_MESSAGE(e.name() << (e.ch.fused() ? ": fused" : ": passes") << ", "
                                    << map.size() << " channels");
        // the engine's rule on a GPU: the passes from M / 16 mapped channels on
        if (context()->info().local_mem_is_dedicated)
            BOOST_TEST(e.ch.fused() == (16 * map.size() < M),
                       map.size() << " channels: fused " << e.ch.fused());
        const frames_by_slot y = e.run(x, begin, random_chunks(n, D, 16 * D, 57 + i));
        begin += n;
        const size_t frames = begin / D - first_frame;
        check_frames(
            y,
            wideband_reference::pfb_channelizer(x, taps, M, D, map, first_frame, frames),
            e.name() + ", map change " + std::to_string(i));
        first_frame += frames;
    }
}

/*
 * Any split of the stream into calls gives the output of one call: calls of
 * exactly max_input_samples, of 0, 1, fewer than D, D, D + 1 samples, random
 * ones, one sample at a time. Each output is computed by the same arithmetic
 * whatever call it falls in, so the chunkings agree bit for bit.
 */
BOOST_AUTO_TEST_CASE(chunkings_agree)
{
    const size_t M = 24, D = 18, max = 5 * D;
    const std::vector<float> taps = random_taps(139, 70);
    const size_t N = 4 * max + 7;
    const std::vector<cfloat> x = random_signal(N, 71);
    for (size_t max_fused : { 0, 1 })
        for (channel_layout layout :
             { channel_layout::channel_major, channel_layout::frame_major }) {
            config cfg;
            cfg.channels = M;
            cfg.decimation = D;
            cfg.layout = layout;
            cfg.max_fused_channels = max_fused;
            cfg.max_input_samples = (N / D + 1) * D;
            engine whole(cfg, taps);
            const frames_by_slot one_call = whole.run(x, 0, { N });
            check_frames(one_call,
                         wideband_reference::pfb_channelizer(
                             x, taps, M, D, all_channels(M), 0, N / D),
                         whole.name() + ", one call");

            cfg.max_input_samples = max;
            const std::vector<std::pair<std::string, std::vector<size_t>>> chunkings = {
                { "max_input_samples", fixed_chunks(N, max) },
                { "edge sizes", edge_chunks(N, D, max) },
                { "random 1", random_chunks(N, D, max, 72) },
                { "random 2", random_chunks(N, D, max, 73) },
                { "one sample", fixed_chunks(N, 1) },
                { "D - 1", fixed_chunks(N, D - 1) },
            };
            for (const auto& [name, chunks] : chunkings) {
                engine e(cfg, taps);
                check_identical(e.run(x, 0, chunks),
                                one_call,
                                e.name() + ", " + name + " vs one call");
            }
        }
}

/*
 * set_taps() between calls. What the engine promises: the frames of every call
 * after set_taps() are computed with the new taps, frame numbering and
 * commutator phase continue, and the history kept is the K_old*M - D samples
 * up to the end of the last frame computed (what the old taps needed for the
 * next frame) plus any samples short of a frame. With the same or fewer taps per branch
 * that is the whole history the new taps need: those frames equal the reference of the
 * whole stream with the new taps. When K grows, older samples are taken as zero: the
 * frames equal the reference of the stream with samples before
 * (q0 + 1) D - K_old M zeroed, q0 the first frame after the change (and any
 * earlier such zeroing stays in force).
 *
 * Used as the header says: set_taps(), write at input_region(), enqueue().
 * The variant with an empty call right after set_taps() applies the change
 * before any samples are written.
 */
BOOST_AUTO_TEST_CASE(set_taps_between_calls)
{
    const size_t M = 16, D = 12;
    // K: 3, 3 (another length), 2, 4, 3
    const std::vector<std::vector<float>> taps = { random_taps(40, 80),
                                                   random_taps(48, 81),
                                                   random_taps(25, 82),
                                                   random_taps(57, 83),
                                                   random_taps(35, 84) };
    const size_t N = 50 * D * taps.size() + 5;
    const std::vector<cfloat> x = random_signal(N, 85);
    for (size_t max_fused : { 0, 1 })
        for (bool empty_call_first : { false, true }) {
            config cfg;
            cfg.channels = M;
            cfg.decimation = D;
            cfg.max_fused_channels = max_fused;
            cfg.max_input_samples = 6 * D;
            engine e(cfg, taps[0]);
            const std::string name =
                e.name() + (empty_call_first ? ", empty call after set_taps" : "");
            size_t begin = 0, first_frame = 0, zero_before = 0;
            size_t K = e.ch.taps_per_branch();
            uint32_t seed = 86;
            for (size_t i = 0; i < taps.size(); ++i) {
                const size_t new_k = (taps[i].size() + M - 1) / M;
                if (i > 0) {
                    e.ch.set_taps(taps[i]);
                    BOOST_TEST(e.ch.taps() == taps[i]);
                    if (new_k > K && (first_frame + 1) * D > K * M)
                        zero_before =
                            std::max(zero_before, (first_frame + 1) * D - K * M);
                    if (empty_call_first)
                        e.call(x.data() + begin, 0);
                }
                // Parts that end short of a frame, some by more than half of it.
                const size_t n = i + 1 < taps.size() ? 50 * D + 7 * i : N - begin;
                const frames_by_slot y =
                    e.run(x, begin, random_chunks(n, D, 6 * D, ++seed));
                BOOST_TEST(e.ch.taps_per_branch() == new_k);
                K = new_k;
                begin += n;
                const size_t frames = begin / D - first_frame;
                check_frames(y,
                             wideband_reference::pfb_channelizer(x,
                                                                 taps[i],
                                                                 M,
                                                                 D,
                                                                 all_channels(M),
                                                                 first_frame,
                                                                 frames,
                                                                 zero_before),
                             name + ", taps " + std::to_string(i) +
                                 " (K=" + std::to_string(new_k) + ")");
                first_frame += frames;
            }
        }
}

// reset(): the output afterwards is a fresh engine's, bit for bit.
BOOST_AUTO_TEST_CASE(reset_restarts_the_stream)
{
    const size_t M = 16, D = 12;
    const std::vector<float> taps = random_taps(40, 90);
    const std::vector<cfloat> before = random_signal(20 * D + 5, 91);
    const std::vector<cfloat> after = random_signal(30 * D + 4, 92);
    const std::vector<size_t> chunks = random_chunks(after.size(), D, 6 * D, 93);
    for (size_t max_fused : { 0, 1 }) {
        config cfg;
        cfg.channels = M;
        cfg.decimation = D;
        cfg.max_fused_channels = max_fused;
        cfg.max_input_samples = 6 * D;
        engine fresh(cfg, taps);
        const frames_by_slot expected = fresh.run(after, 0, chunks);
        check_frames(expected,
                     wideband_reference::pfb_channelizer(
                         after, taps, M, D, all_channels(M), 0, after.size() / D),
                     fresh.name() + ", fresh");

        engine e(cfg, taps);
        e.ch.reset(); // on a fresh engine: nothing changes
        e.run(before, 0, random_chunks(before.size(), D, 6 * D, 94));
        e.ch.reset();
        BOOST_TEST(e.ch.frames_for(D - 1) == 0); // the short samples are gone too
        check_identical(e.run(after, 0, chunks), expected, e.name() + ", after reset");
    }
}

/*
 * reset() right after an enqueue() whose work has not run yet (it waits on a
 * user event, as it may wait on an upload on another queue or simply not have
 * run yet on a GPU): the stream after the reset must still start from zero
 * history. Everything else the engine does is ordered on the caller's queue;
 * reset() zeroes the history on a queue of its own at once.
 */
BOOST_AUTO_TEST_CASE(reset_after_pending_work)
{
    const size_t M = 16, D = 12;
    const std::vector<float> taps = random_taps(40, 95);
    const std::vector<cfloat> before = random_signal(5 * D + 3, 96);
    const std::vector<cfloat> after = random_signal(20 * D, 97);
    config cfg;
    cfg.channels = M;
    cfg.decimation = D;
    cfg.max_input_samples = 6 * D;

    engine e(cfg, taps);
    const auto region = e.ch.input_region();
    queue().enqueueWriteBuffer(region.buffer,
                               CL_TRUE,
                               region.offset * sizeof(cfloat),
                               before.size() * sizeof(cfloat),
                               before.data());
    cl::UserEvent gate(context()->context());
    cl::Buffer out(context()->context(),
                   CL_MEM_READ_WRITE,
                   M * e.ch.frames_for(before.size()) * sizeof(cfloat));
    const auto result = e.ch.enqueue(
        queue(), before.size(), out, e.ch.frames_for(before.size()), { gate });
    e.ch.reset();
    gate.setStatus(CL_COMPLETE);
    result.done.wait();
    check_frames(e.run(after, 0, fixed_chunks(after.size(), 6 * D)),
                 wideband_reference::pfb_channelizer(
                     after, taps, M, D, all_channels(M), 0, after.size() / D),
                 e.name() + ", reset while the previous call was pending");
}

// What the engine rejects, with a message naming the problem.
BOOST_AUTO_TEST_CASE(invalid_options_and_calls)
{
    const size_t M = 16, D = 8;
    const std::vector<float> taps = random_taps(50, 100);
    config cfg;
    cfg.channels = M;
    cfg.decimation = D;
    const auto construct = [&](core::pfb_channelizer_options o) {
        return [o] { core::pfb_channelizer ch(context(), o); };
    };
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();

    check_rejected([&] { core::pfb_channelizer ch(nullptr, make_options(cfg, taps)); },
                   { "context" });
    core::pfb_channelizer_options o = make_options(cfg, taps);
    o.channels = 0;
    check_rejected(construct(o), { "channels" });
    o = make_options(cfg, {});
    check_rejected(construct(o), { "taps" });
    for (float bad : { nan, inf }) {
        std::vector<float> t = taps;
        t[7] = bad;
        check_rejected(construct(make_options(cfg, t)), { "taps" });
    }
    // r = 0, 16/3 (not an integer), 32 (D < 1), negative, NaN
    for (double rate : { 0.0, 3.0, 32.0, -2.0, double(nan) }) {
        o = make_options(cfg, taps);
        o.oversample_rate = rate;
        check_rejected(construct(o), { "oversample_rate" });
    }
    o = make_options(cfg, taps);
    o.channel_map = { 1, 16, 2 };
    check_rejected(construct(o), { "channel", "16" });
    // Beyond the limits: channels, and buffers the device cannot hold (checked
    // before anything is allocated).
    o = make_options(cfg, taps);
    o.channels = core::pfb_channelizer_options::max_channels + 1;
    o.oversample_rate = 1;
    check_rejected(construct(o), { "channels must be 1..16777216" });
    o = make_options(cfg, taps);
    o.max_input_samples = size_t(1) << 40;
    check_rejected(construct(o), { "input window", "allocates at most" });
    core::device_info small = context()->info();
    small.max_alloc_bytes = 1 << 16; // 8192 samples
    o = make_options(cfg, taps);
    o.max_input_samples = 1024;
    BOOST_CHECK_NO_THROW(core::pfb_channelizer::check_fits(small, o));
    o.taps.assign(1 << 14, 0.5f); // 64 KiB of taps, a window of 2^14 + 2^11 samples
    check_rejected([&] { core::pfb_channelizer::check_fits(small, o); },
                   { "input window", "allocates at most 65536" });
    o.taps = taps;
    o.max_input_samples = 1 << 15;
    check_rejected([&] { core::pfb_channelizer::check_fits(small, o); },
                   { "input window" });
    o.max_input_samples = 0; // the default, 2^20
    check_rejected([&] { core::pfb_channelizer::check_fits(small, o); },
                   { "pfb_channelizer (16 channels, 4 taps per branch)" });

    // A valid engine: calls it rejects, each leaving it as it was.
    cfg.max_input_samples = 4 * D;
    engine e(cfg, taps);
    check_rejected([&] { e.ch.set_taps({}); }, { "taps" });
    check_rejected([&] { e.ch.set_taps({ 1.0f, nan }); }, { "taps" });
    check_rejected([&] { e.ch.set_channel_map({ 0, 17 }); }, { "channel", "17" });
    BOOST_TEST(e.ch.taps() == taps);
    BOOST_TEST(e.ch.outputs() == M);

    const size_t max = e.ch.max_input_samples();
    BOOST_TEST(max == 4 * D);
    const size_t frames = e.ch.frames_for(max);
    const auto buffer = [](size_t elements) {
        return cl::Buffer(
            context()->context(), CL_MEM_READ_WRITE, elements * sizeof(cfloat));
    };
    check_rejected([&] { e.ch.enqueue(queue(), max + 1, buffer(M * 8 * D), 8 * D); },
                   { "max_input_samples" });
    // channel-major: (M - 1) * row_stride + frames elements
    check_rejected(
        [&] {
            e.ch.enqueue(queue(), max, buffer((M - 1) * frames + frames - 1), frames);
        },
        { "output" });
    check_rejected([&] { e.ch.enqueue(queue(), max, buffer(M * frames), frames - 1); },
                   { "row_stride" });
    config fm = cfg;
    fm.layout = channel_layout::frame_major;
    engine f(fm, taps);
    check_rejected([&] { f.ch.enqueue(queue(), max, buffer(M * frames - 1), 0); },
                   { "output" });

    // After the rejected calls, the streams are untouched.
    const std::vector<cfloat> x = random_signal(30 * D + 3, 101);
    for (engine* t : { &e, &f })
        check_frames(t->run(x, 0, random_chunks(x.size(), D, max, 102)),
                     wideband_reference::pfb_channelizer(
                         x, taps, M, D, all_channels(M), 0, x.size() / D),
                     t->name() + ", after rejected calls");

    // Buffers of exactly the size a call writes are accepted.
    for (engine* t : { &e, &f }) {
        const size_t n = t->ch.max_input_samples(), frames = t->ch.frames_for(n);
        BOOST_CHECK_NO_THROW(
            t->ch.enqueue(queue(), n, buffer(M * frames), frames).done.wait());
    }
}

namespace {

// Frames [from, to) of every slot.
template <typename T>
std::vector<std::vector<T>>
frames_between(const std::vector<std::vector<T>>& y, size_t from, size_t to)
{
    std::vector<std::vector<T>> part;
    for (const auto& slot : y)
        part.emplace_back(slot.begin() + from, slot.begin() + to);
    return part;
}

void append_frames(frames_by_slot& y, const frames_by_slot& more)
{
    for (size_t s = 0; s < y.size(); ++s)
        y[s].insert(y[s].end(), more[s].begin(), more[s].end());
}

} // namespace

/*
 * A failure while the settings change (a kernel build, WIDEBAND_FAULT=build) or
 * while a call is enqueued (WIDEBAND_FAULT=enqueue:1) leaves the engine as it
 * was: the same settings, and the stream goes on from the same sample when the
 * call is made again. Fused and unfused.
 */
BOOST_AUTO_TEST_CASE(failures_leave_the_engine_as_it_was)
{
    const size_t M = 16, D = 8, max = 64 * D;
    const std::vector<float> taps = random_taps(3 * M - 5, 120);
    const std::vector<cfloat> x = random_signal(200 * D + 5, 121);
    const size_t half = 100 * D + 3;
    config cfg;
    cfg.channels = M;
    cfg.decimation = D;
    cfg.map = { 2, 9, 9 };
    cfg.max_input_samples = max;
    for (size_t max_fused : { 0, 1 }) {
        cfg.max_fused_channels = max_fused;
        // A context of its own, whose program cache holds only what this
        // engine built: the new taps' kernels must be built, and fail.
        engine e(cfg,
                 taps,
                 std::make_shared<core::device_context>(context()->info(),
                                                        context()->device()));
        frames_by_slot y = e.run(x, 0, random_chunks(half, D, max, 122));
        {
            const scoped_env fault("WIDEBAND_FAULT", "build");
            // 13 taps per branch: new kernels
            BOOST_CHECK_THROW(e.ch.set_taps(random_taps(13 * M, 123)),
                              std::runtime_error);
        }
        BOOST_TEST(e.ch.taps() == taps);
        BOOST_TEST(e.ch.taps_per_branch() == 3u);
        BOOST_TEST(e.ch.channel_map() == cfg.map);
        {
            const scoped_env fault("WIDEBAND_FAULT", "enqueue:1");
            BOOST_CHECK_THROW(e.call(x.data() + half, 5 * D), cl::Error);
        }
        append_frames(y, e.run(x, half, random_chunks(x.size() - half, D, max, 124)));
        check_frames(
            y,
            wideband_reference::pfb_channelizer(x, taps, M, D, cfg.map, 0, x.size() / D),
            e.name() + ", after a failed set_taps and a failed call");
    }
}

/*
 * A NaN/Inf burst in the input spoils at most the frames whose filter reads
 * part of it (samples (q+1) D - ntaps .. (q+1) D - 1 for frame q), every
 * channel of them, as the FFT mixes the branches; the frames before and every
 * frame once the burst has left the history are finite and right: the state
 * never stays poisoned. Fused and unfused, the burst at the end of a call (the
 * history carries it) or wherever random calls put it.
 */
BOOST_AUTO_TEST_CASE(non_finite_burst_leaves_no_trace)
{
    const size_t M = 16, D = 8, max = 64 * D;
    const std::vector<float> taps = random_taps(4 * M - 3, 130);
    const size_t L = taps.size();
    std::vector<cfloat> x = random_signal(300 * D + 3, 131);
    std::vector<cfloat> clean = x;
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const cfloat burst[] = { { nan, 0.5f }, { inf, -inf }, { 0.25f, inf }, { nan, nan } };
    const size_t first_call = 120 * D + 5, b0 = first_call - std::size(burst),
                 b1 = first_call - 1;
    for (size_t i = 0; i < std::size(burst); ++i) {
        x[b0 + i] = burst[i];
        clean[b0 + i] = 0;
    }
    const size_t frames = x.size() / D;
    const reference_frames ref = wideband_reference::pfb_channelizer(
        clean, taps, M, D, all_channels(M), 0, frames);
    const size_t dirty_from = (b0 + 1 + D - 1) / D - 1; // (q+1) D - 1 >= b0
    const size_t clean_from = (b1 + L) / D;             // (q+1) D - L > b1
    std::vector<size_t> at_call_end = edge_chunks(x.size() - first_call, D, max);
    at_call_end.insert(at_call_end.begin(), first_call);

    config cfg;
    cfg.channels = M;
    cfg.decimation = D;
    cfg.max_input_samples = (first_call + D - 1) / D * D; // whole frames
    for (size_t max_fused : { 0, 1 })
        for (const auto& chunks : { at_call_end, random_chunks(x.size(), D, max, 132) }) {
            cfg.max_fused_channels = max_fused;
            engine e(cfg, taps);
            const frames_by_slot y = e.run(x, 0, chunks);
            size_t non_finite = 0;
            for (const auto& slot : y)
                for (size_t q = dirty_from; q < clean_from; ++q)
                    non_finite +=
                        !(std::isfinite(slot[q].real()) && std::isfinite(slot[q].imag()));
            BOOST_TEST(non_finite > 0, e.name() << ": the burst reached no output");
            check_frames(frames_between(y, 0, dirty_from),
                         frames_between(ref, 0, dirty_from),
                         e.name() + ", frames before the burst");
            check_frames(frames_between(y, clean_from, frames),
                         frames_between(ref, clean_from, frames),
                         e.name() + ", frames after the burst");
            BOOST_TEST_MESSAGE(e.name() << ": burst at " << b0 << ".." << b1 << ", "
                                        << non_finite << " non-finite outputs in frames "
                                        << dirty_from << ".." << clean_from - 1);
        }
}

/*
 * stream_engine::run(): compact output (channel-major rows of the call's frames,
 * or frame-major vectors) from element 0 on, never beyond max_output_elements(),
 * the same frames as enqueue(); also after a map change to more outputs.
 */
BOOST_AUTO_TEST_CASE(stream_engine_run)
{
    const size_t M = 16, D = 12;
    const std::vector<float> taps = random_taps(40, 110);
    const std::vector<cfloat> x = random_signal(40 * D + 5, 111);
    const std::vector<size_t> first = random_chunks(20 * D + 1, D, 6 * D, 112);
    const std::vector<size_t> second =
        random_chunks(x.size() - 20 * D - 1, D, 6 * D, 113);
    const std::vector<size_t> larger_map = { 3, 3, 15, 0,  7,  8,  9,  1,  2,
                                             4, 5, 6,  10, 11, 12, 13, 14, 0 };
    for (channel_layout layout :
         { channel_layout::channel_major, channel_layout::frame_major }) {
        config cfg;
        cfg.channels = M;
        cfg.decimation = D;
        cfg.layout = layout;
        cfg.map = { 5, 1 };
        cfg.max_input_samples = 6 * D;
        engine by_enqueue(cfg, taps), by_run(cfg, taps);
        by_run.through_run = true;
        BOOST_TEST(by_run.ch.max_output_elements() == 6 * 2);
        const frames_by_slot a = by_enqueue.run(x, 0, first);
        check_identical(by_run.run(x, 0, first), a, by_run.name() + ", run()");
        check_frames(a,
                     wideband_reference::pfb_channelizer(
                         x, taps, M, D, cfg.map, 0, (20 * D + 1) / D),
                     by_enqueue.name());

        for (engine* e : { &by_enqueue, &by_run })
            e->ch.set_channel_map(larger_map);
        BOOST_TEST(by_run.ch.max_output_elements() == 6 * larger_map.size());
        check_identical(by_run.run(x, 20 * D + 1, second),
                        by_enqueue.run(x, 20 * D + 1, second),
                        by_run.name() + ", run() after a map change");
    }
}
