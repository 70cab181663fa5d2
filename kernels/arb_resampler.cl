/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * GNU Radio's pfb_arb_resampler_ccf (core/arb_resampler.h): output n is
 *
 *   o0 + o1 * acc,  o0 = sum_k taps[j][k] x[i - T + 1 + k],
 *                   o1 = the same with the derivative taps,
 *
 * taps[j] filter j's T taps reversed (as fir_filter_ccf holds them), x the
 * window: the call's samples with the T - 1 before them.
 *
 * The host sends the phase (window offset of i - T + 1, j, acc) of every
 * interval-th output; work-item n replays the recurrence from its checkpoint
 * for n % interval steps, in the host's float operations: acc += flt_rate
 * (IEEE addition, correctly rounded here as on the host), and, acc being in
 * [0, 2), floor(acc) and fmodf(acc, 1) as a compare and an exact subtraction;
 * the filter index's wrap as the host does it (dec_rate split into whole
 * inputs and a rest below filters: one compare, no division).
 * Nothing here may be contracted or reassociated (no -cl-fast-relaxed-math,
 * -cl-unsafe-math-optimizations or -cl-mad-enable in the build options).
 */

#pragma OPENCL FP_CONTRACT OFF

__kernel void arb_resample(__global const float2* window,
                           __global const uint4* checkpoints, // offset, j, acc bits
                           __global const float* taps,        // R x T, reversed
                           __global const float* diff_taps,   // R x T, reversed
                           uint taps_per_filter,
                           uint filters,
                           uint whole_inputs, // dec_rate / filters
                           uint rest,         // dec_rate % filters
                           float flt_rate,
                           uint interval,
                           uint outputs,
                           __global float2* output)
{
    const uint n = get_global_id(0);
    if (n >= outputs)
        return;
    const uint4 c = checkpoints[n / interval];
    uint offset = c.x, j = c.y;
    float acc = as_float(c.z);
    for (uint s = n % interval; s > 0; --s) {
        acc += flt_rate;
        const uint whole = acc >= 1.0f ? 1u : 0u;
        acc = whole ? acc - 1.0f : acc;
        // j += dec_rate + whole; offset += j / filters; j %= filters
        j += rest + whole;
        const uint wrap = j >= filters ? 1u : 0u;
        j -= wrap * filters;
        offset += whole_inputs + wrap;
    }
    __global const float2* x = window + offset;
    __global const float* h = taps + (size_t)j * taps_per_filter;
    __global const float* d = diff_taps + (size_t)j * taps_per_filter;
    float2 o0 = (float2)(0.0f), o1 = (float2)(0.0f);
    for (uint k = 0; k < taps_per_filter; ++k) {
        const float2 v = x[k];
        o0 += h[k] * v;
        o1 += d[k] * v;
    }
    output[n] = o0 + o1 * acc;
}
