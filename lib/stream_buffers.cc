/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "stream_buffers.h"

#include <fstream>
#include <mutex>

// GNU Radio 3.10 exports these (libgnuradio-runtime) but does not install the
// header that declares them (vmcircbuf.h); only static functions are used.
namespace gr {
class vmcircbuf_factory;
class vmcircbuf_sysconfig
{
public:
    static vmcircbuf_factory* get_default_factory();
    static void set_default_factory(vmcircbuf_factory* f);
};
class vmcircbuf_sysv_shm_factory
{
public:
    static vmcircbuf_factory* singleton();
};
class vmcircbuf_mmap_shm_open_factory
{
public:
    static vmcircbuf_factory* singleton();
};
} // namespace gr

namespace gr {
namespace wideband {

namespace {

size_t shared_memory_segments()
{
    std::ifstream in("/proc/sys/kernel/shmmni");
    size_t segments = 4096; // Linux's default
    in >> segments;
    return segments;
}

} // namespace

void ensure_buffers_for_streams(size_t streams, const gr::logger_ptr& logger)
{
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    if (2 * streams <= shared_memory_segments() / 4)
        return;
    if (vmcircbuf_sysconfig::get_default_factory() !=
        vmcircbuf_sysv_shm_factory::singleton())
        return;
    vmcircbuf_sysconfig::set_default_factory(
        vmcircbuf_mmap_shm_open_factory::singleton());
    logger->info("{:d} output streams would exhaust System V shared memory "
                 "(kernel.shmmni = {:d}): switched GNU Radio to the shm_open buffer "
                 "factory (gr::vmcircbuf_mmap_shm_open_factory). For thousands of "
                 "channels, vector_output=True is lighter still.",
                 streams,
                 shared_memory_segments());
}

} // namespace wideband
} // namespace gr
