/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sliding_history.h"

#include <algorithm>

namespace gr {
namespace wideband {
namespace core {

namespace {

// A work-item's registers at most (NVIDIA's limit): a history that spills to
// memory loses what the kernel is for.
constexpr size_t max_item_registers = 255;

size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

} // namespace

std::optional<sliding_shape>
plan_sliding(size_t total_branches,
             size_t history,
             const fft_pass_plan& base,
             const fft_device_limits& limits,
             const std::function<size_t(size_t step, bool taps_in_registers)>&
                 registers_per_branch)
{
    for (bool taps_in_registers : { true, false })
        for (size_t step = 16; step >= 1; step /= 2) {
            const size_t work_items = base.threads * step;
            if (work_items > total_branches || total_branches % work_items != 0 ||
                work_items > limits.max_work_group_size)
                continue;
            const fft_pass_plan pass = with_threads(base, base.threads, step);
            if (pass.tile_bytes() > limits.local_bytes)
                continue;
            const size_t branches = total_branches / work_items;
            const size_t registers =
                branches * registers_per_branch(step, taps_in_registers) +
                2 * pass.max_regs + 24;
            if (registers > max_item_registers ||
                work_items * registers > limits.register_file)
                continue;
            return sliding_shape{ branches,
                                  history,
                                  taps_in_registers,
                                  limits.register_file / (work_items * registers),
                                  pass };
        }
    return std::nullopt;
}

size_t sliding_run_frames(const sliding_shape& shape, size_t frames, size_t compute_units)
{
    const size_t groups = 2 * std::max<size_t>(1, compute_units) *
                          std::max<size_t>(1, shape.groups_per_unit);
    const size_t run =
        std::min(frames, std::max(ceil_div(frames, groups), 2 * (shape.history - 1)));
    return ceil_div(run, shape.pass.group) * shape.pass.group;
}

branch_runs plan_branch_runs(size_t frames, size_t branches, size_t compute_units)
{
    constexpr size_t group = 64;
    const size_t runs_wanted = std::max<size_t>(1, compute_units) * 2048 / branches + 1;
    branch_runs b;
    b.run_frames = std::clamp<size_t>(frames / runs_wanted, 16, 256);
    size_t span = 1; // branches a group spans: a power of two up to 64
    while (span < branches && span < group)
        span *= 2;
    b.local[0] = span;
    b.local[1] = group / span;
    b.global[0] = ceil_div(branches, b.local[0]) * b.local[0];
    b.global[1] = ceil_div(ceil_div(frames, b.run_frames), b.local[1]) * b.local[1];
    return b;
}

} // namespace core
} // namespace wideband
} // namespace gr
