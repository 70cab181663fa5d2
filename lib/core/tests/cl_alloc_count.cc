/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// See cl_alloc_count.h.

#include "cl_alloc_count.h"

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <dlfcn.h>
#include <atomic>
#include <cstdint>

namespace {

std::atomic<int64_t> live_buffers{ 0 }, live_bytes{ 0 }, created{ 0 };

void CL_CALLBACK destroyed(cl_mem, void* size)
{
    live_buffers -= 1;
    live_bytes -= int64_t(reinterpret_cast<uintptr_t>(size));
}

using create_buffer_fn = cl_mem (*)(cl_context, cl_mem_flags, size_t, void*, cl_int*);

} // namespace

// Exported whatever the build's default visibility, so that the dynamic
// linker finds this definition before the ICD loader's.
#define EXPORTED __attribute__((visibility("default")))

extern "C" {

EXPORTED CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context context,
                                                        cl_mem_flags flags,
                                                        size_t size,
                                                        void* host_ptr,
                                                        cl_int* errcode_ret)
{
    static const auto next =
        reinterpret_cast<create_buffer_fn>(dlsym(RTLD_NEXT, "clCreateBuffer"));
    cl_mem buffer = next(context, flags, size, host_ptr, errcode_ret);
    if (buffer &&
        clSetMemObjectDestructorCallback(
            buffer, destroyed, reinterpret_cast<void*>(uintptr_t(size))) == CL_SUCCESS) {
        live_buffers += 1;
        live_bytes += int64_t(size);
        created += 1;
    }
    return buffer;
}

EXPORTED int64_t cl_alloc_count_live_buffers() { return live_buffers; }
EXPORTED int64_t cl_alloc_count_live_bytes() { return live_bytes; }
EXPORTED int64_t cl_alloc_count_created() { return created; }
}
