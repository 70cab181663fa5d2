#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
wideband.dct_vff against scipy.fft.dct in float64: types 2, 3 and 4, both
scalings, even, odd and prime sizes, in flowgraphs fed in random chunks;
round trips between two of our blocks (a device-resident edge), tags, the
accessors and the arguments it refuses.
"""

import numpy as np
import pmt
import scipy.fft
from gnuradio import blocks, gr, gr_unittest
from gnuradio import wideband
from stream_qa_helpers import random_chunks

SCIPY_NORM = {"ortho": "ortho", "backward": None}


def never_zero_real(rng, count):
    """Real samples with magnitudes in [0.5, 1.5] and random signs."""
    return (rng.uniform(0.5, 1.5, count) * rng.choice((-1.0, 1.0), count)).astype(
        np.float32)


def assert_close_vectors(testcase, ours, ref, n, what):
    """Every vector within 1e-6 of the reference in relative L2 (the issue's
    bound), and every element within 1e-5 of the vector's rms."""
    ours = np.asarray(ours, np.float64).reshape(-1, n)
    ref = np.asarray(ref, np.float64).reshape(-1, n)
    testcase.assertEqual(ours.shape, ref.shape, what)
    rms = np.sqrt(np.mean(ref ** 2, axis=1))
    relative = np.linalg.norm(ours - ref, axis=1) / (rms * np.sqrt(n))
    worst = np.max(np.abs(ours - ref), axis=1) / rms
    testcase.assertLess(float(relative.max()), 1e-6, what)
    testcase.assertLess(float(worst.max()), 1e-5, what)


class qa_dct_vff(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()

    def tearDown(self):
        self.tb = None

    def run_block(self, block, x, n, max_chunk=None, seed=0):
        src = blocks.vector_source_f(x, False, n)
        sink = blocks.vector_sink_f(n)
        if max_chunk:
            item = (np.float32, n) if n > 1 else np.float32
            # Kept referenced: a Python block must outlive the flowgraph's run.
            chunks = random_chunks(max_chunk, seed, item=item)
            self.tb.connect(src, chunks, block)
        else:
            self.tb.connect(src, block)
        self.tb.connect(block, sink)
        self.tb.run()
        return sink.data()

    def test_001_types_norms_and_sizes(self):
        # 8 and 1024: the packed route (a complex FFT of N/2 points); 100:
        # mixed radix; 17: odd (Rader for II and III, type IV's 34 points by
        # Bluestein); 1: the smallest.
        seed = 1
        for n in (1, 8, 17, 100, 1024):
            vectors = max(20, 8192 // n)
            for dct_type in (2, 3, 4):
                for norm in ("ortho", "backward"):
                    seed += 1
                    with self.subTest(n=n, type=dct_type, norm=norm):
                        self.setUp()
                        x = never_zero_real(np.random.default_rng(seed), n * vectors)
                        y = self.run_block(wideband.dct_vff(n, dct_type, norm), x, n,
                                           max_chunk=11, seed=seed)
                        ref = scipy.fft.dct(x.reshape(-1, n).astype(np.float64),
                                            type=dct_type, norm=SCIPY_NORM[norm], axis=1)
                        assert_close_vectors(self, y, ref, n,
                                             "n=%d type %d %s" % (n, dct_type, norm))

    def test_002_chunking_changes_nothing(self):
        n, vectors = 64, 3000
        x = never_zero_real(np.random.default_rng(5), n * vectors)
        whole = self.run_block(wideband.dct_vff(n, 2, "ortho"), x, n)
        self.setUp()
        chunked = self.run_block(wideband.dct_vff(n, 2, "ortho"), x, n, max_chunk=97,
                                 seed=6)
        self.assertEqual(len(whole), n * vectors)
        np.testing.assert_array_equal(np.asarray(chunked), np.asarray(whole))

    def test_003_round_trips_through_two_blocks(self):
        # Orthonormal: III undoes II and IV undoes IV; unnormalised, by 2N.
        n, vectors = 48, 500
        x = never_zero_real(np.random.default_rng(7), n * vectors)
        for first, second, norm, scale in ((2, 3, "ortho", 1.0), (4, 4, "ortho", 1.0),
                                           (2, 3, "backward", 2.0 * n)):
            with self.subTest(first=first, second=second, norm=norm):
                self.setUp()
                there = wideband.dct_vff(n, first, norm)
                back = wideband.dct_vff(n, second, norm)
                y = np.asarray(self.run_block_pair(there, back, x, n)) / scale
                assert_close_vectors(self, y, x, n, "round trip %d, %d" % (first, second))

    def run_block_pair(self, first, second, x, n):
        src = blocks.vector_source_f(x, False, n)
        sink = blocks.vector_sink_f(n)
        self.tb.connect(src, first, second, sink)
        self.tb.run()
        return sink.data()

    def test_004_tags_stay_on_their_vector(self):
        n, vectors = 32, 100
        x = never_zero_real(np.random.default_rng(8), n * vectors)
        tags = []
        for k in (0, 17, 99):
            tag = gr.tag_t()
            tag.offset, tag.key, tag.value = k, pmt.intern("v"), pmt.from_long(k)
            tags.append(tag)
        src = blocks.vector_source_f(x, False, n, tags)
        block = wideband.dct_vff(n, 4, "ortho")
        sink = blocks.vector_sink_f(n)
        self.tb.connect(src, block, sink)
        self.tb.run()
        self.assertEqual([(t.offset, pmt.to_long(t.value)) for t in sink.tags()],
                         [(0, 0), (17, 17), (99, 99)])

    def test_005_accessors(self):
        block = wideband.dct_vff(30, 3, "backward")
        self.assertEqual((block.size(), block.type(), block.norm()), (30, 3, "backward"))
        self.assertTrue(block.device_name())
        block = wideband.dct_vff(30)
        self.assertEqual((block.type(), block.norm()), (2, "ortho"))

    def test_006_bad_arguments_raise_value_error(self):
        for size in (0, -4):
            with self.assertRaisesRegex(ValueError, r"wideband.dct_vff: size must be 1\.\."):
                wideband.dct_vff(size)
        for dct_type in (1, 5):
            with self.assertRaisesRegex(ValueError,
                                        r"wideband.dct_vff: type must be 2, 3 or 4 \(got %d\)"
                                        % dct_type):
                wideband.dct_vff(16, dct_type)
        for norm in ("forward", "", "None"):
            with self.assertRaisesRegex(ValueError, r"norm must be \"ortho\" or \"backward\""):
                wideband.dct_vff(16, 2, norm)
        with self.assertRaisesRegex(ValueError, "device"):
            wideband.dct_vff(16, 2, "ortho", "no-such-device-xyz")


if __name__ == '__main__':
    gr_unittest.run(qa_dct_vff)
