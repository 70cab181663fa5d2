/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_FREQ_XLATING_FFT_FILTER_CCC_H
#define INCLUDED_WIDEBAND_FREQ_XLATING_FFT_FILTER_CCC_H

#include <gnuradio/block.h>
#include <gnuradio/gr_complex.h>
#include <gnuradio/wideband/api.h>

#include <string>
#include <vector>

namespace gr {
namespace wideband {

/*!
 * \brief Frequency translation, FIR filter and decimation by fast convolution
 * on an OpenCL device: a drop-in for gnuradio.filter.freq_xlating_fft_filter_ccc
 * whose output is that of gnuradio.filter.freq_xlating_fir_filter_ccc.
 * \ingroup wideband
 *
 * \details
 * With centre f, sample rate fs, w = 2 pi f / fs, taps p[0..N) and
 * decimation D, output n is
 *
 *   y[n] = phi * e^{-j w D n} * sum_k p[k] e^{j w k} x[n*D - k],   x[m < 0] = 0,
 *
 * the input shifted down by f, low-pass filtered by p and decimated: the
 * definition of freq_xlating_fir_filter_ccc, evaluated in double precision
 * where the in-tree block drifts in float. phi is the in-tree block's start
 * phase, e^{-j w (N - 1) / 2}, and a retune (set_center_freq(), the "freq"
 * message, set_taps()) from output r on multiplies the rotation's phase at r
 * by e^{-j (w' - w) (N' - 1) / 2} (w', N': the new centre and tap count), as
 * that block does so that a linear-phase filter's output stays continuous.
 * A retune applies from the first chunk the block computes after it; a
 * "freq" tag (the new centre, a double) marks its first output.
 *
 * The filter runs as core::fft_filter on the taps p[k] e^{j w k} (computed in
 * double precision), its decimated outputs rotated on the device; chunks are
 * pipelined like fft_filter_ccc's, and with device-resident neighbours the
 * block reads and writes their buffers in place. Tags on input sample k appear
 * on output item floor(k/D).
 */
class WIDEBAND_API freq_xlating_fft_filter_ccc : virtual public gr::block
{
public:
    typedef std::shared_ptr<freq_xlating_fft_filter_ccc> sptr;

    /*!
     * \param decimation D >= 1
     * \param taps filter taps (complex; a real list works too), at least one, finite
     * \param center_freq the frequency shifted to 0 Hz, |f| <= sampling_freq / 2
     * \param sampling_freq the input sample rate, > 0
     * \param device OpenCL device, as for fft_filter_ccc ("" automatic, "gpu",
     *        "cpu", "P:D", or part of a device name)
     * \throws std::invalid_argument for decimation < 1, empty or non-finite
     *         taps, a non-finite or out-of-range centre or rate, a bad device
     */
    static sptr make(int decimation,
                     const std::vector<gr_complex>& taps,
                     double center_freq,
                     double sampling_freq,
                     const std::string& device = "");

    //! A new centre frequency, applied from the next chunk (a "freq" tag marks it).
    virtual void set_center_freq(double center_freq) = 0;
    //! The centre frequency (the last set_center_freq()).
    virtual double center_freq() const = 0;
    /*!
     * New taps, applied from the next chunk (the filter history carries over;
     * when the taps grow, input older than the previous taps reached counts as
     * zero in the first outputs after the change, as in fft_filter_ccc).
     */
    virtual void set_taps(const std::vector<gr_complex>& taps) = 0;
    //! The taps (the last set_taps()), before the translation.
    virtual std::vector<gr_complex> taps() const = 0;
    //! Ignored: there for the in-tree block's interface.
    virtual void set_nthreads(int nthreads) = 0;
    //! 1: the device does the work.
    virtual int nthreads() const = 0;
    //! The decimation D.
    virtual int decimation() const = 0;
    //! The input sample rate.
    virtual double sampling_freq() const = 0;
    //! FFT length the filter uses for its taps.
    virtual int fft_size() const = 0;
    //! Name of the OpenCL device the block runs on.
    virtual std::string device_name() const = 0;
    //! Input samples the output may lag behind (pipeline depth times chunk size).
    virtual unsigned int latency() const = 0;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_FREQ_XLATING_FFT_FILTER_CCC_H */
