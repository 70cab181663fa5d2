#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
wideband.fft_filter_fff against gnuradio.filter.fft_filter_fff and the float64
formula y[m] = sum_k h[k] x[m D - k] (x[n < 0] = 0), in real flowgraphs on
random never-zero real input, in random chunks; GNU Radio's own fff cases
(gr-filter's qa_fft_filter.py, restated); taps changed while running; the
arguments it refuses. Tolerances as qa_fft_filter's (1e-5 of the largest
sample, 1e-5 relative L2). The in-tree block drops up to one of its FFT
blocks at the end of a stream, so it is compared over the outputs it gives.
"""

import numpy as np
from gnuradio import blocks, filter, gr, gr_unittest
from gnuradio import wideband
import stream_qa_helpers
from stream_qa_helpers import filter_reference, gate, random_chunks, wait_for

ELEMENT_TOL = 1e-5
L2_TOL = 1e-5


def never_zero_real(rng, count):
    """Real samples with magnitudes in [0.5, 1.5] and random signs."""
    return (rng.uniform(0.5, 1.5, count) * rng.choice((-1.0, 1.0), count)).astype(
        np.float32)


def assert_same_stream(ours, ref, what=""):
    stream_qa_helpers.assert_same_stream(ours, ref, ELEMENT_TOL, L2_TOL, what)


class qa_fft_filter_fff(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()

    def tearDown(self):
        self.tb = None

    def side_by_side(self, D, taps, x, max_chunk=None):
        """Ours and the in-tree block on x; checks ours against the formula
        (every output) and the in-tree block (the outputs it gives)."""
        src = blocks.vector_source_f(x, False)
        ours = wideband.fft_filter_fff(D, taps)
        theirs = filter.fft_filter_fff(D, taps)
        ours_sink, theirs_sink = blocks.vector_sink_f(), blocks.vector_sink_f()
        self.tb.connect(src, theirs, theirs_sink)
        if max_chunk:
            chunks = random_chunks(max_chunk, len(x), item=np.float32)
            self.tb.connect(src, chunks, ours)
        else:
            self.tb.connect(src, ours)
        self.tb.connect(ours, ours_sink)
        self.tb.run()
        got, in_tree = np.array(ours_sink.data()), np.array(theirs_sink.data())
        what = f"D={D}, {len(taps)} taps"
        expected = filter_reference(x, taps, D).real
        assert_same_stream(got, expected, what + " against the formula")
        self.assertLessEqual(len(in_tree), len(got))
        assert_same_stream(got[:len(in_tree)], in_tree, what + " against the in-tree block")
        return got

    def test_001_taps_lengths_and_decimations(self):
        rng = np.random.default_rng(1)
        for D in (1, 2, 3, 7, 16):
            for T in (1, 2, 31, 256, 1000):
                with self.subTest(D=D, taps=T):
                    self.setUp()
                    taps = list(rng.uniform(0.5, 1.5, T) * rng.choice((-1, 1), T))
                    self.side_by_side(D, taps, never_zero_real(rng, 20000 + D * 37),
                                      max_chunk=4099)

    def test_002_gnu_radio_qa_cases(self):
        # gr-filter's qa_fft_filter.py, test_fff_001 ... 003: identity and a
        # gain of 2 on a ramp, with and without nthreads.
        ramp = [float(x) for x in range(8)]
        for taps, gain, args in (((1,), 1, ()), ((2,), 2, ()), ((2,), 2, (2,))):
            self.setUp()
            src = blocks.vector_source_f(ramp)
            op = wideband.fft_filter_fff(1, taps, *args)
            dst = blocks.vector_sink_f()
            self.tb.connect(src, op, dst)
            self.tb.run()
            self.assertFloatTuplesAlmostEqual([gain * x for x in ramp], dst.data(), 5)
        # Its (disabled) random cases 004 ... 006 with our tolerances: random
        # taps of 2 .. 1000 (D = 1) and 2 .. 100 (D = 1 .. 25).
        rng = np.random.default_rng(6)
        for D in (1, 1, 5, 13, 25):
            T = int(rng.integers(2, 1000 if D == 1 else 100))
            with self.subTest(D=D, taps=T):
                self.setUp()
                taps = list(rng.uniform(-1, 1, T))
                self.side_by_side(D, taps, never_zero_real(rng, 4096))

    def test_003_set_taps_while_running(self):
        # The stream stops after `before` samples, all their outputs come
        # out, the taps change, the stream resumes: outputs up to
        # floor(before / D) are the old filter's, all later ones the new
        # filter's over the whole stream (the history carries over).
        rng = np.random.default_rng(3)
        D, before, after = 3, 200002, 150000
        first = list(rng.uniform(-1, 1, 255))
        second = list(rng.uniform(-1, 1, 40))
        x = never_zero_real(rng, before + after)
        src = blocks.vector_source_f(x, False)
        hold = gate(before, item=np.float32)
        ours = wideband.fft_filter_fff(D, first)
        sink = blocks.vector_sink_f()
        self.tb.connect(src, hold, ours, sink)
        self.tb.start()
        wait_for(self, lambda: sink.nitems_read(0) >= before // D)
        ours.set_taps(second)
        np.testing.assert_array_equal(ours.taps(), np.float32(second))
        hold.opened.set()
        self.tb.wait()
        got = np.asarray(sink.data())
        self.assertEqual(len(got), len(x) // D)
        m0 = before // D
        assert_same_stream(got[:m0], filter_reference(x, first, D).real[:m0],
                           "before the change")
        assert_same_stream(got[m0:], filter_reference(x, second, D).real[m0:],
                           "after the change")

    def test_004_accessors_and_bad_arguments(self):
        block = wideband.fft_filter_fff(3, [0.5, 0.25, 0.125])
        self.assertEqual(block.decimation(), 3)
        self.assertGreaterEqual(block.fft_size(), 3 + 3 - 1)
        self.assertTrue(block.device_name())
        self.assertGreater(block.latency(), 0)
        self.assertEqual(wideband.fft_filter_fff(1, [1.0], "").decimation(), 1)
        for D, taps in ((0, [1.0]), (-2, [1.0]), (1, []), (1, [1.0, float("nan")])):
            with self.subTest(D=D, taps=taps):
                with self.assertRaises(ValueError):
                    wideband.fft_filter_fff(D, taps)
        with self.assertRaises(ValueError):
            block.set_taps([])
        with self.assertRaisesRegex(ValueError, "device"):
            wideband.fft_filter_fff(1, [1.0], "no-such-device-xyz")


if __name__ == '__main__':
    gr_unittest.run(qa_fft_filter_fff)
