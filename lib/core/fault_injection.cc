/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fault_injection.h"
#include <gnuradio/wideband/core/opencl.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

namespace gr {
namespace wideband {
namespace core {
namespace fault {

namespace {

enum class kind { none, build, enqueue };

struct setting {
    kind what = kind::none;
    unsigned long long from_call = 0; // enqueue:N
};

setting parse(const std::string& value)
{
    if (value == "build")
        return { kind::build, 0 };
    const std::string prefix = "enqueue:";
    if (value.compare(0, prefix.size(), prefix) == 0) {
        const std::string n = value.substr(prefix.size());
        if (!n.empty() && n.size() < 19 &&
            n.find_first_not_of("0123456789") == std::string::npos && std::stoull(n) > 0)
            return { kind::enqueue, std::stoull(n) };
    }
    throw std::invalid_argument("WIDEBAND_FAULT=\"" + value +
                                "\" is malformed: use build or enqueue:N (N >= 1), or "
                                "leave it unset");
}

std::string current_value()
{
    const char* v = std::getenv("WIDEBAND_FAULT");
    return v ? v : "";
}

// What this engine call is to do. Calls are counted from when the variable
// took its value (set again after being unset, it counts from 1 again).
kind engine_call_fault()
{
    static std::mutex mutex;
    static std::string counting; // the value the count belongs to
    static unsigned long long calls = 0;
    const std::string value = current_value();
    std::lock_guard<std::mutex> lock(mutex);
    if (counting != value) {
        counting = value;
        calls = 0;
    }
    if (value.empty())
        return kind::none;
    const setting s = parse(value);
    ++calls;
    return s.what == kind::enqueue && calls >= s.from_call ? s.what : kind::none;
}

} // namespace

bool build_fails()
{
    const std::string value = current_value();
    return !value.empty() && parse(value).what == kind::build;
}

void check_enqueue()
{
    if (engine_call_fault() == kind::enqueue)
        throw cl::Error(CL_OUT_OF_RESOURCES,
                        "clEnqueueNDRangeKernel (injected by WIDEBAND_FAULT)");
}

} // namespace fault
} // namespace core
} // namespace wideband
} // namespace gr
