/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/wideband/work_error.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_work_error(py::module& m)
{
    m.def("work_error",
          &gr::wideband::work_error,
          py::arg("block"),
          R"doc(
The error that stopped a gr-wideband block, or "" when it has not failed since
its flowgraph last started (or is not a gr-wideband block). GNU Radio cannot
raise an exception from a block's thread in tb.run() or tb.wait(): a
gr-wideband block whose start() or work() fails (a kernel build, an OpenCL
error of a failing device) logs the error, ends its stream, which stops the
flowgraph, and keeps the message for this call (docs/reliability.md).)doc");
}
