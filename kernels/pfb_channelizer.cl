/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The polyphase filterbank channelizer in one launch: each work-group takes
 * FFT_G consecutive output frames; its first FFT stage computes its registers
 * as branch-filter outputs straight from the input window (pfb_fir.cl: the
 * samples and taps are read once per use, adjacent work-items on adjacent
 * branches, so the reads are coalesced), the M-point FFT runs on chip
 * (fft_stages.cl), and only the mapped channels are written, from out_offset on:
 *
 *   CHANNEL_MAJOR  out[slot * out_stride + f]   (one row per output stream)
 *   otherwise      out[f * slots + slot]        (one vector per frame)
 *
 * first_slot[c] is the first output slot of channel c (-1: not mapped) and
 * next_slot[s] the next slot showing the same channel (-1: none), so a channel
 * may appear in the map several times.
 * Build options: those of fft_stages.cl with FFT_L = CHANNELS, FFT_G,
 * THREAD_TRANSFORM_FASTEST, LOAD_DIRECT, STORE_DIRECT, STORE_TRANSFORM_FASTEST,
 * and those of pfb_fir.cl.
 */

#include "fft_stages.cl"
#include "pfb_fir.cl"

#ifndef HISTORY /* the kernel that reads each frame's samples from the window */

static inline void pfb_store_channel(__global float2* out,
                                     IDX out_stride,
                                     uint slots,
                                     __global const int* first_slot,
                                     __global const int* next_slot,
                                     uint f,
                                     uint c,
                                     float2 x)
{
    for (int slot = first_slot[c]; slot >= 0; slot = next_slot[slot]) {
#if CHANNEL_MAJOR
        out[(IDX)slot * out_stride + f] = x;
#else
        out[(IDX)f * slots + slot] = x;
#endif
    }
}

__kernel __attribute__((reqd_work_group_size(FFT_T* FFT_G, 1, 1))) void
pfb_channelize(__global const SAMPLE_T* window,
               IDX last_of_first,
               uint rotation0,
               uint frames,
               __global const float* taps,
               __global const int* first_slot,
               __global const int* next_slot,
               uint slots,
               __global float2* out,
               IDX out_offset,
               IDX out_stride,
               TWIDDLE_SPACE const float2* stage_twiddles)
{
    out += out_offset;
    TILE_SETUP(frames)
#define LOAD_POINT(t, p) pfb_fft_input(window, last_of_first, rotation0, t, p, taps)
#define STORE_POINT(t, s, x) \
    pfb_store_channel(out, out_stride, slots, first_slot, next_slot, t, s, x)

#if !LOAD_DIRECT
    LOAD_TILE(frames, 0)
#endif
    RUN_FFT(-1, LOAD_DIRECT, STORE_DIRECT)
#if !STORE_DIRECT
    STORE_TILE(frames, STORE_TRANSFORM_FASTEST)
#endif
}

#else /* HISTORY: the sliding-history kernel */

/*
 * The channelizer with a sliding history, for M a multiple of D (an integer
 * oversampling r = M / D). Frame f's tap m takes the sample branch p took as
 * tap 0 in frame f - m*r, so consecutive frames of a branch share all but one
 * sample. A work-group computes a run of run_frames consecutive frames, FFT_G
 * at a time (a step). Its work-item w keeps, for each of its BRANCHES branches
 * p = w, w + WORK_ITEMS, ..., the last HISTORY - 1 samples before the step
 * (HISTORY = (K - 1) r + 1) in registers, takes the step's FFT_G new ones
 * (loaded during the step before, which hides their latency) and computes the
 * branch's output for each of the step's frames: every input sample is read
 * once per run (plus HISTORY - 1 frames of warm-up at its start) instead of K
 * times as pfb_channelize reads it.
 *
 * The branch outputs go to the tile at their rotated FFT positions, the step's
 * FFT_G FFTs run on chip (fft_stages.cl) and leave their spectra in the tile,
 * from which the mapped channels go out: in channel-major output a channel's
 * FFT_G frames of the step are adjacent.
 *
 * Build options: those of fft_stages.cl with FFT_L = CHANNELS, FFT_G frames
 * per step and THREAD_TRANSFORM_FASTEST = 0; those of pfb_fir.cl; BRANCHES,
 * HISTORY, OVERSAMPLING (r) and TAPS_IN_REGISTERS (0: each step reads its taps
 * from memory, for lengths whose history leaves no registers for them).
 */

#define WORK_ITEMS (FFT_T * FFT_G)
#define STEP_SAMPLES (HISTORY - 1 + FFT_G) /* of a branch, for one step */

__kernel __attribute__((reqd_work_group_size(WORK_ITEMS, 1, 1))) void
pfb_channelize_sliding(__global const SAMPLE_T* window,
                       IDX last_of_first,
                       uint rotation0,
                       uint frames,
                       uint run_frames,
                       __global const float* taps,
                       __global const uint* channel_of_slot,
                       uint slots,
                       __global float2* out,
                       IDX out_offset,
                       IDX out_stride,
                       TWIDDLE_SPACE const float2* stage_twiddles)
{
    TILE_DECLARE
    out += out_offset;
    /* this group's frames: [run_first, run_end) */
    const uint run_first = get_group_id(0) * run_frames;
    const uint run_end = min(run_first + run_frames, frames);

    /* samples[i][j]: branch i's tap-0 sample of frame step_first - (HISTORY - 1) + j */
    float2 samples[BRANCHES][STEP_SAMPLES];
    float2 incoming[BRANCHES][FFT_G];
    IDX next_sample[BRANCHES];
#if TAPS_IN_REGISTERS
    float branch_taps[BRANCHES][TAPS_PER_BRANCH];
#endif
#pragma unroll
    for (uint i = 0; i < BRANCHES; ++i) {
        const uint p = lid + i * WORK_ITEMS;
        /* frame run_first - (HISTORY - 1), the oldest the run needs: its tap-0
         * sample of branch p is at index >= M - 1 - p >= 0 */
        IDX at = last_of_first + (IDX)run_first * DECIMATION - (HISTORY - 1) * DECIMATION - p;
#pragma unroll
        for (uint j = 0; j + 1 < HISTORY; ++j, at += DECIMATION)
            samples[i][FFT_G + j] = load_sample(window, at);
#pragma unroll
        for (uint k = 0; k < FFT_G; ++k, at += DECIMATION)
            incoming[i][k] =
                run_first + k < run_end ? load_sample(window, at) : (float2)(0.0f, 0.0f);
        next_sample[i] = at;
#if TAPS_IN_REGISTERS
#pragma unroll
        for (uint m = 0; m < TAPS_PER_BRANCH; ++m)
            branch_taps[i][m] = taps[m * CHANNELS + p];
#endif
    }

    uint rotation = (rotation0 + (run_first % CHANNELS) * DECIMATION) % CHANNELS;
    for (uint step_first = run_first; step_first < run_end; step_first += FFT_G) {
#pragma unroll
        for (uint i = 0; i < BRANCHES; ++i) {
            const uint p = lid + i * WORK_ITEMS;
            /* slide by a step, take its samples and fetch the next step's */
#pragma unroll
            for (uint j = 0; j + 1 < HISTORY; ++j)
                samples[i][j] = samples[i][j + FFT_G];
#pragma unroll
            for (uint k = 0; k < FFT_G; ++k) {
                samples[i][HISTORY - 1 + k] = incoming[i][k];
                incoming[i][k] = step_first + FFT_G + k < run_end
                                     ? load_sample(window, next_sample[i])
                                     : (float2)(0.0f, 0.0f);
                next_sample[i] += DECIMATION;
            }
            uint position = rotation + CHANNELS - p; /* frame k's: + k D, mod M */
#pragma unroll
            for (uint k = 0; k < FFT_G; ++k, position += DECIMATION) {
                float2 sum = (float2)(0.0f, 0.0f);
#pragma unroll
                for (uint m = 0; m < TAPS_PER_BRANCH; ++m) {
#if TAPS_IN_REGISTERS
                    const float h = branch_taps[i][m];
#else
                    const float h = taps[m * CHANNELS + p];
#endif
                    sum += h * samples[i][HISTORY - 1 + k - m * OVERSAMPLING];
                }
                tiles[k * TILE_STRIDE + LDS_INDEX(position % CHANNELS)] = sum;
            }
        }
        rotation = (rotation + FFT_G * DECIMATION) % CHANNELS;
        barrier(CLK_LOCAL_MEM_FENCE);

        TILE_AT(step_first, run_end)
/* the FFTs start and end in the tile: no LOAD_POINT or STORE_POINT */
#define LOAD_POINT(t, p) ((float2)(0.0f, 0.0f))
#define STORE_POINT(t, s, x)
        RUN_FFT(-1, 0, 0)
#undef LOAD_POINT
#undef STORE_POINT

        for (uint n = lid; n < FFT_G * slots; n += WORK_ITEMS) {
#if CHANNEL_MAJOR
            const uint slot = n / FFT_G, k = n % FFT_G;
            const IDX at = (IDX)slot * out_stride + step_first + k;
#else
            const uint k = n / slots, slot = n % slots;
            const IDX at = (IDX)(step_first + k) * slots + slot;
#endif
            if (step_first + k < run_end)
                out[at] = tiles[k * TILE_STRIDE + LDS_INDEX(channel_of_slot[slot])];
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* the next step's branch outputs overwrite the tile */
    }
}

#endif /* HISTORY */
