#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
Channels to other programs over ZeroMQ, on the loopback interface
(docs/zeromq.md): a sender flowgraph channelizes random never-zero input with
wideband.pfb_channelizer_ccf and hands some channels to GNU Radio's ZeroMQ
sinks; a consumer flowgraph in the same process receives them with ZeroMQ
sources. Every received sample is compared, in order, with the channel the
sender also kept in a vector sink (bit for bit: the transport must not change a
sample) and with GNU Radio's in-tree pfb.channelizer_ccf (within rounding: the
endpoint carries the channel it should). The counts must match exactly, so a
lost, repeated or reordered message fails.

A random_chunks block before each sink cuts the stream into messages of random
sizes (a sink sends one message per work call). The system picks the ports
(tcp://127.0.0.1:*); every wait is bounded.
"""

import threading
import time

import numpy as np
from gnuradio import blocks, gr, gr_unittest, wideband, zeromq
from gnuradio.filter import pfb

from qa_pfb_channelizer_ccf import assert_same_channel
from stream_qa_helpers import never_zero, random_chunks, wait_for

NUMCHANS = 8
FRAMES = 2500  # samples per channel
MAX_MESSAGE = 300  # samples
SEND_HWM = 8  # messages queued in a sending socket, as apps/wideband_channelize
ANY_PORT = "tcp://127.0.0.1:*"
# Sent before the stream on PUB sockets (below); never a sample of the
# channelized never-zero input.
MARKER = 0j


class markers_until_opened(gr.basic_block):
    """Sends MARKER samples until `opened` is set, then its input. A subscriber
    that has received a marker is subscribed: PUB sends it every later message,
    so the test opens the stream only then."""

    def __init__(self):
        gr.basic_block.__init__(self, name="markers_until_opened",
                                in_sig=[np.complex64], out_sig=[np.complex64])
        self.opened = threading.Event()

    def general_work(self, input_items, output_items):
        if not self.opened.wait(0.01):
            output_items[0][0] = MARKER
            return 1
        count = min(len(input_items[0]), len(output_items[0]))
        output_items[0][:count] = input_items[0][:count]
        self.consume(0, count)
        return count


def wait_until(condition, seconds=30):
    """Waits for condition() at most `seconds`; the assertions that follow say
    what is missing."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.005)


def after_markers(samples):
    samples = np.asarray(samples)
    first = np.flatnonzero(samples != MARKER)
    return samples[first[0]:] if first.size else samples[:0]


class qa_zeromq(gr_unittest.TestCase):

    def setUp(self):
        self.sender = gr.top_block("sender")
        self.consumer = gr.top_block("consumer")
        # Python blocks must outlive the run: kept here.
        self.python_blocks = []

    def tearDown(self):
        for tb in (self.consumer, self.sender):
            tb.stop()
            tb.wait()

    def channelize(self, channel_map, seed):
        """The sender's channelizer on random input; returns (channelizer, the
        sender's own copy of each mapped channel, the in-tree block's)."""
        x = never_zero(np.random.default_rng(seed), NUMCHANS * FRAMES)
        ours = wideband.pfb_channelizer_ccf(NUMCHANS, [], 1, channel_map, "", 80)
        in_tree = pfb.channelizer_ccf(NUMCHANS, ours.taps(), 1)
        # A source each: ours may give its upstream buffer device-side memory.
        self.sender.connect(blocks.vector_source_c(x, False), ours)
        self.sender.connect(blocks.vector_source_c(x, False), in_tree)
        kept = [blocks.vector_sink_c() for _ in channel_map]
        for slot, sink in enumerate(kept):
            self.sender.connect((ours, slot), sink)
        in_tree_sinks = []
        for c in range(NUMCHANS):
            sink = blocks.vector_sink_c() if c in channel_map else blocks.null_sink(
                gr.sizeof_gr_complex)
            self.sender.connect((in_tree, c), sink)
            in_tree_sinks.append(sink)
        return ours, kept, [in_tree_sinks[c] for c in channel_map]

    def cut_into_messages(self, upstream, sink, seed):
        chunks = random_chunks(MAX_MESSAGE, seed)
        self.python_blocks.append(chunks)
        self.sender.connect(upstream, chunks, sink)
        return chunks

    def receive(self, source):
        sink = blocks.vector_sink_c()
        self.consumer.connect(source, sink)
        return sink

    def wait_until_sent(self):
        waiter = threading.Thread(target=self.sender.wait, daemon=True)
        waiter.start()
        wait_for(self, lambda: not waiter.is_alive())

    def assert_channel(self, received, kept, in_tree, what):
        received = np.asarray(received)
        self.assertEqual(len(received), FRAMES, f"{what}: sample count")
        self.assertTrue(np.array_equal(received, kept.data()), f"{what}: not bit-exact")
        assert_same_channel(received, in_tree.data(), what)

    def test_001_push_pull_consumer_gets_every_sample_in_order(self):
        channel_map = [2, NUMCHANS - 1, 0]
        chan, kept, in_tree = self.channelize(channel_map, seed=1)
        pushers, chunks = [], []
        for slot in range(len(channel_map)):
            pusher = zeromq.push_sink(gr.sizeof_gr_complex, 1, ANY_PORT, hwm=SEND_HWM)
            chunks.append(self.cut_into_messages((chan, slot), pusher, seed=slot))
            pushers.append(pusher)
        self.sender.start()
        # No consumer yet: the samples wait at the sockets, none is sent.
        wait_for(self, lambda: all(c.nitems_written(0) > 0 for c in chunks))
        self.assertEqual([p.nitems_read(0) for p in pushers], [0] * len(pushers))

        received = [self.receive(zeromq.pull_source(gr.sizeof_gr_complex, 1,
                                                    p.last_endpoint()))
                    for p in pushers]
        self.consumer.start()
        self.wait_until_sent()
        wait_until(lambda: all(r.nitems_read(0) >= FRAMES for r in received))
        self.consumer.stop()
        self.consumer.wait()
        for slot, c in enumerate(channel_map):
            self.assert_channel(received[slot].data(), kept[slot], in_tree[slot],
                                f"PUSH/PULL channel {c}")

    def test_002_pub_sub_subscribers_get_every_sample_after_subscribing(self):
        # Two subscribers on the first channel (PUB sends each all of it), one
        # on the second.
        channel_map = [3, NUMCHANS - 3]
        chan, kept, in_tree = self.channelize(channel_map, seed=2)
        gates, subscribers = [], []
        for slot in range(len(channel_map)):
            gate = markers_until_opened()
            publisher = zeromq.pub_sink(gr.sizeof_gr_complex, 1, ANY_PORT, hwm=SEND_HWM,
                                        drop_on_hwm=False)
            self.python_blocks.append(gate)
            self.sender.connect((chan, slot), gate)
            self.cut_into_messages(gate, publisher, seed=slot)
            gates.append(gate)
            for _ in range(2 if slot == 0 else 1):
                source = zeromq.sub_source(gr.sizeof_gr_complex, 1,
                                           publisher.last_endpoint())
                subscribers.append((slot, self.receive(source)))
        self.consumer.start()
        self.sender.start()
        wait_for(self, lambda: all(sink.nitems_read(0) > 0 for _, sink in subscribers))
        for gate in gates:
            gate.opened.set()
        self.wait_until_sent()
        wait_until(lambda: all(len(after_markers(sink.data())) >= FRAMES
                               for _, sink in subscribers))
        self.consumer.stop()
        self.consumer.wait()
        for number, (slot, sink) in enumerate(subscribers):
            self.assert_channel(after_markers(sink.data()), kept[slot], in_tree[slot],
                                f"PUB/SUB channel {channel_map[slot]}, subscriber {number}")


if __name__ == '__main__':
    gr_unittest.run(qa_zeromq)
