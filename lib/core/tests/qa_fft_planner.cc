/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Host-side parts of the FFT: the planner, the twiddle tables and the embedded
// kernel sources. No OpenCL device needed.

#define BOOST_TEST_MODULE qa_fft_planner
#include <boost/test/unit_test.hpp>

#include "fft_planner.h"
#include "fft_tables.h"
#include "kernel_sources.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace core = gr::wideband::core;

namespace {

// The kernels unroll at most this many stages (MAX_STAGES in kernels/fft_stages.cl).
constexpr size_t max_stages = 13;

bool is_smooth(size_t n, std::initializer_list<size_t> primes)
{
    for (size_t p : primes)
        while (n % p == 0)
            n /= p;
    return n == 1;
}

std::vector<size_t> codelet_smooth_up_to(size_t limit)
{
    std::vector<size_t> sizes;
    for (size_t n = 1; n <= limit; ++n)
        if (is_smooth(n, { 2, 3, 5, 7, 11, 13 }))
            sizes.push_back(n);
    return sizes;
}

template <typename T>
size_t product(const std::vector<T>& factors)
{
    return std::accumulate(
        factors.begin(), factors.end(), size_t(1), std::multiplies<size_t>());
}

// The limits of a typical GPU (64 KiB local memory, 1024 work-items), beside
// the defaults, which are what PoCL's CPU device gets.
core::fft_device_limits gpu_limits()
{
    core::fft_device_limits limits;
    limits.max_work_group_size = 1024;
    limits.local_bytes = 64 * 1024;
    return limits;
}

bool supported(unsigned radix)
{
    const auto& radices = core::supported_radices();
    return std::find(radices.begin(), radices.end(), radix) != radices.end();
}

} // namespace

BOOST_AUTO_TEST_CASE(supported_radices_are_2_to_16_25_and_the_primes_to_31)
{
    std::vector<unsigned> radices = core::supported_radices();
    std::sort(radices.begin(), radices.end());
    std::vector<unsigned> expected(15);
    std::iota(expected.begin(), expected.end(), 2u);
    for (unsigned r : { 17, 19, 23, 25, 29, 31 })
        expected.push_back(r);
    BOOST_TEST(radices == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(codelet_smooth_means_no_prime_factor_above_31)
{
    BOOST_TEST(!core::is_codelet_smooth(0));
    for (size_t n = 1; n <= 5000; ++n)
        BOOST_TEST(core::is_codelet_smooth(n) ==
                       is_smooth(n, { 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31 }),
                   "n = " << n);
    BOOST_TEST(core::is_codelet_smooth(size_t(1) << 24));
    BOOST_TEST(core::is_codelet_smooth(size_t(11 * 13) * 11 * 13 * 1024));
    BOOST_TEST(core::is_codelet_smooth(size_t(17 * 19 * 23 * 29 * 31) << 8));
    BOOST_TEST(!core::is_codelet_smooth(1031));
    BOOST_TEST(!core::is_codelet_smooth(size_t(37) << 20));
}

BOOST_AUTO_TEST_CASE(choose_radices_factors_every_on_chip_length)
{
    BOOST_TEST(core::choose_radices(1).empty());
    // Every length one pass may compute, on any device the planner knows.
    const size_t longest =
        std::max(core::max_on_chip_length(core::fft_device_limits(), false),
                 core::max_on_chip_length(gpu_limits(), false));
    for (size_t length : codelet_smooth_up_to(longest)) {
        BOOST_TEST_CONTEXT("length " << length)
        {
            const std::vector<unsigned> radices = core::choose_radices(length);
            BOOST_TEST(product(radices) == length);
            BOOST_TEST(std::all_of(radices.begin(), radices.end(), supported));
            BOOST_TEST(radices.size() <= max_stages);
        }
    }
}

BOOST_AUTO_TEST_CASE(choose_radices_rejects_a_prime_factor_above_31)
{
    for (size_t length : { 37, 74, 1031, 31 * 37 })
        BOOST_CHECK_THROW(core::choose_radices(length), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(split_into_passes_products_and_lengths)
{
    std::vector<size_t> sizes = { size_t(1) << 24,          size_t(1) << 20,
                                  3 * 5 * 7 * 11 * 13 * 16, 531441 /* 3^12 */,
                                  1953125 /* 5^9 */,        823543 /* 7^7 */,
                                  13 * 13 * 13 * 11 * 11,   1000000 };
    for (size_t n : codelet_smooth_up_to(20000))
        sizes.push_back(n);
    for (size_t max_length : { 16, 64, 1000, 1536, 6144 }) {
        for (size_t n : sizes) {
            BOOST_TEST_CONTEXT("n " << n << ", max " << max_length)
            {
                const std::vector<size_t> lengths =
                    core::split_into_passes(n, max_length);
                BOOST_TEST(product(lengths) == n);
                for (size_t length : lengths) {
                    BOOST_TEST(length <= max_length);
                    BOOST_TEST(core::is_codelet_smooth(length));
                }
                if (n <= max_length)
                    BOOST_TEST(lengths.size() == 1u);
                else
                    BOOST_TEST(lengths.size() >= 2u);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(split_into_passes_uses_the_fewest_passes_for_powers_of_two)
{
    // A pass holds at most floor(log2(max)) of the n's log2(n) factors of two.
    for (size_t max_length : { 16, 64, 1536, 6144 }) {
        size_t max_bits = 0;
        while ((size_t(2) << max_bits) <= max_length)
            ++max_bits;
        for (size_t bits = 1; bits <= 26; ++bits) {
            const size_t fewest = (bits + max_bits - 1) / max_bits;
            BOOST_TEST(core::split_into_passes(size_t(1) << bits, max_length).size() ==
                           fewest,
                       "2^" << bits << ", max " << max_length);
        }
    }
}

BOOST_AUTO_TEST_CASE(split_into_passes_rejects_unsplittable_lengths)
{
    BOOST_CHECK_THROW(core::split_into_passes(31 * 64, 16), std::invalid_argument);
    BOOST_CHECK_THROW(core::split_into_passes(1031 * 2, 1000), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(plan_pass_fits_the_device)
{
    const core::fft_pass_io adjacent{ true, false }, strided{ false, false },
        interleaved{ false, true };
    for (const core::fft_device_limits& limits :
         { core::fft_device_limits(), gpu_limits() }) {
        const size_t longest = core::max_on_chip_length(limits, false);
        for (size_t length : codelet_smooth_up_to(longest)) {
            for (const auto& io : { adjacent, strided, interleaved }) {
                BOOST_TEST_CONTEXT("length " << length << ", local " << limits.local_bytes
                                             << ", points adjacent " << io.points_adjacent
                                             << ", transforms adjacent "
                                             << io.transforms_adjacent)
                {
                    const core::fft_pass_plan p =
                        core::plan_pass(length, length, 1, io, io, limits);
                    BOOST_TEST(p.length == length);
                    BOOST_TEST(p.columns == 1u);
                    BOOST_TEST(product(p.radices) == length);
                    BOOST_TEST(p.threads * p.group <= limits.max_work_group_size);
                    BOOST_TEST(p.tile_bytes() <= limits.local_bytes);
                    for (unsigned r : p.radices)
                        BOOST_TEST(p.max_regs >= r);
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(register_resident_passes_beyond_local_memory)
{
    // NVIDIA's OpenCL: 48 KiB of local memory a group, 1024 work-items, 64 Ki
    // registers. 6144 points fit the tile; the lengths above it that fit the
    // registers take one pass exchanged through a float tile in 1, 2 or 4 parts.
    core::fft_device_limits limits = gpu_limits();
    limits.local_bytes = 48 * 1024;
    const core::fft_pass_io adjacent{ true, false };
    const size_t longest = core::max_on_chip_length(limits, false);
    size_t resident = 0;
    for (size_t length : codelet_smooth_up_to(32768)) {
        if (length <= longest || !core::fits_in_registers(length, limits))
            continue;
        BOOST_TEST_CONTEXT("length " << length)
        {
            const core::fft_pass_plan p =
                core::plan_pass(length, length, 1, adjacent, adjacent, limits);
            BOOST_TEST(p.exchange_parts >= 1u);
            BOOST_TEST(p.exchange_parts <= 4u);
            BOOST_TEST(length % p.exchange_parts == 0u);
            BOOST_TEST(p.group == 1u);
            BOOST_TEST((p.load_direct && p.store_direct));
            BOOST_TEST(p.threads <= limits.max_transform_threads);
            BOOST_TEST(p.tile_bytes() <= limits.local_bytes);
            BOOST_TEST(p.tile_stride() * p.exchange_parts >= length);
            // a work-item's points and 32 other values within its share
            const size_t floats = p.max_regs * (p.exchange_parts > 1 ? 3 : 2);
            BOOST_TEST(floats + 32 <=
                       std::min<size_t>(255, limits.register_file / p.threads));
            ++resident;
        }
    }
    BOOST_TEST(resident > 40u);
    const auto parts = [&](size_t length) {
        return core::plan_pass(length, length, 1, adjacent, adjacent, limits)
            .exchange_parts;
    };
    BOOST_TEST(parts(8192) == 1u); // 8192 floats: 32 KiB (34 with padding)
    BOOST_TEST(parts(10000) == 1u);
    BOOST_TEST(parts(12000) == 1u); // 48000 bytes: unpadded
    BOOST_TEST(parts(16384) == 2u);
    BOOST_TEST(parts(4096) == 0u); // the tile holds it
    const auto threads = [&](size_t length) {
        return core::plan_pass(length, length, 1, adjacent, adjacent, limits).threads;
    };
    BOOST_TEST(threads(8192) == 512u); // one per radix-16 butterfly
    // 16384 on 1024 work-items (16 points, 3 floats each) would leave 16 of a
    // work-item's 64 registers for the rest: it takes 512 with 128 each.
    BOOST_TEST(threads(16384) == 512u);
    // A packed real forward transform's mirrored outputs take two floats a
    // point more: 6250 on 250 work-items (30 points), 12500 and 16384 on none
    // (250 work-items of 52 points would spill).
    core::fft_pass_io mirrored = adjacent;
    mirrored.mirrored = true;
    BOOST_TEST(core::plan_pass(8192, 8192, 1, adjacent, mirrored, limits).threads ==
               512u);
    BOOST_TEST(core::plan_pass(6250, 6250, 1, adjacent, mirrored, limits).threads ==
               250u);
    BOOST_TEST(threads(12500) == 500u);
    BOOST_TEST(!core::fits_in_registers(12500, limits, true));
    BOOST_TEST(core::fits_in_registers(16384, limits));
    BOOST_TEST(!core::fits_in_registers(16384, limits, true));
    BOOST_TEST(!core::fits_in_registers(32768, limits));
    BOOST_TEST(!core::fits_in_registers(1031, limits));
    limits.register_resident = false;
    BOOST_TEST(!core::fits_in_registers(8192, limits));
    BOOST_CHECK_THROW(core::plan_pass(8192, 8192, 1, adjacent, adjacent, limits),
                      std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(padding_by_local_memory_bank_conflicts)
{
    // 256 points as 16 x 16 on 16 work-items, through the tile only between
    // the stages: stage 0 stores butterfly b's outputs at 16 b + r, all in one
    // bank unpadded (16 words a half-warp access: 16 cycles each, 256 in all);
    // stage 1 loads b + 16 r, adjacent (16 cycles). One slot per 16 points
    // moves 16 b + r to 17 b + r: 32 cycles in all.
    core::fft_pass_plan p;
    p.length = 256;
    p.radices = { 16, 16 };
    p.threads = 16;
    p.load_direct = p.store_direct = true;
    BOOST_TEST(core::local_memory_cycles(p) == 256u + 16u);
    p.pad_shift = 4;
    BOOST_TEST(core::local_memory_cycles(p) == 32u);

    // The planner takes the cheapest padding, which depends on the radices
    // (on the H200: 5400 ran 144 Gpt/s with one slot per 16 points, 202 with
    // none; 8192 152 and 164 with one per 32), unless the limits set one.
    core::fft_device_limits limits = gpu_limits();
    limits.local_bytes = 48 * 1024;
    const core::fft_pass_io adjacent{ true, false };
    const auto pad = [&](size_t length) {
        return core::plan_pass(length, length, 1, adjacent, adjacent, limits).pad_shift;
    };
    BOOST_TEST(pad(4096) == 4u);
    BOOST_TEST(pad(5400) == 0u);
    BOOST_TEST(pad(8192) == 5u);
    for (size_t length : { size_t(1000), size_t(5400), size_t(8192) }) {
        limits.pad_shift = 4;
        const core::fft_pass_plan forced =
            core::plan_pass(length, length, 1, adjacent, adjacent, limits);
        limits.pad_shift.reset();
        const core::fft_pass_plan chosen =
            core::plan_pass(length, length, 1, adjacent, adjacent, limits);
        BOOST_TEST(forced.pad_shift == 4u);
        BOOST_TEST(core::local_memory_cycles(chosen) < core::local_memory_cycles(forced));
    }
}

BOOST_AUTO_TEST_CASE(plan_pass_of_a_multi_pass_transform)
{
    const core::fft_device_limits limits;
    const core::fft_pass_io adjacent{ true, false };
    const size_t n = size_t(1) << 20;
    const std::vector<size_t> lengths =
        core::split_into_passes(n, core::max_on_chip_length(limits, true));
    size_t span = 1;
    for (size_t length : lengths) {
        const core::fft_pass_plan p =
            core::plan_pass(length, n, span, adjacent, adjacent, limits);
        BOOST_TEST(p.columns == n / length);
        BOOST_TEST(p.span == span);
        BOOST_TEST(p.group >= limits.min_strided_group);
        BOOST_TEST(p.tile_bytes() <= limits.local_bytes);
        span *= length;
    }
}

BOOST_AUTO_TEST_CASE(twiddle_tables)
{
    const double pi = std::acos(-1.0);
    // Exact ratios: the same root for a and a + b.
    for (unsigned long long b : { 1ull, 3ull, 1000ull, 1ull << 24 }) {
        for (unsigned long long a : { 0ull, 1ull, b / 3, b - 1 }) {
            const auto w = core::unit_root(a, b);
            const double angle = -2.0 * pi * double(a) / double(b);
            BOOST_TEST(std::abs(w - std::polar(1.0, angle)) < 1e-14, a << "/" << b);
            BOOST_TEST(std::abs(core::unit_root(a + 5 * b, b) - w) == 0.0, a << "/" << b);
        }
    }
    // Float tables: within rounding of the double roots (float ulp at 1: 1.2e-7).
    for (size_t n : { 1000, 4096, 1 << 20, 3 * 5 * 7 * 11 * 13 }) {
        const unsigned lo_bits = core::pass_twiddle_lo_bits(n);
        const auto table = core::pass_twiddles(n, lo_bits);
        const size_t lo = size_t(1) << lo_bits;
        for (size_t t = 0; t < n; t += 1 + n / 5000) {
            const std::complex<double> w = std::complex<double>(table[t % lo]) *
                                           std::complex<double>(table[lo + t / lo]);
            BOOST_TEST(std::abs(w - core::unit_root(t, n)) < 3e-7,
                       "t " << t << " of " << n);
        }
    }
    const auto stage = core::stage_twiddles(60);
    for (size_t t = 0; t < stage.size(); ++t)
        BOOST_TEST(std::abs(std::complex<double>(stage[t]) - core::unit_root(t, 60)) <
                   1e-7);
}

BOOST_AUTO_TEST_CASE(host_fft_matches_the_dft)
{
    // Powers of two, mixed radices, a prime alone and as a factor.
    for (size_t n : { 1, 2, 64, 2100, 31, 37 * 12 }) {
        std::vector<std::complex<double>> x(n);
        for (size_t m = 0; m < n; ++m)
            x[m] = { std::sin(double(m) * 0.7) + 0.1, std::cos(double(m * m) * 0.3) };
        std::vector<std::complex<double>> dft(n);
        for (size_t k = 0; k < n; ++k)
            for (size_t m = 0; m < n; ++m)
                dft[k] += x[m] * core::unit_root(k * m, n);
        core::host_fft(x);
        for (size_t k = 0; k < n; ++k)
            BOOST_TEST(std::abs(x[k] - dft[k]) < 1e-12 * double(n), n << ": k " << k);
    }
}

BOOST_AUTO_TEST_CASE(bluestein_length_is_a_power_of_two_on_chip_else_short)
{
    core::fft_device_limits limits; // 6144 points on chip, 1536 in a pass of several
    const size_t single_max = core::max_on_chip_length(limits, false);
    const size_t strided_max = core::max_on_chip_length(limits, true);
    const auto length = [&](size_t n) {
        return core::bluestein_length(n, limits, single_max, strided_max);
    };
    BOOST_TEST(core::next_seven_smooth(2061) == 2100u);
    BOOST_TEST(core::next_seven_smooth(2100) == 2100u);
    BOOST_TEST(length(37) == 128u);
    BOOST_TEST(length(1031) == 4096u);    // one pass: the power of two
    BOOST_TEST(length(2063) == 4200u);    // 8192 takes passes, 4200 one
    BOOST_TEST(length(4099) == 8232u);    // 8197 .. 8231 have a factor above 7
    BOOST_TEST(length(65537) == 131220u); // two passes, as 2^18
    for (size_t n = 2; n < 300000; n = n * 5 / 4 + 1) {
        const size_t m = length(n);
        BOOST_TEST(m >= 2 * n - 1);
        BOOST_TEST(core::is_codelet_smooth(m));
        if (m > single_max)
            BOOST_TEST(core::split_into_passes(m, strided_max).size() <= 3u, n);
    }
    limits.bluestein_smooth = false;
    BOOST_TEST(length(4099) == 16384u);
    BOOST_TEST(length(65537) == 262144u);
}

BOOST_AUTO_TEST_CASE(kernel_source_resolves_includes)
{
    const std::string source = core::kernel_source("fft.cl");
    std::istringstream lines(source);
    std::string line;
    while (std::getline(lines, line))
        BOOST_TEST(line.find("#include") == std::string::npos, "unresolved: " << line);

    // Each embedded file is in it verbatim, exactly once (fft.cl includes
    // fft_stages.cl, which includes fft_codelets.cl).
    auto count = [&](const std::string& text) {
        size_t found = 0;
        for (auto at = source.find(text); at != std::string::npos;
             at = source.find(text, at + 1))
            ++found;
        return found;
    };
    BOOST_TEST(count("__kernel") >= 1u);
    BOOST_TEST(count("ALWAYS_INLINE void stage_load(") == 1u);
    BOOST_TEST(count("ALWAYS_INLINE float2 cmul(") == 1u);

    BOOST_CHECK_EXCEPTION(core::kernel_source("no_such_kernel.cl"),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              return std::string(e.what()).find("no_such_kernel.cl") !=
                                     std::string::npos;
                          });
}

BOOST_AUTO_TEST_CASE(embedded_sources_are_the_kernel_files)
{
    // The build splits long files into several string literals: they must join
    // back into exactly the file.
    const auto& embedded = core::embedded_kernel_sources();
    BOOST_TEST(embedded.size() >= 3u);
    for (const auto& source : embedded) {
        std::ifstream file(std::string(WIDEBAND_KERNELS_DIR) + "/" + source.name);
        BOOST_TEST_REQUIRE(bool(file), source.name);
        std::ostringstream text;
        text << file.rdbuf();
        BOOST_TEST(text.str() == std::string(source.text), source.name);
    }
}

BOOST_AUTO_TEST_CASE(handoff_orders_the_radices)
{
    core::fft_device_limits limits = gpu_limits();
    limits.local_bytes = 48 * 1024;
    const core::fft_pass_io adjacent{ true, false };
    const auto plan = [&](size_t length) {
        return core::plan_pass(length, length, 1, adjacent, adjacent, limits);
    };
    // unfolded: the inverse runs the forward's stages, so they start and end
    // with the same radix
    const core::fft_pass_plan p2048 = core::with_handoff(plan(2048), 1, limits);
    BOOST_TEST(p2048.handoff);
    BOOST_TEST(p2048.radices.front() == p2048.radices.back());
    BOOST_TEST(product(p2048.radices) == 2048u);
    BOOST_TEST(p2048.tile_bytes() <= limits.local_bytes);
    // folded: the last radix a multiple of the fold
    for (size_t fold : { 4, 8, 16 }) {
        const core::fft_pass_plan p = core::with_handoff(plan(4096), fold, limits);
        BOOST_TEST(p.handoff);
        BOOST_TEST(p.radices.back() % fold == 0u);
        BOOST_TEST(product(p.radices) == 4096u);
    }
    // none: no radix the fold divides (10 x 10 x 10 by 4), no repeated radix
    // (7 x 11 x 13 is also short), where it measured slower (short, folds by
    // 2), register-resident, or switched off
    BOOST_TEST(!core::with_handoff(plan(1000), 4, limits).handoff);
    BOOST_TEST(!core::with_handoff(plan(1001), 1, limits).handoff);
    BOOST_TEST(!core::with_handoff(plan(256), 1, limits).handoff);
    BOOST_TEST(!core::with_handoff(plan(4096), 2, limits).handoff);
    BOOST_TEST(!core::with_handoff(plan(8192), 1, limits).handoff);
    limits.register_handoff = false;
    BOOST_TEST(!core::with_handoff(plan(2048), 1, limits).handoff);
}
