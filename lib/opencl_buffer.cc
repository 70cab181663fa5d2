/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/wideband/edge_memory.h>
#include <gnuradio/wideband/opencl_buffer.h>

#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>

#include "work_profile.h"
#include <sys/mman.h>
#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>

namespace gr {
namespace wideband {

namespace {

core::device_context::sptr context_of(const gr::block_sptr& block)
{
    const auto* ours = dynamic_cast<const opencl_block*>(block.get());
    return ours ? ours->opencl_context() : nullptr;
}

core::device_context::sptr pinned_memory_context_of(const gr::block_sptr& block)
{
    const auto* ours = dynamic_cast<const opencl_block*>(block.get());
    return ours ? ours->pinned_memory_context() : nullptr;
}

} // namespace

gr::buffer_type opencl_buffer::type(gr::buftype<opencl_buffer, opencl_buffer>{});

gr::buffer_sptr opencl_buffer::make_buffer(int nitems,
                                           size_t sizeof_item,
                                           uint64_t downstream_lcm_nitems,
                                           uint32_t downstream_max_out_mult,
                                           gr::block_sptr link,
                                           gr::block_sptr buf_owner)
{
    core::device_context::sptr context = pinned_memory_context_of(buf_owner);
    if (!context)
        context = pinned_memory_context_of(link);
    if (!context)
        throw std::logic_error("opencl_buffer: neither the writer nor the owner of the "
                               "buffer is a gr-wideband block");
    return gr::buffer_sptr(new opencl_buffer(nitems,
                                             sizeof_item,
                                             downstream_lcm_nitems,
                                             downstream_max_out_mult,
                                             link,
                                             buf_owner,
                                             std::move(context)));
}

opencl_buffer::opencl_buffer(int nitems,
                             size_t sizeof_item,
                             uint64_t downstream_lcm_nitems,
                             uint32_t downstream_max_out_mult,
                             gr::block_sptr link,
                             gr::block_sptr buf_owner,
                             core::device_context::sptr context)
    : gr::buffer_single_mapped(nitems,
                               sizeof_item,
                               downstream_lcm_nitems,
                               downstream_max_out_mult,
                               link,
                               buf_owner),
      d_context(std::move(context))
{
    gr::configure_default_loggers(d_logger, d_debug_logger, "opencl_buffer");
    if (!allocate_buffer(nitems))
        throw std::bad_alloc();
    // GNU Radio 3.10's single-mapped buffer keeps its owner, a gr-wideband block
    // here, by a shared pointer, and the block keeps the buffer (as its output,
    // or through its reader): neither would ever be freed. Nothing reads the
    // owner after allocation.
    d_buf_owner.reset();
}

opencl_buffer::~opencl_buffer()
{
    if (d_moves > 0 && work_profile::enabled())
        d_logger->info("profile: {:d} moves of unread items, {:.1f} MB, {:.3f} ms in all",
                       d_moves,
                       double(d_moved_bytes) / 1e6,
                       std::chrono::duration<double>(d_move_time).count() * 1e3);
    if (d_reserved)
        munmap(d_reserved, d_bytes);
}

bool opencl_buffer::do_allocate_buffer(size_t final_nitems, size_t sizeof_item)
{
    // Only the address range now: which memory backs the items depends on the
    // readers, which GNU Radio attaches after allocating.
    d_bytes = final_nitems * sizeof_item;
    void* range = mmap(nullptr, d_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (range == MAP_FAILED)
        return false;
    d_reserved = static_cast<char*>(range);
    d_base = d_reserved;
    return true;
}

bool opencl_buffer::device_edge()
{
    if (nreaders() == 0 || context_of(link()) != d_context)
        return false;
    for (size_t r = 0; r < nreaders(); ++r)
        if (context_of(reader(r)->link()) != d_context)
            return false;
    return true;
}

void opencl_buffer::bind()
{
    std::call_once(d_bound, [this] {
        if (device_edge()) {
            d_placement = placement::device;
            d_queue = d_context->create_queue(); // for the moves of the callbacks
            d_device = cl::Buffer(d_context->context(), CL_MEM_READ_WRITE, d_bytes);
            return;
        }
        d_placement = placement::pinned_host;
        d_pinned.reset(new core::pinned_buffer(d_context, d_bytes));
        // Readers with history read the items before the first write: zeros,
        // as in GNU Radio's own buffers.
        std::memset(d_pinned->data(), 0, d_bytes);
        d_base = static_cast<char*>(d_pinned->data());
    });
}

opencl_buffer::placement opencl_buffer::where()
{
    bind();
    return d_placement;
}

const cl::Buffer& opencl_buffer::device_memory()
{
    bind();
    return d_device;
}

size_t opencl_buffer::byte_offset(const void* pointer) const
{
    return size_t(static_cast<const char*>(pointer) - d_base);
}

std::vector<cl::Event> opencl_buffer::read_after()
{
    std::lock_guard<std::mutex> lock(d_events_mutex);
    if (d_last_write() == nullptr)
        return {};
    return { d_last_write };
}

void opencl_buffer::read_by(const void* reader, const cl::Event& read)
{
    std::lock_guard<std::mutex> lock(d_events_mutex);
    d_last_read[reader] = read;
}

std::vector<cl::Event> opencl_buffer::write_after()
{
    std::lock_guard<std::mutex> lock(d_events_mutex);
    std::vector<cl::Event> reads;
    for (const auto& r : d_last_read)
        reads.push_back(r.second);
    return reads;
}

void opencl_buffer::written_by(const cl::Event& write)
{
    std::lock_guard<std::mutex> lock(d_events_mutex);
    d_last_write = write;
}

std::vector<cl::Event> opencl_buffer::pending_transfers()
{
    std::vector<cl::Event> pending = write_after();
    for (const cl::Event& e : read_after())
        pending.push_back(e);
    return pending;
}

void opencl_buffer::post_work(int) {}

void opencl_buffer::update_reader_block_history(unsigned history, int delay)
{
    buffer_single_mapped::update_reader_block_history(history, delay);
    // GNU Radio gives a buffer one transfer type and refuses a second, so a
    // writer with device and host readers would fail to start. The placement
    // comes from all readers instead (bind()): forget the type of the edge
    // just connected (GNU Radio sets it right before adding the reader).
    d_transfer_type = gr::transfer_type::DEFAULT_INVALID;
}

void* opencl_buffer::write_pointer()
{
    bind();
    return d_base + size_t(d_write_index) * d_sizeof_item;
}

const void* opencl_buffer::_read_pointer(unsigned int read_index)
{
    bind();
    return d_base + size_t(read_index) * d_sizeof_item;
}

void* opencl_buffer::device_move(void* dst, const void* src, size_t bytes)
{
    const size_t to = byte_offset(dst);
    const size_t from = byte_offset(src);
    // After every read and write of the items that is still pending; nothing
    // waits on the host: the move is ordered like the blocks' transfers.
    std::vector<cl::Event> pending = pending_transfers();
    const std::vector<cl::Event>* after = pending.empty() ? nullptr : &pending;
    cl::Event moved;
    if (to + bytes <= from || from + bytes <= to) {
        d_queue.enqueueCopyBuffer(d_device, d_device, from, to, bytes, after, &moved);
    } else {
        // clEnqueueCopyBuffer refuses overlapping ranges: go through a scratch
        // buffer, kept for the next move (the queue is in order).
        if (d_scratch_bytes < bytes) {
            d_scratch = cl::Buffer(d_context->context(), CL_MEM_READ_WRITE, bytes);
            d_scratch_bytes = bytes;
        }
        d_queue.enqueueCopyBuffer(d_device, d_scratch, from, 0, bytes, after);
        d_queue.enqueueCopyBuffer(d_scratch, d_device, 0, to, bytes, nullptr, &moved);
    }
    d_queue.flush();
    // Reads of the moved items wait for it as for a write; writes into the
    // place it freed, as for a read.
    std::lock_guard<std::mutex> lock(d_events_mutex);
    d_last_write = moved;
    d_last_read[this] = moved;
    return dst;
}

void* opencl_buffer::host_move(void* dst, const void* src, size_t bytes)
{
    // A DMA may still read items that are to be moved, or whose place the
    // writer takes next.
    const std::vector<cl::Event> pending = pending_transfers();
    if (!pending.empty())
        cl::WaitForEvents(pending);
    return std::memmove(dst, src, bytes);
}

template <typename Move>
auto opencl_buffer::counted(Move&& move)
{
    return [this, move](void* dst, const void* src, size_t bytes) {
        // GNU Radio's input-blocked logic moves the items at the front onto
        // themselves when the reader has none left at the end: nothing to do.
        if (dst == src || bytes == 0)
            return dst;
        const auto started = std::chrono::steady_clock::now();
        void* result = move(dst, src, bytes);
        ++d_moves;
        d_moved_bytes += bytes;
        d_move_time += std::chrono::steady_clock::now() - started;
        return result;
    };
}

bool opencl_buffer::input_blocked_callback(int items_required,
                                           int items_avail,
                                           unsigned read_index)
{
    if (where() == placement::pinned_host) {
        const auto move = counted([this](void* dst, const void* src, size_t bytes) {
            return host_move(dst, src, bytes);
        });
        return input_blocked_callback_logic(
            items_required, items_avail, read_index, d_base, move, move);
    }
    const auto move = counted([this](void* dst, const void* src, size_t bytes) {
        return device_move(dst, src, bytes);
    });
    return input_blocked_callback_logic(
        items_required, items_avail, read_index, d_base, move, move);
}

uint64_t opencl_buffer::unread_items()
{
    uint64_t unread = 0;
    for (size_t r = 0; r < nreaders(); ++r) {
        const gr::buffer_reader* rd = reader(r);
        const uint64_t read =
            rd->nitems_read() - (rd->link()->history() - 1) - rd->sample_delay();
        unread = std::max(unread, nitems_written() - read);
    }
    return unread;
}

bool opencl_buffer::readers_read_any_amount()
{
    for (size_t r = 0; r < nreaders(); ++r) {
        const auto* ours = dynamic_cast<const opencl_block*>(reader(r)->link().get());
        if (!ours || !ours->reads_any_amount())
            return false;
    }
    return nreaders() > 0;
}

bool opencl_buffer::output_blocked_callback(int output_multiple, bool force)
{
    if (!force && unread_items() > 0 && readers_read_any_amount())
        return false; // the readers take the rest, then a free restart

    if (where() == placement::pinned_host)
        return output_blocked_callback_logic(
            output_multiple,
            force,
            d_base,
            counted([this](void* dst, const void* src, size_t bytes) {
                return host_move(dst, src, bytes);
            }));
    return output_blocked_callback_logic(
        output_multiple,
        force,
        d_base,
        counted([this](void* dst, const void* src, size_t bytes) {
            return device_move(dst, src, bytes);
        }));
}

size_t stream_port::element_offset(const void* pointer, size_t element_bytes) const
{
    return buffer->byte_offset(pointer) / element_bytes;
}

namespace {

stream_port port_of(gr::buffer* b)
{
    stream_port port;
    port.buffer = dynamic_cast<opencl_buffer*>(b);
    if (port.buffer)
        port.where = port.buffer->where() == opencl_buffer::placement::device
                         ? stream_port::kind::device
                         : stream_port::kind::pinned_host;
    return port;
}

} // namespace

stream_port input_port(gr::block& block, int index)
{
    return port_of(block.detail()->input(index)->buffer().get());
}

stream_port output_port(gr::block& block, int index)
{
    return port_of(block.detail()->output(index).get());
}

namespace {

std::string memory_name(const stream_port& port)
{
    switch (port.where) {
    case stream_port::kind::device:
        return "device";
    case stream_port::kind::pinned_host:
        return "pinned host";
    default:
        return "host";
    }
}

void check_port(const gr::block_sptr& block, int port, int ports, const char* what)
{
    if (!block || !block->detail())
        throw std::invalid_argument(std::string(what) +
                                    ": the block is not in a started flowgraph");
    if (port < 0 || port >= ports)
        throw std::invalid_argument(std::string(what) + ": port " + std::to_string(port) +
                                    " does not exist (the block has " +
                                    std::to_string(ports) + ")");
}

} // namespace

std::string input_memory(gr::block_sptr block, int port)
{
    check_port(block,
               port,
               block && block->detail() ? block->detail()->ninputs() : 0,
               "input_memory");
    return memory_name(input_port(*block, port));
}

std::string output_memory(gr::block_sptr block, int port)
{
    check_port(block,
               port,
               block && block->detail() ? block->detail()->noutputs() : 0,
               "output_memory");
    return memory_name(output_port(*block, port));
}

} // namespace wideband
} // namespace gr
