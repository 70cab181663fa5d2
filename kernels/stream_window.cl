/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The copies of an in-place streaming call (core::stream_window) in one launch:
 * up to three ranges of input samples (SAMPLE_T, samples.cl), each from one
 * buffer to another,
 * (source, source_offset) -> (destination, destination_offset), count samples.
 * A copy kernel rather than clEnqueueCopyBuffer: on GPUs whose copies run on a
 * DMA engine, each small copy between two kernels costs an engine switch.
 * The ranges must not overlap; a range of count 0 copies nothing. Work-item n
 * copies sample n of the ranges laid end to end.
 */

#define IDX ulong
#include "samples.cl"

__kernel void copy_ranges(__global const SAMPLE_T* source0,
                          ulong source0_offset,
                          __global SAMPLE_T* destination0,
                          ulong destination0_offset,
                          ulong count0,
                          __global const SAMPLE_T* source1,
                          ulong source1_offset,
                          __global SAMPLE_T* destination1,
                          ulong destination1_offset,
                          ulong count1,
                          __global const SAMPLE_T* source2,
                          ulong source2_offset,
                          __global SAMPLE_T* destination2,
                          ulong destination2_offset,
                          ulong count2)
{
    ulong n = get_global_id(0);
    if (n < count0) {
        destination0[destination0_offset + n] = source0[source0_offset + n];
        return;
    }
    n -= count0;
    if (n < count1) {
        destination1[destination1_offset + n] = source1[source1_offset + n];
        return;
    }
    n -= count1;
    if (n < count2)
        destination2[destination2_offset + n] = source2[source2_offset + n];
}
