/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Real transforms (fft_transform::real_forward, real_inverse) and complex
// transforms of real input (input_format f32) against FFTW in double
// precision: every kind of plan, layouts, batches run in part, windows, output
// ranges, round trips and the arguments they refuse.

#define BOOST_TEST_MODULE qa_fft_real
#include <boost/test/unit_test.hpp>

#include "fft_check.h"
#include "scoped_env.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

using namespace wideband_test;

namespace {

// One of each way the core computes a real transform, odd and even: packed
// (N even, N/2 one pass on chip: pairs of reals as complex points) or the
// complex transform of N points.
struct shape {
    size_t n;
    size_t max_pass_length;
    bool packed; // with contiguous or even layouts
};
const shape shapes[] = {
    { 16, 0, true },    // packed, 8 points
    { 62, 0, true },    // packed, 31 points (a prime codelet)
    { 2048, 0, true },  // packed, 1024 points
    { 45, 0, false },   // one pass, odd
    { 37, 0, false },   // Rader, one fused kernel
    { 74, 0, false },   // Bluestein, one fused kernel (37 has no codelet: not packed)
    { 1000, 16, false } // three passes (500 points exceed the 16 allowed: not packed)
};

template <typename T>
cl::Buffer device_buffer(const std::vector<T>& host)
{
    cl::Buffer b(context()->context(), CL_MEM_READ_WRITE, host.size() * sizeof(T));
    queue().enqueueWriteBuffer(b, CL_TRUE, 0, host.size() * sizeof(T), host.data());
    return b;
}

template <typename T>
std::vector<T> read_back(const cl::Buffer& b, size_t count)
{
    std::vector<T> host(count);
    queue().enqueueReadBuffer(b, CL_TRUE, 0, count * sizeof(T), host.data());
    return host;
}

// The float64 reference of one transform of the plan, from the N points (real
// forward: real input as complex) or the N/2 + 1 bins (real inverse), as
// numpy.fft.rfft and irfft (without 1/N unless normalize) compute them.
std::vector<cdouble>
reference(const std::vector<cfloat>& points, const core::fft_options& options, size_t n)
{
    core::fft_options complex = options;
    complex.transform = core::fft_transform::complex;
    complex.input_format = core::sample_format::fc32;
    if (options.transform != core::fft_transform::real_inverse)
        return wideband_reference::fft(points, complex);
    // irfft: the bins' conjugates above N/2; bin 0 and an even N's bin N/2 real.
    std::vector<cfloat> full(n);
    for (size_t k = 0; k < n; ++k)
        full[k] = k <= n / 2 ? points[k] : std::conj(points[n - k]);
    full[0] = full[0].real();
    if (n % 2 == 0)
        full[n / 2] = full[n / 2].real();
    std::vector<cdouble> y = wideband_reference::fft(full, complex);
    for (auto& v : y)
        v = v.real();
    return y;
}

/*
 * Runs \p run_batch transforms of a plan of \p n points and checks every
 * output against the reference, and that nothing else was written and the
 * input kept. Inputs are real floats (real_forward, f32), else complex.
 * Returns the worst relative L2 error.
 */
double
check_plan(size_t n, const core::fft_options& options, size_t run_batch, uint32_t seed)
{
    const core::fft_plan plan(context(), n, options);
    const bool real_in = options.transform == core::fft_transform::real_forward ||
                         options.input_format == core::sample_format::f32;
    const bool real_out = options.transform == core::fft_transform::real_inverse;
    const size_t in_points = options.transform == core::fft_transform::real_inverse
                                 ? n / 2 + 1
                                 : (options.input_points ? options.input_points : n);
    const size_t results =
        options.transform == core::fft_transform::real_forward ? n / 2 + 1 : n;
    const core::fft_output_range& r = options.output_range;
    const size_t out_points =
        r.count ? r.count : (results - r.begin + r.step - 1) / r.step;
    const layout in(options.input, in_points), out(options.output, out_points);
    const std::string what = plan.describe() + ", running " + std::to_string(run_batch);
    BOOST_REQUIRE_EQUAL(plan.input_elements(options.batch),
                        in.elements(in_points, options.batch));
    BOOST_REQUIRE_EQUAL(plan.output_elements(options.batch),
                        out.elements(out_points, options.batch));

    // Inputs at the layout's places, poison between them; 3 elements of slack
    // past each buffer's end show writes beyond it.
    const size_t in_count = in.elements(in_points, options.batch) + 3;
    const size_t out_count = out.elements(out_points, options.batch) + 3;
    const std::vector<cfloat> signal = random_signal(options.batch * in_points, seed);
    std::vector<float> in_real(in_count, poison_value());
    std::vector<cfloat> in_complex(in_count, cfloat(poison_value(), poison_value()));
    std::vector<std::vector<cfloat>> points(options.batch);
    for (size_t b = 0; b < options.batch; ++b)
        for (size_t p = 0; p < in_points; ++p) {
            const cfloat x = signal[b * in_points + p];
            points[b].push_back(real_in ? cfloat(x.real()) : x);
            in_real[in.at(b, p)] = x.real();
            in_complex[in.at(b, p)] = x;
        }
    const cl::Buffer input = real_in ? device_buffer(in_real) : device_buffer(in_complex);
    const size_t out_element = real_out ? sizeof(float) : sizeof(cfloat);
    cl::Buffer output(context()->context(), CL_MEM_READ_WRITE, out_count * out_element);
    const float p = poison_value();
    queue().enqueueFillBuffer(output, p, 0, out_count * out_element);
    plan.enqueue(queue(), input, output, {}, run_batch).wait();

    // The output as floats: real parts, or real and imaginary interleaved.
    const size_t floats = real_out ? 1 : 2;
    const std::vector<float> result = read_back<float>(output, out_count * floats);
    std::vector<char> written(out_count, 0);
    double worst = 0;
    for (size_t b = 0; b < run_batch; ++b) {
        std::vector<cfloat> x = points[b];
        if (!real_out)
            x.resize(n); // input_points: the rest zero
        const std::vector<cdouble> full = reference(x, options, n);
        std::vector<cdouble> ref;
        std::vector<cfloat> y;
        for (size_t m = 0; m < out_points; ++m) {
            const size_t e = out.at(b, m);
            written[e] = 1;
            ref.push_back(full[r.begin + m * r.step]);
            y.push_back(real_out ? cfloat(result[e])
                                 : cfloat(result[2 * e], result[2 * e + 1]));
        }
        const accuracy a = compare(y, ref);
        BOOST_CHECK_MESSAGE(
            a.relative_l2 <= l2_bound(n) && a.worst_point <= 10 * l2_bound(n),
            what << ", transform " << b << ": relative L2 " << a.relative_l2
                 << ", worst point " << a.worst_point << " * rms");
        worst = std::max(worst, a.relative_l2);
    }
    size_t stray = 0;
    for (size_t e = 0; e < out_count; ++e)
        for (size_t f = 0; f < floats; ++f)
            if (!written[e] && !is_poison(result[e * floats + f]))
                ++stray;
    BOOST_CHECK_MESSAGE(stray == 0,
                        what << ": " << stray << " values written outside the layout");
    // Compared as bytes: the poison between the points is a NaN.
    const bool kept = real_in ? std::memcmp(read_back<float>(input, in_count).data(),
                                            in_real.data(),
                                            in_count * sizeof(float)) == 0
                              : std::memcmp(read_back<cfloat>(input, in_count).data(),
                                            in_complex.data(),
                                            in_count * sizeof(cfloat)) == 0;
    BOOST_CHECK_MESSAGE(kept, what << ": the input changed");
    return worst;
}

core::fft_options
real_options(core::fft_transform transform, const shape& s, size_t batch)
{
    core::fft_options o;
    o.transform = transform;
    o.direction = transform == core::fft_transform::real_inverse
                      ? core::fft_direction::inverse
                      : core::fft_direction::forward;
    o.batch = batch;
    o.max_pass_length = s.max_pass_length;
    return o;
}

} // namespace

BOOST_AUTO_TEST_CASE(real_forward_and_inverse_every_kind_of_plan)
{
    double worst = 0;
    uint32_t seed = 1;
    for (const shape& s : shapes) {
        const size_t n = s.n, bins = n / 2 + 1;
        for (auto transform :
             { core::fft_transform::real_forward, core::fft_transform::real_inverse }) {
            const bool forward = transform == core::fft_transform::real_forward;
            const size_t in_points = forward ? n : bins, out_points = forward ? bins : n;
            // Contiguous; gaps between transforms (numpy's in-place rfft
            // layout is such a one); interleaved transforms; gaps of even
            // sizes. Odd offsets or strides on the real side take the complex
            // transform of N points, even ones (a float pair one complex
            // point) the packed one.
            const core::fft_layout gaps_in{ 5, 1, in_points + 3 },
                gaps_out{ 7, 1, out_points + 2 }, inter_in{ 0, 3, 1 },
                inter_out{ 1, 4, 1 }, even_in{ 4, 1, in_points + 6 },
                even_out{ 2, 1, out_points + 2 };
            for (int l = 0; l < 4; ++l) {
                core::fft_options o = real_options(transform, s, 3);
                if (l == 1) {
                    o.input = gaps_in;
                    o.output = gaps_out;
                } else if (l == 2) {
                    o.input = inter_in;
                    o.output = inter_out;
                } else if (l == 3) {
                    o.input = even_in;
                    o.output = even_out;
                }
                // Odd offsets (1) and strides (2) on the real side never pack.
                const bool packs = s.packed && (l == 0 || l == 3);
                const std::string how = core::fft_plan(context(), n, o).describe();
                BOOST_CHECK_MESSAGE(
                    (how.find("real pairs") != std::string::npos) == packs,
                    how << ": expected " << (packs ? "" : "not ") << "packed");
                worst = std::max(worst, check_plan(n, o, l == 1 ? 2 : 3, seed++));
            }
            core::fft_options normalized = real_options(transform, s, 1);
            normalized.normalize = true;
            worst = std::max(worst, check_plan(n, normalized, 1, seed++));
        }
    }
    BOOST_TEST_MESSAGE("real transforms: worst relative L2 error " << worst);
}

BOOST_AUTO_TEST_CASE(register_resident_real_transforms)
{
    // N/2 beyond one on-chip pass, register-resident: a GPU's 8192 and beyond,
    // here with 4 KiB of local memory (512 complex points, 1024 floats) so that
    // PoCL builds small kernels, and resident=1 (CPUs keep the two passes).
    // 2000 packed as 1000 complex points exchanged in one part and 4000 as 2000
    // in two (the forward transform's bins paired through the float tile, the
    // inverse one's loaded in pairs); 2000 interleaved, which does not pack, as
    // the complex transform of 2000 points in two parts, its real loads and
    // stores fused in.
    const scoped_env resident("WIDEBAND_FFT_TUNE", std::string("resident=1,local=4096"));
    struct resident_case {
        size_t n;
        bool interleaved;
        std::string packing, exchange;
    };
    const resident_case cases[] = {
        { 2000, false, "(real pairs as 1000 complex points)", "exchanged in 1 part" },
        { 4000, false, "(real pairs as 2000 complex points)", "exchanged in 2 parts" },
        { 2000, true, "", "exchanged in 2 parts" },
    };
    uint32_t seed = 40;
    for (const resident_case& c : cases)
        for (auto transform :
             { core::fft_transform::real_forward, core::fft_transform::real_inverse }) {
            core::fft_options o = real_options(transform, shape{ c.n, 0, false }, 3);
            if (c.interleaved) {
                o.input = { 0, 3, 1 };
                o.output = { 1, 4, 1 };
            }
            const std::string how = core::fft_plan(context(), c.n, o).describe();
            BOOST_CHECK_MESSAGE(
                how.find("in registers, " + c.exchange) != std::string::npos, how);
            BOOST_CHECK_MESSAGE(
                (how.find("real pairs") != std::string::npos) == !c.packing.empty(), how);
            if (!c.packing.empty())
                BOOST_CHECK_MESSAGE(how.find(c.packing) != std::string::npos, how);
            check_plan(c.n, o, 3, seed++);
        }
}

BOOST_AUTO_TEST_CASE(real_forward_window_and_range)
{
    for (const shape& s : shapes) {
        core::fft_options o = real_options(core::fft_transform::real_forward, s, 2);
        o.window.resize(s.n);
        for (size_t i = 0; i < s.n; ++i)
            o.window[i] = 0.25f + float(i % 7) / 7.0f + float(i) / float(s.n);
        check_plan(s.n, o, 2, 100 + uint32_t(s.n));
        // Every other bin from 1 on: a range picks among bins 0 .. N/2.
        o.output_range = { 1, 2, 0 };
        check_plan(s.n, o, 2, 200 + uint32_t(s.n));
        // Bins 1 .. N/2, no window (packed where N is even).
        core::fft_options upper = real_options(core::fft_transform::real_forward, s, 2);
        upper.output_range = { 1, 1, s.n / 2 };
        check_plan(s.n, upper, 2, 250 + uint32_t(s.n));
        // Fewer input points than N, the rest zero.
        core::fft_options padded = real_options(core::fft_transform::real_forward, s, 2);
        padded.input_points = s.n / 2 + 1;
        check_plan(s.n, padded, 2, 300 + uint32_t(s.n));
    }
}

BOOST_AUTO_TEST_CASE(complex_transforms_of_real_input)
{
    // GNU Radio's fft_vfc: real input, all N complex outputs, with shift.
    for (const shape& s : shapes)
        for (auto direction :
             { core::fft_direction::forward, core::fft_direction::inverse }) {
            core::fft_options o;
            o.direction = direction;
            o.input_format = core::sample_format::f32;
            o.batch = 3;
            o.max_pass_length = s.max_pass_length;
            o.shift = true;
            check_plan(s.n, o, 3, 400 + uint32_t(s.n));
        }
}

BOOST_AUTO_TEST_CASE(round_trip_returns_the_input)
{
    for (const shape& s : shapes) {
        const size_t n = s.n, bins = n / 2 + 1, batch = 4;
        const core::fft_plan forward(
            context(), n, real_options(core::fft_transform::real_forward, s, batch));
        core::fft_options io = real_options(core::fft_transform::real_inverse, s, batch);
        io.normalize = true;
        const core::fft_plan inverse(context(), n, io);
        std::vector<float> x(n * batch);
        const std::vector<cfloat> signal = random_signal(n * batch, 7);
        for (size_t i = 0; i < x.size(); ++i)
            x[i] = signal[i].imag();
        const cl::Buffer input = device_buffer(x);
        cl::Buffer spectrum(
            context()->context(), CL_MEM_READ_WRITE, bins * batch * sizeof(cfloat));
        cl::Buffer back(
            context()->context(), CL_MEM_READ_WRITE, x.size() * sizeof(float));
        const cl::Event done = forward.enqueue(queue(), input, spectrum);
        inverse.enqueue(queue(), spectrum, back, { done }).wait();
        const std::vector<float> y = read_back<float>(back, x.size());
        double error = 0, energy = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            error += (double(y[i]) - x[i]) * (double(y[i]) - x[i]);
            energy += double(x[i]) * x[i];
        }
        BOOST_CHECK_MESSAGE(std::sqrt(error / energy) <= 2 * l2_bound(n),
                            "N=" << n << ": round trip relative L2 "
                                 << std::sqrt(error / energy));
    }
}

BOOST_AUTO_TEST_CASE(arguments_real_transforms_refuse)
{
    const shape s{ 64, 0, true };
    auto refused = [&](core::fft_options o, const char* what) {
        BOOST_CHECK_EXCEPTION(core::fft_plan(context(), s.n, o),
                              std::invalid_argument,
                              [&](const std::invalid_argument& e) {
                                  BOOST_TEST_MESSAGE(what << ": " << e.what());
                                  return std::string(e.what()).find("fft_plan: ") == 0;
                              });
    };
    core::fft_options o = real_options(core::fft_transform::real_forward, s, 1);
    o.direction = core::fft_direction::inverse;
    refused(o, "real_forward inverse");
    o = real_options(core::fft_transform::real_inverse, s, 1);
    o.direction = core::fft_direction::forward;
    refused(o, "real_inverse forward");
    o = real_options(core::fft_transform::real_forward, s, 1);
    o.input_format = core::sample_format::sc16;
    refused(o, "real_forward with an input format");
    o = real_options(core::fft_transform::real_forward, s, 1);
    o.shift = true;
    refused(o, "real_forward with shift");
    o = real_options(core::fft_transform::real_inverse, s, 1);
    o.in_place = true;
    refused(o, "real_inverse in place");
    o = real_options(core::fft_transform::real_forward, s, 1);
    o.output_range = { 33, 1, 0 };
    refused(o, "a range past bin N/2");
    o = real_options(core::fft_transform::real_inverse, s, 1);
    o.input_points = 10;
    refused(o, "real_inverse with input_points");

    // A buffer too small for the real layout: floats, not complex values.
    const core::fft_plan plan(
        context(), s.n, real_options(core::fft_transform::real_forward, s, 2));
    cl::Buffer small(
        context()->context(), CL_MEM_READ_WRITE, s.n * 2 * sizeof(float) - 4);
    cl::Buffer bins(context()->context(), CL_MEM_READ_WRITE, 2 * 33 * sizeof(cfloat));
    BOOST_CHECK_THROW(plan.enqueue(queue(), small, bins), std::invalid_argument);
    // A packed plan reads its floats in pairs: an odd offset is refused.
    BOOST_TEST_MESSAGE(plan.describe());
    cl::Buffer floats(context()->context(), CL_MEM_READ_WRITE, 4 * s.n * sizeof(float));
    BOOST_CHECK_THROW(plan.enqueue_at(queue(), floats, 1, bins, 0),
                      std::invalid_argument);
    plan.enqueue_at(queue(), floats, 2, bins, 0).wait();
}
