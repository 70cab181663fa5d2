/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_STREAM_CONFIG_H
#define INCLUDED_WIDEBAND_CORE_STREAM_CONFIG_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/device.h>

#include <cstddef>

namespace gr {
namespace wideband {
namespace core {

/*!
 * \brief How a stream goes through an engine: input samples per chunk and
 * chunks in flight. The blocks and the benchmarks that measure them take it
 * from here, so that both stream alike; the WIDEBAND_* variables are read in
 * core/environment.h.
 */
struct WIDEBAND_CORE_API stream_config {
    size_t chunk_samples = 0;  //!< input samples per chunk (one engine call)
    size_t pipeline_depth = 0; //!< chunks in flight per device

    /*!
     * \brief For \p device: chunks of 2^25 samples (256 MiB of complex float)
     * on a GPU of 32 GiB or more, 2^24 on smaller GPUs, where an engine call's
     * fixed cost (its launches and copies, a kernel's start and end: 8 to 45
     * us on an H200) then weighs little against its kernels
     * (docs/benchmarks.md, "fft_filter_fff in place, and chunks of 2^25
     * samples": between device edges 2^25 takes pfb_decimator_ccf from 0.46 to
     * 0.84 of its engine, fft_filter_ccc from 0.86 to 0.95), 2^19 on other
     * devices (memory, latency); two chunks in
     * flight. A call takes the samples there are, so a live stream's latency
     * does not grow with the chunk. WIDEBAND_CHUNK_SAMPLES and
     * WIDEBAND_PIPELINE_DEPTH replace them (4194304, 2^22, holds an eighth of
     * the memory, for less speed).
     *
     * \throws std::invalid_argument for a variable out of its range
     */
    static stream_config for_device(const device_info& device);

    /*!
     * \brief Input samples one engine call takes for a stream whose output
     * step is \p decimation samples: a chunk, or one step when that is longer.
     */
    size_t max_input_samples(size_t decimation) const;
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_STREAM_CONFIG_H */
