/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Long transforms against FFTW: powers of two up to 2^20 and once 2^24, a long
// smooth length and a long prime. One transform each (batch 1): the CPU
// device is slow and FFTW's double-precision reference of 2^24 points alone
// takes seconds.

#define BOOST_TEST_MODULE qa_fft_large
#include <boost/test/unit_test.hpp>

#include "fft_check.h"
#include "scoped_env.h"

using namespace wideband_test;

namespace {

core::fft_options one_transform(core::fft_direction direction)
{
    core::fft_options options;
    options.direction = direction;
    if (direction == core::fft_direction::inverse) {
        options.normalize = true;
        options.in_place = true;
    }
    return options;
}

void check_length(size_t n, core::fft_direction direction)
{
    const accuracy a = check_fft(n, one_transform(direction), uint32_t(n));
    BOOST_TEST_MESSAGE(
        "N = " << n
               << (direction == core::fft_direction::forward ? " forward" : " inverse")
               << ": relative L2 error " << a.relative_l2 << ", worst point "
               << a.worst_point << " * rms");
}

} // namespace

BOOST_AUTO_TEST_CASE(powers_of_two_up_to_2_20)
{
    // Forward for all, inverse for a few; 2^1..2^7 are in qa_fft_sizes.
    for (unsigned bits = 8; bits <= 20; ++bits) {
        check_length(size_t(1) << bits, core::fft_direction::forward);
        if (bits == 11 || bits == 17)
            check_length(size_t(1) << bits, core::fft_direction::inverse);
    }
}

BOOST_AUTO_TEST_CASE(round_trip_2_20_in_place)
{
    core::fft_options options;
    options.in_place = true;
    check_round_trip(size_t(1) << 20, options, 20);
}

BOOST_AUTO_TEST_CASE(power_of_two_2_24)
{
    check_length(size_t(1) << 24, core::fft_direction::forward);
}

BOOST_AUTO_TEST_CASE(long_smooth_length_and_long_prime)
{
    // 2^4 * 3^2 * 5 * 7 * 11 * 13: every kind of codelet in several passes;
    // the prime 65537: Bluestein over 131220 points in several passes.
    for (size_t n : { 720720, 65537 }) {
        check_length(n, core::fft_direction::forward);
        check_length(n, core::fft_direction::inverse);
    }
}

BOOST_AUTO_TEST_CASE(bluestein_beyond_one_pass_at_smooth_lengths)
{
    // Bluestein's convolution at the next power of two where that fits one
    // pass, else at the shortest 7-smooth length that takes no more passes.
    // With 1600 bytes of local memory (200 points on chip, 50 in a pass of
    // several): 74 via 147 = 7 x 7 x 3 in one fused kernel (256 would take
    // passes), 106 via 216 in passes (the defaults' 65537 via 131220 is in
    // long_smooth_length_and_long_prime). Both directions.
    struct length_case {
        size_t n, padded;
        const char* tune;
        const char* kind;
    };
    for (const length_case& c :
         { length_case{ 74, 147, "local=1600", " (one fused kernel)" },
           length_case{ 106, 216, "local=1600", ", 4 launches" } }) {
        const scoped_env tune("WIDEBAND_FFT_TUNE", std::string(c.tune));
        for (auto direction :
             { core::fft_direction::forward, core::fft_direction::inverse })
            BOOST_TEST_CONTEXT("N = " << c.n)
            {
                core::fft_options options = one_transform(direction);
                options.batch = 3;
                const core::fft_plan plan(context(), c.n, options);
                const std::string via =
                    "Bluestein via " + std::to_string(c.padded) + c.kind;
                BOOST_TEST(plan.describe().find(via) != std::string::npos,
                           plan.describe());
                check_plan(plan, uint32_t(c.n), 3);
            }
    }
}

BOOST_AUTO_TEST_CASE(register_resident_single_passes)
{
    // GPUs compute lengths beyond local memory's 6144 points in one pass with
    // the points in registers (kernels/fft_stages.cl, EXCHANGE_PARTS); PoCL does
    // so when asked (it runs two passes faster). 8192 and 12000 (radix-5 stage
    // of partial rounds) exchange in one part, 16384 in two; the inverse in
    // place. Batch 3: the work-groups past the first.
    const scoped_env resident("WIDEBAND_FFT_TUNE", std::string("resident=1"));
    for (size_t n : { 8192, 12000, 16384 }) {
        BOOST_TEST_CONTEXT("N = " << n)
        {
            core::fft_options options = one_transform(
                n == 16384 ? core::fft_direction::inverse : core::fft_direction::forward);
            options.batch = 3;
            const core::fft_plan plan(context(), n, options);
            BOOST_TEST(plan.launches() == 1u);
            BOOST_TEST(plan.describe().find("in registers") != std::string::npos,
                       plan.describe());
            check_plan(plan, uint32_t(n), 3);
        }
    }
}

BOOST_AUTO_TEST_CASE(rejected_register_resident_kernel_falls_back_to_passes)
{
    // A driver that rejects a register-resident kernel (WIDEBAND_FAULT=
    // build:TEXT fails the builds whose options contain TEXT): the plan takes
    // passes of local memory instead, with the same results. 4 KiB of local
    // memory (512 points on chip) keeps the kernels small for PoCL: 960 points
    // are register-resident in one part. Any other failed build is the caller's.
    const scoped_env tune("WIDEBAND_FFT_TUNE", std::string("resident=1,local=4096"));
    core::fft_options options = one_transform(core::fft_direction::forward);
    options.batch = 3;
    {
        const scoped_env fault("WIDEBAND_FAULT", std::string("build:-DEXCHANGE_PARTS=1"));
        const core::fft_plan plan(context(), 960, options);
        BOOST_TEST(plan.launches() == 2u, plan.describe());
        BOOST_TEST(plan.describe().find("in registers") == std::string::npos);
        check_plan(plan, 960, 3);

        const scoped_env other("WIDEBAND_FAULT", std::string("build:-DFFT_L=256 "));
        BOOST_CHECK_THROW(core::fft_plan(context(), 256, options), std::runtime_error);
    }
    // Without the fault, the same transform in registers (built only now: a
    // build that failed is not cached).
    const core::fft_plan plan(context(), 960, options);
    BOOST_TEST(plan.launches() == 1u);
    BOOST_TEST(plan.describe().find("in registers, exchanged in 1 part") !=
                   std::string::npos,
               plan.describe());
}
