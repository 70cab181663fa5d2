#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
The GRC block definition grc/wideband_fft_filter_xxx.block.yml: grcc compiles
examples/fft_filter.grc (QT GUI) and examples/fft_filter_headless.grc with it;
the headless flowgraph runs, and its output is the in-tree
filter.fft_filter_ccf's on the same input, sample for sample to float
precision; the type parameter switches between fft_filter_ccc (complex taps)
and fft_filter_ccf (real taps); the block's asserts reject bad parameters.

Tolerances as in qa_fft_filter (both blocks compute in float32 by different
algorithms): every sample within 1e-5 of the largest output magnitude, the
whole stream within 1e-5 in relative L2 norm.
"""

import importlib.util

import numpy as np
from gnuradio import gr_unittest

from grc_qa_helpers import check_input_types, example, grc_platform, grc_testcase
from stream_qa_helpers import assert_same_stream

GUI_EXAMPLE = example("fft_filter")
HEADLESS_EXAMPLE = example("fft_filter_headless")
BLOCK_ID = "wideband_fft_filter_xxx"

ELEMENT_TOL = 1e-5
L2_TOL = 1e-5


def reference(x, taps, D):
    """y[m] = sum_k h[k] x[m*D - k], m = 0 .. len(x)//D - 1, x[n < 0] = 0, in
    float64."""
    x = np.asarray(x, np.complex128)
    h = np.asarray(taps, np.complex128)
    outputs = len(x) // D
    size = 1 << int(np.ceil(np.log2(len(x) + len(h))))
    full = np.fft.ifft(np.fft.fft(x, size) * np.fft.fft(h, size))
    return full[0:outputs * D:D]


class qa_fft_filter_grc(grc_testcase):

    def test_001_gui_example_compiles(self):
        with open(self.assert_compiles(GUI_EXAMPLE)) as f:
            code = f.read()
        self.assertIn("wideband.fft_filter_ccf(decimation, taps, device=device, "
                      "input_type='fc32')", code)
        # the taps are a variable (that the Cutoff slider changes): new values
        # reach the block
        self.assertIn("self.wideband_fft_filter_xxx_0.set_taps(self.taps)", code)

    def test_002_headless_example_matches_the_in_tree_filter(self):
        from gnuradio import blocks, filter
        script = self.assert_compiles(HEADLESS_EXAMPLE)
        spec = importlib.util.spec_from_file_location("fft_filter_headless", script)
        generated = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(generated)
        # more than two chunks of 2^19 input samples, the last one partial
        samples = 3 * (1 << 19) + 12345
        for D in (1, 4, 7):
            with self.subTest(decimation=D):
                # 1. the generated program, as a user runs it
                output = self.path(f"filtered{D}.c64")
                self.run_program(script, "--decimation", D, "--samples", samples,
                                 "--output", output)
                ours = np.fromfile(output, dtype=np.complex64)
                self.assertEqual(len(ours), samples // D)

                # 2. the same flowgraph in this process, with the in-tree
                # filter and a copy of the input added to it
                again = self.path(f"again{D}.c64")
                tb = generated.fft_filter_headless(decimation=D, samples=samples,
                                                   output=again)
                ours_block = tb.wideband_fft_filter_xxx_0
                taps = ours_block.taps()
                self.assertEqual(len(taps), len(tb.get_taps()))
                self.assertFloatTuplesAlmostEqual(taps, tb.get_taps(), 6)
                self.assertGreater(len(taps), 200)
                self.assertEqual(ours_block.decimation(), D)
                in_tree = filter.fft_filter_ccf(D, taps)
                input_sink = blocks.vector_sink_c()
                in_tree_sink = blocks.vector_sink_c()
                tb.connect(tb.blocks_head_0, input_sink)
                tb.connect(tb.blocks_head_0, in_tree, in_tree_sink)
                tb.run()
                x = np.array(input_sink.data(), np.complex64)
                theirs = np.array(in_tree_sink.data(), np.complex64)
                self.assertEqual(len(x), samples)

                # the program saw the same input (deterministic sources) and
                # computed the same output
                assert_same_stream(ours, np.fromfile(again, dtype=np.complex64),
                                   ELEMENT_TOL, L2_TOL, f"D={D}: program vs in-process run")
                # the in-tree block drops up to one FFT block of its own at the
                # end of a stream; everything it gives, ours matches
                self.assertLessEqual(len(theirs), len(ours))
                self.assertGreater(len(theirs), len(ours) - 8192)
                assert_same_stream(ours[:len(theirs)], theirs, ELEMENT_TOL, L2_TOL,
                                   f"D={D}: ours vs filter.fft_filter_ccf")
                assert_same_stream(ours, reference(x, taps, D), ELEMENT_TOL, L2_TOL,
                                   f"D={D}: ours vs float64 reference")

    def test_003_asserts_reject_bad_parameters(self):
        for parameters, message in ((dict(decimation="0"), "decimation >= 1"),
                                    (dict(decimation="-2"), "decimation >= 1"),
                                    (dict(taps="[]"), "len(taps) > 0"),
                                    (dict(type="ccc", taps="[]"), "len(taps) > 0")):
            with self.subTest(**parameters):
                self.assert_rejected(self.edited(HEADLESS_EXAMPLE, BLOCK_ID, **parameters),
                                     message)
        # real taps only for ccf
        self.assert_rejected(self.edited(GUI_EXAMPLE, BLOCK_ID, taps="[0.5, 1j, 0.5]"),
                             "taps")

    def test_004_type_selects_ccc_or_ccf(self):
        for parameters, make in (
                (dict(type="ccc", taps="[0.5, 1 + 1j, 0.5]"),
                 "wideband.fft_filter_ccc(decimation, [0.5, 1 + 1j, 0.5], device=device, "
                 "input_type='fc32')"),
                (dict(type="ccc", taps="taps"),  # real values are complex too
                 "wideband.fft_filter_ccc(decimation, taps, device=device, "
                 "input_type='fc32')"),
                (dict(type="ccf", taps="[1.0]"),
                 "wideband.fft_filter_ccf(decimation, [1.0], device=device, "
                 "input_type='fc32')")):
            with self.subTest(**parameters):
                with open(self.assert_compiles(self.edited(GUI_EXAMPLE, BLOCK_ID,
                                                           **parameters))) as f:
                    self.assertIn(make, f.read())

    def test_005_block_in_grc(self):
        # In GRC itself: one complex input, one complex output, taps of the
        # type's kind.
        platform = grc_platform()
        self.assertIn(BLOCK_ID, platform.blocks)
        for type_, taps, dtype, ok in (("ccf", "[0.25, 0.5, 0.25]", "real_vector", True),
                                       ("ccc", "[0.25j, 0.5, 0.25]", "complex_vector", True),
                                       ("ccc", "[0.25, 0.5, 0.25]", "complex_vector", True),
                                       ("ccf", "[0.25j, 0.5, 0.25]", "real_vector", False)):
            with self.subTest(type=type_, taps=taps):
                flowgraph = platform.make_flow_graph()
                block = flowgraph.new_block(BLOCK_ID)
                block.params["id"].set_value("filter_0")
                block.params["type"].set_value(type_)
                block.params["taps"].set_value(taps)
                block.params["decimation"].set_value("3")
                flowgraph.rewrite()
                flowgraph.validate()
                self.assertEqual(block.params["taps"].dtype, dtype)
                self.assertEqual(block.params["device"].get_value(), "")
                # (the ports are not connected here)
                errors = [e for e in block.get_error_messages() if "not connected" not in e]
                self.assertEqual(errors == [], ok, errors)
                self.assertEqual([p.dtype for p in block.sinks], ["complex"])
                self.assertEqual([p.dtype for p in block.sources], ["complex"])

    def test_006_input_type_sets_the_input_port_and_the_call(self):
        check_input_types(self, BLOCK_ID)


if __name__ == '__main__':
    gr_unittest.run(qa_fft_filter_grc)
