/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * What every command-line program shares (wideband_devices, wideband_spectrum
 * and, through bench/harness.h, the benchmarks): error messages on one line.
 */

#ifndef INCLUDED_WIDEBAND_APP_COMMON_H
#define INCLUDED_WIDEBAND_APP_COMMON_H

#include <gnuradio/wideband/core/device.h>

#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>

namespace app_common {

// A multi-line message of the core (e.g. "...; available:\n  0:0 ...") on one
// line, so that a user mistake reads as one line.
inline std::string one_line(const std::string& msg)
{
    std::istringstream in(msg);
    std::string line, out;
    while (std::getline(in, line)) {
        const auto b = line.find_first_not_of(" \t");
        if (b == std::string::npos)
            continue;
        line = line.substr(b);
        if (!out.empty())
            out += (out.back() == ':') ? " " : "; ";
        out += line;
    }
    return out;
}

/*
 * From a catch block: the exception being handled as "program: message" on
 * stderr, and the exit status it gives: 2 for std::invalid_argument (a usage
 * mistake, a device string that selects no device, a parameter the core
 * rejects), else 1.
 */
inline int report_error(const char* program)
{
    try {
        throw;
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "%s: %s\n", program, one_line(e.what()).c_str());
        return 2;
    } catch (const cl::Error& e) {
        std::fprintf(stderr,
                     "%s: OpenCL error in %s: %s\n",
                     program,
                     e.what(),
                     gr::wideband::core::cl_error_name(e.err()).c_str());
        return 1;
    } catch (const std::exception& e) {
        // The core's messages start with "gr-wideband: "; the program's name says it.
        std::string msg = e.what();
        const std::string core_prefix = "gr-wideband: ";
        if (msg.rfind(core_prefix, 0) == 0)
            msg.erase(0, core_prefix.size());
        std::fprintf(stderr, "%s: %s\n", program, msg.c_str());
        return 1;
    }
}

} // namespace app_common

#endif /* INCLUDED_WIDEBAND_APP_COMMON_H */
