/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_BLOCK_DCT_H
#define INCLUDED_WIDEBAND_CORE_BLOCK_DCT_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/fft_plan.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

/*!
 * \brief What a block_dct transforms: images of float32 values, each cut into
 * 8x8 blocks.
 *
 * Point (y, x) of image i, row y < height and column x < width, is the float
 * at i * image_distance + y * row_pitch + x of the input buffer, and its
 * result at i * output_image_distance + y * output_row_pitch + x of the
 * output buffer; block (by, bx) is the points 8 by .. 8 by + 7, 8 bx .. 8 bx + 7.
 * A plain array of `count` contiguous 64-float blocks (row-major 8x8 each) is
 * width = 8, height = 8 * count: one image, one block per 8 rows.
 */
struct WIDEBAND_CORE_API block_dct_options {
    //! false: scipy.fft.dctn(block, type=2, norm); true: scipy.fft.idctn(block,
    //! type=2, norm), so that the inverse undoes the forward of the same norm
    bool inverse = false;
    //! dct_norm::none is norm=None (the forward's 1-D sums are 2 sum x_n cos ...,
    //! the inverse's include 1/16 per dimension), ortho is norm="ortho"
    dct_norm norm = dct_norm::none;
    size_t width = 0;                 //!< points per row, a multiple of 8 (>= 8)
    size_t height = 0;                //!< rows per image, a multiple of 8 (>= 8)
    size_t row_pitch = 0;             //!< floats between rows (0: width; else >= width)
    size_t images = 1;                //!< images per enqueue() (>= 1)
    size_t image_distance = 0;        //!< floats between images (0: row_pitch * height)
    size_t output_row_pitch = 0;      //!< as row_pitch, of the output
    size_t output_image_distance = 0; //!< as image_distance, of the output
};

/*!
 * \brief The two-dimensional DCT-II (or its inverse) of every 8x8 block of a
 * batch of images on one OpenCL device, as JPEG-style codecs use it: one fused
 * kernel with the Arai-Agui-Nakajima factorisation (5 multiplications per 8
 * points along the columns, then the rows), the scales of both passes and the
 * norm folded into one multiplication per output (per input for the inverse).
 * Work-items load and store whole rows of 8 neighbouring blocks at once and
 * exchange the blocks' rows and columns through local memory
 * (docs/fft-core.md, "8x8 block DCT (AAN)"). The kernel is compiled once per
 * device: every geometry and norm runs the same program.
 *
 * enqueue() adds the kernel to a caller's command queue and returns its event;
 * it never waits on the host. A block_dct may be enqueued from several threads
 * (calls are serialised); the buffers it is given must not be changed until
 * the returned event completes.
 */
class WIDEBAND_CORE_API block_dct
{
public:
    using sptr = std::shared_ptr<block_dct>;

    /*!
     * \throws std::invalid_argument for a width or height that is not a
     *         positive multiple of 8, no images, pitches smaller than the width,
     *         image distances smaller than an image, or buffers of 2^32 floats
     *         or more
     */
    block_dct(device_context::sptr context, const block_dct_options& options);
    ~block_dct();

    block_dct(const block_dct&) = delete;
    block_dct& operator=(const block_dct&) = delete;

    /*!
     * \brief Transforms every block of the images in \p input into \p output.
     *
     * \throws std::invalid_argument when a buffer is smaller than
     *         input_floats() or output_floats(), or input and output are the
     *         same buffer
     */
    cl::Event enqueue(const cl::CommandQueue& queue,
                      const cl::Buffer& input,
                      const cl::Buffer& output,
                      const std::vector<cl::Event>& wait = {}) const;

    //! The options, with every 0 that means a default replaced by its value.
    const block_dct_options& options() const;
    device_context::sptr context() const;

    //! Floats the input and output buffers need: up to the last image's last point.
    size_t input_floats() const;
    size_t output_floats() const;

private:
    class impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_BLOCK_DCT_H */
