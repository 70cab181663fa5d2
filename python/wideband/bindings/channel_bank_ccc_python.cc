/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "wideband_pydoc.h"
#include <gnuradio/wideband/channel_bank_ccc.h>

#include <pybind11/complex.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_channel_bank_ccc(py::module& m)
{
    using block = gr::wideband::channel_bank_ccc;
    using tap_lists = std::vector<std::vector<gr_complex>>;
    namespace doc = wideband_pydoc::channel_bank_ccc;
    const std::string class_doc = std::string(doc::doc) + "\n\n" + doc::make;
    // decimations: a list, or one int for all; taps: a list per channel, or
    // one list for all.
    const auto make = [](double samp_rate,
                         const std::vector<double>& center_freqs,
                         const std::vector<int>& decimations,
                         const tap_lists& taps,
                         const std::string& device,
                         bool vector_output,
                         const std::string& input_type) {
        return block::make(samp_rate,
                           center_freqs,
                           decimations,
                           taps,
                           device,
                           vector_output,
                           input_type);
    };
    py::class_<block, gr::block, gr::basic_block, std::shared_ptr<block>> cls(
        m, "channel_bank_ccc", class_doc.c_str());
    const auto bind_init = [&](auto factory) {
        cls.def(py::init(factory),
                py::arg("samp_rate"),
                py::arg("center_freqs"),
                py::arg("decimations"),
                py::arg("taps"),
                py::arg("device") = "",
                py::arg("vector_output") = false,
                py::arg("input_type") = "fc32");
    };
    bind_init(make);
    bind_init([make](double fs,
                     const std::vector<double>& f,
                     int D,
                     const tap_lists& taps,
                     const std::string& device,
                     bool vector_output,
                     const std::string& input_type) {
        return make(fs, f, { D }, taps, device, vector_output, input_type);
    });
    bind_init([make](double fs,
                     const std::vector<double>& f,
                     const std::vector<int>& D,
                     const std::vector<gr_complex>& taps,
                     const std::string& device,
                     bool vector_output,
                     const std::string& input_type) {
        return make(fs, f, D, { taps }, device, vector_output, input_type);
    });
    bind_init([make](double fs,
                     const std::vector<double>& f,
                     int D,
                     const std::vector<gr_complex>& taps,
                     const std::string& device,
                     bool vector_output,
                     const std::string& input_type) {
        return make(fs, f, { D }, { taps }, device, vector_output, input_type);
    });
    cls.def("set_center_freq",
            &block::set_center_freq,
            py::arg("channel"),
            py::arg("center_freq"),
            doc::set_center_freq)
        .def("center_freq", &block::center_freq, py::arg("channel"), doc::center_freq)
        .def("set_taps", &block::set_taps, py::arg("channel"), py::arg("taps"), doc::set_taps)
        .def("taps", &block::taps, py::arg("channel"), doc::taps)
        .def("center_freqs", &block::center_freqs, doc::center_freqs)
        .def("decimations", &block::decimations, doc::decimations)
        .def("samp_rate", &block::samp_rate, doc::samp_rate)
        .def("channels", &block::channels, doc::channels)
        .def("fft_size", &block::fft_size, doc::fft_size)
        .def("device_name", &block::device_name, doc::device_name)
        .def("latency", &block::latency, doc::latency);
}
