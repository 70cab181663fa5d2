/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_STREAM_TAGS_H
#define INCLUDED_WIDEBAND_STREAM_TAGS_H

#include <gnuradio/tags.h>
#include <gnuradio/wideband/core/stream_engine.h>

#include <cmath>
#include <cstdint>
#include <deque>
#include <vector>

namespace gr {
namespace wideband {

/*!
 * \brief Tag propagation of a block whose output lags its input, at any ratio
 * of \p ratio.output output items per \p ratio.input input items: a tag on
 * input item k of a stream goes to the stream's output item floor(k * output /
 * input), for decimation and interpolation alike (GNU Radio's own propagation
 * rounds to the nearest instead).
 *
 * A block whose outputs per input vary (a resampler at an irrational rate:
 * core::stream_engine::variable_ratio()) calls set_relative_rate(): its tags
 * then go where GNU Radio 3.10's block_executor puts them for a block of that
 * relative_rate, output item floor(offset * rate + 1/2) of the absolute item
 * offset, in exact arithmetic (GNU Radio multiplies by the double rate as an
 * exact fraction).
 *
 * GNU Radio's automatic propagation would round and place the tag in the call
 * that consumes item k, while that output item may be produced calls later
 * (the pipeline). The block sets TPP_DONT, calls restart() when a stream
 * begins, hands the tags of the items it consumes to hold(), and adds the tags
 * that release() returns for the items it produces to every output.
 */
class stream_tags
{
public:
    explicit stream_tags(core::stream_ratio ratio) : d_ratio(ratio) {}

    //! A stream begins at input item \p first_input and output item \p first_output.
    void restart(uint64_t first_input, uint64_t first_output)
    {
        d_first_input = first_input;
        d_first_output = first_output;
        d_held.clear();
    }

    /*!
     * GNU Radio's placement at relative rate \p rate from now on (the rate of
     * the call that consumes a tag's item, as in GNU Radio, where the block's
     * relative_rate at propagation counts).
     */
    void set_relative_rate(double rate)
    {
        d_relative = true;
        d_rate = rate;
    }

    //! Tags of the consumed items, in offset order; held until their output item.
    void hold(const std::vector<tag_t>& tags)
    {
        for (tag_t tag : tags) {
            if (d_relative) {
                tag.offset = rounded_scale(tag.offset, d_rate);
                d_held.push_back(tag);
                continue;
            }
            const uint64_t k = tag.offset - d_first_input;
            // k * output / input without overflow for any stream length
            const uint64_t whole = k / d_ratio.input, part = k % d_ratio.input;
            tag.offset = d_first_output + whole * d_ratio.output +
                         part * d_ratio.output / d_ratio.input;
            d_held.push_back(tag);
        }
    }

    //! The held tags on output items before \p end (their offsets moved there).
    std::vector<tag_t> release(uint64_t end)
    {
        std::vector<tag_t> due;
        while (!d_held.empty() && d_held.front().offset < end) {
            due.push_back(d_held.front());
            d_held.pop_front();
        }
        return due;
    }

    //! floor(k * rate + 1/2), exact for every k and rate (> 0, finite).
    static uint64_t rounded_scale(uint64_t k, double rate)
    {
        int e = 0;
        const double f = std::frexp(rate, &e); // rate = f 2^e, f in [0.5, 1)
        const auto m = static_cast<unsigned __int128>(std::ldexp(f, 53)); // exact
        const int shift = 53 - e; // rate = m 2^-shift
        const unsigned __int128 p = static_cast<unsigned __int128>(k) * m; // < 2^117
        if (shift <= 0)
            return uint64_t(p << -shift);
        if (shift > 118) // k * rate < 1/4
            return 0;
        return uint64_t((p + (static_cast<unsigned __int128>(1) << (shift - 1))) >>
                        shift);
    }

private:
    core::stream_ratio d_ratio;
    bool d_relative = false; // set_relative_rate()
    double d_rate = 1.0;
    uint64_t d_first_input = 0, d_first_output = 0;
    std::deque<tag_t> d_held;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_STREAM_TAGS_H */
