/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/wideband/fft_filter.h>

#include <pybind11/complex.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace {

template <class TAP_T>
void bind_one(py::module& m, const char* name, const char* in_tree)
{
    using block = gr::wideband::fft_filter<TAP_T>;
    const std::string doc =
        std::string(
            "FIR filter by fast convolution on an OpenCL device: a drop-in for ") +
        in_tree + R"doc( (the same output to float precision).

)doc" + name +
        R"doc((decimation, taps, nthreads=1, device="")

y[m] = sum_k taps[k] * x[m*decimation - k] from zero state, no delay
compensation; tags on input item k go to output item k // decimation. The
output lags the input by up to latency() samples (two chunks in flight) and
the end of a stream is flushed. device: "" (automatic: first GPU, else
accelerator, else CPU; WIDEBAND_DEVICE replaces ""), "gpu", "cpu", "P:D" or part
of a device name. nthreads is ignored (the in-tree block's positional form);
the device may also be the third argument. Raises ValueError for decimation < 1,
empty or non-finite taps, a bad device string or a bad WIDEBAND_* environment
variable.)doc";
    py::class_<block, gr::block, gr::basic_block, std::shared_ptr<block>>(
        m, name, doc.c_str())
        .def(py::init(&block::make),
             py::arg("decimation"),
             py::arg("taps"),
             py::arg("nthreads") = 1,
             py::arg("device") = "")
        // The form without nthreads: the device third.
        .def(py::init([](int decimation,
                         const std::vector<TAP_T>& taps,
                         const std::string& device) {
                 return block::make(decimation, taps, 1, device);
             }),
             py::arg("decimation"),
             py::arg("taps"),
             py::arg("device"))
        .def("set_taps",
             &block::set_taps,
             py::arg("taps"),
             "New taps from the next chunk computed on; no sample is lost.")
        .def("taps", &block::taps)
        .def("decimation", &block::decimation)
        .def("fft_size", &block::fft_size, "FFT length used for the taps.")
        .def("device_name", &block::device_name)
        .def("latency", &block::latency, "Input samples the output may lag behind.");
}

} // namespace

void bind_fft_filter(py::module& m)
{
    bind_one<gr_complex>(m, "fft_filter_ccc", "gnuradio.filter.fft_filter_ccc");
    bind_one<float>(m, "fft_filter_ccf", "gnuradio.filter.fft_filter_ccf");
}
