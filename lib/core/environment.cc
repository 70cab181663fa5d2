/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/wideband/core/environment.h>

#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace wideband {
namespace core {
namespace environment {

namespace {

// The variable's value; "" when unset.
std::string value_of(const char* name)
{
    const char* value = std::getenv(name);
    return value ? value : "";
}

[[noreturn]] void
reject(const std::string& name, const std::string& value, const std::string& wanted)
{
    throw std::invalid_argument(name + "=" + value + ": wants " + wanted);
}

// Decimal digits only, within [lowest, highest]; std::nullopt when not.
std::optional<uint64_t>
parse_integer(const std::string& text, uint64_t lowest, uint64_t highest)
{
    if (text.empty() || text.size() > 19 ||
        text.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    const uint64_t n = std::stoull(text);
    if (n < lowest || n > highest)
        return std::nullopt;
    return n;
}

std::string integer_range(uint64_t lowest, uint64_t highest)
{
    return "an integer from " + std::to_string(lowest) + " to " + std::to_string(highest);
}

std::optional<uint64_t> integer(const integer_variable& variable)
{
    const std::string value = value_of(variable.name);
    if (value.empty())
        return std::nullopt;
    if (const auto n = parse_integer(value, variable.lowest, variable.highest))
        return n;
    reject(variable.name, value, integer_range(variable.lowest, variable.highest));
}

bool flag(const char* name)
{
    const std::string value = value_of(name);
    if (value.empty() || value == "0")
        return false;
    if (value == "1")
        return true;
    reject(name, value, "0 or 1");
}

} // namespace

std::optional<size_t> chunk_samples() { return integer(chunk_samples_variable); }

size_t pipeline_depth()
{
    return integer(pipeline_depth_variable).value_or(default_pipeline_depth);
}

std::optional<size_t> copy_threads() { return integer(copy_threads_variable); }

bool profile() { return flag("WIDEBAND_PROFILE"); }

bool build_log() { return flag("WIDEBAND_BUILD_LOG"); }

std::string build_options() { return value_of("WIDEBAND_BUILD_OPTIONS"); }

std::string device() { return value_of("WIDEBAND_DEVICE"); }

std::optional<std::string> kernel_cache()
{
    const std::string value = value_of("WIDEBAND_KERNEL_CACHE");
    if (value.empty())
        return std::nullopt;
    if (value == "off" || value == "OFF" || value == "none" || value == "0")
        return "";
    return value;
}

fault_setting fault()
{
    constexpr const char* name = "WIDEBAND_FAULT";
    const std::string value = value_of(name);
    if (value.empty())
        return {};
    if (value == "build")
        return { fault_setting::kind::build, 0, "" };
    const std::string build_prefix = "build:";
    if (value.size() > build_prefix.size() &&
        value.compare(0, build_prefix.size(), build_prefix) == 0)
        return { fault_setting::kind::build, 0, value.substr(build_prefix.size()) };
    const std::string prefix = "enqueue:";
    if (value.compare(0, prefix.size(), prefix) == 0)
        if (const auto n = parse_integer(value.substr(prefix.size()), 1, max_fault_call))
            return { fault_setting::kind::enqueue, *n, "" };
    reject(name,
           value,
           "build, build:TEXT or enqueue:N with N " + integer_range(1, max_fault_call) +
               " (test-only: leave it unset)");
}

fft_tuning fft_tune()
{
    constexpr const char* name = "WIDEBAND_FFT_TUNE";
    const std::string value = value_of(name);
    const std::string wanted =
        "key=value entries separated by commas: local=1024..1048576, wg=1..4096, "
        "pad=0..16, min_group=1..1024, threads=1..4096, twiddles=constant|global, "
        "direct=0|1, powers=0|1, registers=1024..1048576, resident=0|1, "
        "bluestein=smooth|pow2, handoff=0|1";
    fft_tuning tuning;
    std::istringstream entries(value);
    std::string entry;
    while (std::getline(entries, entry, ',')) {
        const auto eq = entry.find('=');
        const std::string key = entry.substr(0, eq);
        const std::string setting = eq == std::string::npos ? "" : entry.substr(eq + 1);
        const auto number = [&](uint64_t lowest, uint64_t highest) {
            if (const auto n = parse_integer(setting, lowest, highest))
                return size_t(*n);
            reject(name, value, wanted);
        };
        const auto choice = [&](const char* yes, const char* no) {
            if (setting != yes && setting != no)
                reject(name, value, wanted);
            return setting == yes;
        };
        if (key == "local")
            tuning.local_bytes = number(1024, 1 << 20);
        else if (key == "wg")
            tuning.group_size = number(1, 4096);
        else if (key == "pad")
            tuning.pad_shift = unsigned(number(0, 16));
        else if (key == "min_group")
            tuning.min_strided_group = number(1, 1024);
        else if (key == "threads")
            tuning.max_transform_threads = number(1, 4096);
        else if (key == "twiddles")
            tuning.constant_twiddles = choice("constant", "global");
        else if (key == "direct")
            tuning.allow_direct = choice("1", "0");
        else if (key == "powers")
            tuning.twiddle_powers = choice("1", "0");
        else if (key == "registers")
            tuning.register_file = number(1024, 1 << 20);
        else if (key == "resident")
            tuning.register_resident = choice("1", "0");
        else if (key == "bluestein")
            tuning.bluestein_smooth = choice("smooth", "pow2");
        else if (key == "handoff")
            tuning.register_handoff = choice("1", "0");
        else
            reject(name, value, wanted);
    }
    return tuning;
}

void check()
{
    chunk_samples();
    pipeline_depth();
    copy_threads();
    profile();
    build_log();
    kernel_cache();
    fault();
    fft_tune();
}

} // namespace environment
} // namespace core
} // namespace wideband
} // namespace gr
