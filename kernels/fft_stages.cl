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
 * auto-sort, with no digit-reversal pass. The stage functions take the
 * transform's length (FFT_L, or a folded inverse's FOLDED_L below, which
 * divides it: W(r*k, NS*R) is entry r*k*FFT_L/(NS*R) of the one table).
 * Work-item q handles butterflies q, q + FFT_T, ... of each stage; all loads
 * of a stage finish (barrier) before any store, so one local buffer suffices.
 *
 * Build options (set by the planner):
 *   FFT_L, FFT_T                 points and work-items per transform
 *   STAGES, RADIX_s, SPAN_s      the radices and spans, s < STAGES
 *   MAX_REGS                     max over stages of ceil(FFT_L/R/FFT_T)*R
 *   LDS_PAD_SHIFT                one padding slot every 2^LDS_PAD_SHIFT points
 *                                (0: none), against local-memory bank conflicts
 *   TILE_STRIDE                  local-memory slots between the transforms of a
 *                                group (>= the padded length; chosen so that the
 *                                transforms of one warp start in different banks)
 *   TWIDDLE_SPACE                __constant or __global: where the table of
 *                                W(t, FFT_L), t < FFT_L, lives
 *   TWIDDLE_POWERS               1: a butterfly of radix > 4 reads W(k) from the
 *                                table and forms W(r*k) as its powers (one read
 *                                instead of R - 1, a few ulp less accurate)
 *   EXCHANGE_PARTS               0: the tile holds the transform (above); P > 0:
 *                                the transform is register-resident (below)
 *
 * Register-resident transforms (EXCHANGE_PARTS = P > 0), for a transform longer
 * than local memory holds as FFT_L float2: its points stay in the work-items'
 * registers from the first stage's global loads to the last stage's global
 * stores. Only the exchange between two stages goes through local memory, one
 * component (the real parts, then the imaginary ones) and one of P ranges of
 * FFT_L / P positions at a time: a tile of FFT_L / P floats (TILE_STRIDE with
 * padding). Each round stores the component of the outputs whose Stockham
 * position lies in the range, and after a barrier the next stage's inputs load
 * theirs from it. With P = 1 the loads replace the component in place (every
 * store came before the barrier); with P > 1 they collect in a second set of
 * registers until the component's last range is through. One transform per
 * group (FFT_G = 1).
 *   MIRROR_OUTPUTS               (register-resident) the last stage hands each
 *                                output k to STORE_MIRRORED(t, k, x, y) with y
 *                                output (FFT_L - k) mod FFT_L, exchanged through
 *                                the float tile as the stages' outputs are: a
 *                                packed real transform's unpacking
 */

#ifndef WIDEBAND_FFT_STAGES_CL
#define WIDEBAND_FFT_STAGES_CL

#include "fft_codelets.cl"

#ifndef EXCHANGE_PARTS
#define EXCHANGE_PARTS 0
#endif
#ifndef MIRROR_OUTPUTS
#define MIRROR_OUTPUTS 0
#endif

#if LDS_PAD_SHIFT > 0
#define LDS_INDEX(p) ((p) + ((p) >> LDS_PAD_SHIFT))
#else
#define LDS_INDEX(p) (p)
#endif

/* butterflies per work-item in a stage of radix R, and whether the last round is partial */
#define BUTTERFLY_ROUNDS_OF(N, R) (((N) / (R) + FFT_T - 1) / FFT_T)
#define ROUND_IS_FULL_OF(N, R) (((N) / (R)) % FFT_T == 0)
#define BUTTERFLY_ROUNDS(R) BUTTERFLY_ROUNDS_OF(FFT_L, R)
#define ROUND_IS_FULL(R) ROUND_IS_FULL_OF(FFT_L, R)

/* W(t, FFT_L) in the transform's direction, from the table of forward twiddles */
ALWAYS_INLINE float2 stage_twiddle(TWIDDLE_SPACE const float2* twiddles, uint t, const int dir)
{
    const float2 w = twiddles[t];
    return dir < 0 ? w : (float2)(w.x, -w.y);
}

/* The inputs of work-item q's butterflies of a radix-R stage, from the tile. */
ALWAYS_INLINE void stage_load(
    __local const float2* tile, float2* v, const int N, const int R, uint q)
{
#pragma unroll
    for (int m = 0; m < BUTTERFLY_ROUNDS_OF(N, R); ++m) {
        const uint b = q + m * FFT_T;
        if (ROUND_IS_FULL_OF(N, R) || b < N / R) {
#pragma unroll
            for (int r = 0; r < R; ++r)
                v[m * R + r] = tile[LDS_INDEX(b + r * (N / R))];
        }
    }
}

/* Twiddles and DFT-R of work-item q's butterflies, in registers. */
ALWAYS_INLINE void stage_compute(float2* v,
                                 const int N,
                                 const int R,
                                 const int NS,
                                 const int dir,
                                 uint q,
                                 TWIDDLE_SPACE const float2* twiddles)
{
#pragma unroll
    for (int m = 0; m < BUTTERFLY_ROUNDS_OF(N, R); ++m) {
        const uint b = q + m * FFT_T;
        if (ROUND_IS_FULL_OF(N, R) || b < N / R) {
            if (NS > 1 && TWIDDLE_POWERS && R > 4) {
                float2 w[32];
                w[1] = stage_twiddle(twiddles, (b % NS) * (FFT_L / (NS * R)), dir);
#pragma unroll
                for (int r = 2; r < R; ++r) /* at most 2 log2(R) products deep */
                    w[r] = r % 2 == 0 ? cmul(w[r / 2], w[r / 2]) : cmul(w[r - 1], w[1]);
#pragma unroll
                for (int r = 1; r < R; ++r)
                    v[m * R + r] = cmul(v[m * R + r], w[r]);
            } else if (NS > 1) {
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
ALWAYS_INLINE void stage_store(
    __local float2* tile, const float2* v, const int N, const int R, const int NS, uint q)
{
#pragma unroll
    for (int m = 0; m < BUTTERFLY_ROUNDS_OF(N, R); ++m) {
        const uint b = q + m * FFT_T;
        if (ROUND_IS_FULL_OF(N, R) || b < N / R) {
            const uint base = (b / NS) * NS * R + b % NS;
#pragma unroll
            for (int r = 0; r < R; ++r)
                tile[LDS_INDEX(base + r * NS)] = v[m * R + r];
        }
    }
}

#if EXCHANGE_PARTS
#define EXCHANGE_POINTS (FFT_L / EXCHANGE_PARTS)

/*
 * Component c (0 real, 1 imaginary) of work-item q's outputs of a stage of
 * radix R and span NS whose Stockham positions lie in the exchange's range
 * from first, to the float tile.
 */
ALWAYS_INLINE void store_component(
    __local float* tile, const float2* v, const int R, const int NS, uint q, const int c, uint first)
{
#pragma unroll
    for (int m = 0; m < BUTTERFLY_ROUNDS(R); ++m) {
        const uint b = q + m * FFT_T;
        if (ROUND_IS_FULL(R) || b < FFT_L / R) {
            const uint base = (b / NS) * NS * R + b % NS;
#pragma unroll
            for (int r = 0; r < R; ++r) {
                const uint p = base + r * NS - first; /* wraps above the range */
                if (EXCHANGE_PARTS == 1 || p < EXCHANGE_POINTS)
                    tile[LDS_INDEX(p)] = c ? v[m * R + r].y : v[m * R + r].x;
            }
        }
    }
}

/*
 * Component c of work-item q's outputs of a stage of radix R and span NS
 * handed, through the float tile, to the inputs of the next stage, of radix
 * R_next.
 */
ALWAYS_INLINE void exchange_component(
    __local float* tile, float2* v, const int R, const int NS, const int R_next, uint q, const int c)
{
    float collected[EXCHANGE_PARTS > 1 ? MAX_REGS : 1];
#pragma unroll
    for (int h = 0; h < EXCHANGE_PARTS; ++h) {
        const uint first = h * EXCHANGE_POINTS;
        store_component(tile, v, R, NS, q, c, first);
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int m = 0; m < BUTTERFLY_ROUNDS(R_next); ++m) {
            const uint b = q + m * FFT_T;
            if (ROUND_IS_FULL(R_next) || b < FFT_L / R_next) {
#pragma unroll
                for (int r = 0; r < R_next; ++r) {
                    const uint p = b + r * (FFT_L / R_next) - first;
                    const int i = m * R_next + r;
                    if (EXCHANGE_PARTS > 1) {
                        if (p < EXCHANGE_POINTS)
                            collected[i] = tile[LDS_INDEX(p)];
                    } else if (c) {
                        v[i].y = tile[LDS_INDEX(p)];
                    } else {
                        v[i].x = tile[LDS_INDEX(p)];
                    }
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (EXCHANGE_PARTS > 1) {
#pragma unroll
        for (int m = 0; m < BUTTERFLY_ROUNDS(R_next); ++m) {
            const uint b = q + m * FFT_T;
            if (ROUND_IS_FULL(R_next) || b < FFT_L / R_next) {
#pragma unroll
                for (int r = 0; r < R_next; ++r) {
                    const int i = m * R_next + r;
                    if (c)
                        v[i].y = collected[i];
                    else
                        v[i].x = collected[i];
                }
            }
        }
    }
}
#endif

#if EXCHANGE_PARTS && MIRROR_OUTPUTS
/*
 * Component c (0 real, 1 imaginary) of output (FFT_L - k) mod FFT_L, for each
 * output k of work-item q's butterflies of the last stage (radix R, span
 * FFT_L / R: outputs b + r FFT_L / R), into mirror.
 */
ALWAYS_INLINE void
mirror_component(__local float* tile, const float2* v, float2* mirror, const int R, uint q, const int c)
{
#pragma unroll
    for (int h = 0; h < EXCHANGE_PARTS; ++h) {
        const uint first = h * EXCHANGE_POINTS;
        store_component(tile, v, R, FFT_L / R, q, c, first);
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int m = 0; m < BUTTERFLY_ROUNDS(R); ++m) {
            const uint b = q + m * FFT_T;
            if (ROUND_IS_FULL(R) || b < FFT_L / R) {
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const uint k = b + r * (FFT_L / R);
                    const uint p = (k ? FFT_L - k : 0) - first;
                    if (EXCHANGE_PARTS == 1 || p < EXCHANGE_POINTS) {
                        if (c)
                            mirror[m * R + r].y = tile[LDS_INDEX(p)];
                        else
                            mirror[m * R + r].x = tile[LDS_INDEX(p)];
                    }
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
#endif

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
#define RADIX_13 1 /* the stage after the last one */
#define MAX_STAGES 13

/*
 * The tile driver: a kernel that includes this file runs its on-chip FFTs with
 * the macros below. Besides the options above they need FFT_G (transforms per
 * work-group) and THREAD_TRANSFORM_FASTEST (adjacent work-items on adjacent
 * transforms), and two macros the kernel defines before using them:
 *
 *   LOAD_POINT(t, p)      input point p of on-chip transform t (any expression:
 *                         a global load, a FIR, ...)
 *   STORE_POINT(t, s, x)  disposes of output s of transform t
 *
 * Transform t of a work-group is number first + g of the launch.
 */

/* Declares the work-item's place: transform g, work-item q of it, registers v,
 * and (TILE_SETUP) the group's transforms. */
#if THREAD_TRANSFORM_FASTEST
#define TILE_COORDINATES(lid) const uint g = (lid) % FFT_G, q = (lid) / FFT_G;
#else
#define TILE_COORDINATES(lid) const uint q = (lid) % FFT_T, g = (lid) / FFT_T;
#endif
#if EXCHANGE_PARTS
#define TILE_DECLARE                   \
    __local float tile[TILE_STRIDE];   \
    const uint lid = get_local_id(0);  \
    const uint g = 0, q = lid;         \
    float2 v[MAX_REGS];
#else
#define TILE_DECLARE                                \
    __local float2 tiles[FFT_G * TILE_STRIDE];      \
    const uint lid = get_local_id(0);               \
    TILE_COORDINATES(lid)                           \
    __local float2* tile = tiles + g * TILE_STRIDE; \
    float2 v[MAX_REGS];
#endif
/* The tile's transforms: first, first + 1, ... (a kernel that loops over
 * several tiles sets first itself). */
#define TILE_AT(first, transforms) \
    const uint tr = (first) + g;   \
    const bool active = tr < (transforms);
#define TILE_SETUP(transforms)                  \
    TILE_DECLARE                                \
    const uint first = get_group_id(0) * FFT_G; \
    TILE_AT(first, transforms)

/* Fills the tile with LOAD_POINT, every work-item of the group walking it with
 * adjacent work-items on adjacent transforms (transform_fastest) or points:
 * whichever is contiguous in memory. */
#define LOAD_TILE(transforms, transform_fastest)                                   \
    for (uint n_ = lid; n_ < FFT_G * FFT_L; n_ += FFT_G * FFT_T) {                 \
        const uint lg_ = (transform_fastest) ? n_ % FFT_G : n_ / FFT_L;            \
        const uint p_ = (transform_fastest) ? n_ / FFT_G : n_ % FFT_L;             \
        tiles[lg_ * TILE_STRIDE + LDS_INDEX(p_)] =                                 \
            first + lg_ < (transforms) ? LOAD_POINT(first + lg_, p_)               \
                                       : (float2)(0.0f, 0.0f);                     \
    }                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE);

/* Drains points 0 .. N - 1 of the tile through STORE_POINT, in the same manner. */
#define STORE_TILE_POINTS(transforms, transform_fastest, N)                        \
    for (uint n_ = lid; n_ < FFT_G * (N); n_ += FFT_G * FFT_T) {                   \
        const uint lg_ = (transform_fastest) ? n_ % FFT_G : n_ / (N);              \
        const uint s_ = (transform_fastest) ? n_ / FFT_G : n_ % (N);               \
        if (first + lg_ < (transforms))                                            \
            STORE_POINT(first + lg_, s_, tiles[lg_ * TILE_STRIDE + LDS_INDEX(s_)]); \
    }
#define STORE_TILE(transforms, transform_fastest) \
    STORE_TILE_POINTS(transforms, transform_fastest, FFT_L)

/* Multiplies point p of every transform of the tile by table[p], or with
 * per_transform by table[t*FFT_L + p] for transform t of the launch (the tile's
 * transforms past the launch's last one are left alone). */
#define MULTIPLY_TILE(table, per_transform, transforms)                            \
    for (uint n_ = lid; n_ < FFT_G * FFT_L; n_ += FFT_G * FFT_T) {                 \
        const uint lg_ = n_ / FFT_L, p_ = n_ % FFT_L;                              \
        const uint at_ = lg_ * TILE_STRIDE + LDS_INDEX(p_);                        \
        if (!(per_transform))                                                      \
            tiles[at_] = cmul(tiles[at_], (table)[p_]);                            \
        else if (first + lg_ < (transforms))                                       \
            tiles[at_] = cmul(tiles[at_], (table)[(first + lg_) * FFT_L + p_]);    \
    }                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE);

/* The forward FFT's last stage (radix R = HANDOFF_RADIX, span FFT_L / R) left
 * butterfly b's outputs b + r*FFT_L/R in v[m*R + r] (b = q + m*FFT_T): each
 * times its entry of the table (per_transform: transform tr's row), in place
 * for the inverse FFT's first stage, or with FOLD > 1 summed with the others of
 * its fold (point k + d*FFT_L/FOLD onto k, all in the butterfly as FOLD divides
 * R) into the tile. */
#define MULTIPLY_REGISTERS(table, per_transform, transforms)                           \
    {                                                                                  \
        __global const float2* row_ =                                                  \
            (table) + ((per_transform) ? min(tr, (transforms) - 1) * FFT_L : 0);       \
        _Pragma("unroll") for (int m = 0; m < BUTTERFLY_ROUNDS(HANDOFF_RADIX); ++m)    \
        {                                                                              \
            const uint b = q + m * FFT_T;                                              \
            if (ROUND_IS_FULL(HANDOFF_RADIX) || b < FFT_L / HANDOFF_RADIX)             \
                _Pragma("unroll") for (int r = 0; r < HANDOFF_RADIX / FOLD; ++r)       \
                {                                                                      \
                    float2 sum_ = (float2)(0.0f, 0.0f);                                \
                    _Pragma("unroll") for (int d = 0; d < FOLD; ++d)                   \
                    {                                                                  \
                        const int e = r + d * (HANDOFF_RADIX / FOLD);                  \
                        sum_ += cmul(v[m * HANDOFF_RADIX + e],                         \
                                     row_[b + e * (FFT_L / HANDOFF_RADIX)]);           \
                    }                                                                  \
                    if (FOLD == 1)                                                     \
                        v[m * HANDOFF_RADIX + r] = sum_;                               \
                    else                                                               \
                        tile[LDS_INDEX(b + r * (FFT_L / HANDOFF_RADIX))] = sum_;       \
                }                                                                      \
        }                                                                              \
        if (FOLD > 1)                                                                  \
            barrier(CLK_LOCAL_MEM_FENCE);                                              \
    }

#if FOLD > 1
/*
 * A fast convolution that keeps every FOLD-th output of its inverse FFT
 * computes only those: outputs FOLD*s of the inverse FFT of FFT_L points are
 * the inverse FFT of FOLDED_L = FFT_L / FOLD points of the spectrum folded onto
 * its first FOLDED_L points, point k the sum of points k + d*FOLDED_L, d < FOLD.
 * FOLDED_STAGES, FOLDED_RADIX_s and FOLDED_SPAN_s (s < 6, unused slots 1) are
 * the stages of that shorter FFT; its twiddles come from the same table, as
 * FOLDED_L divides FFT_L.
 */
#define FOLDED_L (FFT_L / FOLD)

/* MULTIPLY_TILE, then the fold: a work-item reads only the points of the sum
 * it writes, so no barrier separates them. */
#define MULTIPLY_FOLD_TILE(table, per_transform, transforms)                      \
    for (uint n_ = lid; n_ < FFT_G * FOLDED_L; n_ += FFT_G * FFT_T) {             \
        const uint lg_ = n_ / FOLDED_L, k_ = n_ % FOLDED_L;                       \
        __local float2* row_ = tiles + lg_ * TILE_STRIDE;                         \
        const uint spectrum_ =                                                    \
            (per_transform) ? min(first + lg_, (transforms) - 1) * FFT_L : 0;     \
        float2 sum_ = (float2)(0.0f, 0.0f);                                       \
        _Pragma("unroll") for (uint d_ = 0; d_ < FOLD; ++d_)                      \
        {                                                                         \
            const uint p_ = k_ + d_ * FOLDED_L;                                   \
            sum_ += cmul(row_[LDS_INDEX(p_)], (table)[spectrum_ + p_]);           \
        }                                                                         \
        row_[LDS_INDEX(k_)] = sum_;                                               \
    }                                                                             \
    barrier(CLK_LOCAL_MEM_FENCE);

#define RUN_FOLDED_STAGE(s, dir, last_to_global)                       \
    RUN_STAGE_OF((s) < FOLDED_STAGES,                                  \
                 FOLDED_L,                                             \
                 FOLDED_RADIX_##s,                                     \
                 FOLDED_SPAN_##s,                                      \
                 dir,                                                  \
                 0,                                                    \
                 (last_to_global) && (s) + 1 == FOLDED_STAGES)
#define RUN_FOLDED_FFT(dir, last_to_global)  \
    RUN_FOLDED_STAGE(0, dir, last_to_global) \
    RUN_FOLDED_STAGE(1, dir, last_to_global) \
    RUN_FOLDED_STAGE(2, dir, last_to_global) \
    RUN_FOLDED_STAGE(3, dir, last_to_global) \
    RUN_FOLDED_STAGE(4, dir, last_to_global) \
    RUN_FOLDED_STAGE(5, dir, last_to_global)
#endif

/*
 * Stage s in direction dir. from_global: stage 0 computes its registers with
 * LOAD_POINT instead of reading the tile; to_global: the last stage hands its
 * registers to STORE_POINT instead of writing the tile.
 */
#define LOAD_STAGE_FROM_GLOBAL_OF(N, R)                                         \
    _Pragma("unroll") for (int m = 0; m < BUTTERFLY_ROUNDS_OF(N, R); ++m)       \
    {                                                                           \
        const uint b = q + m * FFT_T;                                           \
        if (ROUND_IS_FULL_OF(N, R) || b < (N) / (R))                            \
            _Pragma("unroll") for (int r = 0; r < (R); ++r)                     \
                v[m * (R) + r] =                                                \
                    active ? LOAD_POINT(tr, b + r * ((N) / (R))) : (float2)(0.0f, 0.0f); \
    }
#define STORE_STAGE_TO_GLOBAL_OF(N, R)                                          \
    _Pragma("unroll") for (int m = 0; m < BUTTERFLY_ROUNDS_OF(N, R); ++m)       \
    {                                                                           \
        const uint b = q + m * FFT_T;                                           \
        if (active && (ROUND_IS_FULL_OF(N, R) || b < (N) / (R)))                \
            _Pragma("unroll") for (int r = 0; r < (R); ++r)                     \
                STORE_POINT(tr, b + r * ((N) / (R)), v[m * (R) + r]);           \
    }
#define LOAD_STAGE_FROM_GLOBAL(s) LOAD_STAGE_FROM_GLOBAL_OF(FFT_L, RADIX_##s)
#define STORE_STAGE_TO_GLOBAL(s) STORE_STAGE_TO_GLOBAL_OF(FFT_L, RADIX_##s)

/* The last stage's outputs, each with its mirror (MIRROR_OUTPUTS). */
#define STORE_MIRRORED_STAGE_TO_GLOBAL(s)                                       \
    {                                                                           \
        float2 mirror[MAX_REGS];                                                \
        mirror_component(tile, v, mirror, RADIX_##s, q, 0);                     \
        mirror_component(tile, v, mirror, RADIX_##s, q, 1);                     \
        _Pragma("unroll") for (int m = 0; m < BUTTERFLY_ROUNDS(RADIX_##s); ++m) \
        {                                                                       \
            const uint b = q + m * FFT_T;                                       \
            if (active && (ROUND_IS_FULL(RADIX_##s) || b < FFT_L / RADIX_##s))  \
                _Pragma("unroll") for (int r = 0; r < RADIX_##s; ++r)           \
                    STORE_MIRRORED(tr,                                          \
                                   b + r * (FFT_L / RADIX_##s),                 \
                                   v[m * RADIX_##s + r],                        \
                                   mirror[m * RADIX_##s + r]);                  \
        }                                                                       \
    }
#if MIRROR_OUTPUTS
#define STORE_LAST_STAGE(s) STORE_MIRRORED_STAGE_TO_GLOBAL(s)
#else
#define STORE_LAST_STAGE(s) STORE_STAGE_TO_GLOBAL(s)
#endif

/* Where a stage's inputs come from and its outputs go: the tile, global
 * memory (LOAD_POINT / STORE_POINT) or the registers v, left there by the stage
 * before or for the one after (a fused convolution's hand-off, kernels/fft.cl). */
#define STAGE_TILE 0
#define STAGE_GLOBAL 1
#define STAGE_REGISTERS 2

/* A stage of radix R and span NS of an on-chip transform of N points, run
 * when `run` holds. */
#define RUN_STAGE_OF(run, N, R, NS, dir, from, to)                      \
    if (run) {                                                          \
        if ((from) == STAGE_GLOBAL) {                                   \
            LOAD_STAGE_FROM_GLOBAL_OF(N, R)                             \
        } else if ((from) == STAGE_TILE) {                              \
            stage_load(tile, v, N, R, q);                               \
            barrier(CLK_LOCAL_MEM_FENCE);                               \
        }                                                               \
        stage_compute(v, N, R, NS, dir, q, stage_twiddles);             \
        if ((to) == STAGE_GLOBAL) {                                     \
            STORE_STAGE_TO_GLOBAL_OF(N, R)                              \
        } else if ((to) == STAGE_TILE) {                                \
            stage_store(tile, v, N, R, NS, q);                          \
            barrier(CLK_LOCAL_MEM_FENCE);                               \
        }                                                               \
    }
#define RUN_STAGE(s, dir, from, to) \
    RUN_STAGE_OF((s) < STAGES, FFT_L, RADIX_##s, SPAN_##s, dir, from, to)

/* Stage s of a register-resident transform, stage n the next one: the first
 * loads with LOAD_POINT, the last stores with STORE_POINT, the others hand
 * their outputs to the next through the float tile. */
#define RUN_REGISTER_STAGE(s, n, dir)                                           \
    if ((s) < STAGES) {                                                         \
        if ((s) == 0) {                                                         \
            LOAD_STAGE_FROM_GLOBAL(s)                                           \
        }                                                                       \
        stage_compute(v, FFT_L, RADIX_##s, SPAN_##s, dir, q, stage_twiddles);   \
        if ((n) == STAGES) {                                                    \
            STORE_LAST_STAGE(s)                                                 \
        } else {                                                                \
            exchange_component(tile, v, RADIX_##s, SPAN_##s, RADIX_##n, q, 0);  \
            exchange_component(tile, v, RADIX_##s, SPAN_##s, RADIX_##n, q, 1);  \
        }                                                                       \
    }

/* All stages in direction dir; the first takes its inputs from first_from and
 * the last puts its outputs to last_to (STAGE_TILE, STAGE_GLOBAL or
 * STAGE_REGISTERS; a register-resident transform always loads and stores
 * global memory). */
#if EXCHANGE_PARTS
#define RUN_FFT(dir, first_from_global, last_to_global) \
    RUN_REGISTER_STAGE(0, 1, dir)                       \
    RUN_REGISTER_STAGE(1, 2, dir)                       \
    RUN_REGISTER_STAGE(2, 3, dir)                       \
    RUN_REGISTER_STAGE(3, 4, dir)                       \
    RUN_REGISTER_STAGE(4, 5, dir)                       \
    RUN_REGISTER_STAGE(5, 6, dir)                       \
    RUN_REGISTER_STAGE(6, 7, dir)                       \
    RUN_REGISTER_STAGE(7, 8, dir)                       \
    RUN_REGISTER_STAGE(8, 9, dir)                       \
    RUN_REGISTER_STAGE(9, 10, dir)                      \
    RUN_REGISTER_STAGE(10, 11, dir)                     \
    RUN_REGISTER_STAGE(11, 12, dir)                     \
    RUN_REGISTER_STAGE(12, 13, dir)
#else
#define RUN_FFT(dir, first_from, last_to)                                      \
    RUN_STAGE(0, dir, (first_from), STAGES == 1 ? (last_to) : STAGE_TILE)      \
    RUN_STAGE(1, dir, STAGE_TILE, STAGES == 2 ? (last_to) : STAGE_TILE)        \
    RUN_STAGE(2, dir, STAGE_TILE, STAGES == 3 ? (last_to) : STAGE_TILE)        \
    RUN_STAGE(3, dir, STAGE_TILE, STAGES == 4 ? (last_to) : STAGE_TILE)        \
    RUN_STAGE(4, dir, STAGE_TILE, STAGES == 5 ? (last_to) : STAGE_TILE)        \
    RUN_STAGE(5, dir, STAGE_TILE, STAGES == 6 ? (last_to) : STAGE_TILE)        \
    RUN_STAGE(6, dir, STAGE_TILE, STAGES == 7 ? (last_to) : STAGE_TILE)        \
    RUN_STAGE(7, dir, STAGE_TILE, STAGES == 8 ? (last_to) : STAGE_TILE)        \
    RUN_STAGE(8, dir, STAGE_TILE, STAGES == 9 ? (last_to) : STAGE_TILE)        \
    RUN_STAGE(9, dir, STAGE_TILE, STAGES == 10 ? (last_to) : STAGE_TILE)       \
    RUN_STAGE(10, dir, STAGE_TILE, STAGES == 11 ? (last_to) : STAGE_TILE)      \
    RUN_STAGE(11, dir, STAGE_TILE, STAGES == 12 ? (last_to) : STAGE_TILE)      \
    RUN_STAGE(12, dir, STAGE_TILE, STAGES == 13 ? (last_to) : STAGE_TILE)
#endif

#endif /* WIDEBAND_FFT_STAGES_CL */
