/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_PFB_SYNTHESIZER_CCF_H
#define INCLUDED_WIDEBAND_PFB_SYNTHESIZER_CCF_H

#include <gnuradio/block.h>
#include <gnuradio/wideband/api.h>

#include <string>
#include <vector>

namespace gr {
namespace wideband {

/*!
 * \brief Polyphase filterbank synthesizer on an OpenCL device, a drop-in for
 * gnuradio.filter.pfb_synthesizer_ccf: channels in, one wideband stream out.
 * \ingroup wideband
 *
 * \details
 * For each frame n (item n of every input) the inputs go to the bins of an
 * unnormalised inverse FFT of P = numchans points (2 numchans with twox):
 * input i to bin channel_map[i], the other bins zero. Output i of the frame,
 * item n numchans + i, is branch filter i over the transforms y:
 *
 *   out[n M + i] = sum_{j<K} taps[i + j M] * y_{n-j}[o_n + i],
 *
 * M = numchans, K = ceil(ntaps / M), y_{n<0} = 0, o_n = 0 without twox and
 * with twox M for even n, 0 for odd n (the in-tree block's 2M half-filters
 * with alternating inputs): for the same taps, map and inputs it equals the
 * in-tree block's output to float precision.
 *
 * Inputs: 1 to P streams (frame n is their item n; they are interleaved on
 * the host), or with vector_input one stream of P-item vectors, element i of
 * vector n being input i of frame n (no host interleaving, and the input can
 * be a device-resident edge, e.g. pfb_channelizer_ccf's vector output). The
 * in-tree block takes up to numchans inputs, which with twox fill half the
 * bins; P = 2 numchans inputs fill them all, as the M channels of a channelizer
 * oversampled by 2 need for reconstruction (numchans = M/2, twox). Inputs past
 * the channel map's length are unused. The output is M items per input item, tags
 * at input item k going to output item k M (a sync interpolator's).
 *
 * The block works on large chunks of the stream (transfers and kernels of
 * consecutive calls overlap), so its output lags its input by up to two
 * chunks; no sample is lost at the end of a stream.
 */
class WIDEBAND_API pfb_synthesizer_ccf : virtual public gr::block
{
public:
    typedef std::shared_ptr<pfb_synthesizer_ccf> sptr;

    /*!
     * \param numchans channels M, >= 1 (even with twox); the block interpolates
     *        by M
     * \param taps prototype low-pass filter (real, designed at the output
     *        rate), not empty, finite
     * \param twox a 2M-point inverse FFT (channels spaced at twice their
     *        sample rate, for oversampled channelizer output)
     * \param device OpenCL device: "" (automatic: the first GPU, else
     *        accelerator, else CPU; the environment variable WIDEBAND_DEVICE
     *        replaces ""), "gpu", "cpu", "accelerator", "P:D" (platform and
     *        device index, see list_devices()), part of a device name, or
     *        several devices as the other blocks take them
     * \param vector_input one input of P-item vectors (numchans, or 2 numchans
     *        with twox) instead of streams
     * \throws std::invalid_argument for numchans < 1, twox with an odd
     *         numchans, empty or non-finite taps, a bad device string or
     *         WIDEBAND_* variable, or sizes beyond the device
     *
     * Python: the in-tree block's arguments and defaults, then device and
     * vector_input; a negative numchans raises TypeError, as there.
     */
    static sptr make(unsigned int numchans,
                     const std::vector<float>& taps,
                     bool twox = false,
                     const std::string& device = "",
                     bool vector_input = false);

    /*!
     * \brief New prototype taps, applied from the next chunk the block computes
     * on. The frames kept for the filters carry over (the in-tree block
     * restarts its branch filters from zero).
     */
    virtual void set_taps(const std::vector<float>& taps) = 0;
    /*!
     * \brief The branch filters as the in-tree block gives them: M of K taps,
     * filter i holding taps i, i + M, ...; with twox 2M, filter i holding the
     * odd-indexed of those (zeros between) and filter M + i the even-indexed.
     */
    virtual std::vector<std::vector<float>> taps() const = 0;
    //! Prints taps() to standard output, as the in-tree block does.
    virtual void print_taps() = 0;
    /*!
     * \brief Input i goes to bin map[i], each in [0, P); empty leaves the map
     * as it is (as in the in-tree block). Applied from the next chunk on, to
     * the frames kept for the filters too.
     */
    virtual void set_channel_map(const std::vector<int>& map) = 0;
    //! The channel map (initially 0 .. P-1).
    virtual std::vector<int> channel_map() const = 0;
    //! Name of the OpenCL device(s) the block runs on.
    virtual std::string device_name() const = 0;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_PFB_SYNTHESIZER_CCF_H */
