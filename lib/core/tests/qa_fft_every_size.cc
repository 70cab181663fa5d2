/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Every transform length from 1 to 128 against FFTW.
//
// Each smooth length needs kernels of its own (about a second to build on
// PoCL) per direction: all lengths run forward, about half inverse too.

#define BOOST_TEST_MODULE qa_fft_every_size
#include <boost/test/unit_test.hpp>

#include "fft_check.h"

using namespace wideband_test;

BOOST_AUTO_TEST_CASE(every_length_up_to_128)
{
    // Inverse for the single radices (N <= 16), every other length above, and
    // every length that goes through Rader or Bluestein: both directions run
    // the same kernel with another spectrum, so they cost no build.
    length_sweep sweep;
    for (size_t n = 1; n <= 128; ++n)
        sweep.check(n, true, n <= 16 || n % 2 == 1 || !is_smooth(n));
    BOOST_TEST_MESSAGE("N = 1..128: " << sweep.summary());
}
