/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_HOST_COPY_H
#define INCLUDED_WIDEBAND_CORE_HOST_COPY_H

#include <gnuradio/wideband/core/api.h>

#include <cstddef>
#include <functional>

namespace gr {
namespace wideband {
namespace core {

/*!
 * \brief Runs body(0) .. body(parts - 1) on up to host_copy_threads() threads
 * (the caller's among them) and returns when all are done.
 *
 * Host copies between GNU Radio's buffers and the pinned staging buffers are
 * what limits a block's throughput once the device is fast: one core copies
 * well short of a PCIe link (docs/benchmarks.md, FIR filter), so large copies
 * are split.
 */
WIDEBAND_CORE_API void parallel_for(size_t parts,
                                    const std::function<void(size_t)>& body);

//! Copies smaller than this are not worth splitting (thread hand-over costs
//! microseconds).
constexpr size_t parallel_copy_min_bytes = size_t(1) << 18;

//! memcpy, split over threads (parts of at least parallel_copy_min_bytes).
WIDEBAND_CORE_API void host_copy(void* dst, const void* src, size_t bytes);

/*!
 * Threads used: min(hardware threads, 16), or the environment variable
 * WIDEBAND_COPY_THREADS (1 = plain memcpy).
 */
WIDEBAND_CORE_API size_t host_copy_threads();

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_HOST_COPY_H */
