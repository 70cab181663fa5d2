/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The core used from several threads at once, as several blocks on one device
 * use it: the shared device context looked up, kernels of new configurations
 * built through its one program cache, and engines streaming on their own
 * queues, each checked against a float64 direct convolution. Run under
 * ThreadSanitizer by scripts/test_sanitizers, where a data race fails it.
 */

#define BOOST_TEST_MODULE qa_threads
#include <boost/test/unit_test.hpp>

#include "conv_check.h"
#include "stream_chunks.h"

#include <gnuradio/wideband/core/fft_filter.h>
#include <gnuradio/wideband/core/fft_plan.h>

#include <atomic>
#include <thread>

using namespace conv_check;

namespace {

constexpr size_t threads = 4;

// y[m] = sum_k h[k] x[m D - k] in float64.
std::vector<cdouble>
direct(const std::vector<cfloat>& x, const std::vector<cfloat>& h, size_t D)
{
    std::vector<cdouble> y(x.size() / D);
    for (size_t m = 0; m < y.size(); ++m)
        for (size_t k = 0; k < h.size() && k <= m * D; ++k)
            y[m] += cdouble(h[k]) * cdouble(x[m * D - k]);
    return y;
}

// x through a new fft_filter on its own queue, in random calls.
std::vector<cfloat> filter_stream(const std::vector<cfloat>& x,
                                  const std::vector<cfloat>& h,
                                  size_t D,
                                  uint32_t seed)
{
    core::fft_filter_options o;
    o.taps = h;
    o.decimation = D;
    o.max_input_samples = 3000;
    core::fft_filter f(context(), o);
    const cl::CommandQueue q = context()->create_queue();
    cl::Buffer out(context()->context(),
                   CL_MEM_READ_WRITE,
                   f.max_output_elements() * sizeof(cfloat));
    std::vector<cfloat> y;
    size_t at = 0;
    for (size_t n : random_chunks(x.size(), D, o.max_input_samples, seed)) {
        const auto region = f.input_region();
        if (n)
            q.enqueueWriteBuffer(
                region.buffer, CL_TRUE, region.offset * 8, n * 8, x.data() + at);
        const auto r = f.enqueue(q, n, out);
        r.done.wait();
        const size_t before = y.size();
        y.resize(before + r.outputs);
        if (r.outputs)
            q.enqueueReadBuffer(out, CL_TRUE, 0, r.outputs * 8, &y[before]);
        at += n;
    }
    return y;
}

// Runs body(i) on `threads` threads started together.
template <typename Body>
void at_once(Body&& body)
{
    std::atomic<size_t> ready{ 0 };
    std::vector<std::thread> pool;
    for (size_t i = 0; i < threads; ++i)
        pool.emplace_back([&, i] {
            ++ready;
            while (ready < threads)
                std::this_thread::yield();
            body(i);
        });
    for (auto& t : pool)
        t.join();
}

} // namespace

BOOST_AUTO_TEST_CASE(one_context_for_every_thread)
{
    std::vector<core::device_context::sptr> got(threads);
    at_once([&](size_t i) { got[i] = core::device_context::get(""); });
    // (the first lookup of the process is among them: context() comes after)
    for (const auto& c : got)
        BOOST_TEST(c == context());
}

// New kernel configurations built from several threads through the shared
// program cache; each engine streams on its own queue at the same time.
BOOST_AUTO_TEST_CASE(engines_built_and_run_at_once)
{
    std::vector<std::vector<cfloat>> x(threads), h(threads), y(threads);
    for (size_t i = 0; i < threads; ++i) {
        x[i] = random_signal(20000 + 7 * i, uint32_t(10 + i));
        h[i] = random_signal(300 + 211 * i, uint32_t(20 + i)); // FFT sizes of their own
    }
    const size_t compiled = context()->compilations() + context()->disk_cache_loads();
    at_once(
        [&](size_t i) { y[i] = filter_stream(x[i], h[i], 1 + i % 3, uint32_t(30 + i)); });
    BOOST_TEST(context()->compilations() + context()->disk_cache_loads() > compiled);
    for (size_t i = 0; i < threads; ++i) {
        const size_t D = 1 + i % 3;
        check_accuracy(y[i], direct(x[i], h[i], D), 1e-5, "thread " + std::to_string(i));
    }
}

// One plan enqueued from several threads on their own queues (as fft_vcc
// blocks sharing a configuration do), next to plans being built.
BOOST_AUTO_TEST_CASE(plans_shared_and_built_at_once)
{
    const size_t n = 240;
    const core::fft_plan shared(context(), n);
    const std::vector<cfloat> x = random_signal(n, 40);
    std::vector<std::vector<cfloat>> y(threads);
    std::vector<size_t> built(threads);
    // (Boost.Test's checks are not thread-safe: the threads only record)
    at_once([&](size_t i) {
        const core::fft_plan own(context(), 90 + 30 * i); // built here, in parallel
        built[i] = own.size();
        const cl::CommandQueue q = context()->create_queue();
        cl::Buffer in(context()->context(),
                      CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                      n * 8,
                      const_cast<cfloat*>(x.data()));
        cl::Buffer out(context()->context(), CL_MEM_READ_WRITE, n * 8);
        for (int rep = 0; rep < 20; ++rep)
            shared.enqueue(q, in, out).wait();
        y[i].resize(n);
        q.enqueueReadBuffer(out, CL_TRUE, 0, n * 8, y[i].data());
    });
    for (size_t i = 0; i < threads; ++i) {
        BOOST_TEST(built[i] == 90 + 30 * i);
        check_identical(y[i], y[0], "thread " + std::to_string(i));
    }
    // and the transform itself, against the DFT
    std::vector<cdouble> ref(n);
    for (size_t k = 0; k < n; ++k)
        for (size_t j = 0; j < n; ++j)
            ref[k] += cdouble(x[j]) * std::polar(1.0, -2 * M_PI * double(j * k % n) / n);
    check_accuracy(y[0], ref, 1e-5, "the shared plan");
}
