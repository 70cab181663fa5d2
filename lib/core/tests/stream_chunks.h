/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Chunkings of a stream of `total` samples into calls of at most `max` samples,
// for the streaming engines' tests (any chunking must give the same output).

#ifndef INCLUDED_WIDEBAND_TEST_STREAM_CHUNKS_H
#define INCLUDED_WIDEBAND_TEST_STREAM_CHUNKS_H

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>
#include <vector>


inline std::vector<size_t> fixed_chunks(size_t total, size_t size)
{
    std::vector<size_t> chunks;
    for (; total > 0; total -= chunks.back())
        chunks.push_back(std::min(total, size));
    return chunks;
}

// Calls of 0, 1, D - 1, D, D + 1, max - 1 and max samples, over and over.
inline std::vector<size_t> edge_chunks(size_t total, size_t D, size_t max)
{
    const size_t sizes[] = { 0, 1, D - 1, max, 0, D, 1, D + 1, max - 1, max };
    std::vector<size_t> chunks;
    for (size_t i = 0; total > 0; ++i) {
        chunks.push_back(std::min(total, sizes[i % std::size(sizes)]));
        total -= chunks.back();
    }
    return chunks;
}

// Random sizes: often 0, 1, fewer than D or exactly max, else anything up to max.
inline std::vector<size_t>
random_chunks(size_t total, size_t D, size_t max, uint32_t seed)
{
    std::mt19937 rng(seed);
    auto uniform = [&](size_t lo, size_t hi) {
        return std::uniform_int_distribution<size_t>(lo, hi)(rng);
    };
    std::vector<size_t> chunks;
    while (total > 0) {
        size_t n;
        switch (uniform(0, 7)) {
        case 0:
            n = 0;
            break;
        case 1:
            n = 1;
            break;
        case 2:
            n = uniform(1, std::max<size_t>(1, D - 1));
            break;
        case 3:
            n = max;
            break;
        default:
            n = uniform(0, max);
        }
        chunks.push_back(std::min(total, n));
        total -= chunks.back();
    }
    return chunks;
}

#endif /* INCLUDED_WIDEBAND_TEST_STREAM_CHUNKS_H */
