/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fault_injection.h"
#include "kernel_args.h"
#include <gnuradio/wideband/core/fft_filter.h>
#include <gnuradio/wideband/core/freq_xlating_filter.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace wideband {
namespace core {

namespace {

// The rotation tables: e^{-j 2 pi nu D i} for i < fine_steps, then for the
// multiples of fine_steps (kernels/freq_xlating.cl).
constexpr size_t fine_steps = 4096;

constexpr double two_pi = 6.283185307179586476925286766559;

[[noreturn]] void fail(const std::string& what)
{
    throw std::invalid_argument("freq_xlating_filter: " + what);
}

std::string number(double value)
{
    std::ostringstream o;
    o.precision(17);
    o << value;
    return o.str();
}

std::complex<double> turn(double cycles)
{
    return std::polar(1.0, two_pi * cycles);
}

} // namespace

double cycles_after(double rate, uint64_t count)
{
    // rate * count = rate * low + (rate * 2^26) * high: each product small
    // enough for its fraction to survive, the scaling by 2^26 exact.
    constexpr int split_bits = 26;
    const uint64_t low = count & ((uint64_t(1) << split_bits) - 1);
    double cycles = rate * double(low);
    cycles -= std::floor(cycles);
    if (const uint64_t high = count >> split_bits) {
        double scaled = rate * double(uint64_t(1) << split_bits);
        scaled -= std::floor(scaled);
        cycles += cycles_after(scaled, high);
    }
    return cycles - std::floor(cycles);
}

void freq_xlating_filter::check_retune(double center_freq,
                                       double sampling_freq,
                                       const std::vector<std::complex<float>>& taps,
                                       const std::string& owner)
{
    const auto refuse = [&](const std::string& what) {
        throw std::invalid_argument(owner + ": " + what);
    };
    if (!std::isfinite(sampling_freq) || sampling_freq <= 0)
        refuse("sampling_freq must be a finite number > 0 (got " + number(sampling_freq) +
               ")");
    if (!std::isfinite(center_freq) || std::abs(center_freq) > sampling_freq / 2)
        refuse("center_freq must be within +-sampling_freq/2 = +-" +
               number(sampling_freq / 2) + " (got " + number(center_freq) + ")");
    if (taps.empty())
        refuse("taps must not be empty (give at least one tap)");
    for (const auto& t : taps)
        if (!std::isfinite(t.real()) || !std::isfinite(t.imag()))
            refuse("taps must be finite numbers");
}

namespace {

//! p[k] e^{j w k}: the prototype moved up to the centre, in double precision.
std::vector<std::complex<float>>
translated_taps(const std::vector<std::complex<float>>& taps, double nu)
{
    std::vector<std::complex<float>> out(taps.size());
    for (size_t k = 0; k < taps.size(); ++k)
        out[k] = std::complex<float>(std::complex<double>(taps[k]) *
                                     turn(cycles_after(nu, k)));
    return out;
}

fft_filter_options filter_options(const freq_xlating_filter_options& options)
{
    fft_filter_options fo;
    fo.taps = translated_taps(options.taps, options.center_freq / options.sampling_freq);
    fo.decimation = options.decimation;
    fo.fft_size = options.fft_size;
    fo.max_input_samples = options.max_input_samples;
    return fo;
}

} // namespace

void freq_xlating_filter::check(const device_info& device,
                                const freq_xlating_filter_options& options)
{
    if (options.decimation < 1)
        fail("decimation must be >= 1 (got 0)");
    check_retune(options.center_freq, options.sampling_freq, options.taps);
    fft_filter::check(device, filter_options(options));
}

class freq_xlating_filter::impl
{
public:
    device_context::sptr ctx;
    double sampling_freq, center_freq;
    size_t D;
    std::unique_ptr<fft_filter> filter;
    // The rotation's segment: y[n] = phase * e^{-j 2 pi nu D (n - reference)}.
    double nu;
    std::complex<double> phase;
    uint64_t reference = 0;
    uint64_t next_output = 0; // stream index of the next call's first output
    cl::Buffer steps;         // the rotation tables for nu
    size_t coarse_steps = 0;
    kernel_args rotate;

    std::complex<double> rotation_at(uint64_t output) const
    {
        return phase * turn(-cycles_after(nu, D * (output - reference)));
    }

    void make_steps()
    {
        coarse_steps = filter->max_output_elements() / fine_steps + 1;
        std::vector<std::complex<float>> table(fine_steps + coarse_steps);
        for (size_t i = 0; i < fine_steps; ++i)
            table[i] = std::complex<float>(turn(-cycles_after(nu, D * i)));
        for (size_t i = 0; i < coarse_steps; ++i)
            table[fine_steps + i] =
                std::complex<float>(turn(-cycles_after(nu, D * fine_steps * i)));
        // A new buffer: kernels in flight may still read the old one.
        steps = cl::Buffer(ctx->context(),
                           CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           table.size() * 8,
                           table.data());
    }

    //! Rotates \p count outputs of \p buffer from element \p offset, the
    //! stream's outputs from next_output on; returns the launch's event.
    cl::Event rotate_outputs(const cl::CommandQueue& queue,
                             const cl::Buffer& buffer,
                             size_t offset,
                             size_t count,
                             const cl::Event& after)
    {
        if (count > fine_steps * coarse_steps)
            throw std::logic_error("freq_xlating_filter: a call of " +
                                   std::to_string(count) +
                                   " outputs exceeds the rotation tables");
        const std::complex<float> start(rotation_at(next_output));
        rotate.set("data", buffer);
        rotate.set("offset", cl_ulong(offset));
        rotate.set("count", cl_uint(count));
        rotate.set("start", cl_float2{ { start.real(), start.imag() } });
        rotate.set("steps", steps);
        const std::vector<cl::Event> deps{ after };
        cl::Event event;
        queue.enqueueNDRangeKernel(rotate.ready(),
                                   cl::NullRange,
                                   cl::NDRange((count + 63) / 64 * 64),
                                   cl::NullRange,
                                   &deps,
                                   &event);
        next_output += count;
        return event;
    }
};

freq_xlating_filter::freq_xlating_filter(device_context::sptr context,
                                         const freq_xlating_filter_options& options)
    : d_impl(new impl)
{
    if (!context)
        fail("no device context");
    check(context->info(), options);
    impl& im = *d_impl;
    im.ctx = std::move(context);
    im.sampling_freq = options.sampling_freq;
    im.center_freq = options.center_freq;
    im.D = options.decimation;
    im.nu = options.center_freq / options.sampling_freq;
    im.phase = turn(-im.nu * double(options.taps.size() - 1) / 2);
    im.filter.reset(new fft_filter(im.ctx, filter_options(options)));
    im.rotate = kernel_args(*im.ctx, "freq_xlating.cl", "", "rotate_outputs");
    im.make_steps();
}

freq_xlating_filter::~freq_xlating_filter() = default;

void freq_xlating_filter::retune(double center_freq,
                                 const std::vector<std::complex<float>>& taps,
                                 uint64_t at_output)
{
    impl& im = *d_impl;
    check_retune(center_freq, im.sampling_freq, taps);
    const double nu = center_freq / im.sampling_freq;
    im.filter->set_taps(translated_taps(taps, nu)); // first: it may throw
    const std::complex<double> at = im.rotation_at(at_output);
    im.phase = at * turn(-(nu - im.nu) * double(taps.size() - 1) / 2);
    im.reference = at_output;
    im.nu = nu;
    im.center_freq = center_freq;
    im.make_steps();
}

double freq_xlating_filter::center_freq() const { return d_impl->center_freq; }
size_t freq_xlating_filter::decimation() const { return d_impl->D; }
size_t freq_xlating_filter::fft_size() const { return d_impl->filter->fft_size(); }

std::string freq_xlating_filter::describe() const
{
    return "translation by " + number(d_impl->center_freq) + " of " +
           number(d_impl->sampling_freq) + ", " + d_impl->filter->describe();
}

stream_engine::region freq_xlating_filter::input_region() const
{
    return d_impl->filter->input_region();
}
size_t freq_xlating_filter::max_input_samples() const
{
    return d_impl->filter->max_input_samples();
}
size_t freq_xlating_filter::max_output_elements() const
{
    return d_impl->filter->max_output_elements();
}
size_t freq_xlating_filter::input_regions() const
{
    return d_impl->filter->input_regions();
}
size_t freq_xlating_filter::in_place_output_step() const
{
    return d_impl->filter->in_place_output_step();
}
size_t freq_xlating_filter::history_samples() const
{
    return d_impl->filter->history_samples();
}

size_t freq_xlating_filter::run(const cl::CommandQueue& queue,
                                size_t samples,
                                const cl::Buffer& output,
                                const std::vector<cl::Event>& wait,
                                cl::Event& done)
{
    impl& im = *d_impl;
    const size_t outputs = im.filter->run(queue, samples, output, wait, done);
    if (outputs > 0)
        done = im.rotate_outputs(queue, output, 0, outputs, done);
    return outputs;
}

stream_engine::in_place_result
freq_xlating_filter::run_in_place(const cl::CommandQueue& queue,
                                  const span& input,
                                  const span& output,
                                  const std::vector<cl::Event>& wait)
{
    impl& im = *d_impl;
    in_place_result r = im.filter->run_in_place(queue, input, output, wait);
    if (r.produced > 0)
        r.done = im.rotate_outputs(queue, output.buffer, output.offset, r.produced, r.done);
    return r;
}

size_t freq_xlating_filter::continue_at(uint64_t position)
{
    d_impl->next_output = position / d_impl->D;
    return d_impl->filter->continue_at(position);
}

} // namespace core
} // namespace wideband
} // namespace gr
