/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * batched_convolution against per-pair direct linear convolutions in float64,
 * y_p[n] = sum_k f_p[k] s_p[n - k], 0 <= n < L + S - 1, written here from the
 * header's formula: L > S, L < S, S = 1, L = S = 1, a shared filter, a requested
 * FFT size with factors 11 and 13, and one whose FFT needs several passes on
 * every device (20000 points; one pass holds at most 8192). Results are
 * bit-for-bit independent of how the pairs are split into calls: one call
 * with all pairs against calls with subsets, in a shuffled order. Output
 * buffers are poisoned: every output point is written, nothing past them.
 */

#define BOOST_TEST_MODULE qa_batched_convolution
#include <boost/test/unit_test.hpp>

#include "conv_check.h"

#include <gnuradio/wideband/core/batched_convolution.h>

#include <numeric>
#include <random>

using namespace conv_check;

BOOST_TEST_GLOBAL_FIXTURE(compile_report);

namespace {

/*
 * Accuracy bound: three float32 FFTs of N points (the filters', the signals'
 * and the inverse), each held by the FFT tests to 1e-6 relative L2 (N <= 2^16),
 * and a rounded multiply: at most about 3e-6 relative to a pair's output
 * (random signals and filters: ||y|| = ||s|| ||f|| on average). Measured: 1e-7
 * to 3e-7.
 */
constexpr double l2_bound = 3e-6;

struct config {
    const char* what;
    size_t L, S, pairs;
    bool shared;
    size_t fft_size; // 0: the engine's choice
};

const config configs[] = {
    { "L > S", 100, 31, 7, false, 0 },
    { "L < S, requested fft_size 143 = 11 * 13", 31, 100, 5, false, 143 },
    { "S = 1", 1000, 1, 4, false, 0 },
    { "L = S = 1", 1, 1, 3, false, 0 },
    { "shared filter", 257, 64, 9, true, 0 },
    { "several passes (N = 20000)", 19000, 1001, 3, false, 0 },
};

// The smallest 7-smooth number >= n (the header's default fft_size).
size_t smooth7_at_least(size_t n)
{
    for (;; ++n) {
        size_t m = n;
        for (size_t p : { 2, 3, 5, 7 })
            while (m % p == 0)
                m /= p;
        if (m == 1)
            return n;
    }
}

std::vector<cfloat> slice_of(const std::vector<cfloat>& v, size_t first, size_t count)
{
    return std::vector<cfloat>(v.begin() + first, v.begin() + first + count);
}

/*
 * Runs bc on the given pairs (indices into signals and filters of all pairs):
 * their signals and filters copied into fresh buffers in that order, one call.
 * Checks that the inputs were left as they were, that every output point was
 * written and nothing past them. Returns the outputs, pair by pair in the given
 * order.
 */
std::vector<std::vector<cfloat>> run(const core::batched_convolution& bc,
                                     const config& c,
                                     const std::vector<cfloat>& signals,
                                     const std::vector<cfloat>& filters,
                                     const std::vector<size_t>& pairs,
                                     const std::string& what)
{
    const size_t P = pairs.size(), R = bc.output_length();
    std::vector<cfloat> s(P * c.L), f(c.shared ? c.S : P * c.S);
    for (size_t i = 0; i < P; ++i) {
        std::copy_n(signals.begin() + pairs[i] * c.L, c.L, s.begin() + i * c.L);
        if (!c.shared)
            std::copy_n(filters.begin() + pairs[i] * c.S, c.S, f.begin() + i * c.S);
    }
    if (c.shared)
        f = filters;
    const cl::Buffer sb = device_buffer(s), fb = device_buffer(f);
    const size_t out_elements = P * R + tail_slack;
    const cl::Buffer ob = poisoned_buffer(out_elements);
    bc.enqueue(queue(), sb, fb, ob, P).wait();

    BOOST_CHECK_MESSAGE(first_difference(read_back(sb, s.size()), s) == s.size(),
                        what << ": the signals buffer changed");
    BOOST_CHECK_MESSAGE(first_difference(read_back(fb, f.size()), f) == f.size(),
                        what << ": the filters buffer changed");
    const std::vector<cfloat> host = read_back(ob, out_elements);
    size_t missed = 0, stray = 0;
    for (size_t i = 0; i < host.size(); ++i) {
        if (i < P * R && has_poison(host[i]))
            ++missed;
        if (i >= P * R && !is_poison(host[i]))
            ++stray;
    }
    BOOST_CHECK_MESSAGE(missed == 0,
                        what << ": " << missed << " of " << P * R
                             << " output points not written");
    BOOST_CHECK_MESSAGE(stray == 0,
                        what << ": " << stray << " elements past the outputs changed");
    std::vector<std::vector<cfloat>> y(P);
    for (size_t i = 0; i < P; ++i)
        y[i].assign(host.begin() + i * R, host.begin() + (i + 1) * R);
    return y;
}

core::batched_convolution_options make_options(const config& c, size_t max_pairs)
{
    core::batched_convolution_options o;
    o.signal_length = c.L;
    o.filter_length = c.S;
    o.max_pairs = max_pairs;
    o.shared_filter = c.shared;
    o.fft_size = c.fft_size;
    return o;
}

} // namespace

/*
 * Each configuration: one call with all pairs against the float64 reference;
 * then the same object with the pairs shuffled and split into calls of 1, 2, ...
 * pairs, and a call with the first pair alone: bit-for-bit the outputs of the
 * one call.
 */
BOOST_AUTO_TEST_CASE(against_direct_convolution_and_split_bit_for_bit)
{
    accuracy worst;
    uint32_t seed = 10;
    for (const config& c : configs) {
        BOOST_TEST_CONTEXT(c.what << ": L=" << c.L << " S=" << c.S
                                  << " pairs=" << c.pairs)
        {
            const core::batched_convolution bc(context(), make_options(c, c.pairs));
            const size_t R = c.L + c.S - 1;
            BOOST_TEST(bc.output_length() == R);
            BOOST_TEST(bc.fft_size() == (c.fft_size ? c.fft_size : smooth7_at_least(R)));
            const std::string name = std::string(c.what) + ": " + bc.describe();
            const std::vector<cfloat> signals = random_signal(c.pairs * c.L, ++seed);
            const std::vector<cfloat> filters =
                random_signal((c.shared ? 1 : c.pairs) * c.S, ++seed);

            std::vector<size_t> all(c.pairs);
            std::iota(all.begin(), all.end(), 0);
            const auto y = run(bc, c, signals, filters, all, name + ", all pairs");
            accuracy a;
            for (size_t p = 0; p < c.pairs; ++p)
                a.merge(check_accuracy(
                    y[p],
                    wideband_reference::linear_convolution(
                        &signals[p * c.L], c.L, &filters[c.shared ? 0 : p * c.S], c.S),
                    l2_bound,
                    name + ", pair " + std::to_string(p)));
            worst.merge(a);
            BOOST_TEST_MESSAGE(name << ": " << format(a));

            // Shuffled, in calls of 1, 2, 3, ... pairs.
            std::vector<size_t> order = all;
            std::shuffle(order.begin(), order.end(), std::mt19937(++seed));
            for (size_t begin = 0, size = 1; begin < c.pairs; begin += size, ++size) {
                size = std::min(size, c.pairs - begin);
                const std::vector<size_t> part(order.begin() + begin,
                                               order.begin() + begin + size);
                const auto yp = run(bc, c, signals, filters, part, name + ", a subset");
                for (size_t i = 0; i < size; ++i)
                    check_identical(yp[i],
                                    y[part[i]],
                                    name + ", pair " + std::to_string(part[i]) +
                                        " in a call of " + std::to_string(size) +
                                        " (place " + std::to_string(i) + ")");
            }
        }
    }
    BOOST_TEST_MESSAGE("worst " << format(worst));
}

/*
 * Calls on two queues, enqueued back to back (as two threads with a queue
 * each would). The object holds its filters' spectra in one buffer for all
 * calls (enqueue() locks a mutex around it): a call on one queue must not
 * overwrite the spectra that a call on another queue has yet to use. Each
 * call has its own filters; both outputs must be right. Several rounds, as the
 * device decides the interleaving.
 */
BOOST_AUTO_TEST_CASE(calls_on_two_queues)
{
    const config c = { "two queues", 100, 31, 4, false, 0 };
    const core::batched_convolution bc(context(), make_options(c, c.pairs));
    const size_t R = bc.output_length();
    const cl::CommandQueue other = context()->create_queue();
    const uint32_t rounds = 20;
    size_t wrong_rounds = 0;
    for (uint32_t round = 0; round < rounds; ++round) {
        const uint32_t seed = 60 + 4 * round;
        const std::vector<cfloat> s1 = random_signal(c.pairs * c.L, seed),
                                  f1 = random_signal(c.pairs * c.S, seed + 1),
                                  s2 = random_signal(c.pairs * c.L, seed + 2),
                                  f2 = random_signal(c.pairs * c.S, seed + 3);
        const cl::Buffer sb1 = device_buffer(s1), fb1 = device_buffer(f1),
                         sb2 = device_buffer(s2), fb2 = device_buffer(f2);
        const cl::Buffer ob1 = poisoned_buffer(c.pairs * R),
                         ob2 = poisoned_buffer(c.pairs * R);
        const cl::Event first = bc.enqueue(queue(), sb1, fb1, ob1, c.pairs);
        const cl::Event second = bc.enqueue(other, sb2, fb2, ob2, c.pairs);
        first.wait();
        second.wait();
        const std::vector<cfloat> y1 = read_back(ob1, c.pairs * R),
                                  y2 = read_back(ob2, c.pairs * R);
        accuracy a1, a2;
        for (size_t p = 0; p < c.pairs; ++p) {
            a1.merge(compare(slice_of(y1, p * R, R),
                             wideband_reference::linear_convolution(
                                 &s1[p * c.L], c.L, &f1[p * c.S], c.S)));
            a2.merge(compare(slice_of(y2, p * R, R),
                             wideband_reference::linear_convolution(
                                 &s2[p * c.L], c.L, &f2[p * c.S], c.S)));
        }
        const bool ok = a1.relative_l2 <= l2_bound && a2.relative_l2 <= l2_bound;
        wrong_rounds += !ok;
        BOOST_TEST_MESSAGE("round " << round << ": first call " << format(a1)
                                    << "; second call " << format(a2));
    }
    BOOST_CHECK_MESSAGE(wrong_rounds == 0,
                        wrong_rounds << " of " << rounds
                                     << " rounds of two calls on two queues gave a "
                                        "wrong result (see the messages)");
}

// What batched_convolution rejects, with a message naming the problem.
BOOST_AUTO_TEST_CASE(invalid_options_and_calls)
{
    const auto construct = [](core::batched_convolution_options o) {
        return [o] { core::batched_convolution bc(context(), o); };
    };
    const config c = { "valid", 100, 31, 4, false, 0 };
    check_rejected([&] { core::batched_convolution bc(nullptr, make_options(c, 4)); },
                   { "context" });
    core::batched_convolution_options o = make_options(c, 4);
    o.signal_length = 0;
    check_rejected(construct(o), { "signal_length" });
    o = make_options(c, 4);
    o.filter_length = 0;
    check_rejected(construct(o), { "filter_length" });
    o = make_options(c, 0);
    check_rejected(construct(o), { "max_pairs" });
    // fft_size below L + S - 1 = 130, or with a prime factor above 31.
    for (size_t n : { 129, 37 * 8, 2 * 3 * 5 * 37 }) {
        o = make_options(c, 4);
        o.fft_size = n;
        check_rejected(construct(o),
                       { "fft_size", std::to_string(n) },
                       "fft_size " + std::to_string(n));
    }

    const core::batched_convolution bc(context(), make_options(c, 4));
    const size_t R = bc.output_length();
    const auto buffer = [](size_t elements) {
        return cl::Buffer(
            context()->context(), CL_MEM_READ_WRITE, elements * sizeof(cfloat));
    };
    const cl::Buffer s = buffer(4 * c.L), f = buffer(4 * c.S), out = buffer(4 * R);
    check_rejected([&] { bc.enqueue(queue(), s, f, out, 0); }, { "pairs" });
    check_rejected([&] { bc.enqueue(queue(), s, f, out, 5); }, { "pairs" });
    // Buffers short by one element for 3 pairs.
    const struct {
        const char* which;
        std::function<void()> call;
    } short_buffers[] = {
        { "signals", [&] { bc.enqueue(queue(), buffer(3 * c.L - 1), f, out, 3); } },
        { "filters", [&] { bc.enqueue(queue(), s, buffer(3 * c.S - 1), out, 3); } },
        { "outputs", [&] { bc.enqueue(queue(), s, f, buffer(3 * R - 1), 3); } },
    };
    for (const auto& b : short_buffers) {
        try {
            b.call();
            queue().finish();
            BOOST_ERROR("a " << b.which << " buffer one element short was accepted");
        } catch (const std::invalid_argument& e) {
            BOOST_TEST(std::string(e.what()).find("buffer") != std::string::npos,
                       e.what());
            BOOST_TEST_MESSAGE(b.which << " buffer too small: " << e.what());
        }
    }
    // Exactly large enough for 3 pairs.
    BOOST_CHECK_NO_THROW(
        bc.enqueue(queue(), buffer(3 * c.L), buffer(3 * c.S), buffer(3 * R), 3).wait());
}
