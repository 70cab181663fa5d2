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
