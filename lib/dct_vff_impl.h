/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_DCT_VFF_IMPL_H
#define INCLUDED_WIDEBAND_DCT_VFF_IMPL_H

#include "streaming_block.h"
#include <gnuradio/wideband/core/fft_stream.h>
#include <gnuradio/wideband/dct_vff.h>

namespace gr {
namespace wideband {

//! dct_vff: float vectors in, their cosine transforms out, through fft_stream.
class dct_vff_impl : public streaming_block<dct_vff, core::fft_stream>
{
public:
    dct_vff_impl(int size, int type, const std::string& norm, const std::string& device);

    int size() const override { return int(d_size); }
    int type() const override { return d_type; }
    std::string norm() const override { return d_norm; }

private:
    using base = streaming_block<dct_vff, core::fft_stream>;

    std::unique_ptr<core::fft_stream>
    make_engine(const core::device_context::sptr& context) override;
    void apply_settings(core::fft_stream&) override {} // nothing changes at run time
    size_t elements_per_item() const override { return d_size; }
    core::fft_stream_options engine_options() const;

    const size_t d_size;
    const int d_type;
    const std::string d_norm;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_DCT_VFF_IMPL_H */
