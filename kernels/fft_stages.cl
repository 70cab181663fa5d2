/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The on-chip FFT: one transform of FFT_L points held in local memory by FFT_T
 * work-items, computed in STAGES Stockham stages. Shared by every kernel that
 * runs an FFT inside a work-group (the FFT passes, the channelizer, the fast
 * convolution).
 *
 * Stage s has radix R = RADIX_s and span NS = SPAN_s (the product of the radices
 * before it). It does FFT_L/R butterflies; butterfly b (k = b mod NS) reads
 *
 *     v[r] = x[b + r*FFT_L/R] * W(r*k, NS*R),        W(a, b) = exp(dir*2*pi*i*a/b)
 *
 * (register preloading: all R values first, twiddle fused), runs the DFT-R
 * codelet in registers and writes
 *
 *     x[(b div NS)*NS*R + k + r*NS] = v[r]
 *
 * so that after the last stage the result is in natural order: the Stockham
 * auto-sort, with no digit-reversal pass. Work-item q handles butterflies
 * q, q + FFT_T, ... of each stage; all loads of a stage finish (barrier) before
 * any store, so one local buffer suffices.
 *
 * Build options (set by the planner):
 *   FFT_L, FFT_T                 points and work-items per transform
 *   STAGES, RADIX_s, SPAN_s      the radices and spans, s < STAGES
 *   MAX_REGS                     max over stages of ceil(FFT_L/R/FFT_T)*R
 *   LDS_PAD_SHIFT                one padding slot every 2^LDS_PAD_SHIFT points
 *                                (0: none), against local-memory bank conflicts
 *   TWIDDLE_SPACE                __constant or __global: where the table of
 *                                W(t, FFT_L), t < FFT_L, lives
 */

#ifndef WIDEBAND_FFT_STAGES_CL
#define WIDEBAND_FFT_STAGES_CL

#include "fft_codelets.cl"

#if LDS_PAD_SHIFT > 0
#define LDS_INDEX(p) ((p) + ((p) >> LDS_PAD_SHIFT))
#else
#define LDS_INDEX(p) (p)
#endif
/* local-memory slots one transform occupies */
#define TILE_STRIDE (LDS_INDEX(FFT_L - 1) + 1)

/* butterflies per work-item in a stage of radix R, and whether the last round is partial */
#define BUTTERFLY_ROUNDS(R) ((FFT_L / (R) + FFT_T - 1) / FFT_T)
#define ROUND_IS_FULL(R) ((FFT_L / (R)) % FFT_T == 0)

/* W(t, FFT_L) in the transform's direction, from the table of forward twiddles */
inline float2 stage_twiddle(TWIDDLE_SPACE const float2* twiddles, uint t, const int dir)
{
    const float2 w = twiddles[t];
    return dir < 0 ? w : (float2)(w.x, -w.y);
}

/* The inputs of work-item q's butterflies of a radix-R stage, from the tile. */
inline void stage_load(__local const float2* tile, float2* v, const int R, uint q)
{
#pragma unroll
    for (int m = 0; m < BUTTERFLY_ROUNDS(R); ++m) {
        const uint b = q + m * FFT_T;
        if (ROUND_IS_FULL(R) || b < FFT_L / R) {
#pragma unroll
            for (int r = 0; r < R; ++r)
                v[m * R + r] = tile[LDS_INDEX(b + r * (FFT_L / R))];
        }
    }
}

/* Twiddles and DFT-R of work-item q's butterflies, in registers. */
inline void stage_compute(
    float2* v, const int R, const int NS, const int dir, uint q, TWIDDLE_SPACE const float2* twiddles)
{
#pragma unroll
    for (int m = 0; m < BUTTERFLY_ROUNDS(R); ++m) {
        const uint b = q + m * FFT_T;
        if (ROUND_IS_FULL(R) || b < FFT_L / R) {
            if (NS > 1) {
                const uint k = b % NS;
#pragma unroll
                for (int r = 1; r < R; ++r)
                    v[m * R + r] = cmul(v[m * R + r],
                                        stage_twiddle(twiddles, r * k * (FFT_L / (NS * R)), dir));
            }
            dft(v + m * R, R, dir);
        }
    }
}

/* The outputs of work-item q's butterflies, to their Stockham positions in the tile. */
inline void stage_store(__local float2* tile, const float2* v, const int R, const int NS, uint q)
{
#pragma unroll
    for (int m = 0; m < BUTTERFLY_ROUNDS(R); ++m) {
        const uint b = q + m * FFT_T;
        if (ROUND_IS_FULL(R) || b < FFT_L / R) {
            const uint base = (b / NS) * NS * R + b % NS;
#pragma unroll
            for (int r = 0; r < R; ++r)
                tile[LDS_INDEX(base + r * NS)] = v[m * R + r];
        }
    }
}

/* Unused stage slots: radix 1 and span 1, never run (STAGES bounds them). */
#ifndef RADIX_0
#define RADIX_0 1
#endif
#ifndef RADIX_1
#define RADIX_1 1
#endif
#ifndef RADIX_2
#define RADIX_2 1
#endif
#ifndef RADIX_3
#define RADIX_3 1
#endif
#ifndef RADIX_4
#define RADIX_4 1
#endif
#ifndef RADIX_5
#define RADIX_5 1
#endif
#ifndef RADIX_6
#define RADIX_6 1
#endif
#ifndef RADIX_7
#define RADIX_7 1
#endif
#ifndef RADIX_8
#define RADIX_8 1
#endif
#ifndef RADIX_9
#define RADIX_9 1
#endif
#ifndef RADIX_10
#define RADIX_10 1
#endif
#ifndef RADIX_11
#define RADIX_11 1
#endif
#ifndef RADIX_12
#define RADIX_12 1
#endif
#ifndef SPAN_0
#define SPAN_0 1
#endif
#ifndef SPAN_1
#define SPAN_1 1
#endif
#ifndef SPAN_2
#define SPAN_2 1
#endif
#ifndef SPAN_3
#define SPAN_3 1
#endif
#ifndef SPAN_4
#define SPAN_4 1
#endif
#ifndef SPAN_5
#define SPAN_5 1
#endif
#ifndef SPAN_6
#define SPAN_6 1
#endif
#ifndef SPAN_7
#define SPAN_7 1
#endif
#ifndef SPAN_8
#define SPAN_8 1
#endif
#ifndef SPAN_9
#define SPAN_9 1
#endif
#ifndef SPAN_10
#define SPAN_10 1
#endif
#ifndef SPAN_11
#define SPAN_11 1
#endif
#ifndef SPAN_12
#define SPAN_12 1
#endif
#define MAX_STAGES 13

#endif /* WIDEBAND_FFT_STAGES_CL */
