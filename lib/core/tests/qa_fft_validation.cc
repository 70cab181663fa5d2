/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// fft_plan rejects what cannot work, with a message that names the parameter.

#define BOOST_TEST_MODULE qa_fft_validation
#include <boost/test/unit_test.hpp>

#include "test_support.h"
#include <gnuradio/wideband/core/fft_plan.h>

#include <functional>
#include <stdexcept>

namespace core = gr::wideband::core;

namespace {

using wideband_test::context;
using wideband_test::queue;

cl::Buffer buffer(size_t elements)
{
    return cl::Buffer(context()->context(), CL_MEM_READ_WRITE, elements * 8);
}

// action throws std::invalid_argument whose message contains every one of words.
void check_rejected(const std::function<void()>& action,
                    const std::vector<std::string>& words)
{
    try {
        action();
        BOOST_ERROR("accepted; expected std::invalid_argument naming '" << words.front()
                                                                        << "'");
    } catch (const std::invalid_argument& e) {
        const std::string message = e.what();
        for (const auto& word : words)
            BOOST_TEST(message.find(word) != std::string::npos,
                       "'" << word << "' not in: " << message);
    }
}

void check_plan_rejected(size_t n,
                         const core::fft_options& options,
                         const std::vector<std::string>& words)
{
    check_rejected([&] { core::fft_plan plan(context(), n, options); }, words);
}

core::fft_options with_batch(size_t batch)
{
    core::fft_options options;
    options.batch = batch;
    return options;
}

} // namespace

BOOST_AUTO_TEST_CASE(size_zero) { check_plan_rejected(0, {}, { "size" }); }

BOOST_AUTO_TEST_CASE(batch_zero) { check_plan_rejected(16, with_batch(0), { "batch" }); }

BOOST_AUTO_TEST_CASE(no_context)
{
    check_rejected([] { core::fft_plan plan(nullptr, 16); }, { "context" });
}

BOOST_AUTO_TEST_CASE(zero_strides)
{
    core::fft_options options;
    options.input.stride = 0;
    check_plan_rejected(16, options, { "input", "stride" });
    options.input.stride = 1;
    options.output.stride = 0;
    check_plan_rejected(16, options, { "output", "stride" });
}

BOOST_AUTO_TEST_CASE(window_of_the_wrong_length)
{
    core::fft_options options;
    options.window.assign(15, 1.0f);
    check_plan_rejected(16, options, { "window" });
    options.window.assign(17, 1.0f);
    check_plan_rejected(16, options, { "window" });
}

BOOST_AUTO_TEST_CASE(max_pass_length_below_16)
{
    core::fft_options options;
    options.max_pass_length = 8;
    check_plan_rejected(64, options, { "max_pass_length" });
}

BOOST_AUTO_TEST_CASE(too_many_points)
{
    // batch * size must stay below 2^32 (32-bit work-item indices).
    check_plan_rejected(
        size_t(1) << 20, with_batch(size_t(1) << 12), { "batch", "size" });
}

BOOST_AUTO_TEST_CASE(overlapping_output_transforms)
{
    core::fft_options options = with_batch(3);
    options.output.distance = 10; // transforms of 16 points, 10 apart
    check_plan_rejected(16, options, { "output", "overlap" });
    options.output = { 0, 2, 1 }; // interleaved, but 3 transforms need stride >= 3
    check_plan_rejected(16, options, { "output", "overlap" });
    // The same layouts in place: the transforms would overwrite each other.
    options.in_place = true;
    options.input = options.output;
    check_plan_rejected(16, options, { "output", "overlap" });
    options.input = options.output = { 0, 1, 10 };
    check_plan_rejected(16, options, { "output", "overlap" });
}

BOOST_AUTO_TEST_CASE(in_place_needs_one_layout)
{
    core::fft_options options = with_batch(2);
    options.in_place = true;
    options.input.offset = 1;
    check_plan_rejected(16, options, { "in-place", "layout" });
    options.input = { 0, 2, 0 };
    check_plan_rejected(16, options, { "in-place", "layout" });
    options.input = { 0, 1, 20 };
    check_plan_rejected(16, options, { "in-place", "layout" });
}

BOOST_AUTO_TEST_CASE(valid_layouts_are_accepted)
{
    core::fft_options options = with_batch(3);
    options.output = { 0, 3, 1 }; // interleaved transforms
    BOOST_CHECK_NO_THROW(core::fft_plan(context(), 16, options));
    options.output = { 5, 2, 40 }; // strided, with gaps
    BOOST_CHECK_NO_THROW(core::fft_plan(context(), 16, options));
    // Inputs may overlap: only the output is written.
    options.input.distance = 4;
    BOOST_CHECK_NO_THROW(core::fft_plan(context(), 16, options));
    // In place, distance 0 means size * stride: the same layout as spelt out.
    options.in_place = true;
    options.input = { 0, 1, 16 };
    options.output = {};
    BOOST_CHECK_NO_THROW(core::fft_plan(context(), 16, options));
}

BOOST_AUTO_TEST_CASE(buffers_too_small_for_the_layout)
{
    core::fft_options options = with_batch(4);
    options.input = { 3, 2, 40 };
    options.output = { 1, 1, 17 };
    const size_t n = 16;
    const core::fft_plan plan(context(), n, options);
    const size_t in = 3 + 3 * 40 + 15 * 2 + 1, out = 1 + 3 * 17 + 15 + 1;
    BOOST_TEST_REQUIRE(plan.input_elements(4) == in);
    BOOST_TEST_REQUIRE(plan.output_elements(4) == out);

    check_rejected([&] { plan.enqueue(queue(), buffer(in - 1), buffer(out)); },
                   { "input", "buffer" });
    check_rejected([&] { plan.enqueue(queue(), buffer(in), buffer(out - 1)); },
                   { "output", "buffer" });
    // Fewer transforms need less: the buffers of 3 transforms are enough for 3.
    const size_t in3 = plan.input_elements(3), out3 = plan.output_elements(3);
    BOOST_TEST(in3 == in - 40);
    BOOST_TEST(out3 == out - 17);
    check_rejected([&] { plan.enqueue(queue(), buffer(in3), buffer(out3), {}, 4); },
                   { "buffer" });
    plan.enqueue(queue(), buffer(in3), buffer(out3), {}, 3).wait();
    plan.enqueue(queue(), buffer(in), buffer(out)).wait();
}

BOOST_AUTO_TEST_CASE(batch_beyond_the_plan)
{
    const core::fft_plan plan(context(), 16, with_batch(2));
    check_rejected([&] { plan.enqueue(queue(), buffer(48), buffer(48), {}, 3); },
                   { "batch" });
}

BOOST_AUTO_TEST_CASE(in_place_and_out_of_place_calls)
{
    const core::fft_plan out_of_place(context(), 16);
    const cl::Buffer data = buffer(16);
    check_rejected([&] { out_of_place.enqueue(queue(), data, data); }, { "in_place" });
    check_rejected([&] { out_of_place.enqueue(queue(), data); }, { "out-of-place" });

    core::fft_options options;
    options.in_place = true;
    const core::fft_plan in_place(context(), 16, options);
    check_rejected([&] { in_place.enqueue(queue(), data, buffer(16)); }, { "in-place" });
    check_rejected([&] { in_place.enqueue(queue(), buffer(15)); }, { "buffer" });
}
