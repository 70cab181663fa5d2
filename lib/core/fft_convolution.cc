/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fft_planner.h"
#include "fft_program.h"
#include <gnuradio/wideband/core/fft_convolution.h>

#include <stdexcept>

namespace gr {
namespace wideband {
namespace core {

namespace {

[[noreturn]] void fail(const std::string& what)
{
    throw std::invalid_argument("fft_convolution: " + what);
}

} // namespace

fft_convolution::fft_convolution(device_context::sptr context,
                                 size_t size,
                                 const fft_convolution_options& options)
    : d_context(std::move(context)), d_size(size), d_options(options)
{
    if (!d_context)
        fail("no device context");
    if (size == 0)
        fail("size must be >= 1 (got 0)");
    if (!is_codelet_smooth(size))
        fail("size " + std::to_string(size) + " has a prime factor above " +
             std::to_string(largest_codelet_prime) +
             "; choose a product of primes up to " +
             std::to_string(largest_codelet_prime));
    if (options.batch == 0)
        fail("batch must be >= 1 (got 0)");
    if (options.max_pass_length != 0 && options.max_pass_length < 16)
        fail("max_pass_length must be 0 (automatic) or >= 16");

    d_written = range_points("fft_convolution", options.output_range, size);
    fft_program_spec spec;
    spec.owner = "fft_convolution";
    spec.n = size;
    spec.batch = options.batch;
    spec.input_points = options.input_points;
    spec.in = resolve(options.input, options.input_points ? options.input_points : size);
    spec.input_format = options.input_format;
    spec.real_output = options.real_output;
    spec.paired_real = options.real_filter;
    spec.out = resolve(options.output, d_written);
    spec.convolution = true;
    spec.spectrum_per_transform = options.spectrum_per_transform;
    spec.range_begin = options.output_range.begin;
    spec.range_step = options.output_range.step;
    spec.range_count = d_written;
    spec.max_pass_length = options.max_pass_length;
    d_program.reset(new fft_program(d_context, spec));
}

fft_convolution::~fft_convolution() = default;

size_t fft_convolution::input_elements(size_t batch) const
{
    return d_program->input_elements(batch);
}

size_t fft_convolution::output_elements(size_t batch) const
{
    return d_program->output_elements(batch);
}

size_t fft_convolution::written_points() const { return d_written; }

size_t fft_convolution::launches() const { return d_program->launches(); }

std::string fft_convolution::describe() const { return d_program->description(); }

cl::Event fft_convolution::enqueue(const cl::CommandQueue& queue,
                                   const cl::Buffer& input,
                                   const cl::Buffer& spectrum,
                                   const cl::Buffer& output,
                                   const std::vector<cl::Event>& wait,
                                   size_t batch,
                                   size_t input_offset,
                                   size_t output_offset) const
{
    batch = checked_batch("fft_convolution", batch, d_options.batch);
    if (input() == output())
        fail("input and output must be different buffers");
    check_buffer("fft_convolution",
                 "input",
                 input,
                 input_offset + input_elements(batch),
                 sample_bytes(d_options.input_format));
    check_buffer("fft_convolution",
                 "output",
                 output,
                 output_offset + output_elements(batch),
                 d_program->spec().output_element_bytes());
    check_buffer("fft_convolution",
                 "spectrum",
                 spectrum,
                 d_options.spectrum_per_transform ? batch * d_size : d_size);
    return d_program->run(
        queue, input, output, &spectrum, wait, batch, input_offset, output_offset);
}

} // namespace core
} // namespace wideband
} // namespace gr
