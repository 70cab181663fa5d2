#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
pfb_channelizer_ccf, pfb_decimator_ccf, pfb_synthesizer_ccf, fft_filter_ccc, fft_vcc,
dct_vff, freq_xlating_fft_filter_ccc and channel_bank_ccc on a device string that names several devices ("cpu:all"):
consecutive chunks go to the devices in turn, and every output sample must
still match the float64 reference in order, across random work() chunkings,
settings changed while running (taps, channel map, centres), tags, and complex
integer input. pfb_arb_resampler_ccf refuses several devices.

ctest runs this with POCL_DEVICES="pthread pthread", which makes PoCL expose
two CPU devices; with one device the tests skip. The streams are several chunks
long (CHUNK samples each), so that each device computes several of them.
"""

import numpy as np
import pmt
from gnuradio import blocks, fft, gr, gr_unittest
from gnuradio.fft import window
from gnuradio import wideband
from stream_qa_helpers import SAMPLE_ITEMS, as_complex, never_zero_integers
from stream_qa_helpers import gate, never_zero, random_chunks, wait_for
import qa_fft_filter
import qa_freq_xlating_fft_filter_ccc as qa_xlating
import qa_pfb_channelizer_ccf
import qa_pfb_synthesizer_ccf
from qa_pfb_channelizer_ccf import CHUNK, assert_same_channel

DEVICES = "cpu:all"


class qa_multi_device_blocks(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()
        self.rng = np.random.default_rng(2026)

    def tearDown(self):
        self.tb = None

    def several(self, block):
        if ", " not in block.device_name():
            self.skipTest(f"{DEVICES} names one device here ({block.device_name()}); "
                          "set POCL_DEVICES='pthread pthread'")
        return block

    def test_001_channelizer_matches_reference(self):
        M, D = 8, 4  # oversample rate 2
        taps = qa_pfb_channelizer_ccf.random_taps(self.rng, 5 * M)
        channel_map = [6, 1, 3]
        x = never_zero(self.rng, int(2.6 * CHUNK))
        ours = self.several(
            wideband.pfb_channelizer_ccf(M, taps, M / D, channel_map, DEVICES))
        src = blocks.vector_source_c(x)
        chunks = random_chunks(3 * CHUNK // 4, 1)
        sinks = [blocks.vector_sink_c() for _ in channel_map]
        self.tb.connect(src, chunks, ours)
        for slot, sink in enumerate(sinks):
            self.tb.connect((ours, slot), sink)
        self.tb.run()
        self.assertEqual([wideband.input_memory(ours), wideband.output_memory(ours)],
                         ["host", "pinned host"])
        expect = qa_pfb_channelizer_ccf.reference(x, taps, M, D)
        for slot, sink in enumerate(sinks):
            assert_same_channel(sink.data(), expect[:, channel_map[slot]],
                                f"output {slot}, channel {channel_map[slot]}")

    def test_002_channelizer_settings_while_running(self):
        """New taps (longer history) and a new channel map from some chunk
        on: the output is the old configuration's before it and the new one's
        after it, with the samples the new history reaches before the change
        counted as zero, as on one device."""
        M, D = 8, 8
        old = qa_pfb_channelizer_ccf.random_taps(self.rng, 3 * M)
        new = qa_pfb_channelizer_ccf.random_taps(self.rng, 6 * M)
        x = never_zero(self.rng, 3 * CHUNK)
        ours = self.several(wideband.pfb_channelizer_ccf(M, old, 1, [2, 5], DEVICES))
        src = blocks.vector_source_c(x)
        hold = gate(CHUNK)
        sinks = [blocks.vector_sink_c() for _ in range(2)]
        self.tb.connect(src, hold, ours)
        for slot, sink in enumerate(sinks):
            self.tb.connect((ours, slot), sink)
        self.tb.start()
        # The first CHUNK samples are submitted with the old settings; the
        # change applies from the next chunk on.
        wait_for(self, lambda: ours.nitems_read(0) >= CHUNK)
        ours.set_taps(new)
        ours.set_channel_map([7, 0])
        hold.opened.set()
        self.tb.wait()
        frames = CHUNK // D
        zeroed = x.copy()
        zeroed[:CHUNK - (len(old) - D)] = 0
        before = qa_pfb_channelizer_ccf.reference(x, old, M, D, frames=frames)
        after = qa_pfb_channelizer_ccf.reference(zeroed, new, M, D, first_frame=frames)
        for slot, (was, now) in enumerate(((2, 7), (5, 0))):
            data = np.array(sinks[slot].data())
            self.assertEqual(len(data), len(x) // D)
            assert_same_channel(data[:frames], before[:, was], f"output {slot} before")
            assert_same_channel(data[frames:], after[:, now], f"output {slot} after")

    def test_003_filter_matches_reference_with_tags(self):
        D = 3
        taps = qa_fft_filter.random_taps(self.rng, "ccc", 301)
        x = never_zero(self.rng, int(3.3 * CHUNK))
        offsets = sorted(set(self.rng.integers(0, len(x) - D, 50).tolist()))
        tags = [gr.tag_utils.python_to_tag(
            (k, pmt.intern("k"), pmt.from_long(k), pmt.intern("src"))) for k in offsets]
        ours = self.several(wideband.fft_filter_ccc(D, taps, DEVICES))
        src = blocks.vector_source_c(x, False, 1, tags)
        chunks = random_chunks(CHUNK // 3, 2)
        sink = blocks.vector_sink_c()
        self.tb.connect(src, chunks, ours, sink)
        self.tb.run()
        qa_fft_filter.assert_same_stream(
            sink.data(), qa_fft_filter.reference(x, taps, D), "several devices")
        self.assertEqual(sorted((t.offset, pmt.to_long(t.value)) for t in sink.tags()),
                         [(k // D, k) for k in offsets])

    def test_004_fft_vcc_matches_in_tree(self):
        # Vectors dealt to both devices in chunks, window and shift fused, under
        # random work() sizes: the in-tree block's output, in order.
        n = 256
        vectors = 3 * CHUNK // n + 17
        x = never_zero(self.rng, n * vectors)
        win = list(self.rng.uniform(0.1, 1.0, n))
        ours = self.several(wideband.fft_vcc(n, True, win, True, 1, DEVICES))
        ref = fft.fft_vcc(n, True, win, True)
        src = blocks.vector_source_c(x, False)
        chunks = random_chunks(CHUNK // 5, 3)
        ours_sink, ref_sink = blocks.vector_sink_c(n), blocks.vector_sink_c(n)
        self.tb.connect(src, chunks, blocks.stream_to_vector(gr.sizeof_gr_complex, n), ours,
                        ours_sink)
        self.tb.connect(src, blocks.stream_to_vector(gr.sizeof_gr_complex, n), ref, ref_sink)
        self.tb.run()
        got, want = np.asarray(ours_sink.data()), np.asarray(ref_sink.data())
        self.assertEqual(len(got), vectors * n)
        self.assertLess(np.linalg.norm(got - want) / np.linalg.norm(want), 1e-5)

    def test_004b_dct_vff_matches_scipy(self):
        # Real vectors in, real vectors out (4-byte elements) dealt to both
        # devices: scipy's DCT-IV, in order.
        import scipy.fft
        n = 128
        vectors = 3 * CHUNK // n + 17
        x = self.rng.uniform(0.5, 1.5, n * vectors).astype(np.float32)
        ours = self.several(wideband.dct_vff(n, 4, "ortho", DEVICES))
        src = blocks.vector_source_f(x, False, n)
        sink = blocks.vector_sink_f(n)
        self.tb.connect(src, ours, sink)
        self.tb.run()
        got = np.asarray(sink.data())
        want = scipy.fft.dct(x.reshape(-1, n).astype(np.float64), type=4, norm="ortho")
        self.assertEqual(len(got), vectors * n)
        self.assertLess(np.linalg.norm(got - want.ravel()) / np.linalg.norm(want), 1e-6)

    def test_005_freq_xlating_retune_on_every_device(self):
        """A retune applies to the chunks after it whichever device computes
        them: every engine takes the same phase step at the same output
        (the one the "freq" tag marks), so the stream follows the definition."""
        D, fs = 4, 1.0e6
        taps = qa_xlating.random_taps(self.rng, 129)
        x = never_zero(self.rng, 3 * CHUNK)
        ours = self.several(
            wideband.freq_xlating_fft_filter_ccc(D, taps, 0.21 * fs, fs, DEVICES))
        src = blocks.vector_source_c(x)
        hold = gate(CHUNK)
        sink = blocks.vector_sink_c()
        self.tb.connect(src, hold, ours, sink)
        self.tb.start()
        wait_for(self, lambda: ours.nitems_read(0) >= CHUNK)
        ours.set_center_freq(-0.37 * fs)
        hold.opened.set()
        self.tb.wait()
        first = CHUNK // D
        self.assertEqual(qa_xlating.freq_tags(sink), [(first, -0.37 * fs)])
        ref = qa_xlating.reference(x, D, fs, [qa_xlating.setting(0, taps, 0.21 * fs),
                                              qa_xlating.setting(first, taps, -0.37 * fs)])
        data = np.array(sink.data())
        self.assertEqual(len(data), len(x) // D)
        qa_xlating.assert_close(self, data, ref, "several devices")

    def test_006_channel_bank_mixed_decimations_and_retune(self):
        """channel_bank_ccc over both devices: outputs at their own rates
        (decimations 1 .. 1000), the chunks dealt to the devices in turn,
        every output in order as the float64 definition; a retune (a new
        centre on one channel, fewer taps on another) after the first chunk
        applies on whichever device computes the next ones, at the output its
        "freq" tag marks; the other channels are unchanged."""
        import qa_channel_bank_ccc as qa_bank
        fs = 1.0e6
        decimations = [1, 7, 100, 1000]
        taps = [qa_xlating.random_taps(self.rng, 64), qa_xlating.random_taps(self.rng, 255),
                qa_xlating.random_taps(self.rng, 1000),
                qa_bank.low_pass(fs, 400.0, 2000.0, window.WIN_BLACKMAN_hARRIS)]
        fewer = qa_xlating.random_taps(self.rng, 17)
        centers = [0.0123 * fs, -0.3 * fs, 0.4 * fs, -0.25 * fs]
        x = never_zero(self.rng, 3 * CHUNK + 4321)
        ours = self.several(wideband.channel_bank_ccc(fs, centers, decimations, taps, DEVICES))
        src = blocks.vector_source_c(x)
        hold = gate(CHUNK)
        sinks = [blocks.vector_sink_c() for _ in centers]
        self.tb.connect(src, hold, ours)
        for i, sink in enumerate(sinks):
            self.tb.connect((ours, i), sink)
        self.tb.start()
        wait_for(self, lambda: ours.nitems_read(0) >= CHUNK)
        ours.set_center_freq(1, 0.4567 * fs)
        ours.set_taps(2, fewer)
        hold.opened.set()
        self.tb.wait()
        retunes = [[], [qa_xlating.setting(CHUNK // 7, taps[1], 0.4567 * fs)],
                   [qa_xlating.setting(CHUNK // 100, fewer, centers[2])], []]
        tags = [[], [(CHUNK // 7, 0.4567 * fs)], [(CHUNK // 100, centers[2])], []]
        for i, D in enumerate(decimations):
            with self.subTest(output=i, decimation=D):
                data = np.array(sinks[i].data())
                self.assertEqual(len(data), len(x) // D)
                self.assertEqual(qa_xlating.freq_tags(sinks[i]), tags[i])
                ref = qa_bank.reference(x, D, fs, taps[i], centers[i], retunes[i])
                qa_xlating.assert_close(self, data, ref, f"output {i}, several devices")

    def test_007_chain_across_devices_through_pinned_edges(self):
        """A filter spread over both devices, a channelizer on the second
        device alone and fft_vcc spread over both: every edge joins blocks
        on different devices (or spread over several), so each lives in
        pinned host memory that the devices on both its ends reach by DMA.
        The vectors out equal the float64 chain, under random work()
        chunkings."""
        M, D = 8, 8
        filter_taps = qa_fft_filter.random_taps(self.rng, "ccc", 97)
        channelizer_taps = qa_pfb_channelizer_ccf.random_taps(self.rng, 4 * M)
        x = never_zero(self.rng, int(2.5 * CHUNK))
        filt = self.several(wideband.fft_filter_ccc(1, filter_taps, DEVICES))
        # ctest's two PoCL devices are 0:0 and 0:1.
        channelizer = wideband.pfb_channelizer_ccf(M, channelizer_taps, 1, [], "0:1", 100,
                                                   True)
        transform = self.several(wideband.fft_vcc(M, True, [], False, 1, DEVICES))
        sink = blocks.vector_sink_c(M)
        chunks = random_chunks(CHUNK // 3, 4)  # a Python block: keep it alive
        self.tb.connect(blocks.vector_source_c(x), chunks, filt, channelizer, transform, sink)
        self.tb.run()
        self.assertEqual([wideband.output_memory(filt), wideband.input_memory(channelizer),
                          wideband.output_memory(channelizer), wideband.output_memory(transform)],
                         ["pinned host"] * 4)
        filtered = qa_fft_filter.reference(x, filter_taps, 1)
        channels = qa_pfb_channelizer_ccf.reference(filtered, channelizer_taps, M, D)
        want = np.fft.fft(channels, axis=1).reshape(-1)
        got = np.asarray(sink.data())
        self.assertEqual(len(got), len(want))
        self.assertLess(np.linalg.norm(got - want) / np.linalg.norm(want), 1e-5)

    def test_008_integer_input_on_several_devices(self):
        """Complex int16 into the channelizer, int8 into the filter: the
        history in front of each chunk a device computes is in the input's
        own samples (4 or 2 bytes), in random work() chunkings."""
        M, D = 8, 4
        taps = qa_pfb_channelizer_ccf.random_taps(self.rng, 5 * M)
        x = never_zero_integers(self.rng, int(2.6 * CHUNK), "sc16")
        ours = self.several(
            wideband.pfb_channelizer_ccf(M, taps, M / D, [], DEVICES, 100, True, "sc16"))
        chunks = random_chunks(3 * CHUNK // 4, 5, item=SAMPLE_ITEMS["sc16"])
        sink = blocks.vector_sink_c(M)
        self.tb.connect(blocks.vector_source_s(x.tolist(), False, 2), chunks, ours, sink)
        self.tb.run()
        expect = qa_pfb_channelizer_ccf.reference(as_complex(x), taps, M, D)
        got = np.asarray(sink.data()).reshape(-1, M)
        for c in range(M):
            assert_same_channel(got[:, c], expect[:, c], f"sc16, channel {c}")

        self.tb = gr.top_block()
        taps = qa_fft_filter.random_taps(self.rng, "ccf", 101)
        x = never_zero_integers(self.rng, int(2.3 * CHUNK), "sc8")
        filt = self.several(wideband.fft_filter_ccf(3, taps, DEVICES, "sc8"))
        chunks = random_chunks(CHUNK // 3, 6, item=SAMPLE_ITEMS["sc8"])
        sink = blocks.vector_sink_c()
        self.tb.connect(blocks.vector_source_b(x.view(np.uint8).tolist(), False, 2), chunks,
                        filt, sink)
        self.tb.run()
        qa_fft_filter.assert_same_stream(
            sink.data(), qa_fft_filter.reference(as_complex(x), taps, 3), "sc8")

    def test_009_decimator_one_and_split_inputs(self):
        """The decimator on its one input and on decim inputs (the stream
        split by stream_to_streams, interleaved again on the host), with a
        channel change between chunks."""
        decim = 8
        taps = qa_pfb_channelizer_ccf.random_taps(self.rng, 5 * decim + 3)
        x = never_zero(self.rng, int(2.6 * CHUNK))
        src = blocks.vector_source_c(x)
        hold = gate(CHUNK)
        s2ss = blocks.stream_to_streams(gr.sizeof_gr_complex, decim)
        single = self.several(wideband.pfb_decimator_ccf(decim, taps, 3, True, True,
                                                         DEVICES))
        several = wideband.pfb_decimator_ccf(decim, taps, 3, True, True, DEVICES)
        sinks = [blocks.vector_sink_c() for _ in range(2)]
        self.tb.connect(src, hold, single, sinks[0])
        self.tb.connect(hold, s2ss)
        for i in range(decim):
            self.tb.connect((s2ss, i), (several, i))
        self.tb.connect(several, sinks[1])
        self.tb.start()
        wait_for(self, lambda: single.nitems_read(0) >= CHUNK and
                 several.nitems_read(0) >= CHUNK // decim)
        for block in (single, several):
            block.set_channel(6)
        hold.opened.set()
        self.tb.wait()
        frames = CHUNK // decim
        expect = qa_pfb_channelizer_ccf.reference(x, taps, decim, decim)
        for form, sink in zip(("one input", "decim inputs"), sinks):
            data = np.array(sink.data())
            self.assertEqual(len(data), len(x) // decim, form)
            assert_same_channel(data[:frames], expect[:frames, 3], f"{form}, before")
            assert_same_channel(data[frames:], expect[frames:, 6], f"{form}, after")

    def test_010_synthesizer_streams_and_vectors(self):
        """The synthesizer (twox, every bin) on its 2M streams (interleaved
        on the host) and on one input of vectors, with new taps between
        chunks: the frame parity twox follows and the kept frames carry over
        from one device's chunk to the next's."""
        M = 8
        P = 2 * M
        old = qa_pfb_synthesizer_ccf.random_taps(self.rng, 5 * M + 3)
        new = qa_pfb_synthesizer_ccf.random_taps(self.rng, 4 * M)
        count = int(2.6 * CHUNK) // M  # frames: 2.6 chunks of output
        frames = never_zero(self.rng, count * P).reshape(count, P)
        before = CHUNK // M
        vector = self.several(wideband.pfb_synthesizer_ccf(M, old, True, DEVICES, True))
        streams = wideband.pfb_synthesizer_ccf(M, old, True, DEVICES)
        src = blocks.vector_source_c(frames.ravel().tolist(), False, P)
        hold = gate(before, vlen=P)
        v2ss = blocks.vector_to_streams(gr.sizeof_gr_complex, P)
        sinks = [blocks.vector_sink_c() for _ in range(2)]
        self.tb.connect(src, hold, vector, sinks[0])
        self.tb.connect(hold, v2ss)
        for i in range(P):
            self.tb.connect((v2ss, i), (streams, i))
        self.tb.connect(streams, sinks[1])
        self.tb.start()
        wait_for(self, lambda: vector.nitems_read(0) >= before and
                 streams.nitems_read(0) >= before)
        for block in (vector, streams):
            block.set_taps(new)
        hold.opened.set()
        self.tb.wait()
        identity = list(range(P))
        expect = qa_pfb_synthesizer_ccf.reference(
            frames, M, True, [(0, old, identity, 0), (before, new, identity, 0)])
        for form, sink in zip(("vectors", "streams"), sinks):
            data = np.array(sink.data())
            self.assertEqual(len(data), count * M, form)
            qa_pfb_synthesizer_ccf.assert_same_output(data, expect, form)

    def test_011_arb_resampler_refuses_several_devices(self):
        """The arbitrary resampler runs on one device: its phase at a split of
        the stream depends on all of the stream before it."""
        self.several(wideband.fft_filter_ccc(1, [1.0], DEVICES))
        with self.assertRaisesRegex(ValueError, "pfb_arb_resampler_ccf: runs on one "
                                                "device .* not 2"):
            wideband.pfb_arb_resampler_ccf(0.6144, [1.0] * 64, 32, DEVICES)


if __name__ == "__main__":
    gr_unittest.run(qa_multi_device_blocks)
