/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The process's memory for the tests that check it stays flat: the resident
// set and the OpenCL buffers alive (cl_alloc_count.h, linked into the test).

#ifndef INCLUDED_WIDEBAND_TEST_MEMORY_USE_H
#define INCLUDED_WIDEBAND_TEST_MEMORY_USE_H

#include "cl_alloc_count.h"

#include <unistd.h>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <thread>

inline uint64_t rss_bytes()
{
    std::ifstream statm("/proc/self/statm");
    uint64_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * uint64_t(sysconf(_SC_PAGESIZE));
}

//! The OpenCL buffers alive once the runtime has destroyed what it still held.
//! PoCL destroys a buffer some time after the last command that used it
//! completed: tens of milliseconds on a loaded machine, more under
//! ThreadSanitizer, so the count must stay unchanged for a quiet period (at
//! most 5 s in all).
inline int64_t settled_live_buffers()
{
    using namespace std::chrono;
    constexpr milliseconds quiet(300), limit(5000);
    const auto start = steady_clock::now();
    auto changed = start;
    int64_t buffers = cl_alloc_count_live_buffers();
    while (steady_clock::now() - changed < quiet && steady_clock::now() - start < limit) {
        std::this_thread::sleep_for(milliseconds(10));
        const int64_t now = cl_alloc_count_live_buffers();
        if (now != buffers) {
            buffers = now;
            changed = steady_clock::now();
        }
    }
    return buffers;
}

#endif /* INCLUDED_WIDEBAND_TEST_MEMORY_USE_H */
