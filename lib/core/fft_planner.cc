/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fft_planner.h"
#include <gnuradio/wideband/core/environment.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace wideband {
namespace core {

namespace {

size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

// MAX_REGS of kernels/fft_stages.cl: the most points a work-item holds in a stage.
size_t max_registers(const std::vector<unsigned>& radices, size_t length, size_t threads)
{
    size_t most = 1;
    for (unsigned r : radices)
        most = std::max(most, ceil_div(length / r, threads) * r);
    return most;
}

// Local-memory slots from one transform of a tile of `group` transforms to the
// next: the padded length, rounded so that the work-items of a half-warp (16,
// which the hardware serves together for 8-byte accesses) hit different banks.
// When adjacent work-items take adjacent transforms at the same point, an odd
// stride does it; when they take adjacent points and a transform has threads < 16
// work-items, stride = threads (mod 16) starts the transforms sharing a half-warp
// apart.
size_t tile_stride(size_t length,
                   unsigned pad_shift,
                   size_t threads,
                   bool transform_fastest,
                   size_t group)
{
    const size_t last = length - 1;
    size_t stride = last + (pad_shift ? last >> pad_shift : 0) + 1;
    if (group < 2)
        return stride;
    if (transform_fastest)
        stride |= 1;
    else if (threads < 16)
        stride += (threads - stride % 16 + 16) % 16;
    return stride;
}

// Floats from one part of a register-resident transform's exchange tile to
// the next: the part's length with its padding.
size_t float_tile_stride(size_t points, unsigned pad_shift)
{
    const size_t last = points - 1;
    return last + (pad_shift ? last >> pad_shift : 0) + 1;
}

// How many parts a register-resident transform exchanges its points in
// between stages: the fewest (1, 2 or 4) whose float tile fits local memory.
std::optional<unsigned> exchange_parts(size_t length, const fft_device_limits& limits)
{
    for (unsigned parts = 1; parts <= 4 && length % parts == 0; parts *= 2)
        if (float_tile_stride(length / parts, 0) * 4 <= limits.local_bytes)
            return parts;
    return std::nullopt;
}

// Work-items of one on-chip transform: one per butterfly of its largest radix,
// as far as the group and the limits allow.
size_t transform_threads(const std::vector<unsigned>& radices,
                         size_t length,
                         const fft_device_limits& limits)
{
    const unsigned rmax =
        radices.empty() ? 1 : *std::max_element(radices.begin(), radices.end());
    return std::max<size_t>(
        1,
        std::min(
            { length / rmax, limits.max_work_group_size, limits.max_transform_threads }));
}

// Registers a work-item needs besides its points (indices, addresses,
// twiddles), and the most one work-item may use. NVIDIA allows 255, but
// kernels estimated at 224 and 240 spilled (half the rate or less of fewer,
// fuller work-items, or of two passes) where 152 did not
// (docs/fft-tuning-notes.md).
constexpr size_t registers_besides_points = 32;
constexpr size_t registers_per_work_item = 192;

// Work-items of a register-resident transform exchanged in `parts`: the most,
// from transform_threads() down by halves, whose points (two floats each, and
// one more to collect a component exchanged in several parts, or two more for
// mirrored outputs) and other values fit a work-item's share of the register
// file. A kernel that does not fit spills to memory: 16384 points on 1024
// work-items ran at a third of their rate on 512 (docs/fft-tuning-notes.md).
std::optional<size_t> resident_threads(const std::vector<unsigned>& radices,
                                       size_t length,
                                       const fft_device_limits& limits,
                                       unsigned parts,
                                       bool mirrored_outputs)
{
    const size_t floats_per_point = mirrored_outputs ? 4 : parts > 1 ? 3 : 2;
    for (size_t threads = transform_threads(radices, length, limits); threads > 0;
         threads /= 2) {
        const size_t share =
            std::min(registers_per_work_item, limits.register_file / threads);
        if (max_registers(radices, length, threads) * floats_per_point +
                registers_besides_points <=
            share)
            return threads;
    }
    return std::nullopt;
}

// Local-memory bank conflicts of one work-group's tile accesses, as NVIDIA's
// GPUs serve them: a warp's 8-byte accesses in two half-warps of 16 lanes over
// 16 eight-byte slots, its 4-byte ones over 32 four-byte banks; an access
// takes as many cycles as the most distinct words one slot holds.
class bank_model
{
public:
    explicit bank_model(size_t slots) : d_slots(slots), d_words(slots) {}

    // One access of every lane of a group of `lanes`: address(lane) gives the
    // word a lane touches, or nothing for an idle lane.
    template <typename Address>
    void access(size_t lanes, Address address)
    {
        for (size_t first = 0; first < lanes; first += d_slots) {
            for (auto& w : d_words)
                w.clear();
            size_t most = 0;
            for (size_t lane = first; lane < std::min(lanes, first + d_slots); ++lane)
                if (const auto word = address(lane)) {
                    auto& in_slot = d_words[*word % d_slots];
                    if (std::find(in_slot.begin(), in_slot.end(), *word) == in_slot.end())
                        in_slot.push_back(*word);
                    most = std::max(most, in_slot.size());
                }
            d_cycles += most;
        }
    }
    size_t cycles() const { return d_cycles; }

private:
    size_t d_slots;
    std::vector<std::vector<size_t>> d_words;
    size_t d_cycles = 0;
};

// WIDEBAND_FFT_TUNE's replacements of the limits (experiments only).
void apply_tuning_overrides(fft_device_limits& limits)
{
    const environment::fft_tuning tuning = environment::fft_tune();
    limits.local_bytes = tuning.local_bytes.value_or(limits.local_bytes);
    limits.target_group_size = tuning.group_size.value_or(limits.target_group_size);
    if (tuning.pad_shift)
        limits.pad_shift = tuning.pad_shift;
    limits.min_strided_group =
        tuning.min_strided_group.value_or(limits.min_strided_group);
    limits.max_transform_threads =
        tuning.max_transform_threads.value_or(limits.max_transform_threads);
    limits.constant_twiddles =
        tuning.constant_twiddles.value_or(limits.constant_twiddles);
    limits.allow_direct = tuning.allow_direct.value_or(limits.allow_direct);
    limits.register_file = tuning.register_file.value_or(limits.register_file);
    limits.register_resident =
        tuning.register_resident.value_or(limits.register_resident);
    limits.bluestein_smooth = tuning.bluestein_smooth.value_or(limits.bluestein_smooth);
    limits.register_handoff = tuning.register_handoff.value_or(limits.register_handoff);
    if (tuning.twiddle_powers)
        limits.twiddle_powers = *tuning.twiddle_powers
                                    ? fft_device_limits::twiddle_power_use::always
                                    : fft_device_limits::twiddle_power_use::never;
}

struct radix_choice {
    std::vector<unsigned> radices;
    double cost = std::numeric_limits<double>::infinity();
};

// Stages dominate (each is a local-memory round trip and two barriers); then
// registers per work-item and idle work-items in stages with fewer butterflies.
double radix_cost(size_t length, const std::vector<unsigned>& radices)
{
    const unsigned rmax = *std::max_element(radices.begin(), radices.end());
    const size_t threads = length / rmax;
    size_t max_regs = 0;
    double idle = 0.0;
    for (unsigned r : radices) {
        const size_t butterflies = length / r;
        const size_t rounds = ceil_div(butterflies, threads);
        max_regs = std::max(max_regs, rounds * r);
        idle += double(rounds * threads - butterflies) / double(butterflies);
    }
    return 100.0 * radices.size() + 2.0 * max_regs + 20.0 * idle;
}

/*
 * The radices (as a multiset, in supported_radices() order) whose cost is
 * lowest; every stage costs at least stage_floor, which prunes the search.
 */
template <typename Cost>
void search_radices(size_t remaining,
                    size_t max_radix_index,
                    std::vector<unsigned>& current,
                    radix_choice& best,
                    double stage_floor,
                    const Cost& cost)
{
    if (remaining == 1) {
        const double c = cost(current);
        if (c < best.cost) {
            best.cost = c;
            best.radices = current;
        }
        return;
    }
    if (stage_floor * double(current.size() + 1) >= best.cost)
        return; // cannot beat the best with another stage
    const auto& radices = supported_radices();
    for (size_t i = max_radix_index; i < radices.size(); ++i) {
        const unsigned r = radices[i];
        if (remaining % r)
            continue;
        current.push_back(r);
        search_radices(remaining / r, i, current, best, stage_floor, cost);
        current.pop_back();
    }
}

/*
 * A local-memory round trip of one stage of a transform on \p threads
 * work-items, in the operations of fixed_threads_cost: half their count,
 * fitted to the folded inverses' measured radices (docs/fft-tuning-notes.md,
 * "the folded inverse's radices").
 */
double stage_round_trip(size_t threads) { return 0.5 * double(threads); }

/*
 * For a transform on a given number of work-items, usually more than its
 * butterflies (a folded inverse on the forward FFT's work-items): the critical
 * path of one work-item, its rounds of radix-R codelets (about R (log2 R + 2)
 * operations each) and a round trip per stage. Fewer stages break ties.
 */
double
fixed_threads_cost(size_t length, size_t threads, const std::vector<unsigned>& radices)
{
    if (radices.size() > max_folded_stages)
        return std::numeric_limits<double>::infinity();
    double path = 0.0;
    for (unsigned r : radices) {
        const size_t rounds = ceil_div(length / r, threads);
        path +=
            stage_round_trip(threads) + double(rounds * r) * (std::log2(double(r)) + 2.0);
    }
    return path + 1e-3 * double(radices.size());
}

bool has_no_prime_above(size_t n, size_t largest)
{
    if (n == 0)
        return false;
    for (size_t p = 2; p <= largest && n > 1; ++p)
        while (n % p == 0)
            n /= p;
    return n == 1;
}

// Prime factors of n, ascending.
std::vector<size_t> prime_factors(size_t n)
{
    std::vector<size_t> f;
    for (size_t p = 2; p * p <= n; ++p)
        while (n % p == 0) {
            f.push_back(p);
            n /= p;
        }
    if (n > 1)
        f.push_back(n);
    return f;
}

} // namespace

fft_device_limits fft_device_limits::for_device(const device_info& info)
{
    fft_device_limits limits;
    limits.max_work_group_size = std::min<size_t>(info.max_work_group_size, 1024);
    const bool gpu = (info.type & CL_DEVICE_TYPE_GPU) != 0;
    // CPUs (PoCL) emulate local memory in RAM and accept any size; give them the
    // common 48 KiB of a GPU so that they run the same plans the GPUs run.
    const size_t cap = gpu ? 64 * 1024 : 48 * 1024;
    limits.local_bytes = std::min<size_t>(info.local_mem_bytes, cap);
    limits.max_constant_bytes = info.max_constant_bytes;
    limits.target_group_size = std::min<size_t>(256, limits.max_work_group_size);
    // PoCL builds a register-resident kernel in ~15 s and runs it ~9x slower
    // than the two passes it replaces (8192 points, 2-core build machine): its
    // work-groups are loops over the work-items, cut at every barrier.
    limits.register_resident = gpu;
    apply_tuning_overrides(limits);
    return limits;
}

const std::vector<unsigned>& supported_radices()
{
    // Descending: the search builds non-increasing radix sequences.
    static const std::vector<unsigned> radices = { 31, 29, 25, 23, 19, 17, 16,
                                                   15, 14, 13, 12, 11, 10, 9,
                                                   8,  7,  6,  5,  4,  3,  2 };
    return radices;
}

bool is_codelet_smooth(size_t n) { return has_no_prime_above(n, largest_codelet_prime); }

std::vector<unsigned> choose_radices(size_t length)
{
    if (length == 1)
        return {};
    if (!is_codelet_smooth(length))
        throw std::invalid_argument("fft: on-chip length " + std::to_string(length) +
                                    " has a prime factor above " +
                                    std::to_string(largest_codelet_prime));
    radix_choice best;
    std::vector<unsigned> current;
    search_radices(length, 0, current, best, 100.0, [&](const std::vector<unsigned>& r) {
        return radix_cost(length, r);
    });
    return best.radices;
}

std::vector<unsigned> choose_radices_for_threads(size_t length, size_t threads)
{
    if (length == 1)
        return {};
    radix_choice best;
    std::vector<unsigned> current;
    search_radices(length,
                   0,
                   current,
                   best,
                   stage_round_trip(threads),
                   [&](const std::vector<unsigned>& r) {
                       return fixed_threads_cost(length, threads, r);
                   });
    if (best.radices.empty())
        throw std::invalid_argument("fft: on-chip length " + std::to_string(length) +
                                    " has no FFT in " +
                                    std::to_string(max_folded_stages) + " stages");
    return best.radices;
}

size_t max_on_chip_length(const fft_device_limits& limits, bool strided)
{
    const size_t per_transform = limits.local_bytes / 8;
    return strided ? per_transform / std::max<size_t>(1, limits.min_strided_group)
                   : per_transform;
}

bool fits_in_registers(size_t length,
                       const fft_device_limits& limits,
                       bool mirrored_outputs)
{
    if (!limits.register_resident || length < 2 || !is_codelet_smooth(length))
        return false;
    const auto parts = exchange_parts(length, limits);
    return parts && resident_threads(
                        choose_radices(length), length, limits, *parts, mirrored_outputs);
}

std::vector<size_t> split_into_passes(size_t n, size_t max_length)
{
    if (n <= max_length)
        return { n };
    // Smallest number of passes, then the most balanced lengths.
    const auto primes = prime_factors(n);
    size_t min_passes = 2;
    {
        // Each pass holds at most max_length points.
        double passes = 1.0;
        for (size_t len = max_length; len < n; len *= max_length)
            passes += 1.0;
        min_passes = static_cast<size_t>(passes);
    }
    std::vector<size_t> divisors;
    for (size_t d = 2; d <= max_length && d <= n; ++d)
        if (n % d == 0 && is_codelet_smooth(d))
            divisors.push_back(d);

    for (size_t passes = std::max<size_t>(2, min_passes); passes <= 64; ++passes) {
        std::vector<size_t> best, current;
        size_t best_max = std::numeric_limits<size_t>::max();
        std::function<void(size_t, size_t)> search = [&](size_t remaining, size_t left) {
            if (left == 1) {
                if (remaining <= max_length && is_codelet_smooth(remaining)) {
                    current.push_back(remaining);
                    const size_t m = *std::max_element(current.begin(), current.end());
                    if (m < best_max) {
                        best_max = m;
                        best = current;
                    }
                    current.pop_back();
                }
                return;
            }
            for (size_t d : divisors) {
                if (remaining % d || d >= best_max)
                    continue;
                // balanced splits: keep lengths non-increasing
                if (!current.empty() && d > current.back())
                    continue;
                current.push_back(d);
                search(remaining / d, left - 1);
                current.pop_back();
            }
        };
        search(n, passes);
        if (!best.empty())
            return best;
    }
    throw std::invalid_argument("fft: cannot split length " + std::to_string(n) +
                                " into passes of at most " + std::to_string(max_length) +
                                " points");
}

size_t next_seven_smooth(size_t n)
{
    while (!has_no_prime_above(n, 7))
        ++n;
    return n;
}

size_t bluestein_length(size_t n,
                        const fft_device_limits& limits,
                        size_t single_max,
                        size_t strided_max)
{
    const size_t least = 2 * n - 1;
    size_t pow2 = 1;
    while (pow2 < least)
        pow2 *= 2;
    // On chip, the fused kernel's rate hardly depends on its length and is
    // best at powers of two; passes are bound by memory, so fewer points are
    // mostly faster (docs/fft-tuning-notes.md, "Bluestein's convolution length").
    if (!limits.bluestein_smooth || pow2 <= single_max)
        return pow2;
    const auto passes = [&](size_t length) {
        return length <= single_max ? 1 : split_into_passes(length, strided_max).size();
    };
    const size_t most_passes = passes(pow2);
    for (size_t length = next_seven_smooth(least); length < pow2;
         length = next_seven_smooth(length + 1))
        if (passes(length) <= most_passes)
            return length;
    return pow2;
}

size_t local_memory_cycles(const fft_pass_plan& p)
{
    const size_t length = p.length, threads = p.threads;
    const auto index = [&](size_t point) {
        return point + (p.pad_shift ? point >> p.pad_shift : 0);
    };
    // butterfly b = q + m * threads of a stage of radix R, none past its last
    const auto butterfly =
        [&](size_t q, size_t m, unsigned radix) -> std::optional<size_t> {
        const size_t b = q + m * threads;
        if (b < length / radix)
            return b;
        return std::nullopt;
    };
    const auto stockham = [](size_t b, unsigned radix, size_t span, unsigned r) {
        return (b / span) * span * radix + b % span + r * span;
    };

    if (p.exchange_parts) {
        // kernels/fft_stages.cl, exchange_component(): each part is stored from
        // one stage and loaded by the next as floats, the real components and
        // then, alike, the imaginary ones (counted once, twice the cycles)
        bank_model banks(32);
        const size_t points = length / p.exchange_parts;
        size_t span = 1;
        for (size_t s = 0; s + 1 < p.radices.size(); ++s) {
            const unsigned radix = p.radices[s], next = p.radices[s + 1];
            for (unsigned part = 0; part < p.exchange_parts; ++part) {
                const size_t first = part * points;
                const auto in_part = [&](size_t point) -> std::optional<size_t> {
                    if (point >= first && point < first + points)
                        return index(point - first);
                    return std::nullopt;
                };
                for (size_t m = 0; m < ceil_div(length / radix, threads); ++m)
                    for (unsigned r = 0; r < radix; ++r)
                        banks.access(threads, [&](size_t q) -> std::optional<size_t> {
                            const auto b = butterfly(q, m, radix);
                            return b ? in_part(stockham(*b, radix, span, r))
                                     : std::nullopt;
                        });
                for (size_t m = 0; m < ceil_div(length / next, threads); ++m)
                    for (unsigned r = 0; r < next; ++r)
                        banks.access(threads, [&](size_t q) -> std::optional<size_t> {
                            const auto b = butterfly(q, m, next);
                            return b ? in_part(*b + r * (length / next)) : std::nullopt;
                        });
            }
            span *= radix;
        }
        return 2 * banks.cycles();
    }

    // kernels/fft_stages.cl, stage_load() and stage_store() on a tile of
    // float2, and LOAD_TILE / STORE_TILE where the first and last stage do not
    // touch global memory themselves
    bank_model banks(16);
    const size_t lanes = p.work_group_size(), stride = p.tile_stride();
    const auto place = [&](size_t lid) {
        return p.thread_transform_fastest ? std::pair(lid % p.group, lid / p.group)
                                          : std::pair(lid / threads, lid % threads);
    };
    size_t span = 1;
    for (size_t s = 0; s < p.radices.size(); ++s) {
        const unsigned radix = p.radices[s];
        const size_t rounds = ceil_div(length / radix, threads);
        const bool load = s > 0 || !p.load_direct;
        const bool store = s + 1 < p.radices.size() || !p.store_direct;
        for (size_t m = 0; m < rounds; ++m)
            for (unsigned r = 0; r < radix; ++r) {
                if (load)
                    banks.access(lanes, [&](size_t lid) -> std::optional<size_t> {
                        const auto [g, q] = place(lid);
                        const auto b = butterfly(q, m, radix);
                        return b ? std::optional(g * stride +
                                                 index(*b + r * (length / radix)))
                                 : std::nullopt;
                    });
                if (store)
                    banks.access(lanes, [&](size_t lid) -> std::optional<size_t> {
                        const auto [g, q] = place(lid);
                        const auto b = butterfly(q, m, radix);
                        return b ? std::optional(g * stride +
                                                 index(stockham(*b, radix, span, r)))
                                 : std::nullopt;
                    });
            }
        span *= radix;
    }
    const auto walk_tile = [&](bool transform_fastest) {
        for (size_t first = 0; first < p.group * length; first += lanes)
            banks.access(lanes, [&](size_t lid) -> std::optional<size_t> {
                const size_t n = first + lid;
                if (n >= p.group * length)
                    return std::nullopt;
                const size_t g = transform_fastest ? n % p.group : n / length;
                const size_t point = transform_fastest ? n / p.group : n % length;
                return g * stride + index(point);
            });
    };
    if (!p.load_direct)
        walk_tile(p.load_transform_fastest);
    if (!p.store_direct)
        walk_tile(p.store_transform_fastest);
    return banks.cycles();
}

size_t fft_pass_plan::tile_stride() const
{
    if (exchange_parts)
        return float_tile_stride(length / exchange_parts, pad_shift);
    return core::tile_stride(length, pad_shift, threads, thread_transform_fastest, group);
}

size_t fft_pass_plan::tile_bytes() const
{
    return group * tile_stride() * (exchange_parts ? 4 : 8);
}

std::string fft_pass_plan::stage_options() const
{
    std::ostringstream o;
    o << "-DFFT_L=" << length << " -DFFT_T=" << threads << " -DSTAGES=" << radices.size();
    size_t span_s = 1;
    for (size_t s = 0; s < radices.size(); ++s) {
        o << " -DRADIX_" << s << "=" << radices[s] << " -DSPAN_" << s << "=" << span_s;
        span_s *= radices[s];
    }
    if (fold > 1) {
        o << " -DFOLD=" << fold << " -DFOLDED_STAGES=" << folded_radices.size();
        span_s = 1;
        for (size_t s = 0; s < max_folded_stages; ++s) {
            const unsigned radix = s < folded_radices.size() ? folded_radices[s] : 1;
            o << " -DFOLDED_RADIX_" << s << "=" << radix << " -DFOLDED_SPAN_" << s << "="
              << span_s;
            span_s *= radix;
        }
    }
    o << " -DMAX_REGS=" << max_regs << " -DLDS_PAD_SHIFT=" << pad_shift
      << " -DTILE_STRIDE=" << tile_stride() << " -DTWIDDLE_POWERS=" << twiddle_powers
      << " -DEXCHANGE_PARTS=" << exchange_parts;
    return o.str();
}

fft_pass_plan with_threads(fft_pass_plan plan, size_t threads, size_t group)
{
    plan.threads = threads;
    plan.group = group;
    plan.max_regs = max_registers(plan.radices, plan.length, threads);
    if (plan.fold > 1) {
        const size_t folded = plan.length / plan.fold;
        plan.folded_radices = choose_radices_for_threads(folded, threads);
        plan.max_regs =
            std::max(plan.max_regs, max_registers(plan.folded_radices, folded, threads));
    }
    return plan;
}

bool can_fold(size_t length, size_t fold)
{
    return fold > 1 && length % fold == 0 && length / fold >= 2 &&
           choose_radices(length / fold).size() <= max_folded_stages;
}

fft_pass_plan with_folded_inverse(fft_pass_plan plan, size_t fold)
{
    if (!can_fold(plan.length, fold))
        throw std::logic_error("fft_planner: an inverse FFT of " +
                               std::to_string(plan.length) + " points folded by " +
                               std::to_string(fold));
    plan.fold = fold;
    return with_threads(plan, plan.threads, plan.group);
}

namespace {

// The plan `complete` makes of p with the padding (LDS_PAD_SHIFT) that costs
// the fewest local-memory cycles, of those it accepts: the limits' padding
// where set, else one slot per 16, 32 or 8 points or none (the first on ties).
// No one padding suits every radix sequence (docs/fft-tuning-notes.md).
fft_pass_plan with_cheapest_padding(
    fft_pass_plan p,
    const fft_device_limits& limits,
    const std::function<std::optional<fft_pass_plan>(fft_pass_plan)>& complete)
{
    const std::vector<unsigned> candidates =
        limits.pad_shift ? std::vector<unsigned>{ *limits.pad_shift, 0u }
                         : std::vector<unsigned>{ 4u, 5u, 3u, 0u };
    std::optional<fft_pass_plan> best;
    size_t best_cycles = 0;
    for (unsigned pad : candidates) {
        p.pad_shift = pad;
        const auto plan = complete(p);
        if (!plan)
            continue;
        const size_t cycles = local_memory_cycles(*plan);
        if (!best || cycles < best_cycles) {
            best = plan;
            best_cycles = cycles;
        }
        if (limits.pad_shift)
            break; // an experiment's padding, where it fits
    }
    if (!best)
        throw std::logic_error("fft_planner: no padding fits a tile of " +
                               std::to_string(p.length) + " points");
    return *best;
}

// Transforms per group (enough work-items, then as local memory allows),
// direct loads and stores where coalesced, and the cheapest padding, for an
// on-chip plan whose radices, work-items and access orders are set.
fft_pass_plan with_tile_layout(fft_pass_plan p, const fft_device_limits& limits)
{
    // Transforms per group: enough work-items, then as local memory allows.
    const size_t wanted =
        std::max(p.columns > 1 ? limits.min_strided_group : size_t(1),
                 std::max<size_t>(1, limits.target_group_size / p.threads));
    const size_t by_threads = std::max<size_t>(1, limits.max_work_group_size / p.threads);
    auto fit = [&](unsigned pad) {
        const size_t per =
            tile_stride(p.length, pad, p.threads, p.thread_transform_fastest, 2) * 8;
        return std::min(
            { wanted, by_threads, std::max<size_t>(1, limits.local_bytes / per) });
    };
    const size_t unpadded = fit(0);
    // Registers straight from/to global memory when the thread mapping gives
    // coalesced accesses; otherwise through the tile in the side's best order.
    auto coalesced_direct = [&](const fft_pass_plan& q, bool side_transform_fastest) {
        if (!limits.allow_direct || q.radices.empty())
            return false;
        if (side_transform_fastest != q.thread_transform_fastest)
            return false;
        return q.thread_transform_fastest ? q.group >= 4 : q.threads >= 8;
    };
    return with_cheapest_padding(p, limits, [&](fft_pass_plan padded) {
        padded.group = fit(padded.pad_shift);
        // no padding that costs transforms per group or does not fit at all
        if (padded.pad_shift &&
            (padded.group < unpadded ||
             tile_stride(
                 p.length, padded.pad_shift, p.threads, p.thread_transform_fastest, 1) *
                     8 >
                 limits.local_bytes))
            return std::optional<fft_pass_plan>();
        padded.load_direct = coalesced_direct(padded, padded.load_transform_fastest);
        padded.store_direct = coalesced_direct(padded, padded.store_transform_fastest);
        return std::optional(padded);
    });
}

} // namespace

fft_pass_plan plan_pass(size_t length,
                        size_t n_total,
                        size_t span,
                        const fft_pass_io& input,
                        const fft_pass_io& output,
                        const fft_device_limits& limits)
{
    fft_pass_plan p;
    p.length = length;
    p.radices = choose_radices(length);
    p.columns = n_total / length;
    p.span = span;
    using powers = fft_device_limits::twiddle_power_use;
    p.twiddle_powers = limits.twiddle_powers == powers::always ||
                       (limits.twiddle_powers == powers::single_pass && p.columns == 1);
    p.threads = transform_threads(p.radices, length, limits);
    p.max_regs = max_registers(p.radices, length, p.threads);

    if (p.columns == 1 && length > max_on_chip_length(limits, false)) {
        // One transform in registers, exchanged through local memory in parts;
        // its stages touch global memory directly, coalesced where points are
        // adjacent.
        const auto parts = exchange_parts(length, limits);
        const auto threads =
            parts && limits.register_resident
                ? resident_threads(p.radices, length, limits, *parts, output.mirrored)
                : std::nullopt;
        if (!threads)
            throw std::invalid_argument(
                "fft: a single pass of " + std::to_string(length) +
                " points fits neither local memory nor registers");
        p.threads = *threads;
        p.max_regs = max_registers(p.radices, length, p.threads);
        p.exchange_parts = *parts;
        p.load_direct = p.store_direct = true;
        return with_cheapest_padding(p, limits, [&](fft_pass_plan padded) {
            return float_tile_stride(length / *parts, padded.pad_shift) * 4 <=
                           limits.local_bytes
                       ? std::optional(padded)
                       : std::nullopt;
        });
    }

    const bool strided = p.columns > 1;
    if (strided) {
        // Every pass of a multi-pass plan reads points COLUMNS apart: adjacent
        // transforms are adjacent in memory. The first pass writes whole
        // contiguous transforms; the others write strided points again.
        p.load_transform_fastest = true;
        p.store_transform_fastest = span > 1;
    } else {
        p.load_transform_fastest = !input.points_adjacent && input.transforms_adjacent;
        p.store_transform_fastest = !output.points_adjacent && output.transforms_adjacent;
    }
    p.thread_transform_fastest =
        strided || (p.load_transform_fastest && p.store_transform_fastest);

    return with_tile_layout(p, limits);
}

fft_pass_plan
with_handoff(fft_pass_plan plan, size_t fold, const fft_device_limits& limits)
{
    std::vector<unsigned>& radices = plan.radices;
    if (!limits.register_handoff || plan.exchange_parts || radices.empty())
        return plan;
    // The spectrum's values join the forward FFT's outputs in a work-item's
    // registers; in these two cases that cost a group per compute unit and the
    // hand-off ran slower (docs/fft-tuning-notes.md).
    if (fold == 2 || (fold == 1 && plan.length < 1024))
        return plan;
    if (fold > 1) {
        // the last stage folds its own outputs: a radix that fold divides
        auto last = radices.end();
        for (auto r = radices.begin(); r != radices.end(); ++r)
            if (*r % fold == 0 && (last == radices.end() || *r > *last))
                last = r;
        if (last == radices.end())
            return plan;
        std::rotate(last, last + 1, radices.end());
    } else if (radices.size() > 1) {
        // the inverse FFT starts with the radix the forward one ends with: the
        // largest that occurs twice, at both ends
        std::optional<unsigned> repeated;
        for (unsigned r : radices)
            if (std::count(radices.begin(), radices.end(), r) > 1 &&
                (!repeated || r > *repeated))
                repeated = r;
        if (!repeated)
            return plan;
        for (int copy = 0; copy < 2; ++copy)
            radices.erase(std::find(radices.begin(), radices.end(), *repeated));
        radices.insert(radices.begin(), *repeated);
        radices.push_back(*repeated);
    }
    plan.handoff = true;
    return with_tile_layout(plan, limits);
}

} // namespace core
} // namespace wideband
} // namespace gr
