/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_FFT_V_IMPL_H
#define INCLUDED_WIDEBAND_FFT_V_IMPL_H

#include "streaming_block.h"
#include <gnuradio/wideband/core/fft_stream.h>
#include <gnuradio/wideband/fft_v.h>

namespace gr {
namespace wideband {

//! What fft_vcc and fft_vfc differ in: their name and input samples.
template <class T>
struct fft_v_input;

template <>
struct fft_v_input<gr_complex> {
    static constexpr const char* name = "fft_vcc";
    static constexpr size_t item_bytes = sizeof(gr_complex);
    static constexpr core::sample_format format = core::sample_format::fc32;
};

template <>
struct fft_v_input<float> {
    static constexpr const char* name = "fft_vfc";
    static constexpr size_t item_bytes = sizeof(float);
    static constexpr core::sample_format format = core::sample_format::f32;
};

//! fft_vcc and fft_vfc: vectors in, their transforms (complex vectors) out.
template <class T>
class fft_v_impl : public streaming_block<fft_v<T>, core::fft_stream>
{
public:
    fft_v_impl(int fft_size,
               bool forward,
               const std::vector<float>& window,
               bool shift,
               const std::string& device);

    bool set_window(const std::vector<float>& window) override;
    std::vector<float> window() const override;

private:
    using base = streaming_block<fft_v<T>, core::fft_stream>;

    std::unique_ptr<core::fft_stream>
    make_engine(const core::device_context::sptr& context) override;
    void apply_settings(core::fft_stream& engine) override;
    size_t elements_per_item() const override { return d_fft_size; }
    core::fft_stream_options engine_options(const std::vector<float>& window) const;

    const size_t d_fft_size;
    const bool d_forward;
    const bool d_shift;
    std::vector<float> d_window; // under settings_mutex()
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_FFT_V_IMPL_H */
