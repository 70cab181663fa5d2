/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "kernel_args.h"
#include "stream_window.h"
#include <gnuradio/wideband/core/arb_resampler.h>
#include <gnuradio/wideband/core/stream_config.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace gr {
namespace wideband {
namespace core {

namespace {

[[noreturn]] void fail(const std::string& what)
{
    throw std::invalid_argument("arb_resampler: " + what);
}

// R / rate as the in-tree kernel computes it (unsigned / float: float).
float filters_per_output(float rate, unsigned filter_size)
{
    return float(filter_size) / rate;
}

// The rates the recurrence can run at: R / rate well above the float
// resolution of acc (the output bound below divides by it), which refuses
// only rates beyond any use (above 2^20 outputs per input sample and filter).
void check_rate(float rate, unsigned filter_size)
{
    if (!std::isfinite(rate) || !(rate > 0.0f))
        fail("rate must be a finite number > 0 (got " + std::to_string(rate) + ")");
    if (filter_size < 1)
        fail("filter_size must be at least 1");
    if (!(filters_per_output(rate, filter_size) > 0x1p-20f))
        fail("rate " + std::to_string(rate) + " is too large for filter_size " +
             std::to_string(filter_size) + " (at most filter_size * 2^20)");
}

void check_taps(const std::vector<float>& taps)
{
    if (taps.empty())
        fail("taps must not be empty");
    for (float t : taps)
        if (!std::isfinite(t))
            fail("taps must be finite");
}

size_t taps_per_filter_for(size_t taps, unsigned filter_size)
{
    return (taps + filter_size - 1) / filter_size;
}

/*
 * The most outputs a call over `samples` samples can make. Over a call the
 * filter index advances by R per input sample passed, plus less than R within
 * the last; each output advances it by dec_rate + floor(acc), and the floors
 * sum to at least outputs * flt_rate - 1 less the additions' rounding (at most
 * 2^-24 each, acc being below 2): outputs * (R / rate - 2^-24) - 1 <= R *
 * (samples + 1). (dec_rate + flt_rate is R / rate exactly: the subtraction is
 * exact by Sterbenz's lemma.)
 */
size_t outputs_bound(size_t samples, float rate, unsigned filter_size)
{
    const double q = double(filters_per_output(rate, filter_size)) - 0x1p-24;
    return size_t(std::floor((double(filter_size) * double(samples + 1) + 1.0) / q)) + 1;
}

// Filter j's T taps of \p taps padded to R * T, reversed (fir_filter_ccf's order).
std::vector<float> reversed_filters(const std::vector<float>& taps, unsigned R, size_t T)
{
    std::vector<float> out(size_t(R) * T, 0.0f);
    for (size_t j = 0; j < R; ++j)
        for (size_t m = 0; m < T; ++m) {
            const size_t k = m * R + j;
            out[j * T + (T - 1 - m)] = k < taps.size() ? taps[k] : 0.0f;
        }
    return out;
}

// The in-tree derivative taps: taps[k+1] - taps[k] in float, the last 0.
std::vector<float> diff_taps(const std::vector<float>& taps)
{
    std::vector<float> d(taps.size(), 0.0f);
    for (size_t k = 0; k + 1 < taps.size(); ++k)
        d[k] = -1.0f * taps[k] + 1.0f * taps[k + 1];
    return d;
}

size_t max_input_for(const device_info& device, const arb_resampler_options& o)
{
    return o.max_input_samples > 0
               ? o.max_input_samples
               : stream_config::for_device(device).max_input_samples(1);
}

} // namespace

class arb_resampler::impl
{
public:
    struct slot {
        std::vector<cl_uint4> checkpoints; // host copy, read by the upload
        cl::Buffer device_checkpoints;
        size_t capacity = 0; // checkpoints
        cl::Event done;      // this slot's last call
    };

    device_context::sptr ctx;
    unsigned R;
    float rate;
    unsigned dec_rate;
    float flt_rate;
    std::vector<float> taps;
    size_t T;
    size_t max_input;
    size_t interval;
    cl::Buffer filters, diff_filters;
    std::unique_ptr<stream_window> window;
    kernel_args kernel;
    slot slots[2];
    int next_slot = 0;

    arb_resampler_phase phase;
    uint64_t position = 0; // stream sample at the window's history end
    double schedule_seconds = 0.0;
    uint64_t scheduled = 0;

    void set_rate(float r)
    {
        rate = r;
        dec_rate = decimation_rate_for(r, R);
        flt_rate = fractional_rate_for(r, R);
    }

    void upload_taps()
    {
        const auto make = [&](const std::vector<float>& t) {
            std::vector<float> host = reversed_filters(t, R, T);
            return cl::Buffer(ctx->context(),
                              CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                              host.size() * sizeof(float),
                              host.data());
        };
        // New buffers: calls in flight keep reading the old ones.
        filters = make(taps);
        diff_filters = make(diff_taps(taps));
    }

    /*
     * The recurrence over the samples before `end`: fills `points` with the
     * phase of every interval-th output (window offsets from `position`) and
     * returns the outputs. Written for speed: it bounds the engine's rate.
     */
    size_t schedule(uint64_t end, size_t most, std::vector<cl_uint4>& points)
    {
        const auto start = std::chrono::steady_clock::now();
        uint64_t input = phase.input;
        unsigned j = phase.filter;
        float acc = phase.acc;
        // j += dec_rate + floor(acc), then input += j / R and j %= R, with
        // dec_rate = whole_inputs * R + rest: as j < R and rest + 1 <= R, the
        // wrap is at most one subtraction (no division in the loop).
        const unsigned filters_n = R, whole_inputs = dec_rate / R, rest = dec_rate % R;
        const float flt = flt_rate;
        size_t n = 0;
        while (input < end && n < most) {
            // n is a multiple of the interval here: a checkpoint, then its outputs.
            cl_uint4 c;
            c.s[0] = cl_uint(input - position);
            c.s[1] = j;
            std::memcpy(&c.s[2], &acc, sizeof acc);
            c.s[3] = 0;
            points[n / interval] = c;
            for (const size_t group_end = std::min(n + interval, most);
                 n < group_end && input < end;
                 ++n) {
                acc += flt;
                // floor(acc) and fmodf(acc, 1) for acc in [0, 2)
                const unsigned whole = acc >= 1.0f ? 1u : 0u;
                acc = whole ? acc - 1.0f : acc;
                j += rest + whole;
                const unsigned wrap = j >= filters_n ? 1u : 0u;
                j -= wrap * filters_n;
                input += whole_inputs + wrap;
            }
        }
        if (input < end)
            throw std::logic_error("arb_resampler: a call's outputs exceed their bound");
        phase.input = input;
        phase.filter = j;
        phase.acc = acc;
        scheduled += n;
        schedule_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                .count();
        return n;
    }
};

unsigned arb_resampler::decimation_rate_for(float rate, unsigned filter_size)
{
    return unsigned(std::floor(filters_per_output(rate, filter_size)));
}

float arb_resampler::fractional_rate_for(float rate, unsigned filter_size)
{
    const float q = filters_per_output(rate, filter_size);
    return q - float(decimation_rate_for(rate, filter_size));
}

unsigned arb_resampler::start_filter(size_t taps, unsigned filter_size)
{
    return unsigned((taps / 2) % filter_size);
}

void arb_resampler::check_arguments(const arb_resampler_options& o)
{
    check_rate(o.rate, o.filter_size);
    check_taps(o.taps);
    if (o.checkpoint_interval == 0 ||
        (o.checkpoint_interval & (o.checkpoint_interval - 1)) != 0)
        fail("checkpoint_interval must be a power of two");
}

void arb_resampler::check_fits(const device_info& device, const arb_resampler_options& o)
{
    check_arguments(o);
    const size_t T = taps_per_filter_for(o.taps.size(), o.filter_size);
    check_buffer_fits(device,
                      "arb_resampler: filters of " + std::to_string(T) + " taps",
                      uint64_t(o.filter_size) * T * sizeof(float));
    const size_t max_input = max_input_for(device, o);
    if (max_input >= (size_t(1) << 31))
        fail("max_input_samples must be below 2^31");
    check_buffer_fits(device,
                      "arb_resampler: an output of rate " + std::to_string(o.rate),
                      uint64_t(outputs_bound(max_input, o.rate, o.filter_size)) * 8);
}

arb_resampler::arb_resampler(device_context::sptr context,
                             const arb_resampler_options& options)
    : d_impl(new impl)
{
    check_fits(context->info(), options);
    impl& im = *d_impl;
    im.ctx = std::move(context);
    im.R = options.filter_size;
    im.set_rate(options.rate);
    im.taps = options.taps;
    im.T = taps_per_filter_for(im.taps.size(), im.R);
    im.max_input = max_input_for(im.ctx->info(), options);
    im.interval = options.checkpoint_interval;
    im.upload_taps();
    im.window.reset(new stream_window(im.ctx, "arb_resampler", im.T - 1, im.max_input));
    im.kernel = kernel_args(*im.ctx, "arb_resampler.cl", "", "arb_resample");
    im.phase.filter = start_filter(im.taps.size(), im.R);
}

arb_resampler::~arb_resampler() = default;

float arb_resampler::rate() const { return d_impl->rate; }
unsigned arb_resampler::filter_size() const { return d_impl->R; }
unsigned arb_resampler::decimation_rate() const { return d_impl->dec_rate; }
float arb_resampler::fractional_rate() const { return d_impl->flt_rate; }
size_t arb_resampler::taps_per_filter() const { return d_impl->T; }
arb_resampler_phase arb_resampler::phase() const { return d_impl->phase; }
double arb_resampler::schedule_seconds() const { return d_impl->schedule_seconds; }
uint64_t arb_resampler::outputs_scheduled() const { return d_impl->scheduled; }

std::vector<std::vector<float>> arb_resampler::filter_taps() const
{
    const impl& im = *d_impl;
    std::vector<std::vector<float>> out(im.R, std::vector<float>(im.T, 0.0f));
    for (size_t k = 0; k < im.taps.size(); ++k)
        out[k % im.R][k / im.R] = im.taps[k];
    return out;
}

void arb_resampler::set_rate(float rate)
{
    check_rate(rate, d_impl->R);
    check_buffer_fits(d_impl->ctx->info(),
                      "arb_resampler: an output of rate " + std::to_string(rate),
                      uint64_t(outputs_bound(d_impl->max_input, rate, d_impl->R)) * 8);
    d_impl->set_rate(rate);
}

void arb_resampler::set_taps(const std::vector<float>& taps)
{
    check_taps(taps);
    impl& im = *d_impl;
    im.taps = taps;
    im.T = taps_per_filter_for(taps.size(), im.R);
    im.window->set_history(im.T - 1);
    im.upload_taps();
}

void arb_resampler::set_filter(unsigned filter)
{
    impl& im = *d_impl;
    im.phase.input += filter / im.R;
    im.phase.filter = filter % im.R;
}

stream_ratio arb_resampler::step() const
{
    return { 1, outputs_bound(1, d_impl->rate, d_impl->R) };
}

stream_engine::region arb_resampler::input_region() const
{
    return d_impl->window->input_region();
}

size_t arb_resampler::max_input_samples() const { return d_impl->max_input; }

size_t arb_resampler::max_output_elements() const
{
    return outputs_bound(d_impl->max_input, d_impl->rate, d_impl->R);
}

size_t arb_resampler::history_samples() const { return d_impl->T - 1; }

size_t arb_resampler::continue_at(uint64_t)
{
    throw std::logic_error("arb_resampler: a stream runs on one engine (the phase at "
                           "a split point depends on the whole stream before it)");
}

size_t arb_resampler::run(const cl::CommandQueue& queue,
                          size_t samples,
                          const cl::Buffer& output,
                          const std::vector<cl::Event>& wait,
                          cl::Event& done)
{
    impl& im = *d_impl;
    if (samples > im.max_input)
        fail("a call of " + std::to_string(samples) + " samples exceeds " +
             std::to_string(im.max_input));
    // The window holds the samples from position on (the leftover: the
    // recurrence is past them only when a call ended mid-way) and the new ones.
    const uint64_t end = im.position + im.window->leftover() + samples;
    const size_t most =
        im.phase.input < end ? outputs_bound(end - im.phase.input, im.rate, im.R) : 0;
    impl::slot& s = im.slots[im.next_slot];
    im.next_slot = 1 - im.next_slot;
    // The upload that read this slot's checkpoints is two calls back.
    if (s.done() != nullptr)
        s.done.wait();
    const size_t points = (most + im.interval - 1) / im.interval;
    if (s.capacity < points) {
        s.device_checkpoints =
            cl::Buffer(im.ctx->context(), CL_MEM_READ_ONLY, points * sizeof(cl_uint4));
        s.capacity = points;
    }
    s.checkpoints.resize(std::max(s.checkpoints.size(), points));
    const size_t outputs = most > 0 ? im.schedule(end, most, s.checkpoints) : 0;
    if (outputs > 0 && output.getInfo<CL_MEM_SIZE>() < outputs * 8)
        fail("output buffer holds " + std::to_string(output.getInfo<CL_MEM_SIZE>()) +
             " bytes; this call needs " + std::to_string(outputs * 8));

    std::vector<cl::Event> deps = wait;
    im.window->prepare(queue, deps);
    cl::Event event;
    if (outputs > 0) {
        cl::Event uploaded;
        queue.enqueueWriteBuffer(s.device_checkpoints,
                                 CL_FALSE,
                                 0,
                                 ((outputs + im.interval - 1) / im.interval) *
                                     sizeof(cl_uint4),
                                 s.checkpoints.data(),
                                 nullptr,
                                 &uploaded);
        deps.push_back(uploaded);
        kernel_args& k = im.kernel;
        k.set("window", im.window->buffer());
        k.set("checkpoints", s.device_checkpoints);
        k.set("taps", im.filters);
        k.set("diff_taps", im.diff_filters);
        k.set("taps_per_filter", cl_uint(im.T));
        k.set("filters", cl_uint(im.R));
        k.set("whole_inputs", cl_uint(im.dec_rate / im.R));
        k.set("rest", cl_uint(im.dec_rate % im.R));
        k.set("flt_rate", im.flt_rate);
        k.set("interval", cl_uint(im.interval));
        k.set("outputs", cl_uint(outputs));
        k.set("output", output);
        queue.enqueueNDRangeKernel(k.ready(),
                                   cl::NullRange,
                                   cl::NDRange((outputs + 63) / 64 * 64),
                                   cl::NullRange,
                                   &deps,
                                   &event);
        deps.assign(1, event);
    }
    // The window moves to the next output's input sample, or to the end of
    // the samples when the recurrence skips past them.
    const uint64_t next = std::min(im.phase.input, end);
    im.window->advance(queue, samples, size_t(next - im.position), deps, event);
    im.position = next;
    s.done = event;
    done = event;
    return outputs;
}

} // namespace core
} // namespace wideband
} // namespace gr
