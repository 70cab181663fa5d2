/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/wideband/fft_vcc.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_fft_vcc(py::module& m)
{
    using gr::wideband::fft_vcc;

    py::class_<fft_vcc,
               gr::sync_block,
               gr::block,
               gr::basic_block,
               std::shared_ptr<fft_vcc>>(m, "fft_vcc", R"doc(
Forward or inverse FFT of complex vectors on an OpenCL device: a drop-in for
gnuradio.fft.fft_vcc (same output to float precision: unnormalised, window
applied before the transform, shift as the in-tree block does).

fft_vcc(fft_size, forward, window, shift=False, nthreads=1, device="")

device: "" (automatic: first GPU, else accelerator, else CPU; the environment
variable WIDEBAND_DEVICE replaces ""), "gpu", "cpu", "accelerator", "P:D"
(platform and device index, see list_devices()) or part of a device name.
nthreads is ignored (the in-tree block's positional form); the device may also
be the fifth argument. Raises ValueError for fft_size < 1, a window neither
empty nor fft_size long, a device string that is malformed or matches no
device, or a bad WIDEBAND_* environment variable; RuntimeError when the
machine has no OpenCL platform.)doc")
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
        .def("set_window",
             &fft_vcc::set_window,
             py::arg("window"),
             "Replaces the window from the next batch of vectors. Returns False and "
             "keeps the current window when it is neither empty nor fft_size long.")
        .def("window", &fft_vcc::window, "The window in use (empty: none).")
        .def("device_name",
             &fft_vcc::device_name,
             "Name of the OpenCL device the block runs on.");
}
