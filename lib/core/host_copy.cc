/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/wideband/core/environment.h>
#include <gnuradio/wideband/core/host_copy.h>

#include <condition_variable>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

namespace {

/*
 * A fixed set of workers that take the parts of one job at a time; callers
 * from several blocks take turns (jobs are short, and a turn is one copy).
 */
class worker_pool
{
public:
    explicit worker_pool(size_t threads)
    {
        for (size_t t = 1; t < threads; ++t)
            d_workers.emplace_back([this] { serve(); });
    }

    ~worker_pool()
    {
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_quit = true;
        }
        d_wake.notify_all();
        for (auto& w : d_workers)
            w.join();
    }

    size_t threads() const { return d_workers.size() + 1; }

    void run(size_t parts, const std::function<void(size_t)>& body)
    {
        std::lock_guard<std::mutex> turn(d_turn);
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_body = &body;
            d_parts = parts;
            d_next = 0;
            d_done = 0;
            d_error = nullptr;
            ++d_job;
        }
        d_wake.notify_all();
        work_on_job();
        std::unique_lock<std::mutex> lock(d_mutex);
        d_finished.wait(lock, [this] { return d_done == d_parts; });
        d_body = nullptr;
        if (d_error)
            std::rethrow_exception(d_error);
    }

private:
    void serve()
    {
        size_t seen = 0;
        for (;;) {
            {
                std::unique_lock<std::mutex> lock(d_mutex);
                d_wake.wait(lock, [&] { return d_quit || d_job != seen; });
                if (d_quit)
                    return;
                seen = d_job;
            }
            work_on_job();
        }
    }

    // Takes parts until none is left.
    void work_on_job()
    {
        for (;;) {
            size_t part;
            const std::function<void(size_t)>* body;
            {
                std::lock_guard<std::mutex> lock(d_mutex);
                if (!d_body || d_next >= d_parts)
                    return;
                part = d_next++;
                body = d_body;
            }
            std::exception_ptr error;
            try {
                (*body)(part);
            } catch (...) {
                error = std::current_exception();
            }
            std::lock_guard<std::mutex> lock(d_mutex);
            if (error && !d_error)
                d_error = error;
            if (++d_done == d_parts)
                d_finished.notify_all();
        }
    }

    std::vector<std::thread> d_workers;
    std::mutex d_turn; // one job at a time
    std::mutex d_mutex;
    std::condition_variable d_wake, d_finished;
    const std::function<void(size_t)>* d_body = nullptr;
    size_t d_parts = 0, d_next = 0, d_done = 0, d_job = 0;
    std::exception_ptr d_error;
    bool d_quit = false;
};

size_t configured_threads()
{
    if (const auto chosen = environment::copy_threads())
        return *chosen;
    return std::max<size_t>(1, std::min<size_t>(std::thread::hardware_concurrency(), 16));
}

worker_pool& pool()
{
    static worker_pool instance(configured_threads());
    return instance;
}

} // namespace

size_t host_copy_threads() { return pool().threads(); }

void parallel_for(size_t parts, const std::function<void(size_t)>& body)
{
    if (parts == 0)
        return;
    if (parts == 1 || pool().threads() == 1) {
        for (size_t p = 0; p < parts; ++p)
            body(p);
        return;
    }
    pool().run(parts, body);
}

void host_copy(void* dst, const void* src, size_t bytes)
{
    if (bytes == 0) // (memcpy wants valid pointers even then; callers may pass none)
        return;
    const size_t parts = std::min(host_copy_threads(), bytes / parallel_copy_min_bytes);
    if (parts <= 1) {
        std::memcpy(dst, src, bytes);
        return;
    }
    // Parts of whole cache lines.
    const size_t part_bytes = ((bytes + parts - 1) / parts + 63) / 64 * 64;
    parallel_for(parts, [&](size_t p) {
        const size_t begin = std::min(bytes, p * part_bytes);
        const size_t end = std::min(bytes, begin + part_bytes);
        std::memcpy(static_cast<char*>(dst) + begin,
                    static_cast<const char*>(src) + begin,
                    end - begin);
    });
}

} // namespace core
} // namespace wideband
} // namespace gr
