/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// host_copy and parallel_for: every byte copied, every part run once, errors
// passed to the caller, several callers at once.

#define BOOST_TEST_MODULE qa_host_copy
#include <boost/test/unit_test.hpp>

#include <gnuradio/wideband/core/host_copy.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

namespace core = gr::wideband::core;

namespace {

std::vector<uint8_t> random_bytes(size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::vector<uint8_t> v(n);
    for (auto& b : v)
        b = uint8_t(rng() | 1); // never zero
    return v;
}

} // namespace

BOOST_AUTO_TEST_CASE(copies_every_byte_and_nothing_else)
{
    const size_t large = 8 * core::parallel_copy_min_bytes;
    for (size_t n : { size_t(0),
                      size_t(1),
                      size_t(63),
                      size_t(4097),
                      large - 1,
                      large + 3,
                      3 * large + 1000 }) {
        const std::vector<uint8_t> src = random_bytes(n, unsigned(n));
        std::vector<uint8_t> dst(n + 128, 0);
        core::host_copy(dst.data() + 64, src.data(), n);
        BOOST_TEST(std::equal(src.begin(), src.end(), dst.begin() + 64), "size " << n);
        for (size_t i = 0; i < 64; ++i) {
            BOOST_TEST(dst[i] == 0, "before the copy, size " << n);
            BOOST_TEST(dst[64 + n + i] == 0, "after the copy, size " << n);
        }
    }
}

BOOST_AUTO_TEST_CASE(parallel_for_runs_each_part_once)
{
    for (size_t parts : { 0, 1, 2, 7, 1000 }) {
        std::vector<std::atomic<int>> runs(parts);
        core::parallel_for(parts, [&](size_t p) { ++runs[p]; });
        for (size_t p = 0; p < parts; ++p)
            BOOST_TEST(runs[p].load() == 1, "part " << p << " of " << parts);
    }
}

BOOST_AUTO_TEST_CASE(an_exception_reaches_the_caller_and_the_pool_goes_on)
{
    BOOST_CHECK_THROW(core::parallel_for(50,
                                         [](size_t p) {
                                             if (p == 17)
                                                 throw std::runtime_error("part 17");
                                         }),
                      std::runtime_error);
    std::atomic<size_t> sum{ 0 };
    core::parallel_for(100, [&](size_t p) { sum += p; });
    BOOST_TEST(sum.load() == 4950u);
}

BOOST_AUTO_TEST_CASE(several_callers_at_once)
{
    const size_t n = 4 * core::parallel_copy_min_bytes + 5;
    std::vector<std::thread> callers;
    std::atomic<int> wrong{ 0 };
    for (unsigned t = 0; t < 4; ++t)
        callers.emplace_back([&, t] {
            const std::vector<uint8_t> src = random_bytes(n, 100 + t);
            std::vector<uint8_t> dst(n);
            for (int round = 0; round < 20; ++round) {
                core::host_copy(dst.data(), src.data(), n);
                if (dst != src)
                    ++wrong;
            }
        });
    for (auto& c : callers)
        c.join();
    BOOST_TEST(wrong.load() == 0);
    BOOST_TEST_MESSAGE("threads: " << core::host_copy_threads());
}
