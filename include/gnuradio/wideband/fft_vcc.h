/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// fft_vcc is fft_v<gr_complex> (fft_v.h); this header stays for the code and
// generated flowgraphs that include it by its earlier name.

#ifndef INCLUDED_WIDEBAND_FFT_VCC_H
#define INCLUDED_WIDEBAND_FFT_VCC_H

#include <gnuradio/wideband/fft_v.h>

#endif /* INCLUDED_WIDEBAND_FFT_VCC_H */
