/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * One pass of a batched FFT: every work-group runs FFT_G on-chip FFTs of FFT_L
 * points (fft_stages.cl), reading and writing global memory once.
 *
 * A transform of N = FFT_L * COLUMNS points is computed in one or more passes,
 * each a Stockham stage whose "radix" FFT_L is itself an on-chip FFT. In a pass
 * of span SPAN (the product of the lengths of the earlier passes), on-chip
 * transform j (0 <= j < COLUMNS) of batch item i reads the points
 *
 *     e = j + p*COLUMNS,                                p < FFT_L
 *
 * multiplies them by the pass twiddle W(p*k, SPAN*FFT_L), k = j mod SPAN, and
 * writes its output s to
 *
 *     e' = (j div SPAN)*SPAN*FFT_L + k + s*SPAN.
 *
 * A single-pass plan is the case COLUMNS = 1, SPAN = 1. The first pass has no
 * twiddle; after the last one (SPAN = COLUMNS) the output is in natural order.
 *
 * Fused extras, at the first pass's loads and the last pass's stores:
 *   PRE_SHIFT      read point e from (e + n/2) mod n       (inverse fft_vcc shift)
 *   PRE_ZERO_PAD   points e >= n read as zero               (Bluestein padding)
 *   PRE_FACTOR     multiply point e by pre_factors[e]       (window, chirp)
 *   POST_FACTOR    multiply output e' by post_factors[e']   (chirp, filter spectrum)
 *   POST_TRUNCATE  write only outputs e' < n                (Bluestein)
 *   POST_SHIFT     write output e' to (e' + n/2) mod n      (forward fft_vcc shift)
 *   scale          every output is multiplied by it (1/N normalisation)
 * where n = logical_length, the user's transform length.
 *   FUSED_CONVOLUTION  (single pass only) forward FFT, multiply by conv_spectrum,
 *                  inverse FFT, all on chip: Bluestein's convolution in one launch.
 *
 * Layout options:
 *   THREAD_TRANSFORM_FASTEST  adjacent work-items take adjacent transforms
 *                  (coalesced when the transforms are interleaved in memory, as
 *                  in every pass of a multi-pass plan), else adjacent points
 *   LOAD_DIRECT    the first stage loads its registers from global memory;
 *                  otherwise the tile is first copied to local memory, visiting
 *                  points in LOAD_TRANSFORM_FASTEST order
 *   STORE_DIRECT, STORE_TRANSFORM_FASTEST  the same for the last stage's stores
 *   PASS_TWIDDLE_LO_BITS  W(t, N) = lo[t mod 2^bits] * hi[t div 2^bits]: two small
 *                  tables instead of one of N entries
 *   IDX            uint, or ulong when an address can pass 2^32
 */

#include "fft_stages.cl"

typedef IDX idx_t;

struct io_layout {
    idx_t offset, stride, distance;
};

inline float2 pass_twiddle(__global const float2* table, uint t, const int dir)
{
    const uint lo_size = 1u << PASS_TWIDDLE_LO_BITS;
    const float2 w = cmul(table[t & (lo_size - 1)], table[lo_size + (t >> PASS_TWIDDLE_LO_BITS)]);
    return dir < 0 ? w : (float2)(w.x, -w.y);
}

/* Point p of on-chip transform tr, with every input-side operation applied. */
inline float2 load_point(__global const float2* src,
                         const struct io_layout in,
                         uint tr,
                         uint p,
                         uint logical_length,
                         __global const float2* pass_twiddles,
                         __global const float2* pre_factors)
{
    const uint i = tr / COLUMNS, j = tr % COLUMNS;
    const uint e = j + p * COLUMNS;
#if PRE_ZERO_PAD
    if (e >= logical_length)
        return (float2)(0.0f, 0.0f);
#endif
    uint source = e;
#if PRE_SHIFT
    source += logical_length / 2;
    if (source >= logical_length)
        source -= logical_length;
#endif
    float2 x = src[in.offset + i * in.distance + source * in.stride];
#if PRE_FACTOR
    x = cmul(x, pre_factors[e]);
#endif
#if SPAN > 1
    const uint k = j % SPAN;
    x = cmul(x, pass_twiddle(pass_twiddles, p * k * (N_TOTAL / (SPAN * FFT_L)), DIR));
#endif
    return x;
}

/* Output s of on-chip transform tr, with every output-side operation applied. */
inline void store_point(__global float2* dst,
                        const struct io_layout out,
                        uint tr,
                        uint s,
                        float2 x,
                        uint logical_length,
                        float scale,
                        __global const float2* post_factors)
{
    const uint i = tr / COLUMNS, j = tr % COLUMNS;
    const uint e = (j / SPAN) * SPAN * FFT_L + j % SPAN + s * SPAN;
#if POST_TRUNCATE
    if (e >= logical_length)
        return;
#endif
#if POST_FACTOR
    x = cmul(x, post_factors[e]);
#endif
    uint target = e;
#if POST_SHIFT
    target += logical_length / 2;
    if (target >= logical_length)
        target -= logical_length;
#endif
    dst[out.offset + i * out.distance + target * out.stride] = x * scale;
}

/*
 * Stage s of the on-chip FFT in direction dir. from_global: stage 0 loads its
 * registers straight from src; to_global: the last stage stores straight to dst.
 */
#define RUN_STAGE(s, dir, from_global, to_global)                                       \
    if ((s) < STAGES) {                                                                 \
        if (from_global) {                                                              \
            _Pragma("unroll") for (int m = 0; m < BUTTERFLY_ROUNDS(RADIX_##s); ++m) {                     \
                const uint b = q + m * FFT_T;                                           \
                if (ROUND_IS_FULL(RADIX_##s) || b < FFT_L / RADIX_##s)                  \
                    _Pragma("unroll") for (int r = 0; r < RADIX_##s; ++r)                                 \
                        v[m * RADIX_##s + r] =                                          \
                            active ? load_point(src,                                    \
                                                in,                                     \
                                                tr,                                     \
                                                b + r * (FFT_L / RADIX_##s),            \
                                                logical_length,                         \
                                                pass_twiddles,                          \
                                                pre_factors)                            \
                                   : (float2)(0.0f, 0.0f);                              \
            }                                                                           \
        } else {                                                                        \
            stage_load(tile, v, RADIX_##s, q);                                          \
            barrier(CLK_LOCAL_MEM_FENCE);                                               \
        }                                                                               \
        stage_compute(v, RADIX_##s, SPAN_##s, dir, q, stage_twiddles);                  \
        if (to_global) {                                                                \
            _Pragma("unroll") for (int m = 0; m < BUTTERFLY_ROUNDS(RADIX_##s); ++m) {                     \
                const uint b = q + m * FFT_T;                                           \
                if (active && (ROUND_IS_FULL(RADIX_##s) || b < FFT_L / RADIX_##s))      \
                    _Pragma("unroll") for (int r = 0; r < RADIX_##s; ++r)                                 \
                        store_point(dst,                                                \
                                    out,                                                \
                                    tr,                                                 \
                                    b + r * (FFT_L / RADIX_##s),                        \
                                    v[m * RADIX_##s + r],                               \
                                    logical_length,                                     \
                                    scale,                                              \
                                    post_factors);                                      \
            }                                                                           \
        } else {                                                                        \
            stage_store(tile, v, RADIX_##s, SPAN_##s, q);                               \
            barrier(CLK_LOCAL_MEM_FENCE);                                               \
        }                                                                               \
    }

/* All stages in direction dir; the first may load from and the last store to global memory. */
#define RUN_FFT(dir, first_from_global, last_to_global)                 \
    RUN_STAGE(0, dir, (first_from_global), (last_to_global) && STAGES == 1)  \
    RUN_STAGE(1, dir, 0, (last_to_global) && STAGES == 2)                    \
    RUN_STAGE(2, dir, 0, (last_to_global) && STAGES == 3)                    \
    RUN_STAGE(3, dir, 0, (last_to_global) && STAGES == 4)                    \
    RUN_STAGE(4, dir, 0, (last_to_global) && STAGES == 5)                    \
    RUN_STAGE(5, dir, 0, (last_to_global) && STAGES == 6)                    \
    RUN_STAGE(6, dir, 0, (last_to_global) && STAGES == 7)                    \
    RUN_STAGE(7, dir, 0, (last_to_global) && STAGES == 8)                    \
    RUN_STAGE(8, dir, 0, (last_to_global) && STAGES == 9)                    \
    RUN_STAGE(9, dir, 0, (last_to_global) && STAGES == 10)                   \
    RUN_STAGE(10, dir, 0, (last_to_global) && STAGES == 11)                  \
    RUN_STAGE(11, dir, 0, (last_to_global) && STAGES == 12)                  \
    RUN_STAGE(12, dir, 0, (last_to_global) && STAGES == 13)

__kernel __attribute__((reqd_work_group_size(FFT_T* FFT_G, 1, 1))) void
fft_pass(__global const float2* src,
         __global float2* dst,
         idx_t src_offset,
         idx_t src_stride,
         idx_t src_distance,
         idx_t dst_offset,
         idx_t dst_stride,
         idx_t dst_distance,
         uint transforms, /* batch * COLUMNS */
         uint logical_length,
         float scale,
         TWIDDLE_SPACE const float2* stage_twiddles,
         __global const float2* pass_twiddles,
         __global const float2* pre_factors,
         __global const float2* post_factors,
         __global const float2* conv_spectrum)
{
    __local float2 tiles[FFT_G * TILE_STRIDE];
    const struct io_layout in = { src_offset, src_stride, src_distance };
    const struct io_layout out = { dst_offset, dst_stride, dst_distance };

    const uint lid = get_local_id(0);
#if THREAD_TRANSFORM_FASTEST
    const uint g = lid % FFT_G, q = lid / FFT_G;
#else
    const uint q = lid % FFT_T, g = lid / FFT_T;
#endif
    const uint first = get_group_id(0) * FFT_G;
    const uint tr = first + g;
    const bool active = tr < transforms;
    __local float2* tile = tiles + g * TILE_STRIDE;
    float2 v[MAX_REGS];

#if !LOAD_DIRECT
    for (uint n = lid; n < FFT_G * FFT_L; n += FFT_G * FFT_T) {
#if LOAD_TRANSFORM_FASTEST
        const uint lg = n % FFT_G, p = n / FFT_G;
#else
        const uint lg = n / FFT_L, p = n % FFT_L;
#endif
        tiles[lg * TILE_STRIDE + LDS_INDEX(p)] =
            first + lg < transforms
                ? load_point(
                      src, in, first + lg, p, logical_length, pass_twiddles, pre_factors)
                : (float2)(0.0f, 0.0f);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif

#if FUSED_CONVOLUTION
    RUN_FFT(-1, LOAD_DIRECT, 0)
    for (uint n = lid; n < FFT_G * FFT_L; n += FFT_G * FFT_T) {
        const uint lg = n / FFT_L, p = n % FFT_L;
        tiles[lg * TILE_STRIDE + LDS_INDEX(p)] =
            cmul(tiles[lg * TILE_STRIDE + LDS_INDEX(p)], conv_spectrum[p]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    RUN_FFT(1, 0, STORE_DIRECT)
#else
    RUN_FFT(DIR, LOAD_DIRECT, STORE_DIRECT)
#endif

#if !STORE_DIRECT
    for (uint n = lid; n < FFT_G * FFT_L; n += FFT_G * FFT_T) {
#if STORE_TRANSFORM_FASTEST
        const uint lg = n % FFT_G, s = n / FFT_G;
#else
        const uint lg = n / FFT_L, s = n % FFT_L;
#endif
        if (first + lg < transforms)
            store_point(dst,
                        out,
                        first + lg,
                        s,
                        tiles[lg * TILE_STRIDE + LDS_INDEX(s)],
                        logical_length,
                        scale,
                        post_factors);
    }
#endif
}
