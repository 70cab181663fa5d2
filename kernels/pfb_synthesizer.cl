/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The polyphase filterbank synthesizer (GNU Radio's pfb_synthesizer_ccf) in
 * two passes around a batched inverse FFT of P points (P = M, or 2M with
 * twox): pfb_synth_scatter builds each frame's FFT input from its N channel
 * samples, pfb_synth_fir filters the transformed frames y into the output.
 *
 * The in-tree block feeds y_n[i] to branch filter i (taps[i + j M], j < K)
 * without twox. With twox it feeds y_n[s M + i] to filter i, whose taps are
 * taps[i + j M] at odd j, and y_n[(1 - s) M + i] to filter M + i, the even j,
 * s = n mod 2, and sums both. Either way output i of frame n is
 *
 *   out[n M + i] = sum_{j<K} taps[i + j M] * y_{n-j}[o_n + i],
 *
 * o_n = 0 without twox, else M for even n and 0 for odd n (a frame n - j with
 * odd j has the other parity, so filter i's input at its odd taps is the same
 * half of y as filter M + i's at its even taps).
 *
 * The scatter takes every size as an argument (one program for every engine),
 * the filters are built for theirs.
 *
 * Built with HISTORY (below), the same in one pass, pfb_synthesize_sliding.
 */

#ifndef HISTORY /* the two passes around the batched inverse FFT */

/*
 * FFT input point b of frame g: the sample of the input mapped to bin b
 * (input_of_bin[b], -1: none, zero), frame g's samples being window[first +
 * g N ...]. One work-item per point.
 */
__kernel void pfb_synth_scatter(__global const float2* window,
                                uint first,
                                uint inputs,
                                uint points,
                                uint frames,
                                __global const int* input_of_bin,
                                __global float2* fft_input)
{
    const uint b = get_global_id(0), g = get_global_id(1);
    if (b >= points || g >= frames)
        return;
    const int i = input_of_bin[b];
    fft_input[g * points + b] =
        i >= 0 ? window[first + g * inputs + (uint)i] : (float2)(0.0f, 0.0f);
}

#ifdef TAPS_PER_BRANCH
/*
 * Output i of frame f of the call, from the transformed frames spectra[g P
 * ...], g = 0 .. frames + K - 2, of which frame f's is g = f + K - 1 (the
 * K - 1 before it being the history). first_parity is the stream frame
 * number of frame 0, mod 2. taps holds the prototype zero padded to K M.
 * Work-item (i, run) computes output i of run_frames consecutive frames and
 * keeps the last K values y[i] (and, with TWOX, y[M + i]) in registers,
 * shifted by one each frame, so that each transformed value is read once per
 * run (plus K - 1 frames of warm-up) instead of K times. Adjacent work-items
 * take adjacent outputs. Build options: CHANNELS (M), POINTS (P),
 * TAPS_PER_BRANCH (K), TWOX.
 */
__kernel void pfb_synth_fir(__global const float2* spectra,
                            uint frames,
                            uint first_parity,
                            __global const float* taps,
                            __global float2* out,
                            uint out_offset,
                            uint run_frames)
{
    const uint i = get_global_id(0);
    const uint first = get_global_id(1) * run_frames;
    if (i >= CHANNELS || first >= frames)
        return;
    const uint end = min(first + run_frames, frames);
    float h[TAPS_PER_BRANCH];
#pragma unroll
    for (uint j = 0; j < TAPS_PER_BRANCH; ++j)
        h[j] = taps[i + j * CHANNELS];
    /* [j]: the value of frame f - j; upper: y[M + i], used by even stream frames */
    float2 lower[TAPS_PER_BRANCH];
#if TWOX
    float2 upper[TAPS_PER_BRANCH];
#endif
#pragma unroll
    for (uint j = 1; j < TAPS_PER_BRANCH; ++j) {
        const uint g = first + TAPS_PER_BRANCH - 1 - j;
        lower[j] = spectra[g * POINTS + i];
#if TWOX
        upper[j] = spectra[g * POINTS + CHANNELS + i];
#endif
    }
    for (uint f = first; f < end; ++f) {
        const uint g = f + TAPS_PER_BRANCH - 1;
        lower[0] = spectra[g * POINTS + i];
#if TWOX
        upper[0] = spectra[g * POINTS + CHANNELS + i];
        const bool use_upper = ((first_parity + f) & 1) == 0;
#endif
        float2 sum = (float2)(0.0f, 0.0f);
#pragma unroll
        for (uint j = 0; j < TAPS_PER_BRANCH; ++j)
#if TWOX
            sum += h[j] * (use_upper ? upper[j] : lower[j]);
#else
            sum += h[j] * lower[j];
#endif
        out[out_offset + f * CHANNELS + i] = sum;
#pragma unroll
        for (uint j = TAPS_PER_BRANCH - 1; j > 0; --j) {
            lower[j] = lower[j - 1];
#if TWOX
            upper[j] = upper[j - 1];
#endif
        }
    }
}
#endif /* TAPS_PER_BRANCH */

#else /* HISTORY: the one-pass kernel */

#include "fft_stages.cl"

/*
 * The synthesizer in one launch. A work-group computes a run of run_frames
 * consecutive frames of the call, FFT_G at a time (a step): the step's frames
 * go into the tile through input_of_bin, their P-point inverse FFTs run on
 * chip (fft_stages.cl, FFT_L = P), and work-item w, for each of its BRANCHES
 * outputs i = w, w + WORK_ITEMS, ... (i < CHANNELS = M), keeps the last
 * HISTORY - 1 = K - 1 values y[i] (and, with TWOX, y[M + i]) of the frames
 * before the step in registers, takes the step's from the tile and writes
 * the step's outputs (the formula at the top): every input sample is read
 * once per run, plus the K - 1 frames before it (the window's history) as
 * warm-up, where the two passes write and read back every transformed frame.
 *
 * Window frame g (the samples at first + g N) is the call's frame g - (K - 1).
 * Build options: those of fft_stages.cl with FFT_L = P, FFT_G frames per step
 * and THREAD_TRANSFORM_FASTEST = 0; CHANNELS, BRANCHES, HISTORY = K, TWOX and
 * TAPS_IN_REGISTERS (0: each step reads its taps from memory).
 */

#define WORK_ITEMS (FFT_T * FFT_G)
#define STEP_VALUES (HISTORY - 1 + FFT_G) /* of a branch, for one step */
#define HALVES (TWOX ? 2 : 1)

__kernel __attribute__((reqd_work_group_size(WORK_ITEMS, 1, 1))) void
pfb_synthesize_sliding(__global const float2* window,
                       uint first,
                       uint inputs,
                       uint frames,
                       uint run_frames,
                       uint first_parity,
                       __global const int* input_of_bin,
                       __global const float* taps,
                       __global float2* out,
                       uint out_offset,
                       TWIDDLE_SPACE const float2* stage_twiddles)
{
    TILE_DECLARE
    out += out_offset;
    /* this group's call frames [run_first, run_end), window frames from
     * run_first on: the K - 1 before the run's first, then the run's */
    const uint run_first = get_group_id(0) * run_frames;
    const uint run_end = min(run_first + run_frames, frames);
    const uint window_end = run_end + HISTORY - 1;

    /* values[i][h][j]: half h of branch i's spectrum value of window frame
     * step_first - (HISTORY - 1) + j */
    float2 values[BRANCHES][HALVES][STEP_VALUES];
#pragma unroll
    for (uint i = 0; i < BRANCHES; ++i)
#pragma unroll
        for (uint h = 0; h < HALVES; ++h)
#pragma unroll
            for (uint j = 0; j < STEP_VALUES; ++j)
                values[i][h][j] = (float2)(0.0f, 0.0f);
#if TAPS_IN_REGISTERS
    float branch_taps[BRANCHES][HISTORY];
#pragma unroll
    for (uint i = 0; i < BRANCHES; ++i)
#pragma unroll
        for (uint j = 0; j < HISTORY; ++j)
            branch_taps[i][j] = taps[lid + i * WORK_ITEMS + j * CHANNELS];
#endif

    for (uint step_first = run_first; step_first < window_end; step_first += FFT_G) {
        for (uint n = lid; n < FFT_G * FFT_L; n += WORK_ITEMS) {
            const uint k = n / FFT_L, b = n % FFT_L;
            const int source = input_of_bin[b];
            tiles[k * TILE_STRIDE + LDS_INDEX(b)] =
                step_first + k < window_end && source >= 0
                    ? window[first + (step_first + k) * inputs + (uint)source]
                    : (float2)(0.0f, 0.0f);
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        TILE_AT(step_first, window_end)
/* the FFTs start and end in the tile: no LOAD_POINT or STORE_POINT */
#define LOAD_POINT(t, p) ((float2)(0.0f, 0.0f))
#define STORE_POINT(t, s, x)
        RUN_FFT(1, 0, 0)
#undef LOAD_POINT
#undef STORE_POINT

#pragma unroll
        for (uint i = 0; i < BRANCHES; ++i) {
            const uint branch = lid + i * WORK_ITEMS;
#pragma unroll
            for (uint h = 0; h < HALVES; ++h) {
                /* slide by a step and take the step's values from the tile */
#pragma unroll
                for (uint j = 0; j + 1 < HISTORY; ++j)
                    values[i][h][j] = values[i][h][j + FFT_G];
#pragma unroll
                for (uint k = 0; k < FFT_G; ++k)
                    values[i][h][HISTORY - 1 + k] =
                        tiles[k * TILE_STRIDE + LDS_INDEX(h * CHANNELS + branch)];
            }
#pragma unroll
            for (uint k = 0; k < FFT_G; ++k) {
                /* window frame step_first + k is call frame f */
                const uint f = step_first + k - (HISTORY - 1);
                if (step_first + k < HISTORY - 1 + run_first || step_first + k >= window_end)
                    continue;
                /* TWOX: the upper half for even stream frames */
                const uint h = TWOX && ((first_parity + f) & 1) == 0 ? 1 : 0;
                float2 sum = (float2)(0.0f, 0.0f);
#pragma unroll
                for (uint j = 0; j < HISTORY; ++j) {
#if TAPS_IN_REGISTERS
                    const float tap = branch_taps[i][j];
#else
                    const float tap = taps[branch + j * CHANNELS];
#endif
                    sum += tap * (h ? values[i][HALVES - 1][HISTORY - 1 + k - j]
                                    : values[i][0][HISTORY - 1 + k - j]);
                }
                out[f * CHANNELS + branch] = sum;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* the next step's frames overwrite the tile */
    }
}

#endif /* HISTORY */
