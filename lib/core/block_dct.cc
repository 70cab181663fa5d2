/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fault_injection.h"
#include "kernel_args.h"
#include <gnuradio/wideband/core/block_dct.h>

#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

namespace {

constexpr size_t block_size = 8;
// the kernel's work-group: 8 blocks, one work-item per column of each
constexpr size_t group_size = 64;

[[noreturn]] void fail(const std::string& what)
{
    throw std::invalid_argument("block_dct: " + what);
}

void check_side(const char* name, size_t value)
{
    if (value == 0 || value % block_size != 0)
        fail(std::string(name) + " must be a positive multiple of 8 (got " +
             std::to_string(value) + ")");
}

// The pitch in effect (0: width); \p name names it in messages.
size_t resolved_pitch(const char* name, size_t pitch, size_t width)
{
    if (pitch == 0)
        return width;
    if (pitch < width)
        fail(std::string(name) + " " + std::to_string(pitch) +
             " is smaller than the width " + std::to_string(width) +
             " (0 means the width)");
    return pitch;
}

// a * b + c floats, \p what in messages: below 2^32, as the kernel indexes
// with 32 bits (checked without overflowing size_t).
size_t floats_of(const std::string& what, size_t a, size_t b, size_t c)
{
    constexpr size_t limit = std::numeric_limits<cl_uint>::max();
    if (c > limit || (a != 0 && b > (limit - c) / a))
        fail(what + " spans 2^32 floats or more; the kernel indexes with 32 bits");
    return a * b + c;
}

// Floats from an image's first point to past its last; \p side is "input" or
// "output".
size_t image_extent(const char* side, const block_dct_options& o, size_t pitch)
{
    return floats_of(
        std::string("an image of the ") + side, o.height - 1, pitch, o.width);
}

// The distance in effect (0: pitch * height); images may not overlap.
size_t resolved_distance(const char* name,
                         const char* side,
                         size_t distance,
                         const block_dct_options& o,
                         size_t pitch)
{
    const size_t extent = image_extent(side, o, pitch);
    if (distance == 0)
        return floats_of(std::string("an image of the ") + side, pitch, o.height, 0);
    if (distance < extent)
        fail(std::string(name) + " " + std::to_string(distance) +
             " is smaller than an image of " + std::to_string(extent) +
             " floats (0 means row pitch * height)");
    return distance;
}

/*
 * The kernel's 64 factors, scale[u * 8 + v] = f(u) f(v), in double (see
 * kernels/block_dct.cl). Forward: AAN's output k is s_k = 2 cos(k pi/16) (s_0 =
 * 1) times sum_n x_n cos(pi k (2n+1)/16), which scipy's norm=None wants times
 * 2, and "ortho" times 2 sqrt(1/(4N)) at k = 0, 2 sqrt(1/(2N)) elsewhere (N =
 * 8): f(k) = that / s_k. Inverse: AAN's output is sum_k z_k cos(...) /
 * cos(k pi/16) (no division at k = 0), and scipy's idct weights input k by
 * c_0 = 1/(2N), c_k = 1/N (norm=None) or c_0 = 1/sqrt(N), c_k = sqrt(2/N)
 * ("ortho"): f(k) = c_k cos(k pi/16).
 */
std::vector<float> scale_table(bool inverse, dct_norm norm)
{
    const double n = block_size;
    const bool ortho = norm == dct_norm::ortho;
    double f[block_size];
    for (size_t k = 0; k < block_size; ++k) {
        const double c = std::cos(double(k) * M_PI / 16.0);
        if (!inverse) {
            const double wanted =
                ortho ? 2.0 * std::sqrt(1.0 / ((k ? 2.0 : 4.0) * n)) : 2.0;
            f[k] = wanted / (k ? 2.0 * c : 1.0);
        } else {
            const double weight = ortho ? (k ? std::sqrt(2.0 / n) : 1.0 / std::sqrt(n))
                                        : (k ? 1.0 : 0.5) / n;
            f[k] = weight * (k ? c : 1.0);
        }
    }
    std::vector<float> table(block_size * block_size);
    for (size_t u = 0; u < block_size; ++u)
        for (size_t v = 0; v < block_size; ++v)
            table[u * block_size + v] = static_cast<float>(f[u] * f[v]);
    return table;
}

void check_buffer(const char* which, const cl::Buffer& buffer, size_t floats)
{
    const size_t have = buffer.getInfo<CL_MEM_SIZE>();
    if (have < floats * sizeof(cl_float))
        fail(std::string(which) + " buffer holds " + std::to_string(have) +
             " bytes; the geometry needs " + std::to_string(floats * sizeof(cl_float)));
}

} // namespace

class block_dct::impl
{
public:
    device_context::sptr ctx;
    block_dct_options options;
    size_t input_floats, output_floats;
    size_t blocks_per_row, blocks_per_image, blocks;
    cl::Buffer scale;
    // its arguments are set per call: enqueue() holds the lock from the first
    // set() to the enqueue
    std::mutex lock;
    kernel_args kernel;
};

block_dct::block_dct(device_context::sptr context, const block_dct_options& options)
    : d_impl(new impl)
{
    if (!context)
        fail("no device context");
    check_side("width", options.width);
    check_side("height", options.height);
    if (options.images == 0)
        fail("images must be >= 1 (got 0)");
    block_dct_options o = options;
    o.row_pitch = resolved_pitch("row_pitch", o.row_pitch, o.width);
    o.output_row_pitch = resolved_pitch("output_row_pitch", o.output_row_pitch, o.width);
    o.image_distance =
        resolved_distance("image_distance", "input", o.image_distance, o, o.row_pitch);
    o.output_image_distance = resolved_distance("output_image_distance",
                                                "output",
                                                o.output_image_distance,
                                                o,
                                                o.output_row_pitch);

    impl& im = *d_impl;
    im.input_floats = floats_of("the input",
                                o.images - 1,
                                o.image_distance,
                                image_extent("input", o, o.row_pitch));
    im.output_floats = floats_of("the output",
                                 o.images - 1,
                                 o.output_image_distance,
                                 image_extent("output", o, o.output_row_pitch));
    im.blocks_per_row = o.width / block_size;
    im.blocks_per_image = im.blocks_per_row * (o.height / block_size);
    im.blocks = im.blocks_per_image * o.images;
    im.options = o;
    im.ctx = std::move(context);

    std::vector<float> table = scale_table(o.inverse, o.norm);
    im.scale = cl::Buffer(im.ctx->context(),
                          CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          table.size() * sizeof(float),
                          table.data());
    im.kernel = kernel_args(
        *im.ctx, "block_dct.cl", o.inverse ? "-DINVERSE=1" : "-DINVERSE=0", "block_dct");
}

block_dct::~block_dct() = default;

const block_dct_options& block_dct::options() const { return d_impl->options; }
device_context::sptr block_dct::context() const { return d_impl->ctx; }
size_t block_dct::input_floats() const { return d_impl->input_floats; }
size_t block_dct::output_floats() const { return d_impl->output_floats; }

cl::Event block_dct::enqueue(const cl::CommandQueue& queue,
                             const cl::Buffer& input,
                             const cl::Buffer& output,
                             const std::vector<cl::Event>& wait) const
{
    impl& im = *d_impl;
    if (input() == output())
        fail("input and output are the same buffer; the output needs its own");
    check_buffer("input", input, im.input_floats);
    check_buffer("output", output, im.output_floats);
    fault::check_enqueue();

    const block_dct_options& o = im.options;
    std::lock_guard<std::mutex> guard(im.lock);
    im.kernel.set("input", input);
    im.kernel.set("row_pitch", static_cast<cl_uint>(o.row_pitch));
    im.kernel.set("image_distance", static_cast<cl_uint>(o.image_distance));
    im.kernel.set("output", output);
    im.kernel.set("output_row_pitch", static_cast<cl_uint>(o.output_row_pitch));
    im.kernel.set("output_image_distance", static_cast<cl_uint>(o.output_image_distance));
    im.kernel.set("blocks_per_row", static_cast<cl_uint>(im.blocks_per_row));
    im.kernel.set("blocks_per_image", static_cast<cl_uint>(im.blocks_per_image));
    im.kernel.set("blocks", static_cast<cl_uint>(im.blocks));
    im.kernel.set("scale", im.scale);
    const size_t work_items = im.blocks * block_size;
    cl::Event event;
    queue.enqueueNDRangeKernel(
        im.kernel.ready(),
        cl::NullRange,
        cl::NDRange((work_items + group_size - 1) / group_size * group_size),
        cl::NDRange(group_size),
        wait.empty() ? nullptr : &wait,
        &event);
    return event;
}

} // namespace core
} // namespace wideband
} // namespace gr
