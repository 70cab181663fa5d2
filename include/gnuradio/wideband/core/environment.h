/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_ENVIRONMENT_H
#define INCLUDED_WIDEBAND_CORE_ENVIRONMENT_H

#include <gnuradio/wideband/core/api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace gr {
namespace wideband {
namespace core {

/*!
 * \brief The WIDEBAND_* environment variables, parsed here and nowhere else.
 *
 * Each getter reads its variable when called (tests and programs change them),
 * takes the whole value strictly (an integer is decimal digits only) and checks
 * its range. Unset or empty means the default. A bad value throws
 * std::invalid_argument, one line naming the variable and what it takes:
 * "WIDEBAND_PIPELINE_DEPTH=abc: wants an integer from 1 to 16".
 */
namespace environment {

//! An integer variable and its allowed range.
struct integer_variable {
    const char* name;
    uint64_t lowest;
    uint64_t highest;
};

/*!
 * Input samples per chunk of the streaming blocks. Below 1024 launches and
 * hand-overs cost more than the chunk; above 2^30 an input window (two chunks
 * and the history) reaches the 2^32 samples the kernels index.
 */
constexpr integer_variable chunk_samples_variable{ "WIDEBAND_CHUNK_SAMPLES",
                                                   1024,
                                                   uint64_t(1) << 30 };
/*!
 * Chunks in flight per block and device. Each holds a chunk's staging and
 * device buffers; three chunks keep the three queues (upload, kernels,
 * download) busy, so more than 16 only take memory.
 */
constexpr integer_variable pipeline_depth_variable{ "WIDEBAND_PIPELINE_DEPTH", 1, 16 };
//! Threads of the host copies (1: on the caller's thread); past 64 they only contend.
constexpr integer_variable copy_threads_variable{ "WIDEBAND_COPY_THREADS", 1, 64 };

//! The chunks in flight without WIDEBAND_PIPELINE_DEPTH.
constexpr size_t default_pipeline_depth = 2;

//! WIDEBAND_CHUNK_SAMPLES; std::nullopt when unset (the device's default applies).
WIDEBAND_CORE_API std::optional<size_t> chunk_samples();
//! WIDEBAND_PIPELINE_DEPTH, or default_pipeline_depth.
WIDEBAND_CORE_API size_t pipeline_depth();
//! WIDEBAND_COPY_THREADS; std::nullopt when unset (up to 16, one per core).
WIDEBAND_CORE_API std::optional<size_t> copy_threads();

//! WIDEBAND_PROFILE: 0 or 1, the blocks' work() profile logged at stop.
WIDEBAND_CORE_API bool profile();
//! WIDEBAND_BUILD_LOG: 0 or 1, every kernel build's compiler log on stderr.
WIDEBAND_CORE_API bool build_log();
//! WIDEBAND_BUILD_OPTIONS: compiler options added to every kernel build.
WIDEBAND_CORE_API std::string build_options();
//! WIDEBAND_DEVICE: the device string that replaces ""; "" when unset.
WIDEBAND_CORE_API std::string device();
/*!
 * WIDEBAND_KERNEL_CACHE: the compiled-kernel directory; std::nullopt when
 * unset (the default directory applies), "" for off, none or 0 (no disk cache).
 */
WIDEBAND_CORE_API std::optional<std::string> kernel_cache();

//! WIDEBAND_FAULT (test-only, lib/core/fault_injection.h).
struct fault_setting {
    enum class kind { none, build, enqueue };
    kind what = kind::none;
    uint64_t from_call = 0;  //!< enqueue:N
    std::string build_match; //!< build:TEXT; empty for build (every build)
    bool operator==(const fault_setting& other) const
    {
        return what == other.what && from_call == other.from_call &&
               build_match == other.build_match;
    }
};
//! The most engine calls enqueue:N counts to.
constexpr uint64_t max_fault_call = 1000000000;
WIDEBAND_CORE_API fault_setting fault();
/*!
 * Test-only: engine calls read WIDEBAND_FAULT from now on, for the life of the
 * process. Without this they read it only when it was set as the core library
 * loaded (unset then, it costs them one branch on a bool), so a process that
 * sets it at run time calls this first. Kernel builds read it at each build.
 */
WIDEBAND_CORE_API void watch_fault();

/*!
 * WIDEBAND_FFT_TUNE="key=value,...": the FFT planner's device limits replaced,
 * for tuning experiments (docs/fft-tuning-notes.md). Unset entries keep the
 * device's value.
 */
struct fft_tuning {
    std::optional<size_t> local_bytes;           //!< local=1024..1048576
    std::optional<size_t> group_size;            //!< wg=1..4096
    std::optional<unsigned> pad_shift;           //!< pad=0..16 (0: no padding)
    std::optional<size_t> min_strided_group;     //!< min_group=1..1024
    std::optional<size_t> max_transform_threads; //!< threads=1..4096
    std::optional<bool> constant_twiddles;       //!< twiddles=constant|global
    std::optional<bool> allow_direct;            //!< direct=0|1
    std::optional<bool> twiddle_powers;          //!< powers=0|1
    std::optional<size_t> register_file;         //!< registers=1024..1048576
    std::optional<bool> register_resident;       //!< resident=0|1
    std::optional<bool> bluestein_smooth;        //!< bluestein=smooth|pow2
    std::optional<bool> register_handoff;        //!< handoff=0|1
};
WIDEBAND_CORE_API fft_tuning fft_tune();

/*!
 * Reads every variable above, so that a block can refuse a bad value when it is
 * made rather than when the flowgraph runs.
 */
WIDEBAND_CORE_API void check();

} // namespace environment
} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_ENVIRONMENT_H */
