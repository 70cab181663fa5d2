/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cpu_peers.h"

namespace cpu_peers {

void thread_pool::run(size_t n, const task_fn& task)
{
    n = std::min(std::max<size_t>(n, 1), d_size);
    if (n == 1) {
        task(0, 1);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_task = &task;
        d_active = n;
        d_pending = n - 1;
        ++d_generation;
    }
    d_wake.notify_all();
    std::exception_ptr error;
    try {
        task(0, n);
    } catch (...) {
        error = std::current_exception();
    }
    std::unique_lock<std::mutex> lock(d_mutex);
    d_done.wait(lock, [&] { return d_pending == 0; });
    d_task = nullptr;
    if (!error)
        error = d_error;
    d_error = nullptr;
    if (error)
        std::rethrow_exception(error);
}

void thread_pool::work(size_t index)
{
    uint64_t seen = 0;
    for (;;) {
        const task_fn* task = nullptr;
        size_t n = 0;
        {
            std::unique_lock<std::mutex> lock(d_mutex);
            d_wake.wait(lock, [&] { return d_generation != seen; });
            seen = d_generation;
            if (d_stop)
                return;
            if (index >= d_active)
                continue;
            task = d_task;
            n = d_active;
        }
        try {
            (*task)(index, n);
        } catch (...) {
            std::lock_guard<std::mutex> lock(d_mutex);
            if (!d_error)
                d_error = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(d_mutex);
        if (--d_pending == 0)
            d_done.notify_one();
    }
}

void fill_signal(thread_pool& pool, cfloat* dst, uint64_t start, size_t n)
{
    pool.run(n >= (size_t(1) << 16) ? pool.size() : 1, [&](size_t i, size_t t) {
        for (size_t k = n * i / t, end = n * (i + 1) / t; k < end; ++k)
            dst[k] = signal_sample(start + k);
    });
}

} // namespace cpu_peers
