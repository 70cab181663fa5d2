/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "wideband_pydoc.h"
#include <gnuradio/wideband/pfb_arb_resampler_ccf.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_pfb_arb_resampler_ccf(py::module& m)
{
    using gr::wideband::pfb_arb_resampler_ccf;
    namespace doc = wideband_pydoc::pfb_arb_resampler_ccf;
    const std::string class_doc = std::string(doc::doc) + "\n\n" + doc::make;

    py::class_<pfb_arb_resampler_ccf,
               gr::block,
               gr::basic_block,
               std::shared_ptr<pfb_arb_resampler_ccf>>(
        m, "pfb_arb_resampler_ccf", class_doc.c_str())
        .def(py::init(&pfb_arb_resampler_ccf::make),
             py::arg("rate"),
             py::arg("taps"),
             py::arg("filter_size") = 32,
             py::arg("device") = "")
        .def("set_taps", &pfb_arb_resampler_ccf::set_taps, py::arg("taps"), doc::set_taps)
        .def("taps", &pfb_arb_resampler_ccf::taps, doc::taps)
        .def("print_taps", &pfb_arb_resampler_ccf::print_taps, doc::print_taps)
        .def("set_rate", &pfb_arb_resampler_ccf::set_rate, py::arg("rate"), doc::set_rate)
        .def(
            "set_phase", &pfb_arb_resampler_ccf::set_phase, py::arg("ph"), doc::set_phase)
        .def("phase", &pfb_arb_resampler_ccf::phase, doc::phase)
        .def("interpolation_rate",
             &pfb_arb_resampler_ccf::interpolation_rate,
             doc::interpolation_rate)
        .def("decimation_rate",
             &pfb_arb_resampler_ccf::decimation_rate,
             doc::decimation_rate)
        .def("fractional_rate",
             &pfb_arb_resampler_ccf::fractional_rate,
             doc::fractional_rate)
        .def("taps_per_filter",
             &pfb_arb_resampler_ccf::taps_per_filter,
             doc::taps_per_filter)
        .def("group_delay", &pfb_arb_resampler_ccf::group_delay, doc::group_delay)
        .def("phase_offset",
             &pfb_arb_resampler_ccf::phase_offset,
             py::arg("freq"),
             py::arg("fs"),
             doc::phase_offset)
        .def("device_name", &pfb_arb_resampler_ccf::device_name, doc::device_name)
        .def("latency", &pfb_arb_resampler_ccf::latency, doc::latency);
}
