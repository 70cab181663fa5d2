/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The OpenCL memory objects of the process, counted where the OpenCL runtime
 * cannot say how much device memory is in use (PoCL, NVIDIA): cl_alloc_count.cc
 * defines clCreateBuffer, which the process's calls reach before the ICD
 * loader's (linked into an executable that exports it, or preloaded with
 * LD_PRELOAD), passes each call on and counts the buffers it made until the
 * runtime destroys them (clSetMemObjectDestructorCallback). Buffers made by
 * the runtime for itself are not seen.
 */

#ifndef INCLUDED_WIDEBAND_TEST_CL_ALLOC_COUNT_H
#define INCLUDED_WIDEBAND_TEST_CL_ALLOC_COUNT_H

#include <cstdint>

extern "C" {
//! Buffers made by clCreateBuffer and not yet destroyed.
int64_t cl_alloc_count_live_buffers();
//! Their bytes.
int64_t cl_alloc_count_live_bytes();
//! Every buffer clCreateBuffer has made.
int64_t cl_alloc_count_created();
}

#endif /* INCLUDED_WIDEBAND_TEST_CL_ALLOC_COUNT_H */
