#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
gr-wideband blocks side by side: many in one flowgraph on one device, two
flowgraphs running at once in one process, blocks made from several threads
at once (the device's shared context and compiled-program cache), and
start/stop/restart cycles that stop while chunks are in flight. Every output
is checked against a float64 reference or GNU Radio's in-tree block; nothing
may hang (each run has a deadline). The C++ side of the same questions runs
under ThreadSanitizer (scripts/test_sanitizers).
"""

import threading
import time

import numpy as np
from gnuradio import blocks, fft, gr, gr_unittest
from gnuradio import wideband
from stream_qa_helpers import (assert_same_stream, channelizer_reference,
                               filter_reference, never_zero)

TOL = 1e-5
DEADLINE = 300


def random_taps(rng, count):
    return [float(t) for t in rng.uniform(0.1, 1.0, count) * rng.choice((-1, 1), count)]


def run_with_deadline(testcase, *flowgraphs):
    """Starts every flowgraph, then waits for all; fails if any is still
    running after DEADLINE seconds."""
    for tb in flowgraphs:
        tb.start()
    waiters = [threading.Thread(target=tb.wait, daemon=True) for tb in flowgraphs]
    for w in waiters:
        w.start()
    deadline = time.monotonic() + DEADLINE
    for w in waiters:
        w.join(max(0.0, deadline - time.monotonic()))
        testcase.assertFalse(w.is_alive(), "a flowgraph did not finish")


class branch:
    """One gr-wideband block (or chain) fed by `src` in `tb`, with sinks and
    the expected output of each."""

    def __init__(self, tb, src, kind, rng, x):
        self.kind = kind
        if kind == "filter":
            D = int(rng.integers(1, 5))
            taps = random_taps(rng, int(rng.integers(5, 300)))
            block = wideband.fft_filter_ccf(D, taps)
            self.expected = [filter_reference(x, taps, D)]
            tb.connect(src, block)
            outputs = [block]
        elif kind == "channelizer":
            M = int(rng.choice([4, 8, 16]))
            D = M // int(rng.choice([1, 2]))
            taps = random_taps(rng, 3 * M + 1)
            channels = [int(c) for c in rng.integers(0, M, 2)]
            block = wideband.pfb_channelizer_ccf(M, taps, M / D, channels)
            ref = channelizer_reference(x, taps, M, D)
            self.expected = [ref[:, c] for c in channels]
            tb.connect(src, block)
            outputs = [(block, 0), (block, 1)]
        elif kind == "chain":  # filter -> channelizer, device-resident between them
            taps_f, taps_c = random_taps(rng, 17), random_taps(rng, 24)
            first = wideband.fft_filter_ccf(1, taps_f)
            block = wideband.pfb_channelizer_ccf(8, taps_c, 1, [3])
            self.expected = [channelizer_reference(filter_reference(x, taps_f, 1), taps_c,
                                                   8, 8)[:, 3]]
            tb.connect(src, first, block)
            outputs = [block]
            self.first = first
        else:  # fft_vcc, against the in-tree block
            n = int(rng.choice([64, 100, 256]))
            to_vectors = blocks.stream_to_vector(gr.sizeof_gr_complex, n)
            block = wideband.fft_vcc(n, True, [], True)
            theirs = fft.fft_vcc(n, True, [], True)
            self.in_tree = blocks.vector_sink_c(n)
            tb.connect(src, to_vectors, block)
            tb.connect(to_vectors, theirs, self.in_tree)
            outputs = [block]
            self.expected = None
        self.block = block
        self.sinks = []
        for out in outputs:
            sink = blocks.vector_sink_c(n if kind == "fft_vcc" else 1)
            tb.connect(out, sink)
            self.sinks.append(sink)

    def check(self, testcase, what):
        testcase.assertEqual(wideband.work_error(self.block), "", what)
        if self.expected is None:
            assert_same_stream(self.sinks[0].data(), self.in_tree.data(), TOL, TOL, what)
            return
        for sink, expected in zip(self.sinks, self.expected):
            assert_same_stream(sink.data(), expected, TOL, TOL, f"{what}, {self.kind}")


class qa_concurrency(gr_unittest.TestCase):

    def test_001_many_blocks_on_one_device(self):
        # 12 gr-wideband blocks of every kind on the one device, fed by one
        # source, beside in-tree fft_vcc blocks.
        rng = np.random.default_rng(1)
        x = never_zero(rng, (1 << 20) + 77)
        tb = gr.top_block()
        src = blocks.vector_source_c(x)
        kinds = ["filter"] * 3 + ["channelizer"] * 3 + ["chain"] * 2 + ["fft_vcc"] * 2
        branches = [branch(tb, src, kind, rng, x) for kind in kinds]
        run_with_deadline(self, tb)
        devices = {b.block.device_name() for b in branches}
        self.assertEqual(len(devices), 1)
        for i, b in enumerate(branches):
            b.check(self, f"branch {i}")

    def test_002_two_flowgraphs_at_once(self):
        # Two flowgraphs in one process at the same time, each with blocks
        # of every kind on the same device, started from two threads.
        rng = np.random.default_rng(2)
        graphs = []
        for g in range(2):
            x = never_zero(rng, (1 << 19) * 3 + g)
            tb = gr.top_block()
            src = blocks.vector_source_c(x)
            graphs.append((tb, [branch(tb, src, kind, rng, x)
                                for kind in ("filter", "channelizer", "chain", "fft_vcc")]))
        starters = [threading.Thread(target=tb.start) for tb, _ in graphs]
        for t in starters:
            t.start()
        for t in starters:
            t.join()
        for tb, _ in graphs:
            waiter = threading.Thread(target=tb.wait, daemon=True)
            waiter.start()
            waiter.join(DEADLINE)
            self.assertFalse(waiter.is_alive(), "a flowgraph did not finish")
        for g, (_, branches) in enumerate(graphs):
            for i, b in enumerate(branches):
                b.check(self, f"flowgraph {g}, branch {i}")

    def test_003_blocks_made_from_several_threads(self):
        # Threads making blocks of configurations new to the process at the
        # same time (kernel builds through one shared program cache), then
        # running them at once.
        rng = np.random.default_rng(3)
        x = never_zero(rng, 50000)
        # fft_vcc sizes and filter taps no other test of this process builds
        configs = [("fft_vcc", 48 + 6 * i) if i % 2 == 0 else
                   ("filter", list(never_zero(rng, 1100 + 37 * i))) for i in range(6)]
        made, errors = [None] * len(configs), []

        def make(i):
            kind, setting = configs[i]
            try:
                made[i] = (wideband.fft_vcc(setting, False, [], False) if kind == "fft_vcc"
                           else wideband.fft_filter_ccc(1, setting))
            except Exception as e:  # reported below, in the test's thread
                errors.append(e)

        threads = [threading.Thread(target=make, args=(i,)) for i in range(len(made))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        tb = gr.top_block()
        src = blocks.vector_source_c(x)
        sinks = []
        for (kind, setting), block in zip(configs, made):
            if kind == "fft_vcc":
                n = setting
                vectors = blocks.stream_to_vector(gr.sizeof_gr_complex, n)
                sink, ref = blocks.vector_sink_c(n), blocks.vector_sink_c(n)
                tb.connect(src, vectors, block, sink)
                tb.connect(vectors, fft.fft_vcc(n, False, [], False), ref)
                sinks.append((sink, ref.data))
            else:
                sink = blocks.vector_sink_c()
                tb.connect(src, block, sink)
                sinks.append((sink, lambda taps=setting: filter_reference(x, taps, 1)))
        run_with_deadline(self, tb)
        for i, (sink, expected) in enumerate(sinks):
            assert_same_stream(sink.data(), expected(), TOL, TOL, f"block {i}")

    def test_004_start_stop_restart_cycles(self):
        # Stop at random moments (chunks in flight, the source not done) and
        # start again, many times: each run is a new stream from zero history
        # whose output, however far it got, is right; then a run to the end.
        rng = np.random.default_rng(4)
        x = never_zero(rng, 6 * (1 << 19))
        tb = gr.top_block()
        src = blocks.vector_source_c(x)
        branches = [branch(tb, src, kind, rng, x)
                    for kind in ("filter", "channelizer", "chain", "fft_vcc")]
        stopped_early = 0
        for cycle in range(12):
            src.rewind()
            for b in branches:
                for sink in b.sinks + ([b.in_tree] if b.expected is None else []):
                    sink.reset()
            tb.start()
            time.sleep(float(rng.uniform(0, 0.3)))
            started = time.monotonic()
            tb.stop()
            tb.wait()
            self.assertLess(time.monotonic() - started, 30, f"cycle {cycle}: slow stop")
            for i, b in enumerate(branches):
                self.assertEqual(wideband.work_error(b.block), "")
                if b.expected is None:
                    ours, theirs = b.sinks[0].data(), b.in_tree.data()
                    n = min(len(ours), len(theirs))
                    assert_same_stream(ours[:n], theirs[:n], TOL, TOL, f"cycle {cycle}")
                    continue
                for sink, expected in zip(b.sinks, b.expected):
                    got = sink.data()
                    self.assertLessEqual(len(got), len(expected))
                    stopped_early += len(got) < len(expected)
                    assert_same_stream(got, expected[:len(got)], TOL, TOL,
                                       f"cycle {cycle}, branch {i} ({b.kind})")
        self.assertGreater(stopped_early, 0, "no stop came before the end of the stream")
        src.rewind()
        for b in branches:
            for sink in b.sinks + ([b.in_tree] if b.expected is None else []):
                sink.reset()
        run_with_deadline(self, tb)
        for i, b in enumerate(branches):
            b.check(self, f"after the cycles, branch {i}")


if __name__ == '__main__':
    gr_unittest.run(qa_concurrency)
