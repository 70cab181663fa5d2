#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
The buffers on gr-wideband's edges (opencl_buffer): chains of gr-wideband
blocks pass device memory, host edges pinned memory, and every flowgraph gives
the same samples as the same flowgraph built from GNU Radio's in-tree blocks.

Each test checks where the data of the edges lives (wideband.input_memory /
output_memory) and compares every output sample with the in-tree flowgraph's
(assert_same_stream, the blocks' own QA tolerances: the blocks compute in
float32 by other algorithms). Inputs are random and never zero; the sources
pass them in random pieces. Runs with small max_noutput_items make the
single-mapped buffers wrap and hand data around their ends many times.
"""

import numpy as np
from gnuradio import blocks, fft, filter, gr, gr_unittest
from gnuradio.filter import pfb
from gnuradio import wideband
from stream_qa_helpers import assert_same_stream, never_zero, random_chunks

ELEMENT_TOL = 2e-5
L2_TOL = 1e-5


def run_and_collect(tb, sinks, max_noutput_items=None):
    if max_noutput_items:
        tb.run(max_noutput_items)
    else:
        tb.run()
    return [np.array(s.data()) for s in sinks]


class qa_opencl_buffers(gr_unittest.TestCase):

    def setUp(self):
        self.rng = np.random.default_rng(6)

    def taps(self, count, complex_taps):
        t = never_zero(self.rng, count) / count
        return t if complex_taps else t.real.astype(np.float32)

    def chain(self, ours, x, h1, h2, ptaps, m, max_noutput_items=None):
        """source -> filter_ccc -> filter_ccf -> channelizer (vectors) -> fft_vcc,
        plus a host sink on the first filter (a writer with device and host
        readers). Returns the outputs and, for ours, the edges' memory."""
        tb = gr.top_block()
        src = blocks.vector_source_c(x)
        chunks = random_chunks(5000, 7)
        spectra = blocks.vector_sink_c(m)
        filtered = blocks.vector_sink_c()
        if ours:
            a = wideband.fft_filter_ccc(1, h1)
            b = wideband.fft_filter_ccf(1, h2)
            ch = wideband.pfb_channelizer_ccf(m, ptaps, 1.0, [], "", 100, True)
            f = wideband.fft_vcc(m, True, [], False)
            tb.connect(src, chunks, a, b, ch, f, spectra)
        else:
            a = filter.fft_filter_ccc(1, h1)
            b = filter.fft_filter_ccf(1, h2)
            ch = pfb.channelizer_ccf(m, ptaps, 1.0)
            to_vector = blocks.streams_to_vector(gr.sizeof_gr_complex, m)
            f = fft.fft_vcc(m, True, [], False)
            tb.connect(src, chunks, a, b, ch)
            for c in range(m):
                tb.connect((ch, c), (to_vector, c))
            tb.connect(to_vector, f, spectra)
        tb.connect(a, filtered)
        out = run_and_collect(tb, [spectra, filtered], max_noutput_items)
        edges = None
        if ours:
            edges = [wideband.input_memory(a), wideband.output_memory(a),
                     wideband.output_memory(b), wideband.output_memory(ch),
                     wideband.output_memory(f)]
        return out, edges

    def test_001_chain_matches_in_tree_chain(self):
        m = 8
        x = never_zero(self.rng, 300000)
        h1, h2 = self.taps(41, True), self.taps(23, False)
        ptaps = filter.firdes.low_pass_2(1, m, 0.5, 0.2, 60)
        (ref_spectra, ref_filtered), _ = self.chain(False, x, h1, h2, ptaps, m)
        for limit in (None, 3000):
            with self.subTest(max_noutput_items=limit):
                (spectra, filtered), edges = self.chain(True, x, h1, h2, ptaps, m, limit)
                # a reads the host source's own buffer; a has a host reader
                # too: pinned; b -> ch -> f are device edges.
                self.assertEqual(edges, ["host", "pinned host", "device",
                                         "device", "pinned host"])
                self.assertEqual(len(filtered), len(x))
                self.assertEqual(len(spectra), len(x) // m * m)
                n = min(len(filtered), len(ref_filtered))
                assert_same_stream(filtered[:n], ref_filtered[:n], ELEMENT_TOL, L2_TOL,
                                   "host reader of the first filter")
                n = min(len(spectra), len(ref_spectra))
                self.assertGreater(n, len(x) - 2 * 4096)
                assert_same_stream(spectra[:n], ref_spectra[:n], ELEMENT_TOL, L2_TOL,
                                   "end of the device chain")

    def test_002_host_output_to_several_wideband_blocks(self):
        """One host output, two gr-wideband readers and a host reader, connected
        in either order: all read GNU Radio's buffer of the host block."""
        x = never_zero(self.rng, 200000)
        h1, h2 = self.taps(17, True), self.taps(33, True)
        ref = {id(h): np.convolve(x.astype(np.complex128), h)[:len(x)] for h in (h1, h2)}
        for host_first in (True, False):
            with self.subTest(host_first=host_first):
                tb = gr.top_block()
                src = blocks.vector_source_c(x)
                chunks = random_chunks(7000, 8)
                a, b = wideband.fft_filter_ccc(1, h1), wideband.fft_filter_ccc(1, h2)
                sa, sb, host = (blocks.vector_sink_c() for _ in range(3))
                tb.connect(src, chunks)
                if host_first:
                    tb.connect(chunks, host)
                tb.connect(chunks, a, sa)
                tb.connect(chunks, b, sb)
                if not host_first:
                    tb.connect(chunks, host)
                tb.run()
                self.assertEqual([wideband.input_memory(a), wideband.input_memory(b)],
                                 ["host"] * 2)
                np.testing.assert_array_equal(np.array(host.data()), x)
                for sink, h in ((sa, h1), (sb, h2)):
                    assert_same_stream(np.array(sink.data()), ref[id(h)],
                                       ELEMENT_TOL, L2_TOL, "reader")

    def test_003_host_writer_with_several_outputs(self):
        """A host block with two outputs of one size, one of them read by a
        gr-wideband block and a host block."""
        x = never_zero(self.rng, 2 * 60000)
        h = self.taps(29, True)
        tb = gr.top_block()
        src = blocks.vector_source_c(x)
        split = blocks.deinterleave(gr.sizeof_gr_complex)
        ours = wideband.fft_filter_ccc(1, h)
        even, odd, filtered = (blocks.vector_sink_c() for _ in range(3))
        tb.connect(src, split)
        tb.connect((split, 0), even)
        tb.connect((split, 1), odd)
        tb.connect((split, 1), ours, filtered)
        tb.run()
        self.assertEqual([wideband.output_memory(split, 0), wideband.output_memory(split, 1)],
                         ["host", "host"])
        np.testing.assert_array_equal(np.array(even.data()), x[0::2])
        np.testing.assert_array_equal(np.array(odd.data()), x[1::2])
        ref = np.convolve(x[1::2].astype(np.complex128), h)[:len(x) // 2]
        assert_same_stream(np.array(filtered.data()), ref, ELEMENT_TOL, L2_TOL, "filtered")

    def test_004_host_reader_with_history(self):
        """An in-tree FIR (history = taps) reads our pinned output."""
        x = never_zero(self.rng, 120000)
        h1, h2 = self.taps(19, True), self.taps(31, True)
        tb = gr.top_block()
        ours = wideband.fft_filter_ccc(1, h1)
        fir = filter.fir_filter_ccc(1, h2)
        sink = blocks.vector_sink_c()
        src, chunks = blocks.vector_source_c(x), random_chunks(3000, 9)
        tb.connect(src, chunks, ours, fir, sink)
        tb.run(2000)
        self.assertEqual(wideband.output_memory(ours), "pinned host")
        ref = np.convolve(np.convolve(x.astype(np.complex128), h1)[:len(x)], h2)[:len(x)]
        assert_same_stream(np.array(sink.data()), ref, ELEMENT_TOL, L2_TOL, "fir output")

    def test_005_channel_streams_on_the_device(self):
        """Channelizer stream outputs read by gr-wideband filters: device edges,
        each channel copied out of the chunk's channel-major rows."""
        m = 4
        x = never_zero(self.rng, 4 * 40000)
        ptaps = filter.firdes.low_pass_2(1, m, 0.5, 0.2, 60)
        h = self.taps(9, False)
        outputs = []
        for ours in (True, False):
            tb = gr.top_block()
            src = blocks.vector_source_c(x)
            ch = (wideband.pfb_channelizer_ccf(m, ptaps, 1.0) if ours
                  else pfb.channelizer_ccf(m, ptaps, 1.0))
            tb.connect(src, ch)
            sinks, filters = [], []
            for c in range(m):
                f = (wideband.fft_filter_ccf(1, h) if ours else filter.fft_filter_ccf(1, h))
                sinks.append(blocks.vector_sink_c())
                filters.append(f)
                tb.connect((ch, c), f, sinks[-1])
            tb.run()
            if ours:
                self.assertEqual([wideband.output_memory(ch, c) for c in range(m)],
                                 ["device"] * m)
                self.assertEqual(wideband.output_memory(filters[0]), "pinned host")
            outputs.append([np.array(s.data()) for s in sinks])
        for c in range(m):
            n = min(len(outputs[0][c]), len(outputs[1][c]))
            self.assertGreater(n, len(x) // m - 1024)
            assert_same_stream(outputs[0][c][:n], outputs[1][c][:n], ELEMENT_TOL, L2_TOL,
                               f"channel {c}")

    def test_006_blocks_in_place_between_device_edges(self):
        """filter -> filter -> channelizer (vectors) -> fft_vcc, every edge between
        them on the device: the middle filter and the channelizer read their
        input where the upstream block wrote it and write straight into the
        downstream buffer (run in place; core's qa_in_place covers set_taps
        there). In place a filter works in whole FFT blocks (as the in-tree block), so
        a finite stream's last samples short of a block make no output."""
        m = 8
        x = never_zero(self.rng, 400000)
        h1, h2 = self.taps(41, True), self.taps(300, False)
        ptaps = filter.firdes.low_pass_2(1, m, 0.5, 0.2, 60)
        outputs = []
        for ours in (True, False):
            tb = gr.top_block()
            src = blocks.vector_source_c(x)
            spectra = blocks.vector_sink_c(m)
            if ours:
                a = wideband.fft_filter_ccc(1, h1)
                b = wideband.fft_filter_ccf(1, h2)
                ch = wideband.pfb_channelizer_ccf(m, ptaps, 1.0, [], "", 100, True)
                f = wideband.fft_vcc(m, True, [], False)
                tb.connect(src, a, b, ch, f, spectra)
            else:
                a = filter.fft_filter_ccc(1, h1)
                b = filter.fft_filter_ccf(1, h2)
                ch = pfb.channelizer_ccf(m, ptaps, 1.0)
                to_vector = blocks.streams_to_vector(gr.sizeof_gr_complex, m)
                f = fft.fft_vcc(m, True, [], False)
                tb.connect(src, a, b, ch)
                for c in range(m):
                    tb.connect((ch, c), (to_vector, c))
                tb.connect(to_vector, f, spectra)
            tb.run()
            if ours:
                self.assertEqual([wideband.input_memory(b), wideband.output_memory(b),
                                  wideband.output_memory(ch), wideband.output_memory(f)],
                                 ["device", "device", "device", "pinned host"])
            outputs.append(np.array(spectra.data()))
        # In place the middle filter leaves the stream's last partial FFT block
        # (in the pipeline it would filter it): the in-place path ran.
        self.assertLess(len(outputs[0]), len(x) // m * m)
        n = min(len(outputs[0]), len(outputs[1]))
        self.assertGreater(n, len(x) - 2 * 8192)
        assert_same_stream(outputs[0][:n], outputs[1][:n], ELEMENT_TOL, L2_TOL,
                           "end of the device chain")

    def test_007_in_place_filter_given_less_room_than_a_block(self):
        """A filter between device edges whose FFT block has more outputs than
        GNU Radio gives it room for (max_noutput_items) goes on through its
        pipeline: every output, none lost, no stall."""
        x = never_zero(self.rng, 200000)
        h1, h2 = self.taps(17, True), self.taps(41, True)
        tb = gr.top_block()
        src = blocks.vector_source_c(x)
        a = wideband.fft_filter_ccc(1, h1)
        b = wideband.fft_filter_ccc(1, h2)
        c = wideband.fft_filter_ccc(1, [1.0 + 0j])
        b.set_max_noutput_items(512)  # its FFT blocks hold some 4000 outputs
        sink = blocks.vector_sink_c()
        tb.connect(src, a, b, c, sink)
        tb.run()
        self.assertEqual([wideband.input_memory(b), wideband.output_memory(b)],
                         ["device", "device"])
        y = np.array(sink.data())
        ref = np.convolve(np.convolve(x.astype(np.complex128), h1)[:len(x)], h2)[:len(x)]
        self.assertGreater(len(y), len(x) - 8192)
        assert_same_stream(y, ref[:len(y)], ELEMENT_TOL, L2_TOL, "filter given little room")

    def test_009_real_filters_in_place_between_device_edges(self):
        """fft_filter_fff -> fft_filter_fff (decimation 3) -> fft_filter_fff:
        the middle filter reads real samples where the first wrote them and
        writes into the last one's buffer (in place), as the complex ones do."""
        x = never_zero(self.rng, 300000).real.astype(np.float32)
        h1, h2, h3 = (self.taps(n, False) for n in (33, 120, 9))
        outputs = []
        for ours in (True, False):
            tb = gr.top_block()
            src = blocks.vector_source_f(x)
            sink = blocks.vector_sink_f()
            make = wideband.fft_filter_fff if ours else filter.fft_filter_fff
            a, b, c = make(1, h1), make(3, h2), make(1, h3)
            tb.connect(src, a, b, c, sink)
            tb.run()
            if ours:
                self.assertEqual([wideband.input_memory(b), wideband.output_memory(b)],
                                 ["device", "device"])
            outputs.append(np.array(sink.data()))
        # In place the middle filter leaves the stream's last partial FFT block.
        self.assertLess(len(outputs[0]), len(outputs[1]))
        n = len(outputs[0])
        self.assertGreater(n, len(x) // 3 - 8192)
        assert_same_stream(outputs[0], outputs[1][:n], ELEMENT_TOL, L2_TOL,
                           "end of the real device chain")

    def test_008_edge_memory_errors(self):
        block = wideband.fft_filter_ccc(1, [1.0 + 0j])
        with self.assertRaisesRegex(ValueError, "not in a started flowgraph"):
            wideband.input_memory(block)
        tb = gr.top_block()
        tb.connect(blocks.vector_source_c([1j] * 100), block, blocks.null_sink(8))
        tb.run()
        with self.assertRaisesRegex(ValueError, "port 3 does not exist"):
            wideband.output_memory(block, 3)


if __name__ == "__main__":
    gr_unittest.run(qa_opencl_buffers)
