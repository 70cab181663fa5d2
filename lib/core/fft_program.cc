/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fft_planner.h"
#include "fft_program.h"
#include "fft_tables.h"

#include <algorithm>
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

namespace {

// Which buffer a launch reads or writes.
enum class role { input, output, temp_a, temp_b };

// Where a launch's spectrum or post factors come from.
enum class table_source { none, internal, user };

// Operations fused into a launch's loads and stores (see kernels/fft.cl).
struct fused_ops {
    bool pre_shift = false;
    bool pre_zero_pad = false;
    bool pre_factor = false;
    table_source post_factor = table_source::none;
    bool post_range = false;
    bool post_shift = false;
    table_source convolution = table_source::none;
};

// One launch: an on-chip FFT pass (or a fused convolution) and its extras.
struct step {
    size_t length, span, n_total;
    int dir;
    fused_ops ops;
    bool in_place_safe;
    bool last;
};

size_t last_element(const resolved_layout& l, size_t points, size_t batch)
{
    return l.offset + (batch - 1) * l.distance + (points - 1) * l.stride;
}

size_t next_pow2(size_t n)
{
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

cl::Buffer upload(const cl::Context& ctx, const std::vector<std::complex<float>>& data)
{
    return cl::Buffer(ctx,
                      CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                      data.size() * sizeof(data[0]),
                      const_cast<std::complex<float>*>(data.data()));
}

std::vector<std::complex<float>> to_float(const std::vector<std::complex<double>>& v)
{
    std::vector<std::complex<float>> f(v.size());
    std::transform(v.begin(), v.end(), f.begin(), [](const std::complex<double>& x) {
        return std::complex<float>(x);
    });
    return f;
}

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

} // namespace

struct fft_launch {
    cl::Kernel kernel;
    role src, dst;
    size_t columns;
    size_t group;
    size_t work_group_size;
    bool user_post_factors; // the convolution's spectrum, given at run time
    bool user_spectrum;
    size_t src_offset, dst_offset; // the layouts' own offsets (args 2 and 5)
    bool wide_index;               // those args are ulong
};

struct fft_program::impl {
    std::vector<fft_launch> launches;
    std::map<size_t, cl::Buffer> stage_tables; // by on-chip length
    std::map<size_t, cl::Buffer> pass_tables;  // by full length
    cl::Buffer pre_factors, spectrum, final_factors, rader_perm, dummy;
    cl::Buffer temps[2];
    std::string description;
    mutable std::mutex mutex;
};

fft_program::fft_program(device_context::sptr context, const fft_program_spec& spec)
    : d_spec(spec), d_impl(new impl)
{
    const std::string owner = spec.owner;
    const size_t n = spec.n, batch = spec.batch;
    const size_t read = spec.input_points ? spec.input_points : n;
    const resolved_layout &in = spec.in, &out = spec.out;
    const size_t written = spec.range_count;
    auto fail = [&](const std::string& what) {
        throw std::invalid_argument(owner + ": " + what);
    };
    if (in.stride == 0 || out.stride == 0)
        fail(std::string(in.stride == 0 ? "input" : "output") +
             " stride must be >= 1 (got 0)");
    // Output points of different transforms must never coincide.
    if (batch > 1 && out.distance < written * out.stride &&
        out.stride < batch * out.distance)
        fail("output layout makes transforms overlap (stride " +
             std::to_string(out.stride) + ", distance " + std::to_string(out.distance) +
             ", points " + std::to_string(written) + ", batch " + std::to_string(batch) +
             "): use distance >= points*stride, or stride >= batch*distance for "
             "interleaved transforms");
    if (spec.in_place && (in.offset != out.offset || in.stride != out.stride ||
                          in.distance != out.distance || written != n || read != n))
        fail("an in-place plan needs identical input and output layouts and every "
             "point read and written");
    if (read > n)
        fail("input_points " + std::to_string(read) + " exceeds the size " +
             std::to_string(n));
    if (spec.shift && read != n)
        fail("shift needs every input point (input_points = size)");
    if (spec.shift && spec.range_count != n)
        fail("shift writes every output point: it cannot be combined with an "
             "output_range (use the default range)");

    impl& im = *d_impl;
    const cl::Context& ctx = context->context();
    const bool forward = spec.direction == fft_direction::forward;

    fft_device_limits limits = fft_device_limits::for_device(context->info());
    size_t single_max = max_on_chip_length(limits, false);
    size_t strided_max = max_on_chip_length(limits, true);
    if (spec.max_pass_length) {
        single_max = std::min(single_max, spec.max_pass_length);
        strided_max = std::min(strided_max, spec.max_pass_length);
    }

    const bool smooth = is_codelet_smooth(n);
    if (spec.convolution && !smooth)
        fail("a convolution length must have no prime factor above " +
             std::to_string(largest_codelet_prime) + " (got " + std::to_string(n) + ")");
    // Other lengths become convolutions: a prime whose n - 1 is smooth and fits
    // on chip by Rader's (cyclic, length n - 1, one fused kernel), anything else
    // by Bluestein's (zero-padded, a power of two >= 2n - 1).
    const bool rader =
        !smooth && is_prime(n) && is_codelet_smooth(n - 1) && n - 1 <= single_max;
    const bool bluestein = !smooth && !rader;
    const size_t padded = rader ? n - 1 : bluestein ? next_pow2(2 * n - 1) : n;
    // A convolution (ours, or Rader's or Bluestein's inside a transform) runs
    // forward and inverse passes; in one fused launch when it fits on chip.
    const bool convolves = spec.convolution || bluestein || rader;
    const bool fused = convolves && padded <= single_max;
    const std::vector<size_t> lengths = padded <= single_max
                                            ? std::vector<size_t>{ padded }
                                            : split_into_passes(padded, strided_max);
    const size_t passes = lengths.size();

    if (batch * padded >= (size_t(1) << 32))
        fail("batch * size must be below 2^32 points (got " +
             std::to_string(batch * padded) + ")");
    // Index width: 32 bits unless some address of this plan needs more.
    const size_t biggest = std::max({ last_element(in, n, batch),
                                      last_element(out, written, batch),
                                      batch * padded });
    const bool wide_index = biggest >= (size_t(1) << 32);

    // ---- tables ----------------------------------------------------------
    const float dummy_data[4] = { 0, 0, 0, 0 };
    im.dummy = cl::Buffer(ctx,
                          CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          sizeof dummy_data,
                          const_cast<float*>(dummy_data));

    // Input-side factors indexed by transform position e: the window (taken at
    // the shifted source point when the input is shifted), times Bluestein's chirp.
    const bool pre_shift = spec.shift && !forward;
    const bool post_shift = spec.shift && forward;
    std::vector<std::complex<double>> chirp;
    if (bluestein)
        chirp = bluestein_chirp(n, forward ? -1 : 1);
    if (!spec.window.empty() || bluestein) {
        std::vector<std::complex<float>> pre(n);
        for (size_t e = 0; e < n; ++e) {
            const size_t source = pre_shift ? (e + n / 2) % n : e;
            std::complex<double> f = spec.window.empty() ? 1.0 : spec.window[source];
            if (bluestein)
                f *= chirp[e];
            pre[e] = std::complex<float>(f);
        }
        im.pre_factors = upload(ctx, pre);
    }
    if (bluestein) {
        im.spectrum = upload(ctx, to_float(bluestein_spectrum(chirp, padded)));
        im.final_factors = upload(ctx, to_float(chirp));
    }
    if (rader) {
        im.spectrum = upload(ctx, to_float(rader_spectrum(n, forward ? -1 : 1)));
        const std::vector<uint32_t> perm = rader_permutation(n);
        im.rader_perm = cl::Buffer(ctx,
                                   CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   perm.size() * sizeof(perm[0]),
                                   const_cast<uint32_t*>(perm.data()));
    }
    const float scale = spec.normalize ? float(1.0 / double(n)) : 1.0f;
    const table_source spectrum_source =
        bluestein || rader ? table_source::internal : table_source::user;
    const bool ranged = spec.range_begin != 0 || spec.range_step != 1 || written != n;

    // ---- steps -----------------------------------------------------------
    std::vector<step> steps;
    auto last_ops = [&](fused_ops& ops) {
        ops.post_shift = post_shift;
        ops.post_range = ranged || bluestein; // Bluestein drops its padding
        if (bluestein)
            ops.post_factor = table_source::internal;
    };
    auto add_passes = [&](int dir, bool first_of_plan, bool last_of_plan) {
        size_t span = 1;
        for (size_t p = 0; p < passes; ++p) {
            step s{ lengths[p], span, padded, dir, {}, false, false };
            if (p == 0 && first_of_plan) {
                s.ops.pre_shift = pre_shift;
                s.ops.pre_zero_pad = bluestein || read < n;
                s.ops.pre_factor = bool(im.pre_factors());
            }
            if (p + 1 == passes) {
                if (last_of_plan)
                    last_ops(s.ops);
                else
                    s.ops.post_factor = spectrum_source; // the convolution's multiply
                // A work-group of the last pass writes exactly the points it read
                // (a single pass: its own whole transforms), unless outputs move.
                s.in_place_safe = passes == 1 || (!s.ops.post_shift && !s.ops.post_range);
                s.last = last_of_plan;
            }
            steps.push_back(s);
            span *= lengths[p];
        }
    };
    if (fused) {
        step s{ padded, 1, padded, -1, {}, true, true };
        s.ops.pre_shift = pre_shift;
        s.ops.pre_zero_pad = bluestein || read < n;
        s.ops.pre_factor = bool(im.pre_factors());
        s.ops.convolution = spectrum_source;
        last_ops(s.ops);
        steps.push_back(s);
    } else if (convolves) {
        add_passes(-1, true, false);
        add_passes(+1, false, true);
    } else {
        add_passes(forward ? -1 : +1, true, true);
    }

    // ---- buffers ---------------------------------------------------------
    // The output can hold intermediate points only when it has them all.
    std::vector<role> candidates;
    if (!convolves && !ranged)
        candidates.push_back(role::output);
    candidates.push_back(role::temp_a);
    candidates.push_back(role::temp_b);
    std::vector<bool> safe;
    for (const auto& s : steps)
        safe.push_back(s.in_place_safe);
    const std::vector<role> chain =
        chain_buffers(steps.size(), spec.in_place, safe, candidates);

    size_t temp_count = 0;
    for (role r : chain)
        if (r == role::temp_a || r == role::temp_b)
            temp_count = std::max<size_t>(temp_count, r == role::temp_a ? 1 : 2);
    const size_t temp_bytes = batch * padded * 8;
    if (temp_count && temp_bytes > context->info().max_alloc_bytes)
        fail("size " + std::to_string(n) + " with batch " + std::to_string(batch) +
             " needs " + std::to_string(temp_count) + " work buffers of " +
             std::to_string(temp_bytes) + " bytes; " + context->info().name +
             " allocates at most " + std::to_string(context->info().max_alloc_bytes) +
             " bytes per buffer: use a smaller batch");
    for (size_t t = 0; t < temp_count; ++t)
        im.temps[t] = cl::Buffer(ctx, CL_MEM_READ_WRITE, temp_bytes);

    auto layout_of = [&](role r) -> resolved_layout {
        if (r == role::input)
            return in;
        if (r == role::output)
            return out;
        return { 0, 1, padded };
    };

    // ---- kernels ---------------------------------------------------------
    std::ostringstream desc;
    desc << "N=" << n;
    if (spec.convolution)
        desc << " convolution"
             << (spec.spectrum_per_transform ? " (spectrum per transform)" : "");
    else
        desc << (forward ? " forward" : " inverse");
    desc << (spec.in_place ? " in-place" : "") << ", batch " << batch << ": ";
    if (rader)
        desc << "Rader via " << padded << " (one fused kernel), ";
    else if (bluestein)
        desc << "Bluestein via " << padded << (fused ? " (one fused kernel), " : ", ");
    else if (fused)
        desc << "one fused kernel, ";
    desc << steps.size() << (steps.size() == 1 ? " launch" : " launches");

    for (size_t i = 0; i < steps.size(); ++i) {
        const step& s = steps[i];
        const role src = chain[i], dst = chain[i + 1];
        const resolved_layout lin = layout_of(src), lout = layout_of(dst);
        const fft_pass_io io_in{ lin.stride == 1, lin.distance == 1 };
        const fft_pass_io io_out{ lout.stride == 1, lout.distance == 1 };
        const fft_pass_plan pp =
            plan_pass(s.length, s.n_total, s.span, io_in, io_out, limits);
        const bool per_transform = spec.spectrum_per_transform && !bluestein && !rader;

        const bool constant_tw =
            limits.constant_twiddles && s.length * 8 <= limits.max_constant_bytes;
        std::ostringstream o;
        o << pp.stage_options() << " -DFFT_G=" << pp.group << " -DCOLUMNS=" << pp.columns
          << " -DSPAN=" << pp.span << " -DN_TOTAL=" << s.n_total << " -DDIR=" << s.dir
          << " -DTHREAD_TRANSFORM_FASTEST=" << pp.thread_transform_fastest
          << " -DLOAD_DIRECT=" << pp.load_direct
          << " -DLOAD_TRANSFORM_FASTEST=" << pp.load_transform_fastest
          << " -DSTORE_DIRECT=" << pp.store_direct
          << " -DSTORE_TRANSFORM_FASTEST=" << pp.store_transform_fastest
          << " -DPASS_TWIDDLE_LO_BITS=" << pass_twiddle_lo_bits(s.n_total)
          << " -DPRE_SHIFT=" << s.ops.pre_shift
          << " -DPRE_ZERO_PAD=" << s.ops.pre_zero_pad
          << " -DPRE_FACTOR=" << s.ops.pre_factor
          << " -DPOST_FACTOR=" << (s.ops.post_factor != table_source::none)
          << " -DPOST_FACTOR_PER_TRANSFORM="
          << (s.ops.post_factor == table_source::user && per_transform)
          << " -DPOST_RANGE=" << s.ops.post_range << " -DPOST_STEP=" << spec.range_step
          << " -DPOST_SHIFT=" << s.ops.post_shift
          << " -DFUSED_CONVOLUTION=" << (s.ops.convolution != table_source::none)
          << " -DCONV_PER_TRANSFORM=" << per_transform << " -DRADER=" << rader
          << " -DIDX=" << (wide_index ? "ulong" : "uint")
          << " -DTWIDDLE_SPACE=" << (constant_tw ? "__constant" : "__global");

        fft_launch l;
        l.kernel = context->kernel("fft.cl", o.str(), "fft_pass");
        l.src = src;
        l.dst = dst;
        l.columns = pp.columns;
        l.group = pp.group;
        l.work_group_size = pp.work_group_size();
        l.user_post_factors = s.ops.post_factor == table_source::user;
        l.user_spectrum = s.ops.convolution == table_source::user;
        l.src_offset = lin.offset;
        l.dst_offset = lout.offset;
        l.wide_index = wide_index;

        if (!im.stage_tables.count(s.length))
            im.stage_tables[s.length] =
                s.length > 1 ? upload(ctx, stage_twiddles(s.length)) : im.dummy;
        if (s.span > 1 && !im.pass_tables.count(s.n_total))
            im.pass_tables[s.n_total] =
                upload(ctx, pass_twiddles(s.n_total, pass_twiddle_lo_bits(s.n_total)));

        auto set_index = [&](cl_uint arg, size_t value) {
            if (wide_index)
                l.kernel.setArg(arg, static_cast<cl_ulong>(value));
            else
                l.kernel.setArg(arg, static_cast<cl_uint>(value));
        };
        set_index(2, lin.offset);
        set_index(3, lin.stride);
        set_index(4, lin.distance);
        set_index(5, lout.offset);
        set_index(6, lout.stride);
        set_index(7, lout.distance);
        // The length the first launch reads (zero padding beyond) and the last
        // one shifts by; they agree whenever both matter (shift reads all).
        l.kernel.setArg(9, static_cast<cl_uint>(i == 0 ? read : n));
        l.kernel.setArg(10, s.last ? scale : 1.0f);
        l.kernel.setArg(11, static_cast<cl_uint>(spec.range_begin));
        l.kernel.setArg(12, static_cast<cl_uint>(written));
        l.kernel.setArg(13, im.stage_tables[s.length]);
        l.kernel.setArg(14, s.span > 1 ? im.pass_tables[s.n_total] : im.dummy);
        l.kernel.setArg(15, s.ops.pre_factor ? im.pre_factors : im.dummy);
        l.kernel.setArg(16,
                        s.ops.post_factor != table_source::internal ? im.dummy
                        : s.last                                    ? im.final_factors
                                                                    : im.spectrum);
        l.kernel.setArg(
            17, s.ops.convolution == table_source::internal ? im.spectrum : im.dummy);
        l.kernel.setArg(18, rader ? im.rader_perm : im.dummy);
        im.launches.push_back(l);

        desc << (i ? "; " : " [") << "L=" << pp.length << " ";
        for (size_t r = 0; r < pp.radices.size(); ++r)
            desc << (r ? "x" : "") << pp.radices[r];
        desc << " T=" << pp.threads << " G=" << pp.group;
    }
    desc << "]";
    im.description = desc.str();
}

fft_program::~fft_program() = default;

size_t fft_program::launches() const { return d_impl->launches.size(); }

const std::string& fft_program::description() const { return d_impl->description; }

size_t fft_program::input_elements(size_t batch) const
{
    return last_element(
               d_spec.in, d_spec.input_points ? d_spec.input_points : d_spec.n, batch) +
           1;
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
    const impl& im = *d_impl;
    if (!im.launches.empty() && !im.launches.front().wide_index &&
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
    std::vector<cl::Event> deps = wait;
    cl::Event event;
    for (const auto& l : im.launches) {
        cl::Kernel kernel = l.kernel;
        kernel.setArg(0, buffer(l.src));
        kernel.setArg(1, buffer(l.dst));
        auto set_index = [&](cl_uint arg, size_t value) {
            if (l.wide_index)
                kernel.setArg(arg, static_cast<cl_ulong>(value));
            else
                kernel.setArg(arg, static_cast<cl_uint>(value));
        };
        set_index(2, l.src_offset + (l.src == role::input ? input_offset : 0));
        set_index(5, l.dst_offset + (l.dst == role::output ? output_offset : 0));
        const size_t transforms = batch * l.columns;
        kernel.setArg(8, static_cast<cl_uint>(transforms));
        if (l.user_post_factors)
            kernel.setArg(16, *spectrum);
        if (l.user_spectrum)
            kernel.setArg(17, *spectrum);
        const size_t groups = (transforms + l.group - 1) / l.group;
        queue.enqueueNDRangeKernel(kernel,
                                   cl::NullRange,
                                   cl::NDRange(groups * l.work_group_size),
                                   cl::NDRange(l.work_group_size),
                                   deps.empty() ? nullptr : &deps,
                                   &event);
        deps.assign(1, event);
    }
    return event;
}

} // namespace core
} // namespace wideband
} // namespace gr
