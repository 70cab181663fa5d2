/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_MULTI_DEVICE_PIPELINE_H
#define INCLUDED_WIDEBAND_CORE_MULTI_DEVICE_PIPELINE_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/stream_engine.h>
#include <gnuradio/wideband/core/stream_pipeline.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

/*!
 * \brief stream_pipeline over several devices: consecutive chunks go to the
 * devices in turn, their outputs come back in submission order, and the output
 * equals that of one engine behind one stream_pipeline.
 *
 * One engine and one stream_pipeline (\p depth chunks in flight) per device.
 * As each engine sees only every N-th chunk, the pipeline keeps the last
 * history_samples() + step().input - 1 input samples on the host and, with each
 * chunk, writes the ones the chunk needs in front of it on its device
 * (splittable_engine::continue_at()), on the device's compute queue, before the
 * engine runs. That overlap is the cost of the split: history + (position mod
 * D) samples more to the device per chunk. Samples the single engine would no
 * longer hold after set_taps() grows its history count as zero here as there.
 *
 * With one engine the pipeline is a plain stream_pipeline on it: no history is
 * sent and nothing else differs, and everything stream_pipeline offers is
 * there, input from and output to device memory included (submit_device(),
 * copy_oldest()); those two need one device. Host input from page-locked
 * memory (submit_pinned()) and output kept on the device and read into host
 * memory (read_oldest()) work with any number.
 *
 * The caller owns the engines and keeps them configured alike: set_taps(),
 * set_channel_map() and the like go to every engine, between submissions.
 * Not thread-safe, as stream_pipeline.
 */
class WIDEBAND_CORE_API multi_device_pipeline
{
public:
    /*!
     * \p engines[i] runs on \p contexts[i] (its own device; a context may
     * repeat, then engines share that device).
     *
     * \throws std::invalid_argument for no engines, counts of contexts and
     *         engines that differ, a null or repeated engine, a null context,
     *         or engines whose step().input, input_sample_bytes() or
     *         max_input_samples() differ
     */
    multi_device_pipeline(const std::vector<device_context::sptr>& contexts,
                          const std::vector<splittable_engine*>& engines,
                          size_t depth = 2);
    ~multi_device_pipeline();

    multi_device_pipeline(const multi_device_pipeline&) = delete;
    multi_device_pipeline& operator=(const multi_device_pipeline&) = delete;

    //! Engines (devices) the chunks are spread over.
    size_t devices() const { return d_lanes.size(); }
    //! The engines' sample and element sizes (stream_engine).
    size_t input_sample_bytes() const;
    size_t output_element_bytes() const;
    //! The most samples a chunk may have: the engines' max_input_samples().
    size_t max_input_samples() const;

    //! True when another chunk can be submitted (fewer than depth * devices()
    //! in flight).
    bool can_submit() const;
    //! Chunks submitted and not yet popped.
    size_t in_flight() const { return d_order.size(); }
    //! Output elements the chunks submitted so far make (the sum of what
    //! submit() returned).
    uint64_t elements_submitted() const { return d_elements; }
    /*!
     * \brief Starts the next chunk of \p samples samples from \p input (host
     * memory, read before the call returns) on the next device. Requires
     * can_submit() and samples <= max_input_samples(). Returns the output
     * elements the chunk will have.
     *
     * \throws std::logic_error when the engines' history lengths differ (a
     *         setting applied to some engines only)
     */
    size_t submit(const void* input, size_t samples);
    //! As submit(), from page-locked host memory (see stream_pipeline::submit_pinned()).
    size_t submit_pinned(const void* input, size_t samples);
    /*!
     * As stream_pipeline::submit_device().
     * \throws std::logic_error with several devices
     */
    size_t submit_device(const cl::Buffer& source,
                         size_t offset,
                         size_t samples,
                         const std::vector<cl::Event>& after = {});
    //! The transfer of the last submission that reads its source (see
    //! stream_pipeline::source_read()).
    const cl::Event& source_read() const;
    //! Waits until the last submission has read its source.
    void wait_source_read();

    //! See stream_pipeline::set_output_on_device(); applies to every device.
    void set_output_on_device(bool on);
    bool output_on_device() const;
    /*!
     * As stream_pipeline::copy_oldest().
     * \throws std::logic_error with several devices
     */
    cl::Event copy_oldest(size_t first,
                          size_t count,
                          const cl::Buffer& destination,
                          size_t offset,
                          const std::vector<cl::Event>& after = {});
    //! As stream_pipeline::read_oldest().
    void read_oldest(size_t first, size_t count, void* destination);
    //! Waits for the copies and reads enqueued so far, on every device.
    void wait_deliveries();

    //! True when the oldest chunk's output is on the host.
    bool oldest_ready() const;
    //! Waits until the oldest chunk's output is on the host.
    void wait_oldest();
    //! The oldest chunk's output (after wait_oldest() or oldest_ready()), as
    //! elements of type \p T.
    template <typename T = std::complex<float>>
    const T* oldest() const
    {
        return static_cast<const T*>(oldest_data());
    }
    size_t oldest_elements() const;
    //! Releases the oldest chunk.
    void pop();
    //! Waits for everything in flight on every device and drops it.
    void discard();

private:
    class lane;

    const lane& oldest_lane() const;
    const void* oldest_data() const;
    bool split() const { return d_lanes.size() > 1; }
    //! The one device's pipeline, for what only one device supports (\p what).
    stream_pipeline& only_pipeline(const char* what) const;
    //! submit() and submit_pinned(): \p launch(pipeline) submits the chunk.
    template <typename Launch>
    size_t submit_with(const void* input, size_t samples, Launch&& launch);
    //! Zeros all but the last \p kept samples of the tail.
    void forget_before(size_t kept);
    //! Appends a chunk to the tail, keeping its last \p keep samples.
    void remember(const void* input, size_t samples, size_t keep);

    std::vector<std::unique_ptr<lane>> d_lanes;
    std::deque<size_t> d_order; // lane of each chunk in flight, oldest first
    size_t d_next = 0;          // lane of the next chunk
    size_t d_last = 0;          // lane of the last chunk
    uint64_t d_position = 0;    // samples submitted
    uint64_t d_elements = 0;    // the output elements of those samples
    // The bytes of the last input samples, zeros where the single engine would
    // hold none.
    std::vector<char> d_tail;
    size_t d_last_history = 0; // the engines' history_samples() at the last chunk
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_MULTI_DEVICE_PIPELINE_H */
