#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
The GRC block definition grc/wideband_fft_vcc.block.yml: grcc compiles
examples/fft_vcc_spectrum.grc (QT GUI) and examples/fft_vcc_spectrum_headless.grc
with it; the headless flowgraph runs, finds its tone, and its transform is the
in-tree fft.fft_vcc's on the same vectors; the block's asserts reject bad
parameters.
"""

import importlib.util

import numpy as np
from gnuradio import gr_unittest

from grc_qa_helpers import example, grc_testcase
from stream_qa_helpers import assert_same_stream

GUI_EXAMPLE = example("fft_vcc_spectrum")
HEADLESS_EXAMPLE = example("fft_vcc_spectrum_headless")
BLOCK_ID = "wideband_fft_vcc"


class qa_fft_vcc_grc(grc_testcase):

    def test_001_gui_example_compiles(self):
        with open(self.assert_compiles(GUI_EXAMPLE)) as f:
            code = f.read()
        # ours and the in-tree FFT on the same vectors, into one plot
        self.assertIn("wideband.fft_vcc(fft_size, True, window.blackmanharris(fft_size), "
                      "True, device=device)", code)
        self.assertIn("fft.fft_vcc(fft_size, True, window.blackmanharris(fft_size), True, 1)",
                      code)

    def test_002_headless_example_finds_the_tone_as_the_in_tree_fft(self):
        from gnuradio import blocks, fft
        program = self.assert_compiles(HEADLESS_EXAMPLE)
        fft_size, vectors = 256, 40
        output = self.path("spectrum.f32")
        # 1. the generated program, as a user runs it
        self.run_program(program, "--fft-size", fft_size, "--vectors", vectors,
                         "--output", output)
        spectra = np.fromfile(output, dtype=np.float32).reshape(-1, fft_size)
        self.assertEqual(len(spectra), vectors)
        # The tone at samp_rate/8, shifted: DC sits at fft_size/2.
        self.assertTrue(np.all(spectra.argmax(axis=1) == fft_size // 2 + fft_size // 8))

        # 2. the same flowgraph in this process, with the in-tree FFT beside ours
        spec = importlib.util.spec_from_file_location("fft_vcc_spectrum_headless", program)
        generated = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(generated)
        tb = generated.fft_vcc_spectrum_headless(fft_size=fft_size, vectors=vectors,
                                                 output=self.path("again.f32"))
        in_tree = fft.fft_vcc(fft_size, True, fft.window.blackmanharris(fft_size), True)
        ours_sink = blocks.vector_sink_c(fft_size)
        in_tree_sink = blocks.vector_sink_c(fft_size)
        tb.connect(tb.wideband_fft_vcc_0, ours_sink)
        tb.connect(tb.blocks_stream_to_vector_0, in_tree, in_tree_sink)
        tb.run()
        self.assertEqual(len(ours_sink.data()), fft_size * vectors)
        assert_same_stream(ours_sink.data(), in_tree_sink.data(), 1e-5, 1e-5,
                           "ours vs fft.fft_vcc")

    def test_003_asserts_reject_bad_parameters(self):
        for name, value, message in (
                ("window", "[1.0, 2.0, 3.0]", "len(window) == 0 or len(window) == fft_size"),
                ("fft_size", "0", "fft_size >= 1")):
            with self.subTest(parameter=name):
                self.assert_rejected(self.edited(HEADLESS_EXAMPLE, BLOCK_ID, **{name: value}),
                                     message)


if __name__ == '__main__':
    gr_unittest.run(qa_fft_vcc_grc)
