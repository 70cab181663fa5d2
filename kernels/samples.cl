/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The samples of an engine's input window: complex float, the complex
 * integers radios deliver, or real float, by the build option SAMPLE_T (float2
 * by default; short2 for sc16, char2 for sc8, float with SAMPLE_REAL for f32:
 * core::sample_type_option()). Kernels read
 * the window only through load_sample(), so the conversion costs no pass of
 * its own. Integers are taken as their values, as GNU Radio's
 * interleaved_short_to_complex and interleaved_char_to_complex do with their
 * default scale; every int16 and int8 is exact in float.
 * Needs IDX (the window's index type).
 */

#ifndef WIDEBAND_SAMPLES_CL
#define WIDEBAND_SAMPLES_CL

#ifndef SAMPLE_T
#define SAMPLE_T float2
#endif

static inline float2 load_sample(__global const SAMPLE_T* window, IDX index)
{
#ifdef SAMPLE_REAL
    return (float2)(window[index], 0.0f);
#else
    return convert_float2(window[index]);
#endif
}

#endif
