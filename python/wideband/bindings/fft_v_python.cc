/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "wideband_pydoc.h"
#include <gnuradio/wideband/fft_vcc.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_fft_vcc(py::module& m)
{
    using gr::wideband::fft_vcc;
    namespace doc = wideband_pydoc::fft_vcc;
    const std::string class_doc = std::string(doc::doc) + "\n\n" + doc::make;

    py::class_<fft_vcc, gr::block, gr::basic_block, std::shared_ptr<fft_vcc>>(
        m, "fft_vcc", class_doc.c_str())
        .def(py::init(&fft_vcc::make),
             py::arg("fft_size"),
             py::arg("forward"),
             py::arg("window"),
             py::arg("shift") = false,
             py::arg("nthreads") = 1,
             py::arg("device") = "")
        // The form without nthreads: the device fifth.
        .def(py::init([](int fft_size,
                         bool forward,
                         const std::vector<float>& window,
                         bool shift,
                         const std::string& device) {
                 return fft_vcc::make(fft_size, forward, window, shift, 1, device);
             }),
             py::arg("fft_size"),
             py::arg("forward"),
             py::arg("window"),
             py::arg("shift"),
             py::arg("device"))
        .def("set_window", &fft_vcc::set_window, py::arg("window"), doc::set_window)
        .def("window", &fft_vcc::window, doc::window)
        .def("device_name", &fft_vcc::device_name, doc::device_name);
}
