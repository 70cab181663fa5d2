/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_PFB_CHANNELIZER_CCF_H
#define INCLUDED_WIDEBAND_PFB_CHANNELIZER_CCF_H

#include <gnuradio/block.h>
#include <gnuradio/wideband/api.h>

#include <string>
#include <vector>

namespace gr {
namespace wideband {

/*!
 * \brief Polyphase filterbank channelizer on an OpenCL device, a drop-in for
 * gnuradio.filter.pfb.channelizer_ccf.
 * \ingroup wideband
 *
 * \details
 * One input (the wideband stream: complex float, or complex int16 or int8 by
 * input_type); one complex output per mapped channel
 * (all numchans channels when the map is empty; connect as many outputs as you
 * need, in map order), or, with vector_output, one output of vectors holding
 * every mapped channel of a frame. For the same taps and input each output
 * equals the in-tree block's to float precision: channel c is centred on
 * +c/numchans cycles per input sample (0 = DC, 1..numchans/2 positive, then
 * negative), and with D = numchans / oversample_rate, output q of channel c is
 *
 *   y_c[q] = exp(-2 pi i c (D+1)/M)
 *            * sum_n h[n] x[(q+1)D-1-n] exp(-2 pi i c ((q+1)D-1-n)/M)
 *
 * with x[k < 0] = 0: the first output sample of every channel comes after the
 * first D input samples, and the filter's delay is (ntaps-1)/2 input samples,
 * i.e. (ntaps-1)/(2D) output samples. Tags on input sample k appear on every
 * output at item floor(k / D).
 *
 * The block works on large chunks of the stream (transfers and kernels of
 * consecutive calls overlap), so its output lags its input by up to two chunks
 * (about 2^19 input samples; see latency()); no sample is lost at the end of a
 * stream.
 */
class WIDEBAND_API pfb_channelizer_ccf : virtual public gr::block
{
public:
    typedef std::shared_ptr<pfb_channelizer_ccf> sptr;

    /*!
     * \param numchans number of channels M >= 1
     * \param taps prototype low-pass filter (real, unnormalised, sampling rate M,
     *        channel spacing 1); empty: designed from \p atten with GNU Radio's
     *        firdes (Kaiser window, pass band 0.4, stop band 0.6 of a channel)
     * \param oversample_rate M / oversample_rate must be an integer D in [1, M]:
     *        one output sample per channel for every D input samples
     * \param channel_map channels to output, in output order (empty: 0..M-1);
     *        a channel may appear more than once
     * \param device OpenCL device: "" (automatic: the first GPU, else
     *        accelerator, else CPU; the environment variable WIDEBAND_DEVICE
     *        replaces ""), "gpu", "cpu", "accelerator", "P:D" (platform and
     *        device index, see list_devices()) or part of a device name
     * \param atten stop-band attenuation in dB of the designed taps (> 0)
     * \param vector_output one output of vectors of len(channel_map) samples per
     *        frame instead of one stream per channel (for hundreds or thousands
     *        of channels)
     * \param input_type the input's samples: "fc32" (complex float, 8 bytes),
     *        "sc16" (complex int16, 4 bytes) or "sc8" (complex int8, 2 bytes),
     *        as SDR front ends deliver them; the integers are taken as their
     *        values (as interleaved_short_to_complex and
     *        interleaved_char_to_complex do by default), converted on the
     *        device, so fewer bytes cross PCIe
     * \throws std::invalid_argument for numchans < 1, an oversample rate that does
     *         not give an integer D in [1, M], a channel index out of range, taps
     *         that are not finite, atten <= 0, a bad input_type, a bad device
     *         string, a bad WIDEBAND_* environment variable, or sizes beyond the
     *         device; all checked before any taps are designed or memory taken
     *
     * Python: taps may also be None (designed, as empty taps);
     * pfb_channelizer_ccf(numchans, taps, oversample_rate, atten) is the
     * positional form of the in-tree gnuradio.filter.pfb.channelizer_ccf; a
     * numchans that is not an integer raises TypeError, as there.
     */
    static sptr make(unsigned int numchans,
                     const std::vector<float>& taps = std::vector<float>(),
                     float oversample_rate = 1.0f,
                     const std::vector<int>& channel_map = std::vector<int>(),
                     const std::string& device = "",
                     float atten = 100.0f,
                     bool vector_output = false,
                     const std::string& input_type = "fc32");

    /*!
     * \brief The prototype filter the block designs when given no taps: GNU Radio's
     * firdes.low_pass_2 with a Kaiser window, flat to 0.4 and \p atten dB down
     * from 0.6 of the channel spacing (within about 1 dB), as the in-tree block's.
     */
    static std::vector<float> create_taps(unsigned int numchans, float atten = 100.0f);

    //! New prototype taps, applied from the next frame the block computes on.
    virtual void set_taps(const std::vector<float>& taps) = 0;
    //! The prototype taps in use (designed ones when none were given).
    virtual std::vector<float> taps() const = 0;

    /*!
     * \brief New channel map, applied from the next frame the block computes on.
     * It must have an entry for every connected output (vector output: the same
     * length as before).
     *
     * While the flowgraph runs, a tag marks where the new map applies: on each
     * output whose channel changed, at the first item computed with the new
     * map, key "channel" with the output's new channel (a long); with vector
     * output, key "channel_map" with the whole map (an s32vector) on the one
     * output. A map set before the flowgraph starts is not tagged, and neither
     * is anything when set_channel_map() is never called.
     */
    virtual void set_channel_map(const std::vector<int>& map) = 0;
    //! The channel map in use, in output order.
    virtual std::vector<int> channel_map() const = 0;

    //! The number of channels M.
    virtual unsigned int numchans() const = 0;
    //! D = numchans / oversample_rate: input samples per output sample.
    virtual unsigned int decimation() const = 0;
    //! Name of the OpenCL device the block runs on.
    virtual std::string device_name() const = 0;
    //! Input samples the output may lag behind (pipeline depth times chunk size).
    virtual unsigned int latency() const = 0;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_PFB_CHANNELIZER_CCF_H */
