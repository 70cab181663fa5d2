/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Transform lengths above 128 against FFTW: primes up to 4093, smooth
// lengths of one and several passes, and small lengths forced into several
// passes. (Every length up to 128 is in qa_fft_every_size.)

#define BOOST_TEST_MODULE qa_fft_sizes
#include <boost/test/unit_test.hpp>

#include "fft_check.h"

#include <iterator>

using namespace wideband_test;

namespace {

bool is_prime(size_t n)
{
    if (n < 2)
        return false;
    for (size_t d = 2; d * d <= n; ++d)
        if (n % d == 0)
            return false;
    return true;
}

} // namespace

BOOST_AUTO_TEST_CASE(primes_up_to_1031)
{
    // Primes whose N - 1 is smooth go through Rader, one kernel build per
    // prime: those up to 211 and every fourth above. The others go through
    // Bluestein, whose kernels depend only on the padded length: every one.
    // Both directions share a kernel, so all of them run both ways.
    length_sweep sweep;
    size_t rader_seen = 0;
    for (size_t n = 2; n <= 1031; ++n) {
        if (!is_prime(n))
            continue;
        const bool rader = n > 31 && is_smooth(n - 1);
        if (rader && n > 211 && ++rader_seen % 4 != 0)
            continue;
        sweep.check(n, true, true);
    }
    BOOST_TEST_MESSAGE("primes up to 1031: " << sweep.summary());
}

BOOST_AUTO_TEST_CASE(rader_at_on_chip_sizes)
{
    // 4093: N - 1 = 4 * 3 * 11 * 31 in one on-chip transform of 132 work-items;
    // 2311: 2 * 3 * 5 * 7 * 11; 6143 (6142 = 2 * 37 * 83) goes through Bluestein.
    length_sweep sweep;
    for (size_t n : { 2311, 4093, 6143 })
        sweep.check(n, true, true);
    BOOST_TEST_MESSAGE("Rader at on-chip sizes: " << sweep.summary());
}

BOOST_AUTO_TEST_CASE(smooth_lengths)
{
    // 3-, 5- and 7-smooth lengths (one pass up to 6144 points on PoCL, several
    // above) and the radices 11 and 13. Inverse on every third.
    const size_t lengths[] = {
        243,  6144, 6561,  59049, // 3-smooth
        625,  3840, 15625,        // 5-smooth
        343,  5880, 16807,        // 7-smooth
        1331, 2197, 20449, 60060, // 11 and 13
    };
    length_sweep sweep;
    for (size_t i = 0; i < std::size(lengths); ++i)
        sweep.check(lengths[i], true, i % 3 == 0);
    BOOST_TEST_MESSAGE("smooth lengths: " << sweep.summary());
}

BOOST_AUTO_TEST_CASE(several_passes_of_small_lengths)
{
    // max_pass_length forces the multi-pass code on lengths that would fit one
    // pass: two passes of mixed radices, three of the radix-14 codelet, and
    // Bluestein over passes.
    length_sweep sweep;
    for (size_t n : { 96, 2744, 131 })
        sweep.check(n, true, true, 16);
    BOOST_TEST_MESSAGE("several passes of at most 16 points: " << sweep.summary());
}
