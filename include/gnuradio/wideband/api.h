/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_API_H
#define INCLUDED_WIDEBAND_API_H

#include <gnuradio/attributes.h>

// Symbol visibility of the GNU Radio blocks library (libgnuradio-wideband).
#ifdef gnuradio_wideband_EXPORTS
#define WIDEBAND_API __GR_ATTR_EXPORT
#else
#define WIDEBAND_API __GR_ATTR_IMPORT
#endif

#endif /* INCLUDED_WIDEBAND_API_H */
