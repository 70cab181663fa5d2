/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The polyphase filterbank synthesizer (GNU Radio's pfb_synthesizer_ccf) in
 * two passes around a batched inverse FFT of P points (P = M, or 2M with
 * twox): pfb_synth_scatter builds each frame's FFT input from its N channel
 * samples, pfb_synth_fir filters the transformed frames y into the output.
 *
 * The in-tree block feeds y_n[i] to branch filter i (taps[i + j M], j < K)
 * without twox. With twox it feeds y_n[s M + i] to filter i, whose taps are
 * taps[i + j M] at odd j, and y_n[(1 - s) M + i] to filter M + i, the even j,
 * s = n mod 2, and sums both. Either way output i of frame n is
 *
 *   out[n M + i] = sum_{j<K} taps[i + j M] * y_{n-j}[o_n + i],
 *
 * o_n = 0 without twox, else M for even n and 0 for odd n (a frame n - j with
 * odd j has the other parity, so filter i's input at its odd taps is the same
 * half of y as filter M + i's at its even taps).
 *
 * Every size is an argument, so one program serves every engine.
 */

/*
 * FFT input point b of frame g: the sample of the input mapped to bin b
 * (input_of_bin[b], -1: none, zero), frame g's samples being window[first +
 * g N ...]. One work-item per point.
 */
__kernel void pfb_synth_scatter(__global const float2* window,
                                uint first,
                                uint inputs,
                                uint points,
                                uint frames,
                                __global const int* input_of_bin,
                                __global float2* fft_input)
{
    const uint b = get_global_id(0), g = get_global_id(1);
    if (b >= points || g >= frames)
        return;
    const int i = input_of_bin[b];
    fft_input[g * points + b] =
        i >= 0 ? window[first + g * inputs + (uint)i] : (float2)(0.0f, 0.0f);
}

/*
 * Output i of frame f of the call, from the transformed frames spectra[g P
 * ...], g = 0 .. frames + K - 2, of which frame f's is g = f + K - 1 (the
 * K - 1 before it being the history). first_parity is the stream frame
 * number of frame 0, mod 2; twox_half is M with twox, else 0. taps holds the
 * prototype zero padded to K M.
 */
__kernel void pfb_synth_fir(__global const float2* spectra,
                            uint channels,
                            uint points,
                            uint taps_per_branch,
                            uint frames,
                            uint first_parity,
                            uint twox_half,
                            __global const float* taps,
                            __global float2* out,
                            uint out_offset)
{
    const uint n = get_global_id(0);
    const uint f = n / channels, i = n % channels;
    if (f >= frames)
        return;
    const uint offset = ((first_parity + f) & 1) ? 0 : twox_half;
    const uint newest = f + taps_per_branch - 1;
    float2 sum = (float2)(0.0f, 0.0f);
    for (uint j = 0; j < taps_per_branch; ++j)
        sum += taps[i + j * channels] * spectra[(newest - j) * points + offset + i];
    out[out_offset + n] = sum;
}
