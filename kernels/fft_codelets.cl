/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * Small DFTs ("codelets") on values held in private registers.
 *
 *   X[k] = sum_n x[n] * exp(dir * 2*pi*i * n*k / R),   dir = -1 forward, +1 inverse
 *
 * Every codelet works in place on v[0..R) and leaves the result in natural order.
 * R and dir are compile-time constants at every call site, so after inlining the
 * loops unroll, the constant tables fold into literals and v[] lives in registers.
 *
 * Radices: 2, 3, 4, 5, 7, 8 and the primes 11 ... 31 directly; 6, 10, 12, 14, 15
 * by the prime-factor (Good-Thomas) mapping, which needs no twiddles; 9, 16 and 25
 * by Cooley-Tukey
 * with in-register twiddles. OpenCL C forbids recursion (even unreachable), so the
 * composite codelets call the base ones through dft_base(), never through dft().
 */

#ifndef WIDEBAND_FFT_CODELETS_CL
#define WIDEBAND_FFT_CODELETS_CL

#include "complex.cl"

/* a * (dir * i): the rotation by a quarter turn in the transform's direction */
ALWAYS_INLINE float2 mul_dir_i(float2 a, const int dir)
{
    return dir < 0 ? (float2)(a.y, -a.x) : (float2)(-a.y, a.x);
}

/* a * exp(dir * 2*pi*i * m / R) for compile-time m, R with R in {8, 9, 16, 25} */
ALWAYS_INLINE float2 rotate(float2 a, const int m, const int R, const int dir)
{
    const int mm = m % R;
    float c = 1.0f, s = 0.0f; /* cos and sin of 2*pi*mm/R */
    if (R == 8) {
        const float cs[8] = { 1.0f, 7.071067812e-01f, 0.0f, -7.071067812e-01f,
                              -1.0f, -7.071067812e-01f, 0.0f, 7.071067812e-01f };
        c = cs[mm];
        s = cs[(mm + 6) % 8];
    } else if (R == 9) {
        const float cs[9] = { 1.0f,           7.660444431e-01f,  1.736481777e-01f,
                              -5.000000000e-01f, -9.396926208e-01f, -9.396926208e-01f,
                              -5.000000000e-01f, 1.736481777e-01f,  7.660444431e-01f };
        const float sn[9] = { 0.0f,           6.427876097e-01f,  9.848077530e-01f,
                              8.660254038e-01f,  3.420201433e-01f,  -3.420201433e-01f,
                              -8.660254038e-01f, -9.848077530e-01f, -6.427876097e-01f };
        c = cs[mm];
        s = sn[mm];
    } else if (R == 16) {
        const float cs[16] = { 1.0f,
                               9.238795325e-01f,
                               7.071067812e-01f,
                               3.826834324e-01f,
                               0.0f,
                               -3.826834324e-01f,
                               -7.071067812e-01f,
                               -9.238795325e-01f,
                               -1.0f,
                               -9.238795325e-01f,
                               -7.071067812e-01f,
                               -3.826834324e-01f,
                               0.0f,
                               3.826834324e-01f,
                               7.071067812e-01f,
                               9.238795325e-01f };
        c = cs[mm];
        s = cs[(mm + 12) % 16];
    } else if (R == 25) {
        const float cs[25] = {
            1.000000000e+00f,  9.685831611e-01f,  8.763066800e-01f,  7.289686274e-01f,
            5.358267950e-01f,  3.090169944e-01f,  6.279051953e-02f,  -1.873813146e-01f,
            -4.257792916e-01f, -6.374239897e-01f, -8.090169944e-01f, -9.297764859e-01f,
            -9.921147013e-01f, -9.921147013e-01f, -9.297764859e-01f, -8.090169944e-01f,
            -6.374239897e-01f, -4.257792916e-01f, -1.873813146e-01f, 6.279051953e-02f,
            3.090169944e-01f,  5.358267950e-01f,  7.289686274e-01f,  8.763066800e-01f,
            9.685831611e-01f
        };
        const float sn[25] = {
            0.0f,              2.486898872e-01f,  4.817536741e-01f,  6.845471059e-01f,
            8.443279255e-01f,  9.510565163e-01f,  9.980267284e-01f,  9.822872507e-01f,
            9.048270525e-01f,  7.705132428e-01f,  5.877852523e-01f,  3.681245527e-01f,
            1.253332336e-01f,  -1.253332336e-01f, -3.681245527e-01f, -5.877852523e-01f,
            -7.705132428e-01f, -9.048270525e-01f, -9.822872507e-01f, -9.980267284e-01f,
            -9.510565163e-01f, -8.443279255e-01f, -6.845471059e-01f, -4.817536741e-01f,
            -2.486898872e-01f
        };
        c = cs[mm];
        s = sn[mm];
    }
    /* exp(dir*i*theta) = cos(theta) + dir*i*sin(theta) */
    const float sd = dir < 0 ? -s : s;
    return (float2)(a.x * c - a.y * sd, a.x * sd + a.y * c);
}

ALWAYS_INLINE void dft2(float2* v)
{
    const float2 a = v[0], b = v[1];
    v[0] = a + b;
    v[1] = a - b;
}

ALWAYS_INLINE void dft4(float2* v, const int dir)
{
    const float2 t0 = v[0] + v[2], t1 = v[0] - v[2];
    const float2 t2 = v[1] + v[3], t3 = mul_dir_i(v[1] - v[3], dir);
    v[0] = t0 + t2;
    v[1] = t1 + t3;
    v[2] = t0 - t2;
    v[3] = t1 - t3;
}

ALWAYS_INLINE void dft8(float2* v, const int dir)
{
    /* radix-2 decimation in time over two DFT-4s */
    float2 e[4] = { v[0], v[2], v[4], v[6] };
    float2 o[4] = { v[1], v[3], v[5], v[7] };
    dft4(e, dir);
    dft4(o, dir);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const float2 t = rotate(o[k], k, 8, dir);
        v[k] = e[k] + t;
        v[k + 4] = e[k] - t;
    }
}

/*
 * cos and sin of 2*pi*m/p, m = 1 ... (p-1)/2, for the odd primes p handled
 * directly (3 ... 31), one prime after another. Program-scope constants with
 * compile-time indices: the compiler folds every read into a literal.
 */
__constant float prime_cos_table[74] = {
    /*  3 */ -5.000000000e-01f,
    /*  5 */ 3.090169944e-01f, -8.090169944e-01f,
    /*  7 */ 6.234898019e-01f, -2.225209340e-01f, -9.009688679e-01f,
    /* 11 */ 8.412535328e-01f, 4.154150130e-01f, -1.423148383e-01f, -6.548607339e-01f,
             -9.594929736e-01f,
    /* 13 */ 8.854560257e-01f, 5.680647467e-01f, 1.205366803e-01f, -3.546048870e-01f,
             -7.485107482e-01f, -9.709418174e-01f,
    /* 17 */ 9.324722294e-01f, 7.390089172e-01f, 4.457383558e-01f, 9.226835946e-02f,
             -2.736629901e-01f, -6.026346364e-01f, -8.502171357e-01f,
             -9.829730997e-01f,
    /* 19 */ 9.458172417e-01f, 7.891405094e-01f, 5.469481581e-01f, 2.454854871e-01f,
             -8.257934547e-02f, -4.016954247e-01f, -6.772815716e-01f,
             -8.794737512e-01f, -9.863613034e-01f,
    /* 23 */ 9.629172873e-01f, 8.544194045e-01f, 6.825531432e-01f, 4.600650377e-01f,
             2.034560131e-01f, -6.824241336e-02f, -3.348796122e-01f, -5.766803221e-01f,
             -7.757112907e-01f, -9.172113015e-01f, -9.906859460e-01f,
    /* 29 */ 9.766205557e-01f, 9.075754197e-01f, 7.960930657e-01f, 6.473862848e-01f,
             4.684084407e-01f, 2.675283385e-01f, 5.413890859e-02f, -1.617819966e-01f,
             -3.701381553e-01f, -5.611870654e-01f, -7.259954919e-01f,
             -8.568571762e-01f, -9.476531712e-01f, -9.941379572e-01f,
    /* 31 */ 9.795299413e-01f, 9.189578116e-01f, 8.207634412e-01f, 6.889669191e-01f,
             5.289640103e-01f, 3.473052528e-01f, 1.514277775e-01f, -5.064916884e-02f,
             -2.506525323e-01f, -4.403941516e-01f, -6.121059825e-01f,
             -7.587581227e-01f, -8.743466161e-01f, -9.541392564e-01f,
             -9.948693234e-01f
};

__constant float prime_sin_table[74] = {
    /*  3 */ 8.660254038e-01f,
    /*  5 */ 9.510565163e-01f, 5.877852523e-01f,
    /*  7 */ 7.818314825e-01f, 9.749279122e-01f, 4.338837391e-01f,
    /* 11 */ 5.406408175e-01f, 9.096319954e-01f, 9.898214419e-01f, 7.557495744e-01f,
             2.817325568e-01f,
    /* 13 */ 4.647231720e-01f, 8.229838659e-01f, 9.927088741e-01f, 9.350162427e-01f,
             6.631226582e-01f, 2.393156643e-01f,
    /* 17 */ 3.612416662e-01f, 6.736956436e-01f, 8.951632914e-01f, 9.957341763e-01f,
             9.618256432e-01f, 7.980172273e-01f, 5.264321629e-01f, 1.837495178e-01f,
    /* 19 */ 3.246994692e-01f, 6.142127127e-01f, 8.371664783e-01f, 9.694002659e-01f,
             9.965844930e-01f, 9.157733267e-01f, 7.357239107e-01f, 4.759473930e-01f,
             1.645945903e-01f,
    /* 23 */ 2.697967712e-01f, 5.195839500e-01f, 7.308359643e-01f, 8.878852184e-01f,
             9.790840877e-01f, 9.976687692e-01f, 9.422609221e-01f, 8.169698930e-01f,
             6.310879443e-01f, 3.984010898e-01f, 1.361666491e-01f,
    /* 29 */ 2.149704402e-01f, 4.198891016e-01f, 6.051742152e-01f, 7.621620551e-01f,
             8.835120444e-01f, 9.635499925e-01f, 9.985334139e-01f, 9.868265225e-01f,
             9.289767198e-01f, 8.276889982e-01f, 6.876994589e-01f, 5.155538572e-01f,
             3.193015301e-01f, 1.081190184e-01f,
    /* 31 */ 2.012985201e-01f, 3.943558551e-01f, 5.712682151e-01f, 7.247927872e-01f,
             8.486442575e-01f, 9.377521321e-01f, 9.884683243e-01f, 9.987165072e-01f,
             9.680771189e-01f, 8.978045396e-01f, 7.907757369e-01f, 6.513724827e-01f,
             4.853019625e-01f, 2.993631230e-01f, 1.011683220e-01f
};

/* Where prime p's entries start: the sum of (q-1)/2 over the odd primes q < p. */
ALWAYS_INLINE int prime_table_offset(const int p)
{
    return p == 3 ? 0 : p == 5 ? 1 : p == 7 ? 3 : p == 11 ? 6 : p == 13 ? 11 : p == 17 ? 17 : p == 19 ? 25 : p == 23 ? 34 : p == 29 ? 45 : 59;
}

ALWAYS_INLINE float prime_cos(const int p, const int m)
{
    return prime_cos_table[prime_table_offset(p) + m - 1];
}

ALWAYS_INLINE float prime_sin(const int p, const int m)
{
    return prime_sin_table[prime_table_offset(p) + m - 1];
}

/*
 * Odd prime p: pair x[m] with x[p-m]. With a = x[m] + x[p-m], b = x[m] - x[p-m]:
 *   X[k]   = x0 + sum_m a_m cos(2pi mk/p) + dir*i * sum_m b_m sin(2pi mk/p)
 *   X[p-k] = x0 + sum_m a_m cos(2pi mk/p) - dir*i * sum_m b_m sin(2pi mk/p)
 * (p-1)^2/2 real-by-complex products instead of (p-1)^2 complex ones.
 */
ALWAYS_INLINE void dft_odd_prime(float2* v, const int p, const int dir)
{
    float2 a[15], b[15];
    float2 sum = v[0];
#pragma unroll
    for (int m = 1; m <= (p - 1) / 2; ++m) {
        a[m - 1] = v[m] + v[p - m];
        b[m - 1] = v[m] - v[p - m];
        sum += a[m - 1];
    }
    const float2 x0 = v[0];
    v[0] = sum;
#pragma unroll
    for (int k = 1; k <= (p - 1) / 2; ++k) {
        float2 c = x0, s = (float2)(0.0f, 0.0f);
#pragma unroll
        for (int m = 1; m <= (p - 1) / 2; ++m) {
            int mk = (m * k) % p;
            const int sign = mk > p / 2 ? -1 : 1; /* sin(2pi(p-j)/p) = -sin(2pi j/p) */
            mk = mk > p / 2 ? p - mk : mk;
            c += a[m - 1] * prime_cos(p, mk);
            s += b[m - 1] * (sign * prime_sin(p, mk));
        }
        const float2 t = mul_dir_i(s, dir);
        v[k] = c + t;
        v[p - k] = c - t;
    }
}

/* The codelets composite radices are built from. */
ALWAYS_INLINE void dft_base(float2* v, const int R, const int dir)
{
    if (R == 2)
        dft2(v);
    else if (R == 4)
        dft4(v, dir);
    else if (R == 8)
        dft8(v, dir);
    else
        dft_odd_prime(v, R, dir); /* 3, 5, 7, 11, 13, 17, 19, 23, 29, 31 */
}

/*
 * Good-Thomas for R = A*B with gcd(A, B) = 1: input n = (B*n1 + A*n2) mod R,
 * output k = (B*(B^-1 mod A)*k1 + A*(A^-1 mod B)*k2) mod R; no twiddles.
 * inv_b_mod_a, inv_a_mod_b are passed as constants by dft().
 */
ALWAYS_INLINE void dft_pfa(float2* v,
                           const int A,
                           const int B,
                           const int inv_b_mod_a,
                           const int inv_a_mod_b,
                           const int dir)
{
    const int R = A * B;
    float2 y[16];
#pragma unroll
    for (int n2 = 0; n2 < B; ++n2) {
        float2 col[8];
#pragma unroll
        for (int n1 = 0; n1 < A; ++n1)
            col[n1] = v[(B * n1 + A * n2) % R];
        dft_base(col, A, dir);
#pragma unroll
        for (int k1 = 0; k1 < A; ++k1)
            y[k1 * B + n2] = col[k1];
    }
#pragma unroll
    for (int k1 = 0; k1 < A; ++k1) {
        float2 row[8];
#pragma unroll
        for (int n2 = 0; n2 < B; ++n2)
            row[n2] = y[k1 * B + n2];
        dft_base(row, B, dir);
#pragma unroll
        for (int k2 = 0; k2 < B; ++k2)
            v[(B * inv_b_mod_a * k1 + A * inv_a_mod_b * k2) % R] = row[k2];
    }
}

/*
 * Cooley-Tukey for R = A*B: n = B*n1 + n2, k = k1 + A*k2;
 * DFT-A down the columns, twiddle W_R^(n2*k1), DFT-B along the rows.
 */
ALWAYS_INLINE void dft_ct(float2* v, const int A, const int B, const int dir)
{
    const int R = A * B;
    float2 y[25];
#pragma unroll
    for (int n2 = 0; n2 < B; ++n2) {
        float2 col[8];
#pragma unroll
        for (int n1 = 0; n1 < A; ++n1)
            col[n1] = v[B * n1 + n2];
        dft_base(col, A, dir);
#pragma unroll
        for (int k1 = 0; k1 < A; ++k1)
            y[k1 * B + n2] = rotate(col[k1], n2 * k1, R, dir);
    }
#pragma unroll
    for (int k1 = 0; k1 < A; ++k1) {
        float2 row[8];
#pragma unroll
        for (int n2 = 0; n2 < B; ++n2)
            row[n2] = y[k1 * B + n2];
        dft_base(row, B, dir);
#pragma unroll
        for (int k2 = 0; k2 < B; ++k2)
            v[k1 + A * k2] = row[k2];
    }
}

/* DFT of any supported radix R (see fft_planner.cc: supported_radices). */
ALWAYS_INLINE void dft(float2* v, const int R, const int dir)
{
    if (R == 6)
        dft_pfa(v, 2, 3, 1, 2, dir);
    else if (R == 10)
        dft_pfa(v, 2, 5, 1, 3, dir);
    else if (R == 12)
        dft_pfa(v, 4, 3, 3, 1, dir);
    else if (R == 14)
        dft_pfa(v, 2, 7, 1, 4, dir);
    else if (R == 15)
        dft_pfa(v, 3, 5, 2, 2, dir);
    else if (R == 9)
        dft_ct(v, 3, 3, dir);
    else if (R == 16)
        dft_ct(v, 4, 4, dir);
    else if (R == 25)
        dft_ct(v, 5, 5, dir);
    else
        dft_base(v, R, dir);
}

#endif /* WIDEBAND_FFT_CODELETS_CL */
