/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_OPENCL_BUFFER_H
#define INCLUDED_WIDEBAND_OPENCL_BUFFER_H

#include <gnuradio/block.h>
#include <gnuradio/buffer_single_mapped.h>
#include <gnuradio/buffer_type.h>
#include <gnuradio/wideband/api.h>
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/pinned_buffer.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace gr {
namespace wideband {

/*!
 * \brief What a gr-wideband block tells the buffers on its edges: the device it
 * computes on. Blocks of other modules that compute with gr-wideband's OpenCL
 * runtime can join device-resident chains the same way: derive from this, name
 * opencl_buffer::type in their signatures and use input_port()/output_port().
 */
class WIDEBAND_API opencl_block
{
public:
    virtual ~opencl_block() = default;
    //! The block's device; nullptr when it spreads over several.
    virtual core::device_context::sptr opencl_context() const = 0;
    /*!
     * \brief The device whose context allocates the pinned host memory of the
     * block's output buffers when they are not device edges: opencl_context(),
     * or for a block on several devices the one its chunks are staged for
     * first. Every device DMAs to and from such memory (at full speed where the
     * driver pins it for all its contexts, as NVIDIA's does; through the
     * driver's own staging elsewhere).
     */
    virtual core::device_context::sptr pinned_memory_context() const
    {
        return opencl_context();
    }
    /*!
     * \brief Whether the block, as a reader, takes any number of the items
     * available (asks for one at a time): then a writer that reaches the end
     * of the buffer waits for the block to read the items left there instead
     * of moving them (see opencl_buffer).
     */
    virtual bool reads_any_amount() const { return false; }
};

/*!
 * \brief GNU Radio 3.10 custom buffer for the edges of gr-wideband blocks.
 *
 * The output signatures of the gr-wideband blocks name this type, so GNU Radio
 * makes one for each of their outputs; their inputs take the writer's buffer.
 * (Host blocks keep GNU Radio's own buffers: a custom buffer is single-mapped,
 * and GNU Radio 3.10's single-mapped logic loses samples when a host writer
 * and a host reader that needs items in one piece, e.g. a filter, share one.)
 * The memory is chosen when the flowgraph first uses the buffer, from who is
 * on the edge:
 *
 * - device: the writer and every reader are gr-wideband blocks on the same
 *   device. The items live in device memory only (one cl::Buffer); the
 *   pointers GNU Radio hands to work() lie in an address range reserved for
 *   this buffer and never backed, so they only say where in the device buffer
 *   the items are (byte_offset()); touching them would fault rather than read
 *   stale data.
 * - pinned_host: anything else (host blocks, blocks on other devices, blocks
 *   spread over several). The items live in page-locked host memory of the
 *   writer's pinned_memory_context(), which host blocks read and write as
 *   usual and the devices read and write by DMA, with no staging copy.
 *
 * On a device edge the blocks need not wait for their transfers in work():
 * the device commands are ordered by OpenCL events that the buffer keeps. A
 * command that reads items waits for read_after() and hands its event to
 * read_by(); one that writes items waits for write_after() and hands its event
 * to written_by(). The data moves that a single-mapped buffer makes when it
 * wraps wait for all of them on the device (not on the host), and the next
 * reads and writes wait for the moves the same way. Where every reader reads
 * any amount (opencl_block::reads_any_amount(), the gr-wideband blocks), a
 * writer at the end of the buffer waits for the readers to take what is left
 * there and starts again at the front, moving nothing: a move there would copy
 * up to a chunk (tens of MB on a GPU) through the copy engine between the
 * writer's and the readers' kernels, or on the host between their DMAs (an
 * edge between blocks on different devices). Host memory (pinned_host) is read and
 * written by host blocks as soon as work() returns: there a gr-wideband block finishes
 * every transfer that touches items before it hands them on (produce, or
 * consume), and registers its DMA reads of items it has not consumed yet with
 * read_by(), for the moves to wait for.
 */
class WIDEBAND_API opencl_buffer : public gr::buffer_single_mapped
{
public:
    enum class placement { device, pinned_host };

    static gr::buffer_type type;

    //! GNU Radio's factory (see gr::buftype).
    static gr::buffer_sptr make_buffer(int nitems,
                                       size_t sizeof_item,
                                       uint64_t downstream_lcm_nitems,
                                       uint32_t downstream_max_out_mult,
                                       gr::block_sptr link,
                                       gr::block_sptr buf_owner);

    ~opencl_buffer() override;

    //! Where the items live (decided at the first call, when all readers are known).
    placement where();
    const core::device_context::sptr& context() const { return d_context; }
    //! The device memory (placement::device).
    const cl::Buffer& device_memory();
    //! Bytes from the start of the buffer to \p pointer (a work() pointer).
    size_t byte_offset(const void* pointer) const;

    //! What a device command that reads items must wait for (the writer's
    //! device writes so far).
    std::vector<cl::Event> read_after();
    //! \p reader (any address that identifies it) enqueued \p read, which reads
    //! items; writes and moves wait for it.
    void read_by(const void* reader, const cl::Event& read);
    //! What a device command that writes items must wait for (every reader's
    //! device reads so far).
    std::vector<cl::Event> write_after();
    //! The writer enqueued \p write, which writes items; reads and moves wait
    //! for it.
    void written_by(const cl::Event& write);

    void post_work(int nitems) override;
    void update_reader_block_history(unsigned history, int delay) override;
    void* write_pointer() override;
    const void* _read_pointer(unsigned int read_index) override;
    bool input_blocked_callback(int items_required,
                                int items_avail,
                                unsigned read_index) override;
    bool output_blocked_callback(int output_multiple, bool force) override;

protected:
    bool do_allocate_buffer(size_t final_nitems, size_t sizeof_item) override;

private:
    opencl_buffer(int nitems,
                  size_t sizeof_item,
                  uint64_t downstream_lcm_nitems,
                  uint32_t downstream_max_out_mult,
                  gr::block_sptr link,
                  gr::block_sptr buf_owner,
                  core::device_context::sptr context);

    void bind();
    bool device_edge();
    //! The last write and every reader's last read, for the moves to wait for.
    std::vector<cl::Event> pending_transfers();
    //! Items written that some reader has not read yet.
    uint64_t unread_items();
    //! Every reader is a gr-wideband block that reads any amount.
    bool readers_read_any_amount();
    //! memcpy/memmove between two places of the device memory, enqueued after
    //! the pending transfers; the next ones wait for it.
    void* device_move(void* dst, const void* src, size_t bytes);
    //! memmove in the pinned memory, once the transfers that touch it are done.
    void* host_move(void* dst, const void* src, size_t bytes);
    //! \p move, counted for WIDEBAND_PROFILE.
    template <typename Move>
    auto counted(Move&& move);

    core::device_context::sptr d_context;
    std::once_flag d_bound;
    placement d_placement = placement::pinned_host;
    size_t d_bytes = 0;
    char* d_reserved = nullptr; // the never-backed address range (device placement)
    cl::Buffer d_device;
    cl::CommandQueue d_queue;
    std::mutex d_events_mutex; // the writer's and the readers' threads
    // The last command that wrote items: each waited for the one before (the
    // writer's in-order queue, or a move after every pending transfer).
    cl::Event d_last_write;
    std::map<const void*, cl::Event> d_last_read;
    cl::Buffer d_scratch; // for moves within the device memory that overlap
    size_t d_scratch_bytes = 0;
    std::unique_ptr<core::pinned_buffer> d_pinned;
    // what the callbacks moved (reported when WIDEBAND_PROFILE is set)
    size_t d_moves = 0, d_moved_bytes = 0;
    std::chrono::steady_clock::duration d_move_time{};
};

/*!
 * \brief How an input or output of a gr-wideband block reaches its items in
 * work(): through ordinary host memory (a buffer of another type), pinned host
 * memory, or device memory (then \p buffer says where).
 */
struct WIDEBAND_API stream_port {
    enum class kind { host, pinned_host, device };
    kind where = kind::host;
    opencl_buffer* buffer = nullptr; // pinned_host and device

    //! Offset of \p pointer in the device memory in elements of \p
    //! element_bytes (device ports).
    size_t element_offset(const void* pointer, size_t element_bytes) const;
};

WIDEBAND_API stream_port input_port(gr::block& block, int index);
WIDEBAND_API stream_port output_port(gr::block& block, int index);

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_OPENCL_BUFFER_H */
