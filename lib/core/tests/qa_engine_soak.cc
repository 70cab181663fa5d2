/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * Long streams through the channelizer and filter engines, driven as the
 * blocks drive them: a stream_pipeline with chunks in flight, calls of random
 * sizes (0, 1, fewer than D, the most, anything), and the settings changed at
 * random points between calls while chunks are in flight (taps of other
 * lengths, other channel maps, cycling through a fixed list of
 * configurations). Checked:
 *
 *  - every output of every slot against a second engine of the same settings
 *    driven with the largest calls it takes, changed at the same input
 *    samples (nothing lost, repeated or reordered, no stale history or
 *    settings);
 *  - random outputs of every segment against the float64 formula (so that
 *    both engines cannot be wrong alike);
 *  - memory flat: at the end of every cycle of configurations, with the
 *    pipeline drained, the process's OpenCL buffers (count and bytes, seen by
 *    cl_alloc_count: PoCL and NVIDIA cannot report device memory in use)
 *    are exactly those of the cycle before, and the resident set grew by at
 *    most rss_slack after the first quarter of the run (the second cycle in
 *    short runs): NVIDIA's OpenCL grows its host pools for about a minute
 *    (on the H100, 685 -> 766 MiB in the first quarter of a 270 s run, then
 *    766, 768, 774, 774), PoCL's settle at once.
 *
 * WIDEBAND_SOAK_SAMPLES sets the input samples per engine (default 2^23, a
 * CI run of seconds), WIDEBAND_SOAK_SECONDS a time limit per engine (the
 * stream then ends at the first cycle's end past it); WIDEBAND_SOAK_CHUNK the
 * largest pipelined call (default 2^16; the blocks use 2^19 on CPUs, 2^24 or 2^25 on
 * GPUs). scripts/gpu/run_soak runs it for billions of samples on the GPU and
 * samples nvidia-smi meanwhile.
 */

#define BOOST_TEST_MODULE qa_engine_soak
#include <boost/test/unit_test.hpp>

#include "conv_check.h"
#include "memory_use.h"
#include "stream_chunks.h"

#include <gnuradio/wideband/core/fft_filter.h>
#include <gnuradio/wideband/core/pfb_channelizer.h>
#include <gnuradio/wideband/core/stream_pipeline.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <random>
#include <thread>

using namespace conv_check;

BOOST_TEST_GLOBAL_FIXTURE(compile_report);

namespace {

// Engines against each other (same float32 arithmetic, other call splits):
// as qa_fft_filter's and qa_pfb_channelizer's bound against float64.
constexpr double l2_bound = 1e-5;
// Spot checks against float64: per output, relative to the output's rms.
constexpr double spot_bound = 1e-4;
constexpr uint64_t rss_slack = uint64_t(64) << 20;

// A count from the environment, in any form strtod reads (1e9, 0x1p33).
uint64_t environment_count(const char* name, uint64_t fallback)
{
    const char* v = std::getenv(name);
    return v && *v ? uint64_t(std::strtod(v, nullptr)) : fallback;
}

// Never-zero complex samples, |re|, |im| in [0.5, 1), fast enough for
// billions (splitmix64).
class sample_source
{
public:
    explicit sample_source(uint64_t seed) : d_state(seed) {}

    void fill(cfloat* x, size_t n)
    {
        for (size_t i = 0; i < n; ++i) {
            const uint64_t r = next();
            x[i] = cfloat(part(uint32_t(r)), part(uint32_t(r >> 32)));
        }
    }

private:
    uint64_t next()
    {
        uint64_t z = (d_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    static float part(uint32_t bits)
    {
        const float magnitude = 0.5f + float(bits >> 9) * (0.5f / float(1 << 23));
        return bits & 1 ? -magnitude : magnitude;
    }
    uint64_t d_state;
};

using slots_t = std::vector<std::vector<cfloat>>; // [slot][output]

// n samples to where an engine's next call takes them (blocking).
void write_input(const core::stream_engine::region& region, const cfloat* x, size_t n)
{
    queue().enqueueWriteBuffer(
        region.buffer, CL_TRUE, region.offset * sizeof(cfloat), n * sizeof(cfloat), x);
}

// A device buffer of at least \p elements (new taps can need more).
void fit(cl::Buffer& buffer, size_t elements)
{
    if (!buffer() || buffer.getInfo<CL_MEM_SIZE>() < elements * sizeof(cfloat))
        buffer = cl::Buffer(
            context()->context(), CL_MEM_READ_WRITE, elements * sizeof(cfloat));
}

/*
 * What the soak needs of an engine kind: the pipelined engine and a reference
 * engine, always with the same settings.
 */
class soak_subject
{
public:
    virtual ~soak_subject() = default;
    virtual std::string name() const = 0;
    virtual core::stream_engine& pipelined() = 0;
    virtual size_t slots() const = 0;
    virtual size_t decimation() const = 0;
    //! How many configurations the settings cycle through.
    virtual size_t configurations() const = 0;
    //! Configuration \p index (of configurations()) for both engines, from their
    //! next calls on.
    virtual void configure(size_t index, std::mt19937& rng) = 0;
    //! The reference engine: one call of \p n samples (at most its
    //! max_input_samples()), its outputs appended.
    virtual void reference_call(const cfloat* x, size_t n, slots_t& out) = 0;
    virtual size_t reference_max_input() const = 0;
    //! The last input sample output \p m reads, and how many it reads up to it.
    virtual uint64_t last_input(uint64_t m) const = 0;
    virtual size_t span() const = 0;
    //! Output \p m of slot \p s in float64 from \p x, which holds the stream
    //! from sample \p first on; and the scale its error is measured against.
    virtual std::pair<cdouble, double>
    direct(const std::vector<cfloat>& x, uint64_t first, uint64_t m, size_t s) const = 0;
};

// Random taps scaled to outputs of about unit size.
std::vector<float> random_real_taps(size_t count, std::mt19937& rng)
{
    std::vector<float> taps = random_reals(count, rng());
    for (auto& t : taps)
        t /= std::sqrt(float(count));
    return taps;
}

class channelizer_subject : public soak_subject
{
public:
    channelizer_subject(size_t max_input)
    {
        core::pfb_channelizer_options o;
        o.channels = M;
        o.oversample_rate = double(M) / double(D);
        o.taps = random_real_taps(4 * M, rng0);
        o.channel_map = { 3, 0, 31, 16, 3 };
        o.max_input_samples = max_input;
        d_pipelined = std::make_unique<core::pfb_channelizer>(context(), o);
        o.max_input_samples = 0; // the largest calls
        d_reference = std::make_unique<core::pfb_channelizer>(context(), o);
    }

    std::string name() const override
    {
        return "pfb_channelizer M=32 D=16, " +
               std::to_string(d_reference->taps().size()) + " taps";
    }
    core::stream_engine& pipelined() override { return *d_pipelined; }
    size_t slots() const override { return d_reference->outputs(); }
    size_t decimation() const override { return D; }
    // Taps per branch 4 -> 7 -> 2 (history grows and shrinks), a new map each time.
    size_t configurations() const override { return 3; }
    void configure(size_t index, std::mt19937& rng) override
    {
        const size_t taps_per_branch[] = { 4, 7, 2 };
        const std::vector<float> taps =
            random_real_taps(taps_per_branch[index] * M - index, rng);
        std::vector<size_t> map(slots());
        for (auto& c : map)
            c = rng() % M;
        for (auto* e : { d_pipelined.get(), d_reference.get() }) {
            e->set_taps(taps);
            e->set_channel_map(map);
        }
        fit(d_output, d_reference->max_output_elements());
    }
    void reference_call(const cfloat* x, size_t n, slots_t& out) override
    {
        write_input(d_reference->input_region(), x, n);
        const size_t frames = d_reference->frames_for(n);
        const auto r =
            d_reference->enqueue(queue(), n, d_output, std::max<size_t>(frames, 1));
        r.done.wait();
        std::vector<cfloat> host(frames * slots());
        if (!host.empty())
            queue().enqueueReadBuffer(
                d_output, CL_TRUE, 0, host.size() * sizeof(cfloat), host.data());
        for (size_t s = 0; s < slots(); ++s)
            out[s].insert(
                out[s].end(), host.begin() + s * frames, host.begin() + (s + 1) * frames);
    }
    size_t reference_max_input() const override
    {
        return d_reference->max_input_samples();
    }
    uint64_t last_input(uint64_t q) const override { return (q + 1) * D - 1; }
    size_t span() const override { return d_reference->taps().size(); }
    // Frame q of channel map[s] (reference/), reading x[t - n], n < taps, t =
    // (q+1) D - 1.
    std::pair<cdouble, double> direct(const std::vector<cfloat>& x,
                                      uint64_t first,
                                      uint64_t q,
                                      size_t s) const override
    {
        const std::vector<float>& h = d_reference->taps();
        const size_t c = d_reference->channel_map()[s];
        const uint64_t t = (q + 1) * D - 1;
        double power = 0;
        for (size_t n = 0; n < h.size(); ++n)
            power += double(h[n]) * double(h[n]) * std::norm(cdouble(x[t - n - first]));
        auto at = [&](uint64_t k) { return x.at(k - first); };
        return { wideband_reference::pfb_channelizer(at, h, M, D, { c }, q, 1)[0][0],
                 std::sqrt(power) };
    }

private:
    static constexpr size_t M = 32, D = 16;
    std::mt19937 rng0{ 11 };
    std::unique_ptr<core::pfb_channelizer> d_pipelined, d_reference;
    cl::Buffer d_output;
};

class filter_subject : public soak_subject
{
public:
    filter_subject(size_t max_input)
    {
        core::fft_filter_options o;
        o.taps = complex_taps(64, rng0);
        o.decimation = D;
        o.max_input_samples = max_input;
        d_pipelined = std::make_unique<core::fft_filter>(context(), o);
        o.max_input_samples = 0; // the largest calls
        d_reference = std::make_unique<core::fft_filter>(context(), o);
    }

    std::string name() const override
    {
        return "fft_filter D=3, " + std::to_string(d_reference->taps().size()) +
               " taps, FFT " + std::to_string(d_reference->fft_size());
    }
    core::stream_engine& pipelined() override { return *d_pipelined; }
    size_t slots() const override { return 1; }
    size_t decimation() const override { return D; }
    // 64 -> 1000 -> 31 -> 255 taps: other FFT sizes, history grows and shrinks.
    size_t configurations() const override { return 4; }
    void configure(size_t index, std::mt19937& rng) override
    {
        const size_t lengths[] = { 64, 1000, 31, 255 };
        const std::vector<cfloat> taps = complex_taps(lengths[index], rng);
        d_pipelined->set_taps(taps);
        d_reference->set_taps(taps);
        fit(d_output, d_reference->max_output_elements());
    }
    void reference_call(const cfloat* x, size_t n, slots_t& out) override
    {
        write_input(d_reference->input_region(), x, n);
        const auto r = d_reference->enqueue(queue(), n, d_output);
        r.done.wait();
        const size_t before = out[0].size();
        out[0].resize(before + r.outputs);
        if (r.outputs)
            queue().enqueueReadBuffer(
                d_output, CL_TRUE, 0, r.outputs * sizeof(cfloat), &out[0][before]);
    }
    size_t reference_max_input() const override
    {
        return d_reference->max_input_samples();
    }
    uint64_t last_input(uint64_t m) const override { return m * D; }
    size_t span() const override { return d_reference->taps().size(); }
    // y[m] = sum_k h[k] x[m D - k] (reference/)
    std::pair<cdouble, double> direct(const std::vector<cfloat>& x,
                                      uint64_t first,
                                      uint64_t m,
                                      size_t) const override
    {
        const auto& h = d_reference->taps();
        double power = 0;
        for (size_t k = 0; k < h.size(); ++k)
            power += std::norm(cdouble(h[k])) * std::norm(cdouble(x[m * D - k - first]));
        auto at = [&](uint64_t k) { return x.at(k - first); };
        return { wideband_reference::fir(at, h, D, m, 1)[0], std::sqrt(power) };
    }

private:
    static std::vector<cfloat> complex_taps(size_t count, std::mt19937& rng)
    {
        std::vector<cfloat> taps = random_signal(count, rng());
        for (auto& t : taps)
            t /= std::sqrt(float(count));
        return taps;
    }
    static constexpr size_t D = 3;
    std::mt19937 rng0{ 12 };
    std::unique_ptr<core::fft_filter> d_pipelined, d_reference;
    cl::Buffer d_output;
};

// Error sums of one slot's stream against the reference engine.
struct stream_error {
    double error = 0, norm = 0, worst = 0; // worst: |difference| / ||h|| rms(x) ~ 1
    size_t compared = 0, non_finite = 0;
};

struct memory_sample {
    int64_t buffers, bytes;
    uint64_t rss;
};

memory_sample settled_memory()
{
    const int64_t buffers = settled_live_buffers();
    return { buffers, cl_alloc_count_live_bytes(), rss_bytes() };
}

void soak(soak_subject& subject, uint64_t seed)
{
    const uint64_t samples =
        environment_count("WIDEBAND_SOAK_SAMPLES", uint64_t(1) << 23);
    const double seconds_limit = double(environment_count("WIDEBAND_SOAK_SECONDS", 0));
    const size_t max_call = subject.pipelined().max_input_samples();
    const size_t D = subject.decimation(), S = subject.slots();
    const size_t configurations = subject.configurations();
    std::mt19937 rng{ uint32_t(seed) };
    sample_source source(seed);
    core::stream_pipeline pipeline(context(), subject.pipelined(), 3);

    // Outputs not compared yet, per slot: ours (through the pipeline) and the
    // reference engine's; compared_outputs came before them.
    slots_t ours(S), theirs(S);
    uint64_t compared_outputs = 0;
    std::vector<stream_error> errors(S);
    const auto compare_ready = [&] {
        size_t n = SIZE_MAX;
        for (size_t s = 0; s < S; ++s)
            n = std::min({ n, ours[s].size(), theirs[s].size() });
        for (size_t s = 0; s < S; ++s) {
            stream_error& e = errors[s];
            for (size_t k = 0; k < n; ++k) {
                const cdouble y = cdouble(ours[s][k]), r = cdouble(theirs[s][k]);
                e.non_finite += !(std::isfinite(y.real()) && std::isfinite(y.imag()));
                const double d = std::abs(y - r);
                e.error += d * d;
                e.norm += std::norm(r);
                e.worst = !(d <= e.worst) ? d : e.worst;
            }
            e.compared += n;
            ours[s].erase(ours[s].begin(), ours[s].begin() + n);
            theirs[s].erase(theirs[s].begin(), theirs[s].begin() + n);
        }
        compared_outputs += n;
    };
    const auto take_oldest = [&] {
        const size_t frames = pipeline.oldest_elements() / S;
        const cfloat* out = pipeline.oldest();
        for (size_t s = 0; s < S; ++s)
            ours[s].insert(ours[s].end(), out + s * frames, out + (s + 1) * frames);
        pipeline.pop();
    };
    const auto drain = [&] {
        while (pipeline.in_flight() > 0) {
            pipeline.wait_oldest();
            take_oldest();
        }
    };

    std::vector<cfloat> x;
    uint64_t position = 0, spot_checks = 0, spot_failures = 0;
    std::vector<memory_sample> cycle_ends;
    const auto started = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
            .count();
    };
    for (size_t segment = 0; position < samples; ++segment) {
        // (a time limit ends the stream at a cycle's end, as if it were shorter)
        if (seconds_limit > 0 && segment % configurations == 0 &&
            elapsed() > seconds_limit)
            break;
        // From here on the next configuration, with chunks still in flight.
        subject.configure(segment % configurations, rng);
        // 2 to 6 pipelined calls' worth of samples with it.
        const size_t length = size_t(std::min<uint64_t>(
            samples - position, max_call * (2 + rng() % 5) + rng() % max_call));
        x.resize(length);
        source.fill(x.data(), length);

        size_t at = 0;
        for (size_t n : random_chunks(length, D, max_call, rng())) {
            while (!pipeline.can_submit()) {
                pipeline.wait_oldest();
                take_oldest();
            }
            pipeline.submit(x.data() + at, n);
            at += n;
            while (pipeline.in_flight() > 0 && pipeline.oldest_ready())
                take_oldest();
        }
        at = 0;
        for (size_t n : fixed_chunks(length, subject.reference_max_input())) {
            subject.reference_call(x.data() + at, n, theirs);
            at += n;
        }

        // Random outputs of the segment that read only its samples, against
        // the formula (theirs still holds every output of the segment).
        const uint64_t end = (position + length) / D; // outputs of the stream so far
        uint64_t first = position / D;
        while (first < end && subject.last_input(first) + 1 < position + subject.span())
            ++first;
        for (int i = 0; i < 8 && first < end; ++i) {
            const uint64_t m = first + rng() % (end - first);
            for (size_t s = 0; s < S; ++s) {
                const auto [expected, scale] = subject.direct(x, position, m, s);
                const cfloat got = theirs[s].at(size_t(m - compared_outputs));
                ++spot_checks;
                if (!(std::abs(cdouble(got) - expected) <= spot_bound * scale)) {
                    if (++spot_failures <= 5)
                        BOOST_ERROR(subject.name()
                                    << ": output " << m << " of slot " << s << " is "
                                    << got << ", the formula " << expected);
                }
            }
        }
        position += length;
        compare_ready();

        if ((segment + 1) % configurations == 0) {
            drain();
            compare_ready();
            cycle_ends.push_back(settled_memory());
        }
    }
    drain();
    compare_ready();
    const double seconds = elapsed();
    const uint64_t total = position;

    // Every output came, once, in order, with the right values.
    for (size_t s = 0; s < S; ++s) {
        const stream_error& e = errors[s];
        const double rms = std::sqrt(e.norm / double(std::max<size_t>(e.compared, 1)));
        const double l2 = std::sqrt(e.error / e.norm);
        BOOST_CHECK_MESSAGE(
            e.compared == total / D && ours[s].empty() && theirs[s].empty(),
            subject.name() << ", slot " << s << ": " << e.compared
                           << " outputs compared, " << ours[s].size() << " and "
                           << theirs[s].size() << " left over; expected " << total / D);
        BOOST_CHECK_MESSAGE(e.non_finite == 0,
                            subject.name() << ", slot " << s << ": " << e.non_finite
                                           << " outputs not finite");
        BOOST_CHECK_MESSAGE(l2 <= l2_bound &&
                                e.worst <= worst_point_factor * l2_bound * rms,
                            subject.name() << ", slot " << s << ": relative L2 " << l2
                                           << ", worst element " << e.worst / rms
                                           << " * rms against the reference engine");
        BOOST_TEST_MESSAGE(subject.name()
                           << ", slot " << s << ": " << e.compared
                           << " outputs, relative L2 " << l2 << ", worst element "
                           << e.worst / rms << " * rms");
    }
    BOOST_CHECK_EQUAL(spot_failures, 0u);

    // Memory flat: each cycle ends with the buffers of the cycle before (the
    // first may grow them to what the largest configuration needs).
    BOOST_REQUIRE_GE(cycle_ends.size(), 3u);
    for (size_t c = 2; c < cycle_ends.size(); ++c)
        BOOST_CHECK_MESSAGE(cycle_ends[c].buffers == cycle_ends[c - 1].buffers &&
                                cycle_ends[c].bytes == cycle_ends[c - 1].bytes,
                            subject.name()
                                << ": OpenCL buffers after cycle " << c << ": "
                                << cycle_ends[c].buffers << " (" << cycle_ends[c].bytes
                                << " bytes), after the cycle before "
                                << cycle_ends[c - 1].buffers << " ("
                                << cycle_ends[c - 1].bytes << " bytes)");
    const memory_sample &early = cycle_ends[std::max<size_t>(1, cycle_ends.size() / 4)],
                        &last = cycle_ends.back();
    // Growth that levels off (an allocator's pools) and growth that goes on (a
    // leak) look alike at the ends: the quarters tell them apart.
    std::ostringstream quarters;
    for (size_t q = 0; q <= 4; ++q)
        quarters << (q ? ", " : "")
                 << cycle_ends[1 + (cycle_ends.size() - 2) * q / 4].rss / (1 << 20);
    BOOST_TEST_MESSAGE(subject.name() << ": resident set by quarter of the run (MiB): "
                                      << quarters.str());
    BOOST_CHECK_MESSAGE(last.rss <= early.rss + rss_slack,
                        subject.name() << ": resident set grew from " << early.rss
                                       << " to " << last.rss << " bytes");
    BOOST_TEST_MESSAGE(subject.name()
                       << ": " << total << " samples in " << seconds << " s ("
                       << double(total) / seconds / 1e6
                       << " Msamples/s for both engines), " << spot_checks
                       << " outputs against the formula; " << cycle_ends.size()
                       << " cycles of " << configurations
                       << " configurations; OpenCL buffers " << last.buffers << " ("
                       << last.bytes << " bytes) at each cycle's end; resident set "
                       << early.rss / 1048576 << " -> " << last.rss / 1048576 << " MiB");
}

} // namespace

BOOST_AUTO_TEST_CASE(channelizer_soak)
{
    channelizer_subject subject(
        size_t(environment_count("WIDEBAND_SOAK_CHUNK", uint64_t(1) << 16)));
    soak(subject, 101);
}

BOOST_AUTO_TEST_CASE(filter_soak)
{
    filter_subject subject(
        size_t(environment_count("WIDEBAND_SOAK_CHUNK", uint64_t(1) << 16)));
    soak(subject, 202);
}
