/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The polyphase channelizer for a few mapped channels (a decimator's one):
 * each channel's sample as the rotated sum of the M branch filters' outputs,
 * with no M-point FFT. With the branch outputs u_p[q] and the FFT input
 * w[e] = u_{(R - e) mod M}[q], R = (q+2)*D mod M, of pfb_fir.cl, the FFT's bin c
 * is
 *
 *   y_c[q] = W^(c R) * sum_p u_p[q] * conj(W^(c p)),   W = exp(-2 pi i / M),
 *
 * S channels cost S complex products per branch and frame instead of the
 * FFT's log M, and the input is read once: where D divides M (r = M/D), the
 * samples of branch p for frames f and taps m lie on one grid of step D,
 * window[newest_p + (f - m r) D], so a work-item keeps each sample it loads
 * for the K frames that use it (a sliding history in registers).
 *
 * A work-group: LANES runs of RUN_FRAMES consecutive frames, LANE_ITEMS
 * work-items per run, each on the branches p = its index + k * LANE_ITEMS of
 * its block of BLOCK_BRANCHES branches. Its rotated sums are reduced over the
 * run's work-items in local memory (a tree over LANE_ITEMS_POW2). With
 * BLOCKS = 1 the group holds all M branches and writes the channel samples;
 * otherwise group (run, block) writes its block's partial sums,
 * partial[(slot * frames + f) * BLOCKS + block], and pfb_direct_finish adds
 * them.
 *
 * Build options: those of pfb_fir.cl (CHANNELS, TAPS_PER_BRANCH, DECIMATION,
 * IDX, SAMPLE_T, CHANNEL_MAJOR), OVERSAMPLING (r = M / D, an integer),
 * SLOTS (mapped channels), RUN_FRAMES, LANES, LANE_ITEMS, LANE_ITEMS_POW2,
 * BLOCK_BRANCHES, BLOCKS, ROOTS_SPACE (__constant or __global: where roots,
 * W^k for k < M, is).
 */

#include "complex.cl"
#include "samples.cl"

#define DIRECT_GROUP (LANES * LANE_ITEMS)

// out[slot, f] in the output layout, from out (already at out_offset).
static inline void direct_store(__global float2* out,
                                IDX out_stride,
                                uint slot,
                                uint f,
                                float2 x)
{
#if CHANNEL_MAJOR
    out[(IDX)slot * out_stride + f] = x;
#else
    out[(IDX)f * SLOTS + slot] = x;
#endif
}

// W^(c R) for frame f of the call: R = (q0 + 2 + f) D mod M from rotation0 =
// (q0 + 2) D mod M.
static inline float2 direct_frame_phase(ROOTS_SPACE const float2* roots,
                                        uint rotation0,
                                        uint f,
                                        uint c)
{
    const ulong R = (rotation0 + (ulong)(f % CHANNELS) * DECIMATION) % CHANNELS;
    return roots[(R * c) % CHANNELS];
}

__kernel __attribute__((reqd_work_group_size(DIRECT_GROUP, 1, 1))) void
pfb_direct(__global const SAMPLE_T* window,
           IDX last_of_first,
           uint rotation0,
           uint frames,
           __global const float* taps,
           __global const uint* channel_of_slot,
           ROOTS_SPACE const float2* roots,
           __global float2* out,
           IDX out_offset,
           IDX out_stride,
           __global float2* partial)
{
    __local float2 sums[DIRECT_GROUP * RUN_FRAMES];
    const uint lid = get_local_id(0);
    const uint lane = lid / LANE_ITEMS, item = lid % LANE_ITEMS;
    const uint block = get_group_id(0) % BLOCKS;
    const uint f0 = (get_group_id(0) / BLOCKS * LANES + lane) * RUN_FRAMES;

    uint channel[SLOTS];
#pragma unroll
    for (uint s = 0; s < SLOTS; ++s)
        channel[s] = channel_of_slot[s];

    float2 rotated[SLOTS][RUN_FRAMES];
#pragma unroll
    for (uint s = 0; s < SLOTS; ++s)
#pragma unroll
        for (uint f = 0; f < RUN_FRAMES; ++f)
            rotated[s][f] = (float2)(0.0f, 0.0f);

    const uint first_branch = block * BLOCK_BRANCHES;
    const uint end_branch = min((uint)CHANNELS, first_branch + BLOCK_BRANCHES);
    for (uint p = first_branch + item; p < end_branch && f0 < frames; p += LANE_ITEMS) {
        float h[TAPS_PER_BRANCH];
#pragma unroll
        for (uint m = 0; m < TAPS_PER_BRANCH; ++m)
            h[m] = taps[m * CHANNELS + p];
        // Frame f0's newest sample of branch p; sample (f - m r) of the grid is
        // tap m's of frame f.
        const IDX newest = last_of_first + (IDX)f0 * DECIMATION - p;
        float2 u[RUN_FRAMES];
#pragma unroll
        for (uint f = 0; f < RUN_FRAMES; ++f)
            u[f] = (float2)(0.0f, 0.0f);
#pragma unroll
        for (int g = -(TAPS_PER_BRANCH - 1) * OVERSAMPLING; g < RUN_FRAMES; ++g) {
            // Frames past the call's last have no samples in the window.
            const float2 x = (g < 0 || f0 + (uint)g < frames)
                                 ? load_sample(window, newest + g * DECIMATION)
                                 : (float2)(0.0f, 0.0f);
#pragma unroll
            for (int m = 0; m < TAPS_PER_BRANCH; ++m) {
                const int f = g + m * OVERSAMPLING;
                if (f >= 0 && f < RUN_FRAMES)
                    u[f] += h[m] * x;
            }
        }
#pragma unroll
        for (uint s = 0; s < SLOTS; ++s) {
            const float2 w = roots[((ulong)channel[s] * p) % CHANNELS];
#pragma unroll
            for (uint f = 0; f < RUN_FRAMES; ++f)
                rotated[s][f] += cmul_conj(u[f], w);
        }
    }

    __local float2* mine = sums + lid * RUN_FRAMES;
    __local const float2* lane_sums = sums + lane * LANE_ITEMS * RUN_FRAMES;
#pragma unroll
    for (uint s = 0; s < SLOTS; ++s) {
        barrier(CLK_LOCAL_MEM_FENCE); // the last slot's sums are read
#pragma unroll
        for (uint f = 0; f < RUN_FRAMES; ++f)
            mine[f] = rotated[s][f];
        for (uint stride = LANE_ITEMS_POW2 / 2; stride > 0; stride /= 2) {
            barrier(CLK_LOCAL_MEM_FENCE);
            if (item < stride && item + stride < LANE_ITEMS) {
#pragma unroll
                for (uint f = 0; f < RUN_FRAMES; ++f)
                    mine[f] += mine[stride * RUN_FRAMES + f];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        // The lane's sums are its first work-item's; its work-items write them.
        for (uint k = item; k < RUN_FRAMES && f0 + k < frames; k += LANE_ITEMS) {
            const float2 sum = lane_sums[k];
            const uint f = f0 + k;
#if BLOCKS == 1
            direct_store(out + out_offset,
                         out_stride,
                         s,
                         f,
                         cmul(sum, direct_frame_phase(roots, rotation0, f, channel[s])));
#else
            partial[((IDX)s * frames + f) * BLOCKS + block] = sum;
#endif
        }
    }
}

/*
 * BLOCKS > 1: the channel samples from the blocks' partial sums, one
 * work-item per (frame, slot).
 */
__kernel void pfb_direct_finish(__global const float2* partial,
                                uint frames,
                                uint rotation0,
                                __global const uint* channel_of_slot,
                                ROOTS_SPACE const float2* roots,
                                __global float2* out,
                                IDX out_offset,
                                IDX out_stride)
{
    const uint f = get_global_id(0), s = get_global_id(1);
    if (f >= frames)
        return;
    __global const float2* blocks = partial + ((IDX)s * frames + f) * BLOCKS;
    float2 sum = (float2)(0.0f, 0.0f);
    for (uint b = 0; b < BLOCKS; ++b)
        sum += blocks[b];
    direct_store(out + out_offset,
                 out_stride,
                 s,
                 f,
                 cmul(sum, direct_frame_phase(roots, rotation0, f, channel_of_slot[s])));
}
