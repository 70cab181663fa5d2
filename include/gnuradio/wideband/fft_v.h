/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_FFT_V_H
#define INCLUDED_WIDEBAND_FFT_V_H

#include <gnuradio/block.h>
#include <gnuradio/gr_complex.h>
#include <gnuradio/wideband/api.h>

#include <string>
#include <vector>

namespace gr {
namespace wideband {

/*!
 * \brief Forward or inverse FFT of vectors on an OpenCL device: fft_vcc
 * (complex vectors, T = gr_complex) and fft_vfc (real vectors, T = float),
 * drop-ins for gr::fft::fft_vcc and fft_vfc (gnuradio.fft.fft_vcc, fft_vfc).
 * \ingroup wideband
 *
 * Input: a stream of vectors of \p fft_size values (complex for fft_vcc, float
 * for fft_vfc); output: their transforms, vectors of \p fft_size complex
 * values (all of them for fft_vfc too), the same as the in-tree block's to
 * float precision: unnormalised (an inverse after a forward transform scales
 * by fft_size), the window multiplied into the input before the transform,
 * and \p shift as in the in-tree block: a forward transform writes its output
 * fft-shifted (DC in the middle); an inverse transform reads its input
 * ifft-shifted (numpy.fft.ifftshift), after the window. (GNU Radio 3.10.5's
 * fft_vfc shifts an odd-sized inverse input wrongly, reading input
 * fft_size/2 twice; fft_vfc here follows fft_vcc and numpy.)
 *
 * Vectors go to the device in chunks, each one batched transform with the
 * window fused into its first pass; fft_vfc's first pass reads the floats as
 * complex points of imaginary part zero.
 */
template <class T>
class WIDEBAND_API fft_v : virtual public gr::block
{
public:
    typedef std::shared_ptr<fft_v<T>> sptr;

    /*!
     * \param fft_size points per vector, >= 1 (any length; sizes with a prime
     *        factor above 31 go through Rader or Bluestein's algorithm)
     * \param forward true: forward transform; false: inverse (unnormalised)
     * \param window empty, or fft_size real factors applied to the input
     * \param shift forward: fft-shift the output; inverse: ifft-shift the input
     * \param nthreads ignored: there for the in-tree block's positional form
     * \param device OpenCL device: "" (automatic: the first GPU, else
     *        accelerator, else CPU; the environment variable WIDEBAND_DEVICE
     *        replaces ""), "gpu", "cpu", "accelerator", "P:D" (platform and
     *        device index, see list_devices() or the wideband_devices program)
     *        or part of a device name
     *
     * \throws std::invalid_argument for fft_size < 1, a window of the wrong
     *         length, a device string that is malformed or matches no device, or
     *         a bad WIDEBAND_* environment variable
     * \throws std::runtime_error when the machine has no OpenCL platform
     *
     * Python: also fft_vcc(fft_size, forward, window, shift, device), the device
     * fifth (and so fft_vfc).
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
     * Like gr::fft::fft_vcc and fft_vfc, returns false (and keeps the current window)
     * when \p window is neither empty nor fft_size long.
     */
    virtual bool set_window(const std::vector<float>& window) = 0;

    //! The window in use (empty: none).
    virtual std::vector<float> window() const = 0;

    //! Name of the OpenCL device the block runs on.
    virtual std::string device_name() const = 0;
};

typedef fft_v<gr_complex> fft_vcc;
typedef fft_v<float> fft_vfc;

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_FFT_V_H */
