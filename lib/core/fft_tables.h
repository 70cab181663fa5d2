/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_FFT_TABLES_H
#define INCLUDED_WIDEBAND_CORE_FFT_TABLES_H

#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

/*
 * Constant tables of the FFT kernels, computed on the host in double precision
 * and rounded once to float. Angles are formed from exact integer ratios
 * (a mod b) / b, never from a float product, so no table entry carries more
 * than half an ulp of error.
 */

//! exp(-2 pi i a / b), in double precision, for any integers a, b > 0.
std::complex<double> unit_root(unsigned long long a, unsigned long long b);

//! W(t, L) = exp(-2 pi i t / L) for t < L: the stage twiddles of an on-chip FFT.
std::vector<std::complex<float>> stage_twiddles(size_t length);

/*!
 * Pass twiddles W(t, N), t < N, as two tables: lo[t mod 2^lo_bits] followed by
 * hi[t div 2^lo_bits], so that W(t, N) = lo * hi.
 */
std::vector<std::complex<float>> pass_twiddles(size_t n, unsigned lo_bits);
//! lo_bits for pass_twiddles(): about half the bits of n.
unsigned pass_twiddle_lo_bits(size_t n);

//! Bluestein chirp c[m] = exp(sign * pi i (m^2 mod 2n) / n), m < n (sign -1 forward).
std::vector<std::complex<double>> bluestein_chirp(size_t n, int sign);

/*!
 * The spectrum of Bluestein's convolution kernel b[m] = conj(c[|m|]), |m| < n,
 * wrapped to length padded (any length >= 2n - 1), transformed and scaled by
 * 1/padded.
 */
std::vector<std::complex<double>>
bluestein_spectrum(const std::vector<std::complex<double>>& chirp, size_t padded);

/*!
 * In-place forward DFT of any length in double precision (host, for the
 * plans' tables): mixed radix over the length's prime factors, so
 * O(n (p1 + p2 + ...)) for n = p1 p2 ...
 */
void host_fft(std::vector<std::complex<double>>& data);

//! True when n is prime.
bool is_prime(size_t n);

/*!
 * Rader's index maps for a prime n with primitive root g: entry p < n-1 is
 * g^p mod n (the input element on-chip point p reads), entry n-1+s is g^-s mod n
 * (the output element on-chip output s becomes).
 */
std::vector<uint32_t> rader_permutation(size_t n);

/*!
 * The spectrum of Rader's cyclic kernel b[m] = W(g^-m mod n, n) (conjugated for
 * sign +1, the inverse), m < n-1: its DFT of length n-1, scaled by 1/(n-1).
 */
std::vector<std::complex<double>> rader_spectrum(size_t n, int sign);

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_FFT_TABLES_H */
