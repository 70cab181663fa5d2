#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
The streaming blocks in a long run: 10^8 samples through pfb_channelizer_ccf
and through fft_filter_ccc, each in a GNU Radio flowgraph with

  - work() calls of random sizes into the block (random_chunks upstream) and
    out of it (the checker takes a random part of what is there each call);
  - set_taps() (other lengths: other kernels, FFT sizes, history) and
    set_channel_map() at random stream positions, applied while the block has
    chunks in flight (the source holds the stream at the position until the
    block has consumed everything before it, so the position is exact);
  - tags on random input samples;

and checks every output sample of every output against a float64 reference
computed in blocks (polyphase sums and overlap-add FFT convolution, validated
against the straightforward references by test_000), with the settings of
each segment and the history rule of the block's header where the taps grow;
every tag on output item floor(k / D); the output count; and that memory does
not grow: the resident set, and the process's OpenCL buffers where
cl_alloc_count is preloaded (ctest does; PoCL cannot say how much device
memory is in use).

WIDEBAND_SOAK_SAMPLES sets the samples per block (default 10^8).
"""

import ctypes
import os
import threading
import time

import numpy as np
import pmt
import scipy.signal
from gnuradio import blocks, gr, gr_unittest
from gnuradio import wideband
from numpy.lib.stride_tricks import sliding_window_view
from stream_qa_helpers import (channelizer_reference, filter_reference, never_zero,
                               random_chunks)

SAMPLES = int(float(os.environ.get("WIDEBAND_SOAK_SAMPLES", "1e8")))
# As the blocks' QA: float32 against float64, per check block (see
# qa_fft_filter.py and qa_pfb_channelizer_ccf.py for the measured margins).
ELEMENT_TOL = 1e-5
L2_TOL = 1e-5
# Generated input blocks; outputs are checked in pieces of about this size.
BLOCK = 1 << 17
# Resident set growth allowed from a quarter of the run to its end.
RSS_SLACK = 100 << 20
# The source's tags, and pfb_channelizer_ccf's where a new channel map applies.
SOAK_KEY = pmt.intern("soak")
CHANNEL_KEY = pmt.intern("channel")


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGESIZE")


def opencl_buffers():
    """(live buffers, bytes) when cl_alloc_count is preloaded, else None."""
    try:
        process = ctypes.CDLL(None)
        live, size = process.cl_alloc_count_live_buffers, process.cl_alloc_count_live_bytes
    except AttributeError:
        return None
    live.restype = size.restype = ctypes.c_int64
    return live(), size()


class soak_input:
    """The input stream: never-zero samples, block i from seed (seed, i), so
    that the source and the checker see the same stream without keeping it."""

    def __init__(self, seed, total):
        self.seed, self.total = seed, total
        self.cache, self.lock = {}, threading.Lock()

    def block(self, i):
        with self.lock:
            if i not in self.cache:
                if len(self.cache) > 64:
                    del self.cache[min(self.cache)]
                self.cache[i] = never_zero(np.random.default_rng((self.seed, i)), BLOCK)
            return self.cache[i]

    def samples(self, lo, hi, zero_before=0):
        """x[lo:hi] in complex128; zero for indices below 0 and zero_before."""
        out = np.zeros(hi - lo, np.complex128)
        start = max(lo, zero_before, 0)
        for i in range(start // BLOCK, (hi + BLOCK - 1) // BLOCK):
            a, b = max(start, i * BLOCK), min(hi, (i + 1) * BLOCK)
            if a < b:
                out[a - lo:b - lo] = self.block(i)[a - i * BLOCK:b - i * BLOCK]
        return out


def filter_outputs(x, taps, D, a, b, zero_before):
    """fft_filter outputs a..b-1: y[m] = sum_k h[k] x[m D - k] (float64)."""
    h = np.asarray(taps, np.complex128)
    xs = x.samples(a * D - (len(h) - 1), (b - 1) * D + 1, zero_before)
    return scipy.signal.oaconvolve(xs, h, mode="valid")[::D]


def channelizer_frames(x, taps, M, D, a, b, zero_before):
    """pfb_channelizer frames a..b-1 x M channels (float64), the formula of
    channelizer_reference() folded by branch: frame q's K M samples up to
    t = (q+1) D - 1, times the reversed taps, summed over the K taps of each
    branch, rotated by the residue of the first sample, one FFT per frame."""
    K = -(-len(taps) // M)
    reversed_taps = np.zeros(K * M)
    reversed_taps[K * M - len(taps):] = np.asarray(taps, np.float64)[::-1]
    lo = (a + 1) * D - K * M
    windows = sliding_window_view(x.samples(lo, b * D, zero_before), K * M)[::D]
    folded = sum(windows[:, k * M:(k + 1) * M] * reversed_taps[k * M:(k + 1) * M]
                 for k in range(K))
    shift = (lo + D * np.arange(b - a)) % M
    folded = folded[np.arange(b - a)[:, None], (np.arange(M)[None, :] - shift[:, None]) % M]
    c = np.arange(M)
    return np.fft.fft(folded, axis=1) * np.exp(-2j * np.pi * c * (D + 1) / M)[None, :]


class soak_source(gr.sync_block):
    """The stream, with tags on `tags` (sample numbers) and, at each position
    of `changes` [(position, action)], a hold until `target` has consumed
    every sample before it; then action() and on. Ends the stream early
    when `stopped` is set (a hold would wait for ever)."""

    def __init__(self, x, tags, changes, target, stopped):
        gr.sync_block.__init__(self, "soak_source", [], [np.complex64])
        self.x, self.tags, self.changes, self.target = x, list(tags), list(changes), target
        self.stopped = stopped

    def work(self, input_items, output_items):
        out = output_items[0]
        done = self.nitems_written(0)
        if done == self.x.total or self.stopped.is_set() or wideband.work_error(self.target):
            return -1
        if self.changes and self.changes[0][0] == done:
            if self.target.nitems_read(0) < done:
                time.sleep(0.001)
                return 0
            self.changes.pop(0)[1]()
        stop = min(done + len(out), self.x.total,
                   self.changes[0][0] if self.changes else self.x.total)
        i = done // BLOCK
        stop = min(stop, (i + 1) * BLOCK)
        out[:stop - done] = self.x.block(i)[done - i * BLOCK:stop - i * BLOCK]
        while self.tags and self.tags[0] < stop:
            k = self.tags.pop(0)
            self.add_item_tag(0, k, SOAK_KEY, pmt.from_uint64(k))
        return stop - done


class soak_checker(gr.basic_block):
    """Takes a random part of what its inputs hold per call (the same part of
    each: GNU Radio ends a block when one input is done and empty) and checks
    it against expected(s, a, b): output slot s, items a..b-1. Keeps the tags
    seen: the source's ("soak") in `tags`, pfb_channelizer_ccf's where a
    new channel map applies ("channel") in `channel_tags`; at the first
    mismatch, sets `stopped` and ends its stream."""

    def __init__(self, slots, expected, seed):
        gr.basic_block.__init__(self, "soak_checker", [np.complex64] * slots, [])
        self.stopped = threading.Event()
        self.expected = expected
        self.rng = np.random.default_rng(seed)
        self.pending = [[] for _ in range(slots)]
        self.checked = [0] * slots
        self.tags = [[] for _ in range(slots)]
        self.channel_tags = [[] for _ in range(slots)]
        self.failure = None
        self.worst = 0.0

    def general_work(self, input_items, output_items):
        if self.failure:
            return -1
        available = min(map(len, input_items))
        if available == 0:
            return 0
        n = int(self.rng.integers(1, available + 1))
        for s, items in enumerate(input_items):
            start = self.nitems_read(s)
            self.pending[s].append(np.array(items[:n]))
            for tag in self.get_tags_in_range(s, start, start + n, SOAK_KEY):
                self.tags[s].append((tag.offset, pmt.to_uint64(tag.value)))
            for tag in self.get_tags_in_range(s, start, start + n, CHANNEL_KEY):
                self.channel_tags[s].append((tag.offset, pmt.to_long(tag.value)))
            self.consume(s, n)
            if sum(map(len, self.pending[s])) >= BLOCK // 4:
                self.check(s)
        return 0

    def check(self, s):
        """Compares what slot s has received and not checked yet."""
        got = np.concatenate(self.pending[s]) if self.pending[s] else np.zeros(0)
        self.pending[s] = []
        a = self.checked[s]
        ref = self.expected(s, a, a + len(got))
        self.checked[s] += len(got)
        error = np.abs(got - ref)
        scale = np.abs(ref).max() if len(ref) else 1.0
        bad = np.flatnonzero(~(error <= ELEMENT_TOL * scale))
        l2 = np.linalg.norm(error) / max(np.linalg.norm(ref), 1e-300)
        self.worst = max(self.worst, l2)
        if (bad.size or l2 > L2_TOL) and not self.failure:
            k = bad[0] if bad.size else int(np.argmax(error))
            self.failure = (f"output {s}, items {a}..{a + len(got) - 1}: {bad.size} differ, "
                            f"relative L2 {l2:.3g}; first at item {a + k}: ours {got[k]:.6g}, "
                            f"reference {ref[k]:.6g}")
            self.stopped.set()


class qa_block_soak(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()

    def tearDown(self):
        self.tb = None

    def test_000_block_references_match_the_formulas(self):
        # The references the soak computes in pieces against the whole-stream
        # ones the blocks' QA validate against GNU Radio's in-tree blocks.
        x = soak_input(0, 5 * BLOCK)
        whole = x.samples(0, 40000)
        rng = np.random.default_rng(0)
        taps = rng.uniform(-1, 1, 61)
        for a, b, z in ((0, 900, 0), (700, 2100, 9000)):
            zeroed = whole.copy()
            zeroed[:z] = 0
            ref = channelizer_reference(zeroed, taps, 16, 8)
            np.testing.assert_allclose(channelizer_frames(x, taps, 16, 8, a, b, z),
                                       ref[a:b], rtol=0, atol=1e-12)
            ctaps = never_zero(rng, 37)
            ref = filter_reference(zeroed, ctaps, 3)
            np.testing.assert_allclose(filter_outputs(x, ctaps, 3, a, b, z), ref[a:b],
                                       rtol=0, atol=1e-12)

    def soak(self, block, x, D, slots, settings, columns, tags):
        """Runs x through block with settings [(position, apply, reference)]:
        from output position // D on, reference(a, b) gives outputs a..b-1
        (one column per channel) and output slot s is column columns[k][s]."""
        total_outputs = x.total // D
        frame_starts = [p // D for p, _, _ in settings]
        columns = np.asarray(columns)
        memory = []
        pieces = {}  # the reference in pieces of PIECE outputs, shared by the slots
        PIECE = 1 << 14

        def piece(j):
            if j not in pieces:
                if len(pieces) > 16:
                    del pieces[min(pieces)]
                a, b = j * PIECE, min((j + 1) * PIECE, total_outputs)
                rows, segments = [], []
                while a < b:
                    k = np.searchsorted(frame_starts, a, side="right") - 1
                    end = min(b, frame_starts[k + 1] if k + 1 < len(settings) else b)
                    rows.append(settings[k][2](a, end))
                    segments.append(np.full(end - a, k))
                    a = end
                pieces[j] = (np.concatenate(rows), np.concatenate(segments))
            return pieces[j]

        def expected(s, a, b):
            parts = []
            for j in range(a // PIECE, (b + PIECE - 1) // PIECE):
                rows, segments = piece(j)
                lo, hi = max(a, j * PIECE) - j * PIECE, min(b, (j + 1) * PIECE) - j * PIECE
                parts.append(rows[np.arange(lo, hi), columns[segments[lo:hi], s]])
            return np.concatenate(parts) if parts else np.zeros(0)

        def apply(action):
            def at_position():
                memory.append((rss_bytes(), opencl_buffers()))
                action()
            return at_position

        changes = [(p, apply(act)) for p, act, _ in settings[1:]]
        checker = soak_checker(slots, expected, 12)
        source = soak_source(x, tags, changes, block, checker.stopped)
        source.set_min_output_buffer(1 << 20)
        chunks = random_chunks(1 << 17, 11)
        self.tb.connect(source, chunks, block)
        for s in range(slots):
            self.tb.connect((block, s), (checker, s))
        started = time.monotonic()
        self.tb.run()
        seconds = time.monotonic() - started
        self.assertIsNone(checker.failure)
        self.assertEqual(wideband.work_error(block), "")
        for s in range(slots):
            checker.check(s)
        self.assertIsNone(checker.failure)
        self.assertEqual(checker.checked, [total_outputs] * slots, "output count")
        expected_tags = [(k // D, k) for k in tags if k // D < total_outputs]
        for s in range(slots):
            self.assertEqual(checker.tags[s], expected_tags, f"tags of output {s}")
            # A new channel map is marked where it applies, on the outputs
            # whose channel it changes.
            changed = [(start, int(columns[k][s])) for k, start in enumerate(frame_starts)
                       if k and columns[k][s] != columns[k - 1][s] and start < total_outputs]
            self.assertEqual(checker.channel_tags[s], changed, f"channel tags of output {s}")

        # Memory: no growth over the run. The resident set from a quarter on;
        # the OpenCL buffers at the changes (the largest settings come first):
        # no more in the second half than in the first, their bytes within
        # 1 % (old taps' buffers may still be held by commands in flight).
        quarter, half = len(memory) // 4, len(memory) // 2
        self.assertLessEqual(rss_bytes(), memory[quarter][0] + RSS_SLACK,
                             [m[0] >> 20 for m in memory])
        if memory[0][1] is not None:
            buffers = [m[1] for m in memory]
            self.assertLessEqual(max(b[0] for b in buffers[half:]),
                                 max(b[0] for b in buffers[:half]), buffers)
            self.assertLessEqual(max(b[1] for b in buffers[half:]),
                                 1.01 * max(b[1] for b in buffers[:half]), buffers)
        print(f"\n{block.name()}: {x.total} samples, {len(settings) - 1} settings changes, "
              f"{len(expected_tags)} tags, in {seconds:.1f} s ({x.total / seconds / 1e6:.1f} "
              f"Msamples/s); worst relative L2 {checker.worst:.2g}; resident set "
              f"{memory[quarter][0] >> 20} -> {rss_bytes() >> 20} MiB; OpenCL buffers "
              f"(count, bytes) at the changes {[m[1] for m in memory]}", flush=True)

    @staticmethod
    def positions(rng, total, count):
        """Sorted random change positions, at least total / (4 count) apart."""
        gap = total // (4 * count)
        raw = np.sort(rng.choice(total // gap - 2, count, replace=False)) + 1
        return [int(p) * gap + int(rng.integers(0, gap // 2)) for p in raw]

    def test_001_channelizer(self):
        rng = np.random.default_rng(1)
        M, D, slots = 16, 8, 4
        x = soak_input(1, SAMPLES)
        taps = [rng.uniform(-1, 1, 5 * M)]
        maps = [[0, 5, 11, 5]]
        block = wideband.pfb_channelizer_ccf(M, taps[0], M / D, maps[0])
        settings = [(0, None, None)]
        zero_before = [0]
        for i, p in enumerate(self.positions(rng, SAMPLES, 16)):
            if i % 2 == 0:  # taps per branch 2..9 (9 first: the most memory
                # early), counts not multiples of M
                K = 9 if i == 0 else int(rng.integers(2, 10))
                new = rng.uniform(-1, 1, K * M - int(rng.integers(0, M)))
                K_old = -(-len(taps[-1]) // M)
                grows = -(-len(new) // M) > K_old
                taps.append(new)
                maps.append(maps[-1])
                zero_before.append(p // D * D - K_old * M + D if grows else 0)
                settings.append((p, lambda t=new: block.set_taps(list(t)), None))
            else:
                maps.append([int(c) for c in rng.integers(0, M, slots)])
                taps.append(taps[-1])
                zero_before.append(0)
                settings.append((p, lambda m=maps[-1]: block.set_channel_map(m), None))
        settings = [(p, act, lambda a, b, k=k: channelizer_frames(x, taps[k], M, D, a, b,
                                                                  zero_before[k]))
                    for k, (p, act, _) in enumerate(settings)]
        tags = sorted(set(rng.integers(0, SAMPLES, 200).tolist()))
        self.soak(block, x, D, slots, settings, maps, tags)

    def test_002_filter(self):
        rng = np.random.default_rng(2)
        D = 3
        x = soak_input(2, SAMPLES)
        taps = [never_zero(rng, 100)]
        block = wideband.fft_filter_ccc(D, list(taps[0]))
        settings = [(0, None, None)]
        zero_before = [0]
        for i, p in enumerate(self.positions(rng, SAMPLES, 12)):
            # 8..800 taps (800 first: the most memory early)
            new = never_zero(rng, 800 if i == 0 else int(rng.integers(8, 801)))
            grows = len(new) > len(taps[-1])
            zero_before.append(p // D * D - (len(taps[-1]) - 1) if grows else 0)
            taps.append(new)
            settings.append((p, lambda t=new: block.set_taps(list(t)), None))
        settings = [(p, act, lambda a, b, k=k: filter_outputs(
            x, taps[k], D, a, b, zero_before[k])[:, None])
                    for k, (p, act, _) in enumerate(settings)]
        tags = sorted(set(rng.integers(0, SAMPLES, 200).tolist()))
        self.soak(block, x, D, 1, settings, [[0]] * len(settings), tags)


if __name__ == '__main__':
    gr_unittest.run(qa_block_soak)
