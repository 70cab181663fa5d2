#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
wideband.pfb_arb_resampler_ccf against gnuradio.filter.pfb_arb_resampler_ccf:
both blocks run in the same flowgraph on the same random, never-zero input
with random taps, and every output sample of the in-tree block is compared
with ours; ours is also compared, to its last sample, with reference() below:
the in-tree kernel's phase recurrence replayed in float32 (its accumulator,
floor and fmod) with the filter sums in float64.

The end of a finite stream of N samples: ours gives every output whose last
input sample came (reference(): every cycle at an input sample below N). The
in-tree block stops where its forecast() asks for more input than is left,
which depends on the scheduler's last calls: up to its output multiple
(max(rate, filter_size) outputs for rates >= 1, one below) divided by the rate,
plus the taps per filter, input samples earlier. So ours has at least the
in-tree block's outputs, equal to them, and at most that many more (asserted).

Tolerances: sums of 2 T float products against float64, T <= 16 here: 1e-5
of the largest output per sample, 1e-6 in L2.
"""

import math
import time
from fractions import Fraction

import numpy as np
import pmt
from gnuradio import blocks, fft, filter, gr, gr_unittest
from gnuradio import wideband
from stream_qa_helpers import assert_same_stream, gate, never_zero, random_chunks, wait_for
from stream_qa_helpers import captured_stdout

ELEMENT_TOL = 1e-5
L2_TOL = 1e-6
CHUNK = 1 << 19  # input samples per chunk on a CPU device (stream_config)


def random_taps(rng, count):
    """Random prototype taps, no zero among them (every tap matters)."""
    return [float(t) for t in rng.uniform(0.1, 1.0, count) * rng.choice((-1, 1), count)]


def rates_of(rate, R):
    """(dec_rate, flt_rate) as the in-tree kernel computes them, in float."""
    q = np.float32(R) / np.float32(rate)
    dec = int(np.floor(q))
    return dec, np.float32(q - np.float32(dec))


def polyphase(taps, R):
    """Taps and derivative taps padded to R * T, as float32 arrays [T, R]."""
    taps = np.asarray(taps, dtype=np.float32)
    diff = np.append(np.float32(-1.0) * taps[:-1] + np.float32(1.0) * taps[1:],
                     np.float32(0.0))
    T = -(-len(taps) // R)
    pad = lambda t: np.concatenate([t, np.zeros(T * R - len(t), np.float32)]).reshape(T, R)
    return pad(taps), pad(diff)


def reference(x, rate, taps, R, start=None, changes=None):
    """The in-tree block over all of x, its loops as written there; changes:
    {output index: (rate or None, taps or None)} applied before that output."""
    changes = changes or {}
    dec, flt = rates_of(rate, R)
    h, dh = polyphase(taps, R)
    j = (len(taps) // 2) % R if start is None else start
    acc = np.float32(0.0)
    x = np.asarray(x, dtype=np.complex128)
    out = []
    i_in = 0
    while i_in < len(x):
        while j < R:
            if len(out) in changes:
                new_rate, new_taps = changes[len(out)]
                if new_rate is not None:
                    dec, flt = rates_of(new_rate, R)
                if new_taps is not None:
                    h, dh = polyphase(new_taps, R)
            T = h.shape[0]
            m = np.arange(min(T, i_in + 1))
            window = x[i_in - m]
            o0 = np.dot(h[m, j].astype(np.float64), window)
            o1 = np.dot(dh[m, j].astype(np.float64), window)
            out.append(o0 + o1 * float(acc))
            acc = np.float32(acc + flt)
            j += dec + int(np.floor(acc))
            acc = np.float32(np.fmod(acc, np.float32(1.0)))
        i_in += j // R
        j = j % R
    return np.array(out)


def tail_bound(rate, R, taps):
    """How many outputs fewer than ours the in-tree block may give at the end."""
    multiple = max(int(rate), R) if rate >= 1.0 else 1
    T = -(-len(taps) // R)
    return int(math.ceil((multiple / rate + T + 2) * rate)) + 2


def assert_same(ours, ref, what=""):
    assert_same_stream(ours, ref, ELEMENT_TOL, L2_TOL, what)


class qa_pfb_arb_resampler_ccf(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()

    def tearDown(self):
        self.tb = None

    def side_by_side(self, rate, taps, R, x, max_chunk=None, seed=0, check_ref=True):
        """Ours and the in-tree block on x; checks ours against the in-tree
        output and (check_ref) the reference; returns ours."""
        src = blocks.vector_source_c(x.tolist())
        ours = wideband.pfb_arb_resampler_ccf(rate, taps, R)
        theirs = filter.pfb_arb_resampler_ccf(rate, taps, R)
        sinks = [blocks.vector_sink_c() for _ in range(2)]
        if max_chunk:
            pieces = random_chunks(max_chunk, seed)
            self.tb.connect(src, pieces, ours, sinks[0])
        else:
            self.tb.connect(src, ours, sinks[0])
        self.tb.connect(src, theirs, sinks[1])
        self.tb.run()
        got, in_tree = np.asarray(sinks[0].data()), np.asarray(sinks[1].data())
        what = f"rate {rate}, R {R}, {len(taps)} taps, {len(x)} samples"
        self.assertGreaterEqual(len(got), len(in_tree), what)
        self.assertLessEqual(len(got) - len(in_tree), tail_bound(rate, R, taps), what)
        assert_same(got[:len(in_tree)], in_tree, what + " vs in-tree")
        if check_ref:
            assert_same(got, reference(x, rate, taps, R), what + " vs reference")
        return got

    def test_000_against_in_tree(self):
        # Rates that are and are not rational with small terms, below and
        # above 1; filter sizes 32 (the default), 7 and 16; taps lengths
        # that are and are not multiples of the filter size.
        configs = ((0.6144, 32, 32 * 8 - 3), (1 / 3.7, 32, 32 * 16), (2.5, 32, 32 * 8 + 1),
                   (1.0, 32, 32 * 4), (2.4321, 32, 32 * 6 - 5), (0.75, 16, 16 * 9),
                   (1.7777, 7, 7 * 5 + 2), (0.6144, 7, 7 * 8), (3.3, 16, 16 * 3 - 1))
        for number, (rate, R, ntaps) in enumerate(configs):
            rng = np.random.default_rng(100 + number)
            taps = random_taps(rng, ntaps)
            x = never_zero(rng, 2000 + int(rng.integers(0, 100)))
            with self.subTest(rate=rate, R=R, ntaps=ntaps):
                self.setUp()
                self.side_by_side(rate, taps, R, x)

    def test_001_any_chunking_gives_identical_output(self):
        rng = np.random.default_rng(1)
        taps = random_taps(rng, 32 * 8)
        x = never_zero(rng, 5003)
        for rate in (0.6144, 2.5):
            self.setUp()
            plain = self.side_by_side(rate, taps, 32, x, check_ref=False)
            for max_chunk in (1, 13, 997):
                with self.subTest(rate=rate, max_chunk=max_chunk):
                    self.setUp()
                    got = self.side_by_side(rate, taps, 32, x, max_chunk=max_chunk,
                                            seed=max_chunk, check_ref=False)
                    np.testing.assert_array_equal(got, plain)

    def test_002_stream_longer_than_the_pipeline(self):
        # Several full chunks and the two in flight, then the flush; the phase
        # stays the in-tree block's over 1.6 million samples.
        rng = np.random.default_rng(2)
        self.side_by_side(0.6144, random_taps(rng, 32 * 8), 32,
                          never_zero(rng, 3 * CHUNK + 12345), check_ref=False)

    def run_with_change(self, rate, taps, R, samples, before, change):
        """Ours with the input held after `before` samples until its output of
        them is out; then change(block), the rest. Returns (x, output, outputs
        before the change)."""
        x = never_zero(np.random.default_rng(7), samples)
        first = len(reference(x[:before], rate, taps, R))
        src = blocks.vector_source_c(x)
        hold = gate(before)
        ours = wideband.pfb_arb_resampler_ccf(rate, taps, R)
        sink = blocks.vector_sink_c()
        self.tb.connect(src, hold, ours, sink)
        self.tb.start()
        wait_for(self, lambda: len(sink.data()) >= first)
        time.sleep(0.05)
        self.assertEqual(len(sink.data()), first)
        change(ours)
        hold.opened.set()
        self.tb.wait()
        return x, np.asarray(sink.data()), first

    def test_003_set_rate_and_taps_while_running(self):
        # The new settings apply from the first output after the samples
        # consumed, the phase going on (the in-tree block between two calls).
        rng = np.random.default_rng(3)
        taps, new_taps = random_taps(rng, 32 * 6), random_taps(rng, 32 * 6 - 7)
        for new_rate, new in ((2.5, None), (1 / 3.7, new_taps), (None, new_taps)):
            with self.subTest(new_rate=new_rate, new_taps=new is not None):
                self.setUp()

                def change(block):
                    if new_rate is not None:
                        block.set_rate(new_rate)
                    if new is not None:
                        block.set_taps(new)

                x, got, first = self.run_with_change(0.6144, taps, 32, 6001, 3000, change)
                ref = reference(x, 0.6144, taps, 32, changes={first: (new_rate, new)})
                assert_same(got, ref, "after the change")

    def run_tags(self, rate, offsets, in_tree, samples=3001):
        rng = np.random.default_rng(5)
        taps = random_taps(rng, 32 * 4)
        tags = [gr.tag_utils.python_to_tag(
            (k, pmt.intern("k"), pmt.from_long(k), pmt.intern("src")))
            for k in offsets]
        src = blocks.vector_source_c(never_zero(rng, samples).tolist(), False, 1, tags)
        block = (filter.pfb_arb_resampler_ccf if in_tree
                 else wideband.pfb_arb_resampler_ccf)(rate, taps, 32)
        sink = blocks.vector_sink_c()
        self.tb.connect(src, block, sink)
        self.tb.run()
        return {pmt.to_long(t.value): t.offset for t in sink.tags()}

    def test_004_tags(self):
        # GNU Radio places the in-tree block's tags at round(k * rate) of the
        # float rate as a double, exactly (block_executor's mpq arithmetic);
        # ours go to the same items. The in-tree block does not consume the
        # last few samples (see above), so tags there stay behind in it.
        offsets = [0, 1, 2, 5, 31, 100, 999, 1000, 1001, 2047, 2990, 3000]
        for rate in (0.6144, 1 / 3.7, 2.5, 1.0):
            with self.subTest(rate=rate):
                self.setUp()
                ours = self.run_tags(rate, offsets, in_tree=False)
                self.setUp()
                theirs = self.run_tags(rate, offsets, in_tree=True)
                exact = Fraction(float(np.float32(rate)))
                for k in offsets:
                    self.assertEqual(ours[k], math.floor(k * exact + Fraction(1, 2)), k)
                    if k in theirs:
                        self.assertEqual(ours[k], theirs[k], k)
                self.assertGreaterEqual(len(theirs), len(offsets) - 2)

    def test_005_bad_arguments(self):
        make = wideband.pfb_arb_resampler_ccf
        taps = [0.5, 1.0, 0.5]
        for rate in (0.0, -1.0, float("nan"), float("inf")):
            with self.assertRaisesRegex(ValueError, "pfb_arb_resampler_ccf: .*rate"):
                make(rate, taps)
        with self.assertRaisesRegex(ValueError, "taps must not be empty"):
            make(1.0, [])
        with self.assertRaisesRegex(ValueError, "taps must be finite"):
            make(1.0, [1.0, float("nan")])
        with self.assertRaisesRegex(ValueError, "filter_size"):
            make(1.0, taps, 0)
        for device in ("no-such-device-xyz", "9:9"):
            with self.assertRaisesRegex(ValueError, "device"):
                make(1.0, taps, 32, device)
        # negative filter sizes: TypeError, as the in-tree block's
        with self.assertRaises(TypeError):
            filter.pfb_arb_resampler_ccf(1.0, taps, -1)
        with self.assertRaises(TypeError):
            make(1.0, taps, -1)
        block = make(1.5, taps, 8)
        in_tree = filter.pfb_arb_resampler_ccf(1.5, taps, 8)
        # set_phase out of [0, 2 pi): RuntimeError, as the in-tree block's
        for ph in (-0.1, 2 * math.pi, 7.0):
            with self.assertRaises(RuntimeError):
                in_tree.set_phase(ph)
            with self.assertRaises(RuntimeError):
                block.set_phase(ph)
        with self.assertRaisesRegex(ValueError, "rate"):
            block.set_rate(0.0)
        with self.assertRaisesRegex(ValueError, "taps must not be empty"):
            block.set_taps([])
        # refused settings leave the block as it was
        self.assertEqual(block.taps(), in_tree.taps())
        self.assertEqual(block.decimation_rate(), in_tree.decimation_rate())

    def test_006_accessors(self):
        rng = np.random.default_rng(6)
        for rate, R, ntaps in ((0.6144, 32, 253), (2.5, 7, 36), (1 / 3.7, 16, 160),
                               (1.0, 32, 32)):
            with self.subTest(rate=rate, R=R):
                taps = random_taps(rng, ntaps)
                ours = wideband.pfb_arb_resampler_ccf(rate, taps, R)
                theirs = filter.pfb_arb_resampler_ccf(rate, taps, R)
                self.assertEqual(ours.taps(), theirs.taps())
                for name in ("interpolation_rate", "decimation_rate", "fractional_rate",
                             "taps_per_filter", "group_delay", "phase"):
                    self.assertEqual(getattr(ours, name)(), getattr(theirs, name)(), name)
                for freq, fs in ((211.123, 5000.0), (-1e6, 61.44e6)):
                    self.assertEqual(ours.phase_offset(freq, fs),
                                     theirs.phase_offset(freq, fs))
                # the rate to 12 bits (GNU Radio sizes our buffers by its fraction)
                self.assertLess(abs(ours.relative_rate() - rate), rate / 4096)
                printed, their_printed = [], []
                with captured_stdout(printed):
                    ours.print_taps()
                with captured_stdout(their_printed):
                    theirs.print_taps()
                self.assertEqual(printed, their_printed)
                for ph in (0.0, 1.0, 3.0, 6.28):
                    ours.set_phase(ph)
                    theirs.set_phase(ph)
                    self.assertEqual(ours.phase(), theirs.phase())
                ours.set_rate(rate * 1.5)
                theirs.set_rate(rate * 1.5)
                self.assertEqual(ours.decimation_rate(), theirs.decimation_rate())
                self.assertEqual(ours.fractional_rate(), theirs.fractional_rate())
        ours = wideband.pfb_arb_resampler_ccf(0.5, [1.0, 2.0])
        self.assertEqual(ours.device_name(), wideband.find_device("")["name"])
        self.assertGreaterEqual(ours.latency(), 2 * CHUNK)
        # the in-tree arguments, by position and keyword, and the device after them
        for args, keywords in (((0.5, [1.0]), {}), ((0.5, [1.0], 16), {}),
                               ((0.5,), dict(taps=[1.0], filter_size=16)),
                               ((0.5, [1.0], 16, ""), {}), ((0.5, [1.0]), dict(device=""))):
            block = wideband.pfb_arb_resampler_ccf(*args, **keywords)
            self.assertEqual(block.interpolation_rate(),
                             keywords.get("filter_size", args[2] if len(args) > 2 else 32))

    def test_007_set_phase_starts_there(self):
        # set_phase() before the stream: the first output takes that filter.
        rng = np.random.default_rng(8)
        taps = random_taps(rng, 7 * 5)
        x = never_zero(rng, 1000)
        ours = wideband.pfb_arb_resampler_ccf(2.5, taps, 7)
        theirs = filter.pfb_arb_resampler_ccf(2.5, taps, 7)
        for block in (ours, theirs):
            block.set_phase(4.0)  # filter int(4 / (2 pi / 7)) = 4
        sinks = [blocks.vector_sink_c() for _ in range(2)]
        src = blocks.vector_source_c(x.tolist())
        self.tb.connect(src, ours, sinks[0])
        self.tb.connect(src, theirs, sinks[1])
        self.tb.run()
        got, in_tree = np.asarray(sinks[0].data()), np.asarray(sinks[1].data())
        assert_same(got[:len(in_tree)], in_tree, "set_phase")
        assert_same(got, reference(x, 2.5, taps, 7, start=4), "set_phase")

    def gnu_radio_case(self, N, rrate, freq):
        # GNU Radio's qa_pfb_arb_resampler.py, test_ccf_000 and test_ccf_001
        # (gr-filter/python/filter), with ours in its place: a complex tone at
        # freq of fs = 5000 through 32 filters of firdes.low_pass_2(32, 32 fs,
        # fs / 2 or fs / 4, fs / 10, 80 dB, Blackman-harris); expected: the
        # tone at the output rate, delayed by group_delay() outputs, shifted by
        # phase_offset(freq, fs); the last 50 outputs to 2 places.
        fs, nfilts = 5000.0, 32
        cutoff = fs / 2 if rrate > 1 else fs / 4
        taps = filter.firdes.low_pass_2(nfilts, nfilts * fs, cutoff, fs / 10,
                                        attenuation_dB=80,
                                        window=fft.window.WIN_BLACKMAN_hARRIS)
        t = np.arange(N) / fs
        data = np.exp(2j * np.pi * freq * t)
        pfb = wideband.pfb_arb_resampler_ccf(rrate, taps, nfilts)
        snk = blocks.vector_sink_c()
        self.tb.connect(blocks.vector_source_c(data.tolist()), pfb, snk)
        self.tb.run()
        dst = snk.data()
        L = len(dst)
        delay = pfb.group_delay()
        phase = pfb.phase_offset(freq, fs)
        times = np.arange(-delay, L - delay) / (fs * rrate)
        expected = np.exp(1j * (2 * np.pi * freq * times + phase))
        self.assertComplexTuplesAlmostEqual(expected[-50:].tolist(), dst[-50:], 2)

    def test_008_gnu_radio_qa_ccf_000(self):
        self.gnu_radio_case(5000, 2.4321, 211.123)

    def test_009_gnu_radio_qa_ccf_001(self):
        self.gnu_radio_case(50000, 0.75, 211.123)


if __name__ == '__main__':
    gr_unittest.run(qa_pfb_arb_resampler_ccf)
