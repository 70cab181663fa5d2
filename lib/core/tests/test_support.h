/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_TESTS_TEST_SUPPORT_H
#define INCLUDED_WIDEBAND_CORE_TESTS_TEST_SUPPORT_H

/*
 * What the core's tests share: the test device and its queue, the poison that
 * marks unwritten elements, never-zero real test values, and where a layout
 * puts its points.
 */

#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/fft_plan.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace wideband_test {

namespace core = gr::wideband::core;

//! The automatic device (WIDEBAND_DEVICE picks another one).
inline core::device_context::sptr context()
{
    static const core::device_context::sptr ctx = core::device_context::get("");
    return ctx;
}

inline const cl::CommandQueue& queue()
{
    // Never destroyed: releasing OpenCL objects during static destruction
    // crashes some ICDs.
    static const auto* q = new cl::CommandQueue(context()->create_queue());
    return *q;
}

// A quiet NaN with a payload no computation produces: an element that still
// holds it was never written.
constexpr uint32_t poison_bits = 0x7FC00001;

inline float poison_value()
{
    float f;
    std::memcpy(&f, &poison_bits, sizeof f);
    return f;
}

inline bool is_poison(float f)
{
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return bits == poison_bits;
}

//! Magnitudes 0.5 .. 1.5 of random sign: never zero (nor near it), so that a
//! point read from the wrong place or not at all changes the result.
inline std::vector<float> never_zero_values(size_t count, uint32_t seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> magnitude(0.5f, 1.5f);
    std::vector<float> v(count);
    for (auto& x : v)
        x = (gen() & 1 ? 1.0f : -1.0f) * magnitude(gen);
    return v;
}

//! Element index of point p of transform b, computed here independently of the core.
struct layout {
    size_t offset, stride, distance;

    layout(const core::fft_layout& l, size_t n)
        : offset(l.offset),
          stride(l.stride),
          distance(l.distance ? l.distance : n * l.stride)
    {
    }
    size_t at(size_t b, size_t p) const { return offset + b * distance + p * stride; }
    //! Elements up to the last point of the batch's last transform (none for
    //! an empty batch).
    size_t elements(size_t n, size_t batch) const
    {
        return batch && n ? at(batch - 1, n - 1) + 1 : 0;
    }
};

} // namespace wideband_test

#endif /* INCLUDED_WIDEBAND_CORE_TESTS_TEST_SUPPORT_H */
