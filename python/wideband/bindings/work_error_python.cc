/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "wideband_pydoc.h"
#include <gnuradio/wideband/work_error.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_work_error(py::module& m)
{
    m.def("work_error",
          &gr::wideband::work_error,
          py::arg("block"),
          wideband_pydoc::work_error);
}
