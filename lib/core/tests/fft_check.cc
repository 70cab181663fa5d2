/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fft_check.h"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>

namespace wideband_test {

namespace {

// Extra elements past the end of the layout, so that a write past it shows.
constexpr size_t tail_slack = 3;

std::vector<cfloat>
gather(const std::vector<cfloat>& buffer, const layout& l, size_t b, size_t n)
{
    std::vector<cfloat> points(n);
    for (size_t p = 0; p < n; ++p)
        points[p] = buffer[l.at(b, p)];
    return points;
}

cl::Buffer device_buffer(const std::vector<cfloat>& host)
{
    cl::Buffer buffer(
        context()->context(), CL_MEM_READ_WRITE, host.size() * sizeof(cfloat));
    queue().enqueueWriteBuffer(
        buffer, CL_TRUE, 0, host.size() * sizeof(cfloat), host.data());
    return buffer;
}

std::vector<cfloat> read_back(const cl::Buffer& buffer, size_t elements)
{
    std::vector<cfloat> host(elements);
    queue().enqueueReadBuffer(buffer, CL_TRUE, 0, elements * sizeof(cfloat), host.data());
    return host;
}

/*
 * The per-point bound: an element may be off by at most 10 * bound * rms(ref).
 * Float32 rounding errors of FFT outputs are sums of many small independent
 * errors, close to complex Gaussian, and P(|e| > t * rms(e)) = exp(-t^2): even
 * over 2^24 points, no honest error reaches 10 * rms(e) (measured: about 5),
 * and rms(e) <= bound * rms(ref) is what the L2 bound allows. A point that the
 * kernels got wrong (a missed twiddle, a point from the wrong place) is off by
 * about rms(ref), which the L2 error dilutes by sqrt(N) but this bound does not.
 */
constexpr double worst_point_factor = 10;

// Whether error a is worse than b; a NaN is worse than anything.
bool worse(double a, double b) { return !(a <= b); }

// Random points at the layout's positions of batch transforms, poison elsewhere.
std::vector<cfloat>
poisoned_input(const layout& l, size_t n, size_t batch, size_t count, uint32_t seed)
{
    std::vector<cfloat> host(count, cfloat(poison_value(), poison_value()));
    const std::vector<cfloat> signal = random_signal(batch * n, seed);
    for (size_t b = 0; b < batch; ++b)
        for (size_t p = 0; p < n; ++p)
            host[l.at(b, p)] = signal[b * n + p];
    return host;
}

// Checks y against ref within bound (L2) and the per-point bound; keeps the worst.
void check_accuracy(const std::vector<cfloat>& y,
                    const std::vector<cdouble>& ref,
                    double bound,
                    const std::string& what,
                    accuracy& worst)
{
    const accuracy a = compare(y, ref);
    BOOST_CHECK_MESSAGE(a.relative_l2 <= bound,
                        what << ": relative L2 error " << a.relative_l2 << " > "
                             << bound);
    BOOST_CHECK_MESSAGE(a.worst_point <= worst_point_factor * bound,
                        what << ": a point is off by " << a.worst_point
                             << " * rms(reference) > " << worst_point_factor * bound);
    if (worse(a.relative_l2, worst.relative_l2))
        worst.relative_l2 = a.relative_l2;
    if (worse(a.worst_point, worst.worst_point))
        worst.worst_point = a.worst_point;
}

std::string describe(const core::fft_plan& plan)
{
    return "plan " + plan.describe() + (plan.options().in_place ? ", in place" : "");
}

} // namespace

double l2_bound(size_t n)
{
    return n <= (size_t(1) << 16) ? l2_bound_up_to_64k : l2_bound_large;
}

accuracy compare(const std::vector<cfloat>& y, const std::vector<cdouble>& ref)
{
    double error_energy = 0, ref_energy = 0, worst = 0;
    for (size_t k = 0; k < y.size(); ++k) {
        const double e = std::abs(cdouble(y[k]) - ref[k]);
        error_energy += e * e;
        ref_energy += std::norm(ref[k]);
        if (worse(e, worst))
            worst = e;
    }
    const double ref_rms = std::sqrt(ref_energy / double(y.size()));
    return { std::sqrt(error_energy / ref_energy), worst / ref_rms };
}


accuracy check_plan(const core::fft_plan& plan, uint32_t seed, size_t batch)
{
    const size_t n = plan.size();
    const core::fft_options& options = plan.options();
    const size_t run_batch = batch ? batch : options.batch;
    const layout in(options.input, n), out(options.output, n);
    const std::string what = describe(plan) + ", running " + std::to_string(run_batch);

    BOOST_REQUIRE_MESSAGE(
        plan.input_elements(options.batch) == in.elements(n, options.batch),
        what << ": input_elements() " << plan.input_elements(options.batch));
    BOOST_REQUIRE_MESSAGE(
        plan.output_elements(options.batch) == out.elements(n, options.batch),
        what << ": output_elements() " << plan.output_elements(options.batch));

    // The buffers hold the plan's whole batch, so that running fewer transforms
    // shows when the others are touched.
    const size_t in_count = in.elements(n, options.batch) + tail_slack;
    const size_t out_count = out.elements(n, options.batch) + tail_slack;
    const size_t data_count = options.in_place ? std::max(in_count, out_count) : in_count;
    const std::vector<cfloat> host_in =
        poisoned_input(in, n, options.batch, data_count, seed);

    const cl::Buffer input = device_buffer(host_in);
    cl::Buffer output = input;
    if (!options.in_place) {
        output = cl::Buffer(
            context()->context(), CL_MEM_READ_WRITE, out_count * sizeof(cfloat));
        queue().enqueueFillBuffer(output, poison_bits, 0, out_count * sizeof(cfloat));
    }
    cl::Event done = options.in_place ? plan.enqueue(queue(), input, {}, batch)
                                      : plan.enqueue(queue(), input, output, {}, batch);
    done.wait();
    const std::vector<cfloat> result =
        read_back(output, options.in_place ? data_count : out_count);

    if (!options.in_place) {
        const std::vector<cfloat> input_after = read_back(input, in_count);
        BOOST_CHECK_MESSAGE(std::memcmp(input_after.data(),
                                        host_in.data(),
                                        in_count * sizeof(cfloat)) == 0,
                            what << ": the input buffer changed");
    }

    // Every element: finite where the batch writes, as it was elsewhere (poison,
    // or in place the input of the transforms beyond the batch).
    std::vector<char> written(result.size(), 0);
    for (size_t b = 0; b < run_batch; ++b)
        for (size_t p = 0; p < n; ++p)
            written[out.at(b, p)] = 1;
    size_t not_finite = 0, overwritten = 0, first_not_finite = 0, first_overwritten = 0;
    for (size_t i = 0; i < result.size(); ++i) {
        const float re = result[i].real(), im = result[i].imag();
        const cfloat before =
            options.in_place ? host_in[i] : cfloat(poison_value(), poison_value());
        if (written[i] && !(std::isfinite(re) && std::isfinite(im)) && not_finite++ == 0)
            first_not_finite = i;
        if (!written[i] && std::memcmp(&result[i], &before, sizeof before) != 0 &&
            overwritten++ == 0)
            first_overwritten = i;
    }
    BOOST_CHECK_MESSAGE(not_finite == 0,
                        what << ": " << not_finite
                             << " output points not finite (first: element "
                             << first_not_finite << ")");
    BOOST_CHECK_MESSAGE(
        overwritten == 0,
        what << ": " << overwritten
             << " elements outside the output layout written (first: element "
             << first_overwritten << ")");

    accuracy worst;
    for (size_t b = 0; b < run_batch; ++b)
        check_accuracy(gather(result, out, b, n),
                       wideband_reference::fft(gather(host_in, in, b, n), options),
                       l2_bound(n),
                       what + ", transform " + std::to_string(b),
                       worst);
    return worst;
}

accuracy check_fft(size_t n, const core::fft_options& options, uint32_t seed)
{
    const core::fft_plan plan(context(), n, options);
    return check_plan(plan, seed);
}

accuracy
check_round_trip(size_t n, const core::fft_options& forward_options, uint32_t seed)
{
    core::fft_options inverse_options = forward_options;
    inverse_options.direction = core::fft_direction::inverse;
    inverse_options.normalize = true;
    std::swap(inverse_options.input, inverse_options.output);
    const core::fft_plan forward(context(), n, forward_options);
    const core::fft_plan inverse(context(), n, inverse_options);
    const std::string what =
        "round trip through " + describe(forward) + " and " + describe(inverse);

    const size_t batch = forward_options.batch;
    const layout in(forward_options.input, n), out(forward_options.output, n);
    const size_t in_count = in.elements(n, batch) + tail_slack;
    const std::vector<cfloat> host_in = poisoned_input(in, n, batch, in_count, seed);
    const cl::Buffer input = device_buffer(host_in);

    // The inverse goes to another queue: only the wait list orders it.
    static const auto* second_queue = new cl::CommandQueue(context()->create_queue());
    cl::Buffer result = input;
    if (forward_options.in_place) {
        const cl::Event first = forward.enqueue(queue(), input);
        inverse.enqueue(*second_queue, input, { first }).wait();
    } else {
        const cl::Buffer spectrum(context()->context(),
                                  CL_MEM_READ_WRITE,
                                  out.elements(n, batch) * sizeof(cfloat));
        result = cl::Buffer(
            context()->context(), CL_MEM_READ_WRITE, in_count * sizeof(cfloat));
        const cl::Event first = forward.enqueue(queue(), input, spectrum);
        inverse.enqueue(*second_queue, spectrum, result, { first }).wait();
    }
    const std::vector<cfloat> back = read_back(result, in_count);

    accuracy worst;
    for (size_t b = 0; b < batch; ++b) {
        const std::vector<cfloat> x = gather(host_in, in, b, n);
        check_accuracy(gather(back, in, b, n),
                       std::vector<cdouble>(x.begin(), x.end()),
                       2 * l2_bound(n),
                       what + ", transform " + std::to_string(b),
                       worst);
    }
    return worst;
}

void length_sweep::check(size_t n, bool forward, bool inverse, size_t max_pass_length)
{
    BOOST_TEST_CONTEXT("N = " << n << ", max_pass_length " << max_pass_length)
    {
        core::fft_options forward_options;
        forward_options.batch = 3;
        forward_options.max_pass_length = max_pass_length;
        if (forward)
            add(n, check_fft(n, forward_options, uint32_t(n)));
        if (inverse) {
            core::fft_options inverse_options = forward_options;
            inverse_options.direction = core::fft_direction::inverse;
            inverse_options.normalize = true;
            inverse_options.in_place = true;
            inverse_options.batch = 2;
            add(n, check_fft(n, inverse_options, uint32_t(n + 1)));
        }
        if (forward && inverse)
            add(n, check_round_trip(n, forward_options, uint32_t(n + 2)));
    }
}

void length_sweep::add(size_t n, const accuracy& a)
{
    if (worse(a.relative_l2, d_worst.relative_l2)) {
        d_worst.relative_l2 = a.relative_l2;
        d_l2_n = n;
    }
    if (worse(a.worst_point, d_worst.worst_point)) {
        d_worst.worst_point = a.worst_point;
        d_point_n = n;
    }
}

std::string length_sweep::summary() const
{
    std::ostringstream s;
    s << "worst relative L2 error " << d_worst.relative_l2 << " (N=" << d_l2_n
      << "), worst point " << d_worst.worst_point << " * rms (N=" << d_point_n << ")";
    return s.str();
}

} // namespace wideband_test
