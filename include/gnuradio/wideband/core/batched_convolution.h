/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_BATCHED_CONVOLUTION_H
#define INCLUDED_WIDEBAND_CORE_BATCHED_CONVOLUTION_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/device.h>

#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

struct WIDEBAND_CORE_API batched_convolution_options {
    size_t signal_length = 0;   //!< L >= 1
    size_t filter_length = 0;   //!< S >= 1
    size_t max_pairs = 1;       //!< pairs one enqueue() may bring
    bool shared_filter = false; //!< one filter for every signal
    //! FFT length >= L + S - 1 with no prime factor above 31; 0: the smallest 7-smooth
    //! one.
    size_t fft_size = 0;
};

/*!
 * \brief Many linear convolutions at once: pair p's signal (L points) with its
 * filter (S points, or one filter shared by all) gives L + S - 1 points,
 *
 *   y_p[n] = sum_k f_p[k] * s_p[n - k],   0 <= n < L + S - 1.
 *
 * By FFT on the device: the filters' spectra (one batched FFT, zero padding fused
 * into its loads), then one batched convolution (forward FFT of the signals,
 * multiply, inverse FFT, the first L + S - 1 points written), one kernel launch
 * each when the FFT fits on chip. Every pair is computed by the same kernels
 * whatever its place in the batch, so results are bit-for-bit independent of
 * how a set of pairs is split into calls.
 *
 * Buffers: signals p*L + n, filters p*S + k (or k), outputs p*(L+S-1) + n,
 * complex float32.
 */
class WIDEBAND_CORE_API batched_convolution
{
public:
    batched_convolution(device_context::sptr context,
                        const batched_convolution_options& options);
    ~batched_convolution();

    batched_convolution(const batched_convolution&) = delete;
    batched_convolution& operator=(const batched_convolution&) = delete;

    //! Convolves \p pairs pairs (1..max_pairs).
    cl::Event enqueue(const cl::CommandQueue& queue,
                      const cl::Buffer& signals,
                      const cl::Buffer& filters,
                      const cl::Buffer& outputs,
                      size_t pairs,
                      const std::vector<cl::Event>& wait = {}) const;

    size_t fft_size() const;
    size_t output_length() const; //!< L + S - 1
    //! The FFT length of options.fft_size = 0: the smallest 7-smooth n >= L + S - 1.
    static size_t default_fft_size(size_t signal_length, size_t filter_length);
    std::string describe() const;

private:
    class impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_BATCHED_CONVOLUTION_H */
