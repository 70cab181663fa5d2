#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
The GRC block definition grc/wideband_freq_xlating_fft_filter_ccc.block.yml:
grcc compiles a headless flowgraph built here (noise -> head ->
wideband_freq_xlating_fft_filter_ccc -> file sink, with the decimation and
the centre as command-line parameters and the taps a firdes variable); the
program runs, and its output is the float64 definition of the header and the
in-tree freq_xlating_fir_filter_ccc's on the same input (within that block's
float drift); the centre and the taps reach the block's setters when their
variables change; the message port "freq" is there; the block's asserts reject
bad parameters.

Tolerances as in qa_freq_xlating_fft_filter_ccc: relative L2 error <= 1e-4
over every window of 2048 outputs against the float64 definition.
"""

import importlib.util

import numpy as np
import yaml
from gnuradio import gr_unittest

from grc_qa_helpers import grc_platform, grc_testcase
from qa_freq_xlating_fft_filter_ccc import TOL, assert_close, reference, relative_l2, setting

BLOCK_ID = "wideband_freq_xlating_fft_filter_ccc"
NAME = "freq_xlating_headless"


def block(name, block_id, **parameters):
    return dict(name=name, id=block_id, parameters=parameters,
                states=dict(coordinate=[0, 0], rotation=0, state="enabled"))


def headless_flowgraph(path, **xlating):
    """Writes the test flowgraph; `xlating` overrides the block's parameters."""
    parameters = dict(decimation="decimation", taps="taps", center_freq="center",
                      samp_rate="samp_rate", device="''")
    parameters.update(xlating)
    flowgraph = dict(
        options=dict(parameters=dict(id=NAME, title="freq_xlating_fft_filter_ccc headless",
                                     output_language="python", generate_options="no_gui",
                                     run="True", run_options="run"),
                     states=dict(coordinate=[0, 0], rotation=0, state="enabled")),
        blocks=[
            block("decimation", "parameter", label="Decimation", short_id="",
                  type="intx", value="4", hide="none"),
            block("samples", "parameter", label="Samples", short_id="",
                  type="intx", value="300000", hide="none"),
            block("center", "parameter", label="Centre", short_id="",
                  type="eng_float", value="210e3", hide="none"),
            block("output", "parameter", label="Output", short_id="",
                  type="str", value="/dev/null", hide="none"),
            block("samp_rate", "variable", value="1e6"),
            block("taps", "variable",
                  value="firdes.low_pass(1.0, samp_rate, 0.4 * samp_rate / decimation, "
                        "samp_rate / 128, window.WIN_HAMMING)"),
            block("analog_noise_source_x_0", "analog_noise_source_x", type="complex",
                  noise_type="analog.GR_GAUSSIAN", amp="1", seed="0", maxoutbuf="0",
                  minoutbuf="0", affinity="", alias="", comment=""),
            block("blocks_head_0", "blocks_head", type="complex", num_items="samples",
                  vlen="1", maxoutbuf="0", minoutbuf="0", affinity="", alias="", comment=""),
            block("xlating", BLOCK_ID, **parameters),
            block("blocks_file_sink_0", "blocks_file_sink", type="complex", file="output",
                  vlen="1", unbuffered="False", append="False", affinity="", alias="",
                  comment=""),
        ],
        connections=[["analog_noise_source_x_0", "0", "blocks_head_0", "0"],
                     ["blocks_head_0", "0", "xlating", "0"],
                     ["xlating", "0", "blocks_file_sink_0", "0"]],
        metadata=dict(file_format=1))
    with open(path, "w") as f:
        yaml.safe_dump(flowgraph, f)
    return path


class qa_freq_xlating_fft_filter_ccc_grc(grc_testcase):

    def flowgraph(self, name="freq_xlating_headless.grc", **xlating):
        return headless_flowgraph(self.path(name), **xlating)

    def test_001_generated_code(self):
        with open(self.assert_compiles(self.flowgraph())) as f:
            code = f.read()
        self.assertIn("wideband.freq_xlating_fft_filter_ccc(decimation, taps, center, "
                      "samp_rate,", code)
        self.assertIn("device=''", code)
        # a new centre or new taps reach the block
        self.assertIn("self.xlating.set_center_freq(self.center)", code)
        self.assertIn("self.xlating.set_taps(self.taps)", code)

    def test_002_program_matches_the_definition_and_the_in_tree_block(self):
        from gnuradio import blocks, filter
        program = self.assert_compiles(self.flowgraph())
        spec = importlib.util.spec_from_file_location(NAME, program)
        generated = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(generated)
        # more than two chunks of 2^19 input samples, the last one partial
        samples = 2 * (1 << 19) + 4321
        for D, center in ((1, -123.4e3), (5, 431e3)):
            with self.subTest(decimation=D, center=center):
                # 1. the generated program, as a user runs it
                output = self.path(f"xlated{D}.c64")
                self.run_program(program, "--decimation", D, "--samples", samples,
                                 "--center", center, "--output", output)
                ours = np.fromfile(output, dtype=np.complex64)
                self.assertEqual(len(ours), samples // D)

                # 2. the same flowgraph in this process, with the in-tree FIR
                # block and a copy of the input added
                again = self.path(f"again{D}.c64")
                tb = getattr(generated, NAME)(decimation=D, samples=samples, center=center,
                                              output=again)
                block = tb.xlating
                taps = list(block.taps())
                self.assertEqual(len(taps), len(tb.get_taps()))
                self.assertGreater(len(taps), 100)
                self.assertEqual(block.decimation(), D)
                self.assertEqual(block.center_freq(), center)
                self.assertEqual(block.sampling_freq(), 1e6)
                in_tree = filter.freq_xlating_fir_filter_ccc(D, taps, center, 1e6)
                input_sink = blocks.vector_sink_c()
                in_tree_sink = blocks.vector_sink_c()
                tb.connect(tb.blocks_head_0, input_sink)
                tb.connect(tb.blocks_head_0, in_tree, in_tree_sink)
                tb.run()
                x = np.array(input_sink.data(), np.complex64)
                theirs = np.array(in_tree_sink.data(), np.complex128)
                self.assertEqual(len(x), samples)

                # the program saw the same input (a seeded source) and gave the
                # same output
                assert_close(self, ours, np.fromfile(again, dtype=np.complex64),
                             f"D={D}: program vs in-process run", tol=1e-6)
                ref = reference(x, D, 1e6, [setting(0, taps, center)])
                assert_close(self, ours, ref, f"D={D}: ours vs float64 definition")
                self.assertEqual(len(theirs), len(ours))
                # the in-tree block's float rotation drifts along the stream
                # (to 6e-2 by 10^6 samples at 0.43 fs): compare the first
                # 2^17 input samples' outputs, where it is within 1.5e-2
                first = (1 << 17) // D
                their_error = relative_l2(theirs[:first], ref[:first])
                self.assertLess(their_error, 3e-2, "the in-tree block vs the definition")
                self.assertLessEqual(relative_l2(ours[:first], theirs[:first]),
                                     their_error + TOL,
                                     f"D={D}: ours vs freq_xlating_fir_filter_ccc")

    def test_003_setters_through_the_variables(self):
        # the generated setters: a new centre, new taps (a new decimation
        # redesigns the taps variable)
        program = self.assert_compiles(self.flowgraph())
        spec = importlib.util.spec_from_file_location(NAME + "_setters", program)
        generated = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(generated)
        tb = getattr(generated, NAME)(decimation=4, samples=1000, center=0.0,
                                      output="/dev/null")
        tb.set_center(-250e3)
        self.assertEqual(tb.xlating.center_freq(), -250e3)
        tb.set_samp_rate(1e6)  # unchanged rate, the taps variable is recomputed
        self.assertEqual(len(tb.xlating.taps()), len(tb.get_taps()))

    def test_004_asserts_reject_bad_parameters(self):
        for parameters, message in ((dict(decimation="0"), "decimation >= 1"),
                                    (dict(taps="[]"), "len(taps) > 0"),
                                    (dict(samp_rate="0"), "samp_rate > 0"),
                                    (dict(center_freq="0.6e6"),
                                     "abs(center_freq) <= samp_rate / 2"),
                                    (dict(center_freq="-500001"),
                                     "abs(center_freq) <= samp_rate / 2")):
            with self.subTest(**parameters):
                self.assert_rejected(self.flowgraph("bad.grc", **parameters), message)
        # the band edges are allowed
        for center in ("0.5e6", "-0.5e6"):
            self.assert_compiles(self.flowgraph("edge.grc", center_freq=center))

    def test_005_block_in_grc(self):
        # In GRC itself: one complex input, an optional "freq" message input,
        # one complex output, complex taps (real ones are complex too).
        platform = grc_platform()
        self.assertIn(BLOCK_ID, platform.blocks)
        for taps, center, ok in (("[0.25, 0.5j, 0.25]", "0", True),
                                 ("[0.25, 0.5, 0.25]", "-16000", True),
                                 ("firdes.low_pass(1, samp_rate, 1000, 500)", "1000", True),
                                 ("[0.25, 0.5, 0.25]", "16001", False),
                                 ("[]", "0", False)):
            with self.subTest(taps=taps, center=center):
                flowgraph = platform.make_flow_graph()
                variable = flowgraph.new_block("variable")
                variable.params["id"].set_value("samp_rate")
                variable.params["value"].set_value("32000")
                block = flowgraph.new_block(BLOCK_ID)
                block.params["id"].set_value("xlating_0")
                block.params["taps"].set_value(taps)
                block.params["center_freq"].set_value(center)
                block.params["decimation"].set_value("3")
                flowgraph.rewrite()
                flowgraph.validate()
                self.assertEqual(block.params["taps"].dtype, "complex_vector")
                self.assertEqual(block.params["samp_rate"].get_value(), "samp_rate")
                self.assertEqual(block.params["device"].get_value(), "")
                errors = [e for e in block.get_error_messages() if "not connected" not in e]
                self.assertEqual(errors == [], ok, errors)
                self.assertEqual([(p.dtype, p.key) for p in block.sinks],
                                 [("complex", "0"), ("message", "freq")])
                self.assertTrue(block.sinks[1].optional)
                self.assertEqual([p.dtype for p in block.sources], ["complex"])


if __name__ == '__main__':
    gr_unittest.run(qa_freq_xlating_fft_filter_ccc_grc)
