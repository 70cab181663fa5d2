/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_DCT_VFF_H
#define INCLUDED_WIDEBAND_DCT_VFF_H

#include <gnuradio/block.h>
#include <gnuradio/wideband/api.h>

#include <string>

namespace gr {
namespace wideband {

/*!
 * \brief The discrete cosine transform of vectors on an OpenCL device: types
 * II, III and IV, as scipy.fft.dct names them.
 * \ingroup wideband
 *
 * Input: a stream of vectors of \p size floats; output: their transforms,
 * vectors of \p size floats, equal to scipy.fft.dct(x, type, norm=norm) to
 * float precision:
 *  - type 2: y_k = 2 sum_n x_n cos(pi k (2n+1) / (2N));
 *  - type 3 (the inverse of type 2): y_k = x_0 + 2 sum_{n>=1} x_n cos(pi n (2k+1) /
 * (2N));
 *  - type 4 (its own inverse): y_k = 2 sum_n x_n cos(pi (2n+1)(2k+1) / (4N)).
 * norm "ortho" makes each an orthonormal matrix (type 2 scales y_0 by
 * sqrt(1/(4N)) and the others by sqrt(1/(2N)), type 3 is its transpose, type
 * 4 scales by sqrt(1/(2N))), so that type 3 undoes type 2 and type 4 undoes
 * itself exactly; "backward" (scipy's norm=None) leaves the sums as written,
 * so that scipy.fft.idct(y, type=2) is the type 3 output divided by 2N.
 *
 * Vectors go to the device in chunks, each one batched transform: a complex
 * FFT of size/2 points (even sizes; size points, or 2 size for type 4, when
 * odd) with the cosine transform's reordering and twiddles fused into its
 * loads and stores, so that each float is read and written once. Any size;
 * sizes with a prime factor above 31 go through Rader's or Bluestein's
 * algorithm.
 */
class WIDEBAND_API dct_vff : virtual public gr::block
{
public:
    typedef std::shared_ptr<dct_vff> sptr;

    /*!
     * \param size points per vector, >= 1
     * \param type 2, 3 or 4
     * \param norm "ortho" (orthonormal) or "backward" (scipy's norm=None:
     *        unnormalised)
     * \param device OpenCL device: "" (automatic: the first GPU, else
     *        accelerator, else CPU; the environment variable WIDEBAND_DEVICE
     *        replaces ""), "gpu", "cpu", "accelerator", "P:D" (platform and
     *        device index, see list_devices() or the wideband_devices program)
     *        or part of a device name
     *
     * \throws std::invalid_argument for size < 1, a type other than 2, 3 or 4,
     *         another norm, a device string that is malformed or matches no
     *         device, or a bad WIDEBAND_* environment variable
     * \throws std::runtime_error when the machine has no OpenCL platform
     */
    static sptr make(int size,
                     int type = 2,
                     const std::string& norm = "ortho",
                     const std::string& device = "");

    //! Points per vector.
    virtual int size() const = 0;
    //! 2, 3 or 4.
    virtual int type() const = 0;
    //! "ortho" or "backward".
    virtual std::string norm() const = 0;

    //! Name of the OpenCL device the block runs on.
    virtual std::string device_name() const = 0;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_DCT_VFF_H */
