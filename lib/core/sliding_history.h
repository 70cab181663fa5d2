/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_SLIDING_HISTORY_H
#define INCLUDED_WIDEBAND_CORE_SLIDING_HISTORY_H

#include "fft_planner.h"

#include <cstddef>
#include <functional>
#include <optional>

namespace gr {
namespace wideband {
namespace core {

/*
 * The shape of a one-pass polyphase kernel with a sliding history (the
 * channelizer's pfb_channelize_sliding, the synthesizer's
 * pfb_synthesize_sliding): a work-group computes a run of consecutive frames,
 * pass.group frames per step, its work-items keeping the last `history`
 * frames' values of `branches` filter branches each in registers.
 */
struct sliding_shape {
    size_t branches; // per work-item
    size_t history;  // frames a branch keeps; a run starts with history - 1 of warm-up
    bool taps_in_registers;
    size_t groups_per_unit; // that fit a compute unit's registers
    fft_pass_plan pass;     // the on-chip FFT, pass.group frames per step
};

/*
 * The shape for \p total_branches branches (a multiple of the work-items) and
 * the on-chip FFT \p base, taps in registers where they fit, then the most
 * frames per step (16 down to 1); none when no step fits the registers.
 * registers_per_branch(step, taps_in_registers): a work-item's registers for
 * each of its branches, besides the FFT's points and some 24 for the rest.
 */
std::optional<sliding_shape>
plan_sliding(size_t total_branches,
             size_t history,
             const fft_pass_plan& base,
             const fft_device_limits& limits,
             const std::function<size_t(size_t step, bool taps_in_registers)>&
                 registers_per_branch);

/*
 * Frames per work-group for a call of \p frames frames: twice the groups the
 * \p compute_units hold at once, unless the warm-up (history - 1 frames)
 * would exceed half of a run; whole steps.
 */
size_t
sliding_run_frames(const sliding_shape& shape, size_t frames, size_t compute_units);

/*
 * How kernels whose work-items each filter one of `branches` branches over a
 * run of frames, its history in registers (pfb_fir_sliding, pfb_synth_fir), are
 * launched: work-item (b, r) of the two-dimensional range takes branch b and
 * run r. Long runs (16 to 256 frames) load the history before a run fewer
 * times; enough runs keep every compute unit busy (2048 branch-runs each). A
 * group of 64 work-items spans up to 64 branches and, with fewer branches,
 * several runs, so that few branches leave no work-item idle.
 */
struct branch_runs {
    size_t run_frames;
    size_t global[2], local[2];
};
branch_runs plan_branch_runs(size_t frames, size_t branches, size_t compute_units);

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_SLIDING_HISTORY_H */
