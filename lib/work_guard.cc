/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "work_guard.h"
#include <gnuradio/logger.h>
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/work_error.h>

namespace gr {
namespace wideband {

std::string work_guard::work_error() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_error;
}

void work_guard::clear()
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_error.clear();
}

bool work_guard::failed() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return !d_error.empty();
}

void work_guard::record(gr::block& block,
                        const std::string& device,
                        std::exception_ptr error)
{
    std::string what;
    try {
        std::rethrow_exception(error);
    } catch (const cl::Error& e) {
        what = "OpenCL error " + core::cl_error_name(e.err()) + " in " + e.what();
    } catch (const std::exception& e) {
        what = e.what();
    } catch (...) {
        what = "unknown exception";
    }
    const std::string message = block.name() + " on " + device + ": " + what +
                                " -- the block has stopped, and with it the "
                                "flowgraph";
    gr::logger(block.alias()).error("{:s}", message);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_error = message;
}

std::string work_error(const gr::basic_block_sptr& block)
{
    const auto* guard = dynamic_cast<const work_guard*>(block.get());
    return guard ? guard->work_error() : "";
}

} // namespace wideband
} // namespace gr
