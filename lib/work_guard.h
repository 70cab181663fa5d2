/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_WORK_GUARD_H
#define INCLUDED_WIDEBAND_WORK_GUARD_H

#include <gnuradio/block.h>

#include <exception>
#include <mutex>
#include <string>

namespace gr {
namespace wideband {

/*!
 * \brief Turns an error in a block's start() or work() into the end of its
 * stream.
 *
 * GNU Radio 3.10 calls both in the block's thread; when one throws, it logs
 * the message and ends the thread without marking the block done, so that
 * tb.start() or tb.wait() waits for ever (checked with 3.10.5). gr-wideband
 * blocks run them through this instead: the error is logged once, kept for
 * work_error(), and work() returns WORK_DONE, which stops the flowgraph (the
 * readers see the end of their input, the writers that no reader is left).
 */
class work_guard
{
public:
    virtual ~work_guard() = default;

    //! The error that stopped start() or work() since the last start(); "" if none.
    std::string work_error() const;

protected:
    //! Runs \p setup (start()'s device set-up), recording an exception instead.
    template <typename Setup>
    void guarded_start(gr::block& block, const std::string& device, Setup&& setup)
    {
        clear();
        try {
            setup();
        } catch (...) {
            record(block, device, std::current_exception());
        }
    }

    //! Runs \p work (general_work()'s body); WORK_DONE after an error.
    template <typename Work>
    int guarded_work(gr::block& block, const std::string& device, Work&& work)
    {
        if (failed())
            return gr::block::WORK_DONE;
        try {
            return work();
        } catch (...) {
            record(block, device, std::current_exception());
            return gr::block::WORK_DONE;
        }
    }

private:
    void clear();
    bool failed() const;
    //! \p device: the block's device name(s), for the message.
    void record(gr::block& block, const std::string& device, std::exception_ptr error);

    mutable std::mutex d_mutex;
    std::string d_error;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_WORK_GUARD_H */
