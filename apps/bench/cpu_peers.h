/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The CPU peers of the benchmarks: a pool of worker threads, and with FFTW
 * (WIDEBAND_HAVE_FFTW) its buffers and batched plans, the FIR filter by
 * overlap-save and the batched convolution on those threads.
 */

#ifndef INCLUDED_WIDEBAND_BENCH_CPU_PEERS_H
#define INCLUDED_WIDEBAND_BENCH_CPU_PEERS_H

#include "harness.h"

#ifdef WIDEBAND_HAVE_FFTW
#include <fftw3.h>
#endif

#include <condition_variable>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace cpu_peers {

using namespace harness;

// Points per batched FFTW execution in the batched convolution.
constexpr size_t group_points = 8192;

// Persistent worker threads: run(n, task) calls task(i, n) for i < n on n
// threads, the caller being thread 0, and returns when all are done.
class thread_pool
{
public:
    using task_fn = std::function<void(size_t, size_t)>;

    explicit thread_pool(size_t threads) : d_size(std::max<size_t>(threads, 1))
    {
        for (size_t i = 1; i < d_size; ++i)
            d_workers.emplace_back([this, i] { work(i); });
    }
    ~thread_pool()
    {
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_stop = true;
            ++d_generation;
        }
        d_wake.notify_all();
        for (auto& t : d_workers)
            t.join();
    }
    thread_pool(const thread_pool&) = delete;
    thread_pool& operator=(const thread_pool&) = delete;

    size_t size() const { return d_size; }

    //! Calls task(i, n) for i < n (at most size()) on n threads, the caller being
    //! thread 0; returns when all are done, rethrowing the first exception.
    void run(size_t n, const task_fn& task);

private:
    void work(size_t index);

    size_t d_size;
    std::vector<std::thread> d_workers;
    std::mutex d_mutex;
    std::condition_variable d_wake, d_done;
    const task_fn* d_task = nullptr;
    size_t d_active = 0, d_pending = 0;
    uint64_t d_generation = 0;
    bool d_stop = false;
    std::exception_ptr d_error;
};

// dst[i] = signal_sample(start + i), i < n, on the pool's threads.
void fill_signal(thread_pool& pool, cfloat* dst, uint64_t start, size_t n);

#ifdef WIDEBAND_HAVE_FFTW

struct fftwf_deleter {
    void operator()(cfloat* p) const { fftwf_free(p); }
};
using fftwf_buffer = std::unique_ptr<cfloat[], fftwf_deleter>;

inline fftwf_buffer fftwf_buffer_of(size_t n)
{
    auto* p = reinterpret_cast<cfloat*>(fftwf_alloc_complex(std::max<size_t>(n, 1)));
    if (!p)
        throw std::runtime_error("fftwf_alloc_complex(" + std::to_string(n) + ") failed");
    return fftwf_buffer(p);
}

inline fftwf_complex* as_fftw(cfloat* p) { return reinterpret_cast<fftwf_complex*>(p); }

// A plan of `howmany` contiguous transforms of n points, in place (out null)
// or from `in` to `out`, executed on any buffers of the same alignment (fftwf_alloc)
// by any thread.
class fftwf_many
{
public:
    fftwf_many(
        size_t n, size_t howmany, int sign, cfloat* in, unsigned flags, cfloat* out = {})
    {
        const int l = int(n), b = int(howmany);
        fftwf_complex *const i = as_fftw(in), *const o = as_fftw(out ? out : in);
        d_plan = fftwf_plan_many_dft(1, &l, b, i, 0, 1, l, o, 0, 1, l, sign, flags);
        if (!d_plan)
            throw std::runtime_error("fftwf_plan_many_dft returned no plan for N=" +
                                     std::to_string(n));
    }
    ~fftwf_many() { fftwf_destroy_plan(d_plan); }
    fftwf_many(const fftwf_many&) = delete;
    fftwf_many& operator=(const fftwf_many&) = delete;

    void execute(cfloat* in, cfloat* out = {}) const
    {
        fftwf_execute_dft(d_plan, as_fftw(in), as_fftw(out ? out : in));
    }

private:
    fftwf_plan d_plan;
};

inline cfloat cmul(const cfloat& a, const cfloat& b) // no NaN/inf fix-ups (__mulsc3)
{
    return cfloat(a.real() * b.real() - a.imag() * b.imag(),
                  a.real() * b.imag() + a.imag() * b.real());
}

inline unsigned fftw_flags(double plan_seconds)
{
    if (plan_seconds <= 0)
        return FFTW_ESTIMATE;
    fftwf_set_timelimit(plan_seconds);
    return FFTW_MEASURE;
}

// The FIR filter by overlap-save with FFTW: block b reads x[b B .. b B + L) (T - 1
// history samples first) and gives the B / D outputs y[b B / D + i] from points
// T - 1 + i D of its circular convolution.
class fftw_filter
{
public:
    fftw_filter(const std::vector<cfloat>& taps,
                size_t D,
                size_t L,
                size_t threads,
                unsigned flags)
        : d_T(taps.size()), d_D(D), d_L(L), d_B((L - taps.size() + 1) / D * D)
    {
        if (d_L < d_T || d_B == 0)
            throw std::invalid_argument("FFTW FFT size " + std::to_string(L) +
                                        " is below taps + D - 1");
        fftwf_buffer scratch = fftwf_buffer_of(L);
        d_forward.reset(new fftwf_many(L, 1, FFTW_FORWARD, scratch.get(), flags));
        d_inverse.reset(new fftwf_many(L, 1, FFTW_BACKWARD, scratch.get(), flags));
        d_spectrum = fftwf_buffer_of(L);
        std::fill(d_spectrum.get(), d_spectrum.get() + L, cfloat(0));
        std::copy(taps.begin(), taps.end(), d_spectrum.get());
        d_forward->execute(d_spectrum.get());
        const float scale = 1.0f / float(L);
        for (size_t k = 0; k < L; ++k)
            d_spectrum[k] *= scale;
        for (size_t i = 0; i < threads; ++i)
            d_work.push_back(fftwf_buffer_of(L));
    }

    size_t fft_size() const { return d_L; }
    size_t step() const { return d_B; }
    // Input samples x must hold for `blocks` blocks (history included).
    size_t input_length(size_t blocks) const { return (blocks - 1) * d_B + d_L; }

    void run(thread_pool& pool, const cfloat* x, size_t blocks, cfloat* y) const
    {
        pool.run(std::min(blocks, d_work.size()), [&](size_t i, size_t t) {
            cfloat* buf = d_work[i].get();
            const cfloat* h = d_spectrum.get();
            const size_t per_block = d_B / d_D;
            for (size_t b = blocks * i / t, end = blocks * (i + 1) / t; b < end; ++b) {
                std::memcpy(static_cast<void*>(buf), x + b * d_B, d_L * sizeof(cfloat));
                d_forward->execute(buf);
                for (size_t k = 0; k < d_L; ++k)
                    buf[k] = cmul(buf[k], h[k]);
                d_inverse->execute(buf);
                cfloat* out = y + b * per_block;
                for (size_t j = 0; j < per_block; ++j)
                    out[j] = buf[d_T - 1 + j * d_D];
            }
        });
    }

private:
    size_t d_T, d_D, d_L, d_B;
    std::unique_ptr<fftwf_many> d_forward, d_inverse;
    fftwf_buffer d_spectrum;
    std::vector<fftwf_buffer> d_work;
};

// The power of two >= 4096 (and >= T + D - 1) with the fewest FFT operations
// per output, up to 2^20.
inline size_t fftw_filter_size(size_t T, size_t D)
{
    size_t best = 0;
    double best_cost = INFINITY;
    for (size_t L = 4096; L <= (size_t(1) << 20) || best == 0; L *= 2) {
        if (L < T + D - 1)
            continue;
        const size_t B = (L - T + 1) / D * D;
        const double cost = std::log2(double(L)) * double(L) / double(B);
        if (cost < best_cost) {
            best_cost = cost;
            best = L;
        }
    }
    return best;
}

// Batched convolution with FFTW: pairs in groups of G (about group_points
// points) through batched plans, the rest one by one; pair p's signal at
// s + p L, filter at f + p S, result (L + S - 1 points) at y + p (L + S - 1).
class fftw_batched
{
public:
    fftw_batched(size_t L, size_t S, size_t n, size_t threads, unsigned flags)
        : d_L(L), d_S(S), d_n(n), d_G(std::max<size_t>(1, group_points / n))
    {
        fftwf_buffer scratch = fftwf_buffer_of(d_G * n);
        d_forward_group.reset(new fftwf_many(n, d_G, FFTW_FORWARD, scratch.get(), flags));
        d_inverse_group.reset(
            new fftwf_many(n, d_G, FFTW_BACKWARD, scratch.get(), flags));
        if (d_G > 1) {
            d_forward_one.reset(new fftwf_many(n, 1, FFTW_FORWARD, scratch.get(), flags));
            d_inverse_one.reset(
                new fftwf_many(n, 1, FFTW_BACKWARD, scratch.get(), flags));
        }
        for (size_t i = 0; i < threads; ++i) {
            d_signal_work.push_back(fftwf_buffer_of(d_G * n));
            d_filter_work.push_back(fftwf_buffer_of(d_G * n));
        }
    }

    size_t group() const { return d_G; }

    void run(thread_pool& pool,
             size_t threads,
             const cfloat* s,
             const cfloat* f,
             cfloat* y,
             size_t pairs) const
    {
        threads = std::min({ threads, d_signal_work.size(), pairs });
        pool.run(threads, [&](size_t i, size_t t) {
            size_t p = pairs * i / t;
            const size_t end = pairs * (i + 1) / t;
            while (p < end) {
                const size_t g = end - p >= d_G ? d_G : 1;
                compute(i, s, f, y, p, g);
                p += g;
            }
        });
    }

private:
    void compute(size_t thread,
                 const cfloat* s,
                 const cfloat* f,
                 cfloat* y,
                 size_t first,
                 size_t g) const
    {
        cfloat* a = d_signal_work[thread].get();
        cfloat* b = d_filter_work[thread].get();
        const size_t n = d_n, out = d_L + d_S - 1;
        for (size_t q = 0; q < g; ++q) {
            const size_t p = first + q;
            std::copy(s + p * d_L, s + (p + 1) * d_L, a + q * n);
            std::fill(a + q * n + d_L, a + (q + 1) * n, cfloat(0));
            std::copy(f + p * d_S, f + (p + 1) * d_S, b + q * n);
            std::fill(b + q * n + d_S, b + (q + 1) * n, cfloat(0));
        }
        const fftwf_many& forward = g == d_G ? *d_forward_group : *d_forward_one;
        const fftwf_many& inverse = g == d_G ? *d_inverse_group : *d_inverse_one;
        forward.execute(a);
        forward.execute(b);
        const float scale = 1.0f / float(n);
        for (size_t k = 0; k < g * n; ++k)
            a[k] = cmul(a[k], b[k]) * scale;
        inverse.execute(a);
        for (size_t q = 0; q < g; ++q)
            std::copy(a + q * n, a + q * n + out, y + (first + q) * out);
    }

    size_t d_L, d_S, d_n, d_G;
    std::unique_ptr<fftwf_many> d_forward_group, d_inverse_group, d_forward_one,
        d_inverse_one;
    std::vector<fftwf_buffer> d_signal_work, d_filter_work;
};

#endif // WIDEBAND_HAVE_FFTW

} // namespace cpu_peers

#endif /* INCLUDED_WIDEBAND_BENCH_CPU_PEERS_H */
