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
 * Radices: 2, 3, 4, 5, 7, 8, 11, 13 directly; 6, 10, 12, 14, 15 by the prime-factor
 * (Good-Thomas) mapping, which needs no twiddles; 9, 16 and 25 by Cooley-Tukey
 * with in-register twiddles. OpenCL C forbids recursion (even unreachable), so the
 * composite codelets call the base ones through dft_base(), never through dft().
 */

#ifndef WIDEBAND_FFT_CODELETS_CL
#define WIDEBAND_FFT_CODELETS_CL

inline float2 cmul(float2 a, float2 b)
{
    return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

inline float2 cmul_conj(float2 a, float2 b) /* a * conj(b) */
{
    return (float2)(a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y);
}

/* a * (dir * i): the rotation by a quarter turn in the transform's direction */
inline float2 mul_dir_i(float2 a, const int dir)
{
    return dir < 0 ? (float2)(a.y, -a.x) : (float2)(-a.y, a.x);
}

/* a * exp(dir * 2*pi*i * m / R) for compile-time m, R with R in {8, 9, 16, 25} */
inline float2 rotate(float2 a, const int m, const int R, const int dir)
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

inline void dft2(float2* v)
{
    const float2 a = v[0], b = v[1];
    v[0] = a + b;
    v[1] = a - b;
}

inline void dft4(float2* v, const int dir)
{
    const float2 t0 = v[0] + v[2], t1 = v[0] - v[2];
    const float2 t2 = v[1] + v[3], t3 = mul_dir_i(v[1] - v[3], dir);
    v[0] = t0 + t2;
    v[1] = t1 + t3;
    v[2] = t0 - t2;
    v[3] = t1 - t3;
}

inline void dft8(float2* v, const int dir)
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

/* cos and sin of 2*pi*m/p for the odd primes handled directly, m in [1, (p-1)/2] */
inline float prime_cos(const int p, const int m)
{
    if (p == 3) {
        return -5.000000000e-01f;
    } else if (p == 5) {
        const float c[2] = { 3.090169944e-01f, -8.090169944e-01f };
        return c[m - 1];
    } else if (p == 7) {
        const float c[3] = { 6.234898019e-01f, -2.225209340e-01f, -9.009688679e-01f };
        return c[m - 1];
    } else if (p == 11) {
        const float c[5] = { 8.412535328e-01f,  4.154150130e-01f, -1.423148383e-01f,
                             -6.548607339e-01f, -9.594929736e-01f };
        return c[m - 1];
    } else {
        const float c[6] = { 8.854560257e-01f,  5.680647467e-01f,  1.205366803e-01f,
                             -3.546048870e-01f, -7.485107482e-01f, -9.709418174e-01f };
        return c[m - 1];
    }
}

inline float prime_sin(const int p, const int m)
{
    if (p == 3) {
        return 8.660254038e-01f;
    } else if (p == 5) {
        const float s[2] = { 9.510565163e-01f, 5.877852523e-01f };
        return s[m - 1];
    } else if (p == 7) {
        const float s[3] = { 7.818314825e-01f, 9.749279122e-01f, 4.338837391e-01f };
        return s[m - 1];
    } else if (p == 11) {
        const float s[5] = { 5.406408175e-01f, 9.096319954e-01f, 9.898214419e-01f,
                             7.557495744e-01f, 2.817325568e-01f };
        return s[m - 1];
    } else {
        const float s[6] = { 4.647231720e-01f, 8.229838659e-01f, 9.927088741e-01f,
                             9.350162427e-01f, 6.631226582e-01f, 2.393156643e-01f };
        return s[m - 1];
    }
}

/*
 * Odd prime p: pair x[m] with x[p-m]. With a = x[m] + x[p-m], b = x[m] - x[p-m]:
 *   X[k]   = x0 + sum_m a_m cos(2pi mk/p) + dir*i * sum_m b_m sin(2pi mk/p)
 *   X[p-k] = x0 + sum_m a_m cos(2pi mk/p) - dir*i * sum_m b_m sin(2pi mk/p)
 * (p-1)^2/2 real-by-complex products instead of (p-1)^2 complex ones.
 */
inline void dft_odd_prime(float2* v, const int p, const int dir)
{
    float2 a[6], b[6];
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
inline void dft_base(float2* v, const int R, const int dir)
{
    if (R == 2)
        dft2(v);
    else if (R == 4)
        dft4(v, dir);
    else if (R == 8)
        dft8(v, dir);
    else if (R == 3 || R == 5 || R == 7 || R == 11 || R == 13)
        dft_odd_prime(v, R, dir);
}

/*
 * Good-Thomas for R = A*B with gcd(A, B) = 1: input n = (B*n1 + A*n2) mod R,
 * output k = (B*(B^-1 mod A)*k1 + A*(A^-1 mod B)*k2) mod R; no twiddles.
 * inv_b_mod_a, inv_a_mod_b are passed as constants by dft().
 */
inline void dft_pfa(float2* v,
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
inline void dft_ct(float2* v, const int A, const int B, const int dir)
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
inline void dft(float2* v, const int R, const int dir)
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
