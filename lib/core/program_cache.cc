/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "program_cache.h"
#include <gnuradio/wideband/core/environment.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

namespace fs = std::filesystem;

namespace gr {
namespace wideband {
namespace core {

namespace {

// FNV-1a: stable across runs and platforms (std::hash is not promised to be).
uint64_t fnv1a(const std::string& text, uint64_t h = 1469598103934665603ull)
{
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

} // namespace

std::string program_cache::directory()
{
    if (const auto chosen = environment::kernel_cache())
        return *chosen;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return std::string(xdg) + "/gr-wideband/kernels";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.cache/gr-wideband/kernels";
    return "";
}

program_cache::program_cache(const device_info& device,
                             const std::string& source,
                             const std::string& options)
{
    const std::string dir = directory();
    if (dir.empty())
        return;
    uint64_t h = fnv1a(device.platform_name);
    for (const auto* part :
         { &device.name, &device.version, &device.driver_version, &source, &options })
        h = fnv1a(*part + '\x1f', h);
    char name[32];
    std::snprintf(name, sizeof name, "%016llx.bin", static_cast<unsigned long long>(h));
    d_path = dir + "/" + name;
}

std::optional<std::vector<unsigned char>> program_cache::load() const
{
    if (d_path.empty())
        return std::nullopt;
    std::ifstream in(d_path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::vector<unsigned char> data((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
    if (data.empty())
        return std::nullopt;
    return data;
}

void program_cache::store(const std::vector<unsigned char>& binary) const
{
    if (d_path.empty() || binary.empty())
        return;
    std::error_code ec;
    fs::create_directories(fs::path(d_path).parent_path(), ec);
    if (ec)
        return;
    // Write then rename, so a concurrent reader never sees half a file.
    std::random_device rd;
    const std::string tmp = d_path + ".tmp" + std::to_string(rd());
    {
        std::ofstream out(tmp, std::ios::binary);
        if (!out)
            return;
        out.write(reinterpret_cast<const char*>(binary.data()),
                  static_cast<std::streamsize>(binary.size()));
        if (!out)
            return;
    }
    fs::rename(tmp, d_path, ec);
    if (ec)
        fs::remove(tmp, ec);
}

} // namespace core
} // namespace wideband
} // namespace gr
