/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_FFT_FILTER_H
#define INCLUDED_WIDEBAND_FFT_FILTER_H

#include <gnuradio/block.h>
#include <gnuradio/gr_complex.h>
#include <gnuradio/wideband/api.h>

#include <string>
#include <vector>

namespace gr {
namespace wideband {

/*!
 * \brief FIR filter by fast convolution on an OpenCL device: fft_filter_ccc
 * (complex taps) and fft_filter_ccf (real taps), drop-ins for
 * gnuradio.filter.fft_filter_ccc / fft_filter_ccf.
 * \ingroup wideband
 *
 * \details
 * Complex input (float, or int16 or int8 by input_type), complex output,
 * decimated by D:
 *
 *   y[m] = sum_k h[k] * x[m*D - k],   x[n < 0] = 0,
 *
 * the in-tree blocks' output (zero initial state, no delay compensation: the
 * filter's group delay, (ntaps-1)/2 input samples for a linear-phase filter,
 * stays in the output). Tags on input sample k appear on output item floor(k/D).
 *
 * Overlap-save on the device: each chunk of the stream (about 2^19 samples) is
 * one batched forward FFT, multiply by the taps' spectrum and inverse FFT (one
 * kernel when the FFT fits on chip), keeping only every D-th valid output;
 * transfers and kernels of consecutive calls overlap, so the output lags the
 * input by up to two chunks (latency()); the end of a stream is flushed.
 */
template <class TAP_T>
class WIDEBAND_API fft_filter : virtual public gr::block
{
public:
    typedef std::shared_ptr<fft_filter<TAP_T>> sptr;

    /*!
     * \param decimation D >= 1
     * \param taps filter taps, at least one, finite
     * \param nthreads ignored: there for the in-tree block's positional form
     * \param device OpenCL device: "" (automatic: the first GPU, else
     *        accelerator, else CPU; the environment variable WIDEBAND_DEVICE
     *        replaces ""), "gpu", "cpu", "accelerator", "P:D" (platform and
     *        device index, see list_devices()) or part of a device name
     * \param input_type the input's samples: "fc32" (complex float, 8 bytes),
     *        "sc16" (complex int16, 4 bytes) or "sc8" (complex int8, 2 bytes),
     *        as SDR front ends deliver them; the integers are taken as their
     *        values (as interleaved_short_to_complex and
     *        interleaved_char_to_complex do by default), converted on the
     *        device, so fewer bytes cross PCIe
     * \throws std::invalid_argument for decimation < 1, empty or non-finite taps,
     *         a bad input_type, a bad device string or a bad WIDEBAND_*
     *         environment variable
     *
     * Python: also fft_filter_ccf(decimation, taps, device, input_type="fc32"),
     * the device third.
     */
    static sptr make(int decimation,
                     const std::vector<TAP_T>& taps,
                     int nthreads = 1,
                     const std::string& device = "",
                     const std::string& input_type = "fc32");

    //! New taps, applied from the next chunk the block computes on (no sample lost).
    virtual void set_taps(const std::vector<TAP_T>& taps) = 0;
    //! The taps in use (the last set_taps()).
    virtual std::vector<TAP_T> taps() const = 0;
    //! The decimation D: one output sample per D input samples.
    virtual int decimation() const = 0;
    //! FFT length the filter uses for its taps.
    virtual int fft_size() const = 0;
    //! Name of the OpenCL device the block runs on.
    virtual std::string device_name() const = 0;
    //! Input samples the output may lag behind (pipeline depth times chunk size).
    virtual unsigned int latency() const = 0;
};

typedef fft_filter<gr_complex> fft_filter_ccc;
typedef fft_filter<float> fft_filter_ccf;

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_FFT_FILTER_H */
