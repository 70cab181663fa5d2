/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_PFB_CHANNELIZER_CCF_IMPL_H
#define INCLUDED_WIDEBAND_PFB_CHANNELIZER_CCF_IMPL_H

#include "decimated_tags.h"
#include "pipelined_work.h"
#include "work_guard.h"
#include <gnuradio/wideband/core/multi_device_pipeline.h>
#include <gnuradio/wideband/core/pfb_channelizer.h>
#include <gnuradio/wideband/pfb_channelizer_ccf.h>

#include <memory>
#include <mutex>

namespace gr {
namespace wideband {

class pfb_channelizer_ccf_impl : public pfb_channelizer_ccf,
                                 public opencl_block,
                                 public work_guard
{
public:
    pfb_channelizer_ccf_impl(unsigned int numchans,
                             const std::vector<float>& taps,
                             float oversample_rate,
                             const std::vector<int>& channel_map,
                             const std::string& device,
                             float atten,
                             bool vector_output);

    void set_taps(const std::vector<float>& taps) override;
    std::vector<float> taps() const override;
    void set_channel_map(const std::vector<int>& map) override;
    std::vector<int> channel_map() const override;
    unsigned int numchans() const override { return d_numchans; }
    unsigned int decimation() const override { return d_decimation; }
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
    //! The channels the engine computes: the first `slots` entries of the map.
    std::vector<size_t> engine_map(const std::vector<int>& map) const;
    //! The engine's options for these settings.
    core::pfb_channelizer_options engine_options(const std::vector<float>& taps,
                                                 const std::vector<int>& map) const;
    //! std::invalid_argument unless \p options fit every device.
    void check_fits(const core::pfb_channelizer_options& options) const;
    //! Reads how the buffers reach the items (at the start of a stream).
    void bind_ports(size_t outputs);

    const unsigned int d_numchans;
    const unsigned int d_decimation;
    const bool d_vector_output;
    const std::vector<core::device_context::sptr>
        d_contexts; // one, or several to split over

    mutable std::mutex d_mutex; // guards the settings below against the work thread
    std::vector<float> d_taps;
    std::vector<int> d_map;
    bool d_settings_changed = false;

    // channels per frame the engine writes: the connected outputs, or the
    // vector length; fixed while the flowgraph runs
    size_t d_slots;
    std::vector<std::unique_ptr<core::pfb_channelizer>> d_engines; // one per device
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

#endif /* INCLUDED_WIDEBAND_PFB_CHANNELIZER_CCF_IMPL_H */
