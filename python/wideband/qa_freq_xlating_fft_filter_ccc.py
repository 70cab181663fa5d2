#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
wideband.freq_xlating_fft_filter_ccc against the definition in its header, in
float64, and beside GNU Radio's own freq_xlating_fir_filter_ccc (the block whose
output it promises) and freq_xlating_fft_filter_ccc (the hier block it replaces).

The definition (include/gnuradio/wideband/freq_xlating_fft_filter_ccc.h): with
centre f, rate fs, w = 2 pi f / fs, taps p[0..N), decimation D,

    y[n] = theta(n) * sum_k p[k] e^{j w k} x[n*D - k],   x[m < 0] = 0,
    theta(n) = phi * e^{-j w D n},   phi = e^{-j w (N - 1) / 2},

and a retune to w', N' whose first output is r (the output carrying the "freq"
tag) continues with theta(n) = theta(r) * e^{-j (w' - w) (N' - 1) / 2} *
e^{-j w' D (n - r)}: what freq_xlating_fir_filter_ccc does (its rotator's phase
starts at phi, since its previous centre starts at 0, and is stepped on every
rebuild of its taps). reference() evaluates this in float64 (numpy FFT
convolution, ~1e-15).

Tolerance: relative L2 error <= TOL = 1e-4 over every window of WINDOW = 2048
consecutive outputs (the whole output when shorter), so that a phase that
drifts late in a long stream shows even where the stream's total error is
small. The block's error is float32 rounding: ~1e-6 for the filter (as
fft_filter_ccc), plus the float32 rotation (its phases are computed in double
from exact sample counts); measured on PoCL over test_001: 6e-8 to 9e-7 in the
worst window. Anything real (a missing start phase, a sample off,
a wrong retune phase step, a tap missing) is 1e-2 or more; test_000 shows the
check sees a phase drift of 2e-4 rad.

The in-tree freq_xlating_fir_filter_ccc computes in float32 and accumulates its
rotation in float: its error against the float64 definition grows along the
stream, measured at 7e-5..1.5e-2 (relative L2 over 2^17 samples) depending on
the centre. test_002 measures it in every run and asserts that ours is at
least as close to the definition, and that ours and the in-tree block differ
by no more than that drift (plus ours' own error).

Retunes are made deterministic with a gate (stepped_gate) between the source
and the blocks: the stream stops after s samples, all floor(s/D) outputs come
out, the setters are called (or a "freq" message is posted and taken), and
the stream resumes: the retune's first output is r = floor(s/D), where the
"freq" tag must be.
"""

import cmath
import os
import threading
import time

import numpy as np
import pmt
from gnuradio import blocks, filter, gr, gr_unittest
from gnuradio import wideband
from stream_qa_helpers import filter_reference, never_zero, random_chunks, wait_for

TOL = 1e-4
WINDOW = 2048
# Input samples the block computes at once (as fft_filter_ccc).
CHUNK = 1 << 19


def make(*args, **kwargs):
    return wideband.freq_xlating_fft_filter_ccc(*args, **kwargs)


def random_taps(rng, count):
    """Complex taps without a zero (not a useful filter, but every tap
    matters)."""
    return [complex(t) for t in never_zero(rng, count)]


def omega(center, fs):
    return 2 * np.pi * center / fs


class setting:
    """One segment of the stream: from output `first` on, these taps and this
    centre; samples before `zero_before` taken as zero (a filter whose taps
    grew keeps only the history of its old taps, as fft_filter_ccc does)."""

    def __init__(self, first, taps, center, zero_before=0):
        self.first, self.taps, self.center, self.zero_before = first, taps, center, zero_before


def filtered_outputs(x, h, D, first, end, zero_before=0):
    """sum_k h[k] x[n*D - k] for n = first .. end - 1, in float64, with x[m]
    taken as zero for m < max(zero_before, 0): stream_qa_helpers'
    filter_reference() on only the samples these outputs need."""
    N = len(h)
    start = first * D - (N - 1)
    stop = (end - 1) * D + 1
    segment = np.zeros(stop - start, np.complex128)
    lo = max(start, zero_before, 0)
    if stop > lo:
        segment[lo - start:] = np.asarray(x[lo:stop], np.complex128)
    size = 1 << int(np.ceil(np.log2(len(segment) + N)))
    full = np.fft.ifft(np.fft.fft(segment, size) * np.fft.fft(h, size))
    return full[N - 1:len(segment):D]


def reference(x, D, fs, settings):
    """The header's output in float64 for input x (floor(len(x)/D) outputs),
    settings: [setting(0, taps, centre), setting(r1, ...), ...] with r
    increasing."""
    outputs = len(x) // D
    y = np.zeros(outputs, np.complex128)
    if outputs == 0:
        return y
    angle = None      # theta's angle at the segment's first output
    previous = None
    for i, s in enumerate(settings):
        end = settings[i + 1].first if i + 1 < len(settings) else outputs
        if s.first >= outputs:
            break
        end = min(end, outputs)
        w = omega(s.center, fs)
        N = len(s.taps)
        k = np.arange(N)
        h = np.asarray(s.taps, np.complex128) * np.exp(1j * w * k)
        if previous is None:
            angle = -w * (N - 1) / 2
        else:
            pw = omega(previous.center, fs)
            # theta(r) of the previous segment, then the in-tree phase step
            angle = angle - np.remainder(pw * D, 2 * np.pi) * (s.first - previous.first)
            angle -= (w - pw) * (N - 1) / 2
        filtered = filtered_outputs(x, h, D, s.first, end, s.zero_before)
        n = np.arange(s.first, end) - s.first
        y[s.first:end] = np.exp(1j * (angle - np.remainder(w * D, 2 * np.pi) * n)) * filtered
        previous = s
    return y


def window_errors(ours, ref):
    """Relative L2 error of each window of WINDOW outputs (the last window
    takes the rest; one window when shorter)."""
    count = max(1, len(ref) // WINDOW)
    errors = []
    for i in range(count):
        a = i * WINDOW
        b = len(ref) if i == count - 1 else a + WINDOW
        errors.append(np.linalg.norm(ours[a:b] - ref[a:b]) / np.linalg.norm(ref[a:b]))
    return np.array(errors)


def relative_l2(a, b):
    return np.linalg.norm(np.asarray(a) - np.asarray(b)) / np.linalg.norm(np.asarray(b))


def assert_close(testcase, ours, ref, what, tol=TOL):
    """ours has ref's length and is within tol (relative L2) of it over every
    window of WINDOW outputs."""
    ours = np.asarray(ours, np.complex128)
    ref = np.asarray(ref, np.complex128)
    testcase.assertEqual(ours.shape, ref.shape, f"{what}: output count")
    if ref.size == 0:
        return
    errors = window_errors(ours, ref)
    worst = int(np.argmax(errors))
    if errors[worst] > tol:
        bad = np.flatnonzero(errors > tol)
        raise AssertionError(
            f"{what}: {bad.size} of {errors.size} windows of {WINDOW} outputs beyond {tol}: "
            f"first at output {bad[0] * WINDOW}, worst {errors[worst]:.3g} at output "
            f"{worst * WINDOW} (the first windows: {np.array2string(errors[:4], precision=2)})")


class stepped_gate(gr.sync_block):
    """Passes its input up to each of `stops` (cumulative input counts) in
    turn and waits there until release() is called."""

    def __init__(self, stops):
        gr.sync_block.__init__(self, name="stepped_gate", in_sig=[np.complex64],
                               out_sig=[np.complex64])
        self.stops = list(stops)
        self.stage = 0
        self.released = threading.Event()

    def release(self):
        self.stage += 1
        self.released.set()

    def work(self, input_items, output_items):
        count = len(output_items[0])
        passed = self.nitems_written(0)
        if self.stage < len(self.stops):
            count = min(count, self.stops[self.stage] - passed)
            if count <= 0:
                self.released.wait(0.01)
                self.released.clear()
                return 0
        output_items[0][:count] = input_items[0][:count]
        return count


def step_error(theirs, ref, r):
    """How well the in-tree block's phase step at output r matches the
    definition's, its drift aside: its outputs from r on (WINDOW of them)
    against the definition's once rotated back by its phase error just
    before r (the drift's phase over the WINDOW outputs before r)."""
    before = slice(max(0, r - WINDOW), r)
    after = slice(r, r + WINDOW)
    drift = np.vdot(ref[before], theirs[before])
    return relative_l2(theirs[after] * np.conj(drift) / abs(drift), ref[after])


def freq_tags(sink):
    """[(offset, value)] of the "freq" tags a sink received."""
    return [(t.offset, pmt.to_double(t.value)) for t in sink.tags()
            if pmt.symbol_to_string(t.key) == "freq"]


class qa_freq_xlating_fft_filter_ccc(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()

    def tearDown(self):
        self.tb = None

    def run_ours(self, D, taps, center, fs, x, max_chunk=None, configure=None):
        """Ours alone on x; returns its output."""
        src = blocks.vector_source_c(x, False)
        ours = make(D, taps, center, fs)
        if configure:
            configure(ours)
        sink = blocks.vector_sink_c()
        if max_chunk:
            # (a Python block must outlive the run: keep a reference)
            self.chunks = random_chunks(max_chunk, len(x) + D)
            self.tb.connect(src, self.chunks, ours, sink)
        else:
            self.tb.connect(src, ours, sink)
        self.tb.run()
        return np.asarray(sink.data(), np.complex128)

    def test_000_reference_and_check(self):
        # reference() is the header's formula, and the check sees what matters.
        rng = np.random.default_rng(0)
        D, fs, f = 3, 2.0e6, 0.3137e6
        x = never_zero(rng, 9001)
        taps = random_taps(rng, 31)
        ref = reference(x, D, fs, [setting(0, taps, f)])
        w = omega(f, fs)
        N = len(taps)
        phi = cmath.exp(-1j * w * (N - 1) / 2)
        for n in (0, 1, 7, 2000, 2999):
            direct = phi * cmath.exp(-1j * w * D * n) * sum(
                taps[k] * cmath.exp(1j * w * k) * complex(x[n * D - k])
                for k in range(N) if n * D - k >= 0)
            self.assertAlmostEqual(ref[n], direct, delta=1e-9 * abs(direct) + 1e-12)
        # a retune at output r: theta(r) = old theta(r) * e^{-j (w'-w)(N'-1)/2},
        # then the new rotation, the new taps on the whole stream
        r, f2 = 1234, -0.71e6
        taps2 = random_taps(rng, 17)
        ref2 = reference(x, D, fs, [setting(0, taps, f), setting(r, taps2, f2)])
        np.testing.assert_allclose(ref2[:r], ref[:r], rtol=0, atol=1e-9)
        w2 = omega(f2, fs)
        for n in (r, r + 1, 2999):
            theta = (phi * cmath.exp(-1j * w * D * r) *
                     cmath.exp(-1j * (w2 - w) * (len(taps2) - 1) / 2) *
                     cmath.exp(-1j * w2 * D * (n - r)))
            direct = theta * sum(taps2[k] * cmath.exp(1j * w2 * k) * complex(x[n * D - k])
                                 for k in range(len(taps2)))
            self.assertAlmostEqual(ref2[n], direct, delta=1e-9 * abs(direct))
        # zero_before: samples before it are zero
        ref3 = reference(x, D, fs, [setting(0, taps, f), setting(r, taps2, f2, r * D - 5)])
        n = r
        direct = (ref2[n] / sum(taps2[k] * cmath.exp(1j * w2 * k) * complex(x[n * D - k])
                                for k in range(len(taps2)))) * sum(
            taps2[k] * cmath.exp(1j * w2 * k) * complex(x[n * D - k]) for k in range(6))
        self.assertAlmostEqual(ref3[n], direct, delta=1e-9 * abs(direct))
        # filtered_outputs() is filter_reference() on part of the stream
        h = np.asarray(taps2, np.complex128)
        np.testing.assert_allclose(filtered_outputs(x, h, D, 100, 2000, 311),
                                   filter_reference(x, h, D, 311)[100:2000], atol=1e-9)
        np.testing.assert_allclose(filtered_outputs(x, h, D, 0, 3000),
                                   filter_reference(x, h, D), atol=1e-9)
        # the check
        assert_close(self, ref, ref, "itself")
        for wrong, what in (
                (ref / phi, "no start phase"),
                (ref * np.exp(-1j * 2e-4 * np.arange(len(ref)) / len(ref)), "drift of 2e-4 rad"),
                (np.concatenate([[0], ref[:-1]]), "one output late"),
                (reference(x, D, fs, [setting(0, taps[:-1], f)]), "a tap missing"),
                (ref2 * np.where(np.arange(len(ref)) >= r,
                                 cmath.exp(1j * (w2 - w) * (len(taps2) - 1) / 2), 1),
                 "no retune phase step")):
            with self.subTest(wrong=what):
                with self.assertRaises(AssertionError):
                    assert_close(self, wrong, ref2 if "retune" in what else ref, what)
        with self.assertRaises(AssertionError):
            assert_close(self, ref[:-1], ref, "one output short")

    def test_001_against_the_float64_definition(self):
        # Decimations 1 .. 1000, 1 .. 20000 taps, random centres (one at
        # -fs/2 exactly), streams of several chunks: outputs late in long
        # streams (n*D up to ~10^6) show a rotation that loses precision.
        cases = [  # (D, ntaps, samples, fs)
            (1, 1, 30001, 1.0),
            (2, 64, 100003, 2.4e6),
            (5, 255, 3 * CHUNK + 77, 48000.0),
            (37, 1000, 400000, 10e6),
            (100, 2500, 600011, 1.0),
            (1000, 4096, 2 * CHUNK + 1234, 3.2e6),
            (1, 20000, 250000, 1.0),
        ]
        for i, (D, ntaps, samples, fs) in enumerate(cases):
            rng = np.random.default_rng(100 + i)
            center = rng.uniform(-0.5, 0.5) * fs
            with self.subTest(decimation=D, ntaps=ntaps, center=center / fs):
                self.setUp()
                x = never_zero(rng, samples)
                taps = random_taps(rng, ntaps)
                got = self.run_ours(D, taps, center, fs, x)
                assert_close(self, got, reference(x, D, fs, [setting(0, taps, center)]),
                             f"D={D} ntaps={ntaps} centre={center / fs:.4f} fs")
        # the band edge, -fs/2 and +fs/2
        rng = np.random.default_rng(107)
        x = never_zero(rng, 50001)
        taps = random_taps(rng, 64)
        for center in (-1.2e6, 1.2e6):
            with self.subTest(center="edge", sign=np.sign(center)):
                self.setUp()
                got = self.run_ours(2, taps, center, 2.4e6, x)
                assert_close(self, got, reference(x, 2, 2.4e6, [setting(0, taps, center)]),
                             f"centre {center}")

    def side_by_side(self, D, taps, center, fs, x):
        """Ours and the in-tree freq_xlating_fir_filter_ccc in one flowgraph
        on x; returns (ours, theirs)."""
        src = blocks.vector_source_c(x, False)
        ours = make(D, taps, center, fs)
        theirs = filter.freq_xlating_fir_filter_ccc(D, taps, center, fs)
        ours_sink = blocks.vector_sink_c()
        their_sink = blocks.vector_sink_c()
        self.tb.connect(src, ours, ours_sink)
        self.tb.connect(src, theirs, their_sink)
        self.tb.run()
        return (np.asarray(ours_sink.data(), np.complex128),
                np.asarray(their_sink.data(), np.complex128))

    def test_002_beside_the_in_tree_fir_block(self):
        # 2^17 samples, a low-pass prototype and random ones, centres from 0
        # to near the band edge. The in-tree block drifts (float32 rotation);
        # ours may differ from it by that drift, and is at least as close to
        # the definition. Measured on PoCL (relative L2 against the
        # definition): in-tree 2.1e-7 (centre 0), 2.7e-4 (0.0123 fs), 1.1e-3,
        # 5.0e-3, 9.4e-3 (0.4871 fs); ours 4.1e-7 .. 5.7e-7.
        samples = 1 << 17
        fs = 1.0e6
        rng = np.random.default_rng(2)
        # a Hamming low-pass of 255 taps (the length of the random ones: few
        # kernel builds)
        lowpass = [complex(t) for t in filter.firdes.low_pass(1.0, fs, 50e3, 9450)]
        self.assertEqual(len(lowpass), 255)
        cases = [(5, random_taps(rng, 255), 0.0), (5, random_taps(rng, 255), 0.2501 * fs),
                 (5, lowpass, -0.3337 * fs), (5, lowpass, 0.4871 * fs),
                 (2, random_taps(rng, 64), 0.0123 * fs)]
        for i, (D, taps, center) in enumerate(cases):
            with self.subTest(decimation=D, ntaps=len(taps), center=center / fs):
                self.setUp()
                x = never_zero(rng, samples + i)
                ours, theirs = self.side_by_side(D, taps, center, fs, x)
                ref = reference(x, D, fs, [setting(0, taps, center)])
                what = f"D={D} centre={center / fs:.4f} fs"
                assert_close(self, ours, ref, what)
                # the in-tree block gives every output too (a sync decimator)
                self.assertEqual(len(theirs), len(ref), what + ": in-tree output count")
                their_error = relative_l2(theirs, ref)
                our_error = relative_l2(ours, ref)
                # the reference is the in-tree block's definition: it only drifts
                self.assertLess(their_error, 3e-2, what + ": in-tree block vs definition")
                self.assertLessEqual(our_error, max(their_error, 1e-5),
                                     f"{what}: ours {our_error:.3g} vs the in-tree "
                                     f"block's {their_error:.3g}")
                difference = relative_l2(ours, theirs)
                self.assertLessEqual(difference, their_error + TOL,
                                     f"{what}: ours vs in-tree {difference:.3g}, in-tree "
                                     f"drift {their_error:.3g}")
                if os.environ.get("WIDEBAND_QA_VERBOSE"):
                    print(f"{what}: ours {our_error:.2e}, in-tree {their_error:.2e}, "
                          f"ours vs in-tree {difference:.2e}")

    def gated_run(self, D, taps, center, fs, x, stops, actions, in_tree=True,
                  configure=None):
        """Runs ours (and the in-tree block) behind a stepped_gate on x; at
        each stop waits for all floor(stop/D) outputs, calls actions[i](block)
        for each block, and waits for `ready(block)` if the action returns
        such a function. Returns (ours output, ours sink, theirs output,
        their sink)."""
        src = blocks.vector_source_c(x, False)
        self.gate = stepped_gate(stops)
        ours = make(D, taps, center, fs)
        if configure:
            configure(ours)
        ours_sink = blocks.vector_sink_c()
        self.tb.connect(src, self.gate, ours, ours_sink)
        pairs = [(ours, ours_sink)]
        if in_tree:
            theirs = filter.freq_xlating_fir_filter_ccc(D, taps, center, fs)
            their_sink = blocks.vector_sink_c()
            self.tb.connect(self.gate, theirs, their_sink)
            pairs.append((theirs, their_sink))
        self.tb.start()
        try:
            for stop, action in zip(stops, actions):
                for block, sink in pairs:
                    wait_for(self, lambda: sink.nitems_read(0) >= stop // D)
                time.sleep(0.05)   # nothing more may come
                for block, sink in pairs:
                    self.assertEqual(sink.nitems_read(0), stop // D,
                                     f"{block.name()}: outputs at the stop after {stop} "
                                     "samples")
                    ready = action(block)
                    if ready:
                        wait_for(self, lambda: ready(block), 30)
                self.gate.release()
        except BaseException:
            # open the gate for good and end the flowgraph
            self.gate.stops = []
            self.gate.released.set()
            self.tb.stop()
            self.tb.wait()
            raise
        self.tb.wait()
        ours_out = np.asarray(ours_sink.data(), np.complex128)
        if not in_tree:
            return ours_out, ours_sink, None, None
        return ours_out, ours_sink, np.asarray(their_sink.data(), np.complex128), their_sink

    def assert_in_tree_agrees(self, ours, theirs, ref, retunes):
        """The in-tree block beside ours after retunes: the same phase step
        at each retune output (its drift aside), and ours no further from it
        than its drift."""
        self.assertEqual(len(theirs), len(ref), "in-tree output count")
        for r in retunes:
            self.assertLess(step_error(theirs, ref, r), 1e-3,
                            f"the in-tree block's phase step at output {r}")
        their_error = relative_l2(theirs, ref)
        self.assertLessEqual(relative_l2(ours, ref), max(their_error, 1e-5))
        self.assertLessEqual(relative_l2(ours, theirs), their_error + TOL)

    def test_003_set_center_freq_while_running(self):
        # Three retunes of the centre, then new taps of the same length, the
        # stream stopped at each: the "freq" tag marks output floor(s/D) with
        # the new (for the taps: unchanged) centre, and the output follows the
        # definition with the phase steps there. The in-tree block beside it
        # does the same (its drift aside).
        D, fs = 5, 2.0e6
        rng = np.random.default_rng(3)
        taps = random_taps(rng, 255)
        new_taps = random_taps(rng, 255)
        centers = [0.1234 * fs, -0.4321 * fs, 0.4999 * fs, 0.0]
        stops = [100003, 2 * CHUNK + 1, 2 * CHUNK + 50000, 2 * CHUNK + 100002]
        x = never_zero(rng, stops[-1] + 200004)
        actions = [lambda b, c=c: b.set_center_freq(c) for c in centers[1:]]
        actions.append(lambda b: b.set_taps(new_taps))
        ours, ours_sink, theirs, their_sink = self.gated_run(D, taps, centers[0], fs, x,
                                                              stops, actions)
        firsts = [s // D for s in stops]
        tags = list(zip(firsts, centers[1:] + [centers[-1]]))
        self.assertEqual(freq_tags(ours_sink), tags)
        self.assertEqual(freq_tags(their_sink), tags)
        ref = reference(x, D, fs, [setting(0, taps, centers[0])] +
                        [setting(r, taps, c) for r, c in zip(firsts, centers[1:])] +
                        [setting(firsts[-1], new_taps, centers[-1])])
        assert_close(self, ours, ref, "ours")
        self.assert_in_tree_agrees(ours, theirs, ref, firsts)

    def test_004_set_taps_while_running(self):
        # New taps (fewer, then more than before, then with a new centre in
        # the same stop, set before the taps): each retune gives one "freq"
        # tag with the unchanged (or new) centre; a centre and taps set in one
        # stop are one retune whose phase step takes the new tap count N'
        # (the in-tree block rebuilds once, in its next work()). More taps
        # than before: the filter kept the old taps' history only (len(old) -
        # 1 samples before sample r*D, as fft_filter_ccc), older samples count
        # as zero for the first outputs.
        #
        # No in-tree block beside it here: freq_xlating_fir_filter_ccc changes
        # its history on set_taps, which in GNU Radio 3.10 shifts its stream
        # (after 64 -> 7 taps at D = 2 it gave 29 outputs more than its input
        # allows before the stop).
        D, fs = 2, 1.0
        rng = np.random.default_rng(4)
        t64 = random_taps(rng, 64)
        t7 = random_taps(rng, 7)
        t255 = random_taps(rng, 255)
        c0, c2 = 0.3, -0.2
        stops = [60001, CHUNK + 3, CHUNK + 40001]
        x = never_zero(rng, stops[-1] + 70000)

        def retune_both(block):
            block.set_center_freq(c2)
            block.set_taps(t64)
        actions = [lambda b: b.set_taps(t7), lambda b: b.set_taps(t255), retune_both]
        ours, ours_sink, _, _ = self.gated_run(D, t64, c0, fs, x, stops, actions,
                                               in_tree=False)
        r = [s // D for s in stops]
        self.assertEqual(freq_tags(ours_sink), [(r[0], c0), (r[1], c0), (r[2], c2)])
        self.assertEqual(len(ours_sink.tags()), 3)
        settings = [setting(0, t64, c0), setting(r[0], t7, c0),
                    setting(r[1], t255, c0, zero_before=r[1] * D - (len(t7) - 1)),
                    setting(r[2], t64, c2)]
        ref = reference(x, D, fs, settings)
        assert_close(self, ours, ref, "ours")
        # the longer taps reached back before the old history: those outputs
        # differ from the new filter on the whole stream, the rest do not
        affected = -(-(len(t255) - len(t7)) // D)
        full = reference(x, D, fs, settings[:2] + [setting(r[1], t255, c0)] + settings[3:])
        self.assertGreater(relative_l2(ours[r[1]:r[1] + affected],
                                       full[r[1]:r[1] + affected]), 1e-2)
        assert_close(self, ours[r[1] + affected:], full[r[1] + affected:],
                     "after the history")
        # the combined retune's step is e^{-j (w' - w) (64 - 1) / 2}, not with
        # the taps before it (7 or 255)
        for wrong_n in (7, 255):
            w0, w2 = omega(c0, fs), omega(c2, fs)
            wrong = ref.copy()
            wrong[r[2]:] *= np.exp(-1j * (w2 - w0) * (wrong_n - len(t64)) / 2)
            self.assertGreater(relative_l2(ours[r[2]:], wrong[r[2]:]), 1e-2)

    def test_005_freq_message(self):
        # The "freq" message port, as the in-tree block's: a dict with key
        # "freq" or a pair whose cdr is the value; other messages are
        # ignored. Several messages in one stop: only the last counts (one
        # retune, from the centre before them).
        D, fs = 5, 48000.0
        rng = np.random.default_rng(5)
        taps = random_taps(rng, 255)
        port = pmt.intern("freq")
        as_dict = pmt.dict_add(pmt.make_dict(), pmt.intern("freq"), pmt.from_double(-7000.5))
        as_pair = pmt.cons(pmt.intern("freq"), pmt.from_double(12000.0))
        as_pair2 = pmt.cons(pmt.intern("freq"), pmt.from_double(-3000.0))
        ignored = [pmt.intern("freq"), pmt.cons(pmt.intern("freq"), pmt.intern("x")),
                   pmt.dict_add(pmt.make_dict(), pmt.intern("gain"), pmt.from_double(5.0))]

        def post(final, *messages):
            """Posts the messages; the centre they leave is `final`."""
            def action(block):
                for m in messages:
                    block._post(port, m)
                return lambda b: b.center_freq() == final
            return action

        stops = [40001, 150000, 150000 + CHUNK]
        x = never_zero(rng, stops[-1] + 33333)
        actions = [post(-7000.5, as_dict), post(12000.0, *ignored, as_pair),
                   post(-3000.0, as_dict, as_pair2)]
        ours, ours_sink, theirs, their_sink = self.gated_run(D, taps, 1000.0, fs, x,
                                                              stops, actions)
        r = [s // D for s in stops]
        centers = [-7000.5, 12000.0, -3000.0]
        self.assertEqual(freq_tags(ours_sink), list(zip(r, centers)))
        self.assertEqual(freq_tags(their_sink), list(zip(r, centers)))
        ref = reference(x, D, fs, [setting(0, taps, 1000.0)] +
                        [setting(a, taps, c) for a, c in zip(r, centers)])
        assert_close(self, ours, ref, "ours")
        self.assert_in_tree_agrees(ours, theirs, ref, r)

    def test_011_settings_between_runs(self):
        # A new run is a new stream (as for fft_filter_ccc): zero history, the
        # phase starts at the current settings' phi, no "freq" tag, whatever
        # was set between the runs. (The in-tree FIR block carries its
        # rotator's phase over and tags the change in the next run.)
        D, fs = 2, 1.0
        rng = np.random.default_rng(55)
        x = never_zero(rng, 50001)
        t64 = random_taps(rng, 64)
        src = blocks.vector_source_c(x, False)
        ours = make(D, t64, 0.1, fs)
        sink = blocks.vector_sink_c()
        self.tb.connect(src, ours, sink)
        for taps, center in ((t64, 0.1), (t64, -0.45), (random_taps(rng, 64), -0.45),
                             (random_taps(rng, 300), 0.2), (t64, 0.1)):
            with self.subTest(ntaps=len(taps), center=center):
                ours.set_taps(taps)
                ours.set_center_freq(center)
                src.rewind()
                sink.reset()
                self.tb.run()
                self.assertEqual(freq_tags(sink), [])
                assert_close(self, sink.data(), reference(x, D, fs, [setting(0, taps, center)]),
                             f"{len(taps)} taps, centre {center}")

    def test_012_taps_beyond_the_fft_size_while_running(self):
        # 64 -> 3000 taps at D = 2: the FFT (1875 points) no longer holds them
        # and changes while streaming (history: the old taps' only); then 5
        # taps and the centre to the band edge in one stop.
        D, fs = 2, 1.0
        rng = np.random.default_rng(12)
        t64, t3000, t5 = (random_taps(rng, n) for n in (64, 3000, 5))
        stops = [70001, CHUNK + 12345]
        x = never_zero(rng, stops[-1] + 90000)

        def edge(block):
            block.set_taps(t5)
            block.set_center_freq(0.5)
        ours, sink, _, _ = self.gated_run(D, t64, -0.2, fs, x, stops,
                                          [lambda b: b.set_taps(t3000), edge], in_tree=False)
        r = [s // D for s in stops]
        self.assertEqual(freq_tags(sink), [(r[0], -0.2), (r[1], 0.5)])
        ref = reference(x, D, fs, [setting(0, t64, -0.2),
                                   setting(r[0], t3000, -0.2, zero_before=r[0] * D - 63),
                                   setting(r[1], t5, 0.5)])
        assert_close(self, ours, ref, "64 -> 3000 -> 5 taps")

    def test_013_retunes_while_streaming(self):
        # Centres set from another thread while chunks are in flight: wherever
        # each retune lands, the "freq" tag must mark it. The output is the
        # definition with the retunes at the tags' outputs and values (changes
        # between two chunks are one retune, with the last centre set).
        D, fs = 2, 1.0
        rng = np.random.default_rng(13)
        taps = random_taps(rng, 64)
        x = never_zero(rng, 8 * CHUNK + 3)
        centers = list(rng.uniform(-0.5, 0.5, 12))
        src = blocks.vector_source_c(x, False)
        ours = make(D, taps, 0.05, fs)
        sink = blocks.vector_sink_c()
        self.tb.connect(src, ours, sink)
        self.tb.start()
        for c in centers:
            time.sleep(0.02)
            ours.set_center_freq(c)
        self.tb.wait()
        tags = freq_tags(sink)
        offsets = [r for r, _ in tags]
        self.assertEqual(offsets, sorted(set(offsets)), tags)
        # the tags' values are centres set, in the order set
        order = [centers.index(c) for _, c in tags]
        self.assertEqual(order, sorted(order), tags)
        ref = reference(x, D, fs, [setting(0, taps, 0.05)] +
                        [setting(r, taps, c) for r, c in tags])
        assert_close(self, sink.data(), ref, f"retunes at {tags}")
        if len(tags) < 2:
            self.skipTest(f"the stream was too fast for the retunes to land in it: {tags}")

    def test_006_tags_on_floor_k_over_d(self):
        # A tag on input sample k goes to output floor(k/D), key, value and
        # source kept; no "freq" tag without a retune.
        for D, ntaps, samples, max_chunk in ((1, 1, 70001, None),
                                             (37, 1000, CHUNK + 70001, 50000)):
            with self.subTest(decimation=D):
                self.setUp()
                rng = np.random.default_rng(D)
                x = never_zero(rng, samples)
                last = samples // D * D
                offsets = sorted({0, 1, D - 1, D, D + 1, 5 * D + D // 2, CHUNK - 1,
                                  CHUNK, CHUNK + 1} & set(range(last)) |
                                 {last - D, last - 1})
                tags = []
                for k in offsets:
                    tag = gr.tag_t()
                    tag.offset = k
                    tag.key = pmt.intern(f"key{k % 3}")
                    tag.value = pmt.from_long(k)
                    tag.srcid = pmt.intern("src")
                    tags.append(tag)
                src = blocks.vector_source_c(x, False, 1, tags)
                ours = make(D, random_taps(rng, ntaps), 0.1, 1.0)
                sink = blocks.vector_sink_c()
                if max_chunk:
                    self.chunks = random_chunks(max_chunk, samples)
                    self.tb.connect(src, self.chunks, ours, sink)
                else:
                    self.tb.connect(src, ours, sink)
                self.tb.run()
                self.assertEqual(len(sink.data()), samples // D)
                got = sorted(((t.offset, pmt.to_long(t.value)) for t in sink.tags()),
                             key=lambda t: t[1])
                self.assertEqual(got, [(k // D, k) for k in offsets])
                for t in sink.tags():
                    self.assertEqual(pmt.symbol_to_string(t.key),
                                     f"key{pmt.to_long(t.value) % 3}")
                    self.assertEqual(pmt.symbol_to_string(t.srcid), "src")

    def test_007_any_chunking_gives_the_same_output(self):
        # Input in random pieces, and few outputs per call: the same output,
        # within the tolerance, as one piece.
        rng = np.random.default_rng(7)
        fs = 1.0
        for D, ntaps, samples, max_chunk in ((5, 255, CHUNK + 20001, 7000),
                                             (37, 1000, 300007, 100000),
                                             (1, 1, 20000, 3)):
            with self.subTest(decimation=D, max_chunk=max_chunk):
                taps = random_taps(rng, ntaps)
                center = rng.uniform(-0.5, 0.5)
                x = never_zero(rng, samples)
                ref = reference(x, D, fs, [setting(0, taps, center)])
                self.setUp()
                whole = self.run_ours(D, taps, center, fs, x)
                self.setUp()
                pieces = self.run_ours(D, taps, center, fs, x, max_chunk=max_chunk)
                assert_close(self, whole, ref, "one piece")
                assert_close(self, pieces, ref, "random pieces")
                assert_close(self, pieces, whole, "random pieces vs one piece", tol=1e-5)
        # few output items per call: a chunk's output leaves in many pieces
        D, taps, center = 5, random_taps(rng, 255), 0.377
        x = never_zero(rng, 30001)

        def small_calls(block):
            block.set_output_multiple(1)
            block.set_max_noutput_items(7)
        self.setUp()
        got = self.run_ours(D, taps, center, fs, x, configure=small_calls)
        assert_close(self, got, reference(x, D, fs, [setting(0, taps, center)]),
                     "7 outputs per call")

    def test_008_bad_arguments_raise_value_error(self):
        taps = [0.5, 1.0, 0.5]
        for D in (0, -1):
            with self.assertRaisesRegex(ValueError, "decimation"):
                make(D, taps, 0.0, 1.0)
        with self.assertRaisesRegex(ValueError, "taps must not be empty"):
            make(1, [], 0.0, 1.0)
        for bad in (float("nan"), float("inf"), complex(1, float("nan")),
                    complex(-float("inf"), 0)):
            with self.assertRaisesRegex(ValueError, "taps must be finite"):
                make(1, [1.0, bad, 1.0], 0.0, 1.0)
        for center, fs in ((0.5000001, 1.0), (-0.6, 1.0), (1.3e6, 2.4e6),
                           (float("nan"), 1.0), (float("inf"), 1.0)):
            with self.assertRaisesRegex(ValueError, "center_freq"):
                make(1, taps, center, fs)
        for fs in (0.0, -1.0, float("nan"), float("inf")):
            with self.assertRaisesRegex(ValueError, "sampl"):
                make(1, taps, 0.0, fs)
        for device in ("no-such-device-xyz", "9:9", "0:", "1:x"):
            with self.assertRaisesRegex(ValueError, "device"):
                make(1, taps, 0.0, 1.0, device)
        if not any(d["type"] == "GPU" for d in wideband.list_devices()):
            with self.assertRaisesRegex(ValueError, "(?i)gpu"):
                make(1, taps, 0.0, 1.0, "gpu")
        # refused setters leave the block as it was
        taps = random_taps(np.random.default_rng(8), 64)
        block = make(2, taps, 0.25, 1.0)
        for bad in (0.51, -0.75, float("nan")):
            with self.assertRaisesRegex(ValueError, "center_freq"):
                block.set_center_freq(bad)
        with self.assertRaisesRegex(ValueError, "taps must not be empty"):
            block.set_taps([])
        with self.assertRaisesRegex(ValueError, "taps must be finite"):
            block.set_taps([1.0, float("nan")])
        self.assertEqual(block.center_freq(), 0.25)
        self.assertEqual(list(block.taps()), taps)
        self.assertEqual(block.decimation(), 2)
        # a refused setter makes no retune: one stream, unchanged
        x = never_zero(np.random.default_rng(8), 4001)
        src = blocks.vector_source_c(x, False)
        sink = blocks.vector_sink_c()
        self.tb.connect(src, block, sink)
        self.tb.run()
        self.assertEqual(freq_tags(sink), [])
        assert_close(self, sink.data(), reference(x, 2, 1.0, [setting(0, taps, 0.25)]),
                     "after refused setters")

    def test_009_accessors(self):
        rng = np.random.default_rng(9)
        automatic = wideband.find_device("")["name"]
        for D, ntaps, center, fs in ((1, 1, 0.0, 1.0), (5, 255, -1000.0, 48000.0),
                                     (37, 1000, 2.5e6, 10e6)):
            with self.subTest(decimation=D, ntaps=ntaps):
                taps = random_taps(rng, ntaps)
                block = make(D, taps, center, fs, "")
                self.assertEqual(block.decimation(), D)
                self.assertEqual(block.center_freq(), center)
                self.assertEqual(block.sampling_freq(), fs)
                got = block.taps()
                self.assertEqual(len(got), ntaps)
                self.assertTrue(all(abs(a - b) <= 1e-6 * abs(b) for a, b in zip(got, taps)))
                self.assertEqual(block.device_name(), automatic)
                self.assertEqual(block.relative_rate_i(), 1)
                self.assertEqual(block.relative_rate_d(), D)
                self.assertEqual(block.nthreads(), 1)
                block.set_nthreads(4)  # ignored
                self.assertEqual(block.nthreads(), 1)
                # the filter of fft_filter_ccc: its FFT and its latency
                same = wideband.fft_filter_ccc(D, taps)
                self.assertEqual(block.fft_size(), same.fft_size())
                self.assertGreaterEqual(block.fft_size(), ntaps + D - 1)
                self.assertEqual(block.latency(), same.latency())
                ports = block.message_ports_in()
                self.assertIn("freq", [pmt.symbol_to_string(pmt.vector_ref(ports, i))
                                       for i in range(pmt.length(ports))])
                block.set_center_freq(-fs / 2)
                self.assertEqual(block.center_freq(), -fs / 2)
                new = random_taps(rng, 3)
                block.set_taps(new)
                self.assertEqual(len(block.taps()), 3)
        # real taps are taken as real, complex ones keep their imaginary part
        self.assertEqual(list(make(1, [1 + 2j, -0.5j], 0.0, 1.0).taps()), [1 + 2j, -0.5j])
        self.assertEqual(list(make(1, [0.25, -2.0], 0.0, 1.0).taps()), [0.25, -2.0])
        # the in-tree call, keywords as in-tree, the device last
        block = make(decimation=3, taps=[1.0], center_freq=0.1, sampling_freq=1.0, device="")
        self.assertEqual((block.decimation(), block.device_name()), (3, automatic))
        filter.freq_xlating_fir_filter_ccc(3, [1.0], 0.1, 1.0)
        make(3, [1.0], 0.1, 1.0)

    def assert_gnu_radio_criterion(self, expected, got):
        """GNU Radio's assertComplexTuplesAlmostEqual2(expected, got,
        abs_eps=1e-9, rel_eps=1.5e-3): every sample within 1e-9 or 1.5e-3 of
        its own magnitude; except that a sample of deep cancellation (below
        1e-3 of the stream's largest) may be off by float32 rounding of an FFT
        filter instead, up to 2e-6 of the largest (ours' filter is
        fft_filter_ccc's, whose FFT is longer than the in-tree block's: at
        sample 87 of the band-pass cases, 2.2e-5 against a largest of 0.06,
        ours is off by 7.1e-8 (rel 3.2e-3), exactly as wideband.fft_filter_ccc
        on the translated taps is; the in-tree hier block by 2.6e-8 (rel
        1.2e-3, also near the limit)). At most 1 % of the samples."""
        expected = np.asarray(expected, np.complex128)
        got = np.asarray(got, np.complex128)
        self.assertEqual(len(expected), len(got))
        error = np.abs(got - expected)
        scale = np.abs(expected).max()
        theirs = (error <= 1e-9) | (error <= 1.5e-3 * np.abs(expected))
        rounding = (np.abs(expected) < 1e-3 * scale) & (error <= 2e-6 * scale)
        bad = np.flatnonzero(~(theirs | rounding))
        self.assertEqual(bad.size, 0,
                         f"{bad.size} samples off, first {bad[:1]}: got {got[bad[:1]]}, "
                         f"expected {expected[bad[:1]]}")
        self.assertLessEqual(np.count_nonzero(~theirs), 0.01 * len(got))

    def test_010_gnu_radio_qa_cases(self):
        # GNU Radio's own QA of its freq_xlating_fft_filter_ccc
        # (gr-filter/python/filter/qa_freq_xlating_fft_filter.py): fs = 1,
        # fc = 0.3, a low-pass (firdes.low_pass(1, fs, 0.1, 0.025), real) and
        # a band-pass (firdes.complex_band_pass(1, fs, -0.05, 0.05, 0.025))
        # prototype, decimation 1 and 4, on 1024 samples of a complex tone of
        # -fc/100; expected: the input mixed down by fc, then the FIR filter,
        # then every D-th sample, compared with rel_eps 1.5e-3.
        #
        # That expected output has no start phase: the in-tree
        # freq_xlating_fft_filter_ccc is a hier block, fft_filter_ccc on the
        # translated taps and a rotator whose phase starts at 1, while ours
        # gives freq_xlating_fir_filter_ccc's output, whose rotator starts at
        # phi = e^{-j w (N - 1) / 2}. Ours is their expected output times phi
        # (and the hier block's output times phi, checked too).
        fs, fc, bw = 1.0, 0.3, 0.1
        t = np.arange(1024)
        src = np.exp(-2j * np.pi * fc / fs * (t / 100.0))
        designs = {"ccf": [complex(v) for v in filter.firdes.low_pass(1, fs, bw, bw / 4)],
                   "ccc": list(filter.firdes.complex_band_pass(1, fs, -bw / 2, bw / 2,
                                                               bw / 4))}
        for name, taps in designs.items():
            for D in (1, 4):
                with self.subTest(case=f"test_fft_filter_{name}_00{1 if D == 1 else 2}"):
                    self.setUp()
                    despun = src * np.exp(-2j * np.pi * fc / fs * t)
                    expected = np.convolve(despun, np.asarray(taps))[:len(src)][::D]
                    source = blocks.vector_source_c(src.astype(np.complex64).tolist())
                    ours = make(D, taps, fc, fs)
                    hier = filter.freq_xlating_fft_filter_ccc(D, taps, fc, fs)
                    ours_sink = blocks.vector_sink_c()
                    hier_sink = blocks.vector_sink_c()
                    self.tb.connect(source, ours, ours_sink)
                    self.tb.connect(source, hier, hier_sink)
                    self.tb.run()
                    got = ours_sink.data()
                    self.assertEqual(len(got), len(src) // D)
                    phi = cmath.exp(-1j * omega(fc, fs) * (len(taps) - 1) / 2)
                    self.assert_gnu_radio_criterion(phi * expected[:len(got)], got)
                    theirs = np.asarray(hier_sink.data())
                    self.assertGreater(len(theirs), 0)
                    self.assert_gnu_radio_criterion(phi * theirs, got[:len(theirs)])
                    # and without phi they differ (the phase is not trivial)
                    self.assertGreater(abs(phi - 1), 0.1)


if __name__ == '__main__':
    gr_unittest.run(qa_freq_xlating_fft_filter_ccc)
