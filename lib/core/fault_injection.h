/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_FAULT_INJECTION_H
#define INCLUDED_WIDEBAND_CORE_FAULT_INJECTION_H

namespace gr {
namespace wideband {
namespace core {
namespace fault {

/*
 * Test-only device faults, so that the tests can check what a failed build or
 * a failing device does to a running stream (docs/reliability.md). The
 * environment variable WIDEBAND_FAULT, read at each use, selects one:
 *
 *   build      every kernel build fails, as one the compiler rejects (programs
 *              already built in this process stay in use)
 *   enqueue:N  the N-th engine call (counted from when the variable took this
 *              value) and every later one throw cl::Error CL_OUT_OF_RESOURCES,
 *              as enqueues on a device that has failed do
 *
 * Engine calls are the enqueues of fft_plan, fft_filter and pfb_channelizer.
 * Unset or empty, nothing happens beyond one getenv() per call. A malformed
 * value throws std::invalid_argument wherever it is read (environment.h).
 */

//! True when WIDEBAND_FAULT=build: the build is to fail (the disk cache unused).
bool build_fails();

//! Called by an engine call before it enqueues: throws under enqueue:N.
void check_enqueue();

} // namespace fault
} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_FAULT_INJECTION_H */
