/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_WORK_PROFILE_H
#define INCLUDED_WIDEBAND_WORK_PROFILE_H

#include <gnuradio/wideband/core/environment.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <string>

namespace gr {
namespace wideband {

/*!
 * \brief Where a pipelined block's time goes, for WIDEBAND_PROFILE=1: each
 * work() call is split into phases, and the time between calls (GNU Radio's
 * scheduler, the neighbours) is counted too. report() gives one line; the
 * blocks log it when the flowgraph stops. Costs two clock reads per phase when
 * on, one branch when off.
 */
class work_profile
{
public:
    enum phase {
        submit,        //!< host copy into staging memory, enqueue the chunk
        wait_output,   //!< waiting for the oldest chunk's output
        deliver,       //!< moving output into GNU Radio's buffers
        wait_source,   //!< waiting for the upload to finish reading the input
        wait_delivery, //!< waiting for the output transfers
        phases
    };

    static bool enabled()
    {
        static const bool on = core::environment::profile();
        return on;
    }

    work_profile() : d_on(enabled()) {}

    void begin_call()
    {
        if (!d_on)
            return;
        const auto now = clock::now();
        if (d_calls > 0)
            d_between += now - d_last;
        else
            d_first = now;
        d_last = now;
    }
    //! The time since the last mark (or the call's start) was spent in \p p.
    void mark(phase p)
    {
        if (!d_on)
            return;
        const auto now = clock::now();
        d_phase[p] += now - d_last;
        d_last = now;
    }
    void end_call(size_t consumed, size_t produced)
    {
        if (!d_on)
            return;
        d_last = clock::now();
        ++d_calls;
        d_consumed += consumed;
        d_produced += produced;
    }

    //! Adds \p text to the report.
    void note(const std::string& text)
    {
        if (d_on)
            d_note += ", " + text;
    }

    //! One line: calls, input per call and rate, then ms per call by phase.
    std::string report() const
    {
        if (!d_on || d_calls == 0)
            return {};
        const double calls = double(d_calls);
        const double wall = seconds(d_last - d_first);
        auto ms = [&](duration d) { return seconds(d) * 1e3 / calls; };
        static const char* const names[phases] = {
            "submit", "wait-output", "deliver", "wait-source", "wait-delivery"
        };
        std::string line;
        char buffer[160];
        std::snprintf(buffer,
                      sizeof buffer,
                      "%zu calls, %.0f in / %.0f out per call, %.1f Msamples/s in; "
                      "ms per call:",
                      d_calls,
                      double(d_consumed) / calls,
                      double(d_produced) / calls,
                      wall > 0 ? double(d_consumed) / wall / 1e6 : 0.0);
        line += buffer;
        for (int p = 0; p < phases; ++p) {
            std::snprintf(buffer, sizeof buffer, " %s %.3f", names[p], ms(d_phase[p]));
            line += buffer;
        }
        std::snprintf(buffer, sizeof buffer, ", between calls %.3f", ms(d_between));
        return line + buffer + d_note;
    }

private:
    using clock = std::chrono::steady_clock;
    using duration = clock::duration;
    static double seconds(duration d) { return std::chrono::duration<double>(d).count(); }

    bool d_on;
    size_t d_calls = 0;
    size_t d_consumed = 0, d_produced = 0;
    clock::time_point d_first, d_last;
    std::array<duration, phases> d_phase{};
    duration d_between{};
    std::string d_note;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_WORK_PROFILE_H */
