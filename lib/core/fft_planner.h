/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_FFT_PLANNER_H
#define INCLUDED_WIDEBAND_CORE_FFT_PLANNER_H

#include <gnuradio/wideband/core/device.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

/*!
 * \brief The limits of a device the planner works within, and tuning knobs.
 *
 * Knobs can be overridden for experiments through the environment variable
 * WIDEBAND_FFT_TUNE="key=value,...", keys: local (bytes of local memory a work-group
 * may use), wg (target work-items per group), pad (LDS_PAD_SHIFT, 0 = none),
 * twiddles (constant|global), direct (0: never load/store registers directly),
 * min_group (transforms per group in strided passes), threads (most work-items
 * per transform), powers (stage twiddles as powers of one table read: 0 never,
 * 1 in every pass; by default in single-pass plans), registers (register_file),
 * resident (0: no register-resident passes).
 */
struct fft_device_limits {
    size_t max_work_group_size = 256;
    size_t local_bytes = 48 * 1024;      //!< local memory one work-group may use
    size_t target_group_size = 256;      //!< work-items per group the planner aims for
    size_t min_strided_group = 4;        //!< transforms per group when points are strided
    size_t max_transform_threads = 1024; //!< work-items per on-chip transform, at most
    //! Local-memory padding, one slot per 2^pad_shift points (0: none); unset:
    //! chosen per plan by local_memory_cycles()
    std::optional<unsigned> pad_shift;
    //! Stage twiddles in __constant where the table fits (else __global):
    //! faster at several lengths, within 2 % at the others
    //! (docs/fft-tuning-notes.md, "The defaults in the code").
    bool constant_twiddles = true;
    bool allow_direct = true; //!< stage 0 / last stage may touch global memory
    //! Where stage twiddles are formed as powers (TWIDDLE_POWERS in
    //! kernels/fft_stages.cl): single-pass plans gain, the passes of multi-pass
    //! plans lose a little (docs/fft-tuning-notes.md, "The defaults in the code").
    enum class twiddle_power_use { never, single_pass, always };
    twiddle_power_use twiddle_powers = twiddle_power_use::single_pass;
    size_t max_constant_bytes = 64 * 1024;
    //! 32-bit registers one work-group may hold: a compute unit's register file
    //! on NVIDIA's GPUs (what the channelizer's sliding history is sized by)
    size_t register_file = 65536;
    //! One pass for a transform longer than local memory holds, its points in
    //! registers (EXCHANGE_PARTS in kernels/fft_stages.cl), where they fit;
    //! GPUs only by default (for_device())
    bool register_resident = true;
    //! Bluestein's convolution beyond one pass at the shortest 7-smooth length
    //! (bluestein_length()) rather than the next power of two
    bool bluestein_smooth = true;
    //! A fast convolution in one kernel hands the forward FFT's outputs to the
    //! inverse FFT in registers (with_handoff())
    bool register_handoff = true;

    static fft_device_limits for_device(const device_info& info);
};

//! Radices the codelets implement (kernels/fft_codelets.cl).
const std::vector<unsigned>& supported_radices();

//! The largest prime with a codelet: every prime up to it is one.
constexpr unsigned largest_codelet_prime = 31;

//! True when every prime factor of n is a codelet radix, i.e. at most
//! largest_codelet_prime (n is computed without Rader or Bluestein).
bool is_codelet_smooth(size_t n);

//! The radices of an on-chip FFT of length L (is_codelet_smooth(L)), in stage order.
std::vector<unsigned> choose_radices(size_t length);
constexpr size_t max_folded_stages = 6; //!< the FOLDED_RADIX_s slots of fft_stages.cl
//! The radices of an on-chip FFT of \p length points on \p threads work-items
//! each (a folded inverse on its forward FFT's), for the shortest path of one
//! work-item, in at most max_folded_stages stages.
std::vector<unsigned> choose_radices_for_threads(size_t length, size_t threads);

/*!
 * \brief The lengths of the passes of a transform of n points (product = n),
 * each at most max_length and codelet-smooth. One entry when n fits in one pass.
 */
std::vector<size_t> split_into_passes(size_t n, size_t max_length);

//! The smallest length >= n whose prime factors are 2, 3, 5 and 7 (their
//! codelets run at the copy bandwidth).
size_t next_seven_smooth(size_t n);

/*!
 * \brief The convolution length of Bluestein's algorithm for n points: the
 * next power of two >= 2n - 1 where it fits one pass (single_max points: the
 * fused kernel runs fastest there), else the shortest length >= 2n - 1 whose
 * prime factors are 2, 3, 5 and 7 and that takes no more passes (of
 * strided_max points) than the power of two; always the power of two where
 * limits.bluestein_smooth is off.
 */
size_t bluestein_length(size_t n,
                        const fft_device_limits& limits,
                        size_t single_max,
                        size_t strided_max);

/*!
 * \brief How one kernel launch (one pass) computes its on-chip FFTs and moves data.
 */
struct fft_pass_plan {
    size_t length = 1;             //!< FFT_L: points per on-chip transform
    std::vector<unsigned> radices; //!< stages of the on-chip FFT
    size_t threads = 1;            //!< FFT_T: work-items per transform
    size_t group = 1;              //!< FFT_G: transforms per work-group
    size_t columns = 1;            //!< transforms per batch item (N / length)
    size_t span = 1;               //!< product of the lengths of the earlier passes
    bool thread_transform_fastest = false;
    bool load_direct = false;
    bool load_transform_fastest = false;
    bool store_direct = false;
    bool store_transform_fastest = false;
    unsigned pad_shift = 0;
    size_t max_regs = 1;
    bool twiddle_powers = false;
    //! 0: the tile holds the transforms; P > 0: one register-resident
    //! transform, exchanged between stages through a tile of length / P floats
    unsigned exchange_parts = 0;
    //! A fast convolution's inverse FFT of length / fold points (FOLD in
    //! kernels/fft.cl): its stages, empty when it keeps every output
    size_t fold = 1;
    std::vector<unsigned> folded_radices;
    //! A fast convolution's forward FFT hands its last stage's outputs to the
    //! inverse FFT in registers (HANDOFF_RADIX in kernels/fft.cl): its last
    //! radix is the inverse's first, or a multiple of the fold
    bool handoff = false;

    size_t work_group_size() const { return threads * group; }
    //! Local-memory slots (float2; floats when exchange_parts > 0) from one
    //! transform of the tile to the next.
    size_t tile_stride() const;
    //! Local memory of the tile, in bytes.
    size_t tile_bytes() const;
    //! The -D options shared by every kernel that runs this on-chip FFT.
    std::string stage_options() const;
};

//! Where a pass's points sit: "adjacent" when consecutive points are adjacent in memory.
struct fft_pass_io {
    bool points_adjacent = true;      //!< point stride 1
    bool transforms_adjacent = false; //!< consecutive transforms 1 element apart
    //! (output) each output k is stored with output (L - k) mod L: a packed real
    //! forward transform's unpacking
    bool mirrored = false;
};

/*!
 * \brief Plans a pass of on-chip length \p length of an n_total-point transform
 * with span \p span, for the given memory access of its input and output. A
 * single pass (length == n_total) longer than max_on_chip_length() is
 * register-resident (fits_in_registers() must hold): its loads and stores are
 * direct, so only a kernel without tile operations of its own can run it.
 */
fft_pass_plan plan_pass(size_t length,
                        size_t n_total,
                        size_t span,
                        const fft_pass_io& input,
                        const fft_pass_io& output,
                        const fft_device_limits& limits);

/*!
 * \brief \p plan with exactly \p threads work-items per transform and \p group
 * transforms per work-group, for kernels whose work-items do more than the FFT
 * (the channelizer's sliding history: one filter branch each). Work-items
 * beyond a stage's butterflies wait at its barriers.
 */
fft_pass_plan with_threads(fft_pass_plan plan, size_t threads, size_t group);

//! Whether a fused convolution of \p length points that keeps every \p fold-th
//! output can run its inverse FFT on length / fold points (fold divides length,
//! leaves at least 2 points and their FFT takes at most max_folded_stages).
bool can_fold(size_t length, size_t fold);

//! \p plan (a fused convolution's one pass) with its inverse FFT folded
//! (can_fold(plan.length, fold)); registers for both FFTs.
fft_pass_plan with_folded_inverse(fft_pass_plan plan, size_t fold);

/*!
 * \brief \p plan as the forward FFT of a fast convolution in one kernel whose
 * inverse FFT is folded by \p fold (1: not folded), with its radices ordered so
 * that the last stage hands its outputs to the inverse FFT in registers: unfolded,
 * the largest radix that occurs twice first and last (the inverse runs the same
 * stages); folded, the largest radix that the fold divides last. The plan
 * unchanged (handoff false) where no order does, where it is register-resident,
 * and where the hand-off measured slower (unfolded below 1024 points, folds by 2).
 */
fft_pass_plan
with_handoff(fft_pass_plan plan, size_t fold, const fft_device_limits& limits);

/*!
 * \brief Cycles NVIDIA's local memory spends on the tile accesses of one
 * work-group of \p plan (its FFT stages, and the tile's loads and stores where
 * the first and last stage do not touch global memory): per warp access, the
 * most distinct words that share a bank. What the padding is chosen by.
 */
size_t local_memory_cycles(const fft_pass_plan& plan);

/*!
 * \brief Longest on-chip transform one work-group can hold (and compute in one pass).
 * \p strided: for passes that read strided points and need min_strided_group transforms
 * per group.
 */
size_t max_on_chip_length(const fft_device_limits& limits, bool strided);

/*!
 * \brief Whether one transform of \p length points can be computed in one pass
 * with its points in registers: on some number of work-items (at most
 * max_transform_threads), each work-item's points (and the second set a tile
 * of several parts needs, or with \p mirrored_outputs the mirrored outputs:
 * fft_pass_io::mirrored) and its other values fit its share of the register
 * file; at most 4 parts of local memory.
 */
bool fits_in_registers(size_t length,
                       const fft_device_limits& limits,
                       bool mirrored_outputs = false);

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_FFT_PLANNER_H */
