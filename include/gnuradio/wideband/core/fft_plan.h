/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_FFT_PLAN_H
#define INCLUDED_WIDEBAND_CORE_FFT_PLAN_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/sample_format.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

class fft_program;

/*!
 * \brief What a plan transforms. Real data are float32 values; bins are the
 * complex points 0 .. N/2 of a spectrum whose others are their conjugates.
 */
enum class fft_transform {
    complex,      //!< N complex points to N complex points
    real_forward, //!< N real points to bins 0 .. N/2 (numpy.fft.rfft), forward only
    /*! bins 0 .. N/2 to N real points (numpy.fft.irfft without its 1/N unless
     *  normalize), inverse only; as irfft, it ignores the imaginary part of bin
     *  0 and of bin N/2 for even N */
    real_inverse,
    /*! N real points to N real points, the discrete cosine transforms as
     *  scipy.fft.dct(x, type) names them (unnormalised or orthonormal, see
     *  dct_norm); forward only. Type II: y_k = 2 sum_n x_n cos(pi k(2n+1)/(2N)). */
    dct_ii,
    //! Type III, the inverse of type II (unnormalised: up to a factor 2N):
    //! y_k = x_0 + 2 sum_{n>=1} x_n cos(pi n(2k+1)/(2N)).
    dct_iii,
    //! Type IV, its own inverse up to a factor 2N:
    //! y_k = 2 sum_n x_n cos(pi (2n+1)(2k+1)/(4N)).
    dct_iv
};

/*!
 * \brief The scaling of a cosine transform, as scipy.fft.dct's norm names it.
 */
enum class dct_norm {
    none, //!< norm=None ("backward"): the sums as written in fft_transform
    /*! norm="ortho": an orthonormal matrix. Type II scales y_0 by sqrt(1/(4N))
     *  and the others by sqrt(1/(2N)); type III is its inverse (x_0 weighted
     *  1/sqrt(N), the others sqrt(2/N) / 2); type IV scales by sqrt(1/(2N)). */
    ortho
};

enum class fft_direction {
    forward, //!< X[k] = sum_n x[n] exp(-2 pi i nk/N)
    inverse  //!< x[n] = sum_k X[k] exp(+2 pi i nk/N), unscaled unless normalize
};

/*!
 * \brief Where the points of a batch of transforms sit in a buffer (all
 * figures in elements: complex float32 values, or the input's samples, or
 * float32 values for real data).
 *
 * Point n of transform b is at element offset + b * distance + n * stride.
 */
struct WIDEBAND_CORE_API fft_layout {
    size_t offset = 0;
    size_t stride = 1;
    size_t distance = 0; //!< 0: contiguous transforms, i.e. size * stride
};

/*!
 * \brief Which points of each result are written: begin + m*step for m < count,
 * to output point m of the output layout. The default writes every point.
 */
struct WIDEBAND_CORE_API fft_output_range {
    size_t begin = 0;
    size_t step = 1;
    size_t count = 0; //!< 0: every point from begin on (ceil((N - begin) / step))
};

/*!
 * \brief Everything about a plan but its length.
 */
struct WIDEBAND_CORE_API fft_options {
    fft_transform transform = fft_transform::complex;
    //! Complex transforms; the others have theirs (leave it at forward).
    fft_direction direction = fft_direction::forward;
    //! Cosine transforms only (others leave it at none; they have normalize).
    dct_norm norm = dct_norm::none;
    /*!
     * Complex transforms: the input's samples, converted as they are read;
     * f32 reads real values (imaginary parts zero) and writes all N points,
     * as GNU Radio's fft_vfc does. Real transforms keep the default.
     */
    sample_format input_format = sample_format::fc32;
    size_t batch = 1;       //!< transforms per execution (the most enqueue() accepts)
    bool normalize = false; //!< multiply the output by 1/N
    bool in_place = false;  //!< input and output are the same buffer and layout
    fft_layout input;       //!< distance 0: contiguous transforms of the points read
    fft_layout output;      //!< distance 0: contiguous transforms of the written points
    //! Points read from each input transform, the rest taken as zero (0: all N).
    size_t input_points = 0;
    fft_output_range output_range;

    /*!
     * Real factors multiplied into the input before the transform (empty, or
     * one per point), e.g. a window. Fused into the first pass.
     */
    std::vector<float> window;
    /*!
     * GNU Radio's fft_vcc "shift": forward transforms write the output
     * fft-shifted (DC in the middle); inverse transforms read the input
     * ifft-shifted (after the window is applied). Fused into the passes.
     */
    bool shift = false;

    /*!
     * Tuning and testing: the longest transform one pass may compute on chip
     * (0: as long as the device allows). Smaller values force more passes.
     */
    size_t max_pass_length = 0;
};

/*!
 * \brief A batched FFT of one length on one OpenCL device, complex or real
 * (fft_transform), in the manner of an FFTW or cuFFT plan: built once,
 * executed many times.
 *
 * Any length N >= 1. N is split into passes, each an on-chip FFT of up to a
 * few thousand points computed by one kernel launch (mixed radices 2..16, 25
 * and the primes to 31, with twiddles from tables computed in double
 * precision); other primes go through Rader's algorithm (one fused kernel when
 * N - 1 has no prime factor above 31 and fits on chip) and any other length
 * through Bluestein's, on the same machinery. A real transform is the complex
 * one with real points read (real_forward, which writes bins 0 .. N/2) or
 * the missing bins read as conjugates and the real parts written
 * (real_inverse), all fused into the passes' loads and stores. A cosine
 * transform (dct_ii, dct_iii, dct_iv) is a complex transform of N/2 points
 * (even N; II and III where N/2 is one pass) or of N (II, III) or 2N (IV of
 * odd N) points, with its reordering and twiddles fused the same way
 * (docs/fft-core.md, "The discrete cosine transform").
 * Kernels are compiled once per device and configuration (device_context), so
 * a second plan of a seen configuration compiles nothing.
 *
 * enqueue() adds the plan's kernels to a caller's command queue and returns
 * the event of the last one; it never waits on the host. A plan may be
 * enqueued from several threads (calls are serialised); the buffers it is
 * given must not be changed until the returned event completes.
 */
class WIDEBAND_CORE_API fft_plan
{
public:
    using sptr = std::shared_ptr<fft_plan>;

    /*!
     * \throws std::invalid_argument for N = 0, batch = 0, a zero stride, a window
     * of the wrong length, an output range outside the transform, output layouts
     * whose transforms overlap, or an in-place plan whose input and output
     * layouts differ
     */
    fft_plan(device_context::sptr context, size_t size, const fft_options& options = {});
    ~fft_plan();

    fft_plan(const fft_plan&) = delete;
    fft_plan& operator=(const fft_plan&) = delete;

    /*!
     * \brief Transforms \p input into \p output (out-of-place plans).
     *
     * \param batch transforms to compute, 1..options().batch; 0 means options().batch
     * \throws std::invalid_argument when a buffer is too small for the layout
     *         and batch, or batch is out of range
     */
    cl::Event enqueue(const cl::CommandQueue& queue,
                      const cl::Buffer& input,
                      const cl::Buffer& output,
                      const std::vector<cl::Event>& wait = {},
                      size_t batch = 0) const;

    /*!
     * \brief As enqueue(queue, input, output, ...), with the input and output
     * layouts moved by \p input_offset and \p output_offset complex elements
     * for this call: transforms that sit at a different place of a larger
     * buffer each time (a stream's ring buffer) need no copy or sub-buffer.
     */
    cl::Event enqueue_at(const cl::CommandQueue& queue,
                         const cl::Buffer& input,
                         size_t input_offset,
                         const cl::Buffer& output,
                         size_t output_offset,
                         const std::vector<cl::Event>& wait = {},
                         size_t batch = 0) const;

    //! Transforms \p data in place (plans made with in_place).
    cl::Event enqueue(const cl::CommandQueue& queue,
                      const cl::Buffer& data,
                      const std::vector<cl::Event>& wait = {},
                      size_t batch = 0) const;

    size_t size() const { return d_size; }
    const fft_options& options() const { return d_options; }
    device_context::sptr context() const { return d_context; }

    //! Elements (complex) the input and output buffers need for \p batch transforms.
    size_t input_elements(size_t batch) const;
    size_t output_elements(size_t batch) const;

    //! Kernel launches per execution.
    size_t launches() const;
    //! One line about how the plan computes, e.g. "N=4096: 1 pass [16x16x16] ...".
    std::string describe() const;

private:
    cl::Event run(const cl::CommandQueue& queue,
                  const cl::Buffer& input,
                  size_t input_offset,
                  const cl::Buffer& output,
                  size_t output_offset,
                  const std::vector<cl::Event>& wait,
                  size_t batch) const;

    device_context::sptr d_context;
    size_t d_size;
    fft_options d_options;
    std::unique_ptr<fft_program> d_program;
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_FFT_PLAN_H */
