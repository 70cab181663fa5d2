/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "wideband_pydoc.h"
#include <gnuradio/wideband/pfb_decimator_ccf.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_pfb_decimator_ccf(py::module& m)
{
    using gr::wideband::pfb_decimator_ccf;
    namespace doc = wideband_pydoc::pfb_decimator_ccf;
    const std::string class_doc = std::string(doc::doc) + "\n\n" + doc::make;

    py::class_<pfb_decimator_ccf,
               gr::block,
               gr::basic_block,
               std::shared_ptr<pfb_decimator_ccf>>(
        m, "pfb_decimator_ccf", class_doc.c_str())
        .def(py::init(&pfb_decimator_ccf::make),
             py::arg("decim"),
             py::arg("taps"),
             py::arg("channel"),
             py::arg("use_fft_rotator") = true,
             py::arg("use_fft_filters") = true,
             py::arg("device") = "")
        .def("set_taps", &pfb_decimator_ccf::set_taps, py::arg("taps"), doc::set_taps)
        .def("taps", &pfb_decimator_ccf::taps, doc::taps)
        .def("print_taps", &pfb_decimator_ccf::print_taps, doc::print_taps)
        .def("set_channel",
             &pfb_decimator_ccf::set_channel,
             py::arg("channel"),
             doc::set_channel)
        .def("channel", &pfb_decimator_ccf::channel, doc::channel)
        .def("decimation", &pfb_decimator_ccf::decimation, doc::decimation)
        .def("device_name", &pfb_decimator_ccf::device_name, doc::device_name)
        .def("latency", &pfb_decimator_ccf::latency, doc::latency);
}
