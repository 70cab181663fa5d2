#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
The ZeroMQ examples (docs/zeromq.md): grcc compiles examples/zeromq_receiver.grc,
examples/zeromq_consumer.grc (QT GUI) and examples/zeromq_consumer_headless.grc;
the consumers read what the receiver sends (complex samples, no tag headers);
and, run as programs over loopback, a headless consumer on each of the
receiver's ports gets the tone of the channel that port carries.
"""

import signal
import subprocess
import sys
import time

import numpy as np
from gnuradio import gr_unittest

from grc_qa_helpers import blocks_of, example, grc_testcase, load, variable
from stream_qa_helpers import consecutive_free_ports

RECEIVER = "zeromq_receiver"
CONSUMER = "zeromq_consumer"
HEADLESS_CONSUMER = "zeromq_consumer_headless"


class qa_zeromq_grc(grc_testcase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.compiled_all = cls.grcc(*(example(name)
                                      for name in (RECEIVER, CONSUMER, HEADLESS_CONSUMER)))

    def compiled(self, name):
        """grcc's Python program for examples/<name>.grc."""
        self.assertEqual(self.compiled_all.returncode, 0,
                         self.compiled_all.stdout + self.compiled_all.stderr)
        return self.path(name + ".py")

    def start(self, program, *args):
        """Runs a compiled example in the background; stopped at the test's end."""
        process = subprocess.Popen([sys.executable, program] + [str(a) for a in args],
                                   env=self.env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        self.addCleanup(process.wait, 60)
        self.addCleanup(process.kill)  # (nothing for one that ended)
        return process

    def test_001_examples_compile(self):
        for name in (RECEIVER, CONSUMER, HEADLESS_CONSUMER):
            with self.subTest(example=name), open(self.compiled(name)) as f:
                compile(f.read(), name + ".py", "exec")

    def test_002_consumers_read_what_the_receiver_sends(self):
        receiver = load(example(RECEIVER))
        publishers = blocks_of(receiver, "zeromq_pub_sink")
        self.assertEqual(len(publishers), len(variable(receiver, "channel_map")))
        for publisher in publishers:
            # every sample to a connected subscriber (docs/zeromq.md)
            self.assertEqual(publisher["drop_on_hwm"], "False")
        for name in (CONSUMER, HEADLESS_CONSUMER):
            subscriber, = blocks_of(load(example(name)), "zeromq_sub_source")
            for publisher in publishers:
                for key in ("type", "vlen", "pass_tags", "key"):
                    self.assertEqual(subscriber.get(key), publisher.get(key), f"{name}: {key}")

    def test_003_each_port_carries_its_channel(self):
        receiver_program = self.compiled(RECEIVER)
        consumer_program = self.compiled(HEADLESS_CONSUMER)
        flowgraph = load(example(RECEIVER))
        channel_map = variable(flowgraph, "channel_map")
        offsets = variable(flowgraph, "offsets")
        amplitude = variable(flowgraph, "amplitude")
        port = consecutive_free_ports(len(channel_map))
        samples = 20000
        receiver = self.start(receiver_program, "--bind", "127.0.0.1", "--port", port)
        consumers = [self.start(consumer_program, "--address", f"tcp://127.0.0.1:{port + i}",
                                "--samples", samples,
                                "--output", self.path(f"{i}.cf32"))
                     for i in range(len(channel_map))]
        deadline = time.monotonic() + 120
        while any(consumer.poll() is None for consumer in consumers):
            if receiver.poll() is not None:
                self.fail("the receiver ended:\n" + receiver.stdout.read())
            self.assertLess(time.monotonic(), deadline, "the consumers got too little in 120 s")
            time.sleep(0.05)
        for consumer in consumers:
            self.assertEqual(consumer.returncode, 0, consumer.stdout.read())
        # Ctrl-C ends the receiver, as it would on the command line.
        receiver.send_signal(signal.SIGINT)
        output, _ = receiver.communicate(timeout=60)
        self.assertEqual(receiver.returncode, 0, output)

        for i, channel in enumerate(channel_map):
            y = np.fromfile(self.path(f"{i}.cf32"), dtype=np.complex64)
            self.assertEqual(len(y), samples)
            # The tone sits offsets[i] channel spacings from the channel's centre:
            # offsets[i] cycles per sample at one sample per channel spacing.
            spectrum = np.abs(np.fft.fft(y * np.hanning(samples)))
            peak = np.fft.fftfreq(samples)[np.argmax(spectrum)]
            self.assertAlmostEqual(peak, offsets[i], delta=2 / samples,
                                   msg=f"port {port + i} (channel {channel})")
            # unity gain in the pass band
            self.assertAlmostEqual(np.mean(np.abs(y) ** 2), amplitude ** 2, delta=0.01)


if __name__ == '__main__':
    gr_unittest.run(qa_zeromq_grc)
