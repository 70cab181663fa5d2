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
pfb_channelize(__global const float2* window,
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
 * sample. A lane of FFT_T work-items computes a run of lane_frames consecutive
 * frames; each work-item keeps the last HISTORY = (K - 1) r + 1 samples of its
 * BRANCHES branches (p = q, q + FFT_T, ...) in registers and reads one new
 * sample per branch and frame, so the input is read once per lane (plus
 * HISTORY - 1 frames of warm-up at the start of a run) instead of K times as
 * pfb_channelize reads it. A frame's next samples are loaded before its FFT
 * runs, which hides their latency.
 *
 * The branch outputs go to the lane's tile at their rotated FFT positions, the
 * FFT runs on chip and its last stage writes into a staging area of
 * STAGED_FRAMES frames per lane, which the lane writes out together: in
 * channel-major output a channel's consecutive frames are adjacent, so each
 * store covers whole memory sectors. Only mapped channels are written
 * (channel_of_slot: the channel each output slot shows).
 *
 * Build options: those of fft_stages.cl with FFT_L = CHANNELS, FFT_T =
 * CHANNELS / BRANCHES, FFT_G lanes per work-group and work-items of a lane
 * adjacent; those of pfb_fir.cl; BRANCHES, HISTORY, OVERSAMPLING (r),
 * STAGED_FRAMES and TAPS_IN_REGISTERS (0: each frame reads its taps from memory,
 * for lengths whose history leaves no registers for them).
 */
#define STAGED_STRIDE (CHANNELS + 1) /* odd rows: a channel's frames in different banks */

__kernel __attribute__((reqd_work_group_size(FFT_T* FFT_G, 1, 1))) void
pfb_channelize_sliding(__global const float2* window,
                       IDX last_of_first,
                       uint rotation0,
                       uint frames,
                       uint lane_frames,
                       __global const float* taps,
                       __global const uint* channel_of_slot,
                       uint slots,
                       __global float2* out,
                       IDX out_offset,
                       IDX out_stride,
                       TWIDDLE_SPACE const float2* stage_twiddles)
{
    __local float2 tiles[FFT_G * TILE_STRIDE];
    __local float2 staging[FFT_G * STAGED_FRAMES * STAGED_STRIDE];
    const uint lid = get_local_id(0);
    const uint q = lid % FFT_T, g = lid / FFT_T;
    __local float2* tile = tiles + g * TILE_STRIDE;
    __local float2* staged = staging + g * STAGED_FRAMES * STAGED_STRIDE;
    float2 v[MAX_REGS];
    out += out_offset;

    /* This lane's frames are [lane_first, lane_end); a lane past the call's
     * frames has none but keeps to the group's barriers. */
    const uint lane_first = (get_group_id(0) * FFT_G + g) * lane_frames;
    const uint lane_end = min(lane_first + lane_frames, frames);

    float2 history[BRANCHES][HISTORY];
    float2 incoming[BRANCHES] = { (float2)(0.0f, 0.0f) };
    IDX next_sample[BRANCHES];
#if TAPS_IN_REGISTERS
    float branch_taps[BRANCHES][TAPS_PER_BRANCH];
#endif
#pragma unroll
    for (uint i = 0; i < BRANCHES; ++i) {
        const uint p = q + i * FFT_T;
        /* tap 0 of branch p in frame lane_first - (HISTORY - 1), the oldest
         * sample the run's first frame needs: at index >= M - 1 - p >= 0 */
        next_sample[i] =
            last_of_first + (IDX)lane_first * DECIMATION - (HISTORY - 1) * DECIMATION - p;
#if TAPS_IN_REGISTERS
#pragma unroll
        for (uint m = 0; m < TAPS_PER_BRANCH; ++m)
            branch_taps[i][m] = taps[m * CHANNELS + p];
#endif
    }

    /* Fills the history with the HISTORY - 1 samples before the first frame's,
     * then fetches the first frame's. */
    const bool lane_active = lane_first < lane_end;
    for (uint j = 0; j < HISTORY; ++j) {
#pragma unroll
        for (uint i = 0; i < BRANCHES; ++i) {
#pragma unroll
            for (uint s = 0; s + 1 < HISTORY; ++s)
                history[i][s] = history[i][s + 1];
            history[i][HISTORY - 1] = incoming[i];
            incoming[i] = lane_active ? window[next_sample[i]] : (float2)(0.0f, 0.0f);
            next_sample[i] += DECIMATION;
        }
    }

    uint rotation = (rotation0 + (lane_first % CHANNELS) * DECIMATION) % CHANNELS;
    /* lane_frames is a whole number of staging rounds */
    for (uint first_staged = lane_first; first_staged < lane_first + lane_frames;
         first_staged += STAGED_FRAMES) {
        for (uint staged_frame = 0; staged_frame < STAGED_FRAMES; ++staged_frame) {
            const uint tr = first_staged + staged_frame;
            const bool active = tr < lane_end;
#pragma unroll
            for (uint i = 0; i < BRANCHES; ++i) {
                const uint p = q + i * FFT_T;
#pragma unroll
                for (uint s = 0; s + 1 < HISTORY; ++s)
                    history[i][s] = history[i][s + 1];
                history[i][HISTORY - 1] = incoming[i];
                incoming[i] =
                    tr + 1 < lane_end ? window[next_sample[i]] : (float2)(0.0f, 0.0f);
                next_sample[i] += DECIMATION;

                float2 sum = (float2)(0.0f, 0.0f);
#pragma unroll
                for (uint m = 0; m < TAPS_PER_BRANCH; ++m) {
#if TAPS_IN_REGISTERS
                    const float h = branch_taps[i][m];
#else
                    const float h = taps[m * CHANNELS + p];
#endif
                    sum += h * history[i][HISTORY - 1 - m * OVERSAMPLING];
                }
                tile[LDS_INDEX((rotation + CHANNELS - p) % CHANNELS)] = sum;
            }
            rotation = (rotation + DECIMATION) % CHANNELS;
            barrier(CLK_LOCAL_MEM_FENCE);

/* the first stage reads the tile the branch filters wrote: no LOAD_POINT */
#define LOAD_POINT(t, p) ((float2)(0.0f, 0.0f))
#define STORE_POINT(t, s, x) staged[staged_frame * STAGED_STRIDE + (s)] = (x)
            RUN_FFT(-1, 0, 1)
#undef LOAD_POINT
#undef STORE_POINT
        }

        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint n = q; n < STAGED_FRAMES * slots; n += FFT_T) {
#if CHANNEL_MAJOR
            const uint slot = n / STAGED_FRAMES, k = n % STAGED_FRAMES;
            const IDX at = (IDX)slot * out_stride + first_staged + k;
#else
            const uint k = n / slots, slot = n % slots;
            const IDX at = (IDX)(first_staged + k) * slots + slot;
#endif
            if (first_staged + k < lane_end)
                out[at] = staged[k * STAGED_STRIDE + channel_of_slot[slot]];
        }
    }
}

#endif /* HISTORY */
