/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_PFB_ARB_RESAMPLER_CCF_H
#define INCLUDED_WIDEBAND_PFB_ARB_RESAMPLER_CCF_H

#include <gnuradio/block.h>
#include <gnuradio/wideband/api.h>

#include <string>
#include <vector>

namespace gr {
namespace wideband {

/*!
 * \brief Polyphase arbitrary resampler on an OpenCL device, a drop-in for
 * gnuradio.filter.pfb_arb_resampler_ccf.
 * \ingroup wideband
 *
 * \details
 * Resamples a complex stream by any rate (rational or not: 0.6144 for 100 to
 * 61.44 Msps, 1/3.7, 2.5) with filter_size polyphase filters of the prototype
 * taps and their derivative filters, as the in-tree block: output n is
 *
 *   o0 + o1 * acc,  o0 = sum_m h[m R + j] x[i - m],  o1 the same with
 *   h[k + 1] - h[k] (the last 0),
 *
 * R = filter_size, x[k < 0] = 0, the taps padded with zeros to a multiple of
 * R, and the filter j, interpolation point acc and input sample i of each
 * output from the in-tree block's phase recurrence in its single-precision
 * arithmetic (acc += fractional_rate(); j += decimation_rate() + floor(acc);
 * acc = fmod(acc, 1); i += j / R, j %= R when j reaches R), which the host
 * replays exactly and the device follows from checkpoints: the outputs are
 * the in-tree block's, from the same first sample and with the same phase over
 * any stream length, to float precision of the sums. An output is made as soon
 * as its last input sample is there, so at the end of a stream the block gives
 * every output of the samples it got (the in-tree block stops a few input
 * samples earlier, where its forecast() asks for more than is left).
 *
 * Tags go where GNU Radio's propagation puts them for the in-tree block:
 * offset k to output item floor(k * rate + 1/2), at the rate set when the item
 * is consumed.
 *
 * The block works on large chunks of the stream (transfers and kernels of
 * consecutive calls overlap), so its output lags its input by up to two chunks
 * (see latency()). It runs on one device: several (device "all", "A,B") are
 * refused, since the phase at a split of the stream depends on all of the
 * stream before it.
 */
class WIDEBAND_API pfb_arb_resampler_ccf : virtual public gr::block
{
public:
    typedef std::shared_ptr<pfb_arb_resampler_ccf> sptr;

    /*!
     * \param rate output samples per input sample, > 0 and finite
     * \param taps prototype low-pass filter designed at filter_size times the
     *        input rate (real, as firdes.low_pass_2(filter_size, filter_size *
     *        fs, ...) gives it), not empty, finite
     * \param filter_size number of filters R (the phase resolution), >= 1
     * \param device OpenCL device: "" (automatic: the first GPU, else
     *        accelerator, else CPU; the environment variable WIDEBAND_DEVICE
     *        replaces ""), "gpu", "cpu", "accelerator", "P:D" (platform and
     *        device index, see list_devices()) or part of a device name; one
     *        device only
     * \throws std::invalid_argument for a rate not > 0 and finite (or above
     *         filter_size * 2^20), empty or non-finite taps, filter_size 0, a
     *         bad device string, several devices, a bad WIDEBAND_* environment
     *         variable, or sizes beyond the device
     *
     * Python: the in-tree block's arguments and defaults, device after them.
     */
    static sptr make(float rate,
                     const std::vector<float>& taps,
                     unsigned int filter_size = 32,
                     const std::string& device = "");

    /*!
     * \brief New prototype taps (not empty, finite), applied from the next chunk
     * the block computes on; the phase goes on. When the taps per filter grow,
     * samples older than the history kept count as zero.
     */
    virtual void set_taps(const std::vector<float>& taps) = 0;
    /*!
     * \brief The filters of the taps in use, as the in-tree block gives them:
     * filter_size filters of taps_per_filter() taps, filter j holding taps j,
     * j + R, ... and zeros after the last.
     */
    virtual std::vector<std::vector<float>> taps() const = 0;
    //! Prints the filters of taps() to standard output, as the in-tree block does.
    virtual void print_taps() = 0;
    /*!
     * \brief A new rate (> 0, finite), applied from the next chunk the block
     * computes on: the phase goes on, the relative rate changes (as in-tree).
     */
    virtual void set_rate(float rate) = 0;
    /*!
     * \brief The filter of the next chunk's first output: ph in [0, 2 pi)
     * selects filter floor(ph / (2 pi / R)), as the in-tree block's.
     * \throws std::runtime_error for ph out of [0, 2 pi) (as in-tree)
     */
    virtual void set_phase(float ph) = 0;
    /*!
     * \brief The phase of the filter set by the constructor or set_phase()
     * (the in-tree block's follows its stream; this one is the setting).
     */
    virtual float phase() const = 0;
    //! R, the number of filters.
    virtual unsigned int interpolation_rate() const = 0;
    //! floor(R / rate), in float as in-tree.
    virtual unsigned int decimation_rate() const = 0;
    //! R / rate - decimation_rate(), in float as in-tree.
    virtual float fractional_rate() const = 0;
    //! ceil(ntaps / R).
    virtual unsigned int taps_per_filter() const = 0;
    //! The in-tree block's group delay estimate, from the constructor's rate and taps.
    virtual int group_delay() const = 0;
    //! The in-tree block's phase offset estimate of a tone at \p freq of \p fs.
    virtual float phase_offset(float freq, float fs) = 0;

    //! Name of the OpenCL device the block runs on.
    virtual std::string device_name() const = 0;
    //! Input samples the output may lag behind (pipeline depth times chunk size).
    virtual unsigned int latency() const = 0;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_PFB_ARB_RESAMPLER_CCF_H */
