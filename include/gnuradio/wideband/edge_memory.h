/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_EDGE_MEMORY_H
#define INCLUDED_WIDEBAND_EDGE_MEMORY_H

#include <gnuradio/block.h>
#include <gnuradio/wideband/api.h>

#include <string>

namespace gr {
namespace wideband {

/*!
 * \brief Where the items of a block's input (output) \p port live once its
 * flowgraph has started: "device" (gr-wideband blocks on both ends, same
 * device: the samples never leave device memory), "pinned host" (page-locked
 * memory the device reads and writes by DMA) or "host" (an ordinary GNU Radio
 * buffer). Works for any block, e.g. a host sink behind a gr-wideband block.
 *
 * \throws std::invalid_argument when the block is not in a started flowgraph
 *         or has no such port
 */
WIDEBAND_API std::string input_memory(gr::block_sptr block, int port = 0);
//! As input_memory(), for an output \p port.
WIDEBAND_API std::string output_memory(gr::block_sptr block, int port = 0);

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_EDGE_MEMORY_H */
