/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "reference.h"

#ifdef WIDEBAND_HAVE_FFTW
#include <fftw3.h>
#endif

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

namespace wideband_reference {

namespace {

// The samples [begin, end) of x, zero before zero_before.
std::vector<cdouble>
window(const sample_fn& x, int64_t begin, int64_t end, uint64_t zero_before)
{
    std::vector<cdouble> w(size_t(std::max<int64_t>(end - begin, 0)));
    const int64_t first_nonzero = std::max<int64_t>(0, int64_t(zero_before));
    for (int64_t k = std::max(begin, first_nonzero); k < end; ++k)
        w[size_t(k - begin)] = cdouble(x(uint64_t(k)));
    return w;
}

sample_fn sample_of(const std::vector<cfloat>& x, uint64_t last)
{
    if (last >= x.size())
        throw std::out_of_range("reference: sample " + std::to_string(last) +
                                " of a stream of " + std::to_string(x.size()));
    return [&x](uint64_t k) { return x[k]; };
}

} // namespace

std::vector<float> random_reals(size_t count, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> v(count);
    for (auto& x : v)
        do
            x = uniform(rng);
        while (x == 0.0f);
    return v;
}

std::vector<cfloat> random_signal(size_t count, uint32_t seed)
{
    const std::vector<float> parts = random_reals(2 * count, seed);
    std::vector<cfloat> x(count);
    for (size_t k = 0; k < count; ++k)
        x[k] = cfloat(parts[2 * k], parts[2 * k + 1]);
    return x;
}

namespace {

// The unscaled DFT of \p in in double precision (FFTW; without it the direct
// sums, with twiddles from an exact table indexed by (j k) mod N).
std::vector<cdouble> dft(std::vector<cdouble> in, bool forward)
{
    const size_t n = in.size();
    std::vector<cdouble> out(n);
#ifdef WIDEBAND_HAVE_FFTW
    // std::complex<double> has fftw_complex's layout; FFTW_ESTIMATE leaves the data.
    auto* in_data = reinterpret_cast<fftw_complex*>(in.data());
    auto* out_data = reinterpret_cast<fftw_complex*>(out.data());
    const fftw_plan plan = fftw_plan_dft_1d(int(n),
                                            in_data,
                                            out_data,
                                            forward ? FFTW_FORWARD : FFTW_BACKWARD,
                                            FFTW_ESTIMATE | FFTW_UNALIGNED);
    fftw_execute(plan);
    fftw_destroy_plan(plan);
#else
    std::vector<cdouble> twiddle(n);
    for (size_t m = 0; m < n; ++m)
        twiddle[m] = std::polar(1.0, (forward ? -2 : 2) * M_PI * double(m) / double(n));
    for (size_t k = 0; k < n; ++k)
        for (size_t j = 0; j < n; ++j)
            out[k] += in[j] * twiddle[uint64_t(j) * k % n];
#endif
    return out;
}

} // namespace

std::vector<cdouble> fft(const std::vector<cfloat>& x, const core::fft_options& options)
{
    const size_t n = x.size();
    const bool forward = options.direction == core::fft_direction::forward;
    std::vector<cdouble> in(n);
    for (size_t m = 0; m < n; ++m) {
        // Inverse shift: point m of the transform is the windowed x[(m + N/2) mod N].
        const size_t source = options.shift && !forward ? (m + n / 2) % n : m;
        const double w = options.window.empty() ? 1.0 : options.window[source];
        in[m] = cdouble(x[source]) * w;
    }
    const std::vector<cdouble> out = dft(std::move(in), forward);
    const double scale = options.normalize ? 1.0 / double(n) : 1.0;
    std::vector<cdouble> y(n);
    for (size_t k = 0; k < n; ++k) {
        // Forward shift: X[k] goes to (k + N/2) mod N, numpy.fft.fftshift.
        const size_t target = options.shift && forward ? (k + n / 2) % n : k;
        y[target] = out[k] * scale;
    }
    return y;
}

std::vector<double>
dct(const std::vector<double>& x, core::fft_transform type, core::dct_norm norm)
{
    const size_t n = x.size();
    const bool ortho = norm == core::dct_norm::ortho;
    // Each cosine sum is the real part of one DFT whose input holds the points
    // at odd places: cos(pi k (2i+1) / 2N) = cos(2 pi k (2i+1) / 4N), and
    // cos(pi (2i+1)(2k+1) / 4N) = cos(2 pi (2i+1)(2k+1) / 8N).
    const size_t length = type == core::fft_transform::dct_iv ? 8 * n : 4 * n;
    std::vector<cdouble> in(length);
    for (size_t i = 0; i < n; ++i) {
        if (type ==
            core::fft_transform::dct_iii) // y_k = sum_i w_i x_i cos(pi i (2k+1) / 2N)
            in[i] = (i ? 2.0 : 1.0) * x[i];
        else
            in[2 * i + 1] = 2.0 * x[i];
    }
    const std::vector<cdouble> out = dft(std::move(in), true);
    std::vector<double> y(n);
    for (size_t k = 0; k < n; ++k) {
        switch (type) {
        case core::fft_transform::dct_ii:
            y[k] = out[k].real() * (ortho ? std::sqrt(1.0 / ((k ? 2.0 : 4.0) * n)) : 1.0);
            break;
        case core::fft_transform::dct_iii:
            // ortho weighs x_0 by 1/sqrt(N) and the others by sqrt(2/N), not 1 and 2.
            y[k] = ortho ? x[0] / std::sqrt(double(n)) +
                               (out[2 * k + 1].real() - x[0]) / std::sqrt(2.0 * n)
                         : out[2 * k + 1].real();
            break;
        default:
            y[k] = out[2 * k + 1].real() * (ortho ? std::sqrt(1.0 / (2.0 * n)) : 1.0);
            break;
        }
    }
    return y;
}

std::vector<double>
block_dct(const std::vector<double>& b, bool inverse, core::dct_norm norm)
{
    const double n = 8;
    const bool ortho = norm == core::dct_norm::ortho;
    double cosine[32], weight[8];
    for (size_t a = 0; a < 32; ++a)
        cosine[a] = std::cos(2.0 * M_PI * double(a) / 32.0);
    for (size_t k = 0; k < 8; ++k)
        weight[k] = inverse ? (ortho ? (k ? std::sqrt(2 / n) : 1 / std::sqrt(n))
                                     : (k ? 1 / n : 1 / (2 * n)))
                            : (ortho ? 2 * std::sqrt(1 / ((k ? 2 : 4) * n)) : 2.0);
    std::vector<double> out(64);
    for (size_t i = 0; i < 8; ++i)
        for (size_t j = 0; j < 8; ++j) {
            double sum = 0;
            for (size_t p = 0; p < 8; ++p)
                for (size_t q = 0; q < 8; ++q) {
                    // forward: (i, j) = (u, v), (p, q) = (y, x); inverse the reverse
                    const size_t u = inverse ? p : i, v = inverse ? q : j;
                    const size_t y = inverse ? i : p, x = inverse ? j : q;
                    sum += weight[u] * weight[v] * b[p * 8 + q] *
                           cosine[(u * (2 * y + 1)) % 32] *
                           cosine[(v * (2 * x + 1)) % 32];
                }
            out[i * 8 + j] = sum;
        }
    return out;
}

std::vector<cdouble> fir(const sample_fn& x,
                         const std::vector<cfloat>& h,
                         size_t D,
                         uint64_t first,
                         size_t count,
                         uint64_t zero_before)
{
    std::vector<cdouble> y(count);
    if (!count)
        return y;
    const size_t T = h.size();
    // w[j] = x[base + j]: output first + i sums h[T - 1 - j] w[i D + j], j < T.
    const int64_t base = int64_t(first * D) - int64_t(T - 1);
    const std::vector<cdouble> w =
        window(x, base, int64_t((first + count - 1) * D) + 1, zero_before);
    // Split parts and four partial sums each: the long references of the tests.
    std::vector<double> xr(w.size()), xi(w.size()), hr(T), hi(T);
    for (size_t j = 0; j < w.size(); ++j) {
        xr[j] = w[j].real();
        xi[j] = w[j].imag();
    }
    for (size_t j = 0; j < T; ++j) {
        hr[j] = h[T - 1 - j].real();
        hi[j] = h[T - 1 - j].imag();
    }
    auto compute = [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
            const double* a = &xr[i * D];
            const double* b = &xi[i * D];
            double rr[4] = {}, ii[4] = {}, ri[4] = {}, ir[4] = {};
            size_t j = 0;
            for (; j + 4 <= T; j += 4)
                for (int u = 0; u < 4; ++u) {
                    rr[u] += hr[j + u] * a[j + u];
                    ii[u] += hi[j + u] * b[j + u];
                    ri[u] += hr[j + u] * b[j + u];
                    ir[u] += hi[j + u] * a[j + u];
                }
            double re = 0, im = 0;
            for (; j < T; ++j) {
                re += hr[j] * a[j] - hi[j] * b[j];
                im += hr[j] * b[j] + hi[j] * a[j];
            }
            for (int u = 0; u < 4; ++u) {
                re += rr[u] - ii[u];
                im += ri[u] + ir[u];
            }
            y[i] = cdouble(re, im);
        }
    };
    if (double(count) * double(T) > 2e7) {
        std::thread other(compute, count / 2, count);
        compute(0, count / 2);
        other.join();
    } else {
        compute(0, count);
    }
    return y;
}

std::vector<cdouble> fir(const std::vector<cfloat>& x,
                         const std::vector<cfloat>& h,
                         size_t D,
                         uint64_t first,
                         size_t count,
                         uint64_t zero_before)
{
    if (!count)
        return {};
    return fir(sample_of(x, (first + count - 1) * D), h, D, first, count, zero_before);
}

std::vector<cdouble> freq_xlating(const std::vector<cfloat>& x,
                                  size_t D,
                                  const std::vector<translation>& segments,
                                  size_t count)
{
    const auto turn = [](double cycles) {
        return std::polar(1.0, 2.0 * M_PI * (cycles - std::floor(cycles)));
    };
    std::vector<cdouble> y(count);
    cdouble phase = 1.0;
    double nu = 0;
    uint64_t reference = 0;
    for (size_t s = 0; s < segments.size(); ++s) {
        const translation& t = segments[s];
        const size_t N = t.taps.size();
        phase *= turn(-nu * double(D * (t.from - reference)));
        phase *= turn(-(t.nu - nu) * double(N - 1) / 2);
        nu = t.nu;
        reference = t.from;
        std::vector<cdouble> taps(N);
        for (size_t k = 0; k < N; ++k)
            taps[k] = cdouble(t.taps[k]) * turn(nu * double(k));
        const uint64_t end = s + 1 < segments.size() ? segments[s + 1].from : count;
        for (uint64_t n = t.from; n < std::min<uint64_t>(end, count); ++n) {
            if (n * D >= x.size())
                throw std::out_of_range("freq_xlating: output past the stream");
            cdouble sum = 0;
            for (size_t k = 0; k < N && k + t.zero_before <= n * D; ++k)
                sum += taps[k] * cdouble(x[n * D - k]);
            y[n] = phase * turn(-nu * double(D * (n - reference))) * sum;
        }
    }
    return y;
}

frames_by_channel pfb_channelizer(const sample_fn& x,
                                  const std::vector<float>& taps,
                                  size_t M,
                                  size_t D,
                                  const std::vector<size_t>& channels,
                                  uint64_t first,
                                  size_t count,
                                  uint64_t zero_before)
{
    frames_by_channel y(channels.size(), std::vector<cdouble>(count));
    if (!count)
        return y;
    std::vector<cdouble> phase(M); // exp(-2 pi i k / M)
    for (size_t k = 0; k < M; ++k)
        phase[k] = std::polar(1.0, -2.0 * M_PI * double(k) / double(M));
    // w[j] = x[base + j]
    const int64_t base = int64_t((first + 1) * D) - 1 - int64_t(taps.size() - 1);
    const std::vector<cdouble> w =
        window(x, base, int64_t((first + count) * D), zero_before);
    for (size_t s = 0; s < channels.size(); ++s) {
        const size_t c = channels[s];
        for (size_t i = 0; i < count; ++i) {
            const uint64_t t = (first + i + 1) * D - 1;
            cdouble sum = 0.0;
            // Angles reduced with integers: c (t - n) mod M, from n = 0 on.
            size_t angle = size_t(c * (t % M) % M);
            for (size_t n = 0; n < taps.size() && n <= t; ++n) {
                sum += double(taps[n]) * w[size_t(int64_t(t - n) - base)] * phase[angle];
                angle = angle >= c ? angle - c : angle + M - c;
            }
            y[s][i] = sum * phase[c * ((D + 1) % M) % M];
        }
    }
    return y;
}

frames_by_channel pfb_channelizer(const std::vector<cfloat>& x,
                                  const std::vector<float>& taps,
                                  size_t M,
                                  size_t D,
                                  const std::vector<size_t>& channels,
                                  uint64_t first,
                                  size_t count,
                                  uint64_t zero_before)
{
    if (!count)
        return frames_by_channel(channels.size());
    return pfb_channelizer(sample_of(x, (first + count) * D - 1),
                           taps,
                           M,
                           D,
                           channels,
                           first,
                           count,
                           zero_before);
}

cdouble
linear_convolution_at(const cfloat* s, size_t L, const cfloat* f, size_t S, size_t n)
{
    cdouble sum = 0;
    const size_t first = n >= L ? n - L + 1 : 0, last = std::min(n, S - 1);
    for (size_t k = first; k <= last; ++k)
        sum += cdouble(f[k]) * cdouble(s[n - k]);
    return sum;
}

std::vector<cdouble>
linear_convolution(const cfloat* s, size_t L, const cfloat* f, size_t S)
{
    std::vector<cdouble> y(L + S - 1);
    for (size_t n = 0; n < y.size(); ++n)
        y[n] = linear_convolution_at(s, L, f, S, n);
    return y;
}

std::vector<cdouble> arb_resampler(const std::vector<cfloat>& x,
                                   float rate,
                                   std::vector<float> taps,
                                   unsigned R,
                                   const std::map<size_t, arb_change>& changes,
                                   int start_filter)
{
    unsigned dec = unsigned(std::floor(float(R) / rate));
    float flt = float(R) / rate - float(dec);
    float acc = 0.0f;
    unsigned j =
        start_filter < 0 ? unsigned((taps.size() / 2) % R) : unsigned(start_filter);
    auto filters = [&](const std::vector<float>& t) {
        const size_t T = (t.size() + R - 1) / R;
        std::vector<float> p(t);
        p.resize(T * R, 0.0f);
        return p;
    };
    auto diff = [](const std::vector<float>& t) {
        std::vector<float> d;
        for (size_t i = 0; i + 1 < t.size(); ++i)
            d.push_back(-1.0f * t[i] + 1.0f * t[i + 1]);
        d.push_back(0.0f);
        return d;
    };
    std::vector<float> h = filters(taps), dh = filters(diff(taps));
    std::vector<cdouble> y;
    size_t i_in = 0;
    while (i_in < x.size()) {
        while (j < R) {
            const auto c = changes.find(y.size());
            if (c != changes.end()) {
                if (c->second.rate > 0.0f) {
                    rate = c->second.rate;
                    dec = unsigned(std::floor(float(R) / rate));
                    flt = float(R) / rate - float(dec);
                }
                if (!c->second.taps.empty()) {
                    h = filters(c->second.taps);
                    dh = filters(diff(c->second.taps));
                }
            }
            const size_t T = h.size() / R;
            cdouble o0 = 0, o1 = 0;
            for (size_t m = 0; m < T && m <= i_in; ++m) {
                o0 += double(h[m * R + j]) * cdouble(x[i_in - m]);
                o1 += double(dh[m * R + j]) * cdouble(x[i_in - m]);
            }
            y.push_back(o0 + o1 * double(acc));
            acc += flt;
            j += dec + (int)std::floor(acc);
            acc = std::fmod(acc, 1.0f);
        }
        i_in += j / R;
        j = j % R;
    }
    return y;
}

} // namespace wideband_reference
