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
 *   POST_FACTOR    multiply output e' by post_factors[e']   (chirp, filter spectrum;
 *                  POST_FACTOR_PER_TRANSFORM: a table of N_TOTAL per batch item)
 *   POST_RANGE     write only outputs e' = out_begin + m*POST_STEP, m < out_count,
 *                  to point m (Bluestein's truncation, overlap-save's discard and
 *                  decimation)
 *   POST_SHIFT     write output e' to (e' + n/2) mod n      (forward fft_vcc shift)
 *   scale          every output is multiplied by it (1/N normalisation)
 * where n = logical_length, the user's transform length.
 *   FUSED_CONVOLUTION  (single pass only) forward FFT, multiply by conv_spectrum
 *                  (CONV_PER_TRANSFORM: one spectrum per batch item), inverse
 *                  FFT, all on chip: a fast convolution in one launch.
 *   FOLD           (with FUSED_CONVOLUTION and POST_RANGE) only every FOLD-th
 *                  output of the inverse FFT is wanted: the spectrum's product
 *                  folded onto FFT_L / FOLD points and their inverse FFT
 *                  (fft_stages.cl), whose output s is output FOLD*s; the
 *                  output range counts in those outputs
 *   HANDOFF_RADIX  (with FUSED_CONVOLUTION, not RADER) the forward FFT's last
 *                  radix R: its last stage leaves each work-item the points
 *                  b + r*FFT_L/R of its butterflies b in registers, which are
 *                  multiplied there and are the inputs of the same butterflies of
 *                  the inverse FFT's first stage (radix R, span 1: RADIX_0 = R),
 *                  or with FOLD (R a multiple of it) fold in registers onto the
 *                  points b + r*FFT_L/R, r < R/FOLD; no tile round trip between
 *                  the two FFTs. 0: through the tile
 *   RADER          (with FUSED_CONVOLUTION) a prime n = FFT_L + 1 by Rader's
 *                  algorithm: on-chip point p is element rader_perm[p] = g^p mod n
 *                  of the input, output s goes to element rader_perm[FFT_L + s] =
 *                  g^-s mod n, and element 0 joins at the multiply (below). The
 *                  PRE_ and POST_ operations then see the user's element indices.
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
 *   SAMPLE_T       the type of src's samples (samples.cl): float2, or the
 *                  integers of an engine's input window, or real floats,
 *                  converted as the first pass loads them
 *   PRE_HERMITIAN  src holds points 0 .. logical_length / 2 of each transform;
 *                  point e above them reads as conj(point logical_length - e)
 *                  (the input of a complex-to-real transform)
 *   OUTPUT_REAL    dst receives the real parts only, as floats (the output of
 *                  a complex-to-real transform, or of a real filter)
 *   PRE_REAL_UNPACK, POST_REAL_UNPACK  a real transform of N = 2 FFT_L points
 *                  as the complex one of its pairs z[n] = x[2n] + i x[2n+1]
 *                  (one pass; the floats read or written as float2):
 *                  with E, O the transforms of the even and odd points,
 *                  Z = E + i O and X[k] = E[k] + W^k O[k], W = exp(-2 pi i / N).
 *                  POST: bins X[0 .. FFT_L] from Z[k] and Z[FFT_L - k] (the
 *                  tile), post_factors[k] = W^k. PRE: Z'[e] = 2 (E + i O)[e]
 *                  from bins e and FFT_L - e (the tile, loaded as they are),
 *                  pre_factors[e] = W^-e, so that the inverse of FFT_L points
 *                  gives N x unnormalised. A register-resident pass
 *                  (EXCHANGE_PARTS) pairs them otherwise: PRE loads both bins
 *                  of each point from global memory, POST receives Z[L - k]
 *                  through the float tile (MIRROR_OUTPUTS, fft_stages.cl).
 *   PRE_COSINE     the loads of a discrete cosine transform of real points
 *                  (Makhoul's algorithm), n = logical_length: 2 (DCT-II of n)
 *                  reads point e from element cosine_order(e), the even
 *                  elements ascending, then the odd ones descending; 3
 *                  (DCT-III of n) reads x[e] - i x[n - e] (x[n] taken as
 *                  zero), Hermitian, so that the inverse transform is real; 4
 *                  (DCT-IV of 2n) reads x[2e] + i x[2n - 1 - 2e]; 5 (DCT-II of
 *                  2n, POST_REAL_UNPACK) reads DCT-II's reordered points in
 *                  pairs, x[cosine_order(2e)] + i x[cosine_order(2e + 1)]. The
 *                  twiddles and scalings are the pre_factors and post_factors
 *                  tables (PRE_FACTOR, POST_FACTOR), or follow the packed
 *                  transform's W^k in them (entries FFT_L ..).
 *   POST_COSINE    its stores: 3 (DCT-III) writes output e to element
 *                  cosine_order(e), undoing DCT-II's reordering; 4 (DCT-IV of
 *                  2n) writes the real part of output e to element 2e and
 *                  minus its imaginary part to element 2n - 1 - 2e; 2 (DCT-II
 *                  of 2n, POST_REAL_UNPACK) the real part of bin k times its
 *                  twiddle to element k and minus its imaginary part to 2n - k;
 *                  5 (DCT-III of 2n, PRE_REAL_UNPACK with PRE_COSINE 3 reading
 *                  its bins x[e] - i x[2n - e]) output e's real and imaginary
 *                  parts to elements cosine_order(2e) and cosine_order(2e + 1)
 *   COSINE_STORE   (one-pass plans of POST_COSINE 3, 4 or 5, STORE_DIRECT 0)
 *                  the reordered outputs written in element order from the
 *                  tile, so that adjacent work-items write adjacent floats:
 *                  written point by point they scatter with strides of 2 and 4
 *   PAIR_LOAD, PAIR_STORE  (a convolution of real input with a real filter)
 *                  batch item i is the real transforms 2i and 2i+1, as the
 *                  real and imaginary parts of one complex transform: the
 *                  layout's distance is twice theirs, the second one's points
 *                  lie distance/2 after the first's and exist while
 *                  2i+1 < items; PAIR_STORE writes the real parts of the
 *                  first, the imaginary parts of the second (OUTPUT_REAL).
 *                  A real filter's spectrum keeps the two apart.
 */

#define MIRROR_OUTPUTS (EXCHANGE_PARTS && POST_REAL_UNPACK)
#ifndef FOLD
#define FOLD 1
#endif
#ifndef HANDOFF_RADIX
#define HANDOFF_RADIX 0
#endif
#include "fft_stages.cl"
#include "samples.cl"

#if HANDOFF_RADIX && (RADER || (FOLD == 1 && RADIX_0 != HANDOFF_RADIX) || HANDOFF_RADIX % FOLD)
#error "HANDOFF_RADIX: the inverse FFT must start with it (or FOLD divide it), and not with RADER"
#endif

/* A register-resident transform has no tile of points: only the direct loads
 * and stores of the plain pass, and real packing without cosine steps. */
#if EXCHANGE_PARTS && (!LOAD_DIRECT || !STORE_DIRECT || FUSED_CONVOLUTION ||      \
                       PRE_COSINE || POST_COSINE || COSINE_STORE)
#error "EXCHANGE_PARTS needs LOAD_DIRECT and STORE_DIRECT and no tile operations"
#endif

typedef IDX idx_t;

#if OUTPUT_REAL
typedef float dst_t;
#define OUTPUT_VALUE(value) ((value).x)
#else
typedef float2 dst_t;
#define OUTPUT_VALUE(value) (value)
#endif

struct io_layout {
    idx_t offset, stride, distance;
    uint items; /* the batch's transforms (PAIR_*: the real ones) */
};

/* Z'[e] = (a + conj b) + i W^-e (a - conj b) of bins a = X[e], b = X[L - e]. */
static inline float2 real_unpacked(float2 a, float2 b, float2 w_inverse)
{
    b.y = -b.y;
    const float2 d = cmul(w_inverse, a - b);
    return a + b + (float2)(-d.y, d.x);
}

/* Makhoul's reordering of n points: position e holds element 2e for e below
 * ceil(n/2), else element 2(n-1-e)+1. */
static inline uint cosine_order(uint e, uint n)
{
    return 2 * e < n ? 2 * e : 2 * n - 1 - 2 * e;
}

/* Bin e of a packed inverse transform's input (PRE_REAL_UNPACK) in row t, as
 * stored (irfft). */
static inline float2 load_bin(__global const SAMPLE_T* src,
                              const struct io_layout in,
                              uint t,
                              uint e)
{
    return load_sample(src, in.offset + t * in.distance + e * in.stride);
}

#if PRE_REAL_UNPACK && PRE_COSINE == 3
/* Point f of a packed DCT-III's row in the tile (float f of the row). */
static inline float tile_point(__local const float2* row, uint f)
{
    const float2 pair = row[LDS_INDEX(f / 2)];
    return f % 2 ? pair.y : pair.x;
}

/* DCT-III's bin V[e] = f_e (x[e] - i x[2 FFT_L - e]), x[2 FFT_L] taken as zero,
 * f_e = pre_factors[FFT_L + e], from the row's points in the tile. */
static inline float2
cosine_bin_from_tile(__local const float2* row, uint e, __global const float2* pre_factors)
{
    const float2 x =
        (float2)(tile_point(row, e), e ? -tile_point(row, 2 * FFT_L - e) : 0.0f);
    return cmul(pre_factors[FFT_L + e], x);
}

/* The unpacking rounds of a work-item: pairs e, L - e per group of transforms. */
#define UNPACK_ROUNDS \
    ((FFT_G * (FFT_L / 2 + 1) + FFT_G * FFT_T - 1) / (FFT_G * FFT_T))
#endif

/* A packed DCT-II's bin k times its twiddle and scaling (post_factors[FFT_L +
 * k]); other packed transforms store their bins as they are. */
static inline float2 cosine_bin(__global const float2* post_factors, uint k, float2 bin)
{
#if POST_COSINE == 2
    return cmul(post_factors[FFT_L + k], bin);
#else
    return bin;
#endif
}

/* Z'[e] of a packed inverse transform from bins e and L - e (bin L for e = 0)
 * in global memory, for a register-resident pass that has no tile of bins. */
static inline float2 unpacked_point(__global const SAMPLE_T* src,
                                    const struct io_layout in,
                                    uint t,
                                    uint e,
                                    __global const float2* pre_factors)
{
    float2 a = load_bin(src, in, t, e);
    float2 b = load_bin(src, in, t, e ? FFT_L - e : FFT_L);
    if (e == 0) { /* bins 0 and L, taken as real */
        a.y = 0.0f;
        b.y = 0.0f;
    }
    return real_unpacked(a, b, pre_factors[e]);
}

static inline float2 pass_twiddle(__global const float2* table, uint t, const int dir)
{
    const uint lo_size = 1u << PASS_TWIDDLE_LO_BITS;
    const float2 w = cmul(table[t & (lo_size - 1)], table[lo_size + (t >> PASS_TWIDDLE_LO_BITS)]);
    return dir < 0 ? w : (float2)(w.x, -w.y);
}

/* Element e of batch item i's input, with the input-side operations applied. */
static inline float2 load_element(__global const SAMPLE_T* src,
                                  const struct io_layout in,
                                  uint i,
                                  uint e,
                                  uint logical_length,
                                  __global const float2* pre_factors)
{
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
#if PRE_HERMITIAN
    const bool mirrored = source > logical_length / 2;
    if (mirrored)
        source = logical_length - source;
#endif
#if PRE_COSINE == 2
    source = cosine_order(source, logical_length);
#elif PRE_COSINE == 4
    source *= 2;
#elif PRE_COSINE == 5
    source = cosine_order(2 * source, 2 * logical_length);
#endif
    const idx_t at = in.offset + i * in.distance + source * in.stride;
#if PAIR_LOAD
    float2 x = (float2)(load_sample(src, at).x,
                        2 * i + 1 < in.items ? load_sample(src, at + in.distance / 2).x
                                             : 0.0f);
#else
    float2 x = load_sample(src, at);
#endif
#if PRE_HERMITIAN
    if (mirrored)
        x.y = -x.y;
#endif
#if PRE_COSINE == 3
    if (source != 0)
        x.y = -load_sample(src, in.offset + i * in.distance +
                                    (logical_length - source) * in.stride).x;
#elif PRE_COSINE == 4
    x.y = load_sample(src, in.offset + i * in.distance +
                               (2 * logical_length - 1 - source) * in.stride).x;
#elif PRE_COSINE == 5
    x.y = load_sample(src, in.offset + i * in.distance +
                               cosine_order(2 * e + 1, 2 * logical_length) * in.stride).x;
#endif
#if PRE_FACTOR
    x = cmul(x, pre_factors[e]);
#endif
    return x;
}

/* Point p of on-chip transform tr, with every input-side operation applied. */
static inline float2 load_point(__global const SAMPLE_T* src,
                                const struct io_layout in,
                                uint tr,
                                uint p,
                                uint logical_length,
                                __global const float2* pass_twiddles,
                                __global const float2* pre_factors,
                                __global const uint* rader_perm)
{
    const uint i = tr / COLUMNS, j = tr % COLUMNS;
#if RADER
    const uint e = rader_perm[p];
#else
    const uint e = j + p * COLUMNS;
#endif
    float2 x = load_element(src, in, i, e, logical_length, pre_factors);
#if SPAN > 1
    const uint k = j % SPAN;
    x = cmul(x, pass_twiddle(pass_twiddles, p * k * (N_TOTAL / (SPAN * FFT_L)), DIR));
#endif
    return x;
}

/* Which outputs are written, and where. */
struct output_range {
    uint begin, count;
};

/* Element e of batch item i's output, with the output-side operations applied. */
static inline void store_element(__global dst_t* dst,
                                 const struct io_layout out,
                                 uint i,
                                 uint e,
                                 float2 x,
                                 uint logical_length,
                                 float scale,
                                 __global const float2* post_factors,
                                 const struct output_range range)
{
    uint target = e;
#if POST_RANGE
    if (e < range.begin || (e - range.begin) % POST_STEP != 0)
        return;
    target = (e - range.begin) / POST_STEP;
    if (target >= range.count)
        return;
#endif
#if POST_COSINE == 3
    target = cosine_order(target, logical_length);
#elif POST_COSINE == 4
    target *= 2;
#endif
#if POST_FACTOR
#if POST_FACTOR_PER_TRANSFORM
    x = cmul(x, post_factors[(idx_t)i * N_TOTAL + e]);
#else
    x = cmul(x, post_factors[e]);
#endif
#endif
#if POST_SHIFT
    target += logical_length / 2;
    if (target >= logical_length)
        target -= logical_length;
#endif
    const idx_t at = out.offset + i * out.distance + target * out.stride;
#if PAIR_STORE
    dst[at] = x.x * scale;
    if (2 * i + 1 < out.items)
        dst[at + out.distance / 2] = x.y * scale;
#elif POST_COSINE == 4
    dst[at] = x.x * scale;
    dst[out.offset + i * out.distance + (2 * logical_length - 1 - target) * out.stride] =
        -x.y * scale;
#elif POST_COSINE == 2
    dst[at] = x.x * scale;
    if (target != 0 && target != logical_length)
        dst[out.offset + i * out.distance + (2 * logical_length - target) * out.stride] =
            -x.y * scale;
#elif POST_COSINE == 5
    dst[out.offset + i * out.distance +
        cosine_order(2 * target, 2 * logical_length) * out.stride] = x.x * scale;
    dst[out.offset + i * out.distance +
        cosine_order(2 * target + 1, 2 * logical_length) * out.stride] = x.y * scale;
#else
    dst[at] = OUTPUT_VALUE(x * scale);
#endif
}

#if COSINE_STORE
/* Output floats per transform: N (DCT-III, one complex point each) or 2 FFT_L
 * (DCT-IV of 2n, DCT-III of 2n packed). */
#define COSINE_FLOATS (POST_COSINE == 3 ? FFT_L : 2 * FFT_L)

/* Element f of batch item i's cosine transform from its row of the tile (the
 * complex transform's outputs in order): the inverse of the reorderings of
 * store_element. */
static inline void store_cosine_element(__global float* dst,
                                        const struct io_layout out,
                                        uint i,
                                        uint f,
                                        __local const float2* row,
                                        float scale,
                                        __global const float2* post_factors)
{
    /* DCT-II's order puts element f at v[f / 2] (f even) or v[n - 1 - f / 2]. */
    const uint n = COSINE_FLOATS;
    const uint v = f % 2 ? n - 1 - f / 2 : f / 2;
    float y;
#if POST_COSINE == 3
    y = row[LDS_INDEX(v)].x;
#elif POST_COSINE == 5
    const float2 z = row[LDS_INDEX(v / 2)];
    y = v % 2 ? z.y : z.x;
#else /* 4: element 2k is Re u[k], element 2n - 1 - 2k is -Im u[k] */
    const uint k = f % 2 ? (n - 1 - f) / 2 : f / 2;
    const float2 u = cmul(row[LDS_INDEX(k)], post_factors[k]);
    y = f % 2 ? -u.y : u.x;
#endif
    dst[out.offset + i * out.distance + f * out.stride] = y * scale;
}
#endif

/* Bin k = X[k] = (a + conj b)/2 - i W^k (a - conj b)/2 of a packed forward
 * transform from a = Z[k], b = Z[L - k] (Z[L] = Z[0]), to batch item i; k = 0
 * also writes bin L, Re Z[0] - Im Z[0]. */
static inline void store_real_bin(__global dst_t* dst,
                                  const struct io_layout out,
                                  uint i,
                                  uint k,
                                  float2 a,
                                  float2 b,
                                  uint logical_length,
                                  float scale,
                                  __global const float2* post_factors,
                                  const struct output_range range)
{
    b.y = -b.y;
    const float2 d = cmul(post_factors[k], a - b);
    const float2 bin = 0.5f * (a + b + (float2)(d.y, -d.x));
    store_element(dst, out, i, k, cosine_bin(post_factors, k, bin), logical_length, scale,
                  post_factors, range);
    if (k == 0)
        store_element(dst, out, i, FFT_L,
                      cosine_bin(post_factors, FFT_L, (float2)(a.x - a.y, 0.0f)),
                      logical_length, scale, post_factors, range);
}

/* Output s of on-chip transform tr, with every output-side operation applied. */
static inline void store_point(__global dst_t* dst,
                               const struct io_layout out,
                               uint tr,
                               uint s,
                               float2 x,
                               uint logical_length,
                               float scale,
                               __global const float2* post_factors,
                               const struct output_range range,
                               __global const uint* rader_perm)
{
    const uint i = tr / COLUMNS, j = tr % COLUMNS;
#if RADER
    const uint e = rader_perm[FFT_L + s];
#else
    const uint e = (j / SPAN) * SPAN * FFT_L + j % SPAN + s * SPAN;
#endif
    store_element(dst, out, i, e, x, logical_length, scale, post_factors, range);
}

__kernel __attribute__((reqd_work_group_size(FFT_T* FFT_G, 1, 1))) void
fft_pass(__global const SAMPLE_T* src,
         __global dst_t* dst,
         idx_t src_offset,
         idx_t src_stride,
         idx_t src_distance,
         idx_t dst_offset,
         idx_t dst_stride,
         idx_t dst_distance,
         uint transforms, /* batch * COLUMNS */
         uint items,      /* the batch (PAIR_*: its real transforms) */
         uint logical_length,
         float scale,
         uint out_begin,
         uint out_count,
         TWIDDLE_SPACE const float2* stage_twiddles,
         __global const float2* pass_twiddles,
         __global const float2* pre_factors,
         __global const float2* post_factors,
         __global const float2* conv_spectrum,
         __global const uint* rader_perm)
{
    TILE_SETUP(transforms)
    const struct io_layout in = { src_offset, src_stride, src_distance, items };
    const struct io_layout out = { dst_offset, dst_stride, dst_distance, items };
    const struct output_range range = { out_begin, out_count };
#if PRE_REAL_UNPACK && EXCHANGE_PARTS
#define LOAD_POINT(t, p) unpacked_point(src, in, t, p, pre_factors)
#else
#define LOAD_POINT(t, p) \
    load_point(src, in, t, p, logical_length, pass_twiddles, pre_factors, rader_perm)
#endif
#define STORE_POINT(t, s, x) \
    store_point(dst, out, t, s, x, logical_length, scale, post_factors, range, rader_perm)
#define STORE_MIRRORED(t, k, a, b) \
    store_real_bin(dst, out, t, k, a, b, logical_length, scale, post_factors, range)

#if PRE_REAL_UNPACK && PRE_COSINE == 3
    /* A packed DCT-III: the row's 2L points into the tile as they lie (pairs of
     * floats, read as a C2R reads its bins: coalesced, from the front), then the
     * bins e and L - e formed from the four points they need and unpacked into
     * Z'[e], Z'[L - e] as below. Those points lie in other pairs' places, so
     * every pair is read before any is written. */
    for (uint n_ = lid; n_ < FFT_G * FFT_L; n_ += FFT_G * FFT_T) {
        const uint lg_ = n_ / FFT_L, m_ = n_ % FFT_L;
        float2 x_ = (float2)(0.0f, 0.0f);
        if (first + lg_ < transforms) {
            const idx_t row_ = in.offset + (first + lg_) * in.distance;
            x_ = (float2)(load_sample(src, row_ + 2 * m_ * in.stride).x,
                          load_sample(src, row_ + (2 * m_ + 1) * in.stride).x);
        }
        tiles[lg_ * TILE_STRIDE + LDS_INDEX(m_)] = x_;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    float2 unpacked_[UNPACK_ROUNDS][2];
#pragma unroll
    for (uint r_ = 0; r_ < UNPACK_ROUNDS; ++r_) {
        const uint n_ = lid + r_ * FFT_G * FFT_T;
        if (n_ < FFT_G * (FFT_L / 2 + 1)) {
            const uint e_ = n_ % (FFT_L / 2 + 1);
            __local const float2* row_ = tiles + n_ / (FFT_L / 2 + 1) * TILE_STRIDE;
            float2 a = cosine_bin_from_tile(row_, e_, pre_factors);
            float2 b = cosine_bin_from_tile(row_, FFT_L - e_, pre_factors);
            if (e_ == 0) { /* bins 0 and L, taken as real */
                a.y = 0.0f;
                b.y = 0.0f;
            }
            unpacked_[r_][0] = real_unpacked(a, b, pre_factors[e_]);
            unpacked_[r_][1] = real_unpacked(b, a, pre_factors[FFT_L - e_]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint r_ = 0; r_ < UNPACK_ROUNDS; ++r_) {
        const uint n_ = lid + r_ * FFT_G * FFT_T;
        if (n_ < FFT_G * (FFT_L / 2 + 1)) {
            const uint e_ = n_ % (FFT_L / 2 + 1);
            const uint row_ = n_ / (FFT_L / 2 + 1) * TILE_STRIDE;
            tiles[row_ + LDS_INDEX(e_)] = unpacked_[r_][0];
            if (e_ != 0 && 2 * e_ != FFT_L)
                tiles[row_ + LDS_INDEX(FFT_L - e_)] = unpacked_[r_][1];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#elif PRE_REAL_UNPACK && !EXCHANGE_PARTS
    /* Bins 0 .. L-1 into the tile as load_bin() gives them (coalesced), then
     * each pair e, L - e replaced by Z'[e], Z'[L - e] by the work-item that
     * read both; bin L comes from global memory for e = 0. irfft takes bins 0
     * and L as real (a DCT-III's are). */
    for (uint n_ = lid; n_ < FFT_G * FFT_L; n_ += FFT_G * FFT_T) {
        const uint lg_ = n_ / FFT_L, e_ = n_ % FFT_L;
        tiles[lg_ * TILE_STRIDE + LDS_INDEX(e_)] =
            first + lg_ < transforms ? load_bin(src, in, first + lg_, e_)
                                     : (float2)(0.0f, 0.0f);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint n_ = lid; n_ < FFT_G * (FFT_L / 2 + 1); n_ += FFT_G * FFT_T) {
        const uint lg_ = n_ / (FFT_L / 2 + 1), e_ = n_ % (FFT_L / 2 + 1);
        const uint row_ = lg_ * TILE_STRIDE;
        float2 a = tiles[row_ + LDS_INDEX(e_)];
        float2 b;
        if (e_ == 0) {
            b = first + lg_ < transforms
                    ? load_bin(src, in, first + lg_, FFT_L)
                    : (float2)(0.0f, 0.0f);
            a.y = 0.0f;
            b.y = 0.0f;
        } else {
            b = tiles[row_ + LDS_INDEX(FFT_L - e_)];
        }
        tiles[row_ + LDS_INDEX(e_)] = real_unpacked(a, b, pre_factors[e_]);
        if (e_ != 0 && 2 * e_ != FFT_L)
            tiles[row_ + LDS_INDEX(FFT_L - e_)] =
                real_unpacked(b, a, pre_factors[FFT_L - e_]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#elif !LOAD_DIRECT
    LOAD_TILE(transforms, LOAD_TRANSFORM_FASTEST)
#endif
#if FUSED_CONVOLUTION && HANDOFF_RADIX
    RUN_FFT(-1, LOAD_DIRECT, STAGE_REGISTERS)
    MULTIPLY_REGISTERS(conv_spectrum, CONV_PER_TRANSFORM, transforms)
#if FOLD > 1
    RUN_FOLDED_FFT(1, STORE_DIRECT)
#else
    RUN_FFT(1, STAGE_REGISTERS, STORE_DIRECT)
#endif
#elif FUSED_CONVOLUTION
    RUN_FFT(-1, LOAD_DIRECT, 0)
#if RADER
    /* The tile holds A = FFT(x[g^p]). Output 0 is x[0] + A[0] (the sum of all
     * points), and x[0] added to every other output is x[0] added to the DC bin
     * before the (unnormalised) inverse FFT. */
    for (uint n_ = lid; n_ < FFT_G * FFT_L; n_ += FFT_G * FFT_T) {
        const uint lg_ = n_ / FFT_L, p_ = n_ % FFT_L;
        const uint at_ = lg_ * TILE_STRIDE + LDS_INDEX(p_);
        float2 y = cmul(tiles[at_], conv_spectrum[p_]);
        if (p_ == 0 && first + lg_ < transforms) {
            const float2 x0 =
                load_element(src, in, first + lg_, 0, logical_length, pre_factors);
            store_element(dst, out, first + lg_, 0, x0 + tiles[at_], logical_length,
                          scale, post_factors, range);
            y += x0;
        }
        tiles[at_] = y;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#elif FOLD > 1
    MULTIPLY_FOLD_TILE(conv_spectrum, CONV_PER_TRANSFORM, transforms)
#else
    MULTIPLY_TILE(conv_spectrum, CONV_PER_TRANSFORM, transforms)
#endif
#if FOLD > 1
    RUN_FOLDED_FFT(1, STORE_DIRECT)
#else
    RUN_FFT(1, 0, STORE_DIRECT)
#endif
#else
    RUN_FFT(DIR, LOAD_DIRECT, STORE_DIRECT)
#endif
#if POST_REAL_UNPACK && !EXCHANGE_PARTS
    /* Each bin from its pair of points in the tile. */
    for (uint n_ = lid; n_ < FFT_G * FFT_L; n_ += FFT_G * FFT_T) {
        const uint lg_ = n_ / FFT_L, k_ = n_ % FFT_L;
        if (first + lg_ >= transforms)
            continue;
        const uint row_ = lg_ * TILE_STRIDE;
        STORE_MIRRORED(first + lg_, k_, tiles[row_ + LDS_INDEX(k_)],
                       tiles[row_ + LDS_INDEX(k_ ? FFT_L - k_ : 0)]);
    }
#elif COSINE_STORE
    for (uint n_ = lid; n_ < FFT_G * COSINE_FLOATS; n_ += FFT_G * FFT_T) {
        const uint lg_ = n_ / COSINE_FLOATS, f_ = n_ % COSINE_FLOATS;
        if (first + lg_ < transforms)
            store_cosine_element(dst, out, first + lg_, f_, tiles + lg_ * TILE_STRIDE,
                                 scale, post_factors);
    }
#elif !STORE_DIRECT && FOLD > 1
    STORE_TILE_POINTS(transforms, STORE_TRANSFORM_FASTEST, FOLDED_L)
#elif !STORE_DIRECT
    STORE_TILE(transforms, STORE_TRANSFORM_FASTEST)
#endif
}
