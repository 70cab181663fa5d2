#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Flowgraph pieces shared by the streaming blocks' QA (qa_fft_filter,
qa_pfb_channelizer_ccf): random never-zero input, an upstream block that
passes samples in random pieces, a gate that holds the stream, a stall-safe
wait. Imported from the tests' own folder; not installed."""

import threading
import time

import numpy as np
from gnuradio import gr


def never_zero(rng, count):
    """Complex samples with magnitudes in [0.5, 1.5] and random phases."""
    magnitude = rng.uniform(0.5, 1.5, count)
    phase = rng.uniform(-np.pi, np.pi, count)
    return (magnitude * np.exp(1j * phase)).astype(np.complex64)


class random_chunks(gr.basic_block):
    """Passes samples on in pieces of random size, 1..max_chunk per call."""

    def __init__(self, max_chunk, seed):
        gr.basic_block.__init__(self, name="random_chunks",
                                in_sig=[np.complex64], out_sig=[np.complex64])
        self.rng = np.random.default_rng(seed)
        self.max_chunk = max_chunk

    def general_work(self, input_items, output_items):
        count = min(len(input_items[0]), len(output_items[0]),
                    int(self.rng.integers(1, self.max_chunk + 1)))
        output_items[0][:count] = input_items[0][:count]
        self.consume(0, count)
        return count


class gate(gr.sync_block):
    """Passes the first `before` samples, then waits until `opened` is set."""

    def __init__(self, before):
        gr.sync_block.__init__(self, name="gate",
                               in_sig=[np.complex64], out_sig=[np.complex64])
        self.before = before
        self.opened = threading.Event()

    def work(self, input_items, output_items):
        count = len(output_items[0])
        passed = self.nitems_written(0)
        if passed < self.before:
            count = min(count, self.before - passed)
        elif not self.opened.wait(0.01):
            return 0
        output_items[0][:count] = input_items[0][:count]
        return count


def wait_for(testcase, condition, seconds=120):
    deadline = time.monotonic() + seconds
    while not condition():
        testcase.assertLess(time.monotonic(), deadline, "flowgraph stalled")
        time.sleep(0.005)
