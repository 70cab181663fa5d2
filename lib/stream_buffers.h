/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_STREAM_BUFFERS_H
#define INCLUDED_WIDEBAND_STREAM_BUFFERS_H

#include <gnuradio/logger.h>

#include <cstddef>

namespace gr {
namespace wideband {

/*!
 * \brief Makes sure GNU Radio can allocate the buffers of a block with
 * \p streams output streams.
 *
 * GNU Radio's default double-mapped buffers take two System V shared-memory
 * segments each, and Linux allows kernel.shmmni segments (usually 4096) in all:
 * a flowgraph with about 1000 output streams or more fails to start with
 * std::bad_alloc. When \p streams would need more than a quarter of that and the
 * System V factory is in effect, the process switches to GNU Radio's POSIX
 * shm_open factory (the same double-mapped buffers without that limit, which is
 * what GNU Radio's documentation suggests for large flowgraphs) and says so in
 * the log. GNU Radio records the choice in ~/.gnuradio/prefs, as it does for
 * its own default. Call it before the buffers are allocated (check_topology).
 */
void ensure_buffers_for_streams(size_t streams, const gr::logger_ptr& logger);

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_STREAM_BUFFERS_H */
