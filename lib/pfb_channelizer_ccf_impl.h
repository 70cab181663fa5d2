/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_PFB_CHANNELIZER_CCF_IMPL_H
#define INCLUDED_WIDEBAND_PFB_CHANNELIZER_CCF_IMPL_H

#include "streaming_block.h"
#include <gnuradio/wideband/core/pfb_channelizer.h>
#include <gnuradio/wideband/pfb_channelizer_ccf.h>

namespace gr {
namespace wideband {

class pfb_channelizer_ccf_impl
    : public streaming_block<pfb_channelizer_ccf, core::pfb_channelizer>
{
public:
    pfb_channelizer_ccf_impl(unsigned int numchans,
                             const std::vector<float>& taps,
                             float oversample_rate,
                             const std::vector<int>& channel_map,
                             const std::string& device,
                             float atten,
                             bool vector_output,
                             core::sample_format input_format);

    void set_taps(const std::vector<float>& taps) override;
    std::vector<float> taps() const override;
    void set_channel_map(const std::vector<int>& map) override;
    std::vector<int> channel_map() const override;
    unsigned int numchans() const override { return d_numchans; }
    unsigned int decimation() const override { return d_decimation; }

private:
    using base = streaming_block<pfb_channelizer_ccf, core::pfb_channelizer>;

    std::unique_ptr<core::pfb_channelizer>
    make_engine(const core::device_context::sptr& context) override;
    void apply_settings(core::pfb_channelizer& engine) override;
    void outputs_connected(size_t outputs) override;
    size_t elements_per_item() const override { return d_slots; }
    void deliver(const void* chunk,
                 size_t frames,
                 size_t first,
                 size_t count,
                 size_t at,
                 gr_vector_void_star& outputs) override;

    //! The channels the engine computes: the first `slots` entries of the map.
    std::vector<size_t> engine_map(const std::vector<int>& map) const;
    //! The engine's options for these settings.
    core::pfb_channelizer_options engine_options(const std::vector<float>& taps,
                                                 const std::vector<int>& map) const;
    //! std::invalid_argument unless \p options fit every device.
    void check_fits(const core::pfb_channelizer_options& options) const;

    const unsigned int d_numchans;
    const unsigned int d_decimation;
    const bool d_vector_output;
    const core::sample_format d_input_format;

    // under settings_mutex()
    std::vector<float> d_taps;
    std::vector<int> d_map;
    // the map the outputs' last tags (or the stream's start) stand for
    std::vector<int> d_tagged_map;

    // channels per frame the engine writes: the connected outputs, or the
    // vector length; fixed while the flowgraph runs
    size_t d_slots;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_PFB_CHANNELIZER_CCF_IMPL_H */
