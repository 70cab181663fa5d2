/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fft_tables.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace wideband {
namespace core {

std::complex<double> unit_root(unsigned long long a, unsigned long long b)
{
    a %= b;
    // The ratio is exact before the angle is formed; long double keeps the
    // result well inside the half ulp of the final float.
    const long double turn = static_cast<long double>(a) / static_cast<long double>(b);
    const long double angle = -2.0L * 3.141592653589793238462643383279502884L * turn;
    return { static_cast<double>(std::cos(angle)), static_cast<double>(std::sin(angle)) };
}

std::vector<std::complex<float>> stage_twiddles(size_t length)
{
    std::vector<std::complex<float>> t(length);
    for (size_t i = 0; i < length; ++i)
        t[i] = std::complex<float>(unit_root(i, length));
    return t;
}

unsigned pass_twiddle_lo_bits(size_t n)
{
    unsigned bits = 0;
    while ((size_t(1) << bits) < n)
        ++bits;
    return (bits + 1) / 2;
}

std::vector<std::complex<float>> pass_twiddles(size_t n, unsigned lo_bits)
{
    const size_t lo = size_t(1) << lo_bits;
    const size_t hi = (n + lo - 1) / lo;
    std::vector<std::complex<float>> t(lo + hi);
    for (size_t i = 0; i < lo; ++i)
        t[i] = std::complex<float>(unit_root(i, n));
    for (size_t i = 0; i < hi; ++i)
        t[lo + i] =
            std::complex<float>(unit_root(static_cast<unsigned long long>(i) * lo, n));
    return t;
}

std::vector<std::complex<double>> bluestein_chirp(size_t n, int sign)
{
    std::vector<std::complex<double>> c(n);
    const unsigned long long two_n = 2ull * n;
    for (size_t m = 0; m < n; ++m) {
        // exp(-pi i m^2 / n) = W(m^2 mod 2n, 2n); m^2 formed in 64-bit integers
        const unsigned long long sq = (static_cast<unsigned long long>(m) * m) % two_n;
        const auto w = unit_root(sq, two_n);
        c[m] = sign < 0 ? w : std::conj(w);
    }
    return c;
}

namespace {

// One level of host_fft(): x (n points, n | roots.size()) is split by its
// smallest prime factor p into p interleaved sequences of n / p points, each
// transformed, then combined by p-point DFTs with twiddles read from roots,
// the table W(t, N) of the top-level length N.
void host_fft_level(std::vector<std::complex<double>>& x,
                    const std::vector<std::complex<double>>& roots)
{
    const size_t n = x.size();
    if (n < 2)
        return;
    size_t p = 2;
    while (n % p && p * p <= n)
        ++p;
    if (n % p)
        p = n;
    const size_t m = n / p, step = roots.size() / n;
    std::vector<std::vector<std::complex<double>>> parts(
        p, std::vector<std::complex<double>>(m));
    for (size_t r = 0; r < p; ++r) {
        for (size_t j = 0; j < m; ++j)
            parts[r][j] = x[j * p + r];
        host_fft_level(parts[r], roots);
    }
    for (size_t k = 0; k < n; ++k) {
        std::complex<double> sum = 0.0;
        for (size_t r = 0, t = 0; r < p; ++r, t = (t + k) % n)
            sum += parts[r][k % m] * roots[t * step];
        x[k] = sum;
    }
}

} // namespace

void host_fft(std::vector<std::complex<double>>& data)
{
    std::vector<std::complex<double>> roots(data.size());
    for (size_t t = 0; t < roots.size(); ++t)
        roots[t] = unit_root(t, roots.size());
    host_fft_level(data, roots);
}

std::vector<std::complex<double>>
bluestein_spectrum(const std::vector<std::complex<double>>& chirp, size_t padded)
{
    const size_t n = chirp.size();
    if (padded < 2 * n - 1)
        throw std::invalid_argument("bluestein_spectrum: padded length too short");
    std::vector<std::complex<double>> b(padded, 0.0);
    b[0] = std::conj(chirp[0]);
    for (size_t m = 1; m < n; ++m)
        b[m] = b[padded - m] = std::conj(chirp[m]);
    host_fft(b);
    for (auto& v : b)
        v /= static_cast<double>(padded);
    return b;
}

bool is_prime(size_t n)
{
    if (n < 2)
        return false;
    for (size_t d = 2; d * d <= n; ++d)
        if (n % d == 0)
            return false;
    return true;
}

namespace {

size_t pow_mod(size_t base, size_t exponent, size_t n)
{
    unsigned long long result = 1, b = base % n;
    for (; exponent; exponent >>= 1, b = b * b % n)
        if (exponent & 1)
            result = result * b % n;
    return static_cast<size_t>(result);
}

// The smallest generator of the multiplicative group modulo the prime n.
size_t primitive_root(size_t n)
{
    std::vector<size_t> factors; // distinct prime factors of n - 1
    size_t m = n - 1;
    for (size_t q = 2; q * q <= m; ++q)
        if (m % q == 0) {
            factors.push_back(q);
            while (m % q == 0)
                m /= q;
        }
    if (m > 1)
        factors.push_back(m);
    for (size_t g = 2;; ++g) {
        bool generates = true;
        for (size_t q : factors)
            generates = generates && pow_mod(g, (n - 1) / q, n) != 1;
        if (generates)
            return g;
    }
}

void require_odd_prime(size_t n, const char* who)
{
    if (n < 3 || !is_prime(n))
        throw std::invalid_argument(std::string(who) + ": " + std::to_string(n) +
                                    " is not an odd prime");
}

} // namespace

std::vector<uint32_t> rader_permutation(size_t n)
{
    require_odd_prime(n, "rader_permutation");
    const size_t g = primitive_root(n), g_inverse = pow_mod(g, n - 2, n);
    std::vector<uint32_t> perm(2 * (n - 1));
    unsigned long long forward = 1, backward = 1;
    for (size_t p = 0; p < n - 1; ++p) {
        perm[p] = static_cast<uint32_t>(forward);
        perm[n - 1 + p] = static_cast<uint32_t>(backward);
        forward = forward * g % n;
        backward = backward * g_inverse % n;
    }
    return perm;
}

std::vector<std::complex<double>> rader_spectrum(size_t n, int sign)
{
    require_odd_prime(n, "rader_spectrum");
    const size_t m = n - 1;
    const std::vector<uint32_t> perm = rader_permutation(n);
    std::vector<std::complex<double>> kernel(m);
    for (size_t j = 0; j < m; ++j) {
        const auto w = unit_root(perm[m + j], n);
        kernel[j] = sign < 0 ? w : std::conj(w);
    }
    host_fft(kernel);
    for (auto& v : kernel)
        v /= static_cast<double>(m);
    return kernel;
}

} // namespace core
} // namespace wideband
} // namespace gr
