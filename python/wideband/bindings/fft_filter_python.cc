/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "wideband_pydoc.h"
#include <gnuradio/wideband/fft_filter.h>
#include <gnuradio/wideband/fft_filter_fff.h>

#include <pybind11/complex.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace {

namespace doc = wideband_pydoc::fft_filter;

template <class TAP_T>
void bind_one(py::module& m, const char* name)
{
    using block = gr::wideband::fft_filter<TAP_T>;
    const std::string class_doc = std::string(doc::doc) + "\n\n" + doc::make;
    py::class_<block, gr::block, gr::basic_block, std::shared_ptr<block>>(
        m, name, class_doc.c_str())
        .def(py::init(&block::make),
             py::arg("decimation"),
             py::arg("taps"),
             py::arg("nthreads") = 1,
             py::arg("device") = "",
             py::arg("input_type") = "fc32")
        // The form without nthreads: the device third.
        .def(py::init([](int decimation,
                         const std::vector<TAP_T>& taps,
                         const std::string& device,
                         const std::string& input_type) {
                 return block::make(decimation, taps, 1, device, input_type);
             }),
             py::arg("decimation"),
             py::arg("taps"),
             py::arg("device"),
             py::arg("input_type") = "fc32")
        .def("set_taps", &block::set_taps, py::arg("taps"), doc::set_taps)
        .def("taps", &block::taps, doc::taps)
        .def("decimation", &block::decimation, doc::decimation)
        .def("fft_size", &block::fft_size, doc::fft_size)
        .def("device_name", &block::device_name, doc::device_name)
        .def("latency", &block::latency, doc::latency);
}

// fft_filter_fff: the in-tree block's arguments (no input_type: real floats).
void bind_fff(py::module& m)
{
    using block = gr::wideband::fft_filter_fff;
    namespace fff = wideband_pydoc::fft_filter_fff;
    const std::string class_doc = std::string(fff::doc) + "\n\n" + fff::make;
    py::class_<block, gr::block, gr::basic_block, std::shared_ptr<block>>(
        m, "fft_filter_fff", class_doc.c_str())
        .def(py::init(&block::make),
             py::arg("decimation"),
             py::arg("taps"),
             py::arg("nthreads") = 1,
             py::arg("device") = "")
        // The form without nthreads: the device third.
        .def(py::init([](int decimation,
                         const std::vector<float>& taps,
                         const std::string& device) {
                 return block::make(decimation, taps, 1, device);
             }),
             py::arg("decimation"),
             py::arg("taps"),
             py::arg("device"))
        .def("set_taps", &block::set_taps, py::arg("taps"), fff::set_taps)
        .def("taps", &block::taps, fff::taps)
        .def("decimation", &block::decimation, fff::decimation)
        .def("fft_size", &block::fft_size, fff::fft_size)
        .def("device_name", &block::device_name, fff::device_name)
        .def("latency", &block::latency, fff::latency);
}

} // namespace

void bind_fft_filter(py::module& m)
{
    bind_one<gr_complex>(m, "fft_filter_ccc");
    bind_one<float>(m, "fft_filter_ccf");
    bind_fff(m);
}
