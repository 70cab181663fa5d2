#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""gnuradio.wideband.live: sources, the loss log, segmented SigMF, status."""

import io
import json
import os
import shutil
import tempfile

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio.wideband import live


def rx_time_tag(offset, secs, frac):
    return gr.tag_utils.python_to_tag((offset, pmt.intern("rx_time"),
                                       pmt.make_tuple(pmt.from_uint64(secs),
                                                      pmt.from_double(frac))))


class qa_sources(gr_unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="qa_live_")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_parse(self):
        s = live.parse_source("zmq:tcp://10.0.0.2:5555", 2e6, freq=100e6)
        self.assertEqual((s.kind, s.args, s.rate, s.freq, s.itemsize),
                         ("zmq", "tcp://10.0.0.2:5555", 2e6, 100e6, 8))
        s = live.parse_source("uhd:type=b200,serial=31", 10e6, sample_format="sc16")
        self.assertEqual((s.kind, s.args, s.itemsize, s.input_type), ("uhd", "type=b200,serial=31",
                                                                      4, "sc16"))
        path = os.path.join(self.dir, "x.cs16")
        np.zeros(10, np.int16).tofile(path)  # 5 sc16 samples
        self.assertEqual(live.parse_source("file:" + path, 1e6, sample_format="sc16").args, path)
        pipe = os.path.join(os.path.dirname(path), "pipe")
        os.mkfifo(pipe)  # a program writing samples: no size to check
        self.assertEqual(live.parse_source("file:" + pipe, 1e6).args, pipe)
        for text, rate, kw, why in (
                ("rtl:0", 1e6, {}, "KIND one of"),
                ("zmq", 1e6, {}, "KIND one of"),
                ("soapy:driver=rtlsdr", None, {}, "--rate"),
                ("zmq:10.0.0.2:5555", 1e6, {}, "tcp://HOST:PORT"),
                ("zmq:tcp://h:5555", 1e6, {"gain": 20.0}, "--gain and --antenna"),
                ("file:" + path, 1e6, {"antenna": "RX2", "sample_format": "sc16"},
                 "--gain and --antenna"),
                ("file:" + path, 1e6, {}, "not a whole number of fc32"),  # 20 bytes
                ("file:/no/such", 1e6, {}, "no such file or named pipe"),
                ("file:" + os.path.dirname(path), 1e6, {}, "no such file or named pipe"),
                ("osmosdr:rtl=0", 1e6, {"sample_format": "sc16"}, "complex float only"),
                ("uhd:", 1e6, {"sample_format": "cs8"}, "sample format"),
                ("file:" + path, 1e6, {"sample_format": "sc16", "tags": False},
                 "--no-source-tags is for a ZeroMQ sender")):
            with self.assertRaisesRegex(live.SourceError, why, msg=text):
                live.parse_source(text, rate, **kw)

    def test_radio_recipes(self):
        def spec(kind, fmt="fc32"):
            return live.parse_source(kind + ":ARGS", 20e6, freq=2.45e9, gain=30.0,
                                     antenna="RX2", sample_format=fmt)
        r = live.recipe(spec("soapy", "sc16"))
        self.assertEqual((r.module, r.factory), ("soapy", "source"))
        self.assertEqual(r.args, ("ARGS", "sc16", 1, "", "", [""], [""]))
        self.assertEqual(r.calls, [("set_sample_rate", (0, 20e6)), ("set_frequency", (0, 2.45e9)),
                                   ("set_gain_mode", (0, False)), ("set_gain", (0, 30.0)),
                                   ("set_antenna", (0, "RX2"))])
        r = live.recipe(spec("uhd", "sc16"))
        self.assertEqual((r.module, r.factory), ("uhd", "usrp_source"))
        self.assertEqual(r.args, ("ARGS", {"cpu_format": "sc16", "otw_format": "sc16",
                                           "channels": [0]}))
        self.assertEqual(r.calls, [("set_samp_rate", (20e6,)), ("set_center_freq", (2.45e9, 0)),
                                   ("set_gain", (30.0, 0)), ("set_antenna", ("RX2", 0))])
        r = live.recipe(spec("osmosdr"))
        self.assertEqual((r.module, r.factory, r.args), ("osmosdr", "source", ("ARGS",)))
        self.assertEqual(r.calls[0], ("set_sample_rate", (20e6,)))
        self.assertIn(("set_gain", (30.0, 0)), r.calls)
        # Only what is given goes to the radio.
        r = live.recipe(live.parse_source("uhd:", 1e6))
        self.assertEqual(r.calls, [("set_samp_rate", (1e6,))])

    def test_radio_without_its_module_or_device(self):
        try:
            import osmosdr  # noqa: F401
            have_osmosdr = True
        except ImportError:
            have_osmosdr = False
        if not have_osmosdr:
            with self.assertRaisesRegex(live.SourceError,
                                        "osmosdr sources need gr-osmosdr .*not installed"):
                live.build_source(live.parse_source("osmosdr:rtl=0", 2e6))
        # A Soapy driver that is not there: the device string is in the message.
        with self.assertRaisesRegex(live.SourceError,
                                    "cannot open the soapy source 'driver=qa_no_such_driver'"):
            live.build_source(live.parse_source("soapy:driver=qa_no_such_driver", 2e6))
        # UHD: the stream arguments built (sc16), no such device.
        with self.assertRaisesRegex(live.SourceError, "cannot open the uhd source 'type=qa_none': "
                                                      ".*No devices found"):
            live.build_source(live.parse_source("uhd:type=qa_none", 2e6, sample_format="sc16"))

    def test_file_source_plays_at_its_rate(self):
        path = os.path.join(self.dir, "x.cf32")
        x = (np.arange(20000) + 1j * np.arange(20000)).astype(np.complex64)
        x.tofile(path)
        first, last, rx_time = live.build_source(live.parse_source("file:" + path, 40e3))
        self.assertFalse(rx_time)
        tb = gr.top_block()
        sink = blocks.vector_sink_c()
        tb.connect(first, last, sink)
        import time
        t0 = time.monotonic()
        tb.run()
        self.assertGreater(time.monotonic() - t0, 0.3)  # 0.5 s at 40 ksamples/s
        np.testing.assert_array_equal(np.array(sink.data(), np.complex64), x)


class qa_loss_log(gr_unittest.TestCase):

    def test_gaps_and_jumps_from_rx_time(self):
        rate = 200e6  # times near 2026: whole seconds must not lose the samples
        log = live.LossLog(rate)
        self.assertEqual(log.time_source, "host clock")
        s0 = 1795000000
        log.on_rx_time(0, s0, 0.25, host_now=1.0)
        log.on_rx_time(1000, s0, 0.25 + 1000 / rate)  # on time: no event
        self.assertEqual(log.events, [])
        # 1000 more samples then the clock says 1000 + 137 samples later: 137 lost.
        log.on_rx_time(2000, s0, 0.25 + 2137 / rate, host_now=2.0)
        # Across a whole second.
        log.on_rx_time(3000, s0 + 1, 0.25 + 3137 / rate - 1 + 5 / rate)
        # Back by 50 samples.
        log.on_rx_time(4000, s0 + 1, 0.25 + 4142 / rate - 1 - 50 / rate)
        self.assertEqual([(e.kind, e.index, e.lost) for e in log.events],
                         [("gap", 2000, 137), ("gap", 3000, 5), ("time_jump_back", 4000, 0)])
        self.assertEqual(log.lost, 142)
        self.assertEqual(log.time_source, "rx_time")
        # The tag that agreed with the first one is not kept.
        self.assertEqual([r[0] for r in log.refs], [0, 2000, 3000, 4000])
        self.assertEqual(log.events_in(2000, 3000)[0].index, 2000)
        self.assertEqual(len(log.events_in(0, 2000)), 0)
        # Time of a sample: from the last tag at or before it.
        secs, frac = log.time_of(2500)
        self.assertEqual(secs, s0)
        self.assertAlmostEqual(frac, 0.25 + 2637 / rate, delta=1e-12)
        secs, frac = log.time_of(0)
        self.assertEqual((secs, frac), (s0, 0.25))
        self.assertEqual([e.number for e in log.events_from(1)], [1, 2])
        # Forgotten: before input sample 3500 and logged (numbered below 2).
        log.forget(3500, 2)
        self.assertEqual([e.index for e in log.events], [4000])
        log.forget(5000, 2)  # not logged yet: kept
        self.assertEqual([e.index for e in log.events], [4000])
        self.assertEqual(log.snapshot()[1:], (3, 142))
        # One sample of rounding is not a gap.
        log2 = live.LossLog(1e6)
        log2.on_rx_time(0, 10, 0.0)
        log2.on_rx_time(1000, 10, 1001e-6)
        self.assertEqual(log2.events, [])

    def test_host_clock_without_tags(self):
        log = live.LossLog(1e6)
        self.assertIsNone(log.time_of(0))
        log.first_samples(1000.5)
        self.assertEqual(log.time_of(1500000), (1002, 0.0))
        self.assertEqual(live.iso((1002, 0.0)), "1970-01-01T00:16:42.000000Z")

    def test_monitor_in_a_flowgraph(self):
        rate = 1e6
        log = live.LossLog(rate)
        tags = [rx_time_tag(0, 100, 0.5), rx_time_tag(40000, 100, 0.5 + 40000 / rate),
                rx_time_tag(70000, 100, 0.5 + 71234 / rate)]
        src = blocks.vector_source_c(np.zeros(100000, np.complex64), False, 1, tags)
        mon = live.make_monitor(8, log)
        tb = gr.top_block()
        tb.connect(src, mon)
        tb.run()
        self.assertEqual(log.snapshot(), (100000, 1, 1234))
        self.assertEqual((log.events[0].kind, log.events[0].index), ("gap", 70000))
        self.assertIsNotNone(log.host_start)
        # Complex int16 items (4 bytes).
        log = live.LossLog(rate)
        src = blocks.vector_source_i(np.zeros(5000, np.int32), False, 1,
                                     [rx_time_tag(0, 7, 0.0), rx_time_tag(3000, 7, 0.004)])
        mon = live.make_monitor(4, log)
        tb = gr.top_block()
        tb.connect(src, mon)
        tb.run()
        self.assertEqual(log.snapshot(), (5000, 1, 1000))


class qa_segments(gr_unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="qa_live_")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def read(self, writer):
        metas, data = [], []
        for meta_path, data_path in writer.paths:
            with open(meta_path) as f:
                metas.append(json.load(f))
            data.append(np.fromfile(data_path, np.complex64))
        return metas, data

    def test_segments_continuous_with_annotations(self):
        D = 4
        log = live.LossLog(4000.0)
        log.on_rx_time(0, 1700000000, 0.0)
        w = live.SegmentWriter(self.dir, "ch", 1000.0, 1.5e6, D, 250, log, "channel x", "qa")
        x = (np.arange(1100) * (1 + 1j)).astype(np.complex64)
        # A gap of 40 input samples before input sample 2100 (channel sample 525).
        log.on_rx_time(2100, 1700000000, (2100 + 40) / 4000.0)
        log.advance(2 * 250 * D)  # the monitor has passed the first two segments
        for piece in np.split(x, [3, 250, 251, 700, 999]):
            w.write(piece)
        # Segments 0 and 1 are complete and the input passed them: written.
        self.assertEqual(len(w.paths), 2)
        log.advance(1100 * D)
        w.close()
        metas, data = self.read(w)
        self.assertEqual([len(d) for d in data], [250, 250, 250, 250, 100])
        np.testing.assert_array_equal(np.concatenate(data), x)
        for i, m in enumerate(metas):
            cap = m["captures"][0]
            self.assertEqual(cap["core:sample_start"], 0)
            self.assertEqual(cap["core:global_index"], 250 * i)
            self.assertEqual(cap["core:frequency"], 1.5e6)
            self.assertEqual(m["global"]["core:sample_rate"], 1000.0)
            self.assertEqual(m["global"]["wideband:time_source"], "rx_time")
            self.assertEqual(m["global"]["core:datatype"], "cf32_le")
            self.assertEqual(m["global"]["wideband:segment"], i)
        # Segment 2 starts at channel sample 500 = input 2000 (before the gap):
        # 0.5 s; segment 3 at input 3000, after the gap of 40: 0.76 s.
        self.assertEqual(metas[2]["captures"][0]["core:datetime"], "2023-11-14T22:13:20.500000Z")
        self.assertEqual(metas[3]["captures"][0]["core:datetime"], "2023-11-14T22:13:20.760000Z")
        self.assertEqual([len(m["annotations"]) for m in metas], [0, 0, 1, 0, 0])
        a = metas[2]["annotations"][0]
        self.assertEqual((a["core:label"], a["core:sample_start"], a["wideband:lost_samples"],
                          a["wideband:input_index"]), ("gap", 25, 40, 2100))

    def test_metadata_waits_for_the_monitor(self):
        log = live.LossLog(1000.0)
        log.first_samples(0.0)
        w = live.SegmentWriter(self.dir, "c", 1000.0, 0.0, 1, 10, log, "d", "qa")
        w.write(np.ones(25, np.complex64))
        self.assertEqual(w.paths, [])  # the monitor has seen nothing yet
        log.advance(12)
        w.write(np.ones(0, np.complex64))
        self.assertEqual(len(w.paths), 1)
        # An event after the last sample goes into the last segment, at its end.
        log.add("backpressure", 30, 0, "held")
        self.assertEqual(w.needed(), 10)  # the second segment's metadata is not written
        w.close()
        self.assertEqual(w.needed(), 25)
        metas, data = self.read(w)
        self.assertEqual([len(d) for d in data], [10, 10, 5])
        self.assertEqual(metas[2]["annotations"][0]["core:sample_start"], 4)
        self.assertEqual(metas[2]["global"]["wideband:time_source"], "host clock")
        self.assertEqual(metas[1]["captures"][0]["core:datetime"], "1970-01-01T00:00:00.010000Z")
        self.assertAlmostEqual(w.take_power(), 1.0)
        self.assertIsNone(w.take_power())

    def test_retunes_start_segments(self):
        """A retune closes the segment where it applies; segments then count
        their samples from their own start; a freq tag (the offset from the
        input's centre) in a flowgraph does the same."""
        log = live.LossLog(1000.0)
        log.first_samples(0.0)
        w = live.SegmentWriter(self.dir, "r", 1000.0, 100.0, 1, 10, log, "d", "qa")
        x = np.arange(40, dtype=np.float32).astype(np.complex64)
        w.write(x[:13], [(3, 150.0, "")])  # 0..2 at 100 Hz, then 150 Hz from sample 3
        w.write(x[13:25], [(0, 150.0, ", again"), (7, 200.0, "")])  # 20: 200 Hz
        w.write(x[25:])
        log.advance(40)
        w.close()
        metas, data = self.read(w)
        self.assertEqual([len(d) for d in data], [3, 10, 7, 10, 10])
        np.testing.assert_array_equal(np.concatenate(data), x)
        self.assertEqual([m["captures"][0]["core:global_index"] for m in metas],
                         [0, 3, 13, 20, 30])
        self.assertEqual([m["captures"][0]["core:frequency"] for m in metas],
                         [100.0, 150.0, 150.0, 200.0, 200.0])
        self.assertEqual([[(a["core:label"], a["core:sample_start"], a["wideband:frequency"])
                           for a in m["annotations"]] for m in metas],
                         [[], [("retune", 0, 150.0)], [("retune", 0, 150.0)],
                          [("retune", 0, 200.0)], []])
        self.assertEqual(metas[1]["annotations"][0]["core:comment"],
                         "centre 150 Hz (was 100 Hz)")

        def freq_tag(offset, value):
            return gr.tag_utils.python_to_tag((offset, pmt.intern("freq"),
                                               pmt.from_double(value)))
        folder = os.path.join(self.dir, "fg")
        os.mkdir(folder)
        log = live.LossLog(1e3)
        w = live.SegmentWriter(folder, "t", 1e3, 1e6 + 10.0, 1, 1000, log, "d", "qa")
        x = np.ones(2500, np.complex64)
        src = blocks.vector_source_c(x, False, 1, [freq_tag(1700, -20.0), freq_tag(400, 30.0)])
        sink, mon = live.make_sink(w, 1e6), live.make_monitor(8, log)
        tb = gr.top_block()
        tb.connect(src, sink)
        tb.connect(src, mon)
        tb.run()
        w.close()
        metas, data = self.read(w)
        self.assertEqual([len(d) for d in data], [400, 1000, 300, 800])
        self.assertEqual([m["captures"][0]["core:frequency"] for m in metas],
                         [1e6 + 10, 1e6 + 30, 1e6 + 30, 1e6 - 20])

    def test_channel_tags_start_and_stop(self):
        """pfb_channelizer_ccf's "channel" tags (a new map) in a flowgraph: the
        sink takes them as retunes to the channel's offset, where an idle
        output's channel starts and ends."""
        def channel_tag(offset, value):
            return gr.tag_utils.python_to_tag((offset, pmt.intern("channel"),
                                               pmt.from_long(value)))
        log = live.LossLog(1e3)
        w = live.SegmentWriter(self.dir, None, 1e3, 0.0, 1, 1000, log, "", "qa")
        w.expect(1e6 + 300.0, live.Channel(3, "ch3", 1e3, 1e6 + 300.0, "channel 3"))
        x = np.arange(2500).astype(np.complex64)

        def run(piece, tag):
            sink = live.make_sink(w, 1e6, lambda c: 100.0 * c)  # a Python block: kept
            tb = gr.top_block()
            tb.connect(blocks.vector_source_c(piece, False, 1, [tag]), sink)
            tb.run()
            self.assertFalse(w.changing())
        # Two runs, the removal expected between them: 3 from sample 700 to 1900.
        run(x[:1200], channel_tag(700, 3))
        w.expect(1e6, None)
        run(x[1200:], channel_tag(700, 0))
        log.advance(2500)
        w.close()
        metas, data = self.read(w)
        np.testing.assert_array_equal(np.concatenate(data), x[700:1900])
        self.assertEqual([[a["core:label"] for a in m["annotations"]] for m in metas],
                         [["added"], ["removed"]])

    def test_spare_output_added_and_removed(self):
        """An idle output counts its samples and records nothing; a channel
        expect()ed on it starts at the first retune to its frequency (an
        earlier one, the taps' step, is passed over), and stops at the next
        expected one; a later channel on the same output has its own files."""
        log = live.LossLog(1000.0)
        log.first_samples(0.0)
        w = live.SegmentWriter(self.dir, None, 1000.0, 0.0, 1, 10, log, "", "qa")
        self.assertIsNone(w.key)
        x = np.arange(60, dtype=np.float32).astype(np.complex64)
        w.write(x[:5])
        self.assertFalse(w.changing())
        w.expect(300.0, live.Channel("n", "new", 1000.0, 300.0, "channel n"), "; by qa")
        self.assertTrue(w.changing())
        w.write(x[5:20], [(2, 0.0, ""), (4, 300.0, "")])  # starts at sample 9
        self.assertFalse(w.changing())
        self.assertEqual(w.key, "n")
        w.expect(300.0, None)
        w.write(x[20:40], [(13, 300.0, "")])  # stops before sample 33
        self.assertIsNone(w.key)
        w.expect(-5.0, live.Channel("m", "m", 1000.0, -5.0, "channel m"))
        w.write(x[40:], [(10, -5.0, "")])  # from sample 50 to the end
        log.advance(60)
        w.close()
        metas, data = self.read(w)
        self.assertEqual([os.path.basename(p) for p, _ in w.paths],
                         ["new-%06d.sigmf-meta" % i for i in range(3)] + ["m-000000.sigmf-meta"])
        np.testing.assert_array_equal(np.concatenate(data[:3]), x[9:33])
        np.testing.assert_array_equal(data[3], x[50:])
        self.assertEqual([m["captures"][0]["core:global_index"] for m in metas], [9, 19, 29, 50])
        self.assertEqual([[(a["core:label"], a["core:sample_start"]) for a in m["annotations"]]
                          for m in metas],
                         [[("added", 0)], [], [("removed", 3)], [("added", 0)]])
        self.assertEqual(metas[0]["annotations"][0]["core:comment"],
                         "channel n added at 300 Hz; by qa")
        self.assertEqual(metas[2]["annotations"][0]["core:comment"],
                         "channel n removed: the recording ends after this sample, before "
                         "output sample 33")
        self.assertEqual(metas[3]["global"]["core:description"],
                         "channel m; segment 0; core:datetime from host clock")
        # The power of the recorded samples only.
        self.assertAlmostEqual(w.take_power(), float(np.mean(np.abs(
            np.concatenate([x[9:33], x[50:]])) ** 2)), places=3)

    def test_plan_changes(self):
        from types import SimpleNamespace as C
        old = [C(name="a", offset=0.0, decimation=4, taps=np.ones(8)),
               C(name="b", offset=1e3, decimation=2, taps=np.ones(16)),
               C(name="c", offset=2e3, decimation=2, taps=np.ones(4)),
               C(name="d", offset=3e3, decimation=2, taps=np.ones(4)),
               C(name="g", offset=4e3, decimation=2, taps=np.ones(4))]
        slots = old + [live.idle(old[1]), live.idle(old[0], 5.0), live.idle(old[1])]
        self.assertEqual((slots[6].name, slots[6].offset, slots[6].decimation),
                         (None, 5.0, 4))
        new = [C(name="a", offset=0.0, decimation=4, taps=np.ones(8)),  # unchanged
               C(name="b", offset=-1e3, decimation=2, taps=np.ones(16)),  # retuned
               C(name="c", offset=2e3, decimation=2, taps=np.ones(12)),  # new filter
               C(name="d", offset=3e3, decimation=4, taps=np.ones(4)),  # to a spare of 4
               C(name="e", offset=5.0, decimation=4, taps=np.ones(8)),  # added, no spare left
               C(name="f", offset=7.0, decimation=2, taps=np.ones(4))]  # added (g removed)
        changes, refused = live.plan_changes(slots, new, 16)
        self.assertEqual([(k, i, c.name) for k, i, c in changes],
                         [("retune", 1, "b"), ("retune", 2, "c"), ("remove", 3, "d"),
                          ("add", 6, "d"), ("remove", 4, "g"), ("add", 5, "f")])
        self.assertEqual(refused, ["channel e added: no spare slot of decimation 4 left: needs "
                                   "a restart (or more --spare-channels)"])
        # Applied to a bank: only what changed, the taps before the centre, the
        # writers told which tag marks it, the slots follow.
        calls = []
        bank = C(set_taps=lambda i, t: calls.append(("taps", i, len(t))),
                 set_center_freq=lambda i, f: calls.append(("freq", i, f)))
        writers = [C(changing=lambda: False,
                     expect=lambda f, change, comment="", i=i:
                     calls.append(("expect", i, f, getattr(change, "key", change))))
                   for i in range(len(slots))]
        for c in new:
            c.frequency = 1e6 + c.offset
        before = list(slots)
        lines = live.reconfigure_bank(bank, slots, new, 16, writers, 1e6,
                                      lambda c: live.Channel(c.name, c.name, 0, 0, ""))
        self.assertEqual(calls, [
            ("expect", 1, 999000.0, "retune"), ("freq", 1, -1e3),
            ("expect", 2, 1002000.0, "retune"), ("taps", 2, 12),
            ("expect", 3, 1003000.0, None), ("freq", 3, 3e3),
            ("expect", 6, 1003000.0, "d"), ("taps", 6, 4), ("freq", 6, 3e3),
            ("expect", 4, 1004000.0, None), ("freq", 4, 4e3),
            ("expect", 5, 1000007.0, "f"), ("taps", 5, 4), ("freq", 5, 7.0)])
        self.assertEqual([c.name for c in slots], ["a", "b", "c", None, None, "f", "d", None])
        self.assertIs(slots[0], before[0])
        self.assertEqual((slots[3].offset, slots[3].decimation), (3e3, 2))
        self.assertEqual(lines, refused + [
            "channel b retuned to 999000 Hz (16 taps) from the next chunk",
            "channel c retuned to 1002000 Hz (12 taps) from the next chunk",
            "channel d removed from the next chunk",
            "channel d added at 1003000 Hz (4 taps) from the next chunk",
            "channel g removed from the next chunk",
            "channel f added at 1000007 Hz (4 taps) from the next chunk"])
        # The taps as the bank holds them for integer input (scaled by
        # 1 / full scale, as make_bank() gave them).
        taps = []
        bank = C(set_taps=lambda i, t: taps.append(t), set_center_freq=lambda i, f: None)
        slots = list(before)
        live.reconfigure_bank(bank, slots, new, 16, writers, 1e6,
                              lambda c: live.Channel(c.name, c.name, 0, 0, ""), 1 / 32768)
        self.assertEqual([len(t) for t in taps], [12, 4, 4])
        self.assertEqual({complex(v) for t in taps for v in t}, {1 / 32768})
        # Refused: taps beyond the bank's, a slot whose change is on its way,
        # a changed decimation without a spare; nothing changes.
        changes, refused = live.plan_changes(
            before, [C(name="a", offset=1.0, decimation=4, taps=np.ones(8)),
                     C(name="b", offset=0.0, decimation=2, taps=np.ones(17)),
                     C(name="c", offset=2e3, decimation=3, taps=np.ones(4)),
                     C(name="d", offset=3e3, decimation=2, taps=np.ones(4)),
                     C(name="g", offset=4e3, decimation=2, taps=np.ones(4))], 16, busy={0})
        self.assertEqual(changes, [])
        self.assertEqual(refused, [
            "channel a: its last change is still on its way to the output: reload again",
            "channel b: 17 taps, more than the 16 the bank started with: needs a restart",
            "channel c with decimation 3 (was 2): no spare slot of decimation 3 left: needs a "
            "restart (or more --spare-channels)"])

    def test_channel_list_changes(self):
        """The uniform channelizer: removed channels give their output back
        (mapped to channel 0, or 1 for channel 0), added ones take a spare,
        one whose map holds the channel already last (no tag: it starts at
        once); all in one set_channel_map()."""
        from types import SimpleNamespace as C
        calls = []
        chan = C(channel_map=lambda: [0, 3, 5, 2, 0, 7],
                 set_channel_map=lambda m: calls.append(("map", list(m))))
        busy = {5}
        writers = [C(changing=lambda i=i: i in busy,
                     expect=lambda f, change, comment="", i=i:
                     calls.append(("expect", i, f, getattr(change, "key", change))))
                   for i in range(6)]
        recorded = [0, 3, 5, None, None, None]
        lines = live.reconfigure_channelizer(
            chan, recorded, [3, 2, 6, 9], writers, 1e6, lambda c: 10.0 * c,
            lambda c: live.Channel(c, "ch%d" % c, 0, 0, ""))
        self.assertEqual(lines, ["channel 0 removed from the next chunk",
                                 "channel 5 removed from the next chunk",
                                 "channel 2 added at 1000020 Hz from the next chunk",
                                 "channel 6 added at 1000060 Hz from the next chunk",
                                 "channel 9 added: no spare output left: needs a restart (or "
                                 "more --spare-channels)"])
        self.assertEqual(calls, [("expect", 0, 1000010.0, None), ("expect", 2, 1000000.0, None),
                                 ("expect", 4, 1000020.0, 2), ("expect", 3, 1000060.0, 6),
                                 ("map", [1, 3, 0, 6, 2, 7])])
        self.assertEqual(recorded, [None, 3, None, 6, 2, None])
        calls.clear()
        self.assertEqual(live.reconfigure_channelizer(chan, [None, 3, None, 6, 2, 7], [3, 6, 2],
                                                      writers, 0.0, float, None),
                         ["channel 7: its last change is still on its way to the output: "
                          "reload again"])
        self.assertEqual(calls, [])
        chan.channel_map = lambda: [3, 9]
        recorded = [3, None]
        live.reconfigure_channelizer(chan, recorded, [3, 9], writers, 0.0, float,
                                     lambda c: live.Channel(c, "ch%d" % c, 0, 0, ""))
        self.assertEqual(calls, [("expect", 1, None, 9), ("map", [3, 9])])
        self.assertEqual(recorded, [3, 9])

    def test_segment_sizes(self):
        self.assertEqual(live.segment_samples(2e6, seconds=1.5), 3000000)
        self.assertEqual(live.segment_samples(2e6, nbytes=8000001), 1000000)
        self.assertEqual(live.segment_samples(2e6, nbytes=3), 1)

    def test_sink_in_a_flowgraph(self):
        log = live.LossLog(1e6)
        x = (np.random.default_rng(1).standard_normal(30000) * (1 + 1j)).astype(np.complex64)
        src = blocks.vector_source_c(x, False)
        w = live.SegmentWriter(self.dir, "s", 1e6, 0.0, 1, 7000, log, "d", "qa")
        # Python blocks: kept referenced while the flowgraph runs.
        sink, mon = live.make_sink(w), live.make_monitor(8, log)
        tb = gr.top_block()
        tb.connect(src, sink)
        tb.connect(src, mon)
        tb.run()
        w.close()
        metas, data = self.read(w)
        self.assertEqual([len(d) for d in data], [7000] * 4 + [2000])
        np.testing.assert_array_equal(np.concatenate(data), x)


class qa_station(gr_unittest.TestCase):

    def test_file_to_its_end(self):
        """A Station around a stand-in channelizer (keep one in 2: D = 2)."""
        d = tempfile.mkdtemp(prefix="qa_live_")
        try:
            x = (np.arange(40000) * (1 - 1j)).astype(np.complex64)
            x.tofile(os.path.join(d, "in.cf32"))
            spec = live.parse_source("file:" + os.path.join(d, "in.cf32"), 200e3)
            os.mkdir(os.path.join(d, "out"))
            station = live.Station(spec, blocks.keep_one_in_n(gr.sizeof_gr_complex, 2),
                                   [live.Channel("a", "a", 100e3, 5e6, "stand-in")],
                                   os.path.join(d, "out"), "qa", segment_seconds=0.05,
                                   input_buffer=50000)
            self.assertEqual(station.last.min_output_buffer(0), 50000)
            js = io.StringIO()
            status = live.Status(200e3, station.loss, station.writers, 0.05,
                                 json_file=js)
            lines = []
            signal, failure, record = station.run(status, lambda: None, lines.append)
            self.assertEqual((signal, failure, station.stuck), (None, None, False))
            self.assertEqual(lines, [])
            self.assertEqual((record["input_samples"], record["final"]), (40000, True))
            self.assertEqual(record["channel_samples"], {"a": 20000})
            self.assertGreater(len(js.getvalue().splitlines()), 1)  # reports while running
            w = station.writers[0]
            self.assertEqual(w.decimation, 2)
            self.assertEqual(len(w.paths), 4)  # 5000 samples each
            y = np.concatenate([np.fromfile(p, np.complex64) for _, p in w.paths])
            np.testing.assert_array_equal(y, x[1::2])
        finally:
            shutil.rmtree(d)


class qa_control(gr_unittest.TestCase):

    def test_reload_request(self):
        import zmq
        ctx = zmq.Context.instance()
        rep = live.open_control("inproc://qa_live_control")
        req = ctx.socket(zmq.REQ)
        try:
            req.connect("inproc://qa_live_control")
            logged = []
            live.Station.serve(rep, lambda: ["x", "y"], logged.append)  # nothing waiting
            self.assertEqual(logged, [])
            req.send_string("reload")
            self.assertTrue(rep.poll(5000))
            live.Station.serve(rep, lambda: ["x", "y"], logged.append)
            self.assertEqual(json.loads(req.recv_string()),
                             ["control: reload: x", "control: reload: y"])
            self.assertEqual(logged, ["control: reload: x", "control: reload: y"])
            req.send_string("retune everything")
            self.assertTrue(rep.poll(5000))
            live.Station.serve(rep, None, logged.append)
            self.assertEqual(json.loads(req.recv_string()),
                             ["control: unknown request 'retune everything' (known: reload)"])
            req.send_string("reload")
            self.assertTrue(rep.poll(5000))
            live.Station.serve(rep, None, logged.append)
            self.assertEqual(json.loads(req.recv_string()), ["control: reload: nothing to reload"])
        finally:
            req.close(0)
            rep.close(0)
        with self.assertRaisesRegex(live.LiveError, "control on ZeroMQ nonsense"):
            live.open_control("nonsense")


class qa_status(gr_unittest.TestCase):

    def test_report(self):
        log = live.LossLog(1e6)
        log.on_rx_time(0, 5, 0.0)
        log.on_rx_time(1000, 5, 0.0015)
        log.advance(500000)
        d = tempfile.mkdtemp(prefix="qa_live_")
        try:
            w = live.SegmentWriter(d, "c", 1e3, 0.0, 1000, 100, log, "d", "qa", "a")
            w.write(np.full(10, 0.1, np.complex64))
            spare = live.SegmentWriter(d, None, 1e3, 0.0, 1000, 100, log, "", "qa")
            quiet = live.SegmentWriter(d, "q", 1e3, 0.0, 1000, 100, log, "d", "qa", "b")
            err, js = io.StringIO(), io.StringIO()
            st = live.Status(1e6, log, [w, spare, quiet], 2.0, err, js)
            self.assertFalse(st.due(10.0))
            self.assertFalse(st.due(11.0))
            self.assertTrue(st.due(12.0))
            st.poll_backpressure(12.0, 0.99, 400000)
            st.poll_backpressure(12.5, 0.7, 450000)
            st.poll_backpressure(13.0, 0.1, 480000)
            rec = st.report(12.5)
            w.close()
        finally:
            shutil.rmtree(d)
        self.assertEqual(rec["input_samples"], 500000)
        self.assertAlmostEqual(rec["input_rate"], 200000.0)
        self.assertAlmostEqual(rec["rate_ratio"], 0.2)
        self.assertEqual((rec["lost_samples"], rec["events"]), (500, 2))
        self.assertEqual(rec["backpressure_s"], 1.0)
        self.assertAlmostEqual(rec["power_db"]["a"], -20.0, places=3)  # |0.1|^2
        self.assertIsNone(rec["power_db"]["b"])  # no samples; the spare not reported
        self.assertEqual(rec["channel_samples"], {"a": 10, "b": 0})
        self.assertEqual(json.loads(js.getvalue()), rec)
        self.assertRegex(err.getvalue(), r"^status: 500000 input samples, 0\.200 Msamples/s "
                                         r"\(20\.0% of nominal\), lost 500 \(2 events\)")
        self.assertEqual([e.kind for e in log.events], ["gap", "backpressure"])
        self.assertEqual(log.events[1].index, 400000)


if __name__ == "__main__":
    gr_unittest.main()
