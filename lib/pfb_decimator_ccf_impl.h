/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_PFB_DECIMATOR_CCF_IMPL_H
#define INCLUDED_WIDEBAND_PFB_DECIMATOR_CCF_IMPL_H

#include "streaming_block.h"
#include <gnuradio/wideband/core/pfb_channelizer.h>
#include <gnuradio/wideband/pfb_decimator_ccf.h>

namespace gr {
namespace wideband {

//! The channelizer engine with decim channels, oversample rate 1 and a channel
//! map of the one channel: its output is the in-tree decimator's.
class pfb_decimator_ccf_impl
    : public streaming_block<pfb_decimator_ccf, core::pfb_channelizer>
{
public:
    pfb_decimator_ccf_impl(unsigned int decim,
                           const std::vector<float>& taps,
                           unsigned int channel,
                           const std::string& device);

    void set_taps(const std::vector<float>& taps) override;
    std::vector<std::vector<float>> taps() const override;
    void print_taps() override;
    void set_channel(unsigned int channel) override;
    unsigned int channel() const override;
    unsigned int decimation() const override { return d_decim; }

private:
    using base = streaming_block<pfb_decimator_ccf, core::pfb_channelizer>;

    std::unique_ptr<core::pfb_channelizer>
    make_engine(const core::device_context::sptr& context) override;
    void apply_settings(core::pfb_channelizer& engine) override;
    void inputs_connected(size_t inputs) override;

    const unsigned int d_decim;

    // under settings_mutex()
    std::vector<float> d_taps;
    unsigned int d_channel;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_PFB_DECIMATOR_CCF_IMPL_H */
