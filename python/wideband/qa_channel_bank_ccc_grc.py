#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
The GRC block definition grc/wideband_channel_bank_ccc.block.yml: grcc
compiles a headless flowgraph built here (noise -> head ->
wideband_channel_bank_ccc, three channels at their own decimations -> one file
sink each, the centres and the number of samples as command-line parameters,
the taps a firdes variable for all channels); the program runs, and each
output is the float64 definition (qa_freq_xlating_fft_filter_ccc's reference,
relative L2 <= 1e-4 over every window of 2048 outputs); a change of the
centres' or the taps' variable reaches the block's per-channel setters; the
vector output and taps per channel; the "freq" message port is there; the
block's asserts reject bad parameters.
"""

import importlib.util

import numpy as np
import yaml
from gnuradio import gr_unittest

from grc_qa_helpers import check_input_types, grc_platform, grc_testcase
from qa_freq_xlating_fft_filter_ccc import assert_close, reference, setting

BLOCK_ID = "wideband_channel_bank_ccc"
NAME = "channel_bank_headless"
DECIMATIONS = [4, 10, 100]


def block(name, block_id, **parameters):
    return dict(name=name, id=block_id, parameters=parameters,
                states=dict(coordinate=[0, 0], rotation=0, state="enabled"))


def file_sink(name, path_variable, vlen="1"):
    return block(name, "blocks_file_sink", type="complex", file=path_variable, vlen=vlen,
                 unbuffered="False", append="False", affinity="", alias="", comment="")


def headless_flowgraph(path, vector_output=False, **bank):
    """Writes the test flowgraph; `bank` overrides the block's parameters."""
    parameters = dict(samp_rate="samp_rate", center_freqs="[center0, center1, center2]",
                      decimations=str(DECIMATIONS), taps="taps", device="''",
                      vector_output="True" if vector_output else "False")
    parameters.update(bank)
    sinks = ([file_sink("sink", "output0", "3")] if vector_output else
             [file_sink(f"sink{i}", f"output{i}") for i in range(3)])
    flowgraph = dict(
        options=dict(parameters=dict(id=NAME, title="channel_bank_ccc headless",
                                     output_language="python", generate_options="no_gui",
                                     run="True", run_options="run"),
                     states=dict(coordinate=[0, 0], rotation=0, state="enabled")),
        blocks=[
            block("samples", "parameter", label="Samples", short_id="",
                  type="intx", value="300000", hide="none"),
            block("center0", "parameter", label="Centre 0", short_id="",
                  type="eng_float", value="210e3", hide="none"),
            block("center1", "parameter", label="Centre 1", short_id="",
                  type="eng_float", value="-333e3", hide="none"),
            block("center2", "parameter", label="Centre 2", short_id="",
                  type="eng_float", value="0", hide="none"),
            block("samp_rate", "variable", value="1e6"),
            block("taps", "variable",
                  value="firdes.low_pass(1.0, samp_rate, 4e3, 2e3, window.WIN_BLACKMAN_hARRIS)"),
            block("analog_noise_source_x_0", "analog_noise_source_x", type="complex",
                  noise_type="analog.GR_GAUSSIAN", amp="1", seed="0", maxoutbuf="0",
                  minoutbuf="0", affinity="", alias="", comment=""),
            block("blocks_head_0", "blocks_head", type="complex", num_items="samples",
                  vlen="1", maxoutbuf="0", minoutbuf="0", affinity="", alias="", comment=""),
            block("bank", BLOCK_ID, **parameters),
        ] + [block(f"output{i}", "parameter", label=f"Output {i}", short_id="", type="str",
                   value="/dev/null", hide="none") for i in range(3)] + sinks,
        connections=[["analog_noise_source_x_0", "0", "blocks_head_0", "0"],
                     ["blocks_head_0", "0", "bank", "0"]] +
                    [["bank", str(i), s["name"], "0"] for i, s in enumerate(sinks)],
        metadata=dict(file_format=1))
    with open(path, "w") as f:
        yaml.safe_dump(flowgraph, f)
    return path


class qa_channel_bank_ccc_grc(grc_testcase):

    def flowgraph(self, name="channel_bank_headless.grc", **bank):
        return headless_flowgraph(self.path(name), **bank)

    def generated(self, program, suffix):
        spec = importlib.util.spec_from_file_location(NAME + suffix, program)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return getattr(module, NAME)

    def test_001_generated_code(self):
        with open(self.assert_compiles(self.flowgraph())) as f:
            code = f.read()
        self.assertIn("wideband.channel_bank_ccc(samp_rate, [center0, center1, center2], "
                      f"{DECIMATIONS}, taps, device='', vector_output=False, input_type='fc32')",
                      code)
        # new centres or taps reach the block's per-channel setters
        self.assertIn("self.bank.set_center_freq(_c, _f) for _c, _f in "
                      "enumerate([self.center0, self.center1, self.center2])", code)
        self.assertIn("self.bank.set_taps(_c, _t)", code)

    def test_002_program_matches_the_definition(self):
        from gnuradio import blocks
        program = self.assert_compiles(self.flowgraph())
        samples = (1 << 19) + 4321
        centers = [-123.4e3, 431e3, 0.5e6]
        # 1. the generated program, as a user runs it
        outputs = [self.path(f"channel{i}.c64") for i in range(3)]
        args = ["--samples", samples]
        for i in range(3):
            args += [f"--center{i}", centers[i], f"--output{i}", outputs[i]]
        self.run_program(program, *args)
        ours = [np.fromfile(path, dtype=np.complex64) for path in outputs]
        # 2. the same flowgraph in this process, with a copy of the input
        tb = self.generated(program, "_again")(samples=samples, center0=centers[0],
                                                center1=centers[1], center2=centers[2])
        taps = list(tb.bank.taps(0))
        self.assertEqual(len(taps), len(tb.get_taps()))
        self.assertEqual(list(tb.bank.center_freqs()), centers)
        self.assertEqual(list(tb.bank.decimations()), DECIMATIONS)
        input_sink = blocks.vector_sink_c()
        again = [blocks.vector_sink_c() for _ in range(3)]
        tb.connect(tb.blocks_head_0, input_sink)
        for i, sink in enumerate(again):
            tb.connect((tb.bank, i), sink)
        tb.run()
        x = np.array(input_sink.data(), np.complex64)
        self.assertEqual(len(x), samples)
        for i, D in enumerate(DECIMATIONS):
            with self.subTest(output=i, decimation=D):
                self.assertEqual(len(ours[i]), samples // D)
                # the program saw the same input (a seeded source)
                assert_close(self, ours[i], again[i].data(), f"output {i}: program vs "
                             "in-process run", tol=1e-6)
                ref = reference(x, D, 1e6, [setting(0, taps, centers[i])])
                assert_close(self, ours[i], ref, f"output {i}: vs the float64 definition")

    def test_003_setters_through_the_variables(self):
        program = self.assert_compiles(self.flowgraph())
        tb = self.generated(program, "_setters")(samples=1000, center0=0.0, center1=0.0,
                                                 center2=0.0)
        tb.set_center1(-250e3)
        self.assertEqual(list(tb.bank.center_freqs()), [0.0, -250e3, 0.0])
        tb.set_samp_rate(1e6)  # unchanged rate, the taps variable is recomputed
        self.assertEqual([len(tb.bank.taps(i)) for i in range(3)], [len(tb.get_taps())] * 3)
        # taps per channel, through a variable
        per_channel = self.flowgraph("per_channel.grc", taps="[[1.0, 0.5], [0.25j], [1, 2, 3]]")
        tb = self.generated(self.assert_compiles(per_channel), "_per_channel")(
            samples=1000, center0=0.0, center1=0.0, center2=0.0)
        self.assertEqual([list(tb.bank.taps(i)) for i in range(3)],
                         [[1.0, 0.5], [0.25j], [1, 2, 3]])

    def test_004_vector_output(self):
        # one decimation, one vector output of the three channels
        from gnuradio import blocks
        flowgraph = headless_flowgraph(self.path("vector.grc"), vector_output=True,
                                       decimations="[10]")
        program = self.assert_compiles(flowgraph)
        samples = 100003
        output = self.path("vectors.c64")
        self.run_program(program, "--samples", samples, "--center0", 1e3, "--center1", -2e3,
                         "--center2", 3e3, "--output0", output)
        frames = np.fromfile(output, dtype=np.complex64).reshape(-1, 3)
        self.assertEqual(frames.shape, (samples // 10, 3))
        tb = self.generated(program, "_vector")(samples=samples, center0=1e3, center1=-2e3,
                                                center2=3e3)
        input_sink = blocks.vector_sink_c()
        tb.connect(tb.blocks_head_0, input_sink)
        tb.run()
        x = np.array(input_sink.data(), np.complex64)
        taps = list(tb.bank.taps(0))
        for i, f in enumerate((1e3, -2e3, 3e3)):
            assert_close(self, frames[:, i], reference(x, 10, 1e6, [setting(0, taps, f)]),
                         f"channel {i} of the vectors")

    def test_005_asserts_reject_bad_parameters(self):
        for parameters, message in (
                (dict(center_freqs="[]"), "len(center_freqs) >= 1"),
                (dict(samp_rate="0"), "samp_rate > 0"),
                (dict(center_freqs="[0, 0.6e6, 0]"), "abs(f) <= samp_rate / 2"),
                (dict(decimations="[1, 2]"), "len(decimations) in (1, len(center_freqs))"),
                (dict(decimations="[1, 0, 2]"), "min(decimations) >= 1"),
                (dict(taps="[]"), "len(taps) > 0"),
                (dict(taps="[[1.0], []]"), "len(taps) > 0"),
                (dict(taps="[[1.0], [2.0]]"), "len(taps) in (1, len(center_freqs))")):
            with self.subTest(**parameters):
                self.assert_rejected(self.flowgraph("bad.grc", **parameters), message)
        self.assert_rejected(headless_flowgraph(self.path("bad_vector.grc"), vector_output=True),
                             "len(set(decimations)) == 1")
        # the band edges, one decimation and one tap list for all are allowed
        self.assert_compiles(self.flowgraph("edge.grc", center_freqs="[0.5e6, -0.5e6, 0]",
                                            decimations="[7]", taps="[1.0]"))

    def test_006_block_in_grc(self):
        # In GRC itself: one complex input, an optional "freq" message input,
        # one complex output per centre (or one vector output).
        platform = grc_platform()
        self.assertIn(BLOCK_ID, platform.blocks)
        for centers, vector_output, ok in (("[0]", "False", True),
                                           ("[1000, -2000, 3000, 0]", "False", True),
                                           ("[1000, -2000, 3000, 0]", "True", True),
                                           ("[16001]", "False", False)):
            with self.subTest(centers=centers, vector_output=vector_output):
                flowgraph = platform.make_flow_graph()
                variable = flowgraph.new_block("variable")
                variable.params["id"].set_value("samp_rate")
                variable.params["value"].set_value("32000")
                bank = flowgraph.new_block(BLOCK_ID)
                bank.params["id"].set_value("bank_0")
                bank.params["center_freqs"].set_value(centers)
                bank.params["vector_output"].set_value(vector_output)
                flowgraph.rewrite()
                flowgraph.validate()
                self.assertEqual(bank.params["samp_rate"].get_value(), "samp_rate")
                self.assertEqual(bank.params["device"].get_value(), "")
                errors = [e for e in bank.get_error_messages() if "not connected" not in e]
                self.assertEqual(errors == [], ok, errors)
                self.assertEqual([(p.dtype, p.key) for p in bank.sinks],
                                 [("complex", "0"), ("message", "freq")])
                self.assertTrue(bank.sinks[1].optional)
                if ok:
                    count = len(eval(centers))
                    if vector_output == "True":
                        self.assertEqual([(p.dtype, p.vlen) for p in bank.sources],
                                         [("complex", count)])
                    else:
                        self.assertEqual([(p.dtype, p.vlen) for p in bank.sources],
                                         [("complex", 1)] * count)

    def test_007_input_type_sets_the_input_port_and_the_call(self):
        check_input_types(self, BLOCK_ID)


if __name__ == '__main__':
    gr_unittest.run(qa_channel_bank_ccc_grc)
