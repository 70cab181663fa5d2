/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_PFB_SYNTHESIZER_CCF_IMPL_H
#define INCLUDED_WIDEBAND_PFB_SYNTHESIZER_CCF_IMPL_H

#include "streaming_block.h"
#include <gnuradio/wideband/core/pfb_synthesizer.h>
#include <gnuradio/wideband/pfb_synthesizer_ccf.h>

namespace gr {
namespace wideband {

//! The synthesizer engine with a frame per input item (of every input, or one
//! vector), numchans output items per frame.
class pfb_synthesizer_ccf_impl
    : public streaming_block<pfb_synthesizer_ccf, core::pfb_synthesizer>
{
public:
    pfb_synthesizer_ccf_impl(unsigned int numchans,
                             const std::vector<float>& taps,
                             bool twox,
                             const std::string& device,
                             bool vector_input);

    void set_taps(const std::vector<float>& taps) override;
    std::vector<std::vector<float>> taps() const override;
    void print_taps() override;
    void set_channel_map(const std::vector<int>& map) override;
    std::vector<int> channel_map() const override;

private:
    using base = streaming_block<pfb_synthesizer_ccf, core::pfb_synthesizer>;
    std::unique_ptr<core::pfb_synthesizer>
    make_engine(const core::device_context::sptr& context) override;
    void apply_settings(core::pfb_synthesizer& engine) override;
    void inputs_connected(size_t inputs) override;
    core::pfb_synthesizer_options engine_options() const;

    const unsigned int d_numchans;
    const bool d_twox;
    const bool d_vector_input;
    const size_t d_frames_per_call; // frames of one engine call
    size_t d_inputs;                // N: connected streams, or P with vectors
    // under settings_mutex()
    std::vector<float> d_taps;
    std::vector<int> d_map;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_PFB_SYNTHESIZER_CCF_IMPL_H */
