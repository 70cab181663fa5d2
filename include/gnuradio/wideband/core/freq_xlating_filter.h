/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_FREQ_XLATING_FILTER_H
#define INCLUDED_WIDEBAND_CORE_FREQ_XLATING_FILTER_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/stream_engine.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

struct WIDEBAND_CORE_API freq_xlating_filter_options {
    //! Prototype (low-pass) taps p, at least one, finite.
    std::vector<std::complex<float>> taps;
    size_t decimation = 1;      //!< D >= 1
    double center_freq = 0.0;   //!< f, |f| <= sampling_freq / 2
    double sampling_freq = 1.0; //!< fs > 0
    //! FFT length (0: chosen for speed), as fft_filter_options::fft_size.
    size_t fft_size = 0;
    //! Input samples one call may bring (0: about 2^20).
    size_t max_input_samples = 0;
};

/*!
 * \brief Streaming frequency translation, FIR filter and decimation, GNU
 * Radio's freq_xlating_fir_filter_ccc evaluated exactly: with nu = f / fs,
 * w = 2 pi nu and N taps,
 *
 *   y[n] = A * e^{-j w D (n - r)} * sum_k p[k] e^{j w k} x[n*D - k],   x[m < 0] = 0,
 *
 * where the segment's reference output r and phase A start at r = 0,
 * A = e^{-j w (N - 1) / 2} (the in-tree block's start phase), and a retune to
 * w', N' from output r' on sets A' = (the rotation at r') * e^{-j (w' - w)
 * (N' - 1) / 2} and r' (the in-tree block's phase step, which keeps a
 * linear-phase filter's output continuous).
 *
 * An fft_filter on the modulated taps p[k] e^{j w k}, and a rotation of its
 * outputs on the device. All phases are computed in double precision from
 * exact integer sample counts, so they do not drift however long the stream
 * runs (the in-tree block accumulates them in float).
 */
class WIDEBAND_CORE_API freq_xlating_filter : public splittable_engine
{
public:
    /*!
     * \throws std::invalid_argument for empty or non-finite taps, decimation 0,
     *         a non-finite or non-positive sampling_freq, a centre beyond
     *         sampling_freq / 2, or an fft_size fft_filter refuses
     */
    freq_xlating_filter(device_context::sptr context,
                        const freq_xlating_filter_options& options);
    ~freq_xlating_filter() override;

    freq_xlating_filter(const freq_xlating_filter&) = delete;
    freq_xlating_filter& operator=(const freq_xlating_filter&) = delete;

    //! What the constructor checks, without a device context.
    static void check(const device_info& device,
                      const freq_xlating_filter_options& options);
    //! The checks of a retune's centre and taps; messages start with \p owner.
    static void check_retune(double center_freq,
                             double sampling_freq,
                             const std::vector<std::complex<float>>& taps,
                             const std::string& owner = "freq_xlating_filter");

    /*!
     * \brief New centre and taps from output \p at_output of the stream on:
     * the first output of the next call (after n input samples in all, that
     * is floor(n / D)). Every engine of a split stream gets the same retunes.
     * If it throws, the filter is unchanged.
     */
    void retune(double center_freq,
                const std::vector<std::complex<float>>& taps,
                uint64_t at_output);

    double center_freq() const;
    size_t decimation() const;
    size_t fft_size() const;
    std::string describe() const;

    // stream_engine: one output per D samples.
    stream_ratio step() const override { return { decimation(), 1 }; }
    region input_region() const override;
    size_t max_input_samples() const override;
    size_t max_output_elements() const override;
    size_t input_regions() const override;
    size_t run(const cl::CommandQueue& queue,
               size_t samples,
               const cl::Buffer& output,
               const std::vector<cl::Event>& wait,
               cl::Event& done) override;
    bool runs_in_place() const override { return true; }
    size_t in_place_output_step() const override;
    in_place_result run_in_place(const cl::CommandQueue& queue,
                                 const span& input,
                                 const span& output,
                                 const std::vector<cl::Event>& wait) override;

    // splittable_engine
    size_t history_samples() const override;
    size_t continue_at(uint64_t position) override;

private:
    class impl;
    std::unique_ptr<impl> d_impl;
};

/*!
 * \brief The fractional part of \p rate * \p count in [0, 1), exact to double
 * precision for any 64-bit count (a plain product loses the fraction once it
 * exceeds 2^53 / rate): a phase in cycles after \p count samples.
 */
WIDEBAND_CORE_API double cycles_after(double rate, uint64_t count);

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_FREQ_XLATING_FILTER_H */
