/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_FFT_FILTER_H
#define INCLUDED_WIDEBAND_CORE_FFT_FILTER_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/sample_format.h>
#include <gnuradio/wideband/core/stream_engine.h>

#include <complex>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

struct WIDEBAND_CORE_API fft_filter_options {
    //! Filter taps h (real filters: imaginary parts zero), at least one.
    std::vector<std::complex<float>> taps;
    size_t decimation = 1; //!< D >= 1
    //! FFT length (no prime factor above 31, >= taps + D - 1); 0: chosen for speed.
    size_t fft_size = 0;
    //! Input samples one call may bring (0: about 2^20).
    size_t max_input_samples = 0;
    //! The input samples: complex float, or integers taken as their values,
    //! converted as the first kernel reads them.
    sample_format input_format = sample_format::fc32;
    //! Write the real parts of the outputs only, as floats: a real filter
    //! (real taps) of real input (input_format f32), GNU Radio's fft_filter_fff;
    //! two blocks then share each complex transform.
    bool real_output = false;
};

/*!
 * \brief Streaming FIR filter by fast convolution (overlap-save) on one OpenCL
 * device, with optional decimation:
 *
 *   y[m] = sum_k h[k] * x[m*D - k],   x[n < 0] = 0,
 *
 * GNU Radio's fft_filter_ccc/ccf output (zero initial state, no delay
 * compensation). After n input samples in all, floor(n / D) outputs exist, and
 * each call returns those it completes.
 *
 * Each call runs the blocks of its samples as one batched forward FFT, multiply
 * by the taps' spectrum and inverse FFT, keeping only every D-th of the valid
 * outputs (the wrapped and decimated-away ones are never written): one kernel
 * launch when the FFT fits on chip. The taps' spectrum is computed on the device
 * once per set_taps(); the last K - 1 samples and any samples short of an output
 * are kept on the device between calls, so any split of the stream into calls
 * gives the same output.
 *
 * Use as pfb_channelizer: write new samples at input_region() (two input regions
 * alternate), then enqueue(). Not thread-safe.
 */
class WIDEBAND_CORE_API fft_filter : public splittable_engine
{
public:
    /*!
     * \throws std::invalid_argument for empty or non-finite taps, decimation 0, or
     *         an fft_size that is not >= taps + D - 1 with prime factors <= 31
     */
    fft_filter(device_context::sptr context, const fft_filter_options& options);
    ~fft_filter() override;

    fft_filter(const fft_filter&) = delete;
    fft_filter& operator=(const fft_filter&) = delete;

    size_t decimation() const;
    size_t fft_size() const;
    sample_format input_format() const;
    //! Whether the outputs are the real parts only, as floats.
    bool real_output() const;
    //! New samples per FFT block (a multiple of D).
    size_t block_step() const;
    const std::vector<std::complex<float>>& taps() const;
    //! Outputs an enqueue() of \p samples new samples completes.
    size_t outputs_for(size_t samples) const;
    /*!
     * Elements the output buffer of such a call must hold: the outputs rounded
     * up to whole FFT blocks (block_step() / D outputs each). The elements past
     * the outputs are scratch.
     */
    size_t output_elements_for(size_t samples) const;
    std::string describe() const;

    struct result {
        size_t outputs;
        cl::Event done;
    };
    /*!
     * Filters \p samples samples from input_region() into \p output[0..outputs)
     * (\p output holds at least output_elements_for(samples) elements).
     */
    result enqueue(const cl::CommandQueue& queue,
                   size_t samples,
                   const cl::Buffer& output,
                   const std::vector<cl::Event>& wait = {});

    /*!
     * New taps from the next enqueue() on (the same fft_size while it holds
     * them with a block step of at least half of it, otherwise the one a new
     * filter would choose); the history is kept, and when
     * the taps grow, samples older than it held are taken as zero. If it
     * throws, the filter is unchanged.
     */
    void set_taps(const std::vector<std::complex<float>>& taps);
    //! Back to zero history, from the next enqueue() on.
    void reset();

    // stream_engine: one output per D samples.
    stream_ratio step() const override { return { decimation(), 1 }; }
    size_t input_sample_bytes() const override { return sample_bytes(input_format()); }
    size_t output_element_bytes() const override { return real_output() ? 4 : 8; }
    region input_region() const override;
    size_t max_input_samples() const override;
    size_t max_output_elements() const override;
    size_t input_regions() const override { return 2; }
    size_t run(const cl::CommandQueue& queue,
               size_t samples,
               const cl::Buffer& output,
               const std::vector<cl::Event>& wait,
               cl::Event& done) override;

    //! In place, the steps are whole FFT blocks (block_step() samples).
    bool runs_in_place() const override;
    size_t in_place_output_step() const override { return block_step() / decimation(); }
    in_place_result run_in_place(const cl::CommandQueue& queue,
                                 const span& input,
                                 const span& output,
                                 const std::vector<cl::Event>& wait) override;

    // splittable_engine: the history is taps - 1 samples.
    size_t history_samples() const override;
    size_t continue_at(uint64_t position) override;

    /*!
     * \brief What the constructor checks, without a device context: the
     * options, and that the filter's buffers fit \p device.
     *
     * \throws std::invalid_argument as the constructor
     */
    static void check(const device_info& device, const fft_filter_options& options);

    /*!
     * \brief The FFT length the filter picks for \p taps taps and decimation
     * \p decimation on \p device: the cost per output (blocks' overlap, passes)
     * over the lengths with prime factors <= 31.
     */
    static size_t
    choose_fft_size(const device_info& device, size_t taps, size_t decimation);

private:
    class impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_FFT_FILTER_H */
