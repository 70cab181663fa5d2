/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "wideband_pydoc.h"
#include <gnuradio/wideband/fft_vcc.h>
#include <gnuradio/wideband/fft_vfc.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace {

// The docstrings of one block (its namespace of wideband_pydoc).
struct fft_v_docs {
    const char *doc, *make, *set_window, *window, *device_name;
};

// fft_vcc and fft_vfc have the same arguments and methods.
template <class Block>
void bind_fft_v(py::module& m, const char* name, const fft_v_docs& docs)
{
    const std::string class_doc = std::string(docs.doc) + "\n\n" + docs.make;
    py::class_<Block, gr::block, gr::basic_block, std::shared_ptr<Block>>(
        m, name, class_doc.c_str())
        .def(py::init(&Block::make),
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
                 return Block::make(fft_size, forward, window, shift, 1, device);
             }),
             py::arg("fft_size"),
             py::arg("forward"),
             py::arg("window"),
             py::arg("shift"),
             py::arg("device"))
        .def("set_window", &Block::set_window, py::arg("window"), docs.set_window)
        .def("window", &Block::window, docs.window)
        .def("device_name", &Block::device_name, docs.device_name);
}

} // namespace

void bind_fft_v(py::module& m)
{
    namespace vcc = wideband_pydoc::fft_vcc;
    namespace vfc = wideband_pydoc::fft_vfc;
    bind_fft_v<gr::wideband::fft_vcc>(
        m,
        "fft_vcc",
        { vcc::doc, vcc::make, vcc::set_window, vcc::window, vcc::device_name });
    bind_fft_v<gr::wideband::fft_vfc>(
        m,
        "fft_vfc",
        { vfc::doc, vfc::make, vfc::set_window, vfc::window, vfc::device_name });
}
