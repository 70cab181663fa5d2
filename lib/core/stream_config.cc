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
    const bool gpu = (device.type & CL_DEVICE_TYPE_GPU) != 0;
    const bool large_gpu = gpu && device.global_mem_bytes >= (uint64_t(32) << 30);
    config.chunk_samples =
        environment::chunk_samples().value_or(size_t(1) << (large_gpu ? 25
                                                            : gpu     ? 24
                                                                      : 19));
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
