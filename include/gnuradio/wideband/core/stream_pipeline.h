/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_STREAM_PIPELINE_H
#define INCLUDED_WIDEBAND_CORE_STREAM_PIPELINE_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/pinned_buffer.h>
#include <gnuradio/wideband/core/stream_engine.h>

#include <complex>
#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

/*!
 * \brief Host <-> device streaming for blocks: pinned staging buffers, separate
 * queues for uploads, kernels and downloads, and up to \p depth calls in flight,
 * so that the transfers and kernels of consecutive calls overlap.
 *
 * Samples and elements are the engine's (stream_engine::input_sample_bytes(),
 * output_element_bytes()); offsets and counts are in those units.
 *
 * submit() copies a chunk of input into pinned memory and enqueues its upload,
 * the engine and the download; oldest() gives the output of the oldest chunk
 * once it is on the host. Outputs come out in submission order; nothing is
 * dropped or repeated. The output of a chunk is available at most depth - 1
 * submissions later (or at once through wait_oldest()).
 *
 * Input that is already where the device can reach it goes in without the
 * host copy: submit_pinned() DMAs from page-locked memory, submit_device()
 * copies from device memory of the same context. With output_on_device set,
 * chunks stay in device memory and the caller moves the parts it wants with
 * copy_oldest() (to device memory) or read_oldest() (to host memory), then
 * wait_deliveries().
 */
class WIDEBAND_CORE_API stream_pipeline
{
public:
    stream_pipeline(device_context::sptr context,
                    stream_engine& engine,
                    size_t depth = 2);
    ~stream_pipeline();

    stream_pipeline(const stream_pipeline&) = delete;
    stream_pipeline& operator=(const stream_pipeline&) = delete;

    //! True when another chunk can be submitted.
    bool can_submit() const { return d_in_flight.size() < d_slots.size(); }
    //! Chunks submitted and not yet popped.
    size_t in_flight() const { return d_in_flight.size(); }

    /*!
     * \brief Starts processing \p samples samples from \p input (host memory,
     * read before the call returns). Requires can_submit() and samples <=
     * max_input_samples() of the engine. Returns the output elements the chunk
     * will have.
     */
    size_t submit(const void* input, size_t samples);
    /*!
     * \brief As submit(), from page-locked host memory (DMA, no host copy). The
     * DMA may still be reading \p input when the call returns: call
     * wait_source_read() before the memory is reused.
     */
    size_t submit_pinned(const void* input, size_t samples);
    //! As submit_pinned(), from \p source at sample \p offset (same context),
    //! once \p after have completed.
    size_t submit_device(const cl::Buffer& source,
                         size_t offset,
                         size_t samples,
                         const std::vector<cl::Event>& after = {});
    //! The transfer of the last submit_pinned() or submit_device() that reads its
    //! source (null after wait_source_read()).
    const cl::Event& source_read() const;
    //! Waits until the last submit_pinned() or submit_device() has read its source.
    void wait_source_read();

    /*!
     * \brief Keep chunk outputs in device memory instead of downloading them
     * (then oldest() is not available). Set it before the first submission.
     */
    void set_output_on_device(bool on);
    bool output_on_device() const { return d_output_on_device; }
    /*!
     * \brief Enqueues a copy of \p count elements of the oldest chunk from \p
     * first on to \p destination at element \p offset, after \p after (output
     * on device). Returns its event (null for count 0). The slot's next chunk
     * waits for it; wait_deliveries() is needed only before the host reads.
     */
    cl::Event copy_oldest(size_t first,
                          size_t count,
                          const cl::Buffer& destination,
                          size_t offset,
                          const std::vector<cl::Event>& after = {});
    //! Enqueues a read of \p count elements of the oldest chunk from \p first on
    //! into host memory (output on device; page-locked memory reads by DMA).
    void read_oldest(size_t first, size_t count, void* destination);
    //! Waits for the copies and reads enqueued so far.
    void wait_deliveries();

    //! True when the oldest chunk's output is on the host (on the device with
    //! output_on_device).
    bool oldest_ready() const;
    //! Waits until the oldest chunk's output is on the host.
    void wait_oldest();
    //! The oldest chunk's output (call wait_oldest() or check oldest_ready()
    //! first), as elements of type \p T (output_element_bytes() long).
    template <typename T = std::complex<float>>
    const T* oldest() const
    {
        return static_cast<const T*>(oldest_data());
    }
    size_t oldest_elements() const;
    //! Releases the oldest chunk.
    void pop();
    //! Waits for everything in flight and drops it (e.g. when the flowgraph stops).
    void discard();

private:
    struct slot {
        std::unique_ptr<pinned_buffer> input, output;
        cl::Buffer device_output;
        size_t device_output_bytes = 0;
        cl::Event engine_done, downloaded;
        cl::Event delivered; // the last copy or read out of device_output
        size_t elements = 0;
    };

    void fit_output(slot& s) const;
    const void* oldest_data() const;
    //! The rest of a submission once \p upload has enqueued the samples' way to
    //! the engine's input region (after \p region_free); \p source_in_use: the
    //! upload reads the caller's memory (see wait_source_read()).
    template <typename Upload>
    size_t launch(size_t samples, bool source_in_use, Upload&& upload);

    device_context::sptr d_context;
    stream_engine& d_engine;
    cl::CommandQueue d_upload, d_compute, d_download;
    std::vector<slot> d_slots;
    std::deque<size_t> d_in_flight;      // slot indices, oldest first
    size_t d_next = 0;                   // slot of the next submission
    std::deque<cl::Event> d_engine_runs; // the last input_regions() engine runs
    bool d_output_on_device = false;
    cl::Event d_source_read; // the upload still reading the caller's memory
    const size_t d_sample_bytes, d_element_bytes; // the engine's
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_STREAM_PIPELINE_H */
