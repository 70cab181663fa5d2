#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
NaN and Inf bursts in the input of each block, in flowgraphs with random
work() sizes: the outputs computed from a burst may be spoiled, but once it
has left the filter's history every output is finite and right again, and
the outputs before it are untouched; the state never stays poisoned.

What "computed from it" means per block:
  - fft_filter: overlap-save FFT blocks. An output's block reads the L - B
    samples before the block's first new sample and its B new ones (L =
    fft_size(), B the new samples per block, where blocks start is up to the
    block's calls), so a burst spoils at most the outputs m with
    first - (L - 1) <= m D <= last + L - 1. Outside that every output must
    match the float64 reference of the stream (which never reads the burst
    there).
  - pfb_channelizer: frame q reads samples (q+1) D - ntaps .. (q+1) D - 1,
    and its FFT mixes all branches: exactly the frames reading the burst may
    be spoiled, every channel of them; all others match.
  - fft_vcc: each vector is its own transform: exactly the vectors holding a
    burst sample may be spoiled.
"""

import numpy as np
from gnuradio import blocks, fft, gr, gr_unittest
from gnuradio import wideband
from stream_qa_helpers import (assert_same_stream, channelizer_reference,
                               filter_reference, never_zero, random_chunks)

TOL = 1e-5
CHUNK = 1 << 19
NAN, INF = float("nan"), float("inf")


def with_bursts(rng, count, bursts):
    """(input with the bursts, the same with zeros there): bursts are
    (first sample, length); the values mix NaN and +-Inf in both parts."""
    x = never_zero(rng, count)
    clean = x.copy()
    values = np.array([complex(NAN, 0.5), complex(INF, -INF), complex(0.25, INF),
                       complex(NAN, NAN), complex(-INF, NAN)], np.complex64)
    for first, length in bursts:
        x[first:first + length] = np.resize(values, length)
        clean[first:first + length] = 0
    return x, clean


def finite(a):
    return np.isfinite(a.real) & np.isfinite(a.imag)


class qa_non_finite(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()

    def tearDown(self):
        self.tb = None

    def run_block(self, x, block, outputs=1, vlen=1, out_vlen=None, max_chunk=100000):
        """x (in vectors of vlen) through random_chunks -> block -> sinks (of
        out_vlen, default vlen); the outputs as arrays."""
        src = blocks.vector_source_c(x, False, vlen)
        self.chunks = random_chunks(max_chunk, 7, vlen)
        sinks = [blocks.vector_sink_c(out_vlen or vlen) for _ in range(outputs)]
        self.tb.connect(src, self.chunks, block)
        for slot, sink in enumerate(sinks):
            self.tb.connect((block, slot), sink)
        self.tb.run()
        self.assertEqual(wideband.work_error(block), "")
        return [np.asarray(sink.data()) for sink in sinks]

    def check_spoiled_only(self, got, ref, spoiled, what):
        """got matches ref outside the outputs marked in `spoiled`, and some
        marked output is not finite (the burst got in)."""
        self.assertEqual(len(got), len(ref), what)
        self.assertFalse(finite(got[spoiled]).all(), f"{what}: the burst reached no output")
        assert_same_stream(got[~spoiled], ref[~spoiled], TOL, TOL, what)

    def test_001_fft_filter(self):
        rng = np.random.default_rng(1)
        # a short burst inside a chunk, one across the first chunk boundary
        # (the history carries it), a long one, and one near the end
        bursts = [(1000, 3), (CHUNK - 2, 5), (2 * CHUNK + 40000, 30000), (3 * CHUNK - 900, 1)]
        x, clean = with_bursts(rng, 3 * CHUNK + 1001, bursts)
        for D, ntaps in ((1, 64), (3, 1000)):
            with self.subTest(decimation=D, taps=ntaps):
                self.setUp()
                taps = list(never_zero(rng, ntaps))
                block = wideband.fft_filter_ccc(D, taps)
                L = block.fft_size()
                got, = self.run_block(x, block)
                m = np.arange(len(x) // D)
                spoiled = np.zeros(len(m), bool)
                for first, length in bursts:
                    spoiled |= (m * D >= first - (L - 1)) & (m * D <= first + length - 1 + L - 1)
                self.check_spoiled_only(got, filter_reference(clean, taps, D), spoiled,
                                        f"D={D}, {ntaps} taps, FFT {L}")

    def test_002_pfb_channelizer(self):
        rng = np.random.default_rng(2)
        M, D = 16, 8
        taps = [float(t) for t in rng.uniform(-1, 1, 4 * M - 3)]
        bursts = [(777, 2), (CHUNK - 3, 6), (CHUNK + 50000, 20000)]
        x, clean = with_bursts(rng, 2 * CHUNK + 13, bursts)
        for vector_output in (False, True):
            with self.subTest(vector_output=vector_output):
                self.setUp()
                channels = [0, 7, 15]
                block = wideband.pfb_channelizer_ccf(M, taps, M / D, channels, "", 100,
                                                     vector_output)
                got = (self.run_block(x, block, out_vlen=len(channels)) if vector_output
                       else self.run_block(x, block, len(channels)))
                got = got[0].reshape(-1, len(channels)) if vector_output else np.array(got).T
                ref = channelizer_reference(clean, taps, M, D)[:, channels]
                q = np.arange(len(x) // D)
                spoiled = np.zeros(len(q), bool)
                for first, length in bursts:
                    spoiled |= ((q + 1) * D - 1 >= first) & ((q + 1) * D - len(taps) <=
                                                            first + length - 1)
                for slot, channel in enumerate(channels):
                    self.check_spoiled_only(got[:, slot], ref[:, slot], spoiled,
                                            f"channel {channel}")
                # every channel of a frame reading the burst
                self.assertFalse(finite(got[spoiled]).any())

    def test_003_fft_vcc(self):
        rng = np.random.default_rng(3)
        n = 256
        bursts = [(5 * n + 17, 1), (100 * n - 2, 4), (3000 * n, 2 * n + 1)]
        x, clean = with_bursts(rng, 4000 * n, bursts)
        block = wideband.fft_vcc(n, True, [], True)
        got, = self.run_block(x, block, vlen=n, max_chunk=900)
        got = got.reshape(-1, n)
        ref = np.fft.fftshift(np.fft.fft(clean.reshape(-1, n).astype(np.complex128), axis=1),
                              axes=1)
        spoiled = ~finite(x.reshape(-1, n)).all(axis=1)
        self.assertEqual(int(spoiled.sum()), 1 + 2 + 3)
        self.assertFalse(finite(got[spoiled]).all(axis=1).any())
        assert_same_stream(got[~spoiled], ref[~spoiled], TOL, TOL, "fft_vcc")


if __name__ == '__main__':
    gr_unittest.run(qa_non_finite)
