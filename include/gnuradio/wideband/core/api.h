/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_API_H
#define INCLUDED_WIDEBAND_CORE_API_H

// Symbol visibility of the GNU Radio-free core library (libwideband-core).
#if defined(_WIN32)
#ifdef wideband_core_EXPORTS
#define WIDEBAND_CORE_API __declspec(dllexport)
#else
#define WIDEBAND_CORE_API __declspec(dllimport)
#endif
#else
#define WIDEBAND_CORE_API __attribute__((visibility("default")))
#endif

#endif /* INCLUDED_WIDEBAND_CORE_API_H */
