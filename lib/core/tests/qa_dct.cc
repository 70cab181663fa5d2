/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The discrete cosine transforms (fft_transform::dct_ii, dct_iii, dct_iv)
// against the float64 reference (wideband_reference::dct, scipy.fft.dct's
// definitions with norm=None and "ortho"): many lengths and every way the
// core computes them (passes, Rader, Bluestein), batches, layouts, round
// trips and the options they refuse.

#define BOOST_TEST_MODULE qa_dct
#include <boost/test/unit_test.hpp>

#include "reference.h"
#include "test_support.h"
#include <gnuradio/wideband/core/fft_plan.h>

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace core = gr::wideband::core;

namespace {

// The bound: float32 transforms against a float64 reference.
constexpr double relative_bound = 1e-6;

using wideband_test::context;
using wideband_test::is_poison;
using wideband_test::never_zero_values;
using wideband_test::poison_value;
using wideband_test::queue;

const char* name(core::fft_transform type)
{
    return type == core::fft_transform::dct_ii    ? "DCT-II"
           : type == core::fft_transform::dct_iii ? "DCT-III"
                                                  : "DCT-IV";
}

const core::fft_transform types[] = { core::fft_transform::dct_ii,
                                      core::fft_transform::dct_iii,
                                      core::fft_transform::dct_iv };
const core::dct_norm norms[] = { core::dct_norm::none, core::dct_norm::ortho };

using wideband_test::layout; // in floats

/*
 * Runs \p run_batch transforms of a plan of \p n points with random input at
 * the input layout (poison between), checks each against the reference within
 * relative_bound (relative L2, and every point within 10 times that of the
 * reference's rms), that nothing else of the output buffer was written and the
 * input was kept. Returns the worst relative L2 error.
 */
double
check_plan(size_t n, const core::fft_options& options, size_t run_batch, uint32_t seed)
{
    const core::fft_plan plan(context(), n, options);
    const layout in(options.input, n), out(options.output, n);
    const std::string what = plan.describe() + ", running " + std::to_string(run_batch);
    const size_t in_count = plan.input_elements(options.batch) + 3;
    const size_t out_count = plan.output_elements(options.batch) + 3;
    BOOST_REQUIRE_EQUAL(in_count - 3, in.at(options.batch - 1, n - 1) + 1);
    BOOST_REQUIRE_EQUAL(out_count - 3, out.at(options.batch - 1, n - 1) + 1);

    const std::vector<float> signal = never_zero_values(options.batch * n, seed);
    std::vector<float> host_in(in_count, poison_value());
    for (size_t b = 0; b < options.batch; ++b)
        for (size_t p = 0; p < n; ++p)
            host_in[in.at(b, p)] = signal[b * n + p];
    cl::Buffer input(context()->context(), CL_MEM_READ_WRITE, in_count * sizeof(float));
    queue().enqueueWriteBuffer(
        input, CL_TRUE, 0, in_count * sizeof(float), host_in.data());
    cl::Buffer output(context()->context(), CL_MEM_READ_WRITE, out_count * sizeof(float));
    queue().enqueueFillBuffer(output, poison_value(), 0, out_count * sizeof(float));
    plan.enqueue(queue(), input, output, {}, run_batch).wait();

    std::vector<float> result(out_count), kept(in_count);
    queue().enqueueReadBuffer(
        output, CL_TRUE, 0, out_count * sizeof(float), result.data());
    queue().enqueueReadBuffer(input, CL_TRUE, 0, in_count * sizeof(float), kept.data());
    std::vector<char> written(out_count, 0);
    double worst = 0;
    for (size_t b = 0; b < run_batch; ++b) {
        const std::vector<double> x(signal.begin() + b * n, signal.begin() + (b + 1) * n);
        const std::vector<double> ref =
            wideband_reference::dct(x, options.transform, options.norm);
        double error = 0, energy = 0, worst_point = 0;
        for (size_t k = 0; k < n; ++k) {
            const size_t e = out.at(b, k);
            written[e] = 1;
            const double d = double(result[e]) - ref[k];
            error += d * d;
            energy += ref[k] * ref[k];
            worst_point =
                std::max(worst_point, std::isfinite(d) ? std::abs(d) : INFINITY);
        }
        const double relative = std::sqrt(error / energy);
        const double point = worst_point / std::sqrt(energy / n);
        BOOST_CHECK_MESSAGE(relative <= relative_bound && point <= 10 * relative_bound,
                            what << ", transform " << b << ": relative L2 " << relative
                                 << ", worst point " << point << " * rms");
        worst = std::max(worst, std::isfinite(relative) ? relative : INFINITY);
    }
    size_t stray = 0;
    for (size_t e = 0; e < out_count; ++e)
        stray += !written[e] && !is_poison(result[e]);
    BOOST_CHECK_MESSAGE(stray == 0,
                        what << ": " << stray << " values written outside the layout");
    BOOST_CHECK_MESSAGE(
        std::memcmp(kept.data(), host_in.data(), in_count * sizeof(float)) == 0,
        what << ": the input changed");
    return worst;
}

core::fft_options dct_options(core::fft_transform type, core::dct_norm norm, size_t batch)
{
    core::fft_options o;
    o.transform = type;
    o.norm = norm;
    o.batch = batch;
    return o;
}

} // namespace

BOOST_AUTO_TEST_CASE(every_type_and_norm_of_many_lengths)
{
    // Powers of two, odd and prime lengths (Rader for II and III; Bluestein
    // for IV's zero-padded 2N = 34), smooth composites and the issue's
    // largest, 8192. Each length and type is a kernel build of its own (about
    // a second on PoCL): the list is kept short.
    const size_t lengths[] = { 1, 2, 3, 4, 5, 6, 8, 17, 100, 1000, 1024, 8192 };
    double worst = 0;
    uint32_t seed = 1;
    for (size_t n : lengths)
        for (auto type : types)
            for (auto norm : norms) {
                // Batches of 3, the largest lengths 2, one run with fewer
                // transforms than the plan's.
                const size_t batch = n >= 4096 ? 2 : 3;
                const core::fft_options o = dct_options(type, norm, batch);
                worst = std::max(worst, check_plan(n, o, batch, seed++));
                if (n == 100)
                    worst = std::max(worst, check_plan(n, o, 1, seed++));
            }
    BOOST_TEST_MESSAGE("worst relative L2 error over the lengths: " << worst);
}

BOOST_AUTO_TEST_CASE(every_algorithm_behind_the_transforms)
{
    // Several passes (max_pass_length 16: 1000 = 10 x 10 x 10, IV's 500),
    // Rader and Bluestein for lengths with a large prime factor (II and III of
    // 2 x 61 = 122 by Bluestein, of 61 by Rader; IV of 122 as 61 points by
    // Rader, of 61 zero-padded to 122 by Bluestein), and Bluestein in several
    // passes.
    struct shape {
        size_t n, max_pass_length;
    };
    const shape shapes[] = { { 1000, 16 }, { 122, 0 }, { 61, 0 }, { 122, 16 } };
    double worst = 0;
    uint32_t seed = 100;
    for (const shape& s : shapes)
        for (auto type : types)
            for (auto norm : norms) {
                core::fft_options o = dct_options(type, norm, 2);
                o.max_pass_length = s.max_pass_length;
                worst = std::max(worst, check_plan(s.n, o, 2, seed++));
            }
    BOOST_TEST_MESSAGE("worst relative L2 error over the algorithms: " << worst);
}

BOOST_AUTO_TEST_CASE(the_complex_transform_behind_each_type)
{
    // II and III: N/2 points (packed) where N/2 is one pass, else N; IV: N/2
    // for even N, 2N for odd N.
    struct expected {
        core::fft_transform type;
        size_t n, points;
    };
    const expected cases[] = { { core::fft_transform::dct_ii, 100, 50 },
                               { core::fft_transform::dct_iii, 1000, 500 },
                               { core::fft_transform::dct_ii, 122, 122 },
                               { core::fft_transform::dct_iii, 17, 17 },
                               { core::fft_transform::dct_iv, 8192, 4096 },
                               { core::fft_transform::dct_iv, 17, 34 } };
    for (const expected& c : cases) {
        const std::string how =
            core::fft_plan(context(), c.n, dct_options(c.type, core::dct_norm::none, 1))
                .describe();
        BOOST_CHECK_MESSAGE(how.find("complex transform of " + std::to_string(c.points) +
                                     " points") != std::string::npos,
                            how << ": expected " << c.points << " complex points");
    }
}

BOOST_AUTO_TEST_CASE(layouts_and_partial_batches)
{
    // Gaps between transforms, interleaved transforms (stride = batch), odd
    // offsets: the real points are read and written one float at a time.
    const size_t n = 64, batch = 3;
    const core::fft_layout gaps_in{ 5, 1, n + 3 }, gaps_out{ 7, 1, n + 2 },
        inter_in{ 1, batch, 1 }, inter_out{ 2, batch + 1, 1 };
    uint32_t seed = 200;
    for (auto type : types)
        for (int l = 0; l < 2; ++l) {
            core::fft_options o = dct_options(type, core::dct_norm::ortho, batch);
            o.input = l ? inter_in : gaps_in;
            o.output = l ? inter_out : gaps_out;
            check_plan(n, o, batch, seed++);
            check_plan(n, o, 2, seed++);
        }
}

BOOST_AUTO_TEST_CASE(enqueue_at_moves_the_layouts)
{
    // Odd offsets in floats: nothing is read or written in pairs of floats.
    const size_t n = 64, batch = 2, in_at = 3, out_at = 5;
    const std::vector<float> x = never_zero_values(n * batch, 400);
    std::vector<float> host(in_at + x.size(), poison_value());
    std::copy(x.begin(), x.end(), host.begin() + in_at);
    cl::Buffer input(
        context()->context(), CL_MEM_READ_WRITE, host.size() * sizeof(float)),
        output(
            context()->context(), CL_MEM_READ_WRITE, (out_at + x.size()) * sizeof(float));
    queue().enqueueWriteBuffer(
        input, CL_TRUE, 0, host.size() * sizeof(float), host.data());
    for (auto type : types) {
        const core::fft_plan plan(
            context(), n, dct_options(type, core::dct_norm::none, batch));
        plan.enqueue_at(queue(), input, in_at, output, out_at).wait();
        std::vector<float> y(x.size());
        queue().enqueueReadBuffer(
            output, CL_TRUE, out_at * sizeof(float), y.size() * sizeof(float), y.data());
        for (size_t b = 0; b < batch; ++b) {
            const std::vector<double> ref = wideband_reference::dct(
                std::vector<double>(x.begin() + b * n, x.begin() + (b + 1) * n),
                type,
                core::dct_norm::none);
            double error = 0, energy = 0;
            for (size_t k = 0; k < n; ++k) {
                error += (y[b * n + k] - ref[k]) * (y[b * n + k] - ref[k]);
                energy += ref[k] * ref[k];
            }
            BOOST_CHECK_MESSAGE(std::sqrt(error / energy) <= relative_bound,
                                plan.describe() << ", transform " << b << ": relative L2 "
                                                << std::sqrt(error / energy));
        }
    }
}

BOOST_AUTO_TEST_CASE(orthonormal_round_trips)
{
    // Ortho DCT-III undoes ortho DCT-II, and ortho DCT-IV undoes itself:
    // chained on the device, the input comes back.
    const size_t n = 100, batch = 2;
    const std::vector<float> x = never_zero_values(n * batch, 300);
    const size_t bytes = x.size() * sizeof(float);
    cl::Buffer a(context()->context(), CL_MEM_READ_WRITE, bytes),
        b(context()->context(), CL_MEM_READ_WRITE, bytes),
        c(context()->context(), CL_MEM_READ_WRITE, bytes);
    queue().enqueueWriteBuffer(a, CL_TRUE, 0, bytes, x.data());
    const std::pair<core::fft_transform, core::fft_transform> trips[] = {
        { core::fft_transform::dct_ii, core::fft_transform::dct_iii },
        { core::fft_transform::dct_iv, core::fft_transform::dct_iv }
    };
    for (const auto& trip : trips) {
        const core::fft_plan there(
            context(), n, dct_options(trip.first, core::dct_norm::ortho, batch));
        const core::fft_plan back(
            context(), n, dct_options(trip.second, core::dct_norm::ortho, batch));
        const cl::Event e = there.enqueue(queue(), a, b);
        back.enqueue(queue(), b, c, { e }).wait();
        std::vector<float> y(x.size());
        queue().enqueueReadBuffer(c, CL_TRUE, 0, bytes, y.data());
        double error = 0, energy = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            error += (double(y[i]) - x[i]) * (double(y[i]) - x[i]);
            energy += double(x[i]) * x[i];
        }
        BOOST_CHECK_MESSAGE(std::sqrt(error / energy) <= 2 * relative_bound,
                            name(trip.first)
                                << " then " << name(trip.second) << ": relative L2 "
                                << std::sqrt(error / energy));
    }
}

BOOST_AUTO_TEST_CASE(options_a_cosine_transform_refuses)
{
    auto rejected = [](const core::fft_options& o, const std::string& word) {
        try {
            core::fft_plan plan(context(), 16, o);
            BOOST_ERROR("accepted, expected an error about " << word);
        } catch (const std::invalid_argument& e) {
            BOOST_CHECK_MESSAGE(std::string(e.what()).find(word) != std::string::npos,
                                "\"" << e.what() << "\" does not mention " << word);
        }
    };
    core::fft_options o =
        dct_options(core::fft_transform::dct_iii, core::dct_norm::none, 1);
    o.direction = core::fft_direction::inverse;
    rejected(o, "direction");
    o = dct_options(core::fft_transform::dct_ii, core::dct_norm::none, 1);
    o.input_format = core::sample_format::f32;
    rejected(o, "input_format");
    for (int i = 0; i < 6; ++i) {
        o = dct_options(core::fft_transform::dct_iv, core::dct_norm::ortho, 1);
        const char* word[] = { "shift",  "in_place",     "normalize",
                               "window", "input_points", "output_range" };
        o.shift = i == 0;
        o.in_place = i == 1;
        o.normalize = i == 2;
        if (i == 3)
            o.window.assign(16, 1.0f);
        o.input_points = i == 4 ? 8 : 0;
        o.output_range.begin = i == 5;
        rejected(o, word[i]);
    }
    core::fft_options complex;
    complex.norm = core::dct_norm::ortho;
    rejected(complex, "norm");
}
