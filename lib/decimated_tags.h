/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_DECIMATED_TAGS_H
#define INCLUDED_WIDEBAND_DECIMATED_TAGS_H

#include <gnuradio/tags.h>

#include <cstdint>
#include <deque>
#include <vector>

namespace gr {
namespace wideband {

/*!
 * \brief Tag propagation of a decimating block whose output lags its input: a
 * tag on sample k of a stream goes to the stream's output item floor(k / D).
 *
 * GNU Radio's automatic propagation would round k / D and place the tag in the
 * call that consumes sample k, while that item may be produced calls later (the
 * pipeline). The block sets TPP_DONT, calls restart() when a stream begins,
 * hands the tags of the samples it consumes to hold(), and adds the tags that
 * release() returns for the items it produces to every output.
 */
class decimated_tags
{
public:
    explicit decimated_tags(uint64_t decimation) : d_decimation(decimation) {}

    //! A stream begins at input item \p first_input and output item \p first_output.
    void restart(uint64_t first_input, uint64_t first_output)
    {
        d_first_input = first_input;
        d_first_output = first_output;
        d_held.clear();
    }

    //! Tags of the consumed samples, in offset order; held until their item.
    void hold(const std::vector<tag_t>& tags)
    {
        for (tag_t tag : tags) {
            tag.offset = d_first_output + (tag.offset - d_first_input) / d_decimation;
            d_held.push_back(tag);
        }
    }

    //! The held tags on output items before \p end (their offsets decimated).
    std::vector<tag_t> release(uint64_t end)
    {
        std::vector<tag_t> due;
        while (!d_held.empty() && d_held.front().offset < end) {
            due.push_back(d_held.front());
            d_held.pop_front();
        }
        return due;
    }

private:
    uint64_t d_decimation;
    uint64_t d_first_input = 0, d_first_output = 0;
    std::deque<tag_t> d_held;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_DECIMATED_TAGS_H */
