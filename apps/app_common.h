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

#include <sstream>
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

} // namespace app_common

#endif /* INCLUDED_WIDEBAND_APP_COMMON_H */
