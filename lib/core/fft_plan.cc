/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fft_planner.h"
#include "fft_tables.h"
#include <gnuradio/wideband/core/fft_plan.h>

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

namespace {

// Which buffer a launch reads or writes.
enum class role { input, output, temp_a, temp_b };

// Operations fused into a launch's loads and stores (see kernels/fft.cl).
struct fused_ops {
    bool pre_shift = false;
    bool pre_zero_pad = false;
    bool pre_factor = false;
    bool post_factor = false;
    bool post_truncate = false;
    bool post_shift = false;
    bool convolution = false;
};

struct resolved_layout {
    size_t offset, stride, distance;
};

resolved_layout resolve(const fft_layout& l, size_t n)
{
    return { l.offset, l.stride, l.distance ? l.distance : n * l.stride };
}

size_t last_element(const resolved_layout& l, size_t n, size_t batch)
{
    return l.offset + (batch - 1) * l.distance + (n - 1) * l.stride;
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

} // namespace

struct fft_launch {
    cl::Kernel kernel;
    role src, dst;
    size_t columns;
    size_t group;
    size_t work_group_size;
};

class fft_plan::impl
{
public:
    std::vector<fft_launch> launches;
    std::map<size_t, cl::Buffer> stage_tables; // by on-chip length
    std::map<size_t, cl::Buffer> pass_tables;  // by full length
    cl::Buffer pre_factors, post_factors, spectrum, final_factors, dummy;
    cl::Buffer temps[2];
    bool wide_index = false;
    std::string description;
    mutable std::mutex mutex;
};

namespace {

void check_layout(const char* which, const fft_layout& l)
{
    if (l.stride == 0)
        throw std::invalid_argument(std::string("fft_plan: ") + which +
                                    " stride must be >= 1 (got 0)");
}

// Output points of different transforms must never coincide.
void check_output_disjoint(const resolved_layout& l, size_t n, size_t batch)
{
    const bool one_after_another = l.distance >= n * l.stride;
    const bool interleaved = l.stride >= batch * l.distance;
    if (batch == 1 || one_after_another || interleaved)
        return;
    throw std::invalid_argument(
        "fft_plan: output layout makes transforms overlap (stride " +
        std::to_string(l.stride) + ", distance " + std::to_string(l.distance) +
        ", size " + std::to_string(n) + ", batch " + std::to_string(batch) +
        "): use distance >= size*stride, or stride >= batch*distance for interleaved "
        "transforms");
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
        throw std::logic_error("fft_plan: no buffer assignment for the passes");
    return best;
}

} // namespace

fft_plan::fft_plan(device_context::sptr context, size_t size, const fft_options& options)
    : d_context(std::move(context)), d_size(size), d_options(options), d_impl(new impl)
{
    const size_t n = size;
    if (!d_context)
        throw std::invalid_argument("fft_plan: no device context");
    if (n == 0)
        throw std::invalid_argument("fft_plan: size must be >= 1 (got 0)");
    if (options.batch == 0)
        throw std::invalid_argument("fft_plan: batch must be >= 1 (got 0)");
    if (!options.window.empty() && options.window.size() != n)
        throw std::invalid_argument(
            "fft_plan: window has " + std::to_string(options.window.size()) +
            " values; it must be empty or have size (" + std::to_string(n) + ") values");
    if (options.max_pass_length != 0 && options.max_pass_length < 16)
        throw std::invalid_argument(
            "fft_plan: max_pass_length must be 0 (automatic) or >= 16");
    check_layout("input", options.input);
    check_layout("output", options.output);
    const size_t batch = options.batch;
    const resolved_layout in = resolve(options.input, n),
                          out = resolve(options.output, n);
    check_output_disjoint(out, n, batch);
    if (options.in_place && (in.offset != out.offset || in.stride != out.stride ||
                             in.distance != out.distance))
        throw std::invalid_argument(
            "fft_plan: an in-place plan needs identical input and output layouts");

    const bool forward = options.direction == fft_direction::forward;
    const cl::Context& ctx = d_context->context();
    impl& im = *d_impl;

    fft_device_limits limits = fft_device_limits::for_device(d_context->info());
    size_t single_max = max_on_chip_length(limits, false);
    size_t strided_max = max_on_chip_length(limits, true);
    if (options.max_pass_length) {
        single_max = std::min(single_max, options.max_pass_length);
        strided_max = std::min(strided_max, options.max_pass_length);
    }

    const bool bluestein = !is_codelet_smooth(n);
    const size_t padded = bluestein ? next_pow2(2 * n - 1) : n;
    const bool fused_bluestein = bluestein && padded <= single_max;
    const std::vector<size_t> lengths = padded <= single_max
                                            ? std::vector<size_t>{ padded }
                                            : split_into_passes(padded, strided_max);
    const size_t passes = lengths.size();

    // Index width: 32 bits unless some address of this plan needs more.
    {
        const size_t biggest = std::max(
            { last_element(in, n, batch), last_element(out, n, batch), batch * padded });
        im.wide_index = biggest >= (size_t(1) << 32);
        if (batch * padded >= (size_t(1) << 32))
            throw std::invalid_argument(
                "fft_plan: batch * size must be below 2^32 points (got " +
                std::to_string(batch * padded) + ")");
    }

    // ---- tables ----------------------------------------------------------
    const float dummy_data[4] = { 0, 0, 0, 0 };
    im.dummy = cl::Buffer(ctx,
                          CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          sizeof dummy_data,
                          const_cast<float*>(dummy_data));

    // Input-side factors indexed by transform position e: the window (taken at
    // the shifted source point when the input is shifted), times Bluestein's chirp.
    const int chirp_sign = forward ? -1 : 1;
    const bool pre_shift = options.shift && !forward;
    const bool post_shift = options.shift && forward;
    std::vector<std::complex<double>> chirp;
    if (bluestein)
        chirp = bluestein_chirp(n, chirp_sign);
    if (!options.window.empty() || bluestein) {
        std::vector<std::complex<float>> pre(n);
        for (size_t e = 0; e < n; ++e) {
            const size_t source = pre_shift ? (e + n / 2) % n : e;
            std::complex<double> f =
                options.window.empty() ? 1.0 : options.window[source];
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
    const float scale = options.normalize ? float(1.0 / double(n)) : 1.0f;

    // ---- launches --------------------------------------------------------
    struct step {
        size_t length, span, n_total;
        int dir;
        fused_ops ops;
        bool in_place_safe;
    };
    std::vector<step> steps;
    auto add_passes = [&](int dir, bool first_of_plan, bool last_of_plan) {
        size_t span = 1;
        for (size_t p = 0; p < passes; ++p) {
            step s{ lengths[p], span, padded, dir, {}, false };
            if (p == 0 && first_of_plan) {
                s.ops.pre_shift = pre_shift;
                s.ops.pre_zero_pad = bluestein;
                s.ops.pre_factor = bool(im.pre_factors());
            }
            if (p + 1 == passes) {
                if (last_of_plan) {
                    s.ops.post_shift = post_shift;
                    s.ops.post_truncate = bluestein;
                    s.ops.post_factor = bluestein;
                } else {
                    s.ops.post_factor =
                        true; // Bluestein: multiply by the kernel's spectrum
                }
                // A work-group of the last pass writes exactly the points it read
                // (a single pass: its own whole transforms), unless outputs move.
                s.in_place_safe =
                    passes == 1 || (!s.ops.post_shift && !s.ops.post_truncate);
            }
            steps.push_back(s);
            span *= lengths[p];
        }
    };
    if (fused_bluestein) {
        step s{ padded, 1, padded, -1, {}, true };
        s.ops = { pre_shift, true, true, true, true, post_shift, true };
        steps.push_back(s);
    } else if (bluestein) {
        add_passes(-1, true, false);
        add_passes(+1, false, true);
    } else {
        add_passes(forward ? -1 : +1, true, true);
    }

    std::vector<role> candidates;
    if (!bluestein)
        candidates.push_back(role::output);
    candidates.push_back(role::temp_a);
    candidates.push_back(role::temp_b);
    std::vector<bool> safe;
    for (const auto& s : steps)
        safe.push_back(s.in_place_safe);
    const std::vector<role> chain =
        chain_buffers(steps.size(), options.in_place, safe, candidates);

    size_t temp_count = 0;
    for (role r : chain)
        if (r == role::temp_a || r == role::temp_b)
            temp_count = std::max<size_t>(temp_count, r == role::temp_a ? 1 : 2);
    const size_t temp_bytes = batch * padded * 8;
    if (temp_count && temp_bytes > d_context->info().max_alloc_bytes)
        throw std::invalid_argument("fft_plan: size " + std::to_string(n) +
                                    " with batch " + std::to_string(batch) + " needs " +
                                    std::to_string(temp_count) + " work buffers of " +
                                    std::to_string(temp_bytes) + " bytes; " +
                                    d_context->info().name + " allocates at most " +
                                    std::to_string(d_context->info().max_alloc_bytes) +
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

    std::ostringstream desc;
    desc << "N=" << n << (forward ? " forward" : " inverse")
         << (options.in_place ? " in-place" : "") << ", batch " << batch << ": ";
    if (bluestein)
        desc << "Bluestein via " << padded
             << (fused_bluestein ? " (one fused kernel), " : ", ");
    desc << steps.size() << (steps.size() == 1 ? " launch" : " launches");

    for (size_t i = 0; i < steps.size(); ++i) {
        const step& s = steps[i];
        const role src = chain[i], dst = chain[i + 1];
        const resolved_layout lin = layout_of(src), lout = layout_of(dst);
        fft_pass_io io_in{ lin.stride == 1, lin.distance == 1 };
        fft_pass_io io_out{ lout.stride == 1, lout.distance == 1 };
        const fft_pass_plan pp =
            plan_pass(s.length, s.n_total, s.span, io_in, io_out, limits);

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
          << " -DPOST_FACTOR=" << s.ops.post_factor
          << " -DPOST_TRUNCATE=" << s.ops.post_truncate
          << " -DPOST_SHIFT=" << s.ops.post_shift
          << " -DFUSED_CONVOLUTION=" << s.ops.convolution
          << " -DIDX=" << (im.wide_index ? "ulong" : "uint")
          << " -DTWIDDLE_SPACE=" << (constant_tw ? "__constant" : "__global");

        fft_launch l;
        l.kernel = d_context->kernel("fft.cl", o.str(), "fft_pass");
        l.src = src;
        l.dst = dst;
        l.columns = pp.columns;
        l.group = pp.group;
        l.work_group_size = pp.work_group_size();

        if (!im.stage_tables.count(s.length))
            im.stage_tables[s.length] =
                s.length > 1 ? upload(ctx, stage_twiddles(s.length)) : im.dummy;
        if (s.span > 1 && !im.pass_tables.count(s.n_total))
            im.pass_tables[s.n_total] =
                upload(ctx, pass_twiddles(s.n_total, pass_twiddle_lo_bits(s.n_total)));

        auto set_index = [&](cl_uint arg, size_t value) {
            if (im.wide_index)
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
        l.kernel.setArg(9, static_cast<cl_uint>(n));
        l.kernel.setArg(10, i + 1 == steps.size() ? scale : 1.0f);
        l.kernel.setArg(11, im.stage_tables[s.length]);
        l.kernel.setArg(12, s.span > 1 ? im.pass_tables[s.n_total] : im.dummy);
        l.kernel.setArg(13, s.ops.pre_factor ? im.pre_factors : im.dummy);
        const bool last = i + 1 == steps.size();
        l.kernel.setArg(14,
                        !s.ops.post_factor ? im.dummy
                        : last             ? im.final_factors
                                           : im.spectrum);
        l.kernel.setArg(15, s.ops.convolution ? im.spectrum : im.dummy);
        im.launches.push_back(l);

        desc << (i ? "; " : " [") << "L=" << pp.length << " ";
        for (size_t r = 0; r < pp.radices.size(); ++r)
            desc << (r ? "x" : "") << pp.radices[r];
        desc << " T=" << pp.threads << " G=" << pp.group;
    }
    desc << "]";
    im.description = desc.str();
}

fft_plan::~fft_plan() = default;

size_t fft_plan::input_elements(size_t batch) const
{
    return last_element(resolve(d_options.input, d_size), d_size, batch) + 1;
}

size_t fft_plan::output_elements(size_t batch) const
{
    return last_element(resolve(d_options.output, d_size), d_size, batch) + 1;
}

size_t fft_plan::launches() const { return d_impl->launches.size(); }

std::string fft_plan::describe() const { return d_impl->description; }

cl::Event fft_plan::enqueue(const cl::CommandQueue& queue,
                            const cl::Buffer& input,
                            const cl::Buffer& output,
                            const std::vector<cl::Event>& wait,
                            size_t batch) const
{
    if (d_options.in_place)
        throw std::invalid_argument(
            "fft_plan: this plan is in-place; call enqueue(queue, data, ...)");
    if (input() == output())
        throw std::invalid_argument("fft_plan: input and output are the same buffer; "
                                    "make the plan with in_place = true");
    return run(queue, input, output, wait, batch);
}

cl::Event fft_plan::enqueue(const cl::CommandQueue& queue,
                            const cl::Buffer& data,
                            const std::vector<cl::Event>& wait,
                            size_t batch) const
{
    if (!d_options.in_place)
        throw std::invalid_argument("fft_plan: this plan is out-of-place; call "
                                    "enqueue(queue, input, output, ...)");
    return run(queue, data, data, wait, batch);
}

cl::Event fft_plan::run(const cl::CommandQueue& queue,
                        const cl::Buffer& input,
                        const cl::Buffer& output,
                        const std::vector<cl::Event>& wait,
                        size_t batch) const
{
    if (batch == 0)
        batch = d_options.batch;
    if (batch > d_options.batch)
        throw std::invalid_argument("fft_plan: batch " + std::to_string(batch) +
                                    " exceeds the plan's batch " +
                                    std::to_string(d_options.batch));
    auto check_size = [](const char* which, const cl::Buffer& b, size_t elements) {
        const size_t have = b.getInfo<CL_MEM_SIZE>();
        if (have < elements * 8)
            throw std::invalid_argument(std::string("fft_plan: ") + which +
                                        " buffer holds " + std::to_string(have) +
                                        " bytes; the layout needs " +
                                        std::to_string(elements * 8));
    };
    check_size("input", input, input_elements(batch));
    check_size("output", output, output_elements(batch));

    const impl& im = *d_impl;
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
        const size_t transforms = batch * l.columns;
        kernel.setArg(8, static_cast<cl_uint>(transforms));
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
