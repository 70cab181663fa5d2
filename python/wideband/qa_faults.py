#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
Device faults in running flowgraphs: a kernel build that fails when a block
starts or when new taps need new kernels, and a device that fails mid-stream
(every engine call from the N-th on fails, as on a GPU that has fallen off the
bus). Faults are injected with WIDEBAND_FAULT (lib/core/fault_injection.h,
docs/reliability.md): build, or enqueue:N; the engines watch the variable once
wideband.watch_fault() has been called (setUpClass).

What must happen (GNU Radio 3.10 cannot raise an exception from a block's
thread in tb.wait(); left to itself it logs it and waits for ever): the
failing block logs the error, ends its stream, and the whole flowgraph stops
within seconds (also the in-tree blocks beside it, also a device-resident
chain); wideband.work_error(block) names the problem; everything delivered
before the fault is right (a prefix of the float64 reference, nothing made up
after it); and the same flowgraph, run again once the fault is gone, gives the
whole stream.

Each case uses its own N (the count restarts when the variable's value
changes) and kernel configurations no other case builds (the process keeps
built programs, which a build fault cannot touch).
"""

import os
import threading
import time
from unittest import mock

import numpy as np
from gnuradio import blocks, filter, gr, gr_unittest
from gnuradio import wideband
from stream_qa_helpers import (assert_same_stream, channelizer_reference,
                               filter_reference, gate, never_zero, wait_for)

TOL = 1e-5
# Input samples the streaming blocks compute at once on a CPU device.
CHUNK = 1 << 19
# Time a stopped flowgraph may take to finish (PoCL builds a kernel in ~0.2 s).
STOP_SECONDS = 60


def random_taps(rng, count):
    return [float(t) for t in rng.uniform(0.1, 1.0, count) * rng.choice((-1, 1), count)]


class qa_faults(gr_unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        # The variable is set at run time: the engines must watch it.
        wideband.watch_fault()

    def setUp(self):
        self.tb = gr.top_block()

    def tearDown(self):
        self.tb = None

    def run_until_stopped(self):
        """Runs the flowgraph; fails if it has not stopped by itself in time."""
        self.tb.start()
        waiter = threading.Thread(target=self.tb.wait, daemon=True)
        started = time.monotonic()
        waiter.start()
        waiter.join(STOP_SECONDS)
        self.assertFalse(waiter.is_alive(),
                         f"the flowgraph did not stop within {STOP_SECONDS} s")
        return time.monotonic() - started

    def assert_prefix(self, got, ref, what):
        """got is a proper, correct prefix of ref: something stopped the stream."""
        got = np.asarray(got)
        self.assertLess(len(got), len(ref), f"{what}: the whole stream came out")
        assert_same_stream(got, ref[:len(got)], TOL, TOL, what)

    def assert_stopped_by(self, block, name, *words):
        error = wideband.work_error(block)
        self.assertRegex(error, f"(?s)^{name} on .+: .+ -- the block has stopped")
        for word in words:
            self.assertIn(word, error)

    def test_001_device_fails_mid_stream(self):
        # The third engine call and all later ones fail (chunks of 2^19 input
        # samples). The flowgraph stops, although its source never ends and
        # the in-tree filter beside ours could go on.
        rng = np.random.default_rng(1)
        D, taps = 2, random_taps(rng, 37)
        x = never_zero(rng, 6 * CHUNK + 123)
        src = blocks.vector_source_c(x, True)
        ours = wideband.fft_filter_ccf(D, taps)
        sink = blocks.vector_sink_c()
        self.tb.connect(src, ours, sink)
        self.tb.connect(src, filter.fft_filter_ccf(D, taps), blocks.null_sink(8))
        with mock.patch.dict(os.environ, {"WIDEBAND_FAULT": "enqueue:3"}):
            self.run_until_stopped()
        ref = filter_reference(x, taps, D)
        self.assert_prefix(sink.data(), ref, "fft_filter_ccf before the fault")
        self.assert_stopped_by(ours, "fft_filter_ccf", "CL_OUT_OF_RESOURCES (-5)",
                               "injected by WIDEBAND_FAULT")
        # The device is back: the block gives the whole stream again.
        self.tb.disconnect_all()
        sink.reset()
        self.tb.connect(blocks.vector_source_c(x), ours, sink)
        self.tb.run()
        self.assertEqual(wideband.work_error(ours), "")
        assert_same_stream(sink.data(), ref, TOL, TOL, "after the fault")

    def test_002_each_block_stops_its_flowgraph(self):
        # The channelizer (stream outputs and vector output) and fft_vcc.
        rng = np.random.default_rng(2)
        M, D = 16, 8
        taps = random_taps(rng, 5 * M)
        x = never_zero(rng, 5 * CHUNK + 77)
        ref = channelizer_reference(x, taps, M, D)
        for fault, vector_output in (("enqueue:4", False), ("enqueue:5", True)):
            with self.subTest(vector_output=vector_output):
                self.setUp()
                src = blocks.vector_source_c(x)
                ours = wideband.pfb_channelizer_ccf(M, taps, M / D, [3, 0, 9], "", 100,
                                                    vector_output)
                if vector_output:
                    sinks = [blocks.vector_sink_c(3)]
                else:
                    sinks = [blocks.vector_sink_c() for _ in range(3)]
                self.tb.connect(src, ours)
                for slot, sink in enumerate(sinks):
                    self.tb.connect((ours, slot), sink)
                with mock.patch.dict(os.environ, {"WIDEBAND_FAULT": fault}):
                    self.run_until_stopped()
                self.assert_stopped_by(ours, "pfb_channelizer_ccf", "CL_OUT_OF_RESOURCES")
                got = (np.asarray(sinks[0].data()).reshape(-1, 3) if vector_output
                       else np.asarray([s.data() for s in sinks]).T)
                for slot, channel in enumerate((3, 0, 9)):
                    self.assert_prefix(got[:, slot], ref[:, channel], f"output {slot}")

        n = 1024
        self.setUp()
        vectors = never_zero(rng, n * 1000)
        src = blocks.vector_source_c(vectors, False, n)
        ours = wideband.fft_vcc(n, True, [], False)
        sink = blocks.vector_sink_c(n)
        self.tb.connect(src, ours, sink)
        with mock.patch.dict(os.environ, {"WIDEBAND_FAULT": "enqueue:2"}):
            self.run_until_stopped()
        self.assert_stopped_by(ours, "fft_vcc", "CL_OUT_OF_RESOURCES")
        ref = np.fft.fft(vectors.reshape(-1, n).astype(np.complex128), axis=1).ravel()
        self.assert_prefix(sink.data(), ref, "fft_vcc before the fault")

    def test_003_device_resident_chain_stops(self):
        # filter -> channelizer on the device (no host copy between them): the
        # fault, whichever block it hits first, ends the stream of both.
        rng = np.random.default_rng(3)
        M, D = 8, 8
        filter_taps, channel_taps = random_taps(rng, 21), random_taps(rng, 3 * M)
        x = never_zero(rng, 6 * CHUNK + 5)
        src = blocks.vector_source_c(x)
        first = wideband.fft_filter_ccf(1, filter_taps)
        second = wideband.pfb_channelizer_ccf(M, channel_taps, 1, [1, 6])
        sinks = [blocks.vector_sink_c(), blocks.vector_sink_c()]
        self.tb.connect(src, first, second)
        for slot, sink in enumerate(sinks):
            self.tb.connect((second, slot), sink)
        with mock.patch.dict(os.environ, {"WIDEBAND_FAULT": "enqueue:6"}):
            self.run_until_stopped()
        self.assertEqual(wideband.input_memory(second), "device")
        # (a failed device fails every later call: either block, or both)
        errors = [e for e in map(wideband.work_error, (first, second)) if e]
        self.assertTrue(errors)
        for error in errors:
            self.assertIn("CL_OUT_OF_RESOURCES", error)
        ref = channelizer_reference(filter_reference(x, filter_taps, 1), channel_taps, M, D)
        for slot, channel in enumerate((1, 6)):
            self.assert_prefix(sinks[slot].data(), ref[:, channel], f"output {slot}")

    def test_004_kernel_build_fails_at_start(self):
        # The channelizer builds its kernels when the flowgraph starts: a
        # build failure there stops the flowgraph before any output.
        rng = np.random.default_rng(4)
        M, D = 24, 12
        taps = random_taps(rng, 5 * M - 1)
        x = never_zero(rng, 3 * CHUNK)
        src = blocks.vector_source_c(x)
        ours = wideband.pfb_channelizer_ccf(M, taps, M / D, [5])
        sink = blocks.vector_sink_c()
        self.tb.connect(src, ours, sink)
        with mock.patch.dict(os.environ, {"WIDEBAND_FAULT": "build"}):
            self.run_until_stopped()
        self.assertEqual(len(sink.data()), 0)
        # One mapped channel: the engine's direct kernel (pfb_direct.cl).
        self.assert_stopped_by(ours, "pfb_channelizer_ccf",
                               "OpenCL build of kernels/pfb_direct.cl failed",
                               "CL_BUILD_PROGRAM_FAILURE", "WIDEBAND_FAULT=build")
        src.rewind()
        sink.reset()
        self.tb.run()
        self.assertEqual(wideband.work_error(ours), "")
        assert_same_stream(sink.data(), channelizer_reference(x, taps, M, D)[:, 5], TOL, TOL,
                           "after the fault")

    def test_005_kernel_build_fails_for_new_taps(self):
        # New taps that need new kernels (more taps per branch; a longer
        # FFT), set while the stream is held: the block stops at the change;
        # everything before it came out and is right.
        rng = np.random.default_rng(5)
        M, D, before = 16, 8, 40003
        x = never_zero(rng, 3 * CHUNK)
        old, new = random_taps(rng, 3 * M), random_taps(rng, 11 * M)
        cases = (
            ("pfb_channelizer_ccf", lambda: wideband.pfb_channelizer_ccf(M, old, M / D, [2]),
             channelizer_reference(x, old, M, D)[:, 2], before // D),
            ("fft_filter_ccf", lambda: wideband.fft_filter_ccf(D, old),
             filter_reference(x, old, D), before // D),
        )
        for name, make, ref, delivered in cases:
            with self.subTest(block=name):
                self.setUp()
                src = blocks.vector_source_c(x)
                hold = gate(before)
                ours = make()
                sink = blocks.vector_sink_c()
                self.tb.connect(src, hold, ours, sink)
                self.tb.start()
                wait_for(self, lambda: len(sink.data()) >= delivered)
                with mock.patch.dict(os.environ, {"WIDEBAND_FAULT": "build"}):
                    # one tap more than the running FFT length holds
                    ours.set_taps(random_taps(rng, ours.fft_size() + 1)
                                  if name == "fft_filter_ccf" else new)
                    hold.opened.set()
                    waiter = threading.Thread(target=self.tb.wait, daemon=True)
                    waiter.start()
                    waiter.join(STOP_SECONDS)
                self.assertFalse(waiter.is_alive(), "the flowgraph did not stop")
                self.assert_stopped_by(ours, name, "OpenCL build of kernels/",
                                       "WIDEBAND_FAULT=build")
                got = np.asarray(sink.data())
                self.assertEqual(len(got), delivered)
                assert_same_stream(got, ref[:delivered], TOL, TOL, "before the change")


if __name__ == '__main__':
    gr_unittest.run(qa_faults)
