/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fault_injection.h"
#include <gnuradio/wideband/core/environment.h>
#include <gnuradio/wideband/core/opencl.h>

#include <cstdlib>
#include <mutex>

namespace gr {
namespace wideband {
namespace core {
namespace fault {

namespace {

using setting = environment::fault_setting;

// True when this engine call is to fail. Calls are counted from when the
// variable took its setting (set again after being unset, it counts from 1
// again).
bool engine_call_fails()
{
    static std::mutex mutex;
    static setting counting; // the setting the count belongs to
    static uint64_t calls = 0;
    const setting current = environment::fault();
    std::lock_guard<std::mutex> lock(mutex);
    if (!(counting == current)) {
        counting = current;
        calls = 0;
    }
    if (current.what == setting::kind::none)
        return false;
    ++calls;
    return current.what == setting::kind::enqueue && calls >= current.from_call;
}

bool set_as_the_library_loads()
{
    const char* value = std::getenv("WIDEBAND_FAULT");
    return value && *value;
}

} // namespace

bool build_fails(const std::string& options)
{
    const setting current = environment::fault();
    return current.what == setting::kind::build &&
           options.find(current.build_match) != std::string::npos;
}

namespace detail {

// Decided once, as the library loads; only watch_fault() changes it.
std::atomic<bool> watched{ set_as_the_library_loads() };

void check_watched_enqueue()
{
    if (engine_call_fails())
        throw cl::Error(CL_OUT_OF_RESOURCES,
                        "clEnqueueNDRangeKernel (injected by WIDEBAND_FAULT)");
}

} // namespace detail
} // namespace fault

void environment::watch_fault()
{
    fault::detail::watched.store(true, std::memory_order_relaxed);
}

} // namespace core
} // namespace wideband
} // namespace gr
