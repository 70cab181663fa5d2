/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/wideband/core/fft_stream.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gr {
namespace wideband {
namespace core {

namespace {

[[noreturn]] void fail(const std::string& what)
{
    throw std::invalid_argument("fft_stream: " + what);
}

void check_window(const std::vector<float>& window, size_t fft_size)
{
    if (const std::string problem = fft_stream::window_problem(window, fft_size);
        !problem.empty())
        fail(problem);
}

size_t max_vectors_for(size_t fft_size, const fft_stream_options& options)
{
    return std::max<size_t>(1, options.max_input_samples / fft_size);
}

bool is_cosine(fft_transform transform)
{
    return transform == fft_transform::dct_ii || transform == fft_transform::dct_iii ||
           transform == fft_transform::dct_iv;
}

// What a cosine transform's stream cannot take, or "".
std::string cosine_problem(const fft_stream_options& options)
{
    if (options.input_format != sample_format::f32)
        return "a cosine transform reads real vectors (input_format f32, got " +
               std::string(sample_format_name(options.input_format)) + ")";
    if (options.direction != fft_direction::forward)
        return "a cosine transform has no direction (DCT-III is the inverse of "
               "DCT-II, DCT-IV its own): leave direction forward";
    if (!options.window.empty() || options.shift)
        return "a cosine transform takes no window and no shift";
    return "";
}

} // namespace

std::string fft_stream::window_problem(const std::vector<float>& window, size_t fft_size)
{
    if (!window.empty() && window.size() != fft_size)
        return "window has " + std::to_string(window.size()) +
               " values; it must be empty (no window) or have fft_size (" +
               std::to_string(fft_size) + ") values";
    return "";
}

void fft_stream::check(const device_info& device,
                       size_t fft_size,
                       const fft_stream_options& options)
{
    if (fft_size < 1)
        fail("fft_size must be >= 1 (got 0)");
    if (options.transform == fft_transform::real_forward ||
        options.transform == fft_transform::real_inverse)
        fail("the real FFTs are not streamed: complex, dct_ii, dct_iii or dct_iv");
    if (is_cosine(options.transform))
        if (const std::string problem = cosine_problem(options); !problem.empty())
            fail(problem);
    check_window(options.window, fft_size);
    check_buffer_fits(device,
                      "fft_stream: the output of a call",
                      max_vectors_for(fft_size, options) * fft_size *
                          (is_cosine(options.transform) ? 4 : 8));
}

fft_stream::fft_stream(device_context::sptr context,
                       size_t fft_size,
                       const fft_stream_options& options)
    : d_context(std::move(context)),
      d_fft_size(fft_size),
      d_options(options),
      d_max_vectors(max_vectors_for(fft_size, options))
{
    check(d_context->info(), fft_size, options);
    d_plan = make_plan(options.window);
    for (cl::Buffer& input : d_input)
        input = cl::Buffer(d_context->context(),
                           CL_MEM_READ_WRITE,
                           max_input_samples() * input_sample_bytes());
}

fft_stream::~fft_stream() = default;

std::shared_ptr<const fft_plan>
fft_stream::make_plan(const std::vector<float>& window) const
{
    fft_options options;
    options.transform = d_options.transform;
    options.norm = d_options.norm;
    options.direction = d_options.direction;
    options.batch = d_max_vectors;
    options.window = window;
    options.shift = d_options.shift;
    // A cosine transform's plan reads floats by its transform (input_format
    // stays at its default there).
    if (!is_cosine(d_options.transform))
        options.input_format = d_options.input_format;
    return std::make_shared<const fft_plan>(d_context, d_fft_size, options);
}

std::shared_ptr<const fft_plan> fft_stream::plan() const
{
    std::lock_guard<std::mutex> lock(d_plan_mutex);
    return d_plan;
}

size_t fft_stream::output_element_bytes() const
{
    return is_cosine(d_options.transform) ? 4 : 8;
}

void fft_stream::set_window(const std::vector<float>& window)
{
    check_window(window, d_fft_size);
    if (is_cosine(d_options.transform) && !window.empty())
        fail("a cosine transform takes no window");
    auto next = make_plan(window);
    std::lock_guard<std::mutex> lock(d_plan_mutex);
    d_plan = std::move(next);
}

cl::Event fft_stream::enqueue_at(const cl::CommandQueue& queue,
                                 const cl::Buffer& input,
                                 size_t input_offset,
                                 const cl::Buffer& output,
                                 size_t output_offset,
                                 size_t vectors,
                                 const std::vector<cl::Event>& wait)
{
    return plan()->enqueue_at(
        queue, input, input_offset, output, output_offset, wait, vectors);
}

stream_engine::region fft_stream::input_region() const
{
    return { d_input[d_current], 0, max_input_samples() };
}

size_t fft_stream::run(const cl::CommandQueue& queue,
                       size_t samples,
                       const cl::Buffer& output,
                       const std::vector<cl::Event>& wait,
                       cl::Event& done)
{
    if (samples % d_fft_size || samples > max_input_samples())
        fail("a call takes whole vectors, at most " + std::to_string(d_max_vectors) +
             " of " + std::to_string(d_fft_size) + " samples (got " +
             std::to_string(samples) + " samples)");
    const size_t vectors = samples / d_fft_size;
    const cl::Buffer& input = d_input[d_current];
    d_current ^= 1;
    if (vectors == 0)
        queue.enqueueMarkerWithWaitList(&wait, &done);
    else
        done = enqueue_at(queue, input, 0, output, 0, vectors, wait);
    return samples;
}

stream_engine::in_place_result
fft_stream::run_in_place(const cl::CommandQueue& queue,
                         const span& input,
                         const span& output,
                         const std::vector<cl::Event>& wait)
{
    const size_t vectors =
        std::min({ input.count / d_fft_size, output.count / d_fft_size, d_max_vectors });
    in_place_result r{ vectors * d_fft_size, vectors * d_fft_size, cl::Event() };
    if (vectors == 0)
        queue.enqueueMarkerWithWaitList(wait.empty() ? nullptr : &wait, &r.done);
    else
        r.done = enqueue_at(queue,
                            input.buffer,
                            input.offset,
                            output.buffer,
                            output.offset,
                            vectors,
                            wait);
    return r;
}

size_t fft_stream::continue_at(uint64_t position)
{
    if (position % d_fft_size)
        fail("a stream splits only between vectors (position " +
             std::to_string(position) + ")");
    return 0;
}

} // namespace core
} // namespace wideband
} // namespace gr
