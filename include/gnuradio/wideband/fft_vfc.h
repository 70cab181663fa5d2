/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_FFT_VFC_H
#define INCLUDED_WIDEBAND_FFT_VFC_H

#include <gnuradio/block.h>
#include <gnuradio/wideband/api.h>

#include <string>
#include <vector>

namespace gr {
namespace wideband {

/*!
 * \brief Forward or inverse FFT of real vectors on an OpenCL device: a drop-in
 * for gr::fft::fft_vfc (gnuradio.fft.fft_vfc).
 * \ingroup wideband
 *
 * Input: a stream of vectors of \p fft_size floats; output: their transforms,
 * vectors of \p fft_size complex values (all of them, not only the first
 * fft_size/2 + 1), as the in-tree block writes them, to float precision:
 * unnormalised, the window multiplied into the input before the transform;
 * \p shift as fft_vcc's: a forward transform writes its output fft-shifted (DC
 * in the middle), an inverse one reads its input ifft-shifted
 * (numpy.fft.ifftshift), after the window. (GNU Radio 3.10.5's fft_vfc shifts
 * an odd-sized inverse input wrongly, reading input fft_size/2 twice; this
 * block follows fft_vcc and numpy there.)
 *
 * The real samples are read by the transform's first pass as complex values
 * of imaginary part zero; each batch of vectors is one transform launch as in
 * fft_vcc.
 */
class WIDEBAND_API fft_vfc : virtual public gr::block
{
public:
    typedef std::shared_ptr<fft_vfc> sptr;

    /*!
     * \param fft_size points per vector, >= 1 (any length, as fft_vcc)
     * \param forward true: forward transform; false: inverse (unnormalised)
     * \param window empty, or fft_size real factors applied to the input
     * \param shift forward: fft-shift the output; inverse: ifft-shift the input
     * \param nthreads ignored: there for the in-tree block's positional form
     * \param device OpenCL device, as for fft_vcc ("" automatic, "gpu", "cpu",
     *        "P:D", part of a name, or several devices such as "gpu:all")
     *
     * \throws std::invalid_argument for fft_size < 1, a window of the wrong
     *         length, a device string that is malformed or matches no device, or
     *         a bad WIDEBAND_* environment variable
     * \throws std::runtime_error when the machine has no OpenCL platform
     *
     * Python: also fft_vfc(fft_size, forward, window, shift, device), the device
     * fifth.
     */
    static sptr make(int fft_size,
                     bool forward,
                     const std::vector<float>& window,
                     bool shift = false,
                     int nthreads = 1,
                     const std::string& device = "");

    /*!
     * \brief Replaces the window; takes effect from the next batch of vectors.
     *
     * Like gr::fft::fft_vfc, returns false (and keeps the current window) when
     * \p window is neither empty nor fft_size long.
     */
    virtual bool set_window(const std::vector<float>& window) = 0;

    //! The window in use (empty: none).
    virtual std::vector<float> window() const = 0;

    //! Name of the OpenCL device the block runs on.
    virtual std::string device_name() const = 0;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_FFT_VFC_H */
