/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_FFT_FILTER_IMPL_H
#define INCLUDED_WIDEBAND_FFT_FILTER_IMPL_H

#include "streaming_block.h"
#include <gnuradio/wideband/core/fft_filter.h>
#include <gnuradio/wideband/fft_filter.h>
#include <gnuradio/wideband/fft_filter_fff.h>

namespace gr {
namespace wideband {

//! What fft_filter_ccc, _ccf and _fff differ in: name, taps, output.
template <class Api>
struct fft_filter_kind;

template <>
struct fft_filter_kind<fft_filter_ccc> {
    using tap_type = gr_complex;
    static constexpr const char* name = "fft_filter_ccc";
    static constexpr bool real = false;
};

template <>
struct fft_filter_kind<fft_filter_ccf> {
    using tap_type = float;
    static constexpr const char* name = "fft_filter_ccf";
    static constexpr bool real = false;
};

//! Real input and output: the engine reads f32 and writes real parts.
template <>
struct fft_filter_kind<fft_filter_fff> {
    using tap_type = float;
    static constexpr const char* name = "fft_filter_fff";
    static constexpr bool real = true;
};

template <class Api>
class fft_filter_impl : public streaming_block<Api, core::fft_filter>
{
    using TAP_T = typename fft_filter_kind<Api>::tap_type;

public:
    fft_filter_impl(int decimation,
                    const std::vector<TAP_T>& taps,
                    const std::string& device,
                    core::sample_format input_format);

    void set_taps(const std::vector<TAP_T>& taps) override;
    std::vector<TAP_T> taps() const override;
    int decimation() const override { return d_decimation; }
    int fft_size() const override;

private:
    using base = streaming_block<Api, core::fft_filter>;

    std::unique_ptr<core::fft_filter>
    make_engine(const core::device_context::sptr& context) override;
    void apply_settings(core::fft_filter& engine) override;
    //! The engine's options for \p taps and FFT length \p fft_size (0: chosen).
    core::fft_filter_options engine_options(const std::vector<TAP_T>& taps,
                                            size_t fft_size) const;

    const int d_decimation;
    const core::sample_format d_input_format;
    // under settings_mutex(): the taps, and the FFT length the engines use (or
    // will: kept while it holds new taps, so that no kernel is built mid-stream)
    std::vector<TAP_T> d_taps;
    size_t d_fft_size;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_FFT_FILTER_IMPL_H */
