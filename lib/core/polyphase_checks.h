/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_POLYPHASE_CHECKS_H
#define INCLUDED_WIDEBAND_CORE_POLYPHASE_CHECKS_H

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

// The argument checks the polyphase engines (pfb_channelizer, pfb_synthesizer)
// share, each message in the engine's name.

//! A prototype filter: not empty, every tap finite.
inline void check_prototype_taps(const std::string& owner, const std::vector<float>& taps)
{
    if (taps.empty())
        throw std::invalid_argument(
            owner + ": taps must not be empty (give a prototype low-pass filter)");
    for (float t : taps)
        if (!std::isfinite(t))
            throw std::invalid_argument(owner + ": taps must be finite numbers");
}

/*!
 * A channel map of entries (named \p entry: "channel", "bin") below \p count;
 * empty: all of them in order.
 */
inline std::vector<size_t> resolved_map(const std::string& owner,
                                        const std::string& entry,
                                        const std::vector<size_t>& map,
                                        size_t count)
{
    if (map.empty()) {
        std::vector<size_t> all(count);
        for (size_t i = 0; i < count; ++i)
            all[i] = i;
        return all;
    }
    for (size_t i : map)
        if (i >= count)
            throw std::invalid_argument(owner + ": " + entry + " " + std::to_string(i) +
                                        " in the channel map is out of range 0.." +
                                        std::to_string(count - 1));
    return map;
}

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_POLYPHASE_CHECKS_H */
