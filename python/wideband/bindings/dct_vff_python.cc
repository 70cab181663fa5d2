/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "wideband_pydoc.h"
#include <gnuradio/wideband/dct_vff.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_dct_vff(py::module& m)
{
    using block = gr::wideband::dct_vff;
    namespace doc = wideband_pydoc::dct_vff;
    const std::string class_doc = std::string(doc::doc) + "\n\n" + doc::make;
    py::class_<block, gr::block, gr::basic_block, std::shared_ptr<block>>(
        m, "dct_vff", class_doc.c_str())
        .def(py::init(&block::make),
             py::arg("size"),
             py::arg("type") = 2,
             py::arg("norm") = "ortho",
             py::arg("device") = "")
        .def("size", &block::size, doc::size)
        .def("type", &block::type, doc::type)
        .def("norm", &block::norm, doc::norm)
        .def("device_name", &block::device_name, doc::device_name);
}
