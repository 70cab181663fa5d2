/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "wideband_pydoc.h"
#include <gnuradio/wideband/fft_v.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace {

namespace doc = wideband_pydoc::fft_v;

template <class T>
void bind_one(py::module& m, const char* name)
{
    using block = gr::wideband::fft_v<T>;
    const std::string class_doc = std::string(doc::doc) + "\n\n" + doc::make;
    py::class_<block, gr::block, gr::basic_block, std::shared_ptr<block>>(
        m, name, class_doc.c_str())
        .def(py::init(&block::make),
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
                 return block::make(fft_size, forward, window, shift, 1, device);
             }),
             py::arg("fft_size"),
             py::arg("forward"),
             py::arg("window"),
             py::arg("shift"),
             py::arg("device"))
        .def("set_window", &block::set_window, py::arg("window"), doc::set_window)
        .def("window", &block::window, doc::window)
        .def("device_name", &block::device_name, doc::device_name);
}

} // namespace

void bind_fft_v(py::module& m)
{
    bind_one<gr_complex>(m, "fft_vcc");
    bind_one<float>(m, "fft_vfc");
}
