/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fft_planner.h"
#include "fft_program.h"
#include "fft_tables.h"
#include "kernel_args.h"

#include <initializer_list>
#include <algorithm>
#include <cmath>
#include <complex>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace wideband {
namespace core {

resolved_layout resolve(const fft_layout& l, size_t points)
{
    return { l.offset, l.stride, l.distance ? l.distance : points * l.stride };
}

size_t fft_program_spec::points_stored() const
{
    if (hermitian_input)
        return n / 2 + 1;
    return input_points ? input_points : n;
}

size_t fft_program_spec::input_element_bytes() const
{
    return sample_bytes(input_format);
}

size_t fft_program_spec::output_element_bytes() const { return real_output ? 4 : 8; }

namespace {

[[noreturn]] void fail(const fft_program_spec& spec, const std::string& what)
{
    throw std::invalid_argument(std::string(spec.owner) + ": " + what);
}

// The points of each transform's input, zero from here on.
size_t points_read(const fft_program_spec& spec)
{
    return spec.input_points ? spec.input_points : spec.n;
}

// True when the output range leaves points out or moves them.
bool writes_subset(const fft_program_spec& spec)
{
    return spec.range_begin != 0 || spec.range_step != 1 || spec.range_count != spec.n;
}

size_t last_element(const resolved_layout& l, size_t points, size_t batch)
{
    return l.offset + (batch - 1) * l.distance + (points - 1) * l.stride;
}

template <typename T>
cl::Buffer upload(const cl::Context& ctx, const std::vector<T>& data)
{
    return cl::Buffer(ctx,
                      CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                      data.size() * sizeof(data[0]),
                      const_cast<T*>(data.data()));
}

std::vector<std::complex<float>> to_float(const std::vector<std::complex<double>>& v)
{
    std::vector<std::complex<float>> f(v.size());
    std::transform(v.begin(), v.end(), f.begin(), [](const std::complex<double>& x) {
        return std::complex<float>(x);
    });
    return f;
}

// ---- step 1: the spec's parts agree ---------------------------------------

void check_spec(const fft_program_spec& spec)
{
    const resolved_layout &in = spec.in, &out = spec.out;
    const size_t read = points_read(spec), written = spec.range_count;
    if (in.stride == 0 || out.stride == 0)
        fail(spec,
             std::string(in.stride == 0 ? "input" : "output") +
                 " stride must be >= 1 (got 0)");
    // Output points of different transforms must never coincide.
    if (spec.batch > 1 && out.distance < written * out.stride &&
        out.stride < spec.batch * out.distance)
        fail(spec,
             "output layout makes transforms overlap (stride " +
                 std::to_string(out.stride) + ", distance " +
                 std::to_string(out.distance) + ", points " + std::to_string(written) +
                 ", batch " + std::to_string(spec.batch) +
                 "): use distance >= points*stride, or stride >= batch*distance for "
                 "interleaved transforms");
    if (spec.in_place &&
        (in.offset != out.offset || in.stride != out.stride ||
         in.distance != out.distance || written != spec.n || read != spec.n))
        fail(spec,
             "an in-place plan needs identical input and output layouts and every "
             "point read and written");
    if (read > spec.n)
        fail(spec,
             "input_points " + std::to_string(read) + " exceeds the size " +
                 std::to_string(spec.n));
    if (spec.shift && read != spec.n)
        fail(spec, "shift needs every input point (input_points = size)");
    if (spec.hermitian_input && (spec.shift || spec.input_points))
        fail(spec,
             "a complex-to-real transform reads bins 0 .. size/2 as they are: it takes "
             "neither shift nor input_points");
    if (spec.real_output && spec.in_place)
        fail(spec,
             "a real output cannot be computed in place (use an out-of-place plan)");
    if (spec.paired_real &&
        (!spec.convolution || spec.spectrum_per_transform || !spec.real_output ||
         spec.input_format != sample_format::f32))
        fail(spec,
             "paired real transforms need a convolution of real (f32) input with one "
             "real filter and real output");
    if (spec.shift && spec.range_count != spec.n)
        fail(spec,
             "shift writes every output point: it cannot be combined with an "
             "output_range (use the default range)");
}

// ---- step 2: the algorithm and its passes ---------------------------------

enum class algorithm {
    direct,   // Stockham passes over the n points
    rader,    // a prime n as a cyclic convolution of n - 1 points
    bluestein // any n as a convolution of bluestein_length() >= 2n - 1 points
};

struct plan_strategy {
    algorithm method = algorithm::direct;
    size_t padded = 0;                // points of the FFTs the launches run
    bool convolves = false;           // forward FFT, spectrum multiply, inverse FFT
    bool fused = false;               // ... all three in one launch
    std::vector<size_t> pass_lengths; // on-chip FFTs of one FFT of padded points
};

plan_strategy choose_strategy(const fft_program_spec& spec,
                              const fft_device_limits& limits)
{
    size_t single_max = max_on_chip_length(limits, false);
    size_t strided_max = max_on_chip_length(limits, true);
    if (spec.max_pass_length) {
        single_max = std::min(single_max, spec.max_pass_length);
        strided_max = std::min(strided_max, spec.max_pass_length);
    }
    const size_t n = spec.n;
    const bool smooth = is_codelet_smooth(n);
    if (spec.convolution && !smooth)
        fail(spec,
             "a convolution length must have no prime factor above " +
                 std::to_string(largest_codelet_prime) + " (got " + std::to_string(n) +
                 ")");
    plan_strategy s;
    // Other lengths become convolutions: a prime whose n - 1 is smooth and fits
    // on chip by Rader's (cyclic, length n - 1, one fused kernel), anything else
    // by Bluestein's (zero-padded to bluestein_length() >= 2n - 1 points).
    if (smooth) {
        s.method = algorithm::direct;
        s.padded = n;
    } else if (is_prime(n) && is_codelet_smooth(n - 1) && n - 1 <= single_max) {
        s.method = algorithm::rader;
        s.padded = n - 1;
    } else {
        s.method = algorithm::bluestein;
        s.padded = bluestein_length(n, limits, single_max, strided_max);
    }
    s.convolves = spec.convolution || s.method != algorithm::direct;
    s.fused = s.convolves && s.padded <= single_max;
    // Longer transforms in one pass with their points in registers, where the
    // kernel needs no tile of its own (no convolution or cosine reordering).
    const bool register_resident =
        !s.convolves && spec.dct == fft_program_spec::cosine::none &&
        (!spec.max_pass_length || s.padded <= spec.max_pass_length) &&
        fits_in_registers(
            s.padded, limits, spec.real_packing == fft_program_spec::packing::forward);
    s.pass_lengths = s.padded <= single_max || register_resident
                         ? std::vector<size_t>{ s.padded }
                         : split_into_passes(s.padded, strided_max);
    return s;
}

// ---- step 2b: real transforms of even length at half the work -------------

// N even and N/2 one direct pass on chip: the unpacking of a real transform
// computed at half its length pairs points k and N/2 - k in the on-chip tile.
bool halves_in_one_pass(const fft_program_spec& spec, const fft_device_limits& limits)
{
    size_t single_max = max_on_chip_length(limits, false);
    if (spec.max_pass_length)
        single_max = std::min(single_max, spec.max_pass_length);
    const size_t half = spec.n / 2;
    return spec.n % 2 == 0 && half >= 2 && is_codelet_smooth(half) && half <= single_max;
}

// N even and N/2 one register-resident pass (the forward one's unpacking takes
// more registers).
bool halves_in_registers(const fft_program_spec& spec,
                         const fft_device_limits& limits,
                         bool forward)
{
    const size_t half = spec.n / 2;
    return spec.n % 2 == 0 && (!spec.max_pass_length || half <= spec.max_pass_length) &&
           fits_in_registers(half, limits, forward);
}

// Whether a real transform of \p spec packs its N reals as N/2 complex points:
// N even, N/2 one direct pass (on chip or in registers), the real side
// contiguous with even offset and distance (a float pair is one complex
// point), no window, zero padding or output range on the real side.
bool packs_real(const fft_program_spec& spec, const fft_device_limits& limits)
{
    // A cosine transform has pre- and post-steps of its own (cosine_spec()).
    if (spec.dct != fft_program_spec::cosine::none)
        return false;
    // Forward: the bins 0 .. N/2 of real input (rfft, or fft_vfc's first half).
    const bool forward = spec.input_format == sample_format::f32 && !spec.convolution &&
                         spec.direction == fft_direction::forward &&
                         spec.range_step == 1 &&
                         spec.range_begin + spec.range_count <= spec.n / 2 + 1 &&
                         spec.window.empty() && !spec.input_points && !spec.shift;
    const bool inverse = spec.hermitian_input && spec.real_output && !spec.convolution &&
                         spec.window.empty() && spec.range_begin == 0 &&
                         spec.range_step == 1 && spec.range_count == spec.n;
    if (!forward && !inverse)
        return false;
    const resolved_layout& real_side = inverse ? spec.out : spec.in;
    return (halves_in_one_pass(spec, limits) ||
            halves_in_registers(spec, limits, forward)) &&
           real_side.stride == 1 && real_side.offset % 2 == 0 &&
           (spec.batch == 1 || real_side.distance % 2 == 0);
}

// The complex transform of N/2 points that computes \p spec packed.
fft_program_spec packed(const fft_program_spec& spec)
{
    fft_program_spec p = spec;
    p.n = spec.n / 2;
    p.normalize_length = spec.n;
    p.hermitian_input = p.real_output = false;
    p.input_format = sample_format::fc32;
    if (spec.hermitian_input) {
        p.real_packing = fft_program_spec::packing::inverse;
        p.out = { spec.out.offset / 2, 1, spec.out.distance / 2 };
        p.range_count = p.n;
    } else {
        p.real_packing = fft_program_spec::packing::forward;
        p.in = { spec.in.offset / 2, 1, spec.in.distance / 2 };
    }
    return p;
}

// The complex transform that computes \p spec's cosine transforms of N points
// (Makhoul 1980): DCT-II is the forward FFT of the points reordered (evens
// ascending, odds descending), DCT-III the inverse FFT of x[e] - i x[N - e],
// both real: of N/2 points packed as a real transform is where N/2 is one pass
// (the reordered points in pairs in, bins k and N - k out of one unpacked
// bin; or bins e and N/2 - e unpacked into the tile, the outputs in pairs),
// else of N points. DCT-IV of even N is the forward FFT of the N/2 points
// x[2e] + i x[N-1-2e], each output giving two results, and of odd N the
// forward FFT of the points zero-padded to 2N, its first N outputs kept. The
// twiddles and scalings around them are the pre- and post-factor tables
// (cosine_factors()), so any N and every algorithm (passes, Rader, Bluestein)
// compute them with the steps fused as for an FFT.
fft_program_spec cosine_spec(const fft_program_spec& spec,
                             const fft_device_limits& limits)
{
    using cosine = fft_program_spec::cosine;
    fft_program_spec c = spec;
    c.dct_length = spec.n;
    if (spec.dct == cosine::iii)
        c.direction = fft_direction::inverse;
    if ((spec.dct == cosine::ii || spec.dct == cosine::iii) &&
        halves_in_one_pass(spec, limits)) {
        c.n = spec.n / 2;
        c.real_packing = spec.dct == cosine::ii ? fft_program_spec::packing::forward
                                                : fft_program_spec::packing::inverse;
        // The packed forward transform's stores reach bin N/2.
        c.range_count = spec.dct == cosine::ii ? c.n + 1 : c.n;
    } else if (spec.dct == cosine::iv && spec.n % 2 == 0) {
        c.n = spec.n / 2;
        c.range_count = c.n;
    } else if (spec.dct == cosine::iv) {
        c.n = 2 * spec.n;
        c.input_points = spec.n;
    }
    return c;
}

// A cosine transform computed by cosine_spec() at half its length.
bool halves_cosine(const fft_program_spec& spec)
{
    return spec.dct != fft_program_spec::cosine::none && 2 * spec.n == spec.dct_length;
}

// The complex transforms that compute \p spec's real ones two at a time: half
// the batch, each pair's layouts at twice the distance (kernels/fft.cl PAIR_*).
fft_program_spec paired(const fft_program_spec& spec)
{
    fft_program_spec p = spec;
    p.batch = (spec.batch + 1) / 2;
    p.in.distance *= 2;
    p.out.distance *= 2;
    return p;
}

// 32-bit indices unless some address of the plan needs more.
bool needs_wide_index(const fft_program_spec& spec, const plan_strategy& strategy)
{
    const size_t points = spec.batch * strategy.padded;
    if (points >= (size_t(1) << 32))
        fail(spec,
             "batch * size must be below 2^32 points (got " + std::to_string(points) +
                 ")");
    const size_t biggest =
        std::max({ last_element(spec.in, spec.points_stored(), spec.batch),
                   last_element(spec.out, spec.range_count, spec.batch),
                   points });
    return biggest >= (size_t(1) << 32);
}

// ---- step 3: the launches with their fused pre- and post-steps ------------

// The table a launch multiplies by (see plan_tables::factors()).
enum class table_source { none, spectrum, final_factors, user };

// What a plan's first launch does to the input as it loads it (kernels/fft.cl PRE_*).
struct pre_step {
    bool shift = false;     // GNU Radio's input shift (inverse transforms)
    bool zero_pad = false;  // points from logical_length on read as zero
    bool factor = false;    // times the window, Bluestein's chirp, DCT twiddles
    bool hermitian = false; // points above n/2 read as conjugates of those below
    int cosine = 0;         // PRE_COSINE: a DCT's reordered or paired points
};

// What a launch does to its results as it stores them (POST_*).
struct post_step {
    table_source factor = table_source::none;
    bool range = false; // output range, also Bluestein's truncation
    bool shift = false; // GNU Radio's output shift (forward transforms)
    int cosine = 0;     // POST_COSINE: a DCT's reordered or paired results
    float scale = 1.0f;
};

// One launch: an on-chip FFT pass (or a fused convolution) and its extras.
struct launch_step {
    size_t length, span, n_total;
    int dir;
    pre_step pre;
    post_step post;
    table_source convolution = table_source::none; // FUSED_CONVOLUTION's spectrum
    size_t fold = 1; // FOLD: the convolution keeps every fold-th output of its inverse
    bool in_place_safe = false;
};

pre_step plan_pre_step(const fft_program_spec& spec, const plan_strategy& strategy)
{
    const bool bluestein = strategy.method == algorithm::bluestein;
    pre_step pre;
    pre.shift = spec.shift && spec.direction == fft_direction::inverse;
    pre.zero_pad = bluestein || points_read(spec) < spec.n;
    using cosine = fft_program_spec::cosine;
    // A packed DCT-III multiplies as it unpacks (PRE_REAL_UNPACK).
    const bool packed = spec.real_packing != fft_program_spec::packing::none;
    pre.factor = !spec.window.empty() || bluestein ||
                 (spec.dct == cosine::iii && !packed) || spec.dct == cosine::iv;
    pre.hermitian = spec.hermitian_input;
    pre.cosine = spec.dct == cosine::ii    ? (packed ? 5 : 2)
                 : spec.dct == cosine::iii ? 3
                 : halves_cosine(spec)     ? 4
                                           : 0;
    return pre;
}

post_step plan_post_step(const fft_program_spec& spec, const plan_strategy& strategy)
{
    const bool bluestein = strategy.method == algorithm::bluestein;
    post_step post;
    post.shift = spec.shift && spec.direction == fft_direction::forward;
    // Bluestein drops its padding; the packed forward writes N/2 + 1 bins.
    post.range = writes_subset(spec) || bluestein ||
                 spec.real_packing == fft_program_spec::packing::forward;
    using cosine = fft_program_spec::cosine;
    // A packed DCT-II multiplies as it unpacks (POST_REAL_UNPACK).
    const bool packed = spec.real_packing != fft_program_spec::packing::none;
    if (bluestein || (spec.dct == cosine::ii && !packed) || spec.dct == cosine::iv)
        post.factor = table_source::final_factors;
    post.cosine = spec.dct == cosine::ii    ? (packed ? 2 : 0)
                  : spec.dct == cosine::iii ? (packed ? 5 : 3)
                  : halves_cosine(spec)     ? 4
                                            : 0;
    const size_t length = spec.normalize_length ? spec.normalize_length : spec.n;
    post.scale = spec.normalize ? float(1.0 / double(length)) : 1.0f;
    return post;
}

// Where the spectrum of the plan's convolution comes from.
table_source spectrum_source(const plan_strategy& strategy)
{
    return strategy.method == algorithm::direct ? table_source::user
                                                : table_source::spectrum;
}

// The passes of one FFT of strategy.padded points, \p pre fused into the
// first's loads and \p post into the last's stores.
std::vector<launch_step> pass_steps(const plan_strategy& strategy,
                                    int dir,
                                    const pre_step& pre,
                                    const post_step& post)
{
    const std::vector<size_t>& lengths = strategy.pass_lengths;
    std::vector<launch_step> steps;
    size_t span = 1;
    for (size_t p = 0; p < lengths.size(); ++p) {
        launch_step s{ lengths[p], span, strategy.padded, dir, {}, {} };
        if (p == 0)
            s.pre = pre;
        if (p + 1 == lengths.size()) {
            s.post = post;
            // A work-group of the last pass writes exactly the points it read
            // (a single pass: its own whole transforms), unless outputs move.
            s.in_place_safe =
                lengths.size() == 1 || (!post.shift && !post.range && !post.cosine);
        }
        steps.push_back(s);
        span *= lengths[p];
    }
    return steps;
}

std::vector<launch_step> plan_launches(const fft_program_spec& spec,
                                       const plan_strategy& strategy)
{
    const pre_step pre = plan_pre_step(spec, strategy);
    const post_step post = plan_post_step(spec, strategy);
    if (strategy.fused) {
        launch_step s{ strategy.padded, 1, strategy.padded, -1, pre, post };
        s.convolution = spectrum_source(strategy);
        s.in_place_safe = true;
        // Every range_step-th output from range_begin, a multiple of it (a
        // decimating filter): the inverse FFT computes only those.
        const bool plain_outputs = post.factor == table_source::none && !post.shift &&
                                   !post.cosine &&
                                   spec.real_packing == fft_program_spec::packing::none;
        if (strategy.method == algorithm::direct && plain_outputs &&
            spec.range_begin % spec.range_step == 0 &&
            can_fold(strategy.padded, spec.range_step))
            s.fold = spec.range_step;
        return { s };
    }
    if (!strategy.convolves)
        return pass_steps(
            strategy, spec.direction == fft_direction::forward ? -1 : +1, pre, post);
    // The convolution's multiply is fused into the forward FFT's last stores.
    post_step multiply;
    multiply.factor = spectrum_source(strategy);
    std::vector<launch_step> steps = pass_steps(strategy, -1, pre, multiply);
    const std::vector<launch_step> inverse = pass_steps(strategy, +1, {}, post);
    steps.insert(steps.end(), inverse.begin(), inverse.end());
    return steps;
}

// ---- step 4: the buffers between the launches -----------------------------

// Which buffer a launch reads or writes.
enum class role { input, output, temp_a, temp_b };

/*
 * Assigns a buffer to each step between launches: b[0] = input,
 * b[count] = output, intermediates from `candidates`, such that no launch reads
 * and writes the same buffer unless it is marked in-place safe (every work-group
 * then reads exactly the points it writes). Fewest temporaries wins.
 */
std::vector<role> chain_buffers(size_t count,
                                bool in_place,
                                const std::vector<bool>& in_place_safe,
                                const std::vector<role>& candidates)
{
    auto physical = [&](role r) {
        return (in_place && r == role::input) ? role::output : r;
    };
    std::vector<role> chain(count + 1), best;
    chain[0] = role::input;
    chain[count] = role::output;
    size_t best_temps = std::numeric_limits<size_t>::max();
    std::function<void(size_t)> search = [&](size_t step) {
        if (step == count) {
            if (physical(chain[count - 1]) == role::output && !in_place_safe[count - 1])
                return;
            size_t temps = 0;
            for (role t : { role::temp_a, role::temp_b })
                temps += std::count(chain.begin(), chain.end(), t) > 0;
            if (temps < best_temps) {
                best_temps = temps;
                best = chain;
            }
            return;
        }
        for (role c : candidates) {
            if (physical(c) == physical(chain[step - 1]) && !in_place_safe[step - 1])
                continue;
            chain[step] = c;
            search(step + 1);
        }
    };
    search(1);
    if (best.empty())
        throw std::logic_error("fft_program: no buffer assignment for the passes");
    return best;
}

// The buffer each launch i reads (chain[i]) and writes (chain[i + 1]).
std::vector<role> assign_buffers(const fft_program_spec& spec,
                                 const plan_strategy& strategy,
                                 const std::vector<launch_step>& steps)
{
    // The output can hold intermediate points only when it has them all.
    std::vector<role> candidates;
    if (!strategy.convolves && !writes_subset(spec) && !spec.real_output)
        candidates.push_back(role::output);
    candidates.push_back(role::temp_a);
    candidates.push_back(role::temp_b);
    std::vector<bool> safe;
    for (const auto& s : steps)
        safe.push_back(s.in_place_safe);
    return chain_buffers(steps.size(), spec.in_place, safe, candidates);
}

// The work buffers \p chain names (temp_b only with temp_a), checked against the device.
std::vector<cl::Buffer> allocate_temporaries(const device_context& context,
                                             const fft_program_spec& spec,
                                             const plan_strategy& strategy,
                                             const std::vector<role>& chain)
{
    size_t count = 0;
    for (role r : chain)
        if (r == role::temp_a || r == role::temp_b)
            count = std::max<size_t>(count, r == role::temp_a ? 1 : 2);
    const size_t bytes = spec.batch * strategy.padded * 8;
    const device_info& device = context.info();
    if (count && bytes > device.max_alloc_bytes)
        fail(spec,
             "size " + std::to_string(spec.n) + " with batch " +
                 std::to_string(spec.batch) + " needs " + std::to_string(count) +
                 " work buffers of " + std::to_string(bytes) + " bytes; " + device.name +
                 " allocates at most " + std::to_string(device.max_alloc_bytes) +
                 " bytes per buffer: use a smaller batch");
    std::vector<cl::Buffer> temps;
    for (size_t t = 0; t < count; ++t)
        temps.emplace_back(context.context(), CL_MEM_READ_WRITE, bytes);
    return temps;
}

// ---- step 5: the tables the launches read ---------------------------------

struct plan_tables {
    cl::Buffer dummy; // bound where a launch reads no table
    cl::Buffer pre_factors, spectrum, final_factors, rader_permutation;
    // W_N^k (forward) or W_N^-k, k < N/2: packed real transforms (then a packed
    // cosine transform's factors).
    cl::Buffer real_twiddles;
    std::map<size_t, cl::Buffer> stage_twiddles; // by on-chip length
    std::map<size_t, cl::Buffer> pass_twiddles;  // by full length

    // The user's spectrum is bound by each run().
    const cl::Buffer& factors(table_source source) const
    {
        switch (source) {
        case table_source::spectrum:
            return spectrum;
        case table_source::final_factors:
            return final_factors;
        default:
            return dummy;
        }
    }
};

// A cosine transform's twiddles and scalings around its complex transform
// (cosine_spec()), by transform position, n entries each (a packed one's: n +
// 1, bins 0 .. n), empty where it has none; those past the points read or
// written are never used.
struct cosine_tables {
    std::vector<std::complex<double>> input, output;
};

cosine_tables cosine_factors(const fft_program_spec& spec)
{
    using cosine = fft_program_spec::cosine;
    cosine_tables t;
    const size_t n = spec.dct_length;
    const size_t entries =
        spec.real_packing == fft_program_spec::packing::none ? spec.n : spec.n + 1;
    const double ortho_0 = 1.0 / std::sqrt(4.0 * n), ortho = 1.0 / std::sqrt(2.0 * n);
    std::vector<std::complex<double>>& in = t.input;
    std::vector<std::complex<double>>& out = t.output;
    switch (spec.dct) {
    case cosine::ii:
        // y_k = 2 Re(exp(-pi i k / 2N) V[k]), V the FFT of the reordered points.
        out.assign(entries, 0.0);
        for (size_t k = 0; k < entries; ++k)
            out[k] = 2.0 * unit_root(k, 4 * n) *
                     (spec.dct_ortho ? (k ? ortho : ortho_0) : 1.0);
        break;
    case cosine::iii:
        // exp(+pi i e / 2N) (x[e] - i x[N - e]); ortho weighs x_0 by 1/sqrt(N)
        // and the others by 1/sqrt(2N), the same for both points of a pair.
        in.assign(entries, 0.0);
        for (size_t e = 0; e < entries; ++e)
            in[e] = std::conj(unit_root(e, 4 * n)) *
                    (spec.dct_ortho ? (e ? ortho : 2.0 * ortho_0) : 1.0);
        break;
    case cosine::iv:
        in.assign(spec.n, 0.0);
        out.assign(spec.n, 0.0);
        if (halves_cosine(spec)) {
            // z[e] = exp(-pi i (4e+1) / 4N) (x[2e] + i x[N-1-2e]), Z its FFT of
            // N/2 points, u[k] = exp(-pi i k / N) Z[k]: y[2k] = 2 Re u[k],
            // y[N-1-2k] = -2 Im u[k].
            for (size_t e = 0; e < spec.n; ++e) {
                in[e] = unit_root(4 * e + 1, 8 * n);
                out[e] = 2.0 * unit_root(e, 2 * n) * (spec.dct_ortho ? ortho : 1.0);
            }
            break;
        }
        // y_k = 2 Re(exp(-pi i (2k+1) / 4N) sum_e exp(-pi i e / 2N) x[e] W_2N^ek).
        for (size_t e = 0; e < n; ++e) {
            in[e] = unit_root(e, 4 * n);
            out[e] = 2.0 * unit_root(2 * e + 1, 8 * n) * (spec.dct_ortho ? ortho : 1.0);
        }
        break;
    case cosine::none:
        break;
    }
    return t;
}

// The product of the non-empty tables among \p parts, n entries, as floats.
std::vector<std::complex<float>>
factor_product(size_t n, std::initializer_list<std::vector<std::complex<double>>> parts)
{
    std::vector<std::complex<double>> product(n, 1.0);
    for (const auto& part : parts)
        for (size_t e = 0; e < n && !part.empty(); ++e)
            product[e] *= part[e];
    return to_float(product);
}

// Input-side factors indexed by transform position e: the window (taken at the
// shifted source point when the input is shifted), times Bluestein's chirp and
// a cosine transform's pre-twiddles.
std::vector<std::complex<float>>
input_factors(const fft_program_spec& spec,
              bool shifted,
              const std::vector<std::complex<double>>& chirp,
              const std::vector<std::complex<double>>& cosine)
{
    const size_t n = spec.n;
    std::vector<std::complex<double>> window;
    for (size_t e = 0; e < n && !spec.window.empty(); ++e)
        window.push_back(spec.window[shifted ? (e + n / 2) % n : e]);
    return factor_product(n, { window, chirp, cosine });
}

plan_tables upload_tables(const cl::Context& ctx,
                          const fft_program_spec& spec,
                          const plan_strategy& strategy,
                          const std::vector<launch_step>& steps)
{
    plan_tables t;
    t.dummy = upload(ctx, std::vector<std::complex<float>>(2, 0.0f));
    const int sign = spec.direction == fft_direction::forward ? -1 : 1;
    std::vector<std::complex<double>> chirp;
    if (strategy.method == algorithm::bluestein) {
        chirp = bluestein_chirp(spec.n, sign);
        t.spectrum = upload(ctx, to_float(bluestein_spectrum(chirp, strategy.padded)));
    }
    const cosine_tables cosine = cosine_factors(spec);
    if (steps.back().post.factor == table_source::final_factors)
        t.final_factors = upload(ctx, factor_product(spec.n, { chirp, cosine.output }));
    if (strategy.method == algorithm::rader) {
        t.spectrum = upload(ctx, to_float(rader_spectrum(spec.n, sign)));
        t.rader_permutation = upload(ctx, rader_permutation(spec.n));
    }
    const pre_step& pre = steps.front().pre;
    if (pre.factor)
        t.pre_factors = upload(ctx, input_factors(spec, pre.shift, chirp, cosine.input));
    if (spec.real_packing != fft_program_spec::packing::none) {
        const double sign =
            spec.real_packing == fft_program_spec::packing::forward ? -1 : 1;
        std::vector<std::complex<float>> w(spec.n);
        for (size_t k = 0; k < spec.n; ++k)
            w[k] = std::complex<float>(
                std::polar(1.0, sign * M_PI * double(k) / double(spec.n)));
        // A packed cosine transform's own factors follow (kernels/fft.cl).
        const std::vector<std::complex<float>> own = to_float(
            spec.dct == fft_program_spec::cosine::ii ? cosine.output : cosine.input);
        w.insert(w.end(), own.begin(), own.end());
        t.real_twiddles = upload(ctx, w);
    }
    for (const launch_step& s : steps) {
        if (!t.stage_twiddles.count(s.length))
            t.stage_twiddles[s.length] =
                s.length > 1 ? upload(ctx, stage_twiddles(s.length)) : t.dummy;
        if (s.span > 1 && !t.pass_twiddles.count(s.n_total))
            t.pass_twiddles[s.n_total] =
                upload(ctx, pass_twiddles(s.n_total, pass_twiddle_lo_bits(s.n_total)));
    }
    return t;
}

// ---- step 6: each launch's kernel: build options and arguments ------------

void set_index(kernel_args& args, std::string_view name, size_t value, bool wide)
{
    if (wide)
        args.set(name, static_cast<cl_ulong>(value));
    else
        args.set(name, static_cast<cl_uint>(value));
}

struct fft_launch {
    kernel_args args;
    fft_pass_plan pass;
    role src, dst;
    size_t src_offset, dst_offset; // the layouts' own offsets
    bool user_post_factors;        // the convolution's spectrum, given at run time
    bool user_spectrum;
};

// Makes the kernel of each launch step, every argument set but those of run().
class launch_builder
{
public:
    launch_builder(device_context& context,
                   const fft_device_limits& limits,
                   const fft_program_spec& spec,
                   const plan_strategy& strategy,
                   const plan_tables& tables,
                   bool wide_index)
        : d_context(context),
          d_limits(limits),
          d_spec(spec),
          d_strategy(strategy),
          d_tables(tables),
          d_wide_index(wide_index)
    {
    }

    fft_launch build(const launch_step& s, role src, role dst, bool first) const
    {
        // Only the input holds samples of another format (the first launch
        // reads it; the others read float2 work buffers).
        const std::string sample_type =
            src == role::input ? sample_type_option(d_spec.input_format) : "";
        const resolved_layout in = layout_of(src), out = layout_of(dst);
        fft_launch l;
        const bool packed_forward =
            d_spec.real_packing == fft_program_spec::packing::forward;
        l.pass = plan_pass(s.length,
                           s.n_total,
                           s.span,
                           { in.stride == 1, in.distance == 1 },
                           { out.stride == 1, out.distance == 1, packed_forward },
                           d_limits);
        // The hand-off reorders the radices and lays the tile out again: before
        // the overrides below. Rader's algorithm adds element 0 between the
        // FFTs, through the tile.
        if (s.convolution != table_source::none && d_strategy.method != algorithm::rader)
            l.pass = with_handoff(l.pass, s.fold, d_limits);
        // A packed transform pairs bins k and N/2 - k in the on-chip tile: the
        // forward one as it stores them, the inverse one as it loads them. A
        // register-resident one has no tile of points and pairs them itself.
        if (!l.pass.exchange_parts) {
            if (packed_forward)
                l.pass.store_direct = false;
            if (d_spec.real_packing == fft_program_spec::packing::inverse)
                l.pass.load_direct = false;
        }
        // A one-pass DCT-III or IV reorders its outputs through the tile, so
        // that its stores are contiguous.
        const bool cosine_store =
            dst == role::output && s.length == s.n_total &&
            (s.post.cosine == 3 || s.post.cosine == 4 || s.post.cosine == 5) &&
            !s.post.range && !s.post.shift && s.convolution == table_source::none &&
            d_strategy.method != algorithm::rader;
        if (cosine_store)
            l.pass.store_direct = false;
        if (s.fold > 1)
            l.pass = with_folded_inverse(l.pass, s.fold);
        // Only the output takes real parts alone (work buffers hold complex
        // points).
        std::string output_type =
            dst == role::output && d_spec.real_output ? " -DOUTPUT_REAL=1" : "";
        if (cosine_store)
            output_type += " -DCOSINE_STORE=1";
        if (d_spec.paired_real && src == role::input)
            output_type += " -DPAIR_LOAD=1";
        if (d_spec.paired_real && dst == role::output)
            output_type += " -DPAIR_STORE=1";
        l.args = kernel_args(d_context,
                             "fft.cl",
                             build_options(l.pass, s) + sample_type + output_type,
                             "fft_pass");
        l.src = src;
        l.dst = dst;
        l.src_offset = in.offset;
        l.dst_offset = out.offset;
        l.user_post_factors = s.post.factor == table_source::user;
        l.user_spectrum = s.convolution == table_source::user;
        set_arguments(l.args, s, in, out, first);
        return l;
    }

private:
    resolved_layout layout_of(role r) const
    {
        if (r == role::input)
            return d_spec.in;
        if (r == role::output)
            return d_spec.out;
        return { 0, 1, d_strategy.padded };
    }

    std::string build_options(const fft_pass_plan& pp, const launch_step& s) const
    {
        const bool per_transform =
            d_spec.spectrum_per_transform && d_strategy.method == algorithm::direct;
        const bool constant_tw =
            d_limits.constant_twiddles && s.length * 8 <= d_limits.max_constant_bytes;
        std::ostringstream o;
        o << pp.stage_options() << " -DFFT_G=" << pp.group << " -DCOLUMNS=" << pp.columns
          << " -DSPAN=" << pp.span << " -DN_TOTAL=" << s.n_total << " -DDIR=" << s.dir
          << " -DTHREAD_TRANSFORM_FASTEST=" << pp.thread_transform_fastest
          << " -DLOAD_DIRECT=" << pp.load_direct
          << " -DLOAD_TRANSFORM_FASTEST=" << pp.load_transform_fastest
          << " -DSTORE_DIRECT=" << pp.store_direct
          << " -DSTORE_TRANSFORM_FASTEST=" << pp.store_transform_fastest
          << " -DPASS_TWIDDLE_LO_BITS=" << pass_twiddle_lo_bits(s.n_total)
          << " -DPRE_SHIFT=" << s.pre.shift << " -DPRE_ZERO_PAD=" << s.pre.zero_pad
          << " -DPRE_FACTOR=" << s.pre.factor << " -DPRE_HERMITIAN=" << s.pre.hermitian
          << " -DPRE_COSINE=" << s.pre.cosine << " -DPOST_COSINE=" << s.post.cosine
          << " -DPRE_REAL_UNPACK="
          << (d_spec.real_packing == fft_program_spec::packing::inverse)
          << " -DPOST_REAL_UNPACK="
          << (d_spec.real_packing == fft_program_spec::packing::forward)
          << " -DPOST_FACTOR=" << (s.post.factor != table_source::none)
          << " -DPOST_FACTOR_PER_TRANSFORM="
          << (s.post.factor == table_source::user && per_transform)
          << " -DPOST_RANGE=" << s.post.range
          << " -DPOST_STEP=" << d_spec.range_step / s.fold
          << " -DPOST_SHIFT=" << s.post.shift
          << " -DFUSED_CONVOLUTION=" << (s.convolution != table_source::none)
          << " -DHANDOFF_RADIX=" << (pp.handoff ? pp.radices.back() : 0u)
          << " -DCONV_PER_TRANSFORM=" << per_transform
          << " -DRADER=" << (d_strategy.method == algorithm::rader)
          << " -DIDX=" << (d_wide_index ? "ulong" : "uint")
          << " -DTWIDDLE_SPACE=" << (constant_tw ? "__constant" : "__global");
        return o.str();
    }

    void set_arguments(kernel_args& args,
                       const launch_step& s,
                       const resolved_layout& in,
                       const resolved_layout& out,
                       bool first) const
    {
        set_index(args, "src_offset", in.offset, d_wide_index);
        set_index(args, "src_stride", in.stride, d_wide_index);
        set_index(args, "src_distance", in.distance, d_wide_index);
        set_index(args, "dst_offset", out.offset, d_wide_index);
        set_index(args, "dst_stride", out.stride, d_wide_index);
        set_index(args, "dst_distance", out.distance, d_wide_index);
        // The length the first launch reads (zero padding beyond) and the last
        // one shifts by; they agree whenever both matter (shift reads all).
        args.set("items", static_cast<cl_uint>(d_spec.batch));
        args.set("logical_length",
                 static_cast<cl_uint>(first ? points_read(d_spec) : d_spec.n));
        args.set("scale", s.post.scale);
        args.set("out_begin", static_cast<cl_uint>(d_spec.range_begin / s.fold));
        args.set("out_count", static_cast<cl_uint>(d_spec.range_count));
        const plan_tables& t = d_tables;
        args.set("stage_twiddles", t.stage_twiddles.at(s.length));
        args.set("pass_twiddles", s.span > 1 ? t.pass_twiddles.at(s.n_total) : t.dummy);
        const bool packed = d_spec.real_packing != fft_program_spec::packing::none;
        args.set("pre_factors",
                 s.pre.factor ? t.pre_factors
                 : packed     ? t.real_twiddles
                              : t.dummy);
        args.set("post_factors", packed ? t.real_twiddles : t.factors(s.post.factor));
        args.set("conv_spectrum", t.factors(s.convolution));
        args.set("rader_perm",
                 d_strategy.method == algorithm::rader ? t.rader_permutation : t.dummy);
    }

    device_context& d_context;
    const fft_device_limits& d_limits;
    const fft_program_spec& d_spec;
    const plan_strategy& d_strategy;
    const plan_tables& d_tables;
    const bool d_wide_index;
};

std::string describe(const fft_program_spec& spec,
                     const plan_strategy& strategy,
                     const std::vector<fft_launch>& launches)
{
    std::ostringstream desc;
    desc << "N=" << (spec.normalize_length ? spec.normalize_length : spec.n);
    if (spec.convolution)
        desc << " convolution"
             << (spec.spectrum_per_transform ? " (spectrum per transform)" : "");
    else if (spec.dct != fft_program_spec::cosine::none)
        desc << " DCT-"
             << (spec.dct == fft_program_spec::cosine::ii    ? "II"
                 : spec.dct == fft_program_spec::cosine::iii ? "III"
                                                             : "IV")
             << (spec.dct_ortho ? " ortho" : "");
    else
        desc << (spec.direction == fft_direction::forward ? " forward" : " inverse");
    // A cosine transform's reals in and out go without saying.
    if (spec.input_format == sample_format::f32 &&
        spec.dct == fft_program_spec::cosine::none)
        desc << " of real input";
    if (spec.hermitian_input)
        desc << " of bins 0..N/2";
    if (spec.real_output && spec.dct == fft_program_spec::cosine::none)
        desc << " to real output";
    desc << (spec.in_place ? " in-place" : "") << ", batch " << spec.batch << ": ";
    if (strategy.method == algorithm::rader)
        desc << "Rader via " << strategy.padded << " (one fused kernel), ";
    else if (strategy.method == algorithm::bluestein)
        desc << "Bluestein via " << strategy.padded
             << (strategy.fused ? " (one fused kernel), " : ", ");
    else if (strategy.fused)
        desc << "one fused kernel, ";
    desc << launches.size() << (launches.size() == 1 ? " launch" : " launches");
    for (size_t i = 0; i < launches.size(); ++i) {
        const fft_pass_plan& pp = launches[i].pass;
        desc << (i ? "; " : " [") << "L=" << pp.length << " ";
        for (size_t r = 0; r < pp.radices.size(); ++r)
            desc << (r ? "x" : "") << pp.radices[r];
        desc << " T=" << pp.threads << " G=" << pp.group;
        if (pp.pad_shift)
            desc << " pad 1/" << (1u << pp.pad_shift);
        if (pp.exchange_parts)
            desc << " in registers, exchanged in " << pp.exchange_parts << " part"
                 << (pp.exchange_parts > 1 ? "s" : "");
        if (pp.handoff)
            desc << ", forward to inverse in registers";
        if (pp.fold > 1) {
            desc << ", inverse folded to " << pp.length / pp.fold << " ";
            for (size_t r = 0; r < pp.folded_radices.size(); ++r)
                desc << (r ? "x" : "") << pp.folded_radices[r];
        }
    }
    desc << "]";
    return desc.str();
}

} // namespace

enum class side { none, input, output };

struct fft_program::impl {
    std::vector<fft_launch> launches; // their arguments change in run(), under mutex
    side real_pairs = side::none;     // packed: this side's floats are read as pairs
    plan_tables tables;
    std::vector<cl::Buffer> temps;
    bool wide_index = false;
    std::string description;
    mutable std::mutex mutex;
};

namespace {

// The transform a plan of \p spec computes: \p spec itself, or the complex
// transform that computes its real, paired or cosine transforms.
fft_program_spec transform_of(const fft_program_spec& spec,
                              const fft_device_limits& limits)
{
    if (packs_real(spec, limits))
        return packed(spec);
    if (spec.paired_real)
        return paired(spec);
    if (spec.dct != fft_program_spec::cosine::none)
        return cosine_spec(spec, limits);
    return spec;
}

// Whether a plan of \p spec keeps a transform in registers: a pass longer than
// local memory holds.
bool plans_in_registers(const fft_program_spec& spec, const fft_device_limits& limits)
{
    const plan_strategy s = choose_strategy(transform_of(spec, limits), limits);
    const size_t on_chip = max_on_chip_length(limits, false);
    return std::any_of(s.pass_lengths.begin(),
                       s.pass_lengths.end(),
                       [on_chip](size_t length) { return length > on_chip; });
}

} // namespace

void fft_program::plan(device_context& context, const fft_device_limits& limits)
{
    // Each step below is a function of the earlier ones' results; a new
    // transform type (real input, DCT) adds an algorithm to choose_strategy(),
    // its pre- and post-steps and its tables, not a new constructor.
    const fft_program_spec& spec = d_spec;
    impl& im = *d_impl;
    // From here on the plan computes `built`: the spec, or its packed form.
    const bool packs = packs_real(spec, limits);
    const bool cosine = spec.dct != fft_program_spec::cosine::none;
    const fft_program_spec built = transform_of(spec, limits);
    im.real_pairs =
        packs ? (spec.hermitian_input ? side::output : side::input) : side::none;
    const plan_strategy strategy = choose_strategy(built, limits);
    im.wide_index = needs_wide_index(built, strategy) || needs_wide_index(spec, strategy);
    const std::vector<launch_step> steps = plan_launches(built, strategy);
    const std::vector<role> chain = assign_buffers(built, strategy, steps);
    im.temps = allocate_temporaries(context, built, strategy, chain);
    im.tables = upload_tables(context.context(), built, strategy, steps);
    const launch_builder builder(
        context, limits, built, strategy, im.tables, im.wide_index);
    for (size_t i = 0; i < steps.size(); ++i)
        im.launches.push_back(builder.build(steps[i], chain[i], chain[i + 1], i == 0));
    im.description =
        describe(spec, strategy, im.launches) +
        (packs ? " (real pairs as " + std::to_string(built.n) + " complex points)" : "") +
        (spec.paired_real ? " (real transforms in pairs)" : "") +
        (cosine ? " (via a complex transform of " + std::to_string(built.n) + " points)"
                : "");
}

fft_program::fft_program(device_context::sptr context, const fft_program_spec& spec)
    : d_spec(spec), d_impl(new impl)
{
    check_spec(spec);
    fft_device_limits limits = fft_device_limits::for_device(context->info());
    try {
        plan(*context, limits);
    } catch (const std::runtime_error&) {
        // A kernel build failed. Where it kept a transform in registers (a
        // driver that rejects such a kernel: the largest we build), the same
        // transform in passes of local memory instead; any other failure is
        // the caller's.
        if (!plans_in_registers(spec, limits))
            throw;
        limits.register_resident = false;
        d_impl.reset(new impl);
        plan(*context, limits);
    }
}

fft_program::~fft_program() = default;

size_t fft_program::launches() const { return d_impl->launches.size(); }

const std::string& fft_program::description() const { return d_impl->description; }

size_t fft_program::input_elements(size_t batch) const
{
    return last_element(d_spec.in, d_spec.points_stored(), batch) + 1;
}

size_t fft_program::output_elements(size_t batch) const
{
    return last_element(d_spec.out, d_spec.range_count, batch) + 1;
}

cl::Event fft_program::run(const cl::CommandQueue& queue,
                           const cl::Buffer& input,
                           const cl::Buffer& output,
                           const cl::Buffer* spectrum,
                           const std::vector<cl::Event>& wait,
                           size_t batch,
                           size_t input_offset,
                           size_t output_offset) const
{
    impl& im = *d_impl;
    if (!im.wide_index &&
        std::max(input_offset + input_elements(batch),
                 output_offset + output_elements(batch)) >= (size_t(1) << 32))
        throw std::invalid_argument(std::string(d_spec.owner) +
                                    ": buffer offsets beyond 2^32 elements need a plan "
                                    "whose layout already reaches that far");
    std::lock_guard<std::mutex> lock(im.mutex);
    auto buffer = [&](role r) -> const cl::Buffer& {
        switch (r) {
        case role::input:
            return input;
        case role::output:
            return output;
        case role::temp_a:
            return im.temps[0];
        default:
            return im.temps[1];
        }
    };
    // A packed transform reads (writes) its real side's floats in pairs.
    if (im.real_pairs != side::none) {
        const size_t real_offset =
            im.real_pairs == side::input ? input_offset : output_offset;
        if (real_offset % 2)
            throw std::invalid_argument(
                std::string(d_spec.owner) +
                ": a real transform of even size computes pairs of real points as "
                "complex ones: its real side takes even offsets (got " +
                std::to_string(real_offset) + ")");
        (im.real_pairs == side::input ? input_offset : output_offset) /= 2;
    }
    // The caller's offsets move every access to its buffers, also a pass that
    // keeps an intermediate result in the output buffer and the one reading it.
    auto offset = [&](role r) -> size_t {
        return r == role::input ? input_offset : r == role::output ? output_offset : 0;
    };
    std::vector<cl::Event> deps = wait;
    cl::Event event;
    for (auto& l : im.launches) {
        l.args.set("src", buffer(l.src));
        l.args.set("dst", buffer(l.dst));
        set_index(l.args, "src_offset", l.src_offset + offset(l.src), im.wide_index);
        set_index(l.args, "dst_offset", l.dst_offset + offset(l.dst), im.wide_index);
        const size_t items = d_spec.paired_real ? (batch + 1) / 2 : batch;
        const size_t transforms = items * l.pass.columns;
        l.args.set("transforms", static_cast<cl_uint>(transforms));
        l.args.set("items", static_cast<cl_uint>(batch));
        if (l.user_post_factors)
            l.args.set("post_factors", *spectrum);
        if (l.user_spectrum)
            l.args.set("conv_spectrum", *spectrum);
        const size_t groups = (transforms + l.pass.group - 1) / l.pass.group;
        queue.enqueueNDRangeKernel(l.args.ready(),
                                   cl::NullRange,
                                   cl::NDRange(groups * l.pass.work_group_size()),
                                   cl::NDRange(l.pass.work_group_size()),
                                   deps.empty() ? nullptr : &deps,
                                   &event);
        deps.assign(1, event);
    }
    return event;
}

} // namespace core
} // namespace wideband
} // namespace gr
