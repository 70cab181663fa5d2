/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * wideband_devices: the OpenCL platforms and devices of this machine, with the
 * limits that matter to gr-wideband's kernels, and the devices that a device
 * string (by default "", i.e. automatic or $WIDEBAND_DEVICE) selects.
 * Built on libwideband-core alone (no GNU Radio).
 */

#include "app_common.h"
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/environment.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb = gr::wideband::core;
using app_common::one_line;

namespace {

const char* const prog = "wideband_devices";

const char* const usage_text =
    R"(Usage: wideband_devices [OPTIONS] [DEVICE]

Lists the OpenCL platforms and devices with the limits that matter to
gr-wideband (compute units, local memory, work-group size, global memory,
OpenCL version) and shows which device the automatic choice "" selects, and
which ones WIDEBAND_DEVICE selects when it is set. The devices "" selects are
marked with '*'.

With DEVICE, resolves that device string instead and shows only its devices.
Device strings (case-insensitive):
  ""            automatic: the first GPU, else accelerator, else CPU;
                WIDEBAND_DEVICE, when set, replaces ""
  gpu, cpu, accelerator   the first device of that type
  P:D           platform P, device D, as listed here (e.g. 0:1)
  TEXT          the first device whose name or platform name contains TEXT
Several devices (blocks and benchmarks that spread chunks over devices):
  all           every device of the type "" picks (every GPU, else ...)
  gpu:all, cpu:all, accelerator:all   every device of that type
  A,B,...       the devices of each entry, e.g. 0:0,0:1 (each device once)

Options:
  -h, --help    this text

Exit status: 0 success, 1 no OpenCL platform (or another runtime error),
2 usage error or a device string (DEVICE or WIDEBAND_DEVICE) that selects
no device.

Examples:
  wideband_devices
  wideband_devices gpu
  wideband_devices 0:1
  wideband_devices gpu:all
  WIDEBAND_DEVICE=cpu wideband_devices
)";

std::string bytes(uint64_t b)
{
    char buf[64];
    if (b >= (uint64_t(1) << 30))
        std::snprintf(buf, sizeof buf, "%.1f GiB", double(b) / double(uint64_t(1) << 30));
    else if (b >= (uint64_t(1) << 20))
        std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / double(uint64_t(1) << 20));
    else if (b >= 1024)
        std::snprintf(buf, sizeof buf, "%.0f KiB", double(b) / 1024.0);
    else
        std::snprintf(buf, sizeof buf, "%llu bytes", (unsigned long long)b);
    return buf;
}

bool same(const wb::device_info& a, const wb::device_info& b)
{
    return a.platform_index == b.platform_index && a.device_index == b.device_index;
}

bool among(const wb::device_info& d, const std::vector<wb::device_info>& devices)
{
    for (const auto& e : devices)
        if (same(d, e))
            return true;
    return false;
}

std::string short_name(const wb::device_info& d)
{
    return d.address() + "  " + d.name + " (" + d.type_name() + ", " + d.platform_name +
           ")";
}

void print_device(const wb::device_info& d, bool selected)
{
    std::printf("  %s %c %-11s %s\n",
                d.address().c_str(),
                selected ? '*' : ' ',
                d.type_name().c_str(),
                d.name.c_str());
    std::printf("        %s; %s; driver %s; vendor %s\n",
                d.version.c_str(),
                d.opencl_c_version.c_str(),
                d.driver_version.c_str(),
                d.vendor.c_str());
    std::printf(
        "        %u compute units at %u MHz; work-groups of up to %zu work-items\n",
        d.compute_units,
        d.max_clock_mhz,
        d.max_work_group_size);
    std::printf("        local memory %s (%s); global memory %s, max allocation %s; "
                "constant %s%s\n",
                bytes(d.local_mem_bytes).c_str(),
                d.local_mem_is_dedicated ? "on chip" : "emulated in global memory",
                bytes(d.global_mem_bytes).c_str(),
                bytes(d.max_alloc_bytes).c_str(),
                bytes(d.max_constant_bytes).c_str(),
                d.host_unified_memory ? "; shares host memory" : "");
}

int run(int argc, char** argv)
{
    bool have_spec = false;
    std::string spec;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::fputs(usage_text, stdout);
            return 0;
        }
        if (arg == "--") {
            if (i + 1 < argc) {
                if (have_spec || i + 2 < argc)
                    throw std::invalid_argument("give at most one DEVICE (see --help)");
                spec = argv[i + 1];
                have_spec = true;
            }
            break;
        }
        if (arg.size() > 1 && arg[0] == '-')
            throw std::invalid_argument("unknown option \"" + arg + "\" (see --help)");
        if (have_spec)
            throw std::invalid_argument("give at most one DEVICE (see --help)");
        spec = arg;
        have_spec = true;
    }

    const std::vector<wb::device_info> devices = wb::list_devices();
    if (devices.empty()) {
        // The core's message says which driver to install.
        wb::find_device("auto"); // throws std::runtime_error with that message
        throw std::runtime_error("no OpenCL device found");
    }

    if (have_spec) {
        // Resolve first: a device string that selects nothing is one line on stderr.
        const std::vector<wb::device_info> found = wb::find_devices(spec);
        const std::string effective = wb::effective_device_spec(spec);
        const std::string origin =
            effective != spec ? " (WIDEBAND_DEVICE=\"" + effective + "\")" : "";
        if (found.size() > 1)
            std::printf("\"%s\"%s selects %zu devices, chunks go to them in turn:\n",
                        spec.c_str(),
                        origin.c_str(),
                        found.size());
        // One device: '"cpu" selects platform 0: ...', as before lists existed.
        const std::string lead =
            found.size() > 1 ? "" : "\"" + spec + "\"" + origin + " selects ";
        for (const auto& d : found) {
            std::printf("%splatform %zu: %s\n",
                        lead.c_str(),
                        d.platform_index,
                        d.platform_name.c_str());
            print_device(d, false);
        }
        return 0;
    }

    // Which devices "" selects: the automatic choice, or WIDEBAND_DEVICE.
    const wb::device_info automatic = wb::find_device("auto");
    const std::string env = wb::environment::device();
    const bool env_set = !env.empty();
    std::string env_error;
    std::vector<wb::device_info> selected = { automatic };
    if (env_set) {
        try {
            selected = wb::find_devices(""); // "" is WIDEBAND_DEVICE now
        } catch (const std::invalid_argument& e) {
            env_error = one_line(e.what());
        }
    }

    size_t platforms = 0;
    for (size_t i = 0; i < devices.size(); ++i)
        if (i == 0 || devices[i].platform_index != devices[i - 1].platform_index)
            ++platforms;
    std::printf("OpenCL: %zu platform%s, %zu device%s\n",
                platforms,
                platforms == 1 ? "" : "s",
                devices.size(),
                devices.size() == 1 ? "" : "s");
    for (size_t i = 0; i < devices.size(); ++i) {
        const auto& d = devices[i];
        if (i == 0 || d.platform_index != devices[i - 1].platform_index)
            std::printf(
                "\nplatform %zu: %s\n", d.platform_index, d.platform_name.c_str());
        print_device(d, env_error.empty() && among(d, selected));
    }
    std::printf("\nautomatic (\"\"):  %s\n", short_name(automatic).c_str());
    if (!env_set) {
        std::printf("WIDEBAND_DEVICE:  not set; \"\" selects the automatic choice\n");
        return 0;
    }
    if (!env_error.empty()) {
        std::printf("WIDEBAND_DEVICE:  \"%s\" selects no device\n", env.c_str());
        std::fprintf(stderr, "%s: %s\n", prog, env_error.c_str());
        return 2;
    }
    std::string names;
    for (const auto& d : selected)
        names += (names.empty() ? "" : ", ") + short_name(d);
    std::printf("WIDEBAND_DEVICE:  \"%s\" selects %s, and so does \"\"\n",
                env.c_str(),
                names.c_str());
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        return run(argc, argv);
    } catch (...) {
        return app_common::report_error(prog);
    }
}
