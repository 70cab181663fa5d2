/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_WORK_ERROR_H
#define INCLUDED_WIDEBAND_WORK_ERROR_H

#include <gnuradio/basic_block.h>
#include <gnuradio/wideband/api.h>

#include <string>

namespace gr {
namespace wideband {

/*!
 * \brief The error that stopped a gr-wideband block, or "" when it has not
 * failed since its flowgraph last started (or is not a gr-wideband block).
 *
 * GNU Radio 3.10 cannot pass an exception from a block's thread to
 * tb.start(), tb.run() or tb.wait(). A gr-wideband block whose start() or
 * work() fails (a kernel build, an OpenCL error of a failing device) logs the
 * error, ends its stream, which stops the flowgraph, and keeps the message
 * here for the program to check after tb.wait() (docs/reliability.md).
 */
WIDEBAND_API std::string work_error(const gr::basic_block_sptr& block);

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_WORK_ERROR_H */
