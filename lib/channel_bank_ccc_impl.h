/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CHANNEL_BANK_CCC_IMPL_H
#define INCLUDED_WIDEBAND_CHANNEL_BANK_CCC_IMPL_H

#include "streaming_block.h"
#include <gnuradio/wideband/channel_bank_ccc.h>
#include <gnuradio/wideband/core/channel_bank.h>

#include <map>

namespace gr {
namespace wideband {

class channel_bank_ccc_impl : public streaming_block<channel_bank_ccc, core::channel_bank>
{
public:
    channel_bank_ccc_impl(const core::channel_bank_options& options,
                          const std::string& device);

    void set_center_freq(unsigned int channel, double center_freq) override;
    double center_freq(unsigned int channel) const override;
    void set_taps(unsigned int channel, const std::vector<gr_complex>& taps) override;
    std::vector<gr_complex> taps(unsigned int channel) const override;
    std::vector<double> center_freqs() const override;
    std::vector<int> decimations() const override;
    double samp_rate() const override { return d_options.sampling_freq; }
    unsigned int channels() const override { return unsigned(d_options.channels.size()); }
    int fft_size() const override;
    //! Stopped, the next start makes new engines: any taps go again.
    bool stop() override;

private:
    using base = streaming_block<channel_bank_ccc, core::channel_bank>;

    std::unique_ptr<core::channel_bank>
    make_engine(const core::device_context::sptr& context) override;
    void apply_settings(core::channel_bank& engine) override;
    void outputs_connected(size_t outputs) override;
    size_t elements_per_item() const override;
    std::vector<core::stream_ratio> output_rates() const override;
    //! \throws std::invalid_argument for a channel the bank does not have
    size_t checked_channel(unsigned int channel) const;

    // under settings_mutex(): the channels as set, each with a count of its
    // changes; what each engine has applied of them, and what has been tagged.
    core::channel_bank_options d_options;
    std::vector<uint64_t> d_changes, d_tagged;
    std::map<const core::channel_bank*, std::vector<uint64_t>> d_applied;
    size_t d_fft_size = 0;
    size_t d_longest_taps = 0; // what the engines' FFT length holds (0: none built)
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CHANNEL_BANK_CCC_IMPL_H */
