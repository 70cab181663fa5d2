/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The 8x8 block DCT (block_dct, AAN's factorisation) against the direct
// two-dimensional sums in double precision, as scipy.fft.dctn and idctn state
// them (type 2, norm=None and "ortho"): image sizes, pitches, batches of
// images, round trips and the geometries it refuses.

#define BOOST_TEST_MODULE qa_block_dct
#include <boost/test/unit_test.hpp>

#include "reference.h"
#include "test_support.h"
#include <gnuradio/wideband/core/block_dct.h>

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace core = gr::wideband::core;

namespace {

// float32 transforms against a float64 reference: the bound of qa_dct.
constexpr double relative_bound = 1e-6;

using wideband_test::context;
using wideband_test::is_poison;
using wideband_test::never_zero_values;
using wideband_test::poison_value;
using wideband_test::queue;

struct geometry {
    size_t width, height, row_pitch, images, image_distance;
    size_t output_row_pitch, output_image_distance;
};

core::block_dct_options make_options(const geometry& g, bool inverse, core::dct_norm norm)
{
    core::block_dct_options o;
    o.inverse = inverse;
    o.norm = norm;
    o.width = g.width;
    o.height = g.height;
    o.row_pitch = g.row_pitch;
    o.images = g.images;
    o.image_distance = g.image_distance;
    o.output_row_pitch = g.output_row_pitch;
    o.output_image_distance = g.output_image_distance;
    return o;
}

std::string describe(const core::block_dct_options& o)
{
    return std::string(o.inverse ? "inverse" : "forward") + " " +
           (o.norm == core::dct_norm::ortho ? "ortho" : "none") + " " +
           std::to_string(o.width) + "x" + std::to_string(o.height) + " pitch " +
           std::to_string(o.row_pitch) + "/" + std::to_string(o.output_row_pitch) + ", " +
           std::to_string(o.images) + " images at " + std::to_string(o.image_distance) +
           "/" + std::to_string(o.output_image_distance);
}

// Where point (y, x) of image i sits, in floats.
size_t at(size_t pitch, size_t distance, size_t i, size_t y, size_t x)
{
    return i * distance + y * pitch + x;
}

/*
 * Transforms random images (poison in the gaps of the input geometry) and
 * checks each block against the reference within relative_bound (relative L2,
 * and every point within 10 times that of the block's rms), that nothing
 * outside the output geometry was written and the input was kept. Returns
 * the worst relative L2 error of a block.
 */
double check(const core::block_dct_options& options, uint32_t seed)
{
    const core::block_dct dct(context(), options);
    const core::block_dct_options& o = dct.options();
    const std::string what = describe(o);
    const size_t in_count = dct.input_floats(), out_count = dct.output_floats();

    const std::vector<float> signal =
        never_zero_values(o.images * o.height * o.width, seed);
    std::vector<float> host_in(in_count, poison_value());
    for (size_t i = 0; i < o.images; ++i)
        for (size_t y = 0; y < o.height; ++y)
            for (size_t x = 0; x < o.width; ++x)
                host_in[at(o.row_pitch, o.image_distance, i, y, x)] =
                    signal[(i * o.height + y) * o.width + x];
    cl::Buffer input(context()->context(), CL_MEM_READ_WRITE, in_count * sizeof(float));
    queue().enqueueWriteBuffer(
        input, CL_TRUE, 0, in_count * sizeof(float), host_in.data());
    cl::Buffer output(context()->context(), CL_MEM_READ_WRITE, out_count * sizeof(float));
    queue().enqueueFillBuffer(output, poison_value(), 0, out_count * sizeof(float));
    dct.enqueue(queue(), input, output).wait();

    std::vector<float> result(out_count), kept(in_count);
    queue().enqueueReadBuffer(
        output, CL_TRUE, 0, out_count * sizeof(float), result.data());
    queue().enqueueReadBuffer(input, CL_TRUE, 0, in_count * sizeof(float), kept.data());
    std::vector<char> written(out_count, 0);
    double worst = 0;
    size_t failed = 0;
    for (size_t i = 0; i < o.images; ++i)
        for (size_t by = 0; by < o.height; by += 8)
            for (size_t bx = 0; bx < o.width; bx += 8) {
                std::vector<double> block(64);
                for (size_t y = 0; y < 8; ++y)
                    for (size_t x = 0; x < 8; ++x)
                        block[y * 8 + x] =
                            signal[(i * o.height + by + y) * o.width + bx + x];
                const std::vector<double> ref =
                    wideband_reference::block_dct(block, o.inverse, o.norm);
                double error = 0, energy = 0, worst_point = 0;
                for (size_t y = 0; y < 8; ++y)
                    for (size_t x = 0; x < 8; ++x) {
                        const size_t e = at(o.output_row_pitch,
                                            o.output_image_distance,
                                            i,
                                            by + y,
                                            bx + x);
                        written[e] = 1;
                        const double d = double(result[e]) - ref[y * 8 + x];
                        error += d * d;
                        energy += ref[y * 8 + x] * ref[y * 8 + x];
                        worst_point = std::max(worst_point,
                                               std::isfinite(d) ? std::abs(d) : INFINITY);
                    }
                const double relative = std::sqrt(error / energy);
                const double point = worst_point / std::sqrt(energy / 64);
                // one message per geometry for the first block that fails
                if (!(relative <= relative_bound && point <= 10 * relative_bound) &&
                    failed++ == 0)
                    BOOST_ERROR(what << ", image " << i << " block (" << by / 8 << ", "
                                     << bx / 8 << "): relative L2 " << relative
                                     << ", worst point " << point << " * rms");
                worst = std::max(worst, std::isfinite(relative) ? relative : INFINITY);
            }
    BOOST_CHECK_MESSAGE(failed == 0, what << ": " << failed << " blocks out of bounds");
    size_t stray = 0;
    for (size_t e = 0; e < out_count; ++e)
        stray += !written[e] && !is_poison(result[e]);
    BOOST_CHECK_MESSAGE(stray == 0,
                        what << ": " << stray << " values written outside the geometry");
    BOOST_CHECK_MESSAGE(
        std::memcmp(kept.data(), host_in.data(), in_count * sizeof(float)) == 0,
        what << ": the input changed");
    return worst;
}

// Square and non-square images, a column of blocks (a plain array of 64-float
// blocks), rows of blocks that are not a multiple of a work-group's 8, pitches
// larger than the width (odd: no row starts aligned), batches of images with
// gaps between them, and an image of many work-groups.
const geometry geometries[] = {
    { 16, 16, 0, 1, 0, 0, 0 },
    { 40, 24, 45, 1, 0, 43, 0 },
    { 8, 8 * 13, 0, 1, 0, 0, 0 },
    { 72, 16, 0, 1, 0, 0, 0 },
    { 24, 16, 27, 3, 16 * 27 + 5, 0, 0 },
    { 64, 8, 0, 4, 0, 67, 9 * 67 },
    { 256, 128, 0, 1, 0, 0, 0 },
};

const core::dct_norm norms[] = { core::dct_norm::none, core::dct_norm::ortho };

} // namespace

BOOST_AUTO_TEST_CASE(forward_against_the_direct_sums)
{
    double worst = 0;
    uint32_t seed = 1;
    for (const geometry& g : geometries)
        for (auto norm : norms)
            worst = std::max(worst, check(make_options(g, false, norm), seed++));
    BOOST_TEST_MESSAGE("forward: worst relative L2 error of a block: " << worst);
}

BOOST_AUTO_TEST_CASE(inverse_against_the_direct_sums)
{
    double worst = 0;
    uint32_t seed = 100;
    for (const geometry& g : geometries)
        for (auto norm : norms)
            worst = std::max(worst, check(make_options(g, true, norm), seed++));
    BOOST_TEST_MESSAGE("inverse: worst relative L2 error of a block: " << worst);
}

BOOST_AUTO_TEST_CASE(round_trips)
{
    // The inverse of the same norm undoes the forward, chained on the device.
    const geometry g{ 24, 16, 0, 2, 0, 0, 0 };
    const std::vector<float> x = never_zero_values(g.width * g.height * g.images, 200);
    const size_t bytes = x.size() * sizeof(float);
    cl::Buffer a(context()->context(), CL_MEM_READ_WRITE, bytes),
        b(context()->context(), CL_MEM_READ_WRITE, bytes),
        c(context()->context(), CL_MEM_READ_WRITE, bytes);
    queue().enqueueWriteBuffer(a, CL_TRUE, 0, bytes, x.data());
    for (auto norm : norms) {
        const core::block_dct there(context(), make_options(g, false, norm));
        const core::block_dct back(context(), make_options(g, true, norm));
        const cl::Event e = there.enqueue(queue(), a, b);
        back.enqueue(queue(), b, c, { e }).wait();
        std::vector<float> y(x.size());
        queue().enqueueReadBuffer(c, CL_TRUE, 0, bytes, y.data());
        double error = 0, energy = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            error += (double(y[i]) - x[i]) * (double(y[i]) - x[i]);
            energy += double(x[i]) * x[i];
        }
        const double relative = std::sqrt(error / energy);
        BOOST_CHECK_MESSAGE(relative <= 2 * relative_bound,
                            describe(there.options())
                                << " then inverse: relative L2 " << relative);
        BOOST_TEST_MESSAGE("round trip, "
                           << (norm == core::dct_norm::ortho ? "ortho" : "none")
                           << ": relative L2 error " << relative);
    }
}

BOOST_AUTO_TEST_CASE(geometries_it_refuses)
{
    auto rejected = [](const core::block_dct_options& o, const std::string& word) {
        try {
            core::block_dct dct(context(), o);
            BOOST_ERROR(describe(o) << ": accepted, expected an error about " << word);
        } catch (const std::invalid_argument& e) {
            BOOST_CHECK_MESSAGE(std::string(e.what()).find(word) != std::string::npos,
                                "\"" << e.what() << "\" does not mention " << word);
        }
    };
    const geometry good{ 16, 8, 0, 2, 0, 0, 0 };
    core::block_dct_options o = make_options(good, false, core::dct_norm::none);
    o.width = 12;
    rejected(o, "width must be a positive multiple of 8 (got 12)");
    o.width = 0;
    rejected(o, "width must be a positive multiple of 8 (got 0)");
    o = make_options(good, false, core::dct_norm::none);
    o.height = 0;
    rejected(o, "height must be a positive multiple of 8 (got 0)");
    o.height = 20;
    rejected(o, "height must be a positive multiple of 8 (got 20)");
    o = make_options(good, false, core::dct_norm::none);
    o.images = 0;
    rejected(o, "images must be >= 1");
    o = make_options(good, false, core::dct_norm::none);
    o.row_pitch = 15;
    rejected(o, "row_pitch 15 is smaller than the width 16");
    o = make_options(good, true, core::dct_norm::none);
    o.output_row_pitch = 8;
    rejected(o, "output_row_pitch 8 is smaller than the width 16");
    o = make_options(good, false, core::dct_norm::ortho);
    o.image_distance = 16 * 8 - 1;
    rejected(o, "image_distance 127 is smaller than an image of 128 floats");
    o = make_options(good, false, core::dct_norm::ortho);
    o.output_image_distance = 100;
    rejected(o, "output_image_distance 100 is smaller than an image");
    // the kernel indexes with 32 bits; sizes that overflow size_t included
    o = make_options(good, false, core::dct_norm::none);
    o.width = size_t(1) << 16;
    o.height = size_t(1) << 16;
    rejected(o, "an image of the input spans 2^32 floats or more");
    o = make_options(good, true, core::dct_norm::none);
    o.output_row_pitch = size_t(1) << 62;
    rejected(o, "an image of the output spans 2^32 floats or more");
    o = make_options(good, false, core::dct_norm::none);
    o.images = size_t(1) << 30;
    o.image_distance = size_t(1) << 40;
    rejected(o, "the input spans 2^32 floats or more");
    try {
        core::block_dct dct(nullptr, make_options(good, false, core::dct_norm::none));
        BOOST_ERROR("accepted no device context");
    } catch (const std::invalid_argument& e) {
        BOOST_CHECK(std::string(e.what()).find("no device context") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(buffers_it_refuses)
{
    // 2 images of 16x8 at distance 200, output pitch 20: the input spans
    // 200 + 7 * 16 + 16 = 328 floats, the output 2 * 8 * 20 - 4 = 316.
    const geometry g{ 16, 8, 0, 2, 200, 20, 0 };
    const core::block_dct dct(context(), make_options(g, false, core::dct_norm::none));
    BOOST_CHECK_EQUAL(dct.input_floats(), 328u);
    BOOST_CHECK_EQUAL(dct.output_floats(), 316u);
    auto buffer = [](size_t floats) {
        return cl::Buffer(
            context()->context(), CL_MEM_READ_WRITE, floats * sizeof(float));
    };
    auto rejected =
        [&](const cl::Buffer& in, const cl::Buffer& out, const std::string& word) {
            try {
                dct.enqueue(queue(), in, out);
                BOOST_ERROR("enqueued, expected an error about " << word);
            } catch (const std::invalid_argument& e) {
                BOOST_CHECK_MESSAGE(std::string(e.what()).find(word) != std::string::npos,
                                    "\"" << e.what() << "\" does not mention " << word);
            }
        };
    rejected(buffer(327),
             buffer(316),
             "input buffer holds 1308 bytes; the geometry needs 1312");
    rejected(buffer(328),
             buffer(315),
             "output buffer holds 1260 bytes; the geometry needs 1264");
    const cl::Buffer both = buffer(400);
    rejected(both, both, "same buffer");
    dct.enqueue(queue(), buffer(328), buffer(316)).wait();
}
