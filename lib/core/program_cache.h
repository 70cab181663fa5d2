/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_PROGRAM_CACHE_H
#define INCLUDED_WIDEBAND_CORE_PROGRAM_CACHE_H

#include <gnuradio/wideband/core/device.h>

#include <optional>
#include <string>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

/*!
 * \brief The on-disk copy of one compiled program.
 *
 * Directory: $WIDEBAND_KERNEL_CACHE, else $XDG_CACHE_HOME/gr-wideband/kernels,
 * else ~/.cache/gr-wideband/kernels; WIDEBAND_KERNEL_CACHE=off disables it. The
 * file name hashes the platform, device, driver, full source and options, so a
 * changed kernel or driver never loads a stale binary. I/O errors only disable
 * the cache: it can make start-up faster, never make it fail.
 */
class program_cache
{
public:
    program_cache(const device_info& device,
                  const std::string& source,
                  const std::string& options);

    std::optional<std::vector<unsigned char>> load() const;
    void store(const std::vector<unsigned char>& binary) const;

    //! The cache directory in effect, or "" when disabled.
    static std::string directory();

private:
    std::string d_path; // empty when disabled
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_PROGRAM_CACHE_H */
