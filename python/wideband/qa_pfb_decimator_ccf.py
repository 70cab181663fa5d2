#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
wideband.pfb_decimator_ccf against gnuradio.filter.pfb_decimator_ccf: both
blocks run in the same flowgraph on the same random, never-zero input with
random taps, and every output sample of ours is compared with the in-tree
block's, ours with one input (the stream) and with decim inputs (the stream
split by stream_to_streams, as the in-tree block takes it).

Alignment: none is needed. The in-tree block's output q for channel c is
channelizer_reference(x, taps, decim, decim)[q, c], the channelizer's formula
with D = M = decim (test_000, for all four of its rotator and filter
variants): its rotation exp(+2 pi i c j / M) of branch j, which reads input
M-1-j, is the channelizer's exp(-2 pi i c (t - n) / M) times its constant
exp(-2 pi i c (D+1) / M) at D = M. The only difference is the end of a finite
stream of N samples: ours gives all floor(N / decim) samples, as does the
in-tree block with FIR filters (asserted); with use_fft_filters it drops the
samples short of one of its FFT blocks. Past the in-tree block's output ours
is compared with the reference.

Tolerances: those of qa_pfb_channelizer_ccf (same engine, same sums).
"""

import time

import numpy as np
import pmt
from gnuradio import blocks, filter, gr, gr_unittest
from gnuradio.fft import window
from gnuradio import wideband
from stream_qa_helpers import gate, never_zero, random_chunks, wait_for
from stream_qa_helpers import captured_stdout
from stream_qa_helpers import channelizer_reference
from qa_pfb_channelizer_ccf import CHUNK, assert_same_channel, random_taps

# The in-tree block's variants: (use_fft_rotator, use_fft_filters).
VARIANTS = ((False, False), (False, True), (True, False), (True, True))


def reference(x, taps, decim, channel, first=0):
    """The in-tree decimator's output in float64, from output `first` on."""
    return channelizer_reference(x, taps, decim, decim, first_frame=first)[:, channel]


def split(tb, source, decim, max_chunk=None, seed=0):
    """stream_to_streams on `source`: the decim streams (blocks, port) the
    in-tree block takes, each in random pieces when max_chunk is given."""
    s2ss = blocks.stream_to_streams(gr.sizeof_gr_complex, decim)
    tb.connect(source, s2ss)
    if not max_chunk:
        return [(s2ss, i) for i in range(decim)]
    pieces = [random_chunks(max_chunk, seed + i) for i in range(decim)]
    for i, piece in enumerate(pieces):
        tb.connect((s2ss, i), piece)
    return pieces


def connect_split(tb, streams, block):
    for i, stream in enumerate(streams):
        tb.connect(stream, (block, i))


class qa_pfb_decimator_ccf(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()

    def tearDown(self):
        self.tb = None

    def side_by_side(self, decim, taps, channel, x, max_chunk=None, variants=VARIANTS):
        """Runs the in-tree block (each of `variants`) and ours (one input, and
        decim inputs, with each variant's flags) on x; compares every output.
        Returns ours' outputs, one input then decim inputs."""
        what = f"decim {decim}, channel {channel}, {len(taps)} taps"
        src = blocks.vector_source_c(x)
        in_tree_streams = split(self.tb, src, decim)
        ours_streams = split(self.tb, src, decim, max_chunk)
        runs = []
        self.pieces = []  # Python blocks must outlive the run
        for rotator, fft_filters in variants:
            in_tree = filter.pfb_decimator_ccf(decim, taps, channel, rotator, fft_filters)
            single = wideband.pfb_decimator_ccf(decim, taps, channel, rotator, fft_filters)
            several = wideband.pfb_decimator_ccf(decim, taps, channel, rotator, fft_filters)
            connect_split(self.tb, in_tree_streams, in_tree)
            connect_split(self.tb, ours_streams, several)
            if max_chunk:
                self.pieces.append(random_chunks(max_chunk, 99))
                self.tb.connect(src, self.pieces[-1], single)
            else:
                self.tb.connect(src, single)
            sinks = [blocks.vector_sink_c() for _ in range(3)]
            for block, sink in zip((in_tree, single, several), sinks):
                self.tb.connect(block, sink)
            runs.append((f"{what}, rotator {rotator}, fft filters {fft_filters}", sinks,
                         fft_filters))
        self.tb.run()
        frames = len(x) // decim
        expect = reference(x, taps, decim, channel)
        outputs = []
        for what, (in_tree, single, several), fft_filters in runs:
            theirs = np.asarray(in_tree.data())
            if fft_filters:
                self.assertLessEqual(len(theirs), frames, what)
                self.assertGreaterEqual(len(theirs), 0.8 * frames - 200, what)
            else:
                self.assertEqual(len(theirs), frames, what)
            for form, sink in (("one input", single), ("decim inputs", several)):
                ours = np.asarray(sink.data())
                self.assertEqual(len(ours), frames, f"{what}, {form}: item count")
                assert_same_channel(ours[:len(theirs)], theirs, f"{what}, {form}")
                assert_same_channel(ours[len(theirs):], expect[len(theirs):],
                                    f"{what}, {form}, past the in-tree output")
                outputs.append(ours)
        return outputs

    def test_000_in_tree_output_is_the_channelizer_formula(self):
        rng = np.random.default_rng(0)
        for decim, ntaps in ((1, 7), (3, 10), (5, 23), (8, 61)):
            x = never_zero(rng, 400 * decim + 1)
            taps = random_taps(rng, ntaps)
            for channel in range(decim):
                for rotator, fft_filters in VARIANTS:
                    with self.subTest(decim=decim, channel=channel, rotator=rotator,
                                      fft_filters=fft_filters):
                        self.setUp()
                        src = blocks.vector_source_c(x)
                        block = filter.pfb_decimator_ccf(decim, taps, channel, rotator,
                                                         fft_filters)
                        sink = blocks.vector_sink_c()
                        connect_split(self.tb, split(self.tb, src, decim), block)
                        self.tb.connect(block, sink)
                        self.tb.run()
                        got = np.asarray(sink.data())
                        self.assertGreater(len(got), 300)
                        assert_same_channel(got, reference(x, taps, decim, channel)
                                            [:len(got)])

    def test_001_against_in_tree(self):
        # (decim, ntaps, channels): taps lengths that are and are not
        # multiples of decim, shorter than decim; the first and last channel
        # and one between.
        configs = ((1, 5, (0,)), (2, 7, (0, 1)), (3, 10, (0, 2)), (5, 23, (0, 1, 4)),
                   (8, 64, (0, 3, 7)), (16, 161, (0, 9, 15)))
        for number, (decim, ntaps, channels) in enumerate(configs):
            rng = np.random.default_rng(100 + number)
            taps = random_taps(rng, ntaps)
            samples = 300 * decim + int(rng.integers(0, decim))
            for channel in channels:
                with self.subTest(decim=decim, ntaps=ntaps, channel=channel):
                    self.setUp()
                    self.side_by_side(decim, taps, channel, never_zero(rng, samples),
                                      max_chunk=(2 * decim + 3) if channel % 2 else None)

    def test_002_odd_chunkings_give_identical_output(self):
        # Whatever pieces the input comes in (on each of the decim inputs
        # independently), the output is the same, bit for bit.
        decim, channel = 5, 3
        rng = np.random.default_rng(2)
        taps = random_taps(rng, 23)
        x = never_zero(rng, 10007)
        plain = self.side_by_side(decim, taps, channel, x, variants=VARIANTS[:1])
        for max_chunk in (1, 13, 997):
            with self.subTest(max_chunk=max_chunk):
                self.setUp()
                got = self.side_by_side(decim, taps, channel, x, max_chunk=max_chunk,
                                        variants=VARIANTS[:1])
                for ours, before in zip(got, plain):
                    np.testing.assert_array_equal(ours, before)

    def test_003_stream_longer_than_the_pipeline(self):
        # Several full chunks and the two in flight, then the flush.
        rng = np.random.default_rng(3)
        self.side_by_side(8, random_taps(rng, 37), 5, never_zero(rng, 3 * CHUNK + 12345),
                          variants=VARIANTS[-1:])

    def run_with_change(self, decim, taps, channel, samples, before, change, inputs):
        """Runs ours with the input held after `before` samples until every
        output of them is out; then change(block), the rest, and returns (x,
        output, outputs before the change)."""
        x = never_zero(np.random.default_rng(7), samples)
        src = blocks.vector_source_c(x)
        hold = gate(before)
        ours = wideband.pfb_decimator_ccf(decim, taps, channel)
        sink = blocks.vector_sink_c()
        self.tb.connect(src, hold)
        if inputs == 1:
            self.tb.connect(hold, ours)
        else:
            connect_split(self.tb, split(self.tb, hold, decim), ours)
        self.tb.connect(ours, sink)
        self.tb.start()
        first = before // decim
        wait_for(self, lambda: len(sink.data()) >= first)
        time.sleep(0.05)
        self.assertEqual(len(sink.data()), first)
        change(ours)
        hold.opened.set()
        self.tb.wait()
        got = np.asarray(sink.data())
        self.assertEqual(len(got), samples // decim)  # none lost or repeated
        return x, got, first

    def test_004_set_taps_while_running(self):
        # The new taps apply from the first output after the samples consumed;
        # taps of more per branch see zeros before the history the old ones
        # kept (K*M - D samples before the next output, plus the leftover
        # short of one), as in the channelizer.
        decim, channel = 8, 3
        rng = np.random.default_rng(4)
        old = random_taps(rng, 20)  # K = 3
        for new_length, before, inputs in ((23, 4000, 1), (19, 4003, 1), (61, 4001, 1),
                                           (61, 4000, decim)):
            new = random_taps(rng, new_length)
            with self.subTest(new_length=new_length, before=before, inputs=inputs):
                self.setUp()
                x, got, first = self.run_with_change(
                    decim, old, channel, 9001, before,
                    lambda block: block.set_taps(new), inputs)
                zeroed = x.copy()
                older = before - (-(-len(old) // decim) * decim - decim +
                                  before - first * decim)
                if older > 0:
                    zeroed[:older] = 0
                assert_same_channel(got[:first], reference(x, old, decim, channel)[:first],
                                    "before the change")
                assert_same_channel(got[first:],
                                    reference(zeroed, new, decim, channel)[first:],
                                    "after the change")

    def test_005_set_channel_while_running(self):
        decim, taps = 8, random_taps(np.random.default_rng(5), 29)
        for old, new, before, inputs in ((3, 6, 4001, 1), (0, 7, 4000, decim)):
            with self.subTest(old=old, new=new, inputs=inputs):
                self.setUp()
                x, got, first = self.run_with_change(
                    decim, taps, old, 9001, before,
                    lambda block: block.set_channel(new), inputs)
                assert_same_channel(got[:first], reference(x, taps, decim, old)[:first])
                assert_same_channel(got[first:], reference(x, taps, decim, new)[first:])

    def test_006_settings_between_runs(self):
        # Each run starts from zero history with the settings of the moment.
        decim = 8
        rng = np.random.default_rng(6)
        x = never_zero(rng, 3001)
        src = blocks.vector_source_c(x)
        ours = wideband.pfb_decimator_ccf(decim, random_taps(rng, 29), 1)
        sink = blocks.vector_sink_c()
        self.tb.connect(src, ours, sink)
        for taps, channel in ((random_taps(rng, 29), 1), (random_taps(rng, 70), 7),
                              (random_taps(rng, 5), 0)):
            ours.set_taps(taps)
            ours.set_channel(channel)
            src.rewind()
            sink.reset()
            self.tb.run()
            assert_same_channel(sink.data(), reference(x, taps, decim, channel),
                                f"{len(taps)} taps, channel {channel}")

    def run_tags(self, decim, offsets, inputs, in_tree=False, samples=5003):
        """Tags on input samples `offsets` (key, value k, source); returns the
        output's (offset, key, value, source), sorted. The in-tree block with
        FIR filters, which consumes its whole input."""
        tags = [gr.tag_utils.python_to_tag(
            (k, pmt.intern(f"key{k % 3}"), pmt.from_long(k), pmt.intern("src")))
            for k in offsets]
        rng = np.random.default_rng(11)
        src = blocks.vector_source_c(never_zero(rng, samples), False, 1, tags)
        taps = random_taps(rng, 30)
        block = (filter.pfb_decimator_ccf(decim, taps, 1, True, False) if in_tree
                 else wideband.pfb_decimator_ccf(decim, taps, 1))
        sink = blocks.vector_sink_c()
        if inputs == 1:
            self.tb.connect(src, block)
        else:
            connect_split(self.tb, split(self.tb, src, decim), block)
        self.tb.connect(block, sink)
        self.tb.run()
        return sorted((t.offset, pmt.symbol_to_string(t.key), pmt.to_long(t.value),
                       pmt.symbol_to_string(t.srcid)) for t in sink.tags())

    def test_007_tags(self):
        decim = 5
        offsets = sorted(set(range(2 * decim + 1)) |
                         set(np.random.default_rng(7).integers(0, 4995, 30).tolist()) |
                         {4999})
        # one input: tag on sample k at output floor(k / decim)
        self.assertEqual(self.run_tags(decim, offsets, 1),
                         sorted((k // decim, f"key{k % 3}", k, "src") for k in offsets))
        self.assertEqual(wideband.pfb_decimator_ccf(decim, [1.0], 0).relative_rate(),
                         filter.pfb_decimator_ccf(decim, [1.0], 0).relative_rate())
        # decim inputs: stream_to_streams puts a tag on sample k on item
        # round(k / decim) of every input, and each input's item j goes to
        # output floor(j / decim), as the in-tree block's relative rate puts it
        # (rounding instead): decim copies of every tag
        # (a tag on the last samples goes past stream_to_streams' last item)
        offsets = [k for k in offsets if k < 4990]
        self.setUp()
        ours = self.run_tags(decim, offsets, decim)
        self.setUp()
        theirs = self.run_tags(decim, offsets, decim, in_tree=True)
        self.assertEqual(len(ours), decim * len(offsets))
        self.assertEqual(sorted(t[1:] for t in ours), sorted(t[1:] for t in theirs))
        for (offset, _, k, _), (their_offset, _, _, _) in zip(
                sorted(ours, key=lambda t: t[2]), sorted(theirs, key=lambda t: t[2])):
            self.assertIn(offset, (their_offset - 1, their_offset), f"tag at {k}")
            self.assertEqual(offset, int(np.rint(k / decim)) // decim, f"tag at {k}")

    def test_008_bad_arguments_raise_value_error(self):
        make = wideband.pfb_decimator_ccf
        taps = [0.5, 1.0, 0.5]
        with self.assertRaisesRegex(ValueError, r"decim must be 1\.\.16777216 \(got 0\)"):
            make(0, taps, 0)
        for decim, channel in ((4, 4), (4, 99), (1, 1)):
            with self.assertRaisesRegex(ValueError, f"channel must be 0..{decim - 1} "
                                                    f"for decim {decim} \\(got {channel}\\)"):
                make(decim, taps, channel)
        with self.assertRaisesRegex(ValueError, "pfb_decimator_ccf: .*taps must not be empty"):
            make(4, [], 0)
        for bad in (float("nan"), float("inf")):
            with self.assertRaisesRegex(ValueError, "pfb_decimator_ccf: .*taps must be finite"):
                make(4, [1.0, bad], 0)
        for device in ("no-such-device-xyz", "9:9"):
            with self.assertRaisesRegex(ValueError, "device"):
                make(4, taps, 0, True, True, device)
        # negative or fractional: TypeError, as the in-tree block's
        for args in ((-1, taps, 0), (4, taps, -1), (4, taps, 1.5)):
            with self.assertRaises(TypeError):
                filter.pfb_decimator_ccf(*args)
            with self.assertRaises(TypeError):
                make(*args)

        block = make(4, taps, 2)
        with self.assertRaisesRegex(ValueError, "channel must be 0..3"):
            block.set_channel(4)
        with self.assertRaisesRegex(ValueError, "taps must not be empty"):
            block.set_taps([])
        with self.assertRaisesRegex(ValueError, "taps must be finite"):
            block.set_taps([1.0, float("nan")])
        # refused settings leave the block as it was
        self.assertEqual(block.channel(), 2)
        self.assertEqual(block.taps(), filter.pfb_decimator_ccf(4, taps, 2).taps())

        # neither one input nor decim
        src = blocks.vector_source_c([1j] * 64)
        s2ss = blocks.stream_to_streams(gr.sizeof_gr_complex, 2)
        self.tb.connect(src, s2ss)
        self.tb.connect((s2ss, 0), (block, 0))
        self.tb.connect((s2ss, 1), (block, 1))
        self.tb.connect(block, blocks.null_sink(gr.sizeof_gr_complex))
        with self.assertRaisesRegex(ValueError, "connect one input .* or decim = 4 inputs "
                                                r".*, not 2"):
            self.tb.run()

    def test_009_accessors(self):
        taps = [0.25, 0.5, 1.0, 0.5, 0.25, -1.0, 2.0]
        for decim in (1, 3, 4, 9):
            with self.subTest(decim=decim):
                in_tree = filter.pfb_decimator_ccf(decim, taps, decim - 1)
                ours = wideband.pfb_decimator_ccf(decim, taps, decim - 1)
                self.assertEqual(ours.taps(), in_tree.taps())
                printed, their_printed = [], []
                with captured_stdout(printed):
                    ours.print_taps()
                with captured_stdout(their_printed):
                    in_tree.print_taps()
                self.assertEqual(printed, their_printed)
                self.assertEqual((ours.channel(), ours.decimation()), (decim - 1, decim))
        ours = wideband.pfb_decimator_ccf(4, taps, 1)
        self.assertEqual(ours.device_name(), wideband.find_device("")["name"])
        self.assertGreaterEqual(ours.latency(), 2 * CHUNK)
        # the in-tree arguments, by position and keyword, and the device after them
        for args, keywords in (((4, taps, 1), {}), ((4, taps, 1, False, False), {}),
                               ((4,), dict(taps=taps, channel=1, use_fft_rotator=False,
                                           use_fft_filters=True)),
                               ((4, taps, 1, True, True, ""), {}),
                               ((4, taps, 1), dict(device=""))):
            filter.pfb_decimator_ccf(*args[:5], **{k: v for k, v in keywords.items()
                                                   if k != "device"})
            block = wideband.pfb_decimator_ccf(*args, **keywords)
            self.assertEqual((block.decimation(), block.channel()), (4, 1))

    def test_010_device_resident_edges(self):
        # Behind another gr-wideband block on the same device the one input is
        # a device edge (the engine reads it in place); split inputs from a
        # host block are interleaved from host memory; both outputs are right.
        decim, channel = 4, 1
        rng = np.random.default_rng(10)
        taps = random_taps(rng, 19)
        x = never_zero(rng, 20003)
        src = blocks.vector_source_c(x)
        upstream = wideband.fft_filter_ccf(1, [1.0])
        single = wideband.pfb_decimator_ccf(decim, taps, channel)
        several = wideband.pfb_decimator_ccf(decim, taps, channel)
        sinks = [blocks.vector_sink_c() for _ in range(2)]
        self.tb.connect(src, upstream, single, sinks[0])
        connect_split(self.tb, split(self.tb, src, decim), several)
        self.tb.connect(several, sinks[1])
        self.tb.run()
        self.assertEqual([wideband.input_memory(single), wideband.input_memory(several)],
                         ["device", "host"])
        for sink in sinks:
            assert_same_channel(sink.data(), reference(x, taps, decim, channel))

    def test_011_gnu_radio_qa_cases(self):
        # GNU Radio's own QA of its pfb_decimator_ccf
        # (gr-filter/python/filter/qa_pfb_decimator.py) with ours in its place:
        # M = 5, fs = 5000 (the output rate), N = 1000 input samples, the sum
        # of five complex tones, tone i at freqs[i] + (M // 2 - M + i + 1) fs
        # (one per channel, at an offset from its centre), taps
        # firdes.low_pass_2(1, M fs, fs / 2, fs / 10, 80 dB, Blackman-harris;
        # window.WIN_BLACKMAN_hARRIS in 3.10);
        # channel 0..4 with each of the four rotator and filter variants,
        # through stream_to_streams into the M inputs. Expected: the tone of
        # the channel, freqs[(2 + channel) % 5], at the output rate with the
        # phase of its table, delayed by int(-(ceil(ntaps / M) - 1) / 2)
        # outputs; the last 50 outputs compared to 4 places. Ours runs with
        # the stream into one input too.
        M, fs, N = 5, 5000.0, 1000
        freqs = [-230., 121., 110., -513., 203.]
        phases = [0.11058476216852586, 4.5108246571401693, 3.9739891674564594,
                  2.2820531095511924, 1.3782797467397869]
        taps = filter.firdes.low_pass_2(1, M * fs, fs / 2, fs / 10, attenuation_dB=80,
                                        window=window.WIN_BLACKMAN_hARRIS)
        t = np.arange(N) / (M * fs)
        x = sum(np.exp(2j * np.pi * (f + (M // 2 - M + i + 1) * fs) * t)
                for i, f in enumerate(freqs)).astype(np.complex64)
        delay = int(-(np.ceil(len(taps) / M) - 1) / 2)
        for channel in range(M):
            for rotator, fft_filters in VARIANTS:
                with self.subTest(channel=channel, rotator=rotator, fft_filters=fft_filters):
                    self.setUp()
                    src = blocks.vector_source_c(x.tolist())
                    several = wideband.pfb_decimator_ccf(M, taps, channel, rotator,
                                                         fft_filters)
                    single = wideband.pfb_decimator_ccf(M, taps, channel, rotator,
                                                        fft_filters)
                    sinks = [blocks.vector_sink_c() for _ in range(2)]
                    connect_split(self.tb, split(self.tb, src, M), several)
                    self.tb.connect(src, single)
                    self.tb.connect(several, sinks[0])
                    self.tb.connect(single, sinks[1])
                    self.tb.run()
                    for sink in sinks:
                        got = sink.data()
                        self.assertEqual(len(got), N // M)
                        times = np.arange(delay, len(got) + delay) / fs
                        expected = np.exp(1j * (2 * np.pi * freqs[(2 + channel) % M] * times
                                                + phases[channel]))
                        self.assertComplexTuplesAlmostEqual(expected[-50:].tolist(),
                                                            got[-50:], 4)


if __name__ == '__main__':
    gr_unittest.run(qa_pfb_decimator_ccf)
