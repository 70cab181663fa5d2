/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_ARB_RESAMPLER_H
#define INCLUDED_WIDEBAND_CORE_ARB_RESAMPLER_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/stream_engine.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

/*!
 * \brief The phase recurrence of GNU Radio's pfb_arb_resampler_ccf, in its
 * single-precision arithmetic: which filter and interpolation point each
 * output takes, and which input sample it ends at.
 *
 * With R filters (filter_size), the rate gives dec_rate = floor(R / rate) and
 * flt_rate = R / rate - dec_rate, in float. From filter j and accumulator acc
 * (0 at the start), an output is made, then acc += flt_rate, j += dec_rate +
 * floor(acc), acc = fmodf(acc, 1); when j reaches R the input moves on by
 * j / R samples and j wraps to j % R. The outputs depend on the exact float
 * values of acc over the whole stream, so this replays those operations one by
 * one (acc stays in [0, 2), where floor and fmodf are a compare and an exact
 * subtraction; IEEE float addition is the same on every conforming device).
 */
struct WIDEBAND_CORE_API arb_resampler_phase {
    uint64_t input = 0;  //!< the stream sample the next output ends at
    unsigned filter = 0; //!< j, in [0, R)
    float acc = 0.0f;    //!< the interpolation point, in [0, 1)
};

//! What an arb_resampler is built with.
struct WIDEBAND_CORE_API arb_resampler_options {
    float rate = 1.0f;         //!< output samples per input sample, > 0, finite
    std::vector<float> taps;   //!< prototype filter at R times the input rate, not empty
    unsigned filter_size = 32; //!< R, the number of filters, >= 1
    size_t max_input_samples = 0; //!< per call; 0: stream_config's for the device
    /*!
     * Outputs per schedule entry (a power of two): the host sends one phase
     * per this many outputs, and the device replays the recurrence from it.
     */
    size_t checkpoint_interval = 64;
};

/*!
 * \brief GNU Radio's pfb_arb_resampler_ccf on a device: complex float in,
 * complex float out, at any rate, output equal to the in-tree block's.
 *
 * Output n is o0 + o1 * acc with o0 = sum_m h_j[m] x[i - m] and o1 the same
 * with the derivative taps (taps[k+1] - taps[k], the last 0), h_j[m] =
 * taps[m*R + j] (taps padded with zeros to R * T, T = taps_per_filter()),
 * j, acc and i from arb_resampler_phase.
 *
 * Each call replays the recurrence on the host over the call's samples (it
 * decides how many outputs the call makes) and uploads one phase per
 * checkpoint_interval outputs; each work-item replays the few steps from its
 * checkpoint to its output in the same float operations and computes the
 * output from the call's window (the T - 1 samples before it kept from the
 * last call). The host loop is the throughput bound: a few ns per output.
 *
 * The number of outputs per input sample varies (variable_ratio()): step() is
 * {1, most outputs a sample can make}. A stream runs on one engine only: the
 * phase at a split point would need every engine to replay the whole stream's
 * recurrence, so continue_at() refuses (multi_device_pipeline does not split
 * such engines).
 */
class WIDEBAND_CORE_API arb_resampler : public splittable_engine
{
public:
    /*!
     * \throws std::invalid_argument for a rate not > 0 and finite, empty or
     *         non-finite taps, filter_size 0, a checkpoint interval that is not
     *         a power of two, or buffers the device cannot hold
     */
    arb_resampler(device_context::sptr context, const arb_resampler_options& options);
    ~arb_resampler() override;
    arb_resampler(const arb_resampler&) = delete;
    arb_resampler& operator=(const arb_resampler&) = delete;

    //! What the constructor checks of \p options alone (no device).
    static void check_arguments(const arb_resampler_options& options);
    //! What the constructor checks, without a device context.
    static void check_fits(const device_info& device,
                           const arb_resampler_options& options);

    //! dec_rate and flt_rate of \p rate with \p filter_size filters, as the
    //! in-tree kernel computes them.
    static unsigned decimation_rate_for(float rate, unsigned filter_size);
    static float fractional_rate_for(float rate, unsigned filter_size);
    //! The filter the in-tree block starts at: (taps / 2) % filter_size.
    static unsigned start_filter(size_t taps, unsigned filter_size);

    float rate() const;
    unsigned filter_size() const;
    unsigned decimation_rate() const;
    float fractional_rate() const;
    size_t taps_per_filter() const;
    //! The filters' taps: filter j's T taps, j = 0..R-1 (as the in-tree taps()).
    std::vector<std::vector<float>> filter_taps() const;
    //! The phase of the next output.
    arb_resampler_phase phase() const;

    //! A new rate from the next call on; the phase goes on.
    void set_rate(float rate);
    /*!
     * New taps from the next call on; the phase goes on. When the taps per
     * filter grow, samples older than the history held are taken as zero.
     */
    void set_taps(const std::vector<float>& taps);
    //! The next output's filter (the in-tree set_phase() sets it; values of R
    //! or more move the input on as the recurrence does).
    void set_filter(unsigned filter);

    //! Host time spent replaying the recurrence, over all calls (seconds).
    double schedule_seconds() const;
    //! Outputs scheduled, over all calls.
    uint64_t outputs_scheduled() const;

    // stream_engine
    bool variable_ratio() const override { return true; }
    stream_ratio step() const override;
    region input_region() const override;
    size_t max_input_samples() const override;
    size_t max_output_elements() const override;
    size_t input_regions() const override { return 2; }
    size_t run(const cl::CommandQueue& queue,
               size_t samples,
               const cl::Buffer& output,
               const std::vector<cl::Event>& wait,
               cl::Event& done) override;

    //! T - 1: the samples before an output's last that it reads.
    size_t history_samples() const override;
    //! \throws std::logic_error: a stream of this engine is not split (see above)
    size_t continue_at(uint64_t position) override;

private:
    class impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_ARB_RESAMPLER_H */
