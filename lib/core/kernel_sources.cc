/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "kernel_sources.h"

#include <set>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace wideband {
namespace core {

namespace {

const char* find_embedded(const std::string& name)
{
    for (const auto& source : embedded_kernel_sources())
        if (name == source.name)
            return source.text;
    throw std::invalid_argument("no embedded kernel source named '" + name +
                                "' (the sources are the files in kernels/)");
}

void append_resolved(const std::string& name,
                     std::set<std::string>& included,
                     std::string& out)
{
    if (!included.insert(name).second)
        return;
    std::istringstream lines(find_embedded(name));
    std::string line;
    while (std::getline(lines, line)) {
        const auto first = line.find_first_not_of(" \t");
        if (first != std::string::npos && line.compare(first, 8, "#include") == 0) {
            const auto open = line.find('"');
            const auto close = line.rfind('"');
            if (open != std::string::npos && close > open) {
                append_resolved(line.substr(open + 1, close - open - 1), included, out);
                continue;
            }
        }
        out += line;
        out += '\n';
    }
}

} // namespace

std::string kernel_source(const std::string& name)
{
    std::set<std::string> included;
    std::string out;
    append_resolved(name, included, out);
    return out;
}

} // namespace core
} // namespace wideband
} // namespace gr
