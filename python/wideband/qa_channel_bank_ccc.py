#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
wideband.channel_bank_ccc against the definition in its header, in float64:
output i is gnuradio.filter.freq_xlating_fir_filter_ccc(decimations[i],
taps[i], center_freqs[i], samp_rate) of the input, with that block's start
phase and its phase step at a retune, computed in double precision. The
float64 reference is qa_freq_xlating_fft_filter_ccc's reference() (the same
definition, channel by channel), and its check assert_close(): relative L2
error <= TOL = 1e-4 over every window of WINDOW = 2048 outputs (the whole
output when shorter).

test_001 also runs the in-tree freq_xlating_fir_filter_ccc blocks beside the
bank in the same flowgraph: they compute in float32 and accumulate their
rotation in float, so they drift from the definition along the stream; the
bank must be at least as close to the definition as each of them, and no
further from them than their drift (plus TOL).

test_010 gives the bank complex int16 and int8 input (input_type sc16, sc8)
beside GNU Radio's interleaved_short_to_complex / interleaved_char_to_complex
feeding the bank with complex float input: the same outputs.

Retunes are made deterministic with qa_freq_xlating_fft_filter_ccc's
stepped_gate: the stream stops after s samples, every output i gives all its
floor(s/D_i) outputs, the setters are called (or a "freq" message is posted
and taken), and the stream resumes: the retune's first output is
floor(s/D_i), where the "freq" tag must be.

Kernel builds: PoCL compiles each FFT length's kernels once (cached on disk);
the tests reuse a few tap lengths (the forward FFT length follows the longest
taps of a bank) so that few lengths occur.
"""

import os
import time

import numpy as np
import pmt
from gnuradio import blocks, filter, gr, gr_unittest
from gnuradio.fft import window
from gnuradio import wideband
import stream_qa_helpers
from stream_qa_helpers import never_zero, random_chunks, wait_for
import qa_freq_xlating_fft_filter_ccc as qa_xlating
from qa_freq_xlating_fft_filter_ccc import (TOL, assert_close, freq_tags, relative_l2,
                                            setting, stepped_gate)

# Input samples the block computes at once (its smallest decimation's chunk).
CHUNK = 1 << 19
VERBOSE = bool(os.environ.get("WIDEBAND_QA_VERBOSE"))


def make(*args, **kwargs):
    return wideband.channel_bank_ccc(*args, **kwargs)


def random_taps(rng, count):
    return qa_xlating.random_taps(rng, count)


def low_pass(fs, cutoff, transition, win):
    """A firdes.low_pass design as complex taps."""
    return [complex(t) for t in filter.firdes.low_pass(1.0, fs, cutoff, transition, win)]


def reference(x, D, fs, taps, center, retunes=()):
    """Channel (D, taps, center)'s output in float64, retunes: [setting(r,
    taps, center)] from output r on."""
    return qa_xlating.reference(x, D, fs, [setting(0, taps, center)] + list(retunes))


def make_tags(offsets):
    tags = []
    for k in offsets:
        tag = gr.tag_t()
        tag.offset = int(k)
        tag.key = pmt.intern(f"key{k % 3}")
        tag.value = pmt.from_long(int(k))
        tag.srcid = pmt.intern("src")
        tags.append(tag)
    return tags


def tags_of(sink):
    """[(offset, input position k)] of a sink's tags that are not "freq" tags."""
    return sorted((t.offset, pmt.to_long(t.value)) for t in sink.tags()
                  if pmt.symbol_to_string(t.key) != "freq")


class qa_channel_bank_ccc(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()

    def tearDown(self):
        self.tb = None

    def run_bank(self, x, fs, centers, decimations, taps, max_chunk=None, tags=(),
                 in_tree=False, vector_output=False, configure=None):
        """The bank alone (and the in-tree blocks, one per channel) on x;
        returns (the bank, its outputs, the in-tree outputs, the sinks). With
        vector_output the outputs are the vector stream as frames x channels."""
        C = len(centers)
        src = blocks.vector_source_c(x, False, 1, list(tags))
        bank = make(fs, centers, decimations, taps, "", vector_output)
        if configure:
            configure(bank)
        head = src
        if max_chunk:
            # (a Python block must outlive the run: keep a reference)
            self.chunks = random_chunks(max_chunk, len(x) + 1)
            self.tb.connect(src, self.chunks)
            head = self.chunks
        self.tb.connect(head, bank)
        if vector_output:
            sinks = [blocks.vector_sink_c(C)]
            self.tb.connect(bank, sinks[0])
        else:
            sinks = [blocks.vector_sink_c() for _ in range(C)]
            for i, sink in enumerate(sinks):
                self.tb.connect((bank, i), sink)
        their_sinks = []
        if in_tree:
            Ds = decimations if isinstance(decimations, list) else [decimations] * C
            tap_lists = taps if isinstance(taps[0], list) else [taps] * C
            for i in range(C):
                theirs = filter.freq_xlating_fir_filter_ccc(Ds[i], tap_lists[i], centers[i], fs)
                sink = blocks.vector_sink_c()
                self.tb.connect(src, theirs, sink)
                their_sinks.append(sink)
        self.tb.run()
        if vector_output:
            outputs = np.asarray(sinks[0].data(), np.complex128).reshape(-1, C)
        else:
            outputs = [np.asarray(s.data(), np.complex128) for s in sinks]
        theirs = [np.asarray(s.data(), np.complex128) for s in their_sinks]
        return bank, outputs, theirs, sinks

    def gated_run(self, x, fs, centers, decimations, taps, stops, actions):
        """Runs the bank behind a stepped_gate on x; at each stop waits for all
        floor(stop/D_i) outputs of every channel, calls actions[i](bank), and
        waits for `ready(bank)` if the action returns such a function.
        Returns (the bank, its outputs, its sinks)."""
        src = blocks.vector_source_c(x, False)
        self.gate = stepped_gate(stops)
        bank = make(fs, centers, decimations, taps)
        sinks = [blocks.vector_sink_c() for _ in centers]
        self.tb.connect(src, self.gate, bank)
        for i, sink in enumerate(sinks):
            self.tb.connect((bank, i), sink)
        self.tb.start()
        try:
            for stop, action in zip(stops, actions):
                for D, sink in zip(decimations, sinks):
                    wait_for(self, lambda: sink.nitems_read(0) >= stop // D)
                time.sleep(0.05)   # nothing more may come
                for i, (D, sink) in enumerate(zip(decimations, sinks)):
                    self.assertEqual(sink.nitems_read(0), stop // D,
                                     f"output {i}: outputs at the stop after {stop} samples")
                ready = action(bank)
                if ready:
                    wait_for(self, lambda: ready(bank), 30)
                self.gate.release()
        except BaseException:
            # open the gate for good and end the flowgraph
            self.gate.stops = []
            self.gate.released.set()
            self.tb.stop()
            self.tb.wait()
            raise
        self.tb.wait()
        return bank, [np.asarray(s.data(), np.complex128) for s in sinks], sinks

    def test_000_single_values_for_all(self):
        # decimations as one int, taps as one list: the same as lists per
        # channel; the accessors.
        rng = np.random.default_rng(0)
        fs = 2.0e6
        taps = random_taps(rng, 255)
        centers = [0.0, -0.25 * fs, 0.4 * fs]
        x = never_zero(rng, 60001)
        bank, outputs, _, _ = self.run_bank(x, fs, centers, 5, taps)
        self.setUp()
        _, lists, _, _ = self.run_bank(x, fs, centers, [5, 5, 5], [taps, taps, taps])
        for i, c in enumerate(centers):
            self.assertEqual(len(outputs[i]), len(x) // 5)
            assert_close(self, outputs[i], reference(x, 5, fs, taps, c), f"output {i}")
            assert_close(self, outputs[i], lists[i], f"output {i}: lists", tol=1e-6)
        self.assertEqual(bank.channels(), 3)
        self.assertEqual(list(bank.center_freqs()), centers)
        self.assertEqual(list(bank.decimations()), [5, 5, 5])
        self.assertEqual(bank.samp_rate(), fs)
        self.assertEqual([bank.center_freq(i) for i in range(3)], centers)
        for i in range(3):
            self.assertEqual(list(bank.taps(i)), [complex(np.complex64(t)) for t in taps])
        self.assertGreaterEqual(bank.fft_size(), len(taps) + 1)
        self.assertEqual(bank.device_name(), wideband.find_device("")["name"])
        self.assertGreater(bank.latency(), 0)
        ports = bank.message_ports_in()
        self.assertIn("freq", [pmt.symbol_to_string(pmt.vector_ref(ports, i))
                               for i in range(pmt.length(ports))])
        self.assertEqual(make(fs, centers, 5, taps).fft_size(), 0)  # not started

    def test_001_mixed_channels_against_float64_and_in_tree(self):
        # One bank of channels that differ in everything: random centres,
        # decimations 1 .. 5000, designed low-passes (Hamming, Blackman-Harris,
        # Kaiser) and random complex taps, 64 .. 4000 taps; every output
        # against the float64 definition, and beside the in-tree
        # freq_xlating_fir_filter_ccc on the same input.
        rng = np.random.default_rng(1)
        fs = 1.0e6
        W = window
        channels = [  # (decimation, taps)
            (1, random_taps(rng, 255)),
            (2, low_pass(fs, 200e3, 40e3, W.WIN_HAMMING)),
            (7, low_pass(fs, 50e3, 10e3, W.WIN_BLACKMAN_hARRIS)),
            (100, low_pass(fs, 4e3, 1e3, W.WIN_KAISER)),
            (999, random_taps(rng, 3000)),
            (1000, low_pass(fs, 400.0, 2000.0, W.WIN_BLACKMAN_hARRIS)),
            (5000, random_taps(rng, 2500)),
            (7, random_taps(rng, 64)),
        ]
        centers = list(rng.uniform(-0.5, 0.5, len(channels)) * fs)
        decimations = [D for D, _ in channels]
        taps = [t for _, t in channels]
        x = never_zero(rng, 2 * CHUNK + 12345)
        bank, outputs, theirs, _ = self.run_bank(x, fs, centers, decimations, taps,
                                                 in_tree=True)
        for i, (D, t) in enumerate(channels):
            what = f"output {i}: D={D} ntaps={len(t)} centre={centers[i] / fs:.4f} fs"
            with self.subTest(output=i):
                self.assertEqual(len(outputs[i]), len(x) // D, what + ": output count")
                ref = reference(x, D, fs, t, centers[i])
                assert_close(self, outputs[i], ref, what)
                self.assertEqual(len(theirs[i]), len(ref), what + ": in-tree output count")
                ours_error = relative_l2(outputs[i], ref)
                their_error = relative_l2(theirs[i], ref)
                self.assertLessEqual(ours_error, max(their_error, 1e-5),
                                     f"{what}: ours {ours_error:.3g} vs the in-tree "
                                     f"block's {their_error:.3g}")
                difference = relative_l2(outputs[i], theirs[i])
                self.assertLessEqual(difference, their_error + TOL,
                                     f"{what}: ours vs in-tree {difference:.3g}")
                if VERBOSE:
                    print(f"{what}: ours {ours_error:.2e}, in-tree {their_error:.2e}, "
                          f"window {bank.fft_size()}")

    def test_002_long_taps(self):
        # ~20000 taps beside short ones: the forward FFT grows for all
        rng = np.random.default_rng(2)
        fs = 1.0
        long_taps = random_taps(rng, 20000)
        design = low_pass(fs, 0.01, 0.005, window.WIN_BLACKMAN_hARRIS)
        channels = [(1, long_taps, 0.3141), (20, design, -0.4), (1000, long_taps, 0.5)]
        x = never_zero(rng, 250001)
        bank, outputs, _, _ = self.run_bank(x, fs, [c for _, _, c in channels],
                                            [D for D, _, _ in channels],
                                            [t for _, t, _ in channels])
        self.assertGreaterEqual(bank.fft_size(), 20001)
        for i, (D, t, c) in enumerate(channels):
            with self.subTest(output=i):
                assert_close(self, outputs[i], reference(x, D, fs, t, c),
                             f"output {i}: D={D} ntaps={len(t)}")

    def test_003_vector_output(self):
        # One decimation, vector_output: the vector stream is the channels'
        # outputs frame by frame, as the bank with stream outputs gives them;
        # tags land on vector floor(k/D).
        rng = np.random.default_rng(3)
        fs, D = 1.0e6, 7
        taps = [random_taps(rng, 255), low_pass(fs, 50e3, 10e3, window.WIN_BLACKMAN_hARRIS),
                random_taps(rng, 64)]
        centers = [-0.5 * fs, 0.123 * fs, 0.377 * fs]
        x = never_zero(rng, CHUNK + 7777)
        offsets = [0, 6, 7, 8, 1000, CHUNK - 1, CHUNK, len(x) // D * D - 1]
        _, frames, _, vector_sinks = self.run_bank(x, fs, centers, D, taps,
                                                   tags=make_tags(offsets), vector_output=True)
        self.setUp()
        _, streams, _, _ = self.run_bank(x, fs, centers, D, taps)
        self.assertEqual(frames.shape, (len(x) // D, 3))
        for i in range(3):
            assert_close(self, frames[:, i], reference(x, D, fs, taps[i], centers[i]),
                         f"channel {i} of the vectors")
            assert_close(self, frames[:, i], streams[i], f"channel {i}: vectors vs streams",
                         tol=1e-6)
        self.assertEqual(tags_of(vector_sinks[0]), [(k // D, k) for k in offsets])

    def test_004_any_chunking_gives_the_same_output(self):
        # Input in random pieces (small and large), and few outputs per call:
        # the same output, within rounding, as in one piece.
        rng = np.random.default_rng(4)
        fs = 1.0
        decimations = [1, 7, 100, 1000]
        taps = [random_taps(rng, 64), random_taps(rng, 255), random_taps(rng, 1000),
                low_pass(fs, 0.0004, 0.002, window.WIN_BLACKMAN_hARRIS)]
        centers = list(rng.uniform(-0.5, 0.5, 4))
        x = never_zero(rng, CHUNK + 30001)
        refs = [reference(x, D, fs, t, c) for D, t, c in zip(decimations, taps, centers)]
        _, whole, _, _ = self.run_bank(x, fs, centers, decimations, taps)

        def small_calls(bank):
            bank.set_max_noutput_items(7)
        for max_chunk, configure in ((3000, None), (200000, None), (None, small_calls)):
            with self.subTest(max_chunk=max_chunk, small_calls=configure is not None):
                self.setUp()
                _, pieces, _, _ = self.run_bank(x, fs, centers, decimations, taps,
                                                max_chunk=max_chunk, configure=configure)
                for i, D in enumerate(decimations):
                    assert_close(self, pieces[i], refs[i], f"output {i} (D={D})")
                    assert_close(self, pieces[i], whole[i], f"output {i}: pieces vs whole",
                                 tol=1e-5)

    def test_005_tags_on_floor_k_over_d(self):
        # A tag on input sample k goes to output floor(k/D_i) of every output
        # (key, value and source kept), under random work() sizes; no "freq"
        # tag without a retune.
        rng = np.random.default_rng(5)
        fs = 1.0
        decimations = [1, 2, 7, 100, 999]
        taps = random_taps(rng, 255)
        samples = CHUNK + 70001
        x = never_zero(rng, samples)
        offsets = sorted({0, 1, 2, 6, 7, 98, 99, 100, 101, 998, 999, 1000, CHUNK - 1, CHUNK,
                          CHUNK + 1, samples - 1000, samples - 2} |
                         set(rng.integers(0, samples, 40).tolist()))
        _, outputs, _, sinks = self.run_bank(x, fs, [0.1, -0.2, 0.3, -0.4, 0.45], decimations,
                                             taps, max_chunk=50000, tags=make_tags(offsets))
        for i, D in enumerate(decimations):
            with self.subTest(output=i, decimation=D):
                count = samples // D
                self.assertEqual(len(outputs[i]), count)
                self.assertEqual(tags_of(sinks[i]), [(k // D, k) for k in offsets
                                                     if k // D < count])
                self.assertEqual(freq_tags(sinks[i]), [])
                for t in sinks[i].tags():
                    self.assertEqual(pmt.symbol_to_string(t.key),
                                     f"key{pmt.to_long(t.value) % 3}")
                    self.assertEqual(pmt.symbol_to_string(t.srcid), "src")

    def test_006_retunes_while_running(self):
        # At each stop one channel changes: a new centre (channel 0), fewer
        # taps (channel 1), a new centre and fewer taps in one stop (channel
        # 2: one retune, whose phase step takes the new tap count), a new
        # centre near the band edge (channel 0 again). The "freq" tag marks
        # output floor(s/D_i) of the retuned channel with its (new or
        # unchanged) centre; its output follows the definition with the
        # retune there; the other channels are unchanged. More taps than
        # the bank was started with are refused while it runs, and change
        # nothing; more taps than the channel had, within the longest the bank
        # was started with, keep the whole history (the engine's history is
        # the longest taps'): no samples count as zero.
        rng = np.random.default_rng(6)
        fs = 2.0e6
        decimations = [5, 7, 100, 1]
        t255 = random_taps(rng, 255)
        t1000 = random_taps(rng, 1000)
        design = low_pass(fs, 50e3, 10e3, window.WIN_BLACKMAN_hARRIS)
        taps = [t255, design, t1000, random_taps(rng, 64)]
        fewer = low_pass(fs, 50e3, 20e3, window.WIN_KAISER)
        short = random_taps(rng, 17)
        t600 = random_taps(rng, 600)
        self.assertLess(len(fewer), len(design))
        centers = [0.1234 * fs, -0.3 * fs, 0.2 * fs, -0.05 * fs]
        stops = [100003, CHUNK + 1, CHUNK + 50000, CHUNK + 150007]
        x = never_zero(rng, stops[-1] + 200004)

        def retune_both(bank):
            bank.set_center_freq(2, -0.4321 * fs)
            bank.set_taps(2, short)

        def refused(bank):
            with self.assertRaisesRegex(ValueError, "channel 3: 1001 taps exceed the 1000"):
                bank.set_taps(3, random_taps(rng, 1001))
            bank.set_center_freq(0, 0.4999 * fs)
            bank.set_taps(3, t600)
        actions = [lambda b: b.set_center_freq(0, -0.4321 * fs),
                   lambda b: b.set_taps(1, fewer), retune_both, refused]
        bank, outputs, sinks = self.gated_run(x, fs, centers, decimations, taps, stops, actions)
        r = [[s // D for s in stops] for D in decimations]
        expect_tags = [[(r[0][0], -0.4321 * fs), (r[0][3], 0.4999 * fs)],
                       [(r[1][1], centers[1])], [(r[2][2], -0.4321 * fs)],
                       [(r[3][3], centers[3])]]
        retunes = [[setting(r[0][0], t255, -0.4321 * fs), setting(r[0][3], t255, 0.4999 * fs)],
                   [setting(r[1][1], fewer, centers[1])],
                   [setting(r[2][2], short, -0.4321 * fs)],
                   [setting(r[3][3], t600, centers[3])]]
        for i, D in enumerate(decimations):
            with self.subTest(output=i):
                self.assertEqual(freq_tags(sinks[i]), expect_tags[i])
                self.assertEqual(len(outputs[i]), len(x) // D)
                ref = reference(x, D, fs, taps[i], centers[i], retunes[i])
                assert_close(self, outputs[i], ref, f"output {i}")
        self.assertEqual(bank.center_freqs(), [0.4999 * fs, centers[1], -0.4321 * fs,
                                               centers[3]])
        self.assertEqual(len(bank.taps(1)), len(fewer))
        self.assertEqual(len(bank.taps(3)), 600)
        # the retune's phase step is e^{-j (w' - w) (N' - 1) / 2} with the new
        # tap count: the step with the old one is far off
        i, first = 2, r[2][2]
        ref = reference(x, 100, fs, t1000, centers[2], retunes[2])
        w0, w1 = qa_xlating.omega(centers[2], fs), qa_xlating.omega(-0.4321 * fs, fs)
        wrong = ref[first:] * np.exp(-1j * (w1 - w0) * (len(t1000) - len(short)) / 2)
        self.assertGreater(relative_l2(outputs[i][first:], wrong), 1e-2)

    def test_007_freq_message(self):
        # The "freq" message port: a dict {"freq": f, "channel": c} (channel 0
        # when absent) or a pair (c . f); messages naming no frequency, or a
        # channel the bank lacks, are ignored. Each stop's message retunes one
        # channel, marked by its "freq" tag.
        rng = np.random.default_rng(7)
        fs = 48000.0
        decimations = [5, 7, 100]
        taps = random_taps(rng, 255)
        centers = [1000.0, -2000.0, 3000.0]
        port = pmt.intern("freq")

        def as_dict(f, channel=None):
            d = pmt.dict_add(pmt.make_dict(), pmt.intern("freq"), pmt.from_double(f))
            if channel is not None:
                d = pmt.dict_add(d, pmt.intern("channel"), pmt.from_long(channel))
            return d

        def as_pair(channel, f):
            return pmt.cons(pmt.from_long(channel), pmt.from_double(f))
        ignored = [pmt.intern("freq"), pmt.cons(pmt.from_long(1), pmt.intern("x")),
                   pmt.dict_add(pmt.make_dict(), pmt.intern("gain"), pmt.from_double(5.0)),
                   as_pair(3, 100.0), as_dict(100.0, 7), as_pair(1, 1e6)]

        def post(channel, final, *messages):
            def action(bank):
                for m in messages:
                    bank._post(port, m)
                return lambda b: b.center_freq(channel) == final
            return action

        stops = [40001, 150000, CHUNK + 3]
        x = never_zero(rng, stops[-1] + 33333)
        actions = [post(1, -7000.5, as_dict(-7000.5, 1)),
                   post(2, 12000.0, *ignored, as_pair(2, 12000.0)),
                   post(0, -3000.0, as_dict(-3000.0))]
        bank, outputs, sinks = self.gated_run(x, fs, centers, decimations, taps, stops,
                                              actions)
        changes = {1: (0, -7000.5), 2: (1, 12000.0), 0: (2, -3000.0)}
        for i, D in enumerate(decimations):
            with self.subTest(output=i):
                stop, f = changes[i]
                first = stops[stop] // D
                self.assertEqual(freq_tags(sinks[i]), [(first, f)])
                ref = reference(x, D, fs, taps, centers[i], [setting(first, taps, f)])
                assert_close(self, outputs[i], ref, f"output {i}")
        self.assertEqual(bank.center_freqs(), [-3000.0, -7000.5, 12000.0])

    def test_008_bad_arguments_raise_value_error(self):
        taps = [0.5, 1.0, 0.5]
        fs = 1.0
        for centers, channel in (([0.1, 0.5000001], 1), ([-0.6, 0.0], 0),
                                 ([0.0, 0.1, float("nan")], 2), ([float("inf")], 0)):
            with self.subTest(centers=centers):
                with self.assertRaisesRegex(ValueError, f"channel {channel}: center_freq"):
                    make(fs, centers, 1, taps)
        # the band edges are allowed
        make(fs, [-0.5, 0.5], 1, taps)
        for decimations, channel in (([1, 0], 1), ([-1, 2], 0), (0, 0)):
            with self.subTest(decimations=decimations):
                with self.assertRaisesRegex(ValueError, f"channel {channel}: decimation"):
                    make(fs, [0.1, 0.2], decimations, taps)
        with self.assertRaisesRegex(ValueError, "channel 1: taps must not be empty"):
            make(fs, [0.1, 0.2], 1, [taps, []])
        for bad in (float("nan"), float("inf"), complex(1, float("nan"))):
            with self.subTest(tap=bad):
                with self.assertRaisesRegex(ValueError, "channel 2: taps must be finite"):
                    make(fs, [0.1, 0.2, 0.3], 1, [taps, taps, [1.0, bad]])
        with self.assertRaisesRegex(ValueError, "decimations has 3 entries for 2 channels"):
            make(fs, [0.1, 0.2], [1, 2, 3], taps)
        with self.assertRaisesRegex(ValueError, "taps has 3 lists for 2 channels"):
            make(fs, [0.1, 0.2], 1, [taps, taps, taps])
        with self.assertRaisesRegex(ValueError, "center_freqs must not be empty"):
            make(fs, [], 1, taps)
        for bad in (0.0, -1.0, float("nan"), float("inf")):
            with self.subTest(samp_rate=bad):
                with self.assertRaisesRegex(ValueError, "sampling_freq"):
                    make(bad, [0.0], 1, taps)
        with self.assertRaisesRegex(ValueError, "vector output"):
            make(fs, [0.1, 0.2], [2, 3], taps, "", True)
        with self.assertRaisesRegex(ValueError, "device"):
            make(fs, [0.1], 1, taps, "no-such-device-xyz")
        # refused setters name the channel and leave the bank as it was
        bank = make(fs, [0.1, 0.2], [2, 3], taps)
        for channel in (2, 100):
            with self.assertRaisesRegex(ValueError, f"no channel {channel}"):
                bank.set_center_freq(channel, 0.1)
            with self.assertRaisesRegex(ValueError, f"no channel {channel}"):
                bank.set_taps(channel, taps)
            with self.assertRaisesRegex(ValueError, f"no channel {channel}"):
                bank.center_freq(channel)
        with self.assertRaisesRegex(ValueError, "channel 1: center_freq"):
            bank.set_center_freq(1, 0.75)
        with self.assertRaisesRegex(ValueError, "channel 0: taps must not be empty"):
            bank.set_taps(0, [])
        with self.assertRaisesRegex(ValueError, "channel 1: taps must be finite"):
            bank.set_taps(1, [1.0, float("nan")])
        self.assertEqual(bank.center_freqs(), [0.1, 0.2])
        self.assertEqual(list(bank.taps(1)), taps)
        # a refused setter makes no retune
        x = never_zero(np.random.default_rng(8), 4001)
        src = blocks.vector_source_c(x, False)
        sinks = [blocks.vector_sink_c(), blocks.vector_sink_c()]
        self.tb.connect(src, bank)
        for i, sink in enumerate(sinks):
            self.tb.connect((bank, i), sink)
        self.tb.run()
        for i, (D, c) in enumerate(((2, 0.1), (3, 0.2))):
            self.assertEqual(freq_tags(sinks[i]), [])
            assert_close(self, sinks[i].data(), reference(x, D, fs, taps, c), f"output {i}")

    def test_009_more_taps_once_stopped(self):
        # The header: set_taps() takes at most as many taps as the longest the
        # bank started with only while the flowgraph runs; once it has ended,
        # the next start makes new engines, so more taps are taken.
        rng = np.random.default_rng(9)
        fs = 1.0
        t64, t100 = random_taps(rng, 64), random_taps(rng, 100)
        x = never_zero(rng, 20001)
        bank, outputs, _, _ = self.run_bank(x, fs, [0.1, 0.2], [5, 7], t64)
        assert_close(self, outputs[0], reference(x, 5, fs, t64, 0.1), "output 0")
        bank.set_taps(0, t100)
        self.assertEqual(len(bank.taps(0)), 100)

    def test_010_integer_inputs_against_the_in_tree_chain(self):
        # Complex int16 and int8 over their whole range, in random pieces:
        # the same outputs as GNU Radio's interleaved_short_to_complex /
        # interleaved_char_to_complex -> the bank with complex float input, in
        # the same flowgraph, and as the float64 definition. The channels of
        # test_005 (only the forward FFT's kernels are new).
        rng = np.random.default_rng(10)
        fs = 1.0
        decimations = [1, 2, 7, 100, 999]
        centers = [0.1, -0.2, 0.3, -0.4, 0.45]
        taps = random_taps(rng, 255)
        for input_type, item_size in (("sc16", 4), ("sc8", 2)):
            with self.subTest(input_type=input_type):
                self.setUp()
                x = stream_qa_helpers.never_zero_integers(rng, 200001, input_type)
                src, converted = stream_qa_helpers.side_by_side_sources(self.tb, x, input_type)
                ours = make(fs, centers, decimations, taps, "", False, input_type)
                theirs = make(fs, centers, decimations, taps)
                self.assertEqual(ours.input_signature().sizeof_stream_item(0), item_size)
                # (a Python block must outlive the run: keep a reference)
                self.chunks = random_chunks(30000, int(rng.integers(1 << 31)),
                                            item=stream_qa_helpers.SAMPLE_ITEMS[input_type])
                self.tb.connect(src, self.chunks, ours)
                self.tb.connect(converted, theirs)
                sinks = [[blocks.vector_sink_c() for _ in centers] for _ in range(2)]
                for bank, bank_sinks in zip((ours, theirs), sinks):
                    for i, sink in enumerate(bank_sinks):
                        self.tb.connect((bank, i), sink)
                self.tb.run()
                values = stream_qa_helpers.as_complex(x)
                for i, (D, c) in enumerate(zip(decimations, centers)):
                    got = np.asarray(sinks[0][i].data(), np.complex128)
                    chain = np.asarray(sinks[1][i].data(), np.complex128)
                    what = f"{input_type} output {i} (D={D})"
                    self.assertEqual(len(got), len(values) // D, what + ": output count")
                    assert_close(self, got, reference(values, D, fs, taps, c), what)
                    assert_close(self, got, chain, what + ": vs the in-tree chain", tol=1e-5)
        self.assertEqual(make(fs, centers, 1, taps).input_signature().sizeof_stream_item(0),
                         8)

    def test_011_bad_input_type_raises_value_error(self):
        for bad in ("cf32", "SC16", "", "ci8"):
            with self.subTest(input_type=bad):
                with self.assertRaises(ValueError) as raised:
                    make(1.0, [0.1], 2, [1.0, 0.5], input_type=bad)
                self.assertEqual(str(raised.exception),
                                 'input_type must be "fc32" (complex float), "sc16" '
                                 f'(complex int16) or "sc8" (complex int8); got "{bad}"')


if __name__ == '__main__':
    gr_unittest.run(qa_channel_bank_ccc)
