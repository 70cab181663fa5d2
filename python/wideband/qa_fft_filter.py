#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
wideband.fft_filter_ccc / fft_filter_ccf against gnuradio.filter.fft_filter_ccc
/ fft_filter_ccf: both run in the same flowgraph on the same random, never-zero
input with random, never-zero taps, and every output sample of ours is compared
with the in-tree block's.

Alignment: none is needed. Both compute y[m] = sum_k h[k] x[m*D - k] from zero
state (x[n < 0] = 0), without delay compensation, so output m of ours is
compared with output m of the in-tree block. The only difference is at the end
of a finite stream of N samples: ours delivers exactly floor(N/D) outputs
(asserted), the in-tree block only whole FFT blocks of its own (it drops up to
one block at the end). Ours is compared with the in-tree block's outputs where
it has them, and with reference() everywhere; reference() itself is checked
against the in-tree block in every side-by-side run.

reference() is the formula above in float64 (numpy FFT convolution, accurate to
~1e-15). It is also the expected output where the in-tree block cannot serve:
taps changed at a known sample (the in-tree block zeroes its overlap-add tail
on set_taps and changes at its own block boundaries).

Tolerance, per output stream (the blocks compute in float32 by different
algorithms, so they may differ by rounding only):
  every sample:  |ours - ref| <= ELEMENT_TOL * max|ref|
  the stream:    ||ours - ref|| <= L2_TOL * ||ref||
An overlap-save float32 filter's error relative to the exact result is about
eps * sqrt(log2 L) in L2 norm (eps = 6e-8, L the FFT size, up to ~2^14 here);
per sample it is bounded by the error of the whole block's FFT, i.e. relative
to the output's size, not to each sample's (a sample may be near zero by
cancellation), hence max|ref|. Measured on PoCL over this file: at most 3.3e-7
(L2) and 1.0e-6 (per sample, relative to max|ref|) against the float64
reference, 3.3e-7 and 1.0e-6 against the in-tree block: a margin of 10 or
more for other devices' rounding. Any real mistake (a wrong or missing tap,
a sample off by one, a lost or repeated block, stale history) changes the
result by 1e-2 or more: test_000 shows that the check sees 1e-4.
"""

import os
import time
from unittest import mock

import numpy as np
import pmt
from gnuradio import blocks, filter, gr, gr_unittest
from gnuradio import wideband
import stream_qa_helpers
from stream_qa_helpers import gate, never_zero, random_chunks, wait_for
from stream_qa_helpers import filter_reference as reference

ELEMENT_TOL = 1e-5
L2_TOL = 1e-5

# Input samples our block computes at once (latency(): two of them in flight).
CHUNK = 1 << 19

KINDS = {
    "ccc": (wideband.fft_filter_ccc, filter.fft_filter_ccc),
    "ccf": (wideband.fft_filter_ccf, filter.fft_filter_ccf),
}


def random_taps(rng, kind, count):
    """Random taps without a zero (not a useful filter, but every tap
    matters): complex for ccc, real of either sign for ccf."""
    if kind == "ccc":
        return [complex(t) for t in never_zero(rng, count)]
    magnitude = rng.uniform(0.5, 1.5, count) * rng.choice((-1, 1), count)
    return [float(t) for t in magnitude.astype(np.float32)]


def reference_at(x, taps, D, first, count, zero_before=0):
    """reference()[first:first + count], computed from the samples it needs."""
    h = np.asarray(taps, np.complex128)
    T = len(h)
    start = first * D - (T - 1)
    stop = (first + count - 1) * D + 1
    xs = np.zeros(stop - start, np.complex128)
    lo = max(start, zero_before, 0)
    if stop > lo:
        xs[lo - start:] = np.asarray(x[lo:stop], np.complex128)
    return np.convolve(xs, h, "valid")[::D]


def assert_same_stream(ours, ref, what=""):
    """Raises AssertionError unless ours matches ref (same length) within the
    tolerances."""
    stream_qa_helpers.assert_same_stream(ours, ref, ELEMENT_TOL, L2_TOL, what)


def matches(ours, ref, scale):
    """Per sample: whether ours matches ref to ELEMENT_TOL * scale."""
    return np.abs(np.asarray(ours) - np.asarray(ref)) <= ELEMENT_TOL * scale


class qa_fft_filter(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()

    def tearDown(self):
        self.tb = None

    def side_by_side(self, kind, D, taps, x, max_chunk=None, configure=None,
                     in_tree=True, input_type="fc32"):
        """Runs ours (and the in-tree block) on x (complex, or interleaved
        integers for input_type sc16 and sc8, which the in-tree chain
        converts); checks ours' length, ours against the in-tree block and
        reference(), the in-tree block against reference(). Returns ours'
        output."""
        ours_make, in_tree_make = KINDS[kind]
        src, ref_src = stream_qa_helpers.side_by_side_sources(self.tb, x, input_type)
        x = stream_qa_helpers.as_complex(x)
        what = f"{kind} {input_type} D={D} ntaps={len(taps)} N={len(x)}"
        ours = ours_make(D, taps, input_type=input_type)
        if configure:
            configure(ours)
        ours_sink = blocks.vector_sink_c()
        if max_chunk:
            # (a Python block must outlive the run: keep a reference)
            self.chunks = random_chunks(max_chunk, len(x) + D,
                                        item=stream_qa_helpers.SAMPLE_ITEMS[input_type])
            self.tb.connect(src, self.chunks, ours)
        else:
            self.tb.connect(src, ours)
        self.tb.connect(ours, ours_sink)
        if in_tree:
            ref_block = in_tree_make(D, taps)
            ref_sink = blocks.vector_sink_c()
            self.tb.connect(ref_src, ref_block, ref_sink)
        self.tb.run()
        got = np.asarray(ours_sink.data())
        expected = reference(x, taps, D)
        self.assertEqual(len(got), len(x) // D, f"{what}: output count")
        assert_same_stream(got, expected, what + " against reference()")
        if in_tree:
            theirs = np.asarray(ref_sink.data())
            self.assertLessEqual(len(theirs), len(got), what)
            # the in-tree block drops at most one of its FFT blocks at the end
            self.assertGreater(len(theirs), 0.5 * len(got) - 20000, what)
            assert_same_stream(theirs, expected[:len(theirs)],
                               what + ": in-tree block against reference()")
            assert_same_stream(got[:len(theirs)], theirs, what + " against the in-tree block")
        return got

    def test_000_comparison_detects_a_small_error(self):
        rng = np.random.default_rng(0)
        x = never_zero(rng, 3000)
        taps = random_taps(rng, "ccc", 31)
        ref = reference(x, taps, 3)
        assert_same_stream(ref, ref)
        # reference() is the formula, and reference_at() is reference()
        m = 417
        direct = sum(taps[k] * complex(x[m * 3 - k]) for k in range(31))
        self.assertAlmostEqual(ref[m], direct, delta=1e-9)
        np.testing.assert_allclose(reference_at(x, taps, 3, 0, 1000), ref, atol=1e-9)
        np.testing.assert_allclose(reference_at(x, taps, 3, 5, 20, zero_before=17),
                                   reference(x, taps, 3, zero_before=17)[5:25], atol=1e-9)
        wrong = ref.copy()
        wrong[517] += 1e-4 * np.abs(ref).max()
        with self.assertRaises(AssertionError):
            assert_same_stream(wrong, ref)
        with self.assertRaises(AssertionError):       # one sample late
            assert_same_stream(reference(np.concatenate([[0], x[:-1]]), taps, 3), ref)
        with self.assertRaises(AssertionError):       # a tap missing
            assert_same_stream(reference(x, taps[:-1], 3), ref)
        with self.assertRaises(AssertionError):
            assert_same_stream(ref[:-1], ref)

    def test_001_taps_lengths_and_decimations_against_in_tree(self):
        # Every taps length with two decimations, both kinds: 1 and 2 taps
        # (shortest history), 7, 64, 255 and 256 (around a power of two),
        # 1000, 4097 (FFT sizes in the thousands). Random chunks of the input
        # stream for half of them: the filter's history and the samples short
        # of an output carry across calls of any size.
        cases = [("ccc", 1, 1), ("ccf", 1, 3), ("ccf", 2, 1), ("ccc", 2, 8),
                 ("ccc", 7, 2), ("ccf", 7, 3), ("ccf", 64, 1), ("ccc", 64, 8),
                 ("ccc", 255, 3), ("ccf", 255, 2), ("ccf", 256, 8), ("ccc", 256, 1),
                 ("ccf", 1000, 2), ("ccc", 1000, 3), ("ccc", 4097, 1), ("ccf", 4097, 8)]
        for i, (kind, ntaps, D) in enumerate(cases):
            with self.subTest(kind=kind, ntaps=ntaps, decimation=D):
                self.setUp()
                rng = np.random.default_rng(100 + i)
                # not a multiple of D, so that the stream ends inside an output
                x = never_zero(rng, 60000 + 1000 * i + D - 1)
                self.side_by_side(kind, D, random_taps(rng, kind, ntaps), x,
                                  max_chunk=4000 if i % 2 else None)

    def test_002_stream_longer_than_the_pipeline(self):
        # Several chunks, two in flight at a time, and the flush at the end.
        rng = np.random.default_rng(2)
        x = never_zero(rng, 3 * CHUNK + 12345)
        self.side_by_side("ccf", 3, random_taps(rng, "ccf", 255), x)
        self.setUp()
        self.side_by_side("ccc", 1, random_taps(rng, "ccc", 1000), x)

    def test_003_odd_work_sizes(self):
        rng = np.random.default_rng(3)
        # Calls of 1..7 samples: most make no output (decimation 8), the
        # pipeline runs on tiny chunks.
        x = never_zero(rng, 4003)
        self.side_by_side("ccc", 8, random_taps(rng, "ccc", 7), x, max_chunk=7)
        # Few output items per call: a chunk's output leaves in many pieces.
        self.setUp()
        x = never_zero(rng, 30001)

        def small_calls(block):
            block.set_output_multiple(1)
            block.set_max_noutput_items(7)
        self.side_by_side("ccf", 3, random_taps(rng, "ccf", 64), x, configure=small_calls)
        # GNU Radio never calls a block whose max_noutput_items is below its
        # output multiple (2^18 / D here): limit to exactly one multiple.
        self.setUp()

        def one_multiple(block):
            block.set_max_noutput_items(block.output_multiple())
        x = never_zero(rng, CHUNK + 777)
        self.side_by_side("ccc", 2, random_taps(rng, "ccc", 64), x, configure=one_multiple,
                          max_chunk=100000)
        # A flowgraph-wide limit below the output multiple is fine.
        self.setUp()
        src = blocks.vector_source_c(x[:100000], False)
        taps = random_taps(rng, "ccc", 64)
        ours = wideband.fft_filter_ccc(2, taps)
        sink = blocks.vector_sink_c()
        self.tb.connect(src, ours, sink)
        self.tb.run(1000)
        assert_same_stream(sink.data(), reference(x[:100000], taps, 2))

    def test_004_decimation_beyond_the_stream(self):
        # Decimation larger than the stream (no output at all, and the stream
        # still ends), and one output per 1000 samples.
        rng = np.random.default_rng(4)
        taps = random_taps(rng, "ccf", 7)
        got = self.side_by_side("ccf", 1000, taps, never_zero(rng, 10999), in_tree=False)
        self.assertEqual(len(got), 10)
        self.setUp()
        got = self.side_by_side("ccf", 1000, taps, never_zero(rng, 999), in_tree=False)
        self.assertEqual(len(got), 0)

    def set_taps_at_gate(self, kind, D, old_taps, new_taps, before, after, seed):
        """Holds the stream after `before` input samples until all their
        outputs are out, sets new taps, releases it. Returns (x, output)."""
        rng = np.random.default_rng(seed)
        x = never_zero(rng, before + after)
        src = blocks.vector_source_c(x, False)
        hold = gate(before)
        ours = KINDS[kind][0](D, old_taps)
        sink = blocks.vector_sink_c()
        self.tb.connect(src, hold, ours, sink)
        self.tb.start()
        wait_for(self, lambda: sink.nitems_read(0) >= before // D)
        time.sleep(0.05)   # nothing more may come
        self.assertEqual(sink.nitems_read(0), before // D)
        ours.set_taps(new_taps)
        self.assertEqual(len(ours.taps()), len(new_taps))
        hold.opened.set()
        self.tb.wait()
        got = np.asarray(sink.data())
        self.assertEqual(len(got), len(x) // D)
        return x, got, ours

    def assert_fft_size_after_set_taps(self, kind, D, old_taps, new_taps, ours):
        # set_taps keeps the FFT size while it holds the new taps with a block
        # step of at least half of it (no kernel build while streaming), else
        # it picks what a new block would.
        old_size = KINDS[kind][0](D, old_taps).fft_size()
        step = (old_size - len(new_taps) + 1) // D * D
        if step >= D and 2 * step >= old_size:
            self.assertEqual(ours.fft_size(), old_size)
        else:
            self.assertEqual(ours.fft_size(), KINDS[kind][0](D, new_taps).fft_size())

    def test_005_set_taps_while_running(self):
        # The stream stops after `before` samples, all their floor(before/D)
        # outputs come out, the taps change, the stream resumes. The promise:
        # outputs 0 .. floor(before/D)-1 are the old filter's, all later ones
        # the new filter's applied to the whole stream (the history carries
        # over, nothing is lost or repeated), including the first outputs
        # after the change, which reach back to samples before it.
        # Same length, then shorter taps (the FFT size may change), each with
        # a stop inside an output (before % D != 0) and over several chunks.
        cases = [("ccc", 3, 255, 255, 200002, 150000),
                 ("ccf", 2, 1000, 64, CHUNK + 4321, CHUNK + 1001),
                 ("ccc", 8, 256, 7, 80005, 50000)]
        for i, (kind, D, old_len, new_len, before, after) in enumerate(cases):
            with self.subTest(kind=kind, decimation=D, old=old_len, new=new_len):
                self.setUp()
                rng = np.random.default_rng(50 + i)
                old_taps = random_taps(rng, kind, old_len)
                new_taps = random_taps(rng, kind, new_len)
                x, got, ours = self.set_taps_at_gate(kind, D, old_taps, new_taps,
                                                     before, after, 60 + i)
                m0 = before // D
                assert_same_stream(got[:m0], reference(x, old_taps, D)[:m0],
                                   "before the change")
                assert_same_stream(got[m0:], reference(x, new_taps, D)[m0:],
                                   "after the change")
                self.assert_fft_size_after_set_taps(kind, D, old_taps, new_taps, ours)

    def test_006_set_longer_taps_while_running(self):
        # Longer taps: as above, except that the filter kept only the old
        # taps' history, len(old) - 1 samples before output m0's sample m0*D
        # (core/fft_filter.h: "samples older than it held are taken as
        # zero"): the first outputs after the change see zeros for the
        # samples before m0*D - (len(old) - 1).
        cases = [("ccf", 3, 64, 1000, 100001, 100000),
                 ("ccc", 1, 7, 4097, CHUNK + 3, 20000)]
        for i, (kind, D, old_len, new_len, before, after) in enumerate(cases):
            with self.subTest(kind=kind, decimation=D, old=old_len, new=new_len):
                self.setUp()
                rng = np.random.default_rng(70 + i)
                old_taps = random_taps(rng, kind, old_len)
                new_taps = random_taps(rng, kind, new_len)
                x, got, ours = self.set_taps_at_gate(kind, D, old_taps, new_taps,
                                                     before, after, 80 + i)
                m0 = before // D
                assert_same_stream(got[:m0], reference(x, old_taps, D)[:m0],
                                   "before the change")
                assert_same_stream(
                    got[m0:],
                    reference(x, new_taps, D, zero_before=m0 * D - (old_len - 1))[m0:],
                    "after the change")
                # and that differs from the whole stream's filter where the
                # new taps reach further back than the old history
                affected = -(-(new_len - old_len) // D)
                full = reference(x, new_taps, D)
                self.assertFalse(np.all(matches(got[m0:m0 + affected],
                                                full[m0:m0 + affected],
                                                np.abs(full).max())))
                assert_same_stream(got[m0 + affected:], full[m0 + affected:],
                                   "after the history")
                self.assert_fft_size_after_set_taps(kind, D, old_taps, new_taps, ours)

    def test_007_set_taps_between_runs(self):
        # A new run is a new stream: zero state, the taps last set.
        rng = np.random.default_rng(7)
        x = never_zero(rng, 50001)
        first = random_taps(rng, "ccc", 64)
        src = blocks.vector_source_c(x, False)
        ours = wideband.fft_filter_ccc(3, first)
        sink = blocks.vector_sink_c()
        self.tb.connect(src, ours, sink)
        for taps in (first, random_taps(rng, "ccc", 64), random_taps(rng, "ccc", 300),
                     random_taps(rng, "ccc", 5)):
            ours.set_taps(taps)
            src.rewind()
            sink.reset()
            self.tb.run()
            assert_same_stream(sink.data(), reference(x, taps, 3), f"{len(taps)} taps")

    def toggle_taps_while_streaming(self, D, taps_a, taps_b, samples, changes, seed):
        """Streams without a stop while another thread switches the taps
        between a and b `changes` times. Returns (x, output, labels): per
        output 'a' or 'b' where it matches that filter on the whole stream,
        '-' where neither."""
        rng = np.random.default_rng(seed)
        x = never_zero(rng, samples)
        src = blocks.vector_source_c(x, False)
        ours = wideband.fft_filter_ccc(D, taps_a)
        sink = blocks.vector_sink_c()
        self.tb.connect(src, ours, sink)
        self.tb.start()
        # The switches must meet the stream, not a flowgraph still building
        # its kernels.
        wait_for(self, lambda: ours.nitems_read(0) > 0)
        for i in range(changes):
            time.sleep(0.02)
            ours.set_taps(taps_b if i % 2 == 0 else taps_a)
        self.tb.wait()
        got = np.asarray(sink.data())
        self.assertEqual(len(got), samples // D)
        ref_a = reference(x, taps_a, D)
        ref_b = reference(x, taps_b, D)
        scale = max(np.abs(ref_a).max(), np.abs(ref_b).max())
        labels = np.where(matches(got, ref_a, scale), "a",
                          np.where(matches(got, ref_b, scale), "b", "-"))
        return x, got, labels

    @staticmethod
    def runs(labels):
        """[(label, first, count)] of the runs of equal labels."""
        edges = np.flatnonzero(labels[1:] != labels[:-1]) + 1
        starts = np.concatenate([[0], edges])
        ends = np.concatenate([edges, [len(labels)]])
        return [(str(labels[s]), int(s), int(e - s)) for s, e in zip(starts, ends)]

    def test_008_set_taps_while_streaming(self):
        # Taps of one length switched back and forth while chunks are in
        # flight: every output is one filter's or the other's on the whole
        # stream, and the switches happen between chunks.
        rng = np.random.default_rng(8)
        taps_a = random_taps(rng, "ccc", 64)
        taps_b = random_taps(rng, "ccc", 64)
        _, _, labels = self.toggle_taps_while_streaming(2, taps_a, taps_b, 8 * CHUNK, 12, 9)
        runs = self.runs(labels)
        self.assertNotIn("-", labels, runs[:20])
        self.assertIn("b", labels)

    def test_009_set_taps_of_other_lengths_while_streaming(self):
        # As test_008, with a 64-tap and a 16-tap filter (the FFT size
        # changes too). Every output is one filter's on the whole stream,
        # except right after a switch from the short to the long one, where
        # the history was the short filter's (test_006): there it must equal
        # the long filter on the stream with the older samples zeroed.
        D = 1
        rng = np.random.default_rng(10)
        taps_a = random_taps(rng, "ccc", 64)
        taps_b = random_taps(rng, "ccc", 16)
        for attempt in range(3):
            self.setUp()
            x, got, labels = self.toggle_taps_while_streaming(
                D, taps_a, taps_b, 8 * CHUNK, 12, 11 + attempt)
            runs = self.runs(labels)
            scale = np.abs(reference(x, taps_a, D)).max()
            for i, (label, first, count) in enumerate(runs):
                if label != "-":
                    continue
                what = f"attempt {attempt}: outputs {first}..{first + count - 1} " \
                       f"match neither filter; runs: {runs[max(0, i - 2):i + 3]}"
                self.assertTrue(0 < i < len(runs) - 1 and runs[i - 1][0] == "b" and
                                runs[i + 1][0] == "a", what)
                truncated = reference_at(x, taps_a, D, first, count,
                                         zero_before=first * D - (len(taps_b) - 1))
                self.assertTrue(np.all(matches(got[first:first + count], truncated, scale)),
                                what)

    def test_010_taps_set_twice_between_chunks(self):
        # Taps set while the pipeline flushes (a call without new input) and
        # set back before the next chunk: no sample ever went through the
        # first change, so the output must be the unchanged filter's. Here the
        # change is to shorter taps and back, which must not shorten the
        # history.
        rng = np.random.default_rng(12)
        D, before, after = 1, 40000, 40000
        taps_a = random_taps(rng, "ccc", 64)
        taps_b = random_taps(rng, "ccc", 16)
        x = never_zero(rng, before + after)
        src = blocks.vector_source_c(x, False)
        hold = gate(before)
        ours = wideband.fft_filter_ccc(D, taps_a)
        # one output item per call: the flush takes `before` calls
        ours.set_output_multiple(1)
        ours.set_max_noutput_items(1)
        sink = blocks.vector_sink_c()
        self.tb.connect(src, hold, ours, sink)
        self.tb.start()
        wait_for(self, lambda: ours.nitems_read(0) >= before)
        flushing = sink.nitems_read(0)
        ours.set_taps(taps_b)
        wait_for(self, lambda: sink.nitems_read(0) >= before)
        if flushing > before - 1000:
            self.skipTest(f"the flush was too fast to set taps during it ({flushing})")
        ours.set_taps(taps_a)
        hold.opened.set()
        self.tb.wait()
        assert_same_stream(sink.data(), reference(x, taps_a, D))

    def tags_case(self, kind, D, samples, offsets, max_chunk=None):
        """Runs ours and the in-tree block with a tag on each input offset;
        returns [(offset, k)] of each block's output tags."""
        rng = np.random.default_rng(samples)
        x = never_zero(rng, samples)
        tags = []
        for k in offsets:
            tag = gr.tag_t()
            tag.offset = k
            tag.key = pmt.intern(f"key{k % 3}")
            tag.value = pmt.from_long(k)
            tag.srcid = pmt.intern("src")
            tags.append(tag)
        src = blocks.vector_source_c(x, False, 1, tags)
        ours_make, in_tree_make = KINDS[kind]
        taps = random_taps(rng, kind, 33)
        ours = ours_make(D, taps)
        theirs = in_tree_make(D, taps)
        ours_sink = blocks.vector_sink_c()
        their_sink = blocks.vector_sink_c()
        if max_chunk:
            self.chunks = random_chunks(max_chunk, samples)
            self.tb.connect(src, self.chunks, ours, ours_sink)
        else:
            self.tb.connect(src, ours, ours_sink)
        self.tb.connect(src, theirs, their_sink)
        self.tb.run()
        out = []
        for sink in (ours_sink, their_sink):
            got = [(t.offset, pmt.to_long(t.value)) for t in sink.tags()]
            for t in sink.tags():
                self.assertEqual(pmt.symbol_to_string(t.key),
                                 f"key{pmt.to_long(t.value) % 3}")
                self.assertEqual(pmt.symbol_to_string(t.srcid), "src")
            out.append((sorted(got, key=lambda t: t[1]), len(sink.data())))
        return out

    TAG_CASES = [("ccc", 1, 70001, None), ("ccf", 3, CHUNK + 70001, 50000),
                 ("ccc", 8, 70001, None)]

    @staticmethod
    def tag_offsets(D, samples):
        last = samples // D * D   # input samples up to here make outputs
        return sorted({0, 1, D - 1, D, D + 1, 5 * D + D // 2, 1000 * D - 1,
                       CHUNK - 1, CHUNK, CHUNK + 1} & set(range(last)) |
                      {last - D, last - D // 2 - 1, last - 1} - {-1})

    def test_011_tags_as_the_in_tree_block(self):
        # Every tag with its key, value and source, on the output item where
        # the in-tree block puts it (GNU Radio's scheduler propagates them
        # for both blocks by the relative rate 1/D).
        for kind, D, samples, max_chunk in self.TAG_CASES:
            with self.subTest(kind=kind, decimation=D):
                self.setUp()
                offsets = self.tag_offsets(D, samples)
                (ours, count), (theirs, their_count) = self.tags_case(
                    kind, D, samples, offsets, max_chunk)
                self.assertEqual(count, samples // D)
                # the in-tree block (GNU Radio's propagation) rounds k / D and
                # drops the stream's tail, its tags there too; ours puts a tag
                # on item floor(k / D) (test_012): the same tags, at most one
                # item earlier
                self.assertLessEqual({k for _, k in theirs}, {k for _, k in ours})
                for offset, k in theirs:
                    self.assertIn(offset, (k // D, k // D + 1), f"in-tree tag on {k}")
                # every tag whose item exists either way is there
                self.assertEqual([k for _, k in ours if k // D + 1 < count],
                                 [k for k in offsets if k // D + 1 < count])
                for offset, k in ours:
                    self.assertIn(offset, (k // D, k // D + 1), f"tag on sample {k}")

    def test_012_tag_offsets_are_floor_k_over_d(self):
        # The header's promise: a tag on input sample k goes to output item
        # floor(k/D), so that every tag before the last output arrives.
        for kind, D, samples, max_chunk in self.TAG_CASES:
            with self.subTest(kind=kind, decimation=D):
                self.setUp()
                offsets = self.tag_offsets(D, samples)
                (ours, _), _ = self.tags_case(kind, D, samples, offsets, max_chunk)
                self.assertEqual(ours, [(k // D, k) for k in offsets])

    def test_013_bad_arguments_raise_value_error(self):
        for kind, (make, _) in KINDS.items():
            with self.subTest(kind=kind):
                taps = [0.5, 1.0, 0.5]
                for D in (0, -1, -1000):
                    with self.assertRaisesRegex(ValueError, "decimation must be >= 1"):
                        make(D, taps)
                for D in (2**24, 2**31 - 1):
                    with self.assertRaisesRegex(
                            ValueError, r"taps \+ decimation - 1 must be at most 2\^24"):
                        make(D, taps)
                # a chunk (WIDEBAND_CHUNK_SAMPLES) beyond what the device holds
                with mock.patch.dict(os.environ, {"WIDEBAND_CHUNK_SAMPLES": str(2**30)}):
                    with self.assertRaisesRegex(ValueError, "fft_convolution|allocates"):
                        make(1, taps)
                with self.assertRaisesRegex(ValueError, "taps must not be empty"):
                    make(1, [])
                bad_values = [float("nan"), float("inf"), -float("inf")]
                if kind == "ccc":
                    bad_values += [complex(1, float("nan")), complex(float("inf"), 0)]
                for bad in bad_values:
                    with self.assertRaisesRegex(ValueError, "taps must be finite"):
                        make(1, [1.0, bad, 1.0])
                for device in ("no-such-device-xyz", "9:9", "0:", "1:x"):
                    with self.assertRaisesRegex(ValueError, "device"):
                        make(1, taps, device)
                if not any(d["type"] == "GPU" for d in wideband.list_devices()):
                    with self.assertRaisesRegex(ValueError, "(?i)gpu"):
                        make(1, taps, "gpu")
                block = make(2, taps)
                with self.assertRaisesRegex(ValueError, "taps must not be empty"):
                    block.set_taps([])
                for bad in bad_values:
                    with self.assertRaisesRegex(ValueError, "taps must be finite"):
                        block.set_taps([1.0, bad])
                # refused taps leave the block as it was
                self.assertEqual(list(block.taps()), taps)
                self.assertEqual(block.decimation(), 2)

    def test_014_accessors(self):
        rng = np.random.default_rng(14)
        automatic = wideband.find_device("")["name"]
        for kind, ntaps, D in (("ccc", 1, 1), ("ccf", 7, 3), ("ccc", 255, 8),
                               ("ccf", 4097, 2)):
            with self.subTest(kind=kind, ntaps=ntaps, decimation=D):
                taps = random_taps(rng, kind, ntaps)
                block = KINDS[kind][0](D, taps, "")
                self.assertEqual(block.decimation(), D)
                got = block.taps()
                self.assertEqual(len(got), ntaps)
                self.assertTrue(all(abs(a - b) <= 1e-6 * abs(b) for a, b in zip(got, taps)))
                self.assertEqual(block.device_name(), automatic)
                self.assertEqual(block.latency(), 2 * max(CHUNK, D))
                self.assertEqual(block.relative_rate_i(), 1)
                self.assertEqual(block.relative_rate_d(), D)
                # an FFT that holds the taps and one step of D, of small prime
                # factors, not absurdly long
                L = block.fft_size()
                self.assertGreaterEqual(L, ntaps + D - 1)
                self.assertLessEqual(L, max(64 * (ntaps + D), 65536))
                rest = L
                for p in (2, 3, 5, 7, 11, 13):
                    while rest % p == 0:
                        rest //= p
                self.assertEqual(rest, 1, f"fft_size {L}")
        # real taps are taken as real, complex ones keep their imaginary part
        block = wideband.fft_filter_ccc(1, [1 + 2j, -0.5j])
        self.assertEqual(list(block.taps()), [1 + 2j, -0.5j])
        block = wideband.fft_filter_ccf(1, [0.25, -2.0])
        self.assertEqual(list(block.taps()), [0.25, -2.0])

    def test_015_the_in_tree_calls_work(self):
        # A flowgraph for the in-tree blocks works with only the module changed:
        # nthreads (ignored) where the in-tree block has it, the same exception
        # types; the device follows nthreads, or comes third as before.
        taps = [0.5, 1.0, 0.5]
        device = wideband.find_device("")["name"]
        for kind, (ours, in_tree) in KINDS.items():
            with self.subTest(kind=kind):
                for args, keywords in (((2, taps), {}), ((2, taps, 3), {}),
                                       ((2, taps), {"nthreads": 3}),
                                       ((2,), {"taps": taps, "nthreads": 0})):
                    in_tree(*args, **keywords)
                    block = ours(*args, **keywords)
                    self.assertEqual((block.decimation(), block.device_name()), (2, device))
                for args, keywords in (((2, taps, 1, ""), {}), ((2, taps, ""), {}),
                                       ((2, taps), {"device": ""}),
                                       ((2, taps, 4), {"device": ""})):
                    self.assertEqual(ours(*args, **keywords).device_name(), device)
                for decimation, error in ((0, ValueError), (1.5, TypeError)):
                    with self.assertRaises(error):
                        in_tree(decimation, taps)
                    with self.assertRaises(error):
                        ours(decimation, taps)

    def test_016_integer_inputs_against_the_in_tree_chain(self):
        # Complex int16 and int8 over their whole range against GNU Radio's
        # interleaved_short_to_complex / interleaved_char_to_complex ->
        # fft_filter_ccc / ccf, whole and in random pieces; sizes of test_001.
        rng = np.random.default_rng(16)
        for input_type, item_size in (("sc16", 4), ("sc8", 2)):
            for kind, ntaps, D, max_chunk in (("ccf", 255, 2, 4000), ("ccc", 64, 8, None)):
                with self.subTest(input_type=input_type, kind=kind):
                    self.setUp()
                    x = stream_qa_helpers.never_zero_integers(rng, 60000 + D - 1, input_type)
                    self.side_by_side(kind, D, random_taps(rng, kind, ntaps), x,
                                      max_chunk=max_chunk, input_type=input_type)
            for ours, _ in KINDS.values():
                block = ours(1, [1.0], "", input_type)
                self.assertEqual(block.input_signature().sizeof_stream_item(0), item_size)
                self.assertEqual(ours(1, [1.0], 1, "", input_type)
                                 .input_signature().sizeof_stream_item(0), item_size)
        self.assertEqual(wideband.fft_filter_ccc(1, [1.0])
                         .input_signature().sizeof_stream_item(0), 8)

    def test_017_bad_input_type_raises_value_error(self):
        for ours, _ in KINDS.values():
            for bad in ("cf32", "SC8", "", "ci16_le"):
                with self.subTest(block=ours.__name__, input_type=bad):
                    with self.assertRaises(ValueError) as raised:
                        ours(2, [1.0, 0.5], input_type=bad)
                    self.assertEqual(str(raised.exception),
                                     'input_type must be "fc32" (complex float), "sc16" '
                                     f'(complex int16) or "sc8" (complex int8); got "{bad}"')


if __name__ == '__main__':
    gr_unittest.run(qa_fft_filter)
