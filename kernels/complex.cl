/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Complex products of float2 values (x real, y imaginary), for every kernel. */

#ifndef WIDEBAND_COMPLEX_CL
#define WIDEBAND_COMPLEX_CL

/*
 * The codelets and stages are always inlined, whatever the compiler's inliner
 * thinks of their size: R and dir are constants only once inlined, and a copy
 * left out of line keeps its loops rolled (slow) and makes clang (PoCL) warn
 * "loop not unrolled" on every build. Every helper in kernels/ is static, so
 * that no external copy is emitted for that warning either.
 */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE float2 cmul(float2 a, float2 b)
{
    return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

ALWAYS_INLINE float2 cmul_conj(float2 a, float2 b) /* a * conj(b) */
{
    return (float2)(a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y);
}

#endif
