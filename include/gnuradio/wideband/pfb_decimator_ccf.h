/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_PFB_DECIMATOR_CCF_H
#define INCLUDED_WIDEBAND_PFB_DECIMATOR_CCF_H

#include <gnuradio/block.h>
#include <gnuradio/wideband/api.h>

#include <string>
#include <vector>

namespace gr {
namespace wideband {

/*!
 * \brief Polyphase filterbank band-pass decimator on an OpenCL device, a drop-in
 * for gnuradio.filter.pfb_decimator_ccf.
 * \ingroup wideband
 *
 * \details
 * Decimates a complex stream by decim and brings one of the decim channels (the
 * Nyquist zones of the output rate) to baseband: the polyphase channelizer of
 * pfb_channelizer_ccf with decim channels and only \p channel computed. Channel
 * c is centred on +c/decim cycles per input sample (0 = DC, 1..decim/2
 * positive, then negative), and output q is
 *
 *   y[q] = sum_n h[n] x[(q+1) decim - 1 - n] exp(2 pi i c n / decim)
 *
 * with x[k < 0] = 0: for the same taps and input it equals the in-tree block's
 * output to float precision, from the same first sample (after the first decim
 * input samples); the filter's delay is (ntaps-1)/2 input samples.
 *
 * Inputs: one (the stream itself), or decim (the stream split by
 * stream_to_streams, as the in-tree block takes it: input i carries samples
 * i, i + decim, ...; interleaved again on the host). With N input samples
 * (N / decim per input) the block gives all floor(N / decim) output samples;
 * the in-tree block with use_fft_filters drops up to one FFT block of its own
 * at the end of a stream. Tags go to the output at the relative rate 1/decim,
 * as in the in-tree block: a tag on item k of an input appears at output item
 * floor(k / decim) (GNU Radio rounds k / decim instead); with decim inputs
 * every input's tags.
 *
 * The block works on large chunks of the stream (transfers and kernels of
 * consecutive calls overlap), so its output lags its input by up to two chunks
 * (about 2^19 input samples; see latency()); no sample is lost at the end of a
 * stream. With decim inputs GNU Radio gives each input a buffer of two chunks
 * (it sizes them by the relative rate 1/decim), so for a large decim connect
 * the stream to a single input.
 */
class WIDEBAND_API pfb_decimator_ccf : virtual public gr::block
{
public:
    typedef std::shared_ptr<pfb_decimator_ccf> sptr;

    /*!
     * \param decim decimation, and number of channels, >= 1
     * \param taps prototype low-pass filter (real, unnormalised, designed at the
     *        input rate), not empty; its length need not be a multiple of decim
     * \param channel the channel to output, 0..decim-1
     * \param use_fft_rotator the in-tree block's choice of how to rotate the
     *        branches (an FFT or a sum of exponentials); changes nothing here
     * \param use_fft_filters the in-tree block's choice of FFT or FIR branch
     *        filters; changes nothing here (no output is dropped either way)
     * \param device OpenCL device: "" (automatic: the first GPU, else
     *        accelerator, else CPU; the environment variable WIDEBAND_DEVICE
     *        replaces ""), "gpu", "cpu", "accelerator", "P:D" (platform and
     *        device index, see list_devices()) or part of a device name
     * \throws std::invalid_argument for decim < 1, empty taps, taps that are not
     *         finite, a channel >= decim (where the in-tree block's FFT
     *         rotator reads past its FFT), a bad device string, a bad
     *         WIDEBAND_* environment variable, or sizes beyond the device; the
     *         connected inputs, when neither 1 nor decim, when the flowgraph
     *         starts
     *
     * Python: the in-tree block's arguments and defaults, device after them;
     * a decim or channel that is negative or not an integer raises TypeError,
     * as there.
     */
    static sptr make(unsigned int decim,
                     const std::vector<float>& taps,
                     unsigned int channel,
                     bool use_fft_rotator = true,
                     bool use_fft_filters = true,
                     const std::string& device = "");

    /*!
     * \brief New prototype taps (not empty, finite), applied from the next chunk
     * the block computes on. The filter history carries over; when the taps per
     * branch grow, samples older than the history kept count as zero.
     */
    virtual void set_taps(const std::vector<float>& taps) = 0;
    /*!
     * \brief The polyphase branches of the taps in use, as the in-tree block
     * gives them: decim branches of ceil(ntaps / decim) taps, branch i holding
     * taps i, i + decim, ... and zeros after the last.
     */
    virtual std::vector<std::vector<float>> taps() const = 0;
    //! Prints the branches of taps() to standard output, as the in-tree block does.
    virtual void print_taps() = 0;
    //! A new channel (0..decim-1), applied from the next chunk the block computes on.
    virtual void set_channel(unsigned int channel) = 0;
    //! The channel in use.
    virtual unsigned int channel() const = 0;

    //! The decimation (and number of channels).
    virtual unsigned int decimation() const = 0;
    //! Name of the OpenCL device the block runs on.
    virtual std::string device_name() const = 0;
    //! Input samples the output may lag behind (pipeline depth times chunk size).
    virtual unsigned int latency() const = 0;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_PFB_DECIMATOR_CCF_H */
