/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/wideband/core/sample_format.h>

#include <stdexcept>

namespace gr {
namespace wideband {
namespace core {

namespace {

struct format_traits {
    sample_format format;
    const char* name;
    size_t bytes;
    const char* opencl_type;
    bool complex;
};

constexpr format_traits formats[] = {
    { sample_format::fc32, "fc32", 8, "float2", true },
    { sample_format::sc16, "sc16", 4, "short2", true },
    { sample_format::sc8, "sc8", 2, "char2", true },
    { sample_format::f32, "f32", 4, "float", false },
};

const format_traits& traits(sample_format format)
{
    for (const auto& t : formats)
        if (t.format == format)
            return t;
    throw std::logic_error(
        "sample_format: a value that is not one of fc32, sc16, sc8, f32");
}

} // namespace

size_t sample_bytes(sample_format format) { return traits(format).bytes; }

bool is_complex(sample_format format) { return traits(format).complex; }

const char* sample_format_name(sample_format format) { return traits(format).name; }

sample_format parse_sample_format(const std::string& name)
{
    for (const auto& t : formats)
        if (t.complex && name == t.name)
            return t.format;
    throw std::invalid_argument("input_type must be \"fc32\" (complex float), \"sc16\" "
                                "(complex int16) or \"sc8\" (complex int8); got \"" +
                                name + "\"");
}

std::string sample_type_option(sample_format format)
{
    if (format == sample_format::fc32)
        return "";
    const format_traits& t = traits(format);
    return std::string(" -DSAMPLE_T=") + t.opencl_type +
           (t.complex ? "" : " -DSAMPLE_REAL");
}

} // namespace core
} // namespace wideband
} // namespace gr
