/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "wideband_pydoc.h"
#include <gnuradio/wideband/thread_errors.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_thread_errors(py::module& m)
{
    m.def("watch_thread_errors",
          &gr::wideband::watch_thread_errors,
          wideband_pydoc::watch_thread_errors);

    m.def("thread_errors", &gr::wideband::thread_errors, wideband_pydoc::thread_errors);

    m.def("clear_thread_errors",
          &gr::wideband::clear_thread_errors,
          wideband_pydoc::clear_thread_errors);
}
