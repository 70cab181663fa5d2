#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
wideband.pfb_synthesizer_ccf against gnuradio.filter.pfb_synthesizer_ccf: both
blocks run in the same flowgraph on the same random, never-zero channel
samples with random taps, and every output sample of ours is compared with the
in-tree block's.

Alignment: none is needed. Both blocks are sync interpolators by numchans M:
input item n of every input (frame n) makes output items n M .. n M + M - 1,
from the first item on, and both deliver all frames of a finite stream.

reference() is a float64 numpy evaluation of the formula in the block's
header (the frame's inverse FFT, then the branch filters over the last K
frames; with twox the half of each frame's transform alternating with the
frame's parity); test_000 checks it against the in-tree block. It is the
expected output where the in-tree block cannot serve: runs whose settings
change at a known frame, and more than numchans inputs with twox.

Tolerance, as in qa_pfb_channelizer_ccf (the blocks compute in float32 in
different orders, a P-point FFT and a K-term sum, so they differ by rounding
only): every sample within ELEMENT_TOL of the largest reference sample, and
the relative L2 difference within L2_TOL. A wrong tap, bin, half or frame
changes the output by 1e-1 or more of its size.

Analysis then synthesis (test_010): our pfb_channelizer_ccf with M channels
oversampled by 2 (a frame of M channels per M/2 input samples) into our
synthesizer with numchans M/2, twox and all M channels, both with a root
raised cosine prototype (roll-off 0.5, L = K M + M/2 + 1 taps; the
synthesizer's scaled by M/2) reconstruct the input delayed by exactly
L - M/2 samples: the channelizer's per-channel phase exp(-2 pi i c (D+1)/M),
its sampling instants (q+1) D - 1, the two filters' delay L - 1 and the
twox half-frame offset cancel across channels for that length. The residual
(the root raised cosine pair is not exactly Nyquist) measured in numpy: -40
dB at K = 6, -47 dB at K = 10, -58 dB at K = 16; the test uses K = 16 and
asserts -50 dB (measured -54 dB on this input), through M streams, a vector
edge, and with the synthesizer between device-resident edges (in place).
"""

import time

import numpy as np
import pmt
from gnuradio import blocks, fft, filter, gr, gr_unittest
from gnuradio import wideband
import stream_qa_helpers
from stream_qa_helpers import gate, never_zero, random_chunks, wait_for
from stream_qa_helpers import captured_stdout

ELEMENT_TOL = 1e-5
L2_TOL = 1e-5


def assert_same_output(ours, ref, what=""):
    stream_qa_helpers.assert_same_stream(ours, ref, ELEMENT_TOL, L2_TOL, what)


def random_taps(rng, count):
    """Random prototype taps, no zero among them (every tap then matters)."""
    return [float(t) for t in rng.uniform(0.1, 1.0, count) * rng.choice((-1, 1), count)]


def identity(P):
    return list(range(P))


def transforms(frames, P, channel_map):
    """Each frame's unnormalised P-point inverse FFT, input i on bin
    channel_map[i] (later inputs winning), other bins zero."""
    frames = np.asarray(frames, np.complex128)
    bins = np.zeros((len(frames), P), np.complex128)
    for i in range(min(frames.shape[1], len(channel_map))):
        bins[:, channel_map[i]] = frames[:, i]
    return np.fft.ifft(bins, axis=1) * P


def reference(frames, numchans, twox, settings):
    """The block's output in float64 for frames (count x inputs): settings is
    a list of (first output frame, taps, channel map, frames before which the
    kept frames count as zero), in force from their first frame on; the map
    applies to the frames the filters keep too."""
    M = numchans
    P = 2 * M if twox else M
    count = len(frames)
    out = np.zeros((count, M), np.complex128)
    for s, (first, taps, channel_map, zero_before) in enumerate(settings):
        last = settings[s + 1][0] if s + 1 < len(settings) else count
        y = transforms(frames, P, channel_map)
        y[:zero_before] = 0
        K = -(-len(taps) // M)
        h = np.zeros(K * M)
        h[:len(taps)] = taps
        h = h.reshape(K, M)
        n = np.arange(first, last)
        columns = np.where(twox & (n % 2 == 0), M, 0)[:, None] + np.arange(M)[None, :]
        for j in range(K):
            valid = n >= j
            out[n[valid]] += h[j] * y[n[valid] - j][np.arange(valid.sum())[:, None],
                                                     columns[valid]]
    return out.ravel()


def constant(taps, channel_map):
    return [(0, taps, channel_map, 0)]


class qa_pfb_synthesizer_ccf(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()

    def tearDown(self):
        self.tb = None

    def run_blocks(self, blocks_and_sources):
        """Connects each (block, input sources) to a sink, runs; the outputs."""
        sinks = []
        for block, sources in blocks_and_sources:
            for i, source in enumerate(sources):
                self.tb.connect(source, (block, i))
            sinks.append(blocks.vector_sink_c())
            self.tb.connect(block, sinks[-1])
        self.tb.run()
        return [np.asarray(sink.data()) for sink in sinks]

    def stream_sources(self, frames, max_chunk=None, seed=0):
        """One vector source per input (column of frames), in random pieces
        when max_chunk is given."""
        sources = []
        for i in range(frames.shape[1]):
            source = blocks.vector_source_c(frames[:, i].tolist())
            if max_chunk:
                piece = random_chunks(max_chunk, seed + i)
                self.pieces.append(piece)
                self.tb.connect(source, piece)
                source = piece
            sources.append(source)
        return sources

    def side_by_side(self, numchans, taps, twox, frames, channel_map=None,
                     max_chunk=None):
        """The in-tree block and ours on the same inputs (ours in random pieces
        when max_chunk is given); compares every output with the in-tree one
        and the reference. Returns ours."""
        self.pieces = []  # Python blocks must outlive the run
        P = 2 * numchans if twox else numchans
        in_tree = filter.pfb_synthesizer_ccf(numchans, taps, twox)
        ours = wideband.pfb_synthesizer_ccf(numchans, taps, twox)
        if channel_map is not None:
            in_tree.set_channel_map(channel_map)
            ours.set_channel_map(channel_map)
        theirs, got = self.run_blocks(
            [(in_tree, self.stream_sources(frames)),
             (ours, self.stream_sources(frames, max_chunk, seed=len(taps)))])
        what = (f"numchans {numchans}, twox {twox}, {len(taps)} taps, "
                f"{frames.shape[1]} inputs, map {channel_map}")
        self.assertEqual(len(theirs), len(frames) * numchans, what)
        self.assertEqual(len(got), len(frames) * numchans, what)
        assert_same_output(got, theirs, what)
        assert_same_output(got, reference(frames, numchans, twox, constant(
            taps, channel_map or identity(P))), what + ", reference")
        return got

    def test_000_in_tree_output_is_the_formula(self):
        # (numchans, twox, ntaps, inputs, map): fewer inputs than bins, maps
        # with unused bins, two inputs on one bin, bins of the upper half.
        rng = np.random.default_rng(0)
        configs = ((1, False, 3, 1, None), (4, False, 10, 4, None), (5, False, 23, 3, None),
                   (4, True, 13, 4, None), (6, True, 31, 6, None),
                   (8, False, 40, 5, [7, 0, 3, 3, 1]), (4, True, 16, 3, [7, 1, 4]))
        for numchans, twox, ntaps, inputs, channel_map in configs:
            with self.subTest(numchans=numchans, twox=twox, ntaps=ntaps, inputs=inputs):
                self.setUp()
                P = 2 * numchans if twox else numchans
                frames = never_zero(rng, 200 * inputs).reshape(200, inputs)
                taps = random_taps(rng, ntaps)
                block = filter.pfb_synthesizer_ccf(numchans, taps, twox)
                if channel_map:
                    block.set_channel_map(channel_map)
                got, = self.run_blocks([(block, self.stream_sources(frames))])
                assert_same_output(got, reference(frames, numchans, twox, constant(
                    taps, channel_map or identity(P))))

    def test_001_against_in_tree(self):
        configs = ((1, False, 5, 1, None), (2, False, 7, 2, None), (3, False, 10, 3, None),
                   (8, False, 64, 8, None), (16, False, 161, 16, None),
                   (2, True, 9, 2, None), (8, True, 61, 8, None), (10, True, 37, 10, None),
                   (16, False, 50, 6, [15, 2, 9, 0, 9, 4]),
                   (8, True, 44, 5, [15, 8, 1, 12, 3]))
        for number, (numchans, twox, ntaps, inputs, channel_map) in enumerate(configs):
            rng = np.random.default_rng(100 + number)
            with self.subTest(numchans=numchans, twox=twox, ntaps=ntaps, inputs=inputs):
                self.setUp()
                count = 150 + int(rng.integers(0, 50))
                self.side_by_side(numchans, random_taps(rng, ntaps), twox,
                                  never_zero(rng, count * inputs).reshape(count, inputs),
                                  channel_map, max_chunk=7 if number % 2 else None)

    def test_002_vector_input(self):
        # One input of P-vectors: the same output as P streams, bit for bit,
        # and as the reference; with twox all 2 numchans bins filled, beyond
        # the in-tree block's numchans inputs.
        for numchans, twox, ntaps, channel_map in ((8, False, 37, None),
                                                   (4, True, 21, None),
                                                   (6, True, 40, [11, 0, 5, 5])):
            with self.subTest(numchans=numchans, twox=twox):
                self.setUp()
                self.pieces = []
                rng = np.random.default_rng(numchans + 10 * twox)
                P = 2 * numchans if twox else numchans
                count = 301
                frames = never_zero(rng, count * P).reshape(count, P)
                taps = random_taps(rng, ntaps)
                vector = wideband.pfb_synthesizer_ccf(numchans, taps, twox, "", True)
                streams = wideband.pfb_synthesizer_ccf(numchans, taps, twox)
                for block in (vector, streams):
                    if channel_map:
                        block.set_channel_map(channel_map)
                source = blocks.vector_source_c(frames.ravel().tolist(), False, P)
                piece = random_chunks(5, 1, vlen=P)
                self.pieces.append(piece)
                self.tb.connect(source, piece)
                got, from_streams = self.run_blocks(
                    [(vector, [piece]), (streams, self.stream_sources(frames))])
                self.assertEqual(len(got), count * numchans)
                np.testing.assert_array_equal(got, from_streams)
                assert_same_output(got, reference(frames, numchans, twox, constant(
                    taps, channel_map or identity(P))))

    def test_003_odd_chunkings_give_identical_output(self):
        numchans, twox = 6, True
        rng = np.random.default_rng(3)
        taps = random_taps(rng, 29)
        frames = never_zero(rng, 1000 * 4).reshape(1000, 4)
        plain = self.side_by_side(numchans, taps, twox, frames)
        for max_chunk in (1, 13, 997):
            with self.subTest(max_chunk=max_chunk):
                self.setUp()
                got = self.side_by_side(numchans, taps, twox, frames, max_chunk=max_chunk)
                np.testing.assert_array_equal(got, plain)

    def run_with_change(self, numchans, taps, twox, count, before, change):
        """Ours on vectors held after `before` frames until their outputs are
        out; then change(block), the rest. Returns (frames, output)."""
        P = 2 * numchans if twox else numchans
        frames = never_zero(np.random.default_rng(before), count * P).reshape(count, P)
        source = blocks.vector_source_c(frames.ravel().tolist(), False, P)
        hold = gate(before, vlen=P)
        ours = wideband.pfb_synthesizer_ccf(numchans, taps, twox, "", True)
        sink = blocks.vector_sink_c()
        self.tb.connect(source, hold, ours, sink)
        self.tb.start()
        wait_for(self, lambda: len(sink.data()) >= before * numchans)
        time.sleep(0.05)
        self.assertEqual(len(sink.data()), before * numchans)
        change(ours)
        hold.opened.set()
        self.tb.wait()
        got = np.asarray(sink.data())
        self.assertEqual(len(got), count * numchans)  # none lost or repeated
        return frames, got

    def test_004_settings_while_running(self):
        # New taps apply from the first frame after the change, to the frames
        # kept too; taps of more per branch see zeros before the K - 1 frames
        # the old ones kept. A new map applies to the kept frames as well.
        rng = np.random.default_rng(4)
        numchans = 8
        for twox in (False, True):
            P = 2 * numchans if twox else numchans
            old = random_taps(rng, 3 * numchans - 1)  # K = 3
            for new_length in (2 * numchans + 3, 5 * numchans):
                new = random_taps(rng, new_length)
                with self.subTest(twox=twox, new_length=new_length):
                    self.setUp()
                    before = 101
                    frames, got = self.run_with_change(numchans, old, twox, 300, before,
                                                       lambda block: block.set_taps(new))
                    assert_same_output(got, reference(frames, numchans, twox, [
                        (0, old, identity(P), 0), (before, new, identity(P), before - 2)]))
            channel_map = [P - 1, 3, 0, 3]
            with self.subTest(twox=twox, channel_map=channel_map):
                self.setUp()
                before = 64
                frames, got = self.run_with_change(
                    numchans, old, twox, 200, before,
                    lambda block: block.set_channel_map(channel_map))
                assert_same_output(got, reference(frames, numchans, twox, [
                    (0, old, identity(P), 0), (before, old, channel_map, 0)]))

    def test_005_tags(self):
        # A sync interpolator's: a tag on input item k at output item k M, from
        # every input.
        numchans, inputs = 4, 3
        rng = np.random.default_rng(5)
        offsets = sorted(set(rng.integers(0, 500, 20).tolist()) | {0, 1, 499})
        runs = []
        for block in (filter.pfb_synthesizer_ccf(numchans, random_taps(rng, 11)),
                      wideband.pfb_synthesizer_ccf(numchans, random_taps(rng, 11))):
            self.setUp()
            sources = []
            for i in range(inputs):
                tags = [gr.tag_utils.python_to_tag(
                    (k, pmt.intern(f"in{i}"), pmt.from_long(k), pmt.intern("src")))
                    for k in offsets]
                sources.append(blocks.vector_source_c(never_zero(rng, 500).tolist(),
                                                      False, 1, tags))
            sink = blocks.vector_sink_c()
            for i, source in enumerate(sources):
                self.tb.connect(source, (block, i))
            self.tb.connect(block, sink)
            self.tb.run()
            runs.append(sorted((t.offset, pmt.symbol_to_string(t.key), pmt.to_long(t.value))
                               for t in sink.tags()))
        theirs, ours = runs
        self.assertEqual(ours, sorted((k * numchans, f"in{i}", k)
                                      for k in offsets for i in range(inputs)))
        self.assertEqual(ours, theirs)

    def test_006_bad_arguments_raise_value_error(self):
        make = wideband.pfb_synthesizer_ccf
        taps = [0.5, 1.0, 0.5]
        with self.assertRaisesRegex(ValueError, r"numchans must be 1\.\..* \(got 0\)"):
            make(0, taps)
        # odd numchans with twox: the in-tree block's exception type
        with self.assertRaises(ValueError):
            filter.pfb_synthesizer_ccf(5, taps, True)
        with self.assertRaisesRegex(ValueError, "even for 2x oversampling"):
            make(5, taps, True)
        with self.assertRaisesRegex(ValueError, "pfb_synthesizer_ccf: .*taps must not be empty"):
            make(4, [])
        for bad in (float("nan"), float("inf")):
            with self.assertRaisesRegex(ValueError, "taps must be finite"):
                make(4, [1.0, bad])
        for device in ("no-such-device-xyz", "9:9"):
            with self.assertRaisesRegex(ValueError, "device"):
                make(4, taps, False, device)
        with self.assertRaises(TypeError):
            make(-1, taps)

        block = make(4, taps, True)
        in_tree = filter.pfb_synthesizer_ccf(4, taps, True)
        for channel_map in ([0, 8], [-1, 2]):
            with self.assertRaises(ValueError):
                in_tree.set_channel_map(channel_map)
            with self.assertRaisesRegex(ValueError, "out of range 0..7"):
                block.set_channel_map(channel_map)
        with self.assertRaisesRegex(ValueError, "taps must not be empty"):
            block.set_taps([])
        # refused settings leave the block as it was; an empty map changes nothing
        block.set_channel_map([])
        self.assertEqual(block.channel_map(), identity(8))
        self.assertEqual(block.taps(), in_tree.taps())

    def test_007_accessors(self):
        taps = [0.25, 0.5, 1.0, 0.5, 0.25, -1.0, 2.0, 3.0, -0.5]
        for numchans, twox in ((1, False), (3, False), (4, False), (2, True), (4, True)):
            with self.subTest(numchans=numchans, twox=twox):
                in_tree = filter.pfb_synthesizer_ccf(numchans, taps, twox)
                ours = wideband.pfb_synthesizer_ccf(numchans, taps, twox)
                self.assertEqual(ours.taps(), in_tree.taps())
                self.assertEqual(ours.channel_map(), list(in_tree.channel_map()))
                printed, their_printed = [], []
                with captured_stdout(printed):
                    ours.print_taps()
                with captured_stdout(their_printed):
                    in_tree.print_taps()
                self.assertEqual(printed, their_printed)
                new = taps[:5]
                ours.set_taps(new)
                in_tree.set_taps(new)
                self.assertEqual(ours.taps(), in_tree.taps())
                self.assertEqual(ours.relative_rate(), in_tree.relative_rate())
        ours = wideband.pfb_synthesizer_ccf(4, taps)
        ours.set_channel_map([3, 1])
        self.assertEqual(ours.channel_map(), [3, 1])
        self.assertEqual(ours.device_name(), wideband.find_device("")["name"])
        # the in-tree arguments, by position and keyword, then ours
        for args, keywords in (((4, taps), {}), ((4, taps, True), {}),
                               ((4,), dict(taps=taps, twox=False)),
                               ((4, taps, False, ""), {}),
                               ((4, taps), dict(device="", vector_input=True))):
            wideband.pfb_synthesizer_ccf(*args, **keywords)

    def test_008_gnuradio_qa_test_000(self):
        # GNU Radio's qa_pfb_synthesizer.py test_000 with our block in place:
        # five tones into five channels, the sum of the five shifted tones out.
        N = 10000
        M = 5
        fs = 1000
        ofs = M * fs
        taps = filter.firdes.low_pass_2(M, ofs, fs / 2, fs / 10, attenuation_dB=80,
                                        window=fft.window.WIN_BLACKMAN_hARRIS)
        t = np.arange(N) / fs
        sources = [blocks.vector_source_c(np.exp(2j * np.pi * f * t).tolist())
                   for f in (0, 100, 200, -200, -100)]
        got, = self.run_blocks([(wideband.pfb_synthesizer_ccf(M, taps), sources)])
        self.assertEqual(len(got), N * M)
        t = np.arange(len(got)) / ofs
        phases = 2 * np.pi * np.array([3, 4, 0, 1, 2]) / M
        expected = sum(np.exp(1j * (2 * np.pi * f * t + p))
                       for f, p in zip((-2200, -1100, 0, 1100, 2200), phases))
        self.assertComplexTuplesAlmostEqual(expected[2000:3000], got[2000:3000], 4)

    def reconstruction(self, M, K, vector, device_output=False):
        """Our channelizer (M channels, oversampled by 2) into our synthesizer
        (M/2, twox, all M channels): (input, output, delay). device_output:
        the synthesizer's output goes to our fft_filter_ccc with one tap 1,
        so that both its edges are device-resident and it runs in place."""
        L = K * M + M // 2 + 1
        prototype = filter.firdes.root_raised_cosine(1.0, M, 1.0, 0.5, L)
        x = never_zero(np.random.default_rng(M + K), 400 * M)
        source = blocks.vector_source_c(x.tolist())
        channelizer = wideband.pfb_channelizer_ccf(M, prototype, 2.0, vector_output=vector)
        synthesizer = wideband.pfb_synthesizer_ccf(
            M // 2, [t * M / 2 for t in prototype], True, "", vector)
        sink = blocks.vector_sink_c()
        self.tb.connect(source, channelizer)
        if vector:
            self.tb.connect(channelizer, synthesizer)  # a device-resident edge
        else:
            # Stream inputs are interleaved on the host and cannot be device
            # edges: the channels pass a host block on the way.
            for c in range(M):
                copy = blocks.copy(gr.sizeof_gr_complex)
                self.tb.connect((channelizer, c), copy, (synthesizer, c))
        if device_output:
            passing = wideband.fft_filter_ccc(1, [1.0])
            self.tb.connect(synthesizer, passing, sink)
        else:
            self.tb.connect(synthesizer, sink)
        self.tb.run()
        if device_output:
            self.assertEqual([wideband.input_memory(synthesizer),
                              wideband.output_memory(synthesizer)], ["device", "device"])
        return x, np.asarray(sink.data()), L - M // 2

    def test_010_analysis_then_synthesis(self):
        for M, vector, device_output in ((16, True, False), (8, False, False),
                                         (8, True, True)):
            with self.subTest(M=M, vector=vector, device_output=device_output):
                self.setUp()
                x, y, delay = self.reconstruction(M, 16, vector, device_output)
                self.assertEqual(len(y), len(x))
                # past the filters' start-up, the input delayed by `delay`
                start = 2 * delay
                error = y[start:] - x[start - delay:len(x) - delay]
                error_db = 20 * np.log10(np.linalg.norm(error) /
                                         np.linalg.norm(x[start - delay:len(x) - delay]))
                self.assertLess(error_db, -50, f"reconstruction error {error_db:.1f} dB")


if __name__ == "__main__":
    gr_unittest.run(qa_pfb_synthesizer_ccf)
