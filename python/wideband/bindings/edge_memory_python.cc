/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "wideband_pydoc.h"
#include <gnuradio/wideband/edge_memory.h>

#include <pybind11/pybind11.h>

namespace py = pybind11;

void bind_edge_memory(py::module& m)
{
    m.def("input_memory",
          &gr::wideband::input_memory,
          py::arg("block"),
          py::arg("port") = 0,
          wideband_pydoc::input_memory);
    m.def("output_memory",
          &gr::wideband::output_memory,
          py::arg("block"),
          py::arg("port") = 0,
          wideband_pydoc::output_memory);
}
