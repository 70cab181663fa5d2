/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_TESTS_FFT_CHECK_H
#define INCLUDED_WIDEBAND_CORE_TESTS_FFT_CHECK_H

/*
 * Runs an fft_plan on the test device and checks every element it writes
 * against FFTW in double precision, and every element it must not write.
 */

#include "reference.h"
#include "test_support.h"

#include <gnuradio/wideband/core/fft_plan.h>

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace wideband_test {

//! No prime factor above 31: computed without Rader or Bluestein (written here,
//! apart from the planner's is_codelet_smooth, so that the tests check it).
inline bool is_smooth(size_t n)
{
    for (size_t p : { 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31 })
        while (n % p == 0)
            n /= p;
    return n == 1;
}

namespace core = gr::wideband::core;
using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

//! Relative L2 errors the issue sets: float32 FFTs against a float64 reference.
constexpr double l2_bound_up_to_64k = 1e-6; // N <= 2^16
constexpr double l2_bound_large = 3e-6;     // 2^16 < N <= 2^24
double l2_bound(size_t n);

using wideband_reference::random_signal;

//! Accuracy of one output against its reference.
struct accuracy {
    double relative_l2 = 0; //!< ||y - ref|| / ||ref||
    double worst_point = 0; //!< max_k |y_k - ref_k| / rms(ref)
};
accuracy compare(const std::vector<cfloat>& y, const std::vector<cdouble>& ref);

/*!
 * Fills the plan's input layout with random points (seed), poisons every other
 * element of both buffers with NaN, runs \p batch transforms (0: the plan's
 * batch, passed to enqueue() as 0) and checks, failing the current test case
 * with the plan's description on any mismatch:
 *  - every output point of the batch is finite and within l2_bound(N), and
 *    no point is off by more than 10 * l2_bound(N) * rms(reference) (see
 *    worst_point_factor in fft_check.cc);
 *  - every other element of the output buffer is as it was: poison, or in
 *    place the input of transforms beyond the batch;
 *  - an out-of-place plan left its input buffer as it was.
 * Returns the worst accuracy over the batch.
 */
accuracy check_plan(const core::fft_plan& plan, uint32_t seed, size_t batch = 0);

//! Builds a plan of \p n points with \p options and check_plan()s it.
accuracy check_fft(size_t n, const core::fft_options& options, uint32_t seed);

/*!
 * A forward plan with \p forward_options (layouts, batch, in_place, shift,
 * max_pass_length), then the normalised inverse plan with the layouts
 * swapped, on a second queue that waits on the first plan's event; checks
 * that the round trip returns the random input within twice l2_bound(N).
 */
accuracy
check_round_trip(size_t n, const core::fft_options& forward_options, uint32_t seed);

/*!
 * Checks lengths one after another as each needs: forward (batch 3, out of
 * place), inverse (batch 2, normalised, in place), and the round trip when both;
 * keeps the worst errors for the log.
 */
class length_sweep
{
public:
    void check(size_t n, bool forward, bool inverse, size_t max_pass_length = 0);
    //! "worst relative L2 error ... (N=...), worst point ... (N=...)"
    std::string summary() const;

private:
    void add(size_t n, const accuracy& a);

    accuracy d_worst;
    size_t d_l2_n = 0, d_point_n = 0;
};

} // namespace wideband_test

#endif /* INCLUDED_WIDEBAND_CORE_TESTS_FFT_CHECK_H */
