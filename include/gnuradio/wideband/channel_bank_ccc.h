/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CHANNEL_BANK_CCC_H
#define INCLUDED_WIDEBAND_CHANNEL_BANK_CCC_H

#include <gnuradio/block.h>
#include <gnuradio/gr_complex.h>
#include <gnuradio/wideband/api.h>

#include <string>
#include <vector>

namespace gr {
namespace wideband {

/*!
 * \brief Many channels out of one wideband stream on an OpenCL device, each
 * at its own centre frequency, decimation and filter: output i is
 * gnuradio.filter.freq_xlating_fir_filter_ccc(decimations[i], taps[i],
 * center_freqs[i], samp_rate) of the input.
 * \ingroup wideband
 *
 * \details
 * Channel i's output n is, with w = 2 pi f_i / fs, taps p of length N and
 * decimation D,
 *
 *   y_i[n] = A * e^{-j w D (n - r)} * sum_k p[k] e^{j w k} x[n*D - k],   x[m < 0] = 0,
 *
 * freq_xlating_fir_filter_ccc's definition in double precision with its start
 * phase (A = e^{-j w (N - 1) / 2}, r = 0) and its phase step at a retune (see
 * freq_xlating_fft_filter_ccc). Channels may differ in everything.
 *
 * It runs as core::channel_bank: one overlap-save forward FFT of the input
 * shared by every channel; per channel only the bins where its filter's
 * response matters, decimated in frequency and inverse-transformed at a short
 * length, all channels of one inverse length in one batched launch. The cost
 * per channel is about its bandwidth, not the input rate.
 *
 * Input: complex float, or complex int16 or int8 (input_type), converted as
 * the forward FFT reads it. Outputs: one stream per channel (each at its own
 * rate, samp_rate / D_i), or with vector_output one stream of vectors of all
 * channels, which needs one decimation for all. Tags on input sample k appear
 * on output item floor(k / D_i) of every output. set_center_freq() and
 * set_taps() apply from the first chunk the block computes after them; a
 * "freq" tag (the new centre, a double) marks that output of the channel.
 */
class WIDEBAND_API channel_bank_ccc : virtual public gr::block
{
public:
    typedef std::shared_ptr<channel_bank_ccc> sptr;

    /*!
     * \param samp_rate the input sample rate, > 0
     * \param center_freqs each channel's centre, within +-samp_rate / 2
     * \param decimations each channel's decimation, >= 1 (one value: all)
     * \param taps each channel's taps, or one list for all, at least one
     *        finite tap each
     * \param device OpenCL device, as for fft_filter_ccc
     * \param vector_output one output of vectors of all channels (one decimation)
     * \param input_type the input's samples: "fc32" (complex float, 8 bytes),
     *        "sc16" (complex int16, 4 bytes) or "sc8" (complex int8, 2 bytes),
     *        as SDR front ends deliver them; the integers are taken as their
     *        values (as interleaved_short_to_complex and
     *        interleaved_char_to_complex do by default), converted on the
     *        device, so fewer bytes cross PCIe
     * \throws std::invalid_argument naming the channel for a bad centre,
     *         decimation or taps; for lists whose lengths differ, no channels,
     *         a bad rate, input_type or device
     */
    static sptr make(double samp_rate,
                     const std::vector<double>& center_freqs,
                     const std::vector<int>& decimations,
                     const std::vector<std::vector<gr_complex>>& taps,
                     const std::string& device = "",
                     bool vector_output = false,
                     const std::string& input_type = "fc32");

    /*!
     * Channel \p channel's new centre, from the next chunk on (a "freq" tag
     * marks it). The "freq" message does the same: a dict {"freq": f,
     * "channel": c} (channel 0 when absent) or a pair (c . f).
     */
    virtual void set_center_freq(unsigned int channel, double center_freq) = 0;
    //! Channel \p channel's centre (the last set_center_freq()).
    virtual double center_freq(unsigned int channel) const = 0;
    /*!
     * Channel \p channel's new taps, from the next chunk on; while the
     * flowgraph runs, at most as many as the longest taps it started with.
     */
    virtual void set_taps(unsigned int channel, const std::vector<gr_complex>& taps) = 0;
    //! Channel \p channel's taps (the last set_taps()).
    virtual std::vector<gr_complex> taps(unsigned int channel) const = 0;
    //! Every channel's centre.
    virtual std::vector<double> center_freqs() const = 0;
    //! Every channel's decimation.
    virtual std::vector<int> decimations() const = 0;
    //! The input sample rate.
    virtual double samp_rate() const = 0;
    //! The number of channels.
    virtual unsigned int channels() const = 0;
    //! The forward FFT length (0 before the flowgraph first starts).
    virtual int fft_size() const = 0;
    //! Name of the OpenCL device the block runs on.
    virtual std::string device_name() const = 0;
    //! Input samples the output may lag behind (pipeline depth times chunk size).
    virtual unsigned int latency() const = 0;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CHANNEL_BANK_CCC_H */
