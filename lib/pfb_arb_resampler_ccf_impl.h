/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_PFB_ARB_RESAMPLER_CCF_IMPL_H
#define INCLUDED_WIDEBAND_PFB_ARB_RESAMPLER_CCF_IMPL_H

#include "streaming_block.h"
#include <gnuradio/wideband/core/arb_resampler.h>
#include <gnuradio/wideband/pfb_arb_resampler_ccf.h>

namespace gr {
namespace wideband {

//! The arb_resampler engine on one device, its rate variable.
class pfb_arb_resampler_ccf_impl
    : public streaming_block<pfb_arb_resampler_ccf, core::arb_resampler>
{
public:
    pfb_arb_resampler_ccf_impl(float rate,
                               const std::vector<float>& taps,
                               unsigned int filter_size,
                               const std::string& device);

    void set_taps(const std::vector<float>& taps) override;
    std::vector<std::vector<float>> taps() const override;
    void print_taps() override;
    void set_rate(float rate) override;
    void set_phase(float ph) override;
    float phase() const override;
    unsigned int interpolation_rate() const override { return d_filter_size; }
    unsigned int decimation_rate() const override;
    float fractional_rate() const override;
    unsigned int taps_per_filter() const override;
    int group_delay() const override { return d_delay; }
    float phase_offset(float freq, float fs) override;

private:
    using base = streaming_block<pfb_arb_resampler_ccf, core::arb_resampler>;

    std::unique_ptr<core::arb_resampler>
    make_engine(const core::device_context::sptr& context) override;
    void apply_settings(core::arb_resampler& engine) override;

    const unsigned int d_filter_size;
    int d_delay;              // the in-tree group delay, of the constructor's settings
    float d_est_phase_change; // the in-tree phase offset's, likewise

    // under settings_mutex()
    float d_rate;
    std::vector<float> d_taps;
    unsigned int d_filter; // the filter the stream starts at, or set_phase()'s
    bool d_rate_changed = false, d_taps_changed = false, d_filter_changed = false;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_PFB_ARB_RESAMPLER_CCF_IMPL_H */
