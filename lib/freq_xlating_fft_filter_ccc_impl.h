/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_FREQ_XLATING_FFT_FILTER_CCC_IMPL_H
#define INCLUDED_WIDEBAND_FREQ_XLATING_FFT_FILTER_CCC_IMPL_H

#include "streaming_block.h"
#include <gnuradio/wideband/core/freq_xlating_filter.h>
#include <gnuradio/wideband/freq_xlating_fft_filter_ccc.h>

namespace gr {
namespace wideband {

class freq_xlating_fft_filter_ccc_impl
    : public streaming_block<freq_xlating_fft_filter_ccc, core::freq_xlating_filter>
{
public:
    freq_xlating_fft_filter_ccc_impl(int decimation,
                                     const std::vector<gr_complex>& taps,
                                     double center_freq,
                                     double sampling_freq,
                                     const std::string& device);

    void set_center_freq(double center_freq) override;
    double center_freq() const override;
    void set_taps(const std::vector<gr_complex>& taps) override;
    std::vector<gr_complex> taps() const override;
    void set_nthreads(int) override {}
    int nthreads() const override { return 1; }
    int decimation() const override { return d_decimation; }
    double sampling_freq() const override { return d_sampling_freq; }
    int fft_size() const override;

private:
    using base = streaming_block<freq_xlating_fft_filter_ccc, core::freq_xlating_filter>;

    std::unique_ptr<core::freq_xlating_filter>
    make_engine(const core::device_context::sptr& context) override;
    void apply_settings(core::freq_xlating_filter& engine) override;
    core::freq_xlating_filter_options engine_options(const std::vector<gr_complex>& taps,
                                                     double center_freq,
                                                     size_t fft_size) const;
    //! The in-tree block's "freq" message: a dict with key "freq", or a pair
    //! whose cdr is the frequency.
    void handle_freq_message(const pmt::pmt_t& message);

    const int d_decimation;
    const double d_sampling_freq;
    // under settings_mutex()
    std::vector<gr_complex> d_taps;
    double d_center_freq;
    size_t d_fft_size; // the engines' FFT length, kept while it holds new taps
    bool d_retune_tagged = true; // the last retune's "freq" tag is out
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_FREQ_XLATING_FFT_FILTER_CCC_IMPL_H */
