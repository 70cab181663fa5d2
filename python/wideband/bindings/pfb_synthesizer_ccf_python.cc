/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "wideband_pydoc.h"
#include <gnuradio/wideband/pfb_synthesizer_ccf.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_pfb_synthesizer_ccf(py::module& m)
{
    using gr::wideband::pfb_synthesizer_ccf;
    namespace doc = wideband_pydoc::pfb_synthesizer_ccf;
    const std::string class_doc = std::string(doc::doc) + "\n\n" + doc::make;

    py::class_<pfb_synthesizer_ccf,
               gr::block,
               gr::basic_block,
               std::shared_ptr<pfb_synthesizer_ccf>>(
        m, "pfb_synthesizer_ccf", class_doc.c_str())
        .def(py::init(&pfb_synthesizer_ccf::make),
             py::arg("numchans"),
             py::arg("taps"),
             py::arg("twox") = false,
             py::arg("device") = "",
             py::arg("vector_input") = false)
        .def("set_taps", &pfb_synthesizer_ccf::set_taps, py::arg("taps"), doc::set_taps)
        .def("taps", &pfb_synthesizer_ccf::taps, doc::taps)
        .def("print_taps", &pfb_synthesizer_ccf::print_taps, doc::print_taps)
        .def("set_channel_map",
             &pfb_synthesizer_ccf::set_channel_map,
             py::arg("map"),
             doc::set_channel_map)
        .def("channel_map", &pfb_synthesizer_ccf::channel_map, doc::channel_map)
        .def("device_name", &pfb_synthesizer_ccf::device_name, doc::device_name);
}
