/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_PIPELINED_WORK_H
#define INCLUDED_WIDEBAND_PIPELINED_WORK_H

#include <gnuradio/block.h>
#include <gnuradio/gr_complex.h>
#include <gnuradio/wideband/core/stream_pipeline.h>

#include <algorithm>

namespace gr {
namespace wideband {

/*!
 * \brief The general_work() of a block that streams through a
 * core::stream_pipeline: input goes in as chunks, output comes out of the oldest
 * chunk as it is ready, in order, partly when the output buffer is short.
 *
 * A chunk's output is items_per_chunk = elements / elements_per_item items; the
 * block copies them out in deliver(chunk, chunk_items, first, count, produced).
 */
class pipelined_work
{
public:
    explicit pipelined_work(core::stream_pipeline& pipeline) : d_pipeline(pipeline) {}

    //! Output still in flight: the block asks for no input (which also lets the
    //! end of a stream flush it).
    bool pending() const { return d_pipeline.in_flight() > 0; }

    /*!
     * \brief One call: submits up to \p max_chunk of the \p available samples at
     * \p input when a slot is free (returns them in \p consumed), then delivers
     * up to \p room items. Blocks on the oldest chunk only when the pipeline is
     * full or no input came (the end of a stream); otherwise takes what is done.
     */
    template <typename Deliver>
    size_t step(const gr_complex* input,
                size_t available,
                size_t max_chunk,
                size_t room,
                size_t elements_per_item,
                size_t& consumed,
                Deliver&& deliver)
    {
        consumed = 0;
        if (d_pipeline.can_submit() && available > 0) {
            consumed = std::min(available, max_chunk);
            d_pipeline.submit(input, consumed);
        }
        size_t produced = 0;
        while (d_pipeline.in_flight() > 0 && produced < room) {
            if (!d_pipeline.oldest_ready()) {
                if (d_pipeline.can_submit() && consumed > 0)
                    break;
                d_pipeline.wait_oldest();
            }
            const size_t items = d_pipeline.oldest_elements() / elements_per_item;
            const size_t count = std::min(room - produced, items - d_delivered);
            deliver(d_pipeline.oldest(), items, d_delivered, count, produced);
            produced += count;
            d_delivered += count;
            if (d_delivered == items) {
                d_pipeline.pop();
                d_delivered = 0;
            }
        }
        return produced;
    }

private:
    core::stream_pipeline& d_pipeline;
    size_t d_delivered = 0; // items of the oldest chunk already delivered
};

/*!
 * For check_topology(): with max_noutput_items below the output multiple (which
 * a pipelined block sets large) the scheduler never calls work(), so the
 * multiple gives way.
 */
inline void fit_output_multiple(gr::block& block)
{
    if (block.is_set_max_noutput_items() &&
        block.max_noutput_items() < block.output_multiple())
        block.set_output_multiple(std::max(1, block.max_noutput_items()));
}

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_PIPELINED_WORK_H */
