/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_FFT_FILTER_IMPL_H
#define INCLUDED_WIDEBAND_FFT_FILTER_IMPL_H

#include "decimated_tags.h"
#include "pipelined_work.h"
#include "work_guard.h"
#include <gnuradio/wideband/core/fft_filter.h>
#include <gnuradio/wideband/core/multi_device_pipeline.h>
#include <gnuradio/wideband/fft_filter.h>

#include <memory>
#include <mutex>

namespace gr {
namespace wideband {

template <class TAP_T>
class fft_filter_impl : public fft_filter<TAP_T>, public opencl_block, public work_guard
{
public:
    fft_filter_impl(int decimation,
                    const std::vector<TAP_T>& taps,
                    const std::string& device);

    void set_taps(const std::vector<TAP_T>& taps) override;
    std::vector<TAP_T> taps() const override;
    int decimation() const override { return d_decimation; }
    int fft_size() const override;
    std::string device_name() const override;
    core::device_context::sptr opencl_context() const override;
    unsigned int latency() const override;

    bool check_topology(int ninputs, int noutputs) override;
    bool start() override;
    bool stop() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    const int d_decimation;
    const std::vector<core::device_context::sptr>
        d_contexts; // one, or several to split over

    mutable std::mutex d_mutex; // guards the taps against the work thread
    std::vector<TAP_T> d_taps;
    bool d_taps_changed = false;

    // one per device, built at construction, so that bad arguments fail before
    // the flowgraph runs
    std::vector<std::unique_ptr<core::fft_filter>> d_engines;
    std::unique_ptr<core::multi_device_pipeline> d_pipeline;
    std::unique_ptr<pipelined_work> d_work;
    decimated_tags d_tags;
    bool d_stream_begins = true;

    void propagate_tags(size_t consumed, size_t produced, size_t outputs);
    // start() and general_work() run these through work_guard
    bool start_stream();
    int stream_work(int noutput_items,
                    gr_vector_int& ninput_items,
                    gr_vector_const_void_star& input_items,
                    gr_vector_void_star& output_items);
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_FFT_FILTER_IMPL_H */
