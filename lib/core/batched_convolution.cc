/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fft_planner.h"
#include <gnuradio/wideband/core/batched_convolution.h>
#include <gnuradio/wideband/core/fft_convolution.h>
#include <gnuradio/wideband/core/fft_plan.h>

#include <mutex>
#include <stdexcept>

namespace gr {
namespace wideband {
namespace core {

namespace {

[[noreturn]] void fail(const std::string& what)
{
    throw std::invalid_argument("batched_convolution: " + what);
}

} // namespace

class batched_convolution::impl
{
public:
    batched_convolution_options options;
    size_t n = 0;
    std::unique_ptr<fft_plan> filter_fft;
    std::unique_ptr<fft_convolution> convolution;
    cl::Buffer spectra;
    // The spectra buffer is shared by calls: a call's filter FFT waits until
    // the previous call's convolution has read it.
    mutable std::mutex mutex;
    mutable cl::Event last_done;
};

size_t batched_convolution::default_fft_size(size_t signal_length, size_t filter_length)
{
    return next_seven_smooth(signal_length + filter_length - 1);
}

batched_convolution::batched_convolution(device_context::sptr context,
                                         const batched_convolution_options& options)
    : d_impl(new impl)
{
    if (!context)
        fail("no device context");
    if (options.signal_length < 1 || options.filter_length < 1)
        fail("signal_length and filter_length must be >= 1 (got " +
             std::to_string(options.signal_length) + " and " +
             std::to_string(options.filter_length) + ")");
    if (options.max_pairs < 1)
        fail("max_pairs must be >= 1 (got 0)");
    impl& im = *d_impl;
    im.options = options;
    const size_t result = options.signal_length + options.filter_length - 1;
    if (options.fft_size) {
        if (options.fft_size < result || !is_codelet_smooth(options.fft_size))
            fail("fft_size " + std::to_string(options.fft_size) +
                 " must be >= L + S - 1 = " + std::to_string(result) +
                 " with no prime factor above " + std::to_string(largest_codelet_prime));
        im.n = options.fft_size;
    } else {
        im.n = default_fft_size(options.signal_length, options.filter_length);
    }

    const size_t filters = options.shared_filter ? 1 : options.max_pairs;
    fft_options fo;
    fo.batch = filters;
    fo.input_points = options.filter_length;
    fo.normalize = true; // 1/N: the convolution's inverse is unnormalised
    im.filter_fft.reset(new fft_plan(context, im.n, fo));
    im.spectra = cl::Buffer(context->context(), CL_MEM_READ_WRITE, filters * im.n * 8);

    fft_convolution_options co;
    co.batch = options.max_pairs;
    co.input_points = options.signal_length;
    co.spectrum_per_transform = !options.shared_filter;
    co.output_range.count = result;
    im.convolution.reset(new fft_convolution(context, im.n, co));
}

batched_convolution::~batched_convolution() = default;

size_t batched_convolution::fft_size() const { return d_impl->n; }

size_t batched_convolution::output_length() const
{
    return d_impl->options.signal_length + d_impl->options.filter_length - 1;
}

std::string batched_convolution::describe() const
{
    const impl& im = *d_impl;
    return "L=" + std::to_string(im.options.signal_length) +
           " S=" + std::to_string(im.options.filter_length) + " via FFT " +
           std::to_string(im.n) + (im.options.shared_filter ? ", shared filter" : "") +
           ": filters " + im.filter_fft->describe() + "; signals " +
           im.convolution->describe();
}

cl::Event batched_convolution::enqueue(const cl::CommandQueue& queue,
                                       const cl::Buffer& signals,
                                       const cl::Buffer& filters,
                                       const cl::Buffer& outputs,
                                       size_t pairs,
                                       const std::vector<cl::Event>& wait) const
{
    const impl& im = *d_impl;
    if (pairs < 1 || pairs > im.options.max_pairs)
        fail("pairs must be 1.." + std::to_string(im.options.max_pairs) + " (got " +
             std::to_string(pairs) + ")");
    std::lock_guard<std::mutex> lock(im.mutex);
    std::vector<cl::Event> before = wait;
    if (im.last_done())
        before.push_back(im.last_done);
    const cl::Event spectra_done = im.filter_fft->enqueue(
        queue, filters, im.spectra, before, im.options.shared_filter ? 1 : pairs);
    im.last_done = im.convolution->enqueue(
        queue, signals, im.spectra, outputs, { spectra_done }, pairs);
    return im.last_done;
}

} // namespace core
} // namespace wideband
} // namespace gr
