/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_FFT_FILTER_FFF_H
#define INCLUDED_WIDEBAND_FFT_FILTER_FFF_H

#include <gnuradio/block.h>
#include <gnuradio/wideband/api.h>

#include <string>
#include <vector>

namespace gr {
namespace wideband {

/*!
 * \brief Real FIR filter by fast convolution on an OpenCL device, a drop-in for
 * gnuradio.filter.fft_filter_fff.
 * \ingroup wideband
 *
 * \details
 * Real input, real taps, real output, decimated by D:
 *
 *   y[m] = sum_k taps[k] x[m D - k],   x[n < 0] = 0,
 *
 * the in-tree block's output to float precision, from its first sample (no
 * delay compensation, as in-tree). The engine is fft_filter_ccc/ccf's: the
 * first FFT pass reads the floats as complex samples of imaginary part zero,
 * and the last one writes the real parts as floats, so the stream moves 4
 * bytes per sample each way. After N input samples floor(N / D) outputs come
 * out; the in-tree block drops up to one of its FFT blocks at the end of a
 * stream. Chunks, latency, tags and several devices as fft_filter_ccc.
 */
class WIDEBAND_API fft_filter_fff : virtual public gr::block
{
public:
    typedef std::shared_ptr<fft_filter_fff> sptr;

    /*!
     * \param decimation D >= 1
     * \param taps filter taps, at least one, finite
     * \param nthreads ignored: there for the in-tree block's positional form
     * \param device OpenCL device: "" (automatic: the first GPU, else
     *        accelerator, else CPU; the environment variable WIDEBAND_DEVICE
     *        replaces ""), "gpu", "cpu", "accelerator", "P:D" (platform and
     *        device index, see list_devices()), part of a device name, or
     *        several devices ("gpu:all")
     * \throws std::invalid_argument for decimation < 1, empty or non-finite taps,
     *         a bad device string or a bad WIDEBAND_* environment variable
     *
     * Python: also fft_filter_fff(decimation, taps, device), the device third.
     */
    static sptr make(int decimation,
                     const std::vector<float>& taps,
                     int nthreads = 1,
                     const std::string& device = "");

    //! New taps, applied from the next chunk the block computes on (no sample lost).
    virtual void set_taps(const std::vector<float>& taps) = 0;
    //! The taps in use (the last set_taps()).
    virtual std::vector<float> taps() const = 0;
    //! The decimation D: one output sample per D input samples.
    virtual int decimation() const = 0;
    //! FFT length the filter uses for its taps.
    virtual int fft_size() const = 0;
    //! Name of the OpenCL device the block runs on.
    virtual std::string device_name() const = 0;
    //! Input samples the output may lag behind (pipeline depth times chunk size).
    virtual unsigned int latency() const = 0;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_FFT_FILTER_FFF_H */
