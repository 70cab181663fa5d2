/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_FFT_CONVOLUTION_H
#define INCLUDED_WIDEBAND_CORE_FFT_CONVOLUTION_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/fft_plan.h>
#include <gnuradio/wideband/core/sample_format.h>

#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

struct WIDEBAND_CORE_API fft_convolution_options {
    size_t batch = 1; //!< transforms per execution (the most enqueue() accepts)
    fft_layout input; //!< inputs may overlap (e.g. overlap-save blocks)
    //! The input's samples (in elements of that format), converted to complex
    //! float as the first kernel reads them.
    sample_format input_format = sample_format::fc32;
    //! Points read from each input transform, the rest taken as zero (0: all N).
    size_t input_points = 0;
    fft_layout output; //!< distance 0: contiguous transforms of the written points
    //! Write the real parts only, as floats (output elements are floats): the
    //! convolution of real input with a real filter.
    bool real_output = false;
    /*! The spectrum is a real filter's (Hermitian) and the input real (f32),
     *  with real_output: two transforms run as one complex transform's real
     *  and imaginary parts, at half the work. Not with spectrum_per_transform. */
    bool real_filter = false;
    fft_output_range output_range; //!< which points of each result are written
    bool spectrum_per_transform =
        false;                  //!< one spectrum per transform (batch * N values)
    size_t max_pass_length = 0; //!< tuning and tests, as in fft_options
};

/*!
 * \brief Batched circular convolution by FFT: y_b = IFFT(FFT(x_b) * S_b) for
 * every transform b, with the spectrum S in a device buffer (one shared by all
 * transforms, or one per transform) given at each execution.
 *
 * The result is unnormalised: put 1/N into S for a true convolution. When N fits
 * on chip the forward FFT, the multiply and the inverse FFT are one kernel launch
 * that reads and writes global memory once; otherwise the multiply is fused into
 * the forward transform's last pass. Writing only part of each result
 * (output_range) costs no extra pass: it is how overlap-save drops its wrapped
 * points and how decimation keeps every D-th output.
 *
 * N must have no prime factor above 31 (choose it: any such N works).
 */
class WIDEBAND_CORE_API fft_convolution
{
public:
    using sptr = std::shared_ptr<fft_convolution>;

    fft_convolution(device_context::sptr context,
                    size_t size,
                    const fft_convolution_options& options = {});
    ~fft_convolution();

    fft_convolution(const fft_convolution&) = delete;
    fft_convolution& operator=(const fft_convolution&) = delete;

    /*!
     * \param spectrum N (or batch * N with spectrum_per_transform) complex values
     * \param input_offset, output_offset elements (input samples, complex
     *        outputs) the layouts start at
     * \throws std::invalid_argument when a buffer is too small or batch is out of range
     */
    cl::Event enqueue(const cl::CommandQueue& queue,
                      const cl::Buffer& input,
                      const cl::Buffer& spectrum,
                      const cl::Buffer& output,
                      const std::vector<cl::Event>& wait = {},
                      size_t batch = 0,
                      size_t input_offset = 0,
                      size_t output_offset = 0) const;

    size_t size() const { return d_size; }
    const fft_convolution_options& options() const { return d_options; }
    size_t input_elements(size_t batch) const;
    size_t output_elements(size_t batch) const;
    //! Points of each result that are written.
    size_t written_points() const;
    size_t launches() const;
    std::string describe() const;

private:
    device_context::sptr d_context;
    size_t d_size;
    fft_convolution_options d_options;
    size_t d_written;
    std::unique_ptr<fft_program> d_program;
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_FFT_CONVOLUTION_H */
