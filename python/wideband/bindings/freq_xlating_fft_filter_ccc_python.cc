/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "wideband_pydoc.h"
#include <gnuradio/wideband/freq_xlating_fft_filter_ccc.h>

#include <pybind11/complex.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_freq_xlating_fft_filter_ccc(py::module& m)
{
    using block = gr::wideband::freq_xlating_fft_filter_ccc;
    namespace doc = wideband_pydoc::freq_xlating_fft_filter_ccc;
    const std::string class_doc = std::string(doc::doc) + "\n\n" + doc::make;
    py::class_<block, gr::block, gr::basic_block, std::shared_ptr<block>>(
        m, "freq_xlating_fft_filter_ccc", class_doc.c_str())
        .def(py::init(&block::make),
             py::arg("decimation"),
             py::arg("taps"),
             py::arg("center_freq"),
             py::arg("sampling_freq"),
             py::arg("device") = "")
        .def("set_center_freq",
             &block::set_center_freq,
             py::arg("center_freq"),
             doc::set_center_freq)
        .def("center_freq", &block::center_freq, doc::center_freq)
        .def("set_taps", &block::set_taps, py::arg("taps"), doc::set_taps)
        .def("taps", &block::taps, doc::taps)
        .def("set_nthreads", &block::set_nthreads, py::arg("nthreads"), doc::set_nthreads)
        .def("nthreads", &block::nthreads, doc::nthreads)
        .def("decimation", &block::decimation, doc::decimation)
        .def("sampling_freq", &block::sampling_freq, doc::sampling_freq)
        .def("fft_size", &block::fft_size, doc::fft_size)
        .def("device_name", &block::device_name, doc::device_name)
        .def("latency", &block::latency, doc::latency);
}
