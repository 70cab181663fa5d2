/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_FAULT_INJECTION_H
#define INCLUDED_WIDEBAND_CORE_FAULT_INJECTION_H

#include <atomic>
#include <string>

namespace gr {
namespace wideband {
namespace core {
namespace fault {

/*
 * Test-only device faults, so that the tests can check what a failed build or
 * a failing device does to a running stream (docs/reliability.md). The
 * environment variable WIDEBAND_FAULT selects one:
 *
 *   build      every kernel build fails, as one the compiler rejects (programs
 *              already built in this process stay in use)
 *   build:TEXT the builds whose compiler options contain TEXT fail (e.g.
 *              build:-DEXCHANGE_PARTS=1, as a driver that rejects one kind
 *              of kernel)
 *   enqueue:N  the N-th engine call (counted from when the variable took this
 *              value) and every later one throw cl::Error CL_OUT_OF_RESOURCES,
 *              as enqueues on a device that has failed do
 *
 * Engine calls are the enqueues of fft_plan, fft_filter and pfb_channelizer.
 * Kernel builds read the variable at each build. Engine calls read it only
 * while it is watched: from the start when it is set as the core library
 * loads, or from environment::watch_fault() on (what tests that set it at run
 * time call first); otherwise an engine call costs one branch on a bool that
 * never changes. A malformed value throws std::invalid_argument wherever it is
 * read (environment.h).
 */

//! True when WIDEBAND_FAULT=build, or build:TEXT with TEXT in \p options: the
//! build with these compiler options is to fail (the disk cache unused).
bool build_fails(const std::string& options);

namespace detail {
//! Whether engine calls read WIDEBAND_FAULT (see above).
extern std::atomic<bool> watched;
//! check_enqueue() once the variable is watched.
void check_watched_enqueue();
} // namespace detail

//! Called by an engine call before it enqueues: throws under enqueue:N.
inline void check_enqueue()
{
    if (__builtin_expect(detail::watched.load(std::memory_order_relaxed), false))
        detail::check_watched_enqueue();
}

} // namespace fault
} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_FAULT_INJECTION_H */
