/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The two-dimensional DCT-II of the 8x8 blocks of images (block_dct) and,
 * built with INVERSE=1, its inverse, the two-dimensional DCT-III, with the
 * factorisation of Arai, Agui and Nakajima (AAN, 1988) along the columns and
 * then the rows of each block.
 *
 * AAN's 1-D DCT-II costs 5 multiplications per 8 points because its outputs
 * come out scaled: aan_forward gives s_k * sum_n x_n cos(pi k (2n+1) / 16),
 * s_0 = 1, s_k = 2 cos(k pi / 16). The scales of both passes and the
 * transform's own normalisation are one factor per output, scale[u * 8 + v]
 * (computed in double on the host), and the forward kernel multiplies each
 * output by it once, just before the store. The inverse, aan_inverse, gives
 * sum_k z_k cos(pi k (2n+1) / 16) / t_k with t_0 = 1, t_k = cos(k pi / 16),
 * so the inverse kernel multiplies each input by its factor once, just after
 * the load, and stores the result of the two passes as it is.
 *
 * A work-group of 64 work-items transforms 8 blocks, block b of the launch
 * being block b % blocks_per_row of block row (b % blocks_per_image) /
 * blocks_per_row of image b / blocks_per_image. Work-item lane holds column
 * lane % 8 of the group's block lane / 8 through the column pass, so that row
 * r of the 8 blocks is loaded (and stored) by 64 neighbouring work-items:
 * 256 contiguous bytes where the blocks are neighbours in an image row, runs
 * of 32 where they are not (a column of blocks), whatever the alignment. For the row
 * pass the work-items exchange through local memory: lane then holds row
 * lane % 8 of the same block. The tile's rows are padded to 65 floats, so both
 * ways the 32 work-items of a warp hit 32 different banks (mod 32, column r:
 * bank r + lane; element c of the row: (lane % 8) * 65 + lane - lane % 8 + c
 * = (lane % 8) * 64 + lane + c, bank lane + c).
 * A work-item writes its row back to the places it read it from, so one
 * barrier before and one after the row pass order the exchange.
 *
 * Work-items of blocks past the last (when blocks is not a multiple of 8)
 * take part in the barriers and load and store nothing. Every size is an
 * argument, so one program a direction serves every block_dct.
 */

#define TILE_PITCH 65

// On return, v[k] = s_k * sum_n v_n cos(pi k (2n+1) / 16) (see the top).
static inline void aan_forward(float* v)
{
    const float t0 = v[0] + v[7], t7 = v[0] - v[7];
    const float t1 = v[1] + v[6], t6 = v[1] - v[6];
    const float t2 = v[2] + v[5], t5 = v[2] - v[5];
    const float t3 = v[3] + v[4], t4 = v[3] - v[4];

    // even part: a 4-point DCT of t0 .. t3, one multiplication
    const float e10 = t0 + t3, e13 = t0 - t3;
    const float e11 = t1 + t2, e12 = t1 - t2;
    v[0] = e10 + e11;
    v[4] = e10 - e11;
    const float z1 = (e12 + e13) * 0.707106781186547524f; // cos(pi/4)
    v[2] = e13 + z1;
    v[6] = e13 - z1;

    // odd part: four multiplications, the rotation by pi/8 in three
    const float o10 = t4 + t5, o11 = t5 + t6, o12 = t6 + t7;
    const float z5 = (o10 - o12) * 0.382683432365089772f; // cos(3pi/8)
    const float z2 = 0.541196100146196984f * o10 + z5;    // cos(pi/8) - cos(3pi/8)
    const float z4 = 1.306562964876376527f * o12 + z5;    // cos(pi/8) + cos(3pi/8)
    const float z3 = o11 * 0.707106781186547524f;
    const float z11 = t7 + z3, z13 = t7 - z3;
    v[5] = z13 + z2;
    v[3] = z13 - z2;
    v[1] = z11 + z4;
    v[7] = z11 - z4;
}

// On return, v[n] = sum_k v_k cos(pi k (2n+1) / 16) / t_k (see the top): the
// steps of aan_forward reversed.
static inline void aan_inverse(float* v)
{
    // even part
    const float e10 = v[0] + v[4], e11 = v[0] - v[4];
    const float e13 = v[2] + v[6];
    const float e12 = (v[2] - v[6]) * 1.414213562373095049f - e13; // 2 cos(pi/4)
    const float t0 = e10 + e13, t3 = e10 - e13;
    const float t1 = e11 + e12, t2 = e11 - e12;

    // odd part
    const float z13 = v[5] + v[3], z10 = v[5] - v[3];
    const float z11 = v[1] + v[7], z12 = v[1] - v[7];
    const float t7 = z11 + z13;
    const float o11 = (z11 - z13) * 1.414213562373095049f;
    const float z5 = (z10 + z12) * 1.847759065022573512f; // 2 cos(pi/8)
    const float o10 = 1.082392200292393968f * z12 - z5;   // 2 (cos(pi/8) - cos(3pi/8))
    const float o12 = -2.613125929752753055f * z10 + z5;  // 2 (cos(pi/8) + cos(3pi/8))
    const float t6 = o12 - t7;
    const float t5 = o11 - t6;
    const float t4 = o10 + t5;

    v[0] = t0 + t7;
    v[7] = t0 - t7;
    v[1] = t1 + t6;
    v[6] = t1 - t6;
    v[2] = t2 + t5;
    v[5] = t2 - t5;
    v[4] = t3 + t4;
    v[3] = t3 - t4;
}

// The 1-D transform of the build's direction, in place.
static inline void aan(float* v)
{
#if INVERSE
    aan_inverse(v);
#else
    aan_forward(v);
#endif
}

/*
 * v: column lane % 8 of the work-item's block, top to bottom. Transforms the
 * column, then (through tile) the rows; on return v is the same column of the
 * result.
 */
static inline void columns_then_rows(float* v, __local float* tile, uint lane)
{
    aan(v);
#pragma unroll
    for (uint r = 0; r < 8; ++r)
        tile[r * TILE_PITCH + lane] = v[r];
    barrier(CLK_LOCAL_MEM_FENCE);

    // row lane % 8 of block lane / 8: columns lane - lane % 8 .. + 7 of the tile
    __local float* row = tile + (lane % 8) * TILE_PITCH + lane - lane % 8;
#pragma unroll
    for (uint c = 0; c < 8; ++c)
        v[c] = row[c];
    aan(v);
#pragma unroll
    for (uint c = 0; c < 8; ++c)
        row[c] = v[c];
    barrier(CLK_LOCAL_MEM_FENCE);

#pragma unroll
    for (uint r = 0; r < 8; ++r)
        v[r] = tile[r * TILE_PITCH + lane];
}

// The element offset of the top-left point of block b (see the top).
static inline uint block_origin(uint b,
                                uint blocks_per_row,
                                uint blocks_per_image,
                                uint row_pitch,
                                uint image_distance)
{
    const uint image = b / blocks_per_image, in_image = b % blocks_per_image;
    return image * image_distance + in_image / blocks_per_row * 8 * row_pitch +
           in_image % blocks_per_row * 8;
}

/*
 * scipy.fft.dctn(block, type=2) of every block of the images in input (image
 * i's point (y, x) at i * image_distance + y * row_pitch + x), written to the
 * same place of the output's geometry (INVERSE: scipy.fft.idctn(block,
 * type=2)). scale[u * 8 + v]: the AAN scales of both passes and the norm, for
 * output (u, v), which the forward transform multiplies as it stores it (for
 * input (u, v), which the inverse multiplies as it loads it).
 */
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void
block_dct(__global const float* input,
          uint row_pitch,
          uint image_distance,
          __global float* output,
          uint output_row_pitch,
          uint output_image_distance,
          uint blocks_per_row,
          uint blocks_per_image,
          uint blocks,
          __constant float* scale)
{
    __local float tile[8 * TILE_PITCH];
    const uint lane = get_local_id(0), column = lane % 8;
    const uint b = get_global_id(0) / 8;
    const bool active = b < blocks;

    float v[8];
    const uint in_at =
        active ? block_origin(
                     b, blocks_per_row, blocks_per_image, row_pitch, image_distance) +
                     column
               : 0;
#pragma unroll
    for (uint r = 0; r < 8; ++r)
        v[r] = active ? input[in_at + r * row_pitch] *
                            (INVERSE ? scale[r * 8 + column] : 1.0f)
                      : 0.0f;

    columns_then_rows(v, tile, lane);

    if (!active)
        return;
    const uint out_at = block_origin(b,
                                     blocks_per_row,
                                     blocks_per_image,
                                     output_row_pitch,
                                     output_image_distance) +
                        column;
#pragma unroll
    for (uint r = 0; r < 8; ++r)
        output[out_at + r * output_row_pitch] =
            v[r] * (INVERSE ? 1.0f : scale[r * 8 + column]);
}
