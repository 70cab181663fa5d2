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

//! The OpenCL buffers alive once the runtime has destroyed what it still held
//! (it may do so a little after the commands that used them completed).
inline int64_t settled_live_buffers()
{
    int64_t buffers = cl_alloc_count_live_buffers();
    for (int i = 0; i < 100; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        const int64_t now = cl_alloc_count_live_buffers();
        if (now == buffers)
            break;
        buffers = now;
    }
    return buffers;
}

#endif /* INCLUDED_WIDEBAND_TEST_MEMORY_USE_H */
