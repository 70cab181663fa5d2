/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_THREAD_ERRORS_H
#define INCLUDED_WIDEBAND_THREAD_ERRORS_H

#include <gnuradio/wideband/api.h>

#include <string>
#include <vector>

namespace gr {
namespace wideband {

/*!
 * \brief Starts keeping the errors that end blocks' threads; calling it again
 * does nothing.
 *
 * When any block's work() throws (blocks.file_sink on a full disk, say), GNU
 * Radio 3.10's scheduler logs "ERROR thread[<thread>]: <what>" and ends that
 * block's thread; the rest of the flowgraph then waits for ever and
 * tb.wait() never returns. This adds a sink to GNU Radio's default logger
 * (gr::logging::singleton().add_default_sink()) that keeps those messages
 * for thread_errors(), so a program can poll for them while the flowgraph
 * runs and stop it.
 *
 * The message passes GNU Radio's default log level first: it is kept at
 * GNU Radio's defaults and at any level up to error (warn, for instance),
 * not at critical or off, where GNU Radio drops it before any sink sees it.
 */
WIDEBAND_API void watch_thread_errors();

/*!
 * \brief The errors that ended blocks' threads since watch_thread_errors()
 * (or clear_thread_errors()), oldest first.
 *
 * Each is "thread[<thread>]: <what>"; the thread-per-block scheduler names a
 * block's thread after the block, e.g. "thread[thread-per-block[4]:
 * <block file_sink(4)>]: file_sink write failed with error 12".
 */
WIDEBAND_API std::vector<std::string> thread_errors();

/*!
 * \brief Forgets the errors thread_errors() returns (before a flowgraph
 * runs again, say); watching goes on.
 */
WIDEBAND_API void clear_thread_errors();

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_THREAD_ERRORS_H */
