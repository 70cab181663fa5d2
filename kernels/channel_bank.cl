/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The per-channel steps of the fast-convolution channel bank
 * (core::channel_bank), between one forward FFT of the wideband blocks and
 * one batched inverse FFT per inverse length.
 *
 * Block j of a call holds the L samples from stream position
 * s = position + j H - O on (O = L - H history samples); its spectrum X_j is
 * row j of `spectrum`. Channel c (centre bin b, decimation D, inverse length
 * B = L / F with F = gcd(D, L)) wants the outputs at the multiples m of D in
 * [position + j H, position + j H + H), the first of them at t0 = m_first - s
 * within the block. bank_fold computes, for q' < B,
 *
 *   folded[q'] = sum over q of the window, q = q' (mod B), of
 *                X_j[(q + b) mod L] * response[q] * e^{2 pi i q t0 / L},
 *
 * whose B-point inverse FFT is L times the block's filtered, shifted samples
 * at t0, t0 + F, t0 + 2F, ... (decimation by F in frequency, exact: the fold
 * is what decimation in time does to a spectrum). response holds the bins of
 * the channel's window, already scaled by 1 / L. bank_extract then takes every
 * (D / F)-th of those values and applies the block's and the stream's phases.
 * Channels whose decimation shares few factors with L (B = 0 in their
 * description) skip the fold: bank_extract sums the window for each of their
 * outputs directly, cheaper than a long inverse FFT for a few outputs.
 *
 * The channels' descriptions are arrays indexed by channel; a work-item finds
 * its channel by binary search in a prefix table.
 */

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#include "complex.cl"

// a mod n in [0, n)
static inline long positive_mod(long a, long n)
{
    const long r = a % n;
    return r < 0 ? r + n : r;
}

// The c with starts[c] <= k < starts[c + 1], for starts[0] = 0 <= k < starts[count].
static inline uint find_channel(__global const ulong* starts, uint count, ulong k)
{
    uint lo = 0, hi = count;
    while (hi - lo > 1) {
        const uint mid = (lo + hi) / 2;
        if (starts[mid] <= k)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

// The first multiple of D at or after p (p >= 0).
static inline long first_multiple(long p, long D) { return (p + D - 1) / D * D; }

__kernel void bank_fold(__global const float2* spectrum,
                        __global float2* folded,
                        __global const float2* responses,
                        __global const float2* twiddles, // e^{2 pi i k / L}, k < L
                        __global const ulong* bin_starts,     // prefix sums of B, channels + 1
                        __global const uint* inverse_lengths, // B
                        __global const uint* decimations,     // D
                        __global const uint* centre_bins,     // b
                        __global const int* window_starts,    // first q of the window
                        __global const uint* window_lengths,  // its bins
                        __global const ulong* response_offsets,
                        __global const ulong* fold_offsets, // where the channel's group starts
                        __global const uint* group_sizes,   // channels in the group
                        __global const uint* group_indices, // the channel's place in it
                        uint channels,
                        uint length,       // L
                        uint step,         // H
                        uint history,      // O
                        ulong position)    // the stream position of block 0's new samples
{
    const ulong k = get_global_id(0);
    const uint j = get_global_id(1);
    if (k >= bin_starts[channels])
        return;
    const uint c = find_channel(bin_starts, channels, k);
    const long B = inverse_lengths[c];
    const long q_fold = (long)(k - bin_starts[c]);
    const long L = length;
    const long D = decimations[c];
    const long region = (long)position + (long)j * step;
    const long t0 = first_multiple(region, D) - (region - (long)history);
    const long lo = window_starts[c];
    const long end = lo + (long)window_lengths[c];
    const long b = centre_bins[c];
    __global const float2* x = spectrum + (ulong)j * length;
    __global const float2* h = responses + response_offsets[c];

    // The bin and the twiddle's index step by B and B t0 (mod L) from term to
    // term: one 64-bit remainder per work-item, not two per term (GPUs emulate
    // them); the twiddles come from a table computed in double precision.
    const long q0 = lo + positive_mod(q_fold - lo, B);
    uint bin = (uint)positive_mod(q0 + b, L);
    uint index = (uint)positive_mod(q0 * t0, L);
    const uint index_step = (uint)positive_mod(B * t0, L);
    const uint n = (uint)L, bin_step = (uint)(B % L);
    float2 sum = (float2)(0.0f, 0.0f);
    for (long q = q0; q < end; q += B) {
        sum += cmul(cmul(x[bin], h[q - lo]), twiddles[index]);
        bin += bin_step;
        bin -= bin >= n ? n : 0;
        index += index_step;
        index -= index >= n ? n : 0;
    }
    folded[fold_offsets[c] + ((ulong)j * group_sizes[c] + group_indices[c]) * B + q_fold] =
        sum;
}

__kernel void bank_extract(__global const float2* folded,
                           __global const float2* spectrum,
                           __global const float2* responses,
                           __global const float2* twiddles,
                           __global const int* window_starts,
                           __global const uint* window_lengths,
                           __global const ulong* response_offsets,
                           __global float2* output,
                           ulong output_offset,
                           __global const ulong* output_starts, // this call's, channels + 1
                           __global const ulong* next_outputs,  // each channel's first, this call
                           __global const uint* inverse_lengths,
                           __global const uint* decimations,
                           __global const uint* centre_bins,
                           __global const ulong* fold_offsets,
                           __global const uint* group_sizes,
                           __global const uint* group_indices,
                           __global const double* residual_rates, // cycles per sample
                           __global const double* residual_starts, // cycles at `position`
                           __global const float2* scales,          // K (start phase)
                           uint frame_major, // output n of channel c at n * channels + c
                           uint channels,
                           uint length,
                           uint step,
                           uint history,
                           ulong position)
{
    const ulong k = get_global_id(0);
    if (k >= output_starts[channels])
        return;
    const uint c = find_channel(output_starts, channels, k);
    const ulong nth = k - output_starts[c];
    const long L = length;
    const long D = decimations[c];
    const long B = inverse_lengths[c]; // 0: a direct channel
    const long m = (long)(next_outputs[c] + nth) * D;
    const long j = (m - (long)position) / (long)step;
    const long region = (long)position + j * step;
    const long s = region - (long)history;
    float2 u = (float2)(0.0f, 0.0f);
    if (B > 0) {
        const long i = (m - first_multiple(region, D)) / (L / B);
        u = folded[fold_offsets[c] + ((ulong)j * group_sizes[c] + group_indices[c]) * B + i];
    } else {
        // A direct channel: this output's sum over the window, what the fold
        // and inverse FFT compute for the others.
        const long lo = window_starts[c];
        const uint n = (uint)L;
        const uint t = (uint)(m - s);
        __global const float2* x = spectrum + (ulong)j * length;
        __global const float2* h = responses + response_offsets[c];
        uint bin = (uint)positive_mod(lo + (long)centre_bins[c], L);
        uint index = (uint)positive_mod(lo * (long)t, L);
        for (uint k = 0; k < window_lengths[c]; ++k) {
            u += cmul(cmul(x[bin], h[k]), twiddles[index]);
            bin += 1;
            bin -= bin >= n ? n : 0;
            index += t;
            index -= index >= n ? n : 0;
        }
    }

    // e^{-2 pi i b s / L} for the block's start s, and the residual rotation
    // e^{-2 pi i rho m}, in cycles.
    const long block = positive_mod(positive_mod(s, L) * (long)centre_bins[c], L);
    double cycles = (double)block / (double)L + residual_starts[c] +
                    residual_rates[c] * (double)(m - (long)position);
    cycles -= floor(cycles);
    float cosine;
    const float sine = sincos(-6.283185307179586f * (float)cycles, &cosine);
    output[output_offset + (frame_major ? nth * channels + c : k)] =
        cmul(scales[c], cmul((float2)(cosine, sine), u));
}
