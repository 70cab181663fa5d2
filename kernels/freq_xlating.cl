/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The output rotation of a frequency-translating filter
 * (core::freq_xlating_filter): output i of a call, in place, times
 *
 *   start * e^{-j 2 pi nu D i} = start * fine[i mod 4096] * coarse[i / 4096],
 *
 * where the host computes start (the rotation at the call's first output) and
 * the two tables in double precision, so that the phase stays exact over any
 * length of stream: a float phase accumulated per sample would drift.
 */

#define FINE_STEPS 4096

#include "complex.cl"

__kernel void rotate_outputs(__global float2* data,
                             ulong offset,
                             uint count,
                             float2 start,
                             __global const float2* steps)
{
    const uint i = get_global_id(0);
    if (i >= count)
        return;
    const float2 step = cmul(steps[FINE_STEPS + i / FINE_STEPS],
                                         steps[i % FINE_STEPS]);
    data[offset + i] = cmul(data[offset + i], cmul(start, step));
}
