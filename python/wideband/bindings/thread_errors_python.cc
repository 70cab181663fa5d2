/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/wideband/thread_errors.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_thread_errors(py::module& m)
{
    m.def("watch_thread_errors",
          &gr::wideband::watch_thread_errors,
          R"doc(
Starts keeping the errors that end blocks' threads; calling it again does
nothing. When any block's work() raises (blocks.file_sink on a full disk, say),
GNU Radio 3.10's scheduler logs "ERROR thread[<thread>]: <what>" and ends that
block's thread; the rest of the flowgraph then waits for ever and tb.wait()
never returns. This adds a sink to GNU Radio's default logger that keeps those
messages for thread_errors(), so a program can poll for them while the
flowgraph runs and call tb.stop(). They are kept at GNU Radio's default log
level and at any level up to error (warn, for instance), not at critical or
off, where GNU Radio drops them before any sink sees them.)doc");

    m.def("thread_errors",
          &gr::wideband::thread_errors,
          R"doc(
The errors that ended blocks' threads since watch_thread_errors() (or
clear_thread_errors()), oldest first, as a list of str. Each is
"thread[<thread>]: <what>"; the thread-per-block scheduler names a block's
thread after the block, e.g. "thread[thread-per-block[4]: <block
file_sink(4)>]: file_sink write failed with error 12".)doc");

    m.def("clear_thread_errors",
          &gr::wideband::clear_thread_errors,
          R"doc(
Forgets the errors thread_errors() returns (before a flowgraph runs again,
say); watching goes on.)doc");
}
