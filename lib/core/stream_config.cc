/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/wideband/core/environment.h>
#include <gnuradio/wideband/core/stream_config.h>

#include <algorithm>

namespace gr {
namespace wideband {
namespace core {

stream_config stream_config::for_device(const device_info& device)
{
    stream_config config;
    unsigned chunk_log2 = 19;
    if (device.type & CL_DEVICE_TYPE_GPU)
        chunk_log2 = device.global_mem_bytes >= (uint64_t(32) << 30) ? 25 : 24;
    config.chunk_samples = environment::chunk_samples().value_or(size_t(1) << chunk_log2);
    config.pipeline_depth = environment::pipeline_depth();
    return config;
}

size_t stream_config::max_input_samples(size_t decimation) const
{
    return std::max(chunk_samples, decimation);
}

} // namespace core
} // namespace wideband
} // namespace gr
