/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/wideband/core/pinned_buffer.h>

#include <algorithm>

namespace gr {
namespace wideband {
namespace core {

pinned_buffer::pinned_buffer(device_context::sptr context, size_t bytes)
    : d_context(std::move(context)),
      d_queue(d_context->create_queue()),
      d_buffer(d_context->context(),
               CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
               std::max<size_t>(bytes, 1)),
      d_bytes(bytes),
      d_data(d_queue.enqueueMapBuffer(
          d_buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, std::max<size_t>(bytes, 1)))
{
}

pinned_buffer::~pinned_buffer()
{
    try {
        d_queue.enqueueUnmapMemObject(d_buffer, d_data);
        d_queue.finish();
    } catch (const cl::Error&) {
        // nothing useful to do while destroying
    }
}

} // namespace core
} // namespace wideband
} // namespace gr
