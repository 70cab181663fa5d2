/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_FFT_PROGRAM_H
#define INCLUDED_WIDEBAND_CORE_FFT_PROGRAM_H

#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/fft_plan.h>
#include <gnuradio/wideband/core/sample_format.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

//! A layout with its distance filled in.
struct resolved_layout {
    size_t offset, stride, distance;
};

//! The layout with distance 0 replaced by points * stride.
resolved_layout resolve(const fft_layout& layout, size_t points);

//! The points an output range writes per transform of n points (checked).
size_t range_points(const char* owner, const fft_output_range& range, size_t n);
//! Throws unless \p buffer holds \p elements values of \p element_bytes.
void check_buffer(const char* owner,
                  const char* which,
                  const cl::Buffer& buffer,
                  size_t elements,
                  size_t element_bytes = 8);
//! \p batch, or the plan's when 0; throws when above the plan's.
size_t checked_batch(const char* owner, size_t batch, size_t plan_batch);

/*!
 * \brief Everything an fft_program computes, once the public class (fft_plan,
 * fft_convolution) has checked it.
 */
struct fft_program_spec {
    const char* owner = "fft_plan"; //!< names the class in error messages
    size_t n = 0;                   //!< points per transform
    size_t input_points = 0;        //!< points read per transform, the rest zero (0: n)
    size_t batch = 1;
    resolved_layout in{ 0, 1, 0 }, out{ 0, 1, 0 }; //!< out in units of written points
    //! The input's samples, converted as the first launch reads them.
    sample_format input_format = sample_format::fc32;
    //! The input holds points 0 .. n/2 of each transform, the rest their
    //! conjugates (a complex-to-real transform's bins).
    bool hermitian_input = false;
    //! The output receives the real parts only, as floats.
    bool real_output = false;
    /*! A convolution of real input (f32) with a real filter (a Hermitian
     *  spectrum), real output: transforms 2i and 2i+1 run as the real and
     *  imaginary parts of one complex transform, at half the work. */
    bool paired_real = false;
    /*! Set by fft_program, not the caller: a real transform of 2n points
     *  computed as the complex one of n (pairs of reals as complex points),
     *  unpacked as the forward transform stores its bins or the inverse one
     *  loads them. */
    enum class packing { none, forward, inverse } real_packing = packing::none;
    //! The N of normalize's 1/N when it is not n (packed: 2n).
    size_t normalize_length = 0;
    /*! A discrete cosine transform of n real points to n real points
     *  (f32 input, real output). fft_program computes it as the complex
     *  transform cosine_spec() derives, which keeps this field (its kernels
     *  reorder and twiddle by it) with n, input_points, range_count,
     *  real_packing and direction changed. */
    enum class cosine { none, ii, iii, iv } dct = cosine::none;
    bool dct_ortho = false; //!< orthonormal scaling (dct_norm::ortho)
    size_t dct_length = 0;  //!< set by cosine_spec(): the cosine transform's N
    bool in_place = false;

    /*! A transform (direction, window, shift) or a circular convolution
     *  IFFT(FFT(x) * S) with S a device buffer given at run time. */
    bool convolution = false;
    bool spectrum_per_transform = false; //!< S holds batch * n values
    fft_direction direction = fft_direction::forward;
    std::vector<float> window;
    bool shift = false;
    bool normalize = false;

    //! Result points written: begin + m*step, m < count, to output point m.
    size_t range_begin = 0, range_step = 1, range_count = 0;
    size_t max_pass_length = 0;

    //! Input points stored per transform (n/2 + 1 of a Hermitian input).
    size_t points_stored() const;
    //! Bytes of an input and of an output element.
    size_t input_element_bytes() const;
    size_t output_element_bytes() const;
};

struct fft_device_limits;

/*!
 * \brief The kernel launches, tables and work buffers of one plan: the common
 * machinery of fft_plan and fft_convolution (see docs/fft-core.md).
 */
class fft_program
{
public:
    fft_program(device_context::sptr context, const fft_program_spec& spec);
    ~fft_program();

    /*! Enqueues the launches for \p batch transforms (1..spec.batch); \p
     *  spectrum is the convolution's S (null for transforms). The offsets
     *  (complex elements) move the input and output layouts within their
     *  buffers for this call. */
    cl::Event run(const cl::CommandQueue& queue,
                  const cl::Buffer& input,
                  const cl::Buffer& output,
                  const cl::Buffer* spectrum,
                  const std::vector<cl::Event>& wait,
                  size_t batch,
                  size_t input_offset = 0,
                  size_t output_offset = 0) const;

    size_t launches() const;
    const std::string& description() const;
    const fft_program_spec& spec() const { return d_spec; }
    //! Elements the input (output) buffer needs for \p batch transforms.
    size_t input_elements(size_t batch) const;
    size_t output_elements(size_t batch) const;

private:
    struct impl;
    //! Plans d_spec within \p limits into d_impl, its kernels built.
    void plan(device_context& context, const fft_device_limits& limits);

    fft_program_spec d_spec;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_FFT_PROGRAM_H */
