/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// fft_plan's options against FFTW: layouts, in/out-of-place, batches, window,
// shift, normalisation, round trips, wait lists, concurrent use. Every case runs
// on each kind of plan the core builds.

#define BOOST_TEST_MODULE qa_fft_plan
#include <boost/test/unit_test.hpp>

#include "fft_check.h"

#include <chrono>
#include <thread>

using namespace wideband_test;

namespace {

// One of each way the core computes a transform.
struct shape {
    size_t n;
    size_t max_pass_length;
    const char* what;
};
const shape shapes[] = {
    { 16, 0, "one radix-16 stage" },
    { 60, 0, "one pass of several mixed-radix stages" },
    { 37, 0, "Rader in one fused kernel" },
    { 74, 0, "Bluestein in one fused kernel" },
    { 1000, 16, "three passes" },
    { 101, 16, "Bluestein over passes" },
};

core::fft_options options_for(const shape& s, size_t batch)
{
    core::fft_options options;
    options.batch = batch;
    options.max_pass_length = s.max_pass_length;
    return options;
}

struct layouts {
    const char* what;
    core::fft_layout input, output;
    bool in_place;
};

// Layouts for transforms of n points, batch 3; distance 0 is contiguous.
std::vector<layouts> layout_cases(size_t n)
{
    return {
        { "contiguous", {}, {}, false },
        { "offsets and gaps", { 5, 1, n + 3 }, { 7, 1, n + 11 }, false },
        { "strided", { 1, 2, 2 * n + 1 }, { 2, 3, 3 * n }, false },
        { "interleaved", { 0, 3, 1 }, { 1, 4, 1 }, false },
        { "interleaved to contiguous", { 2, 3, 1 }, {}, false },
        { "contiguous to interleaved", {}, { 0, 3, 1 }, false },
        { "overlapping input frames", { 0, 1, n / 2 + 1 }, {}, false },
        { "in place, contiguous", {}, {}, true },
        { "in place, strided with gaps", { 3, 2, 2 * n + 5 }, { 3, 2, 2 * n + 5 }, true },
        { "in place, interleaved", { 0, 3, 1 }, { 0, 3, 1 }, true },
    };
}

std::vector<float> test_window(size_t n)
{
    // Never zero, not symmetric: a misplaced factor shows.
    std::vector<float> w(n);
    for (size_t i = 0; i < n; ++i)
        w[i] = 0.25f + float(i % 7) / 7.0f + float(i) / float(n);
    return w;
}

} // namespace

BOOST_AUTO_TEST_CASE(layouts_out_of_place_and_in_place)
{
    for (const shape& s : shapes) {
        for (const layouts& l : layout_cases(s.n)) {
            BOOST_TEST_CONTEXT(s.what << ", " << l.what)
            {
                core::fft_options options = options_for(s, 3);
                options.input = l.input;
                options.output = l.output;
                options.in_place = l.in_place;
                check_fft(s.n, options, uint32_t(s.n));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(window_shift_and_normalize)
{
    struct extras {
        core::fft_direction direction;
        bool window, shift, normalize, in_place;
    };
    const auto fwd = core::fft_direction::forward, inv = core::fft_direction::inverse;
    // The shift alone, both ways, is in the round trips. In place with the
    // shift: the last pass must not overwrite points it has yet to read.
    const extras cases[] = {
        { fwd, true, false, false, false },
        { fwd, true, true, true, true },
        { inv, true, true, true, false },
    };
    for (const shape& s : shapes) {
        for (const extras& e : cases) {
            BOOST_TEST_CONTEXT(s.what << (e.direction == fwd ? ", forward" : ", inverse")
                                      << (e.window ? ", window" : "")
                                      << (e.shift ? ", shift" : "")
                                      << (e.normalize ? ", normalize" : ""))
            {
                core::fft_options options = options_for(s, 2);
                options.direction = e.direction;
                if (e.window)
                    options.window = test_window(s.n);
                options.shift = e.shift;
                options.normalize = e.normalize;
                options.in_place = e.in_place;
                check_fft(s.n, options, uint32_t(s.n + 1));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(fewer_transforms_than_the_plan_batch)
{
    for (const shape& s : shapes) {
        for (const layouts& l : layout_cases(s.n)) {
            core::fft_options options = options_for(s, 3);
            options.input = l.input;
            options.output = l.output;
            options.in_place = l.in_place;
            const core::fft_plan plan(context(), s.n, options);
            for (size_t batch : { 1, 2 })
                BOOST_TEST_CONTEXT(s.what << ", " << l.what << ", batch " << batch)
                {
                    check_plan(plan, uint32_t(s.n + batch), batch);
                }
        }
    }
}

// enqueue_at() moves the whole layout: every pass reads and writes the
// caller's buffers at the offsets (also a pass that keeps an intermediate
// result in the output buffer), so the result is enqueue()'s, bit for bit.
BOOST_AUTO_TEST_CASE(enqueue_at_offsets)
{
    const size_t in_offset = 13, out_offset = 29, batch = 3;
    for (const shape& s : shapes) {
        BOOST_TEST_CONTEXT(s.what)
        {
            const core::fft_plan plan(context(), s.n, options_for(s, batch));
            const std::vector<cfloat> x = random_signal(s.n * batch, uint32_t(s.n));
            const cl::Context& ctx = context()->context();
            const cl::CommandQueue& q = queue();
            const size_t bytes = s.n * batch * sizeof(cfloat);
            cl::Buffer in(ctx, CL_MEM_READ_WRITE, bytes),
                out(ctx, CL_MEM_READ_WRITE, bytes);
            cl::Buffer moved_in(
                ctx, CL_MEM_READ_WRITE, bytes + in_offset * sizeof(cfloat));
            cl::Buffer moved_out(
                ctx, CL_MEM_READ_WRITE, bytes + out_offset * sizeof(cfloat));
            q.enqueueWriteBuffer(in, CL_TRUE, 0, bytes, x.data());
            q.enqueueWriteBuffer(
                moved_in, CL_TRUE, in_offset * sizeof(cfloat), bytes, x.data());
            plan.enqueue(q, in, out).wait();
            plan.enqueue_at(q, moved_in, in_offset, moved_out, out_offset).wait();
            std::vector<cfloat> expected(s.n * batch), got(s.n * batch);
            q.enqueueReadBuffer(out, CL_TRUE, 0, bytes, expected.data());
            q.enqueueReadBuffer(
                moved_out, CL_TRUE, out_offset * sizeof(cfloat), bytes, got.data());
            BOOST_TEST(got == expected);
        }
    }
}

BOOST_AUTO_TEST_CASE(many_transforms_fill_several_work_groups)
{
    // 301 transforms: several work-groups of each pass, the last one partial.
    const size_t batch = 301;
    for (const shape& s : shapes) {
        for (bool interleaved : { false, true }) {
            BOOST_TEST_CONTEXT(s.what << (interleaved ? ", interleaved" : ", contiguous"))
            {
                core::fft_options options = options_for(s, batch);
                if (interleaved)
                    options.input = options.output = { 0, batch, 1 };
                check_fft(s.n, options, uint32_t(s.n + 4));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(round_trips)
{
    for (const shape& s : shapes) {
        const size_t n = s.n;
        struct trip {
            const char* what;
            core::fft_layout input, output;
            bool in_place, shift;
        };
        const trip trips[] = {
            { "contiguous", {}, {}, false, false },
            { "interleaved", { 0, 3, 1 }, { 1, 4, 1 }, false, false },
            { "in place, strided with gaps",
              { 3, 2, 2 * n + 5 },
              { 3, 2, 2 * n + 5 },
              true,
              false },
            { "in place, shifted", {}, {}, true, true },
        };
        for (const trip& t : trips) {
            BOOST_TEST_CONTEXT(s.what << ", " << t.what)
            {
                core::fft_options options = options_for(s, 3);
                options.input = t.input;
                options.output = t.output;
                options.in_place = t.in_place;
                options.shift = t.shift;
                check_round_trip(n, options, uint32_t(n + 2));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(enqueue_waits_for_its_wait_list)
{
    const size_t n = 60, batch = 2;
    core::fft_options options;
    options.batch = batch;
    const core::fft_plan plan(context(), n, options);
    const std::vector<cfloat> x = random_signal(n * batch, 7);
    const size_t bytes = x.size() * sizeof(cfloat);
    const cl::Context& cl_context = context()->context();
    cl::Buffer input(cl_context,
                     CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                     bytes,
                     const_cast<cfloat*>(x.data()));
    cl::Buffer output(cl_context, CL_MEM_READ_WRITE, bytes);

    cl::UserEvent gate(cl_context);
    const cl::Event done = plan.enqueue(queue(), input, output, { gate });
    // enqueue() returned without waiting; the transform must not start before the gate
    // opens.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    BOOST_TEST(done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE);
    gate.setStatus(CL_COMPLETE);
    done.wait();

    std::vector<cfloat> y(x.size());
    queue().enqueueReadBuffer(output, CL_TRUE, 0, bytes, y.data());
    for (size_t b = 0; b < batch; ++b) {
        const std::vector<cfloat> xb(x.begin() + b * n, x.begin() + (b + 1) * n);
        const std::vector<cfloat> yb(y.begin() + b * n, y.begin() + (b + 1) * n);
        BOOST_TEST(compare(yb, wideband_reference::fft(xb, options)).relative_l2 <=
                   l2_bound(n));
    }
}

BOOST_AUTO_TEST_CASE(one_plan_enqueued_from_several_threads)
{
    const size_t n = 60, threads = 4, rounds = 20;
    const core::fft_plan plan(context(), n);
    const cl::Context& cl_context = context()->context();
    std::vector<std::vector<cfloat>> inputs, outputs(threads, std::vector<cfloat>(n));
    for (size_t t = 0; t < threads; ++t)
        inputs.push_back(random_signal(n, uint32_t(100 + t)));

    // Boost.Test is not thread-safe: the threads only compute, the checks follow.
    std::vector<std::string> errors(threads);
    std::vector<std::thread> workers;
    for (size_t t = 0; t < threads; ++t)
        workers.emplace_back([&, t] {
            try {
                const cl::CommandQueue own_queue = context()->create_queue();
                cl::Buffer input(cl_context,
                                 CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                 n * sizeof(cfloat),
                                 inputs[t].data());
                cl::Buffer output(cl_context, CL_MEM_READ_WRITE, n * sizeof(cfloat));
                for (size_t r = 0; r < rounds; ++r)
                    plan.enqueue(own_queue, input, output);
                own_queue.enqueueReadBuffer(
                    output, CL_TRUE, 0, n * sizeof(cfloat), outputs[t].data());
            } catch (const std::exception& e) {
                errors[t] = e.what();
            }
        });
    for (auto& w : workers)
        w.join();
    for (size_t t = 0; t < threads; ++t) {
        BOOST_TEST(errors[t] == "", "thread " << t);
        BOOST_TEST(compare(outputs[t], wideband_reference::fft(inputs[t], plan.options()))
                           .relative_l2 <= l2_bound(n),
                   "thread " << t);
    }
}
