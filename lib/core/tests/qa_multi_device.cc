/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * multi_device_pipeline: a stream split over several engines (one per device,
 * chunks in turn) must give the output of one engine behind one
 * stream_pipeline, chunk by chunk, for the channelizer and the FFT filter:
 * channel counts, oversampling (r = 1, 2 and 16/12), channel subsets in both
 * layouts, taps that are and are not a multiple of M, real and complex filter
 * taps, decimation, many chunks of random sizes (0, 1, < D, the maximum), and
 * set_taps() (longer and shorter histories) and set_channel_map() between
 * chunks. The engines' correctness against float64 references is their own
 * tests' job; this one compares the split with the single stream.
 *
 * Devices: those "" names, i.e. WIDEBAND_DEVICE (ctest sets "cpu:all" with
 * PoCL's two pthread devices). With fewer devices than engines the devices
 * repeat, so the split is exercised on one device too.
 */

#define BOOST_TEST_MODULE qa_multi_device
#include <boost/test/unit_test.hpp>

#include "conv_check.h"
#include "stream_chunks.h"

#include <gnuradio/wideband/core/arb_resampler.h>
#include <gnuradio/wideband/core/fft_filter.h>
#include <gnuradio/wideband/core/fft_stream.h>
#include <gnuradio/wideband/core/multi_device_pipeline.h>
#include <gnuradio/wideband/core/pfb_channelizer.h>

#include <map>
#include <memory>
#include <random>

using namespace conv_check;

namespace {

constexpr size_t depth = 2; // the blocks'
// Per element, relative to the single stream's rms: split and single compute
// each output from the same samples in the same kernel, so they agree to
// rounding at most (bit for bit where the devices are alike).
constexpr double tolerance = 1e-6;

const std::vector<core::device_context::sptr>& devices()
{
    static const auto all = core::device_context::get_all("");
    return all;
}

// The context of each of `engines` engines: the devices in turn.
std::vector<core::device_context::sptr> contexts_for(size_t engines)
{
    std::vector<core::device_context::sptr> contexts;
    for (size_t i = 0; i < engines; ++i)
        contexts.push_back(devices()[i % devices().size()]);
    return contexts;
}

// Logs the devices, the time and the kernels built (what the run time is).
struct device_report {
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    void setup()
    {
        for (const auto& d : devices())
            BOOST_TEST_MESSAGE("device " << d->info().address() << ": "
                                         << d->info().name);
    }
    void teardown()
    {
        size_t compiled = 0, loaded = 0;
        for (const auto& d : devices()) {
            compiled += d->compilations();
            loaded += d->disk_cache_loads();
        }
        BOOST_TEST_MESSAGE(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
                .count()
            << " s; " << compiled << " kernel programs compiled, " << loaded
            << " loaded from the disk cache, on " << devices().size() << " devices");
    }
};

} // namespace

BOOST_TEST_GLOBAL_FIXTURE(device_report);

namespace {

// A stream, its chunks, and the settings changes before some chunks (applied
// to the single engine and to every split engine alike).
template <class Engine>
struct stream_case {
    std::function<std::unique_ptr<Engine>(core::device_context::sptr)> make;
    std::vector<cfloat> input;
    std::vector<size_t> chunks;
    std::map<size_t, std::function<void(Engine&)>> before_chunk;
};

struct stream_output {
    std::vector<cfloat> samples;  // the chunks' outputs, in order
    std::vector<size_t> elements; // per chunk
};

// Drives a pipeline as the blocks do: submits while a slot is free, else takes
// the oldest chunk's output.
template <class Pipeline, class Engine>
stream_output run_stream(Pipeline& pipeline,
                         const std::vector<Engine*>& engines,
                         const stream_case<Engine>& c)
{
    stream_output out;
    auto take_oldest = [&] {
        pipeline.wait_oldest();
        const cfloat* y = pipeline.oldest();
        out.samples.insert(out.samples.end(), y, y + pipeline.oldest_elements());
        out.elements.push_back(pipeline.oldest_elements());
        pipeline.pop();
    };
    size_t position = 0;
    for (size_t k = 0; k < c.chunks.size(); ++k) {
        const auto change = c.before_chunk.find(k);
        if (change != c.before_chunk.end())
            for (Engine* e : engines)
                change->second(*e);
        while (!pipeline.can_submit())
            take_oldest();
        pipeline.submit(c.input.data() + position, c.chunks[k]);
        position += c.chunks[k];
    }
    while (pipeline.in_flight() > 0)
        take_oldest();
    return out;
}

// The stream through one engine and stream_pipeline, and split over
// `engines` engines by a multi_device_pipeline: the same output, chunk by chunk.
template <class Engine>
void check_split(const stream_case<Engine>& c, size_t engines, const std::string& what)
{
    BOOST_TEST_CONTEXT(what << ", " << c.chunks.size() << " chunks over " << engines
                            << " engines")
    {
        const auto contexts = contexts_for(engines);
        const auto single = c.make(contexts.front());
        core::stream_pipeline reference(contexts.front(), *single, depth);
        const stream_output expected =
            run_stream(reference, std::vector<Engine*>{ single.get() }, c);

        std::vector<std::unique_ptr<Engine>> owned;
        std::vector<Engine*> typed;
        std::vector<core::splittable_engine*> split_engines;
        for (const auto& context : contexts) {
            owned.push_back(c.make(context));
            typed.push_back(owned.back().get());
            split_engines.push_back(owned.back().get());
        }
        core::multi_device_pipeline split(contexts, split_engines, depth);
        BOOST_TEST(split.devices() == engines);
        const stream_output got = run_stream(split, typed, c);

        BOOST_TEST(got.elements == expected.elements);
        BOOST_TEST_REQUIRE(got.samples.size() == expected.samples.size());
        BOOST_TEST_REQUIRE(!expected.samples.empty());
        if (engines == 1) { // a plain stream_pipeline
            check_identical(got.samples, expected.samples, what);
            return;
        }
        double norm = 0, worst = 0;
        size_t identical = 0, worst_at = 0;
        for (size_t k = 0; k < got.samples.size(); ++k) {
            norm += std::norm(expected.samples[k]);
            const double e = std::abs(got.samples[k] - expected.samples[k]);
            if (!(e <= worst)) {
                worst = e;
                worst_at = k;
            }
            identical +=
                std::memcmp(&got.samples[k], &expected.samples[k], sizeof(cfloat)) == 0;
        }
        const double rms = std::sqrt(norm / double(got.samples.size()));
        BOOST_TEST_MESSAGE(what << ": " << got.samples.size() << " outputs, " << identical
                                << " bit-identical, worst difference " << worst / rms
                                << " * rms");
        BOOST_TEST(worst <= tolerance * rms,
                   "output " << worst_at << ": " << got.samples[worst_at] << " vs "
                             << expected.samples[worst_at] << " (single)");
    }
}

// Random taps, scaled to keep the outputs near 1.
std::vector<float> random_taps(size_t count, uint32_t seed)
{
    std::vector<float> taps = random_reals(count, seed);
    for (auto& t : taps)
        t /= std::sqrt(float(count));
    return taps;
}

struct channelizer_setup {
    size_t M;
    double r;
    size_t taps;
    std::vector<size_t> map = {}; // empty: all
    core::channel_layout layout = core::channel_layout::channel_major;
};

stream_case<core::pfb_channelizer>
channelizer_case(const channelizer_setup& s, size_t total, uint32_t seed)
{
    core::pfb_channelizer_options o;
    o.channels = s.M;
    o.oversample_rate = s.r;
    o.taps = random_taps(s.taps, seed);
    o.channel_map = s.map;
    o.layout = s.layout;
    o.max_input_samples = 6 * s.M;
    const size_t D = size_t(std::llround(double(s.M) / s.r));
    stream_case<core::pfb_channelizer> c;
    c.make = [o](core::device_context::sptr context) {
        return std::make_unique<core::pfb_channelizer>(context, o);
    };
    c.input = random_signal(total, seed + 1);
    c.chunks = random_chunks(total, D, o.max_input_samples / D * D, seed + 2);
    return c;
}

std::vector<cfloat> complex_taps(size_t count, uint32_t seed)
{
    std::vector<cfloat> h = random_signal(count, seed);
    for (auto& t : h)
        t /= std::sqrt(float(count));
    return h;
}

// fft_filter_ccf's taps: real.
std::vector<cfloat> real_taps(size_t count, uint32_t seed)
{
    std::vector<cfloat> h;
    for (float t : random_taps(count, seed))
        h.emplace_back(t, 0.0f);
    return h;
}

stream_case<core::fft_filter> filter_case(const std::vector<cfloat>& taps,
                                          size_t decimation,
                                          size_t total,
                                          uint32_t seed)
{
    core::fft_filter_options o;
    o.taps = taps;
    o.decimation = decimation;
    o.max_input_samples = 700;
    stream_case<core::fft_filter> c;
    c.make = [o](core::device_context::sptr context) {
        return std::make_unique<core::fft_filter>(context, o);
    };
    c.input = random_signal(total, seed);
    c.chunks = random_chunks(total, decimation, o.max_input_samples, seed + 1);
    return c;
}

// Vectors of N points in calls of 0 .. max whole vectors.
stream_case<core::fft_stream>
fft_case(size_t N, const core::fft_stream_options& o, size_t vectors, uint32_t seed)
{
    stream_case<core::fft_stream> c;
    c.make = [N, o](core::device_context::sptr context) {
        return std::make_unique<core::fft_stream>(context, N, o);
    };
    c.input = random_signal(N * vectors, seed);
    std::mt19937 rng(seed + 1);
    const size_t most = o.max_input_samples / N;
    for (size_t left = vectors; left > 0;) {
        const size_t n =
            std::min(left, std::uniform_int_distribution<size_t>(0, most)(rng));
        c.chunks.push_back(n * N);
        left -= n;
    }
    return c;
}

} // namespace

// ---- the FFT of vectors -----------------------------------------------------

BOOST_AUTO_TEST_CASE(fft_vectors_match_the_reference)
{
    const size_t N = 60;
    core::fft_stream_options o;
    o.window = random_reals(N, 90);
    o.shift = true;
    o.max_input_samples = 7 * N;
    auto c = fft_case(N, o, 50, 91);
    check_split(c, 2, "N=60, window and shift");
    // The single engine's output, vector by vector, against float64.
    const auto engine = c.make(devices().front());
    core::stream_pipeline pipeline(devices().front(), *engine, depth);
    const stream_output got =
        run_stream(pipeline, std::vector<core::fft_stream*>{ engine.get() }, c);
    core::fft_options plan;
    plan.window = o.window;
    plan.shift = true;
    std::vector<cdouble> want;
    for (size_t v = 0; v < 50; ++v) {
        const auto x =
            std::vector<cfloat>(c.input.begin() + v * N, c.input.begin() + (v + 1) * N);
        const auto X = wideband_reference::fft(x, plan);
        want.insert(want.end(), X.begin(), X.end());
    }
    check_accuracy(got.samples, want, 1e-6, "fft_stream N=60");
}

BOOST_AUTO_TEST_CASE(fft_vectors_with_a_new_window)
{
    core::fft_stream_options o;
    o.max_input_samples = 5 * 128;
    auto c = fft_case(128, o, 40, 95);
    c.before_chunk[c.chunks.size() / 2] = [](core::fft_stream& e) {
        e.set_window(random_reals(128, 96));
    };
    check_split(c, 3, "N=128, a window from the middle on");
    check_rejected([] { core::fft_stream::check(devices().front()->info(), 0, {}); },
                   { "fft_size" });
    core::fft_stream_options wrong;
    wrong.window.assign(5, 1.0f);
    check_rejected([&] { core::fft_stream::check(devices().front()->info(), 4, wrong); },
                   { "window has 5 values" });
}

// ---- the channelizer ------------------------------------------------------

BOOST_AUTO_TEST_CASE(channelizer_critically_sampled_with_new_taps_and_map)
{
    // K = 4 -> 6 (a longer history: what one engine no longer held is zero)
    // -> a channel subset.
    auto c = channelizer_case({ 16, 1.0, 64 }, 6000, 10);
    const size_t n = c.chunks.size();
    c.before_chunk[n / 3] = [](core::pfb_channelizer& e) {
        e.set_taps(random_taps(96, 11));
    };
    c.before_chunk[2 * n / 3] = [](core::pfb_channelizer& e) {
        e.set_channel_map({ 3, 0, 15, 3 });
    };
    check_split(c, 2, "M=16 r=1, 64 -> 96 taps, then 4 channels");
}

BOOST_AUTO_TEST_CASE(channelizer_oversampled_taps_not_a_multiple_of_m)
{
    // K = 4 -> 3, taps not a multiple of M.
    auto c = channelizer_case({ 16, 2.0, 53 }, 5000, 20);
    c.before_chunk[c.chunks.size() / 2] = [](core::pfb_channelizer& e) {
        e.set_taps(random_taps(41, 21));
    };
    check_split(c, 2, "M=16 r=2, 53 -> 41 taps");
}

BOOST_AUTO_TEST_CASE(channelizer_subsets_frame_major)
{
    auto c = channelizer_case(
        { 64, 2.0, 175, { 5, 63, 0, 32, 5 }, core::channel_layout::frame_major },
        12000,
        30);
    c.before_chunk[c.chunks.size() / 2] = [](core::pfb_channelizer& e) {
        e.set_channel_map({ 1, 2, 62 });
    };
    check_split(c, 2, "M=64 r=2, 175 taps, frame-major subsets");
}

BOOST_AUTO_TEST_CASE(channelizer_subset_channel_major)
{
    auto c = channelizer_case({ 64, 1.0, 128, { 9, 40, 0 } }, 12000, 40);
    check_split(c, 2, "M=64 r=1, 128 taps, 3 channels");
}

BOOST_AUTO_TEST_CASE(channelizer_frame_phase_over_three_engines)
{
    // D = 12 does not divide M = 16: the commutator phase of a frame depends on
    // its index modulo 4, so each engine must know where its chunks start.
    auto c = channelizer_case({ 16, 16.0 / 12.0, 64 }, 6000, 50);
    check_split(c, 3, "M=16 r=16/12, 64 taps");
}

BOOST_AUTO_TEST_CASE(one_engine_is_a_plain_stream_pipeline)
{
    auto c = channelizer_case({ 16, 1.0, 64 }, 3000, 60);
    c.before_chunk[c.chunks.size() / 2] = [](core::pfb_channelizer& e) {
        e.set_taps(random_taps(96, 61));
    };
    check_split(c, 1, "M=16 r=1, one engine");
}

// ---- the FFT filter -------------------------------------------------------

BOOST_AUTO_TEST_CASE(filter_real_taps_with_new_taps)
{
    // 37 -> 70 (longer history) -> 20 taps.
    auto c = filter_case(real_taps(37, 70), 1, 8000, 71);
    const size_t n = c.chunks.size();
    c.before_chunk[n / 3] = [](core::fft_filter& e) { e.set_taps(real_taps(70, 72)); };
    c.before_chunk[2 * n / 3] = [](core::fft_filter& e) {
        e.set_taps(real_taps(20, 73));
    };
    check_split(c, 2, "ccf, 37 -> 70 -> 20 taps, D=1");
}

BOOST_AUTO_TEST_CASE(filter_complex_taps_decimating)
{
    auto c = filter_case(complex_taps(100, 80), 3, 9000, 81);
    c.before_chunk[c.chunks.size() / 2] = [](core::fft_filter& e) {
        e.set_taps(complex_taps(130, 82));
    };
    check_split(c, 2, "ccc, 100 -> 130 taps, D=3");
    check_split(c, 3, "ccc, 100 -> 130 taps, D=3");
}

// ---- what the pipeline rejects -------------------------------------------

namespace {

/*
 * An engine of another item size, to check that the pipelines move samples
 * and elements of the sizes an engine states: complex int16 in (4 bytes, as
 * radios deliver), complex float out, y[n] = (x[n] + x[n-1]) / 32768 (a
 * history of one sample, exact in float). Carries its history itself unless a
 * split stream writes it (continue_at()).
 */
class int16_pair_sum : public core::splittable_engine
{
public:
    static constexpr size_t max_samples = 4096;

    explicit int16_pair_sum(core::device_context::sptr ctx)
        : d_ctx(std::move(ctx)),
          d_queue(d_ctx->create_queue()),
          d_window(d_ctx->context(), CL_MEM_READ_WRITE, (max_samples + 1) * 4)
    {
        static const char* const source = R"(
            __kernel void pair_sum(__global const short2* window, __global float2* out,
                                   uint n)
            {
                const uint i = get_global_id(0);
                if (i < n)
                    out[i] = (convert_float2(window[i + 1]) + convert_float2(window[i])) /
                             32768.0f;
            })";
        cl::Program program(d_ctx->context(), source);
        program.build();
        d_kernel = cl::Kernel(program, "pair_sum");
        const cl_short2 zero = { { 0, 0 } };
        d_queue.enqueueFillBuffer(d_window, zero, 0, 4);
        d_queue.finish();
    }

    size_t input_sample_bytes() const override { return 4; }
    core::stream_ratio step() const override { return { 1, 1 }; }
    region input_region() const override { return { d_window, 1, max_samples }; }
    size_t max_input_samples() const override { return max_samples; }
    size_t max_output_elements() const override { return max_samples; }
    size_t history_samples() const override { return 1; }
    size_t continue_at(uint64_t) override
    {
        d_split = true;
        return 1;
    }
    size_t run(const cl::CommandQueue& queue,
               size_t samples,
               const cl::Buffer& output,
               const std::vector<cl::Event>& wait,
               cl::Event& done) override
    {
        if (samples == 0) {
            queue.enqueueMarkerWithWaitList(wait.empty() ? nullptr : &wait, &done);
            return 0;
        }
        d_kernel.setArg(0, d_window);
        d_kernel.setArg(1, output);
        d_kernel.setArg(2, cl_uint(samples));
        cl::Event computed;
        queue.enqueueNDRangeKernel(d_kernel,
                                   cl::NullRange,
                                   cl::NDRange(samples),
                                   cl::NullRange,
                                   wait.empty() ? nullptr : &wait,
                                   &computed);
        if (d_split) {
            done = computed;
        } else { // the last sample is the next call's history
            const std::vector<cl::Event> after{ computed };
            queue.enqueueCopyBuffer(d_window, d_window, samples * 4, 0, 4, &after, &done);
        }
        return samples;
    }

private:
    core::device_context::sptr d_ctx;
    cl::CommandQueue d_queue;
    cl::Buffer d_window; // [history][new samples]
    cl::Kernel d_kernel;
    bool d_split = false;
};

} // namespace

// Complex int16 in, complex float out, through one engine and split over three:
// every output exact, under chunks of every size.
BOOST_AUTO_TEST_CASE(integer_samples_through_the_pipelines)
{
    std::mt19937 rng(21);
    std::uniform_int_distribution<int> value(-32768, 32767);
    const size_t n = 30000;
    std::vector<cl_short2> x(n);
    for (auto& v : x)
        v = { { cl_short(value(rng)), cl_short(value(rng)) } };
    std::vector<cfloat> expected(n);
    for (size_t i = 0; i < n; ++i) {
        const cl_short2 previous = i ? x[i - 1] : cl_short2{ { 0, 0 } };
        expected[i] = cfloat(float(x[i].s[0] + previous.s[0]) / 32768.0f,
                             float(x[i].s[1] + previous.s[1]) / 32768.0f);
    }
    for (const size_t engines : { 1, 3 }) {
        BOOST_TEST_CONTEXT(engines << " engines")
        {
            const auto contexts = contexts_for(engines);
            std::vector<std::unique_ptr<int16_pair_sum>> owned;
            std::vector<core::splittable_engine*> raw;
            for (const auto& ctx : contexts) {
                owned.emplace_back(new int16_pair_sum(ctx));
                raw.push_back(owned.back().get());
            }
            core::multi_device_pipeline pipeline(contexts, raw, depth);
            BOOST_TEST(pipeline.input_sample_bytes() == 4u);
            std::vector<cfloat> got;
            auto take_oldest = [&] {
                pipeline.wait_oldest();
                const cfloat* y = pipeline.oldest();
                got.insert(got.end(), y, y + pipeline.oldest_elements());
                pipeline.pop();
            };
            size_t position = 0;
            for (const size_t chunk :
                 random_chunks(n, 1, int16_pair_sum::max_samples, uint32_t(engines))) {
                while (!pipeline.can_submit())
                    take_oldest();
                pipeline.submit(x.data() + position, chunk);
                position += chunk;
            }
            while (pipeline.in_flight() > 0)
                take_oldest();
            BOOST_REQUIRE(got.size() == n);
            check_identical(got, expected, "int16 pair sums");
        }
    }
}

BOOST_AUTO_TEST_CASE(invalid_engines_and_calls)
{
    const auto contexts = contexts_for(2);
    auto make = [&](size_t i, size_t decimation) {
        core::fft_filter_options o;
        o.taps = real_taps(37, 70);
        o.decimation = decimation;
        o.max_input_samples = 700;
        return std::make_unique<core::fft_filter>(contexts[i], o);
    };
    const auto a = make(0, 1), b = make(1, 1), decimating = make(1, 3);
    using engines = std::vector<core::splittable_engine*>;
    auto build = [](const std::vector<core::device_context::sptr>& c, const engines& e) {
        return [=] { core::multi_device_pipeline p(c, e); };
    };
    check_rejected(build({}, {}), { "no engines" });
    check_rejected(build(contexts, { a.get() }), { "2 device contexts for 1 engines" });
    check_rejected(build(contexts, { a.get(), nullptr }), { "null" });
    check_rejected(build({ contexts[0], nullptr }, { a.get(), b.get() }), { "null" });
    check_rejected(build(contexts, { a.get(), a.get() }), { "appears twice" });
    check_rejected(build(contexts, { a.get(), decimating.get() }),
                   { "engine 1 differs", "input samples per step 3 vs 1" });
    // Engines whose outputs per input depend on the stream are not split: the
    // phase at a split point depends on all of the stream before it.
    core::arb_resampler_options ro;
    ro.rate = 0.6144f;
    ro.taps.assign(64, 0.01f);
    ro.max_input_samples = 700;
    core::arb_resampler r0(contexts[0], ro), r1(contexts[1], ro);
    check_rejected(build(contexts, { &r0, &r1 }), { "variable_ratio", "one device" });
    core::multi_device_pipeline one({ contexts[0] }, { &r0 });
    BOOST_TEST(one.devices() == 1u);

    core::multi_device_pipeline p(contexts, { a.get(), b.get() });
    BOOST_TEST(!p.oldest_ready());
    BOOST_CHECK_THROW(p.wait_oldest(), std::logic_error);
    BOOST_CHECK_THROW(p.oldest(), std::logic_error);
    BOOST_CHECK_THROW(p.pop(), std::logic_error);
    const std::vector<cfloat> x = random_signal(701, 90);
    check_rejected([&] { p.submit(x.data(), 701); }, { "701 samples exceeds" });
    BOOST_TEST(p.in_flight() == 0u);

    b->set_taps(real_taps(50, 91)); // not applied to a
    BOOST_CHECK_THROW(p.submit(x.data(), 100), std::logic_error);
    a->set_taps(real_taps(50, 91));
    p.submit(x.data(), 100);
    p.wait_oldest();
    BOOST_TEST(p.oldest_elements() == 100u);
    p.discard();
    BOOST_TEST(p.in_flight() == 0u);
}
