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
 * IDX (uint or ulong, the window's index type), SAMPLE_T (samples.cl).
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
 * point, points of consecutive frames on consecutive work-items.
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

/*
 * The mapped channels out of all M (channel-major spectra: channel c's frames at
 * spectra[c * frames ...]), into the output layout from out_offset on:
 * CHANNEL_MAJOR out[slot * out_stride + f], else frame-major out[f * slots + slot].
 */
__kernel void pfb_gather_channels(__global const float2* spectra,
                                  uint frames,
                                  __global const uint* channel_of_slot,
                                  uint slots,
                                  __global float2* out,
                                  IDX out_offset,
                                  IDX out_stride)
{
    const uint f = get_global_id(0), slot = get_global_id(1);
    if (f >= frames || slot >= slots)
        return;
    out += out_offset;
    const float2 x = spectra[(IDX)channel_of_slot[slot] * frames + f];
#if CHANNEL_MAJOR
    out[(IDX)slot * out_stride + f] = x;
#else
    out[(IDX)f * slots + slot] = x;
#endif
}

#endif /* WIDEBAND_PFB_FIR_CL */
