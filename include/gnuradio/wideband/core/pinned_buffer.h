/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_PINNED_BUFFER_H
#define INCLUDED_WIDEBAND_CORE_PINNED_BUFFER_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/device.h>

#include <cstddef>

namespace gr {
namespace wideband {
namespace core {

/*!
 * \brief Host memory the device can DMA to and from: an OpenCL buffer allocated
 * with CL_MEM_ALLOC_HOST_PTR and mapped for the buffer's whole life.
 *
 * On discrete GPUs this is page-locked ("pinned") memory: clEnqueueWriteBuffer
 * and clEnqueueReadBuffer from data() run at the full speed of the bus (several
 * times faster than from ordinary pageable memory: docs/benchmarks.md, GNU Radio
 * flowgraphs, the PCIe rows), and asynchronously. data() stays valid until destruction.
 */
class WIDEBAND_CORE_API pinned_buffer
{
public:
    pinned_buffer(device_context::sptr context, size_t bytes);
    ~pinned_buffer();

    pinned_buffer(const pinned_buffer&) = delete;
    pinned_buffer& operator=(const pinned_buffer&) = delete;

    void* data() const { return d_data; }
    size_t size() const { return d_bytes; }

private:
    device_context::sptr d_context;
    cl::CommandQueue d_queue;
    cl::Buffer d_buffer;
    size_t d_bytes;
    void* d_data;
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_PINNED_BUFFER_H */
