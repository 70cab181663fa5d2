/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/environment.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>

namespace py = pybind11;
using gr::wideband::core::device_info;

namespace {

py::dict as_dict(const device_info& d, bool automatic)
{
    py::dict out;
    out["address"] = d.address();
    out["name"] = d.name;
    out["platform"] = d.platform_name;
    out["vendor"] = d.vendor;
    out["type"] = d.type_name();
    out["compute_units"] = d.compute_units;
    out["max_clock_mhz"] = d.max_clock_mhz;
    out["max_work_group_size"] = d.max_work_group_size;
    out["local_mem_bytes"] = d.local_mem_bytes;
    out["global_mem_bytes"] = d.global_mem_bytes;
    out["max_alloc_bytes"] = d.max_alloc_bytes;
    out["opencl_version"] = d.version;
    out["opencl_c_version"] = d.opencl_c_version;
    out["driver_version"] = d.driver_version;
    out["automatic"] = automatic;
    return out;
}

// The address of the device "" resolves to, or "" when it resolves to none
// (no platform, or a WIDEBAND_DEVICE that names no device).
std::string automatic_address()
{
    try {
        return gr::wideband::core::find_device("").address();
    } catch (const std::exception&) {
        return "";
    }
}

} // namespace

void bind_core(py::module& m)
{
    m.def(
        "list_devices",
        []() {
            const std::string automatic = automatic_address();
            py::list out;
            for (const auto& d : gr::wideband::core::list_devices())
                out.append(as_dict(d, d.address() == automatic));
            return out;
        },
        R"doc(
Every OpenCL device, in platform:device order, as dicts with keys address
("P:D"), name, platform, vendor, type ("GPU", "CPU", "accelerator", "other"),
compute_units, max_clock_mhz, max_work_group_size, local_mem_bytes,
global_mem_bytes, max_alloc_bytes, opencl_version, opencl_c_version,
driver_version and automatic (True for the device that device="" picks).
An empty list when the machine has no OpenCL platform.)doc");

    m.def(
        "find_device",
        [](const std::string& spec) {
            const device_info d = gr::wideband::core::find_device(spec);
            return as_dict(d, d.address() == automatic_address());
        },
        py::arg("spec") = "",
        R"doc(
The device a block's device string selects, as a dict like list_devices().
Raises ValueError for a malformed string or one no device matches, RuntimeError
when the machine has no OpenCL platform.)doc");

    m.def("watch_fault",
          &gr::wideband::core::environment::watch_fault,
          R"doc(
Test-only: the blocks' engine calls read WIDEBAND_FAULT from now on, for the
life of the process (docs/reliability.md). Without this they read it only when
it was set as the library loaded, so a test that sets it at run time calls this
first.)doc");
}
