/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "dct_vff_impl.h"
#include <gnuradio/io_signature.h>
#include <gnuradio/wideband/core/environment.h>

#include <climits>
#include <stdexcept>

namespace gr {
namespace wideband {

namespace {

[[noreturn]] void fail(const std::string& what)
{
    throw std::invalid_argument("wideband.dct_vff: " + what);
}

core::fft_transform transform_of(int type)
{
    switch (type) {
    case 2:
        return core::fft_transform::dct_ii;
    case 3:
        return core::fft_transform::dct_iii;
    case 4:
        return core::fft_transform::dct_iv;
    }
    fail("type must be 2, 3 or 4 (got " + std::to_string(type) + ")");
}

core::dct_norm norm_of(const std::string& norm)
{
    if (norm == "ortho")
        return core::dct_norm::ortho;
    if (norm == "backward")
        return core::dct_norm::none;
    fail("norm must be \"ortho\" or \"backward\" (scipy's norm=None; got \"" + norm +
         "\")");
}

// The block's signature: vectors of size floats in and out. Checks the
// arguments first, so that bad ones give one clear message instead of an
// io_signature or OpenCL error.
gr::io_signature::sptr
checked_signature(int size, int type, const std::string& norm, bool output)
{
    constexpr int largest = INT_MAX / int(sizeof(float)); // io_signature's item size
    if (size < 1 || size > largest)
        fail("size must be 1.." + std::to_string(largest) + " (got " +
             std::to_string(size) + ")");
    transform_of(type);
    norm_of(norm);
    // The output names gr-wideband's buffer type (device-resident to
    // gr-wideband readers, pinned to host readers); the input takes the
    // writer's (see opencl_buffer).
    return output
               ? gr::io_signature::make(1, 1, size * sizeof(float), opencl_buffer::type)
               : gr::io_signature::make(1, 1, size * sizeof(float));
}

} // namespace

dct_vff::sptr
dct_vff::make(int size, int type, const std::string& norm, const std::string& device)
{
    core::environment::check();
    return gnuradio::make_block_sptr<dct_vff_impl>(size, type, norm, device);
}

dct_vff_impl::dct_vff_impl(int size,
                           int type,
                           const std::string& norm,
                           const std::string& device)
    : gr::block("dct_vff",
                checked_signature(size, type, norm, false),
                checked_signature(size, type, norm, true)),
      base(core::device_context::get_all(device), { 1, 1 }, size_t(size)),
      d_size(size),
      d_type(type),
      d_norm(norm)
{
    // The engine's checks on every device, before the flowgraph runs.
    for (const auto& context : contexts())
        core::fft_stream::check(context->info(), d_size, engine_options());
}

core::fft_stream_options dct_vff_impl::engine_options() const
{
    core::fft_stream_options options;
    options.transform = transform_of(d_type);
    options.norm = norm_of(d_norm);
    options.input_format = core::sample_format::f32;
    options.max_input_samples = max_input_samples();
    return options;
}

std::unique_ptr<core::fft_stream>
dct_vff_impl::make_engine(const core::device_context::sptr& context)
{
    return std::make_unique<core::fft_stream>(context, d_size, engine_options());
}

} // namespace wideband
} // namespace gr
