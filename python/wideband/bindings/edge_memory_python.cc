/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/wideband/edge_memory.h>

#include <pybind11/pybind11.h>

namespace py = pybind11;

void bind_edge_memory(py::module& m)
{
    m.def("input_memory",
          &gr::wideband::input_memory,
          py::arg("block"),
          py::arg("port") = 0,
          R"doc(
Where the items of block's input port live once the flowgraph has started:
"device" (gr-wideband blocks on both ends, on the same device: the samples
stay in device memory), "pinned host" (page-locked memory that the device reads
and writes by DMA) or "host" (an ordinary GNU Radio buffer). Any block.
ValueError when the block is not in a started flowgraph or has no such port.)doc");
    m.def("output_memory",
          &gr::wideband::output_memory,
          py::arg("block"),
          py::arg("port") = 0,
          "As input_memory, for an output port.");
}
