/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fault_injection.h"
#include "fft_planner.h"
#include "stream_window.h"
#include <gnuradio/wideband/core/fft_convolution.h>
#include <gnuradio/wideband/core/fft_filter.h>
#include <gnuradio/wideband/core/fft_plan.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace wideband {
namespace core {

namespace {

constexpr size_t default_input_samples = size_t(1) << 20;

size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

[[noreturn]] void fail(const std::string& what)
{
    throw std::invalid_argument("fft_filter: " + what);
}

void check_taps(const std::vector<std::complex<float>>& taps, bool real_output)
{
    if (taps.empty())
        fail("taps must not be empty (give at least one tap)");
    for (const auto& t : taps) {
        if (!std::isfinite(t.real()) || !std::isfinite(t.imag()))
            fail("taps must be finite numbers");
        // The real outputs of two blocks share one complex transform: only a
        // real filter keeps them apart.
        if (real_output && t.imag() != 0.0f)
            fail("a filter with real output takes real taps (imaginary parts 0)");
    }
}

// Outputs kept per block: every D-th of the L - T + 1 valid ones, whole steps of D.
size_t block_step_for(size_t fft_size, size_t taps, size_t decimation)
{
    if (fft_size + 1 < taps + decimation)
        return 0;
    return (fft_size - taps + 1) / decimation * decimation;
}

/*
 * Whether the convolution of a filter of FFT length L and decimation D folds its
 * inverse FFT to L / D points: one kernel (L on chip) that can fold. The
 * filter's outputs then begin at a multiple of D (prepare()), which
 * fft_convolution also requires.
 */
bool inverse_folds(size_t L, size_t D, size_t on_chip)
{
    return L <= on_chip && can_fold(L, D);
}

} // namespace

size_t
fft_filter::choose_fft_size(const device_info& device, size_t taps, size_t decimation)
{
    const fft_device_limits limits = fft_device_limits::for_device(device);
    const size_t on_chip = max_on_chip_length(limits, false);
    const size_t strided = max_on_chip_length(limits, true);
    // Cost per input sample: every block reads its L samples and writes its
    // outputs once when the convolution is one kernel; otherwise each of the 2P
    // passes reads and writes all L points. A mild log term for the arithmetic,
    // more for each factor 3, 5 or 7 (their codelets cost more per point), and
    // a one-kernel tile over 3/4 of the local memory costs compute units their
    // second group (docs/benchmarks.md, "The FIR filter's FFT length").
    const size_t smallest = taps + decimation - 1;
    const size_t largest =
        std::min<size_t>(std::max<size_t>(4 * smallest, 65536), 1 << 24);
    size_t best = 0;
    double best_cost = std::numeric_limits<double>::infinity();
    for (size_t p2 = 1; p2 <= largest; p2 *= 2)
        for (size_t p3 = p2, odd3 = 0; p3 <= largest; p3 *= 3, ++odd3)
            for (size_t p5 = p3, odd5 = odd3; p5 <= largest; p5 *= 5, ++odd5)
                for (size_t length = p5, odd = odd5; length <= largest;
                     length *= 7, ++odd) {
                    if (length < smallest)
                        continue;
                    const size_t step = block_step_for(length, taps, decimation);
                    const double outputs = double(step / decimation);
                    const bool one_kernel = length <= on_chip;
                    const double bytes =
                        one_kernel
                            ? double(length) + outputs
                            : 4.0 * split_into_passes(length, strided).size() * length +
                                  outputs;
                    // A one-kernel decimating filter whose D divides the
                    // length runs its inverse FFT on L / D points; its rate
                    // per sample hardly depends on L, so no log term
                    // (docs/benchmarks.md, "Decimating FFT filters fold").
                    const bool folds = inverse_folds(length, decimation, on_chip);
                    const double log_term =
                        folds ? 1.0 : 1.0 + 0.02 * std::log2(double(length));
                    const double inverse_share = folds ? 1.0 / double(decimation) : 1.0;
                    const double arithmetic = log_term * std::pow(1.25, double(odd)) *
                                              (1.0 + inverse_share) / 2.0;
                    const double occupancy =
                        one_kernel && 4 * length > 3 * on_chip ? 1.6 : 1.0;
                    const double cost = bytes / double(step) * arithmetic * occupancy;
                    if (cost < best_cost || (cost == best_cost && length < best)) {
                        best_cost = cost;
                        best = length;
                    }
                }
    if (!best)
        fail("no FFT length up to 2^24 holds " + std::to_string(taps) +
             " taps with decimation " + std::to_string(decimation) +
             ": taps + decimation - 1 must be at most 2^24 = 16777216");
    return best;
}

// What depends on the taps: the FFT, its convolution and the taps' spectrum.
struct taps_setup {
    std::vector<std::complex<float>> taps;
    size_t L = 0, B = 0, max_blocks = 0;
    std::unique_ptr<fft_convolution> convolution;
    cl::Buffer spectrum;
};

class fft_filter::impl
{
public:
    device_context::sptr ctx;
    size_t D, max_input;
    sample_format input_format;
    bool real_output;
    cl::CommandQueue setup_queue;
    taps_setup current;
    std::unique_ptr<stream_window> window;

    // Everything for new taps with FFT length L (0: chosen), made without
    // touching the current setup, so that a failure leaves the filter as it was.
    taps_setup prepare(const std::vector<std::complex<float>>& taps, size_t L) const;
};

taps_setup fft_filter::impl::prepare(const std::vector<std::complex<float>>& taps,
                                     size_t L) const
{
    taps_setup s;
    s.taps = taps;
    const size_t T = taps.size();
    s.L = L ? L : choose_fft_size(ctx->info(), T, D);
    s.B = block_step_for(s.L, T, D);
    if (!is_codelet_smooth(s.L) || s.B < D)
        fail("fft_size " + std::to_string(s.L) + " must have no prime factor above " +
             std::to_string(largest_codelet_prime) +
             " and be at least taps + decimation - 1 = " + std::to_string(T + D - 1));
    // Outputs of a call: up to (leftover + max_input) / D, in blocks of B / D.
    s.max_blocks = ceil_div(max_input + D, s.B);
    fft_convolution_options co;
    co.batch = s.max_blocks;
    co.input.distance = s.B; // the blocks' windows overlap by L - B samples
    co.input_format = input_format;
    co.real_output = real_output;
    co.real_filter = real_output;
    // The first kept output of a block is its valid output T - 1. Where the
    // convolution is one kernel that can fold, the taps are moved back by lag =
    // (T - 1) mod D (circularly, the first lag at the end): output e of the
    // circular convolution is the unmoved one's e + lag, so the kept outputs lie
    // at multiples of D and the inverse FFT computes only those
    // (fft_convolution's folding).
    const size_t on_chip =
        max_on_chip_length(fft_device_limits::for_device(ctx->info()), false);
    const size_t lag = inverse_folds(s.L, D, on_chip) ? (T - 1) % D : 0;
    co.output_range = { T - 1 - lag, D, s.B / D };
    s.convolution.reset(new fft_convolution(ctx, s.L, co));

    std::vector<std::complex<float>> moved;
    if (lag) {
        moved.assign(s.L, 0.0f);
        std::copy(taps.begin() + lag, taps.end(), moved.begin());
        std::copy(taps.begin(), taps.begin() + lag, moved.end() - lag);
    }
    const std::vector<std::complex<float>>& placed = lag ? moved : taps;
    // The taps' spectrum, scaled by 1/L, computed on the device; a new buffer,
    // as kernels still in flight may read the old one.
    const cl::Context& cl_ctx = ctx->context();
    cl::Buffer padded(cl_ctx,
                      CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                      placed.size() * 8,
                      const_cast<std::complex<float>*>(placed.data()));
    s.spectrum = cl::Buffer(cl_ctx, CL_MEM_READ_WRITE, s.L * 8);
    fft_options fo;
    fo.input_points = placed.size();
    fo.normalize = true;
    fft_plan(ctx, s.L, fo).enqueue(setup_queue, padded, s.spectrum).wait();
    return s;
}

namespace {

size_t max_input_for(const fft_filter_options& options)
{
    return std::max(options.max_input_samples ? options.max_input_samples
                                              : default_input_samples,
                    options.decimation);
}

} // namespace

void fft_filter::check(const device_info& device, const fft_filter_options& options)
{
    if (options.decimation < 1)
        fail("decimation must be >= 1 (got 0)");
    if (options.real_output && options.input_format != sample_format::f32)
        fail("real output needs real input (input_format f32)");
    check_taps(options.taps, options.real_output);
    const size_t T = options.taps.size(), D = options.decimation;
    const size_t L = options.fft_size ? options.fft_size : choose_fft_size(device, T, D);
    const size_t B = block_step_for(L, T, D);
    if (!is_codelet_smooth(L) || B < D)
        fail("fft_size " + std::to_string(L) + " must have no prime factor above " +
             std::to_string(largest_codelet_prime) +
             " and be at least taps + decimation - 1 = " + std::to_string(T + D - 1));
    const size_t max_input = max_input_for(options);
    const size_t blocks = ceil_div(max_input + D, B);
    check_buffer_fits(device,
                      "fft_filter: the fft_convolution of a call (" +
                          std::to_string(blocks) + " blocks of " + std::to_string(L) +
                          " points)",
                      blocks * L * 8);
    check_buffer_fits(device,
                      "fft_filter: an input window",
                      stream_window::capacity_for(T - 1, max_input, L) *
                          sample_bytes(options.input_format));
}

fft_filter::fft_filter(device_context::sptr context, const fft_filter_options& options)
    : d_impl(new impl)
{
    if (!context)
        fail("no device context");
    check(context->info(), options);
    impl& im = *d_impl;
    im.ctx = std::move(context);
    im.D = options.decimation;
    im.max_input = max_input_for(options);
    im.input_format = options.input_format;
    im.real_output = options.real_output;
    im.setup_queue = im.ctx->create_queue();
    im.current = im.prepare(options.taps, options.fft_size);
    // The last block may read up to L samples past the data.
    im.window.reset(new stream_window(im.ctx,
                                      "fft_filter",
                                      options.taps.size() - 1,
                                      im.max_input,
                                      im.current.L,
                                      options.input_format));
}

fft_filter::~fft_filter() = default;

size_t fft_filter::decimation() const { return d_impl->D; }
size_t fft_filter::fft_size() const { return d_impl->current.L; }
sample_format fft_filter::input_format() const { return d_impl->input_format; }
bool fft_filter::real_output() const { return d_impl->real_output; }
size_t fft_filter::block_step() const { return d_impl->current.B; }
const std::vector<std::complex<float>>& fft_filter::taps() const
{
    return d_impl->current.taps;
}
size_t fft_filter::max_input_samples() const { return d_impl->max_input; }
stream_engine::region fft_filter::input_region() const
{
    return d_impl->window->input_region();
}

size_t fft_filter::outputs_for(size_t samples) const
{
    return (d_impl->window->leftover() + samples) / d_impl->D;
}

size_t fft_filter::output_elements_for(size_t samples) const
{
    const size_t per_block = d_impl->current.B / d_impl->D;
    return ceil_div(outputs_for(samples), per_block) * per_block;
}

size_t fft_filter::max_output_elements() const
{
    return d_impl->current.max_blocks * (d_impl->current.B / d_impl->D);
}

std::string fft_filter::describe() const
{
    const impl& im = *d_impl;
    const taps_setup& s = im.current;
    std::ostringstream o;
    o << s.taps.size() << " taps, decimation " << im.D << ": overlap-save with FFT "
      << s.L << ", " << s.B << " new samples per block; " << s.convolution->describe();
    return o.str();
}

fft_filter::result fft_filter::enqueue(const cl::CommandQueue& queue,
                                       size_t samples,
                                       const cl::Buffer& output,
                                       const std::vector<cl::Event>& wait)
{
    impl& im = *d_impl;
    if (samples > im.max_input)
        fail(std::to_string(samples) +
             " samples exceed max_input_samples() = " + std::to_string(im.max_input));
    const taps_setup& s = im.current;
    const size_t outputs = outputs_for(samples);
    const size_t blocks = ceil_div(outputs, s.B / im.D);
    const size_t elements = output_elements_for(samples);
    const size_t bytes = elements * output_element_bytes();
    if (elements > 0 && output.getInfo<CL_MEM_SIZE>() < bytes)
        fail("output buffer holds " + std::to_string(output.getInfo<CL_MEM_SIZE>()) +
             " bytes; a call of " + std::to_string(samples) + " samples needs " +
             std::to_string(bytes) + " (output_elements_for(samples))");

    fault::check_enqueue();
    std::vector<cl::Event> deps = wait;
    im.window->prepare(queue, deps);
    cl::Event event;
    if (blocks > 0) {
        // The last block reads past the samples (its extra outputs are dropped).
        im.window->zero_past_samples(queue, samples, (blocks - 1) * s.B + s.L, deps);
        event = s.convolution->enqueue(
            queue, im.window->buffer(), s.spectrum, output, deps, blocks);
        deps.assign(1, event);
    }
    im.window->advance(queue, samples, outputs * im.D, deps, event);
    return { outputs, event };
}

size_t fft_filter::run(const cl::CommandQueue& queue,
                       size_t samples,
                       const cl::Buffer& output,
                       const std::vector<cl::Event>& wait,
                       cl::Event& done)
{
    const result r = enqueue(queue, samples, output, wait);
    done = r.done;
    return r.outputs;
}

bool fft_filter::runs_in_place() const
{
    // Upstream device buffers hold our blocks' float outputs, complex or real:
    // integer samples come from the host.
    return d_impl->input_format == sample_format::fc32 ||
           d_impl->input_format == sample_format::f32;
}

stream_engine::in_place_result
fft_filter::run_in_place(const cl::CommandQueue& queue,
                         const span& input,
                         const span& output,
                         const std::vector<cl::Event>& wait)
{
    impl& im = *d_impl;
    if (!runs_in_place())
        throw std::logic_error("fft_filter: run_in_place() with integer input");
    const taps_setup& s = im.current;
    fault::check_enqueue();
    return im.window->run_in_place(queue,
                                   input,
                                   output,
                                   s.max_blocks,
                                   s.B,
                                   s.L,
                                   s.B / im.D,
                                   wait,
                                   [&](const cl::Buffer& buffer,
                                       size_t read_start,
                                       size_t,
                                       size_t blocks,
                                       size_t output_offset,
                                       const std::vector<cl::Event>& deps) {
                                       return s.convolution->enqueue(queue,
                                                                     buffer,
                                                                     s.spectrum,
                                                                     output.buffer,
                                                                     deps,
                                                                     blocks,
                                                                     read_start,
                                                                     output_offset);
                                   });
}

void fft_filter::set_taps(const std::vector<std::complex<float>>& taps)
{
    check_taps(taps, d_impl->real_output);
    impl& im = *d_impl;
    // Keeping the FFT length keeps the kernels (no new build at run time) and
    // the block size, while it holds the taps with a block step of at least
    // half of it: beyond, the overlap would cost more than a build (48 -> 4000
    // taps at D = 8 would keep 4096 points to step 96 samples a block).
    const size_t L = im.current.L, step = block_step_for(L, taps.size(), im.D);
    const bool keep = step >= im.D && 2 * step >= L;
    taps_setup next = im.prepare(taps, keep ? L : 0);
    im.window->set_history(taps.size() - 1, next.L);
    im.current = std::move(next);
}

void fft_filter::reset() { d_impl->window->reset(); }

size_t fft_filter::history_samples() const { return d_impl->window->history(); }

size_t fft_filter::continue_at(uint64_t position)
{
    return d_impl->window->continue_with(size_t(position % d_impl->D));
}

} // namespace core
} // namespace wideband
} // namespace gr
