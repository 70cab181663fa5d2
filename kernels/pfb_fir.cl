/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The polyphase filterbank's FIR half: the M-point FFT input of one output
 * frame, point by point.
 *
 * GNU Radio's pfb.channelizer_ccf computes, with D = M/r, x[k < 0] = 0 and taps
 * h padded to K*M (K taps per branch), output q of channel c as
 *
 *   y_c[q] = exp(-2 pi i c (D+1)/M) * sum_n h[n] x[t-n] exp(-2 pi i c (t-n)/M),
 *   t = (q+1)D - 1.
 *
 * Writing n = m*M + p splits the sum into M branch filters
 *
 *   u_p[q] = sum_{m<K} h[m*M + p] * x[t - p - m*M],
 *
 * and y_c[q] = FFT_M(w)[c] with w[e] = u_{((q+2)*D - e) mod M}[q]: the input
 * rotation by (q+2)*D absorbs both the commutator position t mod M (the
 * oversampling phase, which cycles when D < M) and the fixed per-channel phase,
 * so the FFT's output is the channel sample itself.
 *
 * Build options: CHANNELS (M), TAPS_PER_BRANCH (K), DECIMATION (D),
 * IDX (uint or ulong, the window's index type), SAMPLE_T (samples.cl),
 * OVERSAMPLING (r = M/D, where D divides M), CHANNEL_MAJOR (the gather's
 * output layout).
 *
 * The input window holds the samples of a call: frame f (0-based within the
 * call) ends at window[last_of_first + f*D]; the K*M - 1 samples before it are
 * there too (history from the previous call, zeros at the start).
 */

#ifndef WIDEBAND_PFB_FIR_CL
#define WIDEBAND_PFB_FIR_CL

#include "samples.cl"

/* Point e of the FFT input of frame f; rotation0 = (q0 + 2)*D mod M for the
 * call's first frame q0. */
static inline float2 pfb_fft_input(__global const SAMPLE_T* window,
                                   IDX last_of_first,
                                   uint rotation0,
                                   uint f,
                                   uint e,
                                   __global const float* taps)
{
    const uint rotation = (rotation0 + (f % CHANNELS) * DECIMATION) % CHANNELS;
    const uint p = (rotation + CHANNELS - e) % CHANNELS;
    const IDX newest = last_of_first + (IDX)f * DECIMATION - p;
    float2 sum = (float2)(0.0f, 0.0f);
#pragma unroll
    for (uint m = 0; m < TAPS_PER_BRANCH; ++m)
        sum += taps[m * CHANNELS + p] * load_sample(window, newest - (IDX)m * CHANNELS);
    return sum;
}

/*
 * For channel counts the on-chip FFT cannot hold: the FFT inputs of every
 * frame, frame after frame (frame f at fft_input[f*M ...]). One work-item per
 * point, points of consecutive frames on consecutive work-items. Reads each
 * sample K times (from the cache); pfb_fir_sliding below reads it r times.
 */
__kernel void pfb_fir_frames(__global const SAMPLE_T* window,
                             IDX last_of_first,
                             uint rotation0,
                             uint frames,
                             __global const float* taps,
                             __global float2* fft_input)
{
    const IDX n = get_global_id(0);
    const uint f = n / CHANNELS, e = n % CHANNELS;
    if (f < frames)
        fft_input[n] = pfb_fft_input(window, last_of_first, rotation0, f, e, taps);
}

#ifdef OVERSAMPLING
/*
 * The same FFT inputs for M = r*D (OVERSAMPLING = r): work-item (p, run)
 * filters branch p over run_frames consecutive frames. Frame f's tap m reads
 * the sample that was the branch's newest in frame f - m*r, so the branch's
 * last (K-1)*r + 1 newest samples, kept in registers and shifted by one each
 * frame, hold every sample a frame needs: one new sample per frame, and the
 * window is read about once (r times, the r branches a sample is newest in).
 * Adjacent work-items take adjacent branches: adjacent samples in, adjacent
 * points out.
 */
#define BRANCH_HISTORY ((TAPS_PER_BRANCH - 1) * OVERSAMPLING + 1)

__kernel void pfb_fir_sliding(__global const SAMPLE_T* window,
                              IDX last_of_first,
                              uint rotation0,
                              uint frames,
                              __global const float* taps,
                              __global float2* fft_input,
                              uint run_frames)
{
    const uint p = get_global_id(0);
    const uint first = get_global_id(1) * run_frames;
    if (p >= CHANNELS || first >= frames)
        return;
    const uint end = min(first + run_frames, frames);
    float h[TAPS_PER_BRANCH];
#pragma unroll
    for (uint m = 0; m < TAPS_PER_BRANCH; ++m)
        h[m] = taps[m * CHANNELS + p];
    // newest[i]: the branch's newest sample of the frame i frames back
    const IDX newest_of_first = last_of_first + (IDX)first * DECIMATION - p;
    float2 newest[BRANCH_HISTORY];
#pragma unroll
    for (uint i = 1; i < BRANCH_HISTORY; ++i)
        newest[i] = load_sample(window, newest_of_first - (IDX)i * DECIMATION);
    for (uint f = first; f < end; ++f) {
        newest[0] = load_sample(window, newest_of_first + (IDX)(f - first) * DECIMATION);
        float2 sum = (float2)(0.0f, 0.0f);
#pragma unroll
        for (uint m = 0; m < TAPS_PER_BRANCH; ++m)
            sum += h[m] * newest[m * OVERSAMPLING];
        const uint rotation = (rotation0 + (f % CHANNELS) * DECIMATION) % CHANNELS;
        fft_input[(IDX)f * CHANNELS + (rotation + CHANNELS - p) % CHANNELS] = sum;
#pragma unroll
        for (uint i = BRANCH_HISTORY - 1; i > 0; --i)
            newest[i] = newest[i - 1];
    }
}
#endif

/*
 * The mapped channels out of all M (frame-major spectra: frame f's M bins at
 * spectra[f * M ...]), into the output layout from out_offset on:
 * CHANNEL_MAJOR out[slot * out_stride + f], else frame-major out[f * slots + slot].
 * Channel-major output is a transpose: a work-group of GATHER_TILE x
 * GATHER_ROWS work-items moves a tile of GATHER_TILE frames x GATHER_TILE
 * slots through local memory, so that both the reads (adjacent bins) and the
 * writes (adjacent frames) are adjacent in memory.
 */
#define GATHER_TILE 32
#define GATHER_ROWS 8

__kernel void pfb_gather_channels(__global const float2* spectra,
                                  uint frames,
                                  __global const uint* channel_of_slot,
                                  uint slots,
                                  __global float2* out,
                                  IDX out_offset,
                                  IDX out_stride)
{
    out += out_offset;
#if CHANNEL_MAJOR
    __local float2 tile[GATHER_TILE][GATHER_TILE + 1];
    const uint x = get_local_id(0), y = get_local_id(1);
    const uint slot0 = get_group_id(0) * GATHER_TILE, frame0 = get_group_id(1) * GATHER_TILE;
    if (slot0 + x < slots) {
        const uint channel = channel_of_slot[slot0 + x];
        for (uint row = y; row < GATHER_TILE; row += GATHER_ROWS)
            if (frame0 + row < frames)
                tile[row][x] = spectra[(IDX)(frame0 + row) * CHANNELS + channel];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (frame0 + x < frames)
        for (uint row = y; row < GATHER_TILE; row += GATHER_ROWS)
            if (slot0 + row < slots)
                out[(IDX)(slot0 + row) * out_stride + frame0 + x] = tile[x][row];
#else
    const uint slot = get_global_id(0), f = get_global_id(1);
    if (slot < slots && f < frames)
        out[(IDX)f * slots + slot] = spectra[(IDX)f * CHANNELS + channel_of_slot[slot]];
#endif
}

#endif /* WIDEBAND_PFB_FIR_CL */
