/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fault_injection.h"
#include "fft_program.h"
#include <gnuradio/wideband/core/fft_plan.h>

#include <stdexcept>

namespace gr {
namespace wideband {
namespace core {

namespace {

[[noreturn]] void fail(const std::string& what)
{
    throw std::invalid_argument("fft_plan: " + what);
}

} // namespace

// The range's written count; checks it against a transform of n points.
size_t range_points(const char* owner, const fft_output_range& r, size_t n)
{
    auto bad = [&](const std::string& what) {
        throw std::invalid_argument(std::string(owner) + ": output_range " + what);
    };
    if (r.step == 0)
        bad("step must be >= 1 (got 0)");
    if (r.begin >= n)
        bad("begin " + std::to_string(r.begin) + " is past the transform's " +
            std::to_string(n) + " points");
    const size_t available = (n - r.begin + r.step - 1) / r.step;
    if (r.count > available)
        bad("count " + std::to_string(r.count) + " runs past the transform (at most " +
            std::to_string(available) + " points from " + std::to_string(r.begin) +
            " in steps of " + std::to_string(r.step) + ")");
    return r.count ? r.count : available;
}

fft_plan::fft_plan(device_context::sptr context, size_t size, const fft_options& options)
    : d_context(std::move(context)), d_size(size), d_options(options)
{
    if (!d_context)
        fail("no device context");
    if (size == 0)
        fail("size must be >= 1 (got 0)");
    if (options.batch == 0)
        fail("batch must be >= 1 (got 0)");
    if (!options.window.empty() && options.window.size() != size)
        fail("window has " + std::to_string(options.window.size()) +
             " values; it must be empty or have size (" + std::to_string(size) +
             ") values");
    if (options.max_pass_length != 0 && options.max_pass_length < 16)
        fail("max_pass_length must be 0 (automatic) or >= 16");

    const bool cosine = options.transform == fft_transform::dct_ii ||
                        options.transform == fft_transform::dct_iii ||
                        options.transform == fft_transform::dct_iv;
    if (cosine) {
        if (options.direction != fft_direction::forward)
            fail("cosine transforms take the default direction (dct_iii is the "
                 "inverse of dct_ii)");
        if (options.input_format != sample_format::fc32)
            fail("cosine transforms read float32 values: leave input_format at fc32");
        const fft_output_range& r = options.output_range;
        if (options.shift || options.in_place || options.normalize ||
            !options.window.empty() || options.input_points || r.begin != 0 ||
            r.step != 1 || (r.count != 0 && r.count != size))
            fail("cosine transforms take none of shift, in_place, normalize (see "
                 "norm), window, input_points and output_range");
    } else if (options.norm != dct_norm::none) {
        fail("norm scales cosine transforms only (the others take normalize)");
    }

    const bool real_forward = options.transform == fft_transform::real_forward;
    const bool real_inverse = options.transform == fft_transform::real_inverse;
    if (real_forward || real_inverse) {
        const char* name = real_forward ? "real_forward" : "real_inverse";
        if (real_forward != (options.direction == fft_direction::forward))
            fail(std::string(name) + " transforms are " +
                 (real_forward ? "forward" : "inverse") + " only");
        if (options.input_format != sample_format::fc32)
            fail(std::string(name) +
                 " transforms read float32 values or bins: leave input_format "
                 "at fc32 (complex transforms take other formats)");
        if (options.shift || options.in_place)
            fail(std::string(name) + " transforms take neither shift nor in_place");
    }

    fft_program_spec spec;
    spec.owner = "fft_plan";
    spec.n = size;
    spec.batch = options.batch;
    spec.input_format =
        real_forward || cosine ? sample_format::f32 : options.input_format;
    spec.hermitian_input = real_inverse;
    spec.real_output = real_inverse || cosine;
    if (cosine) {
        using c = fft_program_spec::cosine;
        spec.dct = options.transform == fft_transform::dct_ii    ? c::ii
                   : options.transform == fft_transform::dct_iii ? c::iii
                                                                 : c::iv;
        spec.dct_ortho = options.norm == dct_norm::ortho;
    }
    // A real forward transform writes bins 0 .. N/2; its range picks among them.
    const size_t results = real_forward ? size / 2 + 1 : size;
    spec.range_begin = options.output_range.begin;
    spec.range_step = options.output_range.step;
    spec.range_count = range_points("fft_plan", options.output_range, results);
    spec.input_points = options.input_points;
    spec.in = resolve(options.input, spec.points_stored());
    spec.out = resolve(options.output, spec.range_count);
    spec.in_place = options.in_place;
    spec.direction = options.direction;
    spec.window = options.window;
    spec.shift = options.shift;
    spec.normalize = options.normalize;
    spec.max_pass_length = options.max_pass_length;
    d_program.reset(new fft_program(d_context, spec));
}

fft_plan::~fft_plan() = default;

size_t fft_plan::input_elements(size_t batch) const
{
    return d_program->input_elements(batch);
}

size_t fft_plan::output_elements(size_t batch) const
{
    return d_program->output_elements(batch);
}

size_t fft_plan::launches() const { return d_program->launches(); }

std::string fft_plan::describe() const { return d_program->description(); }

cl::Event fft_plan::enqueue(const cl::CommandQueue& queue,
                            const cl::Buffer& input,
                            const cl::Buffer& output,
                            const std::vector<cl::Event>& wait,
                            size_t batch) const
{
    if (!d_options.in_place && input() == output())
        fail("input and output are the same buffer; make the plan with in_place = true");
    return enqueue_at(queue, input, 0, output, 0, wait, batch);
}

cl::Event fft_plan::enqueue_at(const cl::CommandQueue& queue,
                               const cl::Buffer& input,
                               size_t input_offset,
                               const cl::Buffer& output,
                               size_t output_offset,
                               const std::vector<cl::Event>& wait,
                               size_t batch) const
{
    if (d_options.in_place)
        fail("this plan is in-place; call enqueue(queue, data, ...)");
    if (input() == output()) {
        const size_t b = checked_batch("fft_plan", batch, d_options.batch);
        if (input_offset < output_offset + output_elements(b) &&
            output_offset < input_offset + input_elements(b))
            fail("the input and output ranges of one buffer overlap; make the plan "
                 "with in_place = true");
    }
    return run(queue, input, input_offset, output, output_offset, wait, batch);
}

cl::Event fft_plan::enqueue(const cl::CommandQueue& queue,
                            const cl::Buffer& data,
                            const std::vector<cl::Event>& wait,
                            size_t batch) const
{
    if (!d_options.in_place)
        fail("this plan is out-of-place; call enqueue(queue, input, output, ...)");
    return run(queue, data, 0, data, 0, wait, batch);
}

void check_buffer(const char* owner,
                  const char* which,
                  const cl::Buffer& b,
                  size_t elements,
                  size_t element_bytes)
{
    const size_t have = b.getInfo<CL_MEM_SIZE>();
    if (have < elements * element_bytes)
        throw std::invalid_argument(std::string(owner) + ": " + which + " buffer holds " +
                                    std::to_string(have) + " bytes; the layout needs " +
                                    std::to_string(elements * element_bytes));
}

size_t checked_batch(const char* owner, size_t batch, size_t plan_batch)
{
    if (batch == 0)
        return plan_batch;
    if (batch > plan_batch)
        throw std::invalid_argument(std::string(owner) + ": batch " +
                                    std::to_string(batch) + " exceeds the plan's batch " +
                                    std::to_string(plan_batch));
    return batch;
}

cl::Event fft_plan::run(const cl::CommandQueue& queue,
                        const cl::Buffer& input,
                        size_t input_offset,
                        const cl::Buffer& output,
                        size_t output_offset,
                        const std::vector<cl::Event>& wait,
                        size_t batch) const
{
    batch = checked_batch("fft_plan", batch, d_options.batch);
    check_buffer("fft_plan",
                 "input",
                 input,
                 input_offset + input_elements(batch),
                 d_program->spec().input_element_bytes());
    check_buffer("fft_plan",
                 "output",
                 output,
                 output_offset + output_elements(batch),
                 d_program->spec().output_element_bytes());
    fault::check_enqueue();
    return d_program->run(
        queue, input, output, nullptr, wait, batch, input_offset, output_offset);
}

} // namespace core
} // namespace wideband
} // namespace gr
