#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
wideband.pfb_channelizer_ccf against gnuradio.filter.pfb.channelizer_ccf: both
blocks run in the same flowgraph on the same random, never-zero input with
random taps, and every output sample of every channel of ours is compared with
the in-tree block's.

Alignment: none is needed. Both blocks give output q of every channel after
input samples 0 .. (q+1)D-1 (D = numchans / oversample_rate), so sample q of
our output c is compared with sample q of the in-tree output channel_map[c].
The only difference is at the end of a finite stream of N samples: ours
delivers all floor(N/D) frames (asserted), the in-tree block drops a tail
(measured: none for oversample_rate 1, 2 to 4 frames for rates 2 and 4/3, up
to 24 frames for D = 1, where its input splitter also drops N mod numchans
samples). Ours is compared with the in-tree block's frames, and its remaining
frames with reference().

reference() is a float64 numpy evaluation of the formula in the block's
header; test_001 checks it against the in-tree block. It is also the expected
output where the in-tree block cannot serve: runs whose settings change at a
known frame, and hundreds of channels.

Tolerance, per channel (the blocks compute in float32 in different orders: a
ntaps-term FIR sum, then an M-point FFT, so they differ by rounding only):
  every sample:  |ours - ref| <= ELEMENT_TOL * max|ref of the channel|
  the channel:   ||ours - ref|| <= L2_TOL * ||ref of the channel||
The rounding error of a float32 sum of n terms grows like eps * sqrt(n)
(eps = 6e-8) relative to the sum's size; for the longest filters here (a few
thousand taps over all branches, then log2 M FFT stages) that is a few 1e-6
at worst. Measured on PoCL over this file: at most 5e-7, both in L2 and per
sample, a margin of 20 for other devices' rounding. Per sample relative to
the channel's largest, since a single output may be near zero by
cancellation. Any real mistake (a wrong
tap, rotation, channel, or a sample off by one) changes a channel by 1e-1 or
more.
"""

import os
import subprocess
import sys
import tempfile
import time
from unittest import mock

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from gnuradio.filter import pfb
from gnuradio import wideband
import stream_qa_helpers
from stream_qa_helpers import gate, never_zero, random_chunks, wait_for
from stream_qa_helpers import channelizer_reference as reference

ELEMENT_TOL = 1e-5
L2_TOL = 1e-5

# Input samples our block computes at once (see latency(): two of them in flight).
CHUNK = 1 << 19


def random_taps(rng, count):
    """Random prototype taps, no zero among them (not a useful filter, but
    every tap and every channel then matters)."""
    return [float(t) for t in rng.uniform(0.1, 1.0, count) * rng.choice((-1, 1), count)]


def decimation(numchans, oversample_rate):
    return int(round(numchans / oversample_rate))


def assert_same_channel(ours, ref, what=""):
    """Raises AssertionError unless ours matches ref (same length) within the
    tolerances."""
    stream_qa_helpers.assert_same_stream(ours, ref, ELEMENT_TOL, L2_TOL, what)


def assert_matches_in_tree(testcase, ours, in_tree, channel_map, x, taps, numchans, D,
                           what=""):
    """ours: one array of samples per output, for the first len(ours) entries
    of channel_map; in_tree: the in-tree block's samples, one list per
    channel. Ours must have exactly floor(len(x) / D) samples per output, equal
    to the in-tree block's where it has them, and to reference() after that."""
    frames = len(x) // D
    in_tree_frames = min(len(channel) for channel in in_tree)
    # the in-tree block drops the stream's tail (see the module docstring)
    testcase.assertLessEqual(in_tree_frames, frames)
    testcase.assertGreaterEqual(in_tree_frames, 0.9 * frames - 30, what)
    tail = reference(x, taps, numchans, D, first_frame=in_tree_frames)
    for slot, samples in enumerate(ours):
        channel = channel_map[slot]
        samples = np.asarray(samples)
        testcase.assertEqual(len(samples), frames, f"{what} output {slot}: item count")
        assert_same_channel(samples[:in_tree_frames], in_tree[channel][:in_tree_frames],
                            f"{what} output {slot} (channel {channel})")
        assert_same_channel(samples[in_tree_frames:], tail[:, channel],
                            f"{what} output {slot} (channel {channel}), tail")


class qa_pfb_channelizer_ccf(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()

    def tearDown(self):
        self.tb = None

    def side_by_side(self, numchans, oversample_rate, taps, x, channel_map=None,
                     outputs=None, vector_output=False, max_chunk=None,
                     source_max_noutput=None, input_type="fc32"):
        """Runs ours and the in-tree block on the input x (complex, or
        interleaved integers for input_type sc16 and sc8, which the in-tree
        chain converts); compares every connected output. Returns ours'
        outputs (frames x outputs array)."""
        samples = len(stream_qa_helpers.as_complex(x))
        D = decimation(numchans, oversample_rate)
        full_map = list(channel_map) if channel_map else list(range(numchans))
        outputs = len(full_map) if outputs is None else outputs
        src, ref_src = stream_qa_helpers.side_by_side_sources(self.tb, x, input_type)
        if source_max_noutput:
            src.set_max_noutput_items(source_max_noutput)
        ref = pfb.channelizer_ccf(numchans, taps, oversample_rate)
        ours = wideband.pfb_channelizer_ccf(numchans, taps, oversample_rate,
                                            channel_map or [], "", 100, vector_output,
                                            input_type)
        self.tb.connect(ref_src, ref)
        if max_chunk:
            # (a Python block must outlive the run: keep a reference)
            self.chunks = random_chunks(max_chunk, samples,
                                        item=stream_qa_helpers.SAMPLE_ITEMS[input_type])
            self.tb.connect(src, self.chunks, ours)
        else:
            self.tb.connect(src, ours)
        ref_sinks = [blocks.vector_sink_c() for _ in range(numchans)]
        for c, sink in enumerate(ref_sinks):
            self.tb.connect((ref, c), sink)
        if vector_output:
            vector_sink = blocks.vector_sink_c(len(full_map))
            self.tb.connect(ours, vector_sink)
        else:
            our_sinks = [blocks.vector_sink_c() for _ in range(outputs)]
            for slot, sink in enumerate(our_sinks):
                self.tb.connect((ours, slot), sink)
        self.tb.run()
        if vector_output:
            got = np.asarray(vector_sink.data()).reshape(-1, len(full_map))
            self.assertEqual(got.shape, (samples // D, len(full_map)))
        else:
            got = np.asarray([sink.data() for sink in our_sinks]).T
        assert_matches_in_tree(self, list(got.T), [np.asarray(s.data()) for s in ref_sinks],
                               full_map, stream_qa_helpers.as_complex(x), taps, numchans, D,
                               f"{input_type} M={numchans} r={oversample_rate:.4g} "
                               f"ntaps={len(taps)}")
        return got

    def test_000_comparison_detects_a_small_error(self):
        rng = np.random.default_rng(0)
        ref = never_zero(rng, 300).astype(np.complex128)
        assert_same_channel(ref, ref)
        wrong = ref.copy()
        wrong[171] += 2e-5 * np.abs(ref).max()
        with self.assertRaises(AssertionError):
            assert_same_channel(wrong, ref)
        with self.assertRaises(AssertionError):
            assert_same_channel(ref[:-1], ref)
        # a one-sample shift
        with self.assertRaises(AssertionError):
            assert_same_channel(ref[1:], ref[:-1])

    def test_001_reference_formula_matches_in_tree(self):
        rng = np.random.default_rng(1)
        for numchans, rate, ntaps in ((5, 1, 23), (8, 2, 37), (16, 16 / 12, 48)):
            with self.subTest(numchans=numchans, rate=rate):
                self.setUp()
                x = never_zero(rng, numchans * 60 + 3)
                taps = random_taps(rng, ntaps)
                src = blocks.vector_source_c(x)
                ref = pfb.channelizer_ccf(numchans, taps, rate)
                sinks = [blocks.vector_sink_c() for _ in range(numchans)]
                self.tb.connect(src, ref)
                for c, sink in enumerate(sinks):
                    self.tb.connect((ref, c), sink)
                self.tb.run()
                y = reference(x, taps, numchans, decimation(numchans, rate))
                for c, sink in enumerate(sinks):
                    in_tree = np.asarray(sink.data())
                    self.assertGreater(len(in_tree), 50)
                    assert_same_channel(y[:len(in_tree), c], in_tree, f"channel {c}")

    def test_002_all_channels_against_in_tree(self):
        # (numchans, oversample_rate, ntaps): taps lengths that are and are not
        # multiples of numchans, shorter than numchans, long filters; rates 1,
        # 2, numchans (D = 1) and the non-trivial 16/12, 24/18 (D = 12, 18).
        # Half of the runs bring the input in random small pieces, so frames
        # straddle calls.
        configs = ((1, 1, 5), (2, 1, 7), (2, 2, 8), (3, 1, 9), (3, 3, 10),
                   (5, 1, 23), (5, 5, 3), (8, 1, 64), (8, 2, 37),
                   (16, 1, 7), (16, 16 / 12, 48), (16, 2, 161),
                   (24, 1, 240), (24, 24 / 18, 100), (64, 1, 640), (64, 2, 333))
        for number, (numchans, rate, ntaps) in enumerate(configs):
            rng = np.random.default_rng(200 + number)
            taps = random_taps(rng, ntaps)
            samples = max(3000, 150 * numchans) + int(rng.integers(0, numchans))
            with self.subTest(numchans=numchans, rate=rate, ntaps=ntaps):
                self.setUp()
                self.side_by_side(numchans, rate, taps, never_zero(rng, samples),
                                  max_chunk=(3 * numchans + 5) if number % 2 else None)

    def test_003_stream_longer_than_the_pipeline(self):
        # Several full chunks and the pipeline's two in flight, then the flush.
        rng = np.random.default_rng(3)
        taps = random_taps(rng, 37)
        self.side_by_side(8, 2, taps, never_zero(rng, 3 * CHUNK + 12345))

    def test_004_odd_chunkings_give_identical_output(self):
        # Whatever pieces the input comes in, the output is the same, bit for
        # bit: the device keeps the filter's state and the samples short of a
        # frame across calls. (The block's output multiple is 2^18 / D frames,
        # so limiting its own max_noutput_items is not an option: GNU Radio
        # never calls a block whose max_noutput_items is below its output
        # multiple.)
        numchans, rate = 8, 2
        rng = np.random.default_rng(4)
        taps = random_taps(rng, 37)
        x = never_zero(rng, 20011)
        plain = self.side_by_side(numchans, rate, taps, x)
        for samples, variant in ((2003, dict(max_chunk=1)),
                                 (len(x), dict(max_chunk=13)),
                                 (len(x), dict(max_chunk=997)),
                                 (len(x), dict(source_max_noutput=7)),
                                 (len(x), dict(source_max_noutput=4099, max_chunk=29))):
            with self.subTest(**variant):
                self.setUp()
                got = self.side_by_side(numchans, rate, taps, x[:samples], **variant)
                np.testing.assert_array_equal(got, plain[:len(got)])

    def test_005_channel_maps(self):
        numchans, rate = 16, 16 / 12
        taps = random_taps(np.random.default_rng(5), 48)
        for channel_map, outputs in (
                ([5], None),                        # one channel
                ([15, 0, 7, 8, 1], None),           # reordered subset
                ([3, 3, 12, 3], None),              # duplicates
                (list(range(15, -1, -1)), None),    # all, reversed
                ([9, 2, 14, 2, 0, 11], 3),          # fewer outputs than the map
                ([], 1),                            # fewer outputs than channels
                ([4] * 20, 20)):                    # more outputs than channels
            with self.subTest(channel_map=channel_map, outputs=outputs):
                self.setUp()
                self.side_by_side(numchans, rate, taps,
                                  never_zero(np.random.default_rng(50), 4001),
                                  channel_map=channel_map, outputs=outputs,
                                  max_chunk=101)

    def test_006_vector_output(self):
        taps = random_taps(np.random.default_rng(6), 48)
        for channel_map in ([], [15, 0, 7, 7, 1], [3]):
            with self.subTest(channel_map=channel_map):
                self.setUp()
                self.side_by_side(16, 16 / 12, taps,
                                  never_zero(np.random.default_rng(60), 4001),
                                  channel_map=channel_map,
                                  vector_output=True, max_chunk=101)
        self.setUp()
        self.side_by_side(5, 1, random_taps(np.random.default_rng(61), 23),
                          never_zero(np.random.default_rng(62), 3003),
                          vector_output=True)

    def run_with_change(self, numchans, rate, taps, channel_map, samples, before,
                        change, vector_output=False, seed=7):
        """Runs ours with the input held after `before` samples until the
        block has delivered every frame of them; then calls change(block),
        releases the rest and returns (x, frames x outputs array, frames
        delivered before the change); self.sinks: the outputs' sinks."""
        rng = np.random.default_rng(seed)
        x = never_zero(rng, samples)
        D = decimation(numchans, rate)
        width = len(channel_map) if channel_map else numchans
        src = blocks.vector_source_c(x)
        hold = gate(before)
        ours = wideband.pfb_channelizer_ccf(numchans, taps, rate, channel_map, "", 100,
                                            vector_output)
        self.block = ours
        self.tb.connect(src, hold, ours)
        if vector_output:
            sinks = [blocks.vector_sink_c(width)]
        else:
            sinks = [blocks.vector_sink_c() for _ in range(width)]
        for slot, sink in enumerate(sinks):
            self.tb.connect((ours, slot), sink)
        self.sinks = sinks
        self.tb.start()
        first = before // D
        wait_for(self, lambda: all(len(s.data()) >= first * (width if vector_output else 1)
                                   for s in sinks))
        time.sleep(0.05)
        self.assertEqual([len(s.data()) for s in sinks],
                         [first * (width if vector_output else 1)] * len(sinks))
        change(ours)
        hold.opened.set()
        self.tb.wait()
        if vector_output:
            got = np.asarray(sinks[0].data()).reshape(-1, width)
        else:
            got = np.asarray([s.data() for s in sinks]).T
        # no sample lost or repeated
        self.assertEqual(got.shape, (samples // D, width))
        return x, got, first

    def check_set_taps_while_running(self, cases, vector_output=False):
        """cases: (new taps length, input samples before the change).

        The new taps apply from the first frame after the samples already
        consumed, frame floor(before / D). The block keeps the history the old
        filter needs (K*M - D samples before the next frame, K = taps per
        branch, plus the leftover short of a frame); a new filter with more
        taps per branch sees zeros for older samples, i.e. its output equals
        the new filter run on the input with those samples zeroed.
        """
        numchans, rate = 16, 16 / 12
        M, D = numchans, decimation(numchans, rate)
        rng = np.random.default_rng(7)
        old = random_taps(rng, 48)
        channel_map = [0, 5, 11, 5, 15]
        for new_length, before in cases:
            new = random_taps(rng, new_length)
            self.setUp()
            x, got, first = self.run_with_change(
                numchans, rate, old, channel_map, 9001, before,
                lambda block: block.set_taps(new), vector_output)
            K_old = -(-len(old) // M)
            leftover = before - first * D
            zeroed = x.copy()
            older = before - (K_old * M - D + leftover)
            if older > 0:
                zeroed[:older] = 0
            expect_old = reference(x, old, M, D)[:, channel_map]
            expect_new = reference(zeroed, new, M, D)[:, channel_map]
            what = f"{new_length} new taps after {before} samples"
            for slot in range(len(channel_map)):
                assert_same_channel(got[:first, slot], expect_old[:first, slot],
                                    f"{what}: before the change, output {slot}")
                assert_same_channel(got[first:, slot], expect_new[first:, slot],
                                    f"{what}: after the change, output {slot}")
            np.testing.assert_array_equal(np.float32(self.block.taps()), np.float32(new))
            self.assertEqual(self.map_tags(), [[]] * len(self.sinks))  # new taps: none

    def map_tags(self):
        """Each output's tags of a channel map change: [(offset, value)]."""
        return [[(t.offset, np.asarray(pmt.to_python(t.value)).tolist()) for t in sink.tags()
                 if pmt.symbol_to_string(t.key) in ("channel", "channel_map")]
                for sink in self.sinks]

    def test_007_set_taps_while_running(self):
        # Taps of the same number per branch (K = 3): changes at, before and
        # after a frame boundary (D = 12).
        self.check_set_taps_while_running(((48, 5000), (48, 4992), (45, 5003), (33, 4999)))
        self.check_set_taps_while_running(((47, 5001),), vector_output=True)

    def test_008_set_taps_of_another_length_while_running(self):
        # More taps per branch (K = 3 -> 7, 11): the samples older than the
        # history kept are taken as zero, so the first frames after the change
        # differ from the in-tree block's (which has the whole stream in its
        # buffers).
        self.check_set_taps_while_running(((100, 5001), (161, 4800)))
        self.check_set_taps_while_running(((100, 4990),), vector_output=True)

    def test_008b_set_taps_with_fewer_taps_per_branch_while_running(self):
        # K = 3 -> 2: the history shrinks, and stays exact (a race once: the
        # next upload went into the window the previous call still read).
        self.check_set_taps_while_running(((20, 4999), (17, 5003)))

    def test_009_set_channel_map_while_running(self):
        numchans, rate = 16, 16 / 12
        M, D = numchans, decimation(numchans, rate)
        rng = np.random.default_rng(8)
        taps = random_taps(rng, 48)
        for old_map, new_map, vector_output, before in (
                ([0, 5, 11, 5, 15], [15, 5, 0, 1, 15], False, 5000),  # two kept
                ([0, 5, 11, 5, 15], [3, 4, 5, 6, 7, 8, 9], False, 5003),  # longer
                ([2, 9, 9], [9, 2, 14], True, 4997)):
            with self.subTest(old=old_map, new=new_map, vector_output=vector_output):
                self.setUp()
                x, got, first = self.run_with_change(
                    numchans, rate, taps, old_map, 9001, before,
                    lambda block: block.set_channel_map(new_map), vector_output)
                expect = reference(x, taps, M, D)
                self.assertEqual(self.block.channel_map(), new_map)
                for slot in range(got.shape[1]):
                    assert_same_channel(got[:first, slot], expect[:first, old_map[slot]],
                                        f"before the change, output {slot}")
                    assert_same_channel(got[first:, slot], expect[first:, new_map[slot]],
                                        f"after the change, output {slot}")
                # The in-tree block's channels on either side (it drops the
                # stream's tail).
                tb = gr.top_block()
                in_tree = pfb.channelizer_ccf(numchans, taps, rate)
                in_tree_sinks = [blocks.vector_sink_c() for _ in range(numchans)]
                tb.connect(blocks.vector_source_c(x), in_tree)
                for c, sink in enumerate(in_tree_sinks):
                    tb.connect((in_tree, c), sink)
                tb.run()
                channels = [np.asarray(sink.data()) for sink in in_tree_sinks]
                end = min(len(c) for c in channels)
                self.assertGreater(end, first)
                for slot in range(got.shape[1]):
                    assert_same_channel(got[:first, slot], channels[old_map[slot]][:first],
                                        f"in-tree before the change, output {slot}")
                    assert_same_channel(got[first:end, slot],
                                        channels[new_map[slot]][first:end],
                                        f"in-tree after the change, output {slot}")
                # The tag: on the first item of the new map, on the outputs
                # whose channel changed (with vector output, the whole map).
                if vector_output:
                    self.assertEqual(self.map_tags(), [[(first, new_map)]])
                else:
                    self.assertEqual(self.map_tags(), [
                        [(first, new)] if slot >= len(old_map) or new != old_map[slot] else []
                        for slot, new in enumerate(new_map[:len(self.sinks)])])


    def test_010_settings_between_runs(self):
        # Each run starts from zero history with the settings of the moment,
        # like a new block: taps of any length and maps may change between runs.
        numchans, rate = 16, 16 / 12
        M, D = numchans, decimation(numchans, rate)
        rng = np.random.default_rng(10)
        x = never_zero(rng, 3001)
        src = blocks.vector_source_c(x)
        ours = wideband.pfb_channelizer_ccf(numchans, random_taps(rng, 48), rate,
                                            [1, 2, 3])
        sinks = [blocks.vector_sink_c() for _ in range(2)]
        self.tb.connect(src, ours)
        for slot, sink in enumerate(sinks):
            self.tb.connect((ours, slot), sink)
        for taps, channel_map in ((ours.taps(), [1, 2, 3]),
                                  (random_taps(rng, 100), [7, 0]),
                                  (random_taps(rng, 20), [15, 15, 4, 2]),
                                  (random_taps(rng, 48), [])):
            ours.set_taps(taps)
            ours.set_channel_map(channel_map)
            src.rewind()
            for sink in sinks:
                sink.reset()
            self.tb.run()
            expect = reference(x, taps, M, D)
            for slot, sink in enumerate(sinks):
                channel = (channel_map or list(range(M)))[slot]
                assert_same_channel(sink.data(), expect[:, channel],
                                    f"map {channel_map}, output {slot}")

    def run_tags(self, numchans, rate, vector_output, samples, offsets):
        """Tags on input samples `offsets` (key, value k, source): returns, per
        output, the sorted (output offset, key, value, source) tuples."""
        rng = np.random.default_rng(11)
        tags = [gr.tag_utils.python_to_tag(
            (k, pmt.intern(f"key{k % 3}"), pmt.from_long(k), pmt.intern("src")))
            for k in offsets]
        src = blocks.vector_source_c(never_zero(rng, samples), False, 1, tags)
        ours = wideband.pfb_channelizer_ccf(numchans, random_taps(rng, 30), rate,
                                            [], "", 100, vector_output)
        if vector_output:
            sinks = [blocks.vector_sink_c(numchans)]
        else:
            sinks = [blocks.vector_sink_c() for _ in range(numchans)]
        self.tb.connect(src, ours)
        for slot, sink in enumerate(sinks):
            self.tb.connect((ours, slot), sink)
        self.tb.run()
        return [sorted((t.offset, pmt.symbol_to_string(t.key), pmt.to_long(t.value),
                        pmt.symbol_to_string(t.srcid)) for t in sink.tags())
                for sink in sinks]

    TAG_CASES = ((16, 16 / 12, False, CHUNK + 20000), (8, 1, True, 5003),
                 (5, 5, False, 5003))

    def tag_offsets(self, D, frames):
        # every input sample of the first frames, random ones up to the last
        # whole frame
        rng = np.random.default_rng(D)
        return sorted(set(range(2 * D + 1)) |
                      set(rng.integers(0, (frames - 1) * D, 40).tolist()) |
                      {(frames - 1) * D - 1})

    def test_011_tags_reach_every_output(self):
        # Every tag appears once on every output, key, value and source
        # unchanged, near item k / D (also tags of later chunks, which come
        # out two chunks later).
        for numchans, rate, vector_output, samples in self.TAG_CASES:
            with self.subTest(numchans=numchans, rate=rate, vector_output=vector_output):
                self.setUp()
                D = decimation(numchans, rate)
                offsets = self.tag_offsets(D, samples // D)
                outputs = self.run_tags(numchans, rate, vector_output, samples, offsets)
                self.assertEqual(len(outputs), 1 if vector_output else numchans)
                for slot, got in enumerate(outputs):
                    self.assertEqual(sorted((t[1:] for t in got), key=lambda t: t[1]),
                                     [(f"key{k % 3}", k, "src") for k in offsets],
                                     f"output {slot}")
                    for offset, _, k, _ in got:
                        self.assertIn(offset, (k // D, k // D + 1), f"tag at {k}")

    def test_012_tag_offsets_are_floor_k_over_d(self):
        # The header promises item floor(k / D) (GNU Radio's own propagation
        # rounds k / D, and would lose a tag in the last half frame of a
        # finite stream): the block propagates its tags itself.
        for numchans, rate, vector_output, samples in self.TAG_CASES:
            with self.subTest(numchans=numchans, rate=rate, vector_output=vector_output):
                self.setUp()
                D = decimation(numchans, rate)
                frames = samples // D
                offsets = self.tag_offsets(D, frames) + [frames * D - 1]
                outputs = self.run_tags(numchans, rate, vector_output, samples, offsets)
                expected = sorted((k // D, f"key{k % 3}", k, "src") for k in offsets)
                for slot, got in enumerate(outputs):
                    self.assertEqual(got, expected, f"output {slot}")

    def test_013_bad_arguments_raise_value_error(self):
        make = wideband.pfb_channelizer_ccf
        taps = [0.5, 1.0, 0.5]
        with self.assertRaisesRegex(ValueError, r"numchans must be 1\.\.16777216"):
            make(0)
        with self.assertRaisesRegex(ValueError, r"numchans must be 1\.\.16777216"):
            make(0, taps, 1, [0])
        with self.assertRaisesRegex(ValueError, r"numchans must be 1\.\.16777216"):
            make.create_taps(0)
        with self.assertRaisesRegex(ValueError, r"numchans must be 1\.\.16777216"):
            make(-1)
        for numchans in (2**24 + 1, 2**32 - 1):
            with self.assertRaisesRegex(ValueError, r"numchans must be 1\.\.16777216"):
                make(numchans, taps)
            with self.assertRaisesRegex(ValueError, r"numchans must be 1\.\.16777216"):
                make.create_taps(numchans)
        with self.assertRaisesRegex(ValueError, r"need \d+ taps, more than the 2\^30"):
            make.create_taps(16, 1e9)
        # a chunk (WIDEBAND_CHUNK_SAMPLES) beyond what the device holds: at
        # construction, before any device memory is taken
        with mock.patch.dict(os.environ, {"WIDEBAND_CHUNK_SAMPLES": str(2**30)}):
            with self.assertRaisesRegex(
                    ValueError, r"input window.*(allocates at most|2\^32 samples)"):
                make(16, taps)
        for rate in (3, 32, 0, -1, 0.5, 16.5, 1.5, float("nan"), float("inf")):
            with self.subTest(oversample_rate=rate):
                with self.assertRaisesRegex(ValueError, "oversample_rate must be numchans/i"):
                    make(16, taps, rate)
        for rate in (1, 2, 4, 16 / 12, 16 / 3, 16):   # D = 16, 8, 4, 12, 3, 1
            self.assertEqual(make(16, taps, rate).decimation(), round(16 / rate))
        for channel_map in ([16], [0, -1], [3, 99, 2], [-16]):
            with self.subTest(channel_map=channel_map):
                with self.assertRaisesRegex(ValueError, "out of range 0..15"):
                    make(16, taps, 1, channel_map)
        for bad in (float("nan"), float("inf"), -float("inf")):
            with self.assertRaisesRegex(ValueError, "taps must be finite"):
                make(16, [1.0, bad, 1.0])
        for atten in (0, -3, float("nan")):
            with self.subTest(atten=atten):
                with self.assertRaisesRegex(ValueError, "atten must be a positive"):
                    make(16, [], 1, [], "", atten)
                with self.assertRaisesRegex(ValueError, "atten must be a positive"):
                    make.create_taps(16, atten)
        # with taps given, atten is not used
        self.assertEqual(len(make(16, taps, 1, [], "", 0).taps()), 3)
        for device in ("no-such-device-xyz", "9:9", "0:", "1:x"):
            with self.assertRaisesRegex(ValueError, "device"):
                make(16, taps, 1, [], device)
        if not any(d["type"] == "GPU" for d in wideband.list_devices()):
            with self.assertRaisesRegex(ValueError, "(?i)gpu"):
                make(16, taps, 1, [], "gpu")

        block = make(16, taps, 1, [4, 5])
        for channel_map in ([16, 0], [-1, 3]):
            with self.assertRaisesRegex(ValueError, "out of range"):
                block.set_channel_map(channel_map)
        with self.assertRaisesRegex(ValueError, "at least one tap"):
            block.set_taps([])
        with self.assertRaisesRegex(ValueError, "finite"):
            block.set_taps([1.0, float("nan")])
        # refused settings leave the block as it was
        self.assertEqual(block.channel_map(), [4, 5])
        self.assertEqual(list(block.taps()), taps)
        vector = make(16, taps, 1, [4, 5], "", 100, True)
        for channel_map in ([1], [1, 2, 3], []):
            with self.assertRaisesRegex(ValueError, "keep its length"):
                vector.set_channel_map(channel_map)
        vector.set_channel_map([15, 15])
        self.assertEqual(vector.channel_map(), [15, 15])

        # connections: more outputs than the map has entries (a shorter map set
        # before the start), then a map shorter than the connected outputs
        connected = make(16, taps, 1, [1, 2, 3])
        self.tb.connect(blocks.vector_source_c([1j] * 64), connected)
        for slot in range(3):
            self.tb.connect((connected, slot), blocks.null_sink(gr.sizeof_gr_complex))
        connected.set_channel_map([5, 6])
        with self.assertRaisesRegex(ValueError, "3 outputs are connected but the channel "
                                                "map has only 2 entries"):
            self.tb.start()
        connected.set_channel_map([5, 6, 7])
        self.tb.run()
        with self.assertRaisesRegex(ValueError, "an entry for each of the 3 connected"):
            connected.set_channel_map([5, 6])
        self.assertEqual(connected.channel_map(), [5, 6, 7])

    def test_014_accessors(self):
        taps = [0.25, 0.5, 1.0, 0.5, 0.25]
        block = wideband.pfb_channelizer_ccf(24, taps, 24 / 18, [3, 1])
        self.assertEqual(block.numchans(), 24)
        self.assertEqual(block.decimation(), 18)
        self.assertEqual(list(block.taps()), taps)
        self.assertEqual(block.channel_map(), [3, 1])
        self.assertEqual(block.device_name(), wideband.find_device("")["name"])
        self.assertGreaterEqual(block.latency(), 2 * CHUNK)
        self.assertEqual(wideband.pfb_channelizer_ccf(5).channel_map(), [0, 1, 2, 3, 4])

    def designed_response(self, numchans, atten):
        """The designed prototype's magnitude response in dB relative to DC,
        at frequencies in units of the channel spacing (sampling rate numchans)."""
        h = np.asarray(wideband.pfb_channelizer_ccf.create_taps(numchans, atten))
        self.assertAlmostEqual(h.sum(), 1.0, places=4)   # unity gain at DC
        np.testing.assert_allclose(h, h[::-1], atol=1e-7)  # linear phase
        n = 1 << 18
        response = np.abs(np.fft.rfft(h.astype(np.float64), n))
        frequency = np.arange(len(response)) * numchans / n
        return frequency, 20 * np.log10(np.maximum(response / response[0], 1e-30))

    def test_015_designed_taps(self):
        # A low-pass at sampling rate numchans (frequencies in channel
        # spacings): unity gain at DC, flat to 0.4 (within 0.5 dB from 30 dB
        # attenuation on; a Kaiser window for 20 dB ripples by 2 dB), and
        # from 0.6 to numchans/2 at least atten - 3 dB down (Kaiser's formulas
        # are approximate; measured: within 2.5 dB for numchans >= 8; fewer
        # channels, see test_016). The block designs the same taps when given
        # none, and then computes what the in-tree block computes with them.
        for numchans in (8, 16, 64, 1024):
            for atten in (30, 40, 60, 80, 100, 120):
                with self.subTest(numchans=numchans, atten=atten):
                    frequency, response = self.designed_response(numchans, atten)
                    self.assertLess(response[frequency >= 0.6].max(), -(atten - 3))
                    self.assertLess(np.abs(response[frequency <= 0.4]).max(), 0.5)
        for numchans, rate, atten in ((8, 2, 60), (16, 1, 100)):
            with self.subTest(numchans=numchans, rate=rate, atten=atten):
                self.setUp()
                designed = wideband.pfb_channelizer_ccf.create_taps(numchans, atten)
                rng = np.random.default_rng(15)
                x = never_zero(rng, 200 * numchans + 5)
                src = blocks.vector_source_c(x)
                ours = wideband.pfb_channelizer_ccf(numchans, [], rate, [], "", atten)
                np.testing.assert_array_equal(ours.taps(), designed)
                ref = pfb.channelizer_ccf(numchans, designed, rate)
                ours_sinks = [blocks.vector_sink_c() for _ in range(numchans)]
                ref_sinks = [blocks.vector_sink_c() for _ in range(numchans)]
                self.tb.connect(src, ours)
                self.tb.connect(src, ref)
                for c in range(numchans):
                    self.tb.connect((ours, c), ours_sinks[c])
                    self.tb.connect((ref, c), ref_sinks[c])
                self.tb.run()
                assert_matches_in_tree(self, [s.data() for s in ours_sinks],
                                       [np.asarray(s.data()) for s in ref_sinks],
                                       list(range(numchans)), x, designed, numchans,
                                       decimation(numchans, rate), "designed taps")

    def test_016_designed_stop_band_within_about_1_db(self):
        # The header promises atten dB from 0.6 "within about 1 dB": the
        # design takes Kaiser's tap count,
        # ceil((atten - 7.95) / (14.36 * 0.2 / numchans)) + 1.
        for numchans in (2, 3, 5, 7, 8, 16, 64):
            for atten in (30, 40, 60, 80, 100, 120):
                frequency, response = self.designed_response(numchans, atten)
                self.assertLess(response[frequency >= 0.6].max(), -(atten - 1.5),
                                f"numchans {numchans}, atten {atten}")

    def test_017_many_channels(self):
        # 1024 channels as one vector output; 256 channels as 256 streams. A
        # few frames each, against the reference formula.
        for numchans, rate, vector_output in ((1024, 1, True), (256, 2, False)):
            with self.subTest(numchans=numchans, vector_output=vector_output):
                self.setUp()
                D = decimation(numchans, rate)
                rng = np.random.default_rng(numchans)
                taps = random_taps(rng, 4 * numchans - 3)
                x = never_zero(rng, 12 * D + 7)
                src = blocks.vector_source_c(x)
                ours = wideband.pfb_channelizer_ccf(numchans, taps, rate, [], "", 100,
                                                    vector_output)
                self.tb.connect(src, ours)
                if vector_output:
                    sink = blocks.vector_sink_c(numchans)
                    self.tb.connect(ours, sink)
                else:
                    sinks = [blocks.vector_sink_c() for _ in range(numchans)]
                    for c, sink in enumerate(sinks):
                        self.tb.connect((ours, c), sink)
                self.tb.run()
                if vector_output:
                    got = np.asarray(sink.data()).reshape(-1, numchans)
                else:
                    got = np.asarray([sink.data() for sink in sinks]).T
                self.assertEqual(got.shape, (12, numchans))
                expect = reference(x, taps, numchans, D)
                for c in range(numchans):
                    assert_same_channel(got[:, c], expect[:, c], f"channel {c}")

    def test_018_shorter_channel_map_before_the_first_run(self):
        # Before the flowgraph first starts, a shorter map that covers the
        # outputs really connected (here 2 of a 3-entry map) is accepted.
        numchans = 16
        taps = random_taps(np.random.default_rng(18), 48)
        x = never_zero(np.random.default_rng(19), 1601)
        src = blocks.vector_source_c(x)
        ours = wideband.pfb_channelizer_ccf(numchans, taps, 1, [1, 2, 3])
        sinks = [blocks.vector_sink_c() for _ in range(2)]
        self.tb.connect(src, ours)
        for slot, sink in enumerate(sinks):
            self.tb.connect((ours, slot), sink)
        ours.set_channel_map([5, 6])
        self.tb.run()
        expect = reference(x, taps, numchans, numchans)
        for slot, channel in enumerate((5, 6)):
            assert_same_channel(sinks[slot].data(), expect[:, channel], f"output {slot}")

    @gr_unittest.unittest.skipUnless(os.path.exists("/proc/sys/kernel/shmmni"),
                                     "no System V shared memory limits to test")
    def test_019_thousands_of_stream_outputs(self):
        # GNU Radio's System V buffers take two shared memory segments each
        # (kernel.shmmni, 4096 by default, for the whole machine): 2048 streams
        # would fail in start() with "shmget: No space left on device" and
        # MemoryError. The block switches GNU Radio to the shm_open factory
        # first. GNU Radio saves that choice in ~/.gnuradio/prefs, so the run
        # gets a HOME of its own, set up to prefer System V.
        script = """
import numpy as np
from gnuradio import blocks, gr, wideband
numchans = 2048
tb = gr.top_block()
src = blocks.vector_source_c(np.ones(numchans * 6, np.complex64))
ours = wideband.pfb_channelizer_ccf(numchans, [1.0] * (2 * numchans))
tb.connect(src, ours)
sinks = [blocks.vector_sink_c() for _ in range(numchans)]
for c, sink in enumerate(sinks):
    tb.connect((ours, c), sink)
tb.run()
assert all(len(sink.data()) == 6 for sink in sinks)
print("ran")
"""
        with tempfile.TemporaryDirectory() as home:
            prefs = os.path.join(home, ".gnuradio", "prefs")
            os.makedirs(prefs)
            with open(os.path.join(prefs, "vmcircbuf_default_factory"), "w") as f:
                f.write("gr::vmcircbuf_sysv_shm_factory")
            env = dict(os.environ, HOME=home,
                       XDG_CACHE_HOME=os.environ.get("XDG_CACHE_HOME",
                                                     os.path.expanduser("~/.cache")))
            run = subprocess.run([sys.executable, "-c", script], env=env,
                                 capture_output=True, text=True, timeout=300)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            self.assertIn("ran", run.stdout)
            with open(os.path.join(prefs, "vmcircbuf_default_factory")) as f:
                self.assertEqual(f.read().strip(), "gr::vmcircbuf_mmap_shm_open_factory")
    def test_020_sizes_beyond_the_device_refused_before_designing(self):
        # 2^24 channels' designed prototype (33 taps per branch) needs an input
        # window of 4.5 GB: refused from the sizes, before the half-minute,
        # gigabytes-large design, in whatever order the checks come.
        if wideband.find_device("cpu")["max_alloc_bytes"] >= 2**32:
            self.skipTest("this device holds the window")
        start = time.monotonic()
        with self.assertRaisesRegex(ValueError, "input window.*allocates at most"):
            wideband.pfb_channelizer_ccf(2**24, [], 1.0, [], "cpu")
        with self.assertRaisesRegex(ValueError, "numchans must be 1"):
            wideband.pfb_channelizer_ccf(2**24 + 1, [], 1.0, [], "cpu")
        with self.assertRaisesRegex(ValueError, "oversample_rate must be numchans/i"):
            wideband.pfb_channelizer_ccf(2**24, [], 3.0, [], "cpu")
        with self.assertRaisesRegex(ValueError, "out of range"):
            wideband.pfb_channelizer_ccf(2**24, [], 1.0, [2**24], "cpu")
        with self.assertRaisesRegex(ValueError, "device"):
            wideband.pfb_channelizer_ccf(2**24, [], 1.0, [], "no-such-device-xyz")
        self.assertLess(time.monotonic() - start, 2.0)

    def test_021_numchans_as_the_in_tree_block_refuses_it(self):
        # The exception type of gnuradio.filter.pfb.channelizer_ccf, on one line
        # saying what is allowed.
        taps = [0.5, 1.0, 0.5]
        for numchans, kind in ((-4, ValueError), (0, ValueError), (2**40, ValueError),
                               (3.5, TypeError), ("16", TypeError), (None, TypeError)):
            with self.subTest(numchans=numchans):
                if numchans != 2**40:   # the in-tree block makes 2^40 streams
                    with self.assertRaises(kind):
                        pfb.channelizer_ccf(numchans, taps, 1)
                with self.assertRaises(kind) as raised:
                    wideband.pfb_channelizer_ccf(numchans, taps, 1)
                message = str(raised.exception)
                self.assertNotIn("\n", message)
                self.assertRegex(message, r"numchans must be (an integer, )?1\.\.16777216 "
                                          r"\(got .+\)")
        self.assertEqual(wideband.pfb_channelizer_ccf(np.int64(16), taps, 1).numchans(), 16)

    def test_022_in_tree_positional_form_with_atten(self):
        # filter.pfb.channelizer_ccf(numchans, taps=None, oversample_rate=1,
        # atten=100): atten fourth, taps None designs them.
        rng = np.random.default_rng(22)
        numchans, rate = 16, 2
        taps = random_taps(rng, 61)
        x = (rng.standard_normal(4000) + 1j * rng.standard_normal(4000)).astype(np.complex64)
        src = blocks.vector_source_c(x, False)
        ref = pfb.channelizer_ccf(numchans, taps, rate, 80)
        ours = wideband.pfb_channelizer_ccf(numchans, taps, rate, 80)
        ref_sinks = [blocks.vector_sink_c() for _ in range(numchans)]
        our_sinks = [blocks.vector_sink_c() for _ in range(numchans)]
        self.tb.connect(src, ref)
        self.tb.connect(src, ours)
        for c in range(numchans):
            self.tb.connect((ref, c), ref_sinks[c])
            self.tb.connect((ours, c), our_sinks[c])
        self.tb.run()
        assert_matches_in_tree(self, [np.asarray(s.data()) for s in our_sinks],
                               [np.asarray(s.data()) for s in ref_sinks], list(range(numchans)),
                               x, taps, numchans, decimation(numchans, rate), "atten fourth")
        designed = wideband.pfb_channelizer_ccf(numchans, None, rate, 80)
        self.assertEqual(designed.taps(), wideband.pfb_channelizer_ccf.create_taps(numchans, 80))
        self.assertEqual(wideband.pfb_channelizer_ccf(numchans, taps=None).taps(),
                         wideband.pfb_channelizer_ccf.create_taps(numchans, 100))
        with self.assertRaises(TypeError) as raised:
            wideband.pfb_channelizer_ccf(numchans, "abc", rate)
        self.assertRegex(str(raised.exception), r"^pfb_channelizer_ccf: taps must be a sequence "
                                                r"of numbers or None \(got 'abc'\)$")

    def test_023_integer_inputs_against_the_in_tree_chain(self):
        # Complex int16 and int8 over their whole range against GNU Radio's
        # interleaved_short_to_complex / interleaved_char_to_complex ->
        # pfb.channelizer_ccf: as streams in random pieces (frames straddle
        # calls) and as vectors of a channel map; sizes of test_002.
        rng = np.random.default_rng(23)
        for input_type, item_size in (("sc16", 4), ("sc8", 2)):
            for numchans, rate, ntaps, chunked in ((16, 2, 161, True), (8, 1, 64, False)):
                with self.subTest(input_type=input_type, numchans=numchans):
                    self.setUp()
                    x = stream_qa_helpers.never_zero_integers(
                        rng, 150 * numchans + 7, input_type)
                    taps = random_taps(rng, ntaps)
                    self.side_by_side(numchans, rate, taps, x, input_type=input_type,
                                      max_chunk=3 * numchans + 5 if chunked else None,
                                      channel_map=None if chunked else [5, 0, 7, 5],
                                      vector_output=not chunked)
            block = wideband.pfb_channelizer_ccf(8, random_taps(rng, 64), 1, [], "", 100,
                                                 False, input_type)
            self.assertEqual(block.input_signature().sizeof_stream_item(0), item_size)
        self.assertEqual(wideband.pfb_channelizer_ccf(8, random_taps(rng, 64))
                         .input_signature().sizeof_stream_item(0), 8)

    def test_024_bad_input_type_raises_value_error(self):
        taps = random_taps(np.random.default_rng(24), 64)
        for bad in ("cf32", "SC16", "", "sc12"):
            with self.subTest(input_type=bad):
                with self.assertRaises(ValueError) as raised:
                    wideband.pfb_channelizer_ccf(8, taps, 1, [], "", 100, False, bad)
                self.assertEqual(str(raised.exception),
                                 'input_type must be "fc32" (complex float), "sc16" '
                                 f'(complex int16) or "sc8" (complex int8); got "{bad}"')
        with self.assertRaises(ValueError):
            wideband.pfb_channelizer_ccf(8, taps, input_type="int16")


if __name__ == '__main__':
    gr_unittest.run(qa_pfb_channelizer_ccf)
