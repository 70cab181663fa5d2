/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Kernel arguments set by parameter name (kernel_args.h): parsing the
// signatures from OpenCL C source, unknown names, arguments left unset.

#define BOOST_TEST_MODULE qa_kernel_args
#include <boost/test/unit_test.hpp>

#include "kernel_args.h"
#include "kernel_sources.h"

#include <functional>
#include <regex>
#include <set>
#include <stdexcept>

namespace core = gr::wideband::core;

namespace {

using names = std::vector<std::string>;

// action throws std::logic_error whose message contains every one of words.
void check_logic_error(const std::function<void()>& action, const names& words)
{
    try {
        action();
        BOOST_ERROR("no error; expected std::logic_error naming '" << words.front()
                                                                   << "'");
    } catch (const std::logic_error& e) {
        const std::string message = e.what();
        for (const auto& word : words)
            BOOST_TEST(message.find(word) != std::string::npos,
                       "'" << word << "' not in: " << message);
    }
}

names parameters_of(const std::string& source, const std::string& kernel)
{
    return core::parse_kernel_signature(source, kernel, "test.cl").parameters;
}

// The shapes the kernels in kernels/ use: an attribute whose arguments hold
// commas, the name on the next line, macros as types, comments with commas.
const std::string sample_source = R"(
/* __kernel void commented_out(int a) */
// __kernel void also_commented_out(int a)
inline void helper(__global float* x, uint n) {}
__kernel __attribute__((reqd_work_group_size(FFT_T* FFT_G, 1, 1))) void
wide(__global const float2* src,
     IDX offset, /* in elements, not bytes */
     uint count, // a, b, c
     TWIDDLE_SPACE const float2* table)
{
}
__kernel void wide_too(int first) {}
__kernel void no_arguments(void) {}
__kernel void empty() {}
)";

} // namespace

BOOST_AUTO_TEST_CASE(parses_parameter_names_in_order)
{
    BOOST_TEST(parameters_of(sample_source, "wide") ==
                   names({ "src", "offset", "count", "table" }),
               boost::test_tools::per_element());
    // a kernel whose name starts with another's is not that one
    BOOST_TEST(parameters_of(sample_source, "wide_too") == names({ "first" }),
               boost::test_tools::per_element());
    BOOST_TEST(parameters_of(sample_source, "no_arguments").empty());
    BOOST_TEST(parameters_of(sample_source, "empty").empty());

    const core::kernel_signature signature =
        core::parse_kernel_signature(sample_source, "wide", "test.cl");
    BOOST_TEST(signature.index("src") == 0u);
    BOOST_TEST(signature.index("table") == 3u);
}

BOOST_AUTO_TEST_CASE(unknown_kernels_and_names_are_errors)
{
    for (const char* absent : { "helper", "commented_out", "also_commented_out", "wid" })
        check_logic_error([&] { parameters_of(sample_source, absent); },
                          { absent, "test.cl", "no declaration" });
    const core::kernel_signature signature =
        core::parse_kernel_signature(sample_source, "wide", "test.cl");
    check_logic_error([&] { signature.index("offset_"); },
                      { "wide", "test.cl", "'offset_'" });
}

BOOST_AUTO_TEST_CASE(preprocessor_lines_in_a_parameter_list_are_errors)
{
    const std::string source = "__kernel void conditional(__global float* out,\n"
                               "#if WITH_SCALE\n"
                               "                          float scale,\n"
                               "#endif\n"
                               "                          uint n) {}\n";
    check_logic_error([&] { parameters_of(source, "conditional"); },
                      { "conditional", "preprocessor" });
}

BOOST_AUTO_TEST_CASE(every_embedded_kernel_parses)
{
    const std::regex declaration(R"(__kernel[^;{]*?\bvoid\s+(\w+)\s*\()");
    size_t kernels = 0;
    for (const auto& file : core::embedded_kernel_sources()) {
        const std::string text = file.text;
        for (std::sregex_iterator it(text.begin(), text.end(), declaration), end;
             it != end;
             ++it) {
            const std::string kernel = (*it)[1];
            const core::kernel_signature& signature =
                core::embedded_kernel_signature(file.name, kernel);
            BOOST_TEST_MESSAGE(signature.kernel << ": " << signature.parameters.size()
                                                << " parameters");
            BOOST_TEST(!signature.parameters.empty());
            const std::set<std::string> distinct(signature.parameters.begin(),
                                                 signature.parameters.end());
            BOOST_TEST(distinct.size() == signature.parameters.size());
            // parsed once: the same object every time
            BOOST_TEST(&core::embedded_kernel_signature(file.name, kernel) == &signature);
            ++kernels;
        }
    }
    BOOST_TEST(kernels >=
               4u); // fft_pass, pfb_channelize, pfb_fir_frames, pfb_gather_channels
}

BOOST_AUTO_TEST_CASE(arguments_set_by_name_reach_their_parameters)
{
    const std::string source = R"(
__kernel void affine(__global float* out, float offset, float scale, uint count)
{
    const uint i = get_global_id(0);
    if (i < count)
        out[i] = i * scale + offset;
}
)";
    const core::kernel_signature signature =
        core::parse_kernel_signature(source, "affine", "affine.cl");
    auto context = core::device_context::get("");
    cl::Program program(context->context(), source);
    program.build();
    const cl::CommandQueue queue = context->create_queue();
    cl::Buffer out(context->context(), CL_MEM_READ_WRITE, 8 * sizeof(float));

    core::kernel_args args(cl::Kernel(program, "affine"), signature);
    // in another order than declared
    args.set("scale", 2.0f);
    args.set("out", out);
    args.set("offset", 0.5f);
    check_logic_error([&] { args.ready(); }, { "affine", "'count'", "never set" });
    check_logic_error([&] { args.set("Scale", 1.0f); }, { "affine", "'Scale'" });

    args.set("count", cl_uint(6));
    std::vector<float> result(8, -1.0f);
    queue.enqueueWriteBuffer(out, CL_TRUE, 0, 8 * sizeof(float), result.data());
    queue.enqueueNDRangeKernel(args.ready(), cl::NullRange, cl::NDRange(8));
    queue.enqueueReadBuffer(out, CL_TRUE, 0, 8 * sizeof(float), result.data());
    BOOST_TEST(result == std::vector<float>(
                             { 0.5f, 2.5f, 4.5f, 6.5f, 8.5f, 10.5f, -1.0f, -1.0f }),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_signature_that_miscounts_the_arguments_is_an_error)
{
    const std::string source = "__kernel void two(__global float* out, uint n) {}";
    auto context = core::device_context::get("");
    cl::Program program(context->context(), source);
    program.build();
    const core::kernel_signature stale{ "kernel two (stale.cl)", { "out" } };
    check_logic_error([&] { core::kernel_args(cl::Kernel(program, "two"), stale); },
                      { "two", "2 arguments", "1 parameters" });
}
