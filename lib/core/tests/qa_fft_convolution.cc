/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * fft_convolution against a float64 circular convolution, y_b = IFFT(FFT(x_b)
 * S_b) (unnormalised), computed here as y_b[n] = sum_m x_b[m] s_b[(n - m) mod
 * N] with s_b = IFFT(S_b) from FFTW in double: shared and per-transform
 * spectra, the fused kernel and multi-pass plans (max_pass_length), output
 * ranges, zero padding (input_points), overlapping input layouts, batches
 * smaller than the plan's. Then fft_plan's output_range and input_points
 * against FFTW, and what both reject. Every input and output buffer is
 * poisoned around what the layouts name: every point that must be written is
 * checked, every other element must keep the poison, and a point read that
 * should not be (past input_points, or of a transform beyond the batch) makes
 * the output NaN.
 */

#define BOOST_TEST_MODULE qa_fft_convolution
#include <boost/test/unit_test.hpp>

#include "conv_check.h"
#include "fft_check.h"

#include <gnuradio/wideband/core/fft_convolution.h>
#include <gnuradio/wideband/core/fft_plan.h>

using namespace conv_check;

BOOST_TEST_GLOBAL_FIXTURE(compile_report);

namespace {

/*
 * Accuracy bound of a convolution: a forward and an inverse float32 FFT, each
 * held by the FFT tests to wideband_test::l2_bound(N) (1e-6 up to 2^16), and a
 * rounded complex multiply (eps = 6e-8): the errors add up to at most twice
 * the FFT bound. Measured: 1e-7 to 2e-7. Plans are held to the FFT bound.
 */
double convolution_bound(size_t n) { return 2 * wideband_test::l2_bound(n); }
double plan_bound(size_t n) { return wideband_test::l2_bound(n); }

using wideband_test::layout;

size_t range_count(const core::fft_output_range& r, size_t n)
{
    return r.count ? r.count : (n - r.begin + r.step - 1) / r.step;
}

// What one execution reads and writes: the geometry both kinds of test share.
struct geometry {
    size_t n, plan_batch, batch, read, written;
    core::fft_output_range range;
    layout in, out;
};

geometry make_geometry(size_t n,
                       size_t plan_batch,
                       size_t run_batch,
                       size_t input_points,
                       const core::fft_layout& in,
                       const core::fft_layout& out,
                       const core::fft_output_range& range)
{
    const size_t read = input_points ? input_points : n;
    const size_t written = range_count(range, n);
    return { n,
             plan_batch,
             run_batch ? run_batch : plan_batch,
             read,
             written,
             range,
             layout(in, read),
             layout(out, written) };
}

/*
 * The input buffer: random points where transforms 0 .. batch - 1 read (later
 * transforms overwrite shared positions of overlapping layouts), poison
 * everywhere else, including where the transforms beyond the batch read.
 * Returns the buffer and each transform's N points, zero past the points read.
 */
std::vector<cfloat>
make_input(const geometry& g, uint32_t seed, std::vector<std::vector<cfloat>>& transforms)
{
    std::vector<cfloat> host(
        std::max(g.in.elements(g.read, g.plan_batch), g.in.elements(g.read, g.batch)) +
            tail_slack,
        poison());
    const std::vector<cfloat> values = random_signal(g.batch * g.read, seed);
    for (size_t b = 0; b < g.batch; ++b)
        for (size_t p = 0; p < g.read; ++p)
            host[g.in.at(b, p)] = values[b * g.read + p];
    transforms.assign(g.batch, std::vector<cfloat>(g.n, cfloat(0, 0)));
    for (size_t b = 0; b < g.batch; ++b)
        for (size_t p = 0; p < g.read; ++p)
            transforms[b][p] = host[g.in.at(b, p)];
    return host;
}

/*
 * After the run: the input buffer unchanged; every point of the written range
 * of transforms 0 .. batch - 1 written, nothing else. Returns each transform's
 * written points.
 */
std::vector<std::vector<cfloat>> collect_output(const geometry& g,
                                                const std::vector<cfloat>& input_before,
                                                const cl::Buffer& input,
                                                const cl::Buffer& output,
                                                size_t output_elements,
                                                const std::string& what)
{
    const std::vector<cfloat> in_after = read_back(input, input_before.size());
    BOOST_CHECK_MESSAGE(first_difference(in_after, input_before) == in_after.size(),
                        what << ": the input buffer changed");
    const std::vector<cfloat> host = read_back(output, output_elements);
    std::vector<bool> must(host.size(), false);
    std::vector<std::vector<cfloat>> y(g.batch, std::vector<cfloat>(g.written));
    for (size_t b = 0; b < g.batch; ++b)
        for (size_t m = 0; m < g.written; ++m) {
            must[g.out.at(b, m)] = true;
            y[b][m] = host[g.out.at(b, m)];
        }
    size_t missed = 0, stray = 0, first_stray = host.size();
    for (size_t i = 0; i < host.size(); ++i) {
        if (must[i] && has_poison(host[i]))
            ++missed;
        if (!must[i] && !is_poison(host[i])) {
            ++stray;
            first_stray = std::min(first_stray, i);
        }
    }
    BOOST_CHECK_MESSAGE(missed == 0,
                        what << ": " << missed << " of the " << g.batch * g.written
                             << " points to write were not written");
    BOOST_CHECK_MESSAGE(stray == 0,
                        what << ": " << stray
                             << " elements outside the output layout changed, the first "
                             << first_stray);
    return y;
}

// The points begin + m * step, m < count, of a full result.
std::vector<cdouble>
pick(const std::vector<cdouble>& full, const core::fft_output_range& r, size_t count)
{
    std::vector<cdouble> y(count);
    for (size_t m = 0; m < count; ++m)
        y[m] = full[r.begin + m * r.step];
    return y;
}

/*
 * Float64 circular convolution of x (N points) with s = IFFT(S) (unnormalised,
 * FFTW in double), at the points the range writes.
 */
std::vector<cdouble> reference_convolution(const std::vector<cfloat>& x,
                                           const std::vector<cfloat>& spectrum,
                                           const core::fft_output_range& r,
                                           size_t count)
{
    const size_t n = x.size();
    core::fft_options inverse;
    inverse.direction = core::fft_direction::inverse;
    const std::vector<cdouble> s = wideband_reference::fft(spectrum, inverse);
    std::vector<cdouble> y(count);
    for (size_t m = 0; m < count; ++m) {
        const size_t k = r.begin + m * r.step;
        cdouble sum = 0;
        for (size_t j = 0; j < n; ++j)
            sum += cdouble(x[j]) * s[(k + n - j) % n];
        y[m] = sum;
    }
    return y;
}

struct convolution_case {
    std::string what;
    size_t batch = 3;     // the plan's
    size_t run_batch = 0; // enqueue()'s (0: the plan's)
    size_t input_points = 0;
    core::fft_layout in, out;
    core::fft_output_range range;
    bool per_transform = false;
    size_t launches = 1;  // kernel launches per execution (0: not checked)
    bool folded = false;  // the plan runs its inverse FFT on N / range.step points
    bool handoff = false; // the forward FFT hands its outputs to the inverse in registers
};

/*
 * One fft_convolution of n points (max_pass_length mpl) run as c says; checked
 * against the float64 reference. Returns the worst accuracy over the batch.
 */
accuracy check_convolution(size_t n, size_t mpl, const convolution_case& c, uint32_t seed)
{
    core::fft_convolution_options o;
    o.batch = c.batch;
    o.input = c.in;
    o.output = c.out;
    o.input_points = c.input_points;
    o.output_range = c.range;
    o.spectrum_per_transform = c.per_transform;
    o.max_pass_length = mpl;
    const core::fft_convolution conv(context(), n, o);
    const geometry g =
        make_geometry(n, c.batch, c.run_batch, c.input_points, c.in, c.out, c.range);
    const std::string what =
        "N=" + std::to_string(n) + " " + c.what + ": " + conv.describe();
    BOOST_TEST(conv.written_points() == g.written, what);
    BOOST_TEST(conv.size() == n);
    if (c.launches)
        BOOST_TEST(conv.launches() == c.launches, what);
    if (c.folded)
        BOOST_TEST(conv.describe().find("inverse folded") != std::string::npos, what);
    BOOST_TEST((conv.describe().find("inverse in registers") != std::string::npos) ==
                   c.handoff,
               what);

    std::vector<std::vector<cfloat>> x;
    const std::vector<cfloat> in_host = make_input(g, seed, x);
    // Spectra with parts in [-1/N, 1/N): outputs of about the inputs' size.
    std::vector<cfloat> spectra =
        random_signal((c.per_transform ? g.batch : 1) * n, seed + 1);
    for (auto& v : spectra)
        v /= float(n);
    const size_t out_elements = std::max(g.out.elements(g.written, g.plan_batch),
                                         g.out.elements(g.written, g.batch)) +
                                tail_slack;
    const cl::Buffer input = device_buffer(in_host);
    const cl::Buffer spectrum = device_buffer(spectra);
    const cl::Buffer output = poisoned_buffer(out_elements);
    conv.enqueue(queue(), input, spectrum, output, {}, c.run_batch).wait();
    const auto y = collect_output(g, in_host, input, output, out_elements, what);

    accuracy worst;
    for (size_t b = 0; b < g.batch; ++b) {
        const size_t s0 = c.per_transform ? b * n : 0;
        const std::vector<cfloat> S(spectra.begin() + s0, spectra.begin() + s0 + n);
        worst.merge(check_accuracy(y[b],
                                   reference_convolution(x[b], S, c.range, g.written),
                                   convolution_bound(n),
                                   what + ", transform " + std::to_string(b)));
    }
    BOOST_TEST_MESSAGE(what << ": " << format(worst));
    return worst;
}

struct plan_case {
    std::string what;
    core::fft_direction direction = core::fft_direction::forward;
    bool normalize = false, shift = false;
    size_t batch = 3, run_batch = 0, input_points = 0;
    core::fft_layout in, out;
    core::fft_output_range range;
};

// One fft_plan of n points run as c says; checked against FFTW in double.
accuracy check_plan_case(size_t n, size_t mpl, const plan_case& c, uint32_t seed)
{
    core::fft_options o;
    o.direction = c.direction;
    o.normalize = c.normalize;
    o.shift = c.shift;
    o.batch = c.batch;
    o.input = c.in;
    o.output = c.out;
    o.input_points = c.input_points;
    o.output_range = c.range;
    o.max_pass_length = mpl;
    const core::fft_plan plan(context(), n, o);
    const geometry g =
        make_geometry(n, c.batch, c.run_batch, c.input_points, c.in, c.out, c.range);
    const std::string what =
        "N=" + std::to_string(n) + " " + c.what + ": " + plan.describe();

    std::vector<std::vector<cfloat>> x;
    const std::vector<cfloat> in_host = make_input(g, seed, x);
    const size_t out_elements = std::max(g.out.elements(g.written, g.plan_batch),
                                         g.out.elements(g.written, g.batch)) +
                                tail_slack;
    const cl::Buffer input = device_buffer(in_host);
    const cl::Buffer output = poisoned_buffer(out_elements);
    plan.enqueue(queue(), input, output, {}, c.run_batch).wait();
    const auto y = collect_output(g, in_host, input, output, out_elements, what);

    // An FFT's error is of the order of its whole output's magnitude: a range
    // of a few small outputs is judged on the scale of the full transform.
    auto rms = [](const std::vector<cdouble>& v) {
        double sum = 0;
        for (const auto& e : v)
            sum += std::norm(e);
        return std::sqrt(sum / double(std::max<size_t>(1, v.size())));
    };
    accuracy worst;
    for (size_t b = 0; b < g.batch; ++b) {
        const std::vector<cdouble> full = wideband_reference::fft(x[b], o);
        const std::vector<cdouble> ref = pick(full, c.range, g.written);
        const double scale = std::max(1.0, rms(full) / rms(ref));
        worst.merge(check_accuracy(
            y[b], ref, plan_bound(n) * scale, what + ", transform " + std::to_string(b)));
    }
    BOOST_TEST_MESSAGE(what << ": " << format(worst));
    return worst;
}

} // namespace

// ---------------------------------------------------------------------------

/*
 * The fused kernel (N = 60: radices 5, 4, 3; N = 1001 = 7 * 11 * 13; N = 2048,
 * the spectrum multiplied in registers) with shared and per-transform spectra,
 * output ranges (a begin, steps 1 to 3, a count short of the transform; steps
 * that divide N from a multiple of the step, where the inverse FFT is folded),
 * zero padding with overlapping inputs (the way overlap-save reads its blocks),
 * interleaved and strided layouts with gaps, and batches smaller than the plan's.
 */
BOOST_AUTO_TEST_CASE(fused_convolution)
{
    accuracy worst;
    for (size_t n : { 60, 1001, 2048 }) {
        std::vector<convolution_case> cases;
        {
            convolution_case c;
            c.what = "shared spectrum, contiguous";
            cases.push_back(c);
            for (size_t run : { 1, 2 }) {
                c.what = "shared spectrum, batch " + std::to_string(run) + " of 3";
                c.run_batch = run;
                cases.push_back(c);
            }
        }
        {
            convolution_case c;
            c.what =
                "spectrum per transform, range {N/3, 3, all}, strided output with gaps";
            c.per_transform = true;
            c.range = { n / 3, 3, 0 };
            c.out = { 2, 2, 2 * ((n - n / 3 + 2) / 3) + 5 };
            cases.push_back(c);
            c.what += ", batch 2 of 3";
            c.run_batch = 2;
            cases.push_back(c);
        }
        {
            convolution_case c;
            c.what = "input_points N/2 + 3, overlapping inputs, range {N/2 + 2, 2, all}";
            c.input_points = n / 2 + 3;
            c.in = { 3, 1, n / 4 };
            c.range = { n / 2 + 2, 2, 0 };
            cases.push_back(c);
        }
        {
            convolution_case c;
            c.what = "overlapping inputs (distance N/2 + 1), range {N/2 - 1, 1, all}";
            c.in = { 0, 1, n / 2 + 1 };
            c.range = { n / 2 - 1, 1, 0 };
            cases.push_back(c);
            c.what = "spectrum per transform, overlapping inputs, range {7, 1, N/2}, "
                     "output with gaps";
            c.per_transform = true;
            c.range = { 7, 1, n / 2 };
            c.out = { 5, 1, n / 2 + 3 };
            cases.push_back(c);
        }
        {
            // Every step-th output from a multiple of the step, which divides N:
            // the inverse FFT computes only those, on N / step points.
            convolution_case c;
            c.folded = true;
            const size_t step = n == 1001 ? 7 : 4;
            c.what = "range {2 step, step, all}, the inverse folded";
            c.range = { 2 * step, step, 0 };
            cases.push_back(c);
            c.what = "spectrum per transform, overlapping inputs, range {step, step, 5}, "
                     "strided output, the inverse folded";
            c.per_transform = true;
            c.in = { 0, 1, n / 2 };
            c.range = { step, step, 5 };
            c.out = { 1, 3, 17 };
            cases.push_back(c);
            c.what += ", batch 2 of 3";
            c.run_batch = 2;
            cases.push_back(c);
            const size_t wide = n == 60 ? 30 : n == 1001 ? 143 : 256;
            c = convolution_case{};
            c.what = "range {0, " + std::to_string(wide) +
                     ", all}, the inverse folded to " + std::to_string(n / wide) +
                     " points";
            c.folded = true;
            c.range = { 0, wide, 0 };
            cases.push_back(c);
        }
        {
            convolution_case c;
            c.what = "interleaved input, range {5, 1, 7}";
            c.in = { 0, 3, 1 };
            c.range = { 5, 1, 7 };
            cases.push_back(c);
        }
        // The spectrum multiplied in registers between the FFTs where the plan
        // allows it: 2048 (16 x 8 x 16) unfolded or folded by 4 onto its last
        // radix (not by 2, which measured slower, nor by 256); 1001 (7 x 11 x
        // 13) folded by 7; 60 (10 x 6 here) and 1001 unfolded are short.
        for (auto& c : cases)
            c.handoff = n == 2048 ? c.range.step != 2 && c.range.step <= 4
                                  : n == 1001 && c.folded && c.range.step == 7;
        uint32_t seed = uint32_t(n);
        for (const auto& c : cases)
            worst.merge(check_convolution(n, 0, c, seed += 7));
    }
    BOOST_TEST_MESSAGE("fused: worst " << format(worst));
}

/*
 * Multi-pass convolutions (max_pass_length 16: N = 1000 as 3 forward and 3
 * inverse passes of 10, the multiply fused into the last forward pass): the
 * same features through the passes.
 */
BOOST_AUTO_TEST_CASE(multi_pass_convolution)
{
    const size_t n = 1000, mpl = 16;
    accuracy worst;
    std::vector<convolution_case> cases;
    {
        convolution_case c;
        c.what = "max_pass_length 16, input_points 700, overlapping inputs, range {299, "
                 "1, 650}";
        c.input_points = 700;
        c.in = { 1, 1, 350 };
        c.range = { 299, 1, 650 };
        cases.push_back(c);
    }
    {
        convolution_case c;
        c.what = "max_pass_length 16, spectrum per transform, batch 4";
        c.batch = 4;
        c.per_transform = true;
        cases.push_back(c);
        c.what = "max_pass_length 16, spectrum per transform, batch 3 of 4";
        c.run_batch = 3;
        cases.push_back(c);
    }
    uint32_t seed = 77;
    for (auto c : cases) {
        c.launches = 6;
        worst.merge(check_convolution(n, mpl, c, seed += 7));
    }
    BOOST_TEST_MESSAGE("multi-pass: worst " << format(worst));
}

/*
 * fft_plan's output_range and input_points (new since qa_fft_plan): a single
 * pass, both directions with normalisation, Rader (N = 37: output 0 is computed
 * apart from the others), Bluestein (N = 74), and three passes
 * (N = 1000, max_pass_length 16); zero padding with strided and overlapping
 * inputs; batches smaller than the plan's.
 */
BOOST_AUTO_TEST_CASE(plan_output_range_and_input_points)
{
    const auto inverse = core::fft_direction::inverse;
    struct shaped {
        size_t n, mpl;
        plan_case c;
    };
    std::vector<shaped> cases;
    {
        plan_case c;
        c.what = "forward, range {3, 2, all}, input_points 31";
        c.range = { 3, 2, 0 };
        c.input_points = 31;
        cases.push_back({ 60, 0, c });
        c.what += ", strided overlapping input, batch 2 of 3";
        c.in = { 1, 2, 31 };
        c.run_batch = 2;
        cases.push_back({ 60, 0, c });
    }
    {
        plan_case c;
        c.what = "inverse, normalised, range {1, 5, 4}, output with gaps";
        c.direction = inverse;
        c.normalize = true;
        c.range = { 1, 5, 4 };
        c.out = { 3, 1, 9 };
        cases.push_back({ 60, 0, c });
    }
    for (size_t n : { 37, 74 }) {
        plan_case c;
        const std::string how = n == 37 ? "Rader" : "Bluestein";
        c.what = how + " forward, input_points 20, range {2, 3, all}";
        c.input_points = 20;
        c.range = { 2, 3, 0 };
        cases.push_back({ n, 0, c });
        c.what = how + " inverse, input_points N-1, range {N-1, 1, 1}";
        c.direction = inverse;
        c.input_points = n - 1;
        c.range = { n - 1, 1, 1 };
        cases.push_back({ n, 0, c });
        c.what = how + " inverse, normalised, range {0, 2, 3}";
        c.normalize = true;
        c.input_points = 0;
        c.range = { 0, 2, 3 };
        cases.push_back({ n, 0, c });
    }
    {
        plan_case c;
        c.what = "max_pass_length 16, forward, input_points 700, range {100, 7, 50}";
        c.input_points = 700;
        c.range = { 100, 7, 50 };
        cases.push_back({ 1000, 16, c });
        c.what = "max_pass_length 16, inverse, input_points 1, range {0, 1, 999}";
        c.direction = inverse;
        c.input_points = 1;
        c.range = { 0, 1, 999 };
        cases.push_back({ 1000, 16, c });
    }
    accuracy worst;
    uint32_t seed = 500;
    for (const auto& s : cases)
        worst.merge(check_plan_case(s.n, s.mpl, s.c, seed += 3));
    BOOST_TEST_MESSAGE("plans: worst " << format(worst));
}

/*
 * A forward plan with shift and an output range. The header defines the shift
 * (the output written fft-shifted) and the range ("which points of each
 * result are written ... to output point m"), not both at once: either the
 * plan is rejected, or it writes the range of the shifted result, and nothing
 * outside the output layout. (The output layout here has room for N points per
 * transform, so that a write past the range lands in the poisoned buffer.)
 */
BOOST_AUTO_TEST_CASE(plan_shift_with_output_range)
{
    const size_t n = 60;
    plan_case c;
    c.what = "forward, shift, range {10, 1, 20}";
    c.shift = true;
    c.range = { 10, 1, 20 };
    c.batch = 2;
    c.out = { 0, 1, n };
    try {
        check_plan_case(n, 0, c, 900);
    } catch (const std::invalid_argument& e) {
        BOOST_TEST_MESSAGE("shift with an output range rejected: " << e.what());
    }
}

// What fft_convolution and fft_plan reject, with a message naming the problem.
BOOST_AUTO_TEST_CASE(invalid_options_and_calls)
{
    const auto convolution = [](size_t n, core::fft_convolution_options o) {
        return [n, o] { core::fft_convolution c(context(), n, o); };
    };
    const auto plan = [](size_t n, core::fft_options o) {
        return [n, o] { core::fft_plan p(context(), n, o); };
    };
    core::fft_convolution_options co;
    check_rejected([&] { core::fft_convolution c(nullptr, 60, co); }, { "context" });
    check_rejected(convolution(0, co), { "size" });
    // Sizes with a prime factor above 31: no Rader or Bluestein inside a convolution.
    for (size_t n : { 37, 74, 1009, 2 * 3 * 5 * 7 * 37 })
        check_rejected(convolution(n, co),
                       { "prime factor", std::to_string(n) },
                       "size " + std::to_string(n));
    co.batch = 0;
    check_rejected(convolution(60, co), { "batch" });
    co = {};
    co.max_pass_length = 8;
    check_rejected(convolution(60, co), { "max_pass_length" });

    // Output ranges, for both.
    const core::fft_output_range bad_ranges[] = {
        { 0, 0, 0 },  // step 0
        { 60, 1, 0 }, // begin = N
        { 75, 2, 0 }, // begin > N
        { 0, 1, 61 }, // count past the end
        { 59, 1, 2 }, // count past the end from begin
        { 1, 3, 21 }, // ceil(59 / 3) = 20 points at most
    };
    for (const auto& r : bad_ranges) {
        co = {};
        co.output_range = r;
        check_rejected(convolution(60, co),
                       { "output_range" },
                       "convolution range {" + std::to_string(r.begin) + ", " +
                           std::to_string(r.step) + ", " + std::to_string(r.count) + "}");
        core::fft_options po;
        po.output_range = r;
        check_rejected(plan(60, po),
                       { "output_range" },
                       "plan range {" + std::to_string(r.begin) + ", " +
                           std::to_string(r.step) + ", " + std::to_string(r.count) + "}");
    }
    // The largest valid ranges are accepted (no kernel is run).
    co = {};
    co.output_range = { 1, 3, 20 };
    BOOST_CHECK_NO_THROW(convolution(60, co)());
    co.output_range = { 59, 1, 1 };
    BOOST_CHECK_NO_THROW(convolution(60, co)());

    // input_points past N; with in-place or shift plans.
    co = {};
    co.input_points = 61;
    check_rejected(convolution(60, co), { "input_points" });
    core::fft_options po;
    po.input_points = 61;
    check_rejected(plan(60, po), { "input_points" });
    po.input_points = 30;
    po.in_place = true;
    check_rejected(plan(60, po), { "in-place" });
    po.in_place = false;
    po.shift = true;
    check_rejected(plan(60, po), { "shift" });
    po = {};
    po.in_place = true;
    po.output_range = { 0, 2, 0 };
    check_rejected(plan(60, po), { "in-place" });

    // A valid convolution: calls it rejects.
    co = {};
    co.batch = 3;
    co.spectrum_per_transform = true;
    const core::fft_convolution conv(context(), 60, co);
    const auto buffer = [](size_t elements) {
        return cl::Buffer(
            context()->context(), CL_MEM_READ_WRITE, elements * sizeof(cfloat));
    };
    const cl::Buffer in = buffer(180), spec = buffer(180), out = buffer(180);
    check_rejected([&] { conv.enqueue(queue(), in, spec, out, {}, 4); }, { "batch" });
    check_rejected([&] { conv.enqueue(queue(), buffer(179), spec, out); }, { "input" });
    check_rejected([&] { conv.enqueue(queue(), in, spec, buffer(179)); }, { "output" });
    check_rejected([&] { conv.enqueue(queue(), in, buffer(179), out); }, { "spectrum" });
    check_rejected([&] { conv.enqueue(queue(), in, buffer(119), out, {}, 2); },
                   { "spectrum" });
    check_rejected([&] { conv.enqueue(queue(), in, spec, in); }, { "different" });
    // Exactly large enough for 2 transforms.
    BOOST_CHECK_NO_THROW(
        conv.enqueue(queue(), buffer(120), buffer(120), buffer(120), {}, 2).wait());
}
