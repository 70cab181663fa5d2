/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_TESTS_REFERENCE_H
#define INCLUDED_WIDEBAND_CORE_TESTS_REFERENCE_H

/*
 * The float64 reference of each engine of the core, written from the formulas
 * its header states, and the random test data: one place for the core's tests
 * and the benchmarks (library wideband-reference). The FFT goes through FFTW in
 * double precision where the build has it.
 */

#include <gnuradio/wideband/core/fft_plan.h>

#include <complex>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace wideband_reference {

namespace core = gr::wideband::core;
using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

//! Sample k of a stream (k counts from the stream's first sample).
using sample_fn = std::function<cfloat(uint64_t)>;

//! Uniform in [-1, 1), never zero; the same for the same seed.
std::vector<float> random_reals(size_t count, uint32_t seed);

//! Real and imaginary parts uniform in [-1, 1), never zero.
std::vector<cfloat> random_signal(size_t count, uint32_t seed);

/*!
 * What an fft_plan computes from the N points of one transform: window, input
 * shift, transform, output shift and normalisation as fft_options describes
 * them (FFTW in double precision; without FFTW a direct DFT, O(N^2)).
 */
std::vector<cdouble> fft(const std::vector<cfloat>& x, const core::fft_options& options);

/*!
 * The cosine transform of \p x (fft_transform dct_ii, dct_iii or dct_iv) as
 * scipy.fft.dct(x, type, norm) defines it (see fft_plan.h), in double
 * precision: each sum the real part of a DFT of 4N or 8N points (FFTW; without
 * it O(N^2) direct sums of those lengths).
 */
std::vector<double>
dct(const std::vector<double>& x, core::fft_transform type, core::dct_norm norm);

/*!
 * The two-dimensional DCT of an 8x8 block (block_dct.h), b[y * 8 + x] in,
 * the result [u * 8 + v] out, as the direct sums in double precision
 * (scipy.fft.dctn / idctn, type 2, N = 8 per dimension):
 *   forward: y[u][v] = w_u w_v sum_y sum_x b[y][x] cos(pi u (2y+1)/16)
 *                                                  cos(pi v (2x+1)/16),
 *            w_k = 2 (norm=None), or 2 sqrt(1/4N) at k = 0, 2 sqrt(1/2N)
 *            elsewhere ("ortho");
 *   inverse: x[y][x] = sum_u sum_v c_u c_v b[u][v] cos(pi u (2y+1)/16)
 *                                                  cos(pi v (2x+1)/16),
 *            c_0 = 1/2N, c_k = 1/N (norm=None), or c_0 = 1/sqrt(N),
 *            c_k = sqrt(2/N) ("ortho").
 */
std::vector<double>
block_dct(const std::vector<double>& block, bool inverse, core::dct_norm norm);

/*!
 * The FIR filter (fft_filter.h): y[m] = sum_k h[k] x[m D - k] for m = first ..
 * first + count - 1, with x[n] = 0 for n < zero_before (and before the stream).
 */
std::vector<cdouble> fir(const sample_fn& x,
                         const std::vector<cfloat>& h,
                         size_t D,
                         uint64_t first,
                         size_t count,
                         uint64_t zero_before = 0);
//! The same on a stream held whole; \throws std::out_of_range past its end.
std::vector<cdouble> fir(const std::vector<cfloat>& x,
                         const std::vector<cfloat>& h,
                         size_t D,
                         uint64_t first,
                         size_t count,
                         uint64_t zero_before = 0);

//! From output \p from on, centre nu = f / fs (cycles per sample) and taps
//! \p taps, the input taken as zero before sample \p zero_before.
struct translation {
    uint64_t from;
    double nu;
    std::vector<cfloat> taps;
    uint64_t zero_before = 0;
};

/*!
 * GNU Radio's freq_xlating_fir_filter_ccc in double precision
 * (freq_xlating_filter.h), outputs 0 .. count - 1: in the segment of
 * translation s (from r = its `from`, centre nu, N taps p),
 *   y[n] = A_s e^{-2 pi i nu D (n - r)} sum_k p[k] e^{2 pi i nu k} x[n D - k],
 * A_0 = e^{-pi i nu (N - 1)}, and A_s the rotation of segment s - 1 at r times
 * e^{-pi i (nu - nu_{s-1}) (N - 1)}. \p segments start with from = 0, in order.
 */
std::vector<cdouble> freq_xlating(const std::vector<cfloat>& x,
                                  size_t D,
                                  const std::vector<translation>& segments,
                                  size_t count);

using frames_by_channel = std::vector<std::vector<cdouble>>; // [channel][frame]

/*!
 * GNU Radio's pfb.channelizer_ccf (pfb_channelizer.h), M channels, D = M / r
 * input samples per frame, t = (q + 1) D - 1 and x[k] = 0 for k < zero_before:
 *   y_c[q] = exp(-2 pi i c (D+1)/M) sum_n h[n] x[t-n] exp(-2 pi i c (t-n)/M)
 * for frames q = first .. first + count - 1 of each of \p channels, in order.
 */
frames_by_channel pfb_channelizer(const sample_fn& x,
                                  const std::vector<float>& taps,
                                  size_t M,
                                  size_t D,
                                  const std::vector<size_t>& channels,
                                  uint64_t first,
                                  size_t count,
                                  uint64_t zero_before = 0);
//! The same on a stream held whole; \throws std::out_of_range past its end.
frames_by_channel pfb_channelizer(const std::vector<cfloat>& x,
                                  const std::vector<float>& taps,
                                  size_t M,
                                  size_t D,
                                  const std::vector<size_t>& channels,
                                  uint64_t first,
                                  size_t count,
                                  uint64_t zero_before = 0);

//! Point n of the linear convolution of signal s (L points) and filter f (S points).
cdouble
linear_convolution_at(const cfloat* s, size_t L, const cfloat* f, size_t S, size_t n);

//! All L + S - 1 points of it (batched_convolution.h).
std::vector<cdouble>
linear_convolution(const cfloat* s, size_t L, const cfloat* f, size_t S);

//! Settings of the arbitrary resampler that change before a given output (as
//! between two calls).
struct arb_change {
    float rate = 0.0f;       // 0: unchanged
    std::vector<float> taps; // empty: unchanged
};

/*!
 * GNU Radio's pfb_arb_resampler_ccf (arb_resampler.h) of R filters over the
 * whole of x, its loops verbatim (float accumulator, floor and fmodf), the
 * filter sums in double; `changes` apply before the output of their index (the
 * step after the previous output was made at the old rate, as in a work()
 * call); the first filter is start_filter, or the block's, taps / 2 % R, when
 * negative.
 */
std::vector<cdouble> arb_resampler(const std::vector<cfloat>& x,
                                   float rate,
                                   std::vector<float> taps,
                                   unsigned R,
                                   const std::map<size_t, arb_change>& changes = {},
                                   int start_filter = -1);

} // namespace wideband_reference

#endif /* INCLUDED_WIDEBAND_CORE_TESTS_REFERENCE_H */
