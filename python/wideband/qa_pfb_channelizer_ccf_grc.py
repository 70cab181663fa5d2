#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
The GRC block definition grc/wideband_pfb_channelizer_ccf.block.yml: grcc
compiles examples/pfb_channelizer.grc (QT GUI) and
examples/pfb_channelizer_headless.grc with it; the headless flowgraph runs and
each of its tones lands in the expected channel with the expected power; the
block's outputs follow the channel map and output mode; its asserts reject
bad parameters.
"""

import os

import numpy as np
from gnuradio import gr_unittest

from grc_qa_helpers import check_input_types, example, grc_platform, grc_testcase, load, variable

GUI_EXAMPLE = example("pfb_channelizer")
HEADLESS_EXAMPLE = example("pfb_channelizer_headless")
BLOCK_ID = "wideband_pfb_channelizer_ccf"


class qa_pfb_channelizer_ccf_grc(grc_testcase):

    def test_001_gui_example_compiles(self):
        with open(self.assert_compiles(GUI_EXAMPLE)) as f:
            code = f.read()
        self.assertIn("wideband.pfb_channelizer_ccf(", code)
        self.assertIn("input_type='fc32')", code)
        # the map is a variable: changing it reaches the block
        self.assertIn("self.wideband_pfb_channelizer_ccf_0.set_channel_map(self.channel_map)",
                      code)

    def test_002_headless_example_puts_each_tone_in_its_channel(self):
        program = self.assert_compiles(HEADLESS_EXAMPLE)
        flowgraph = load(HEADLESS_EXAMPLE)
        carriers = variable(flowgraph, "carriers")
        amplitudes = variable(flowgraph, "amplitudes")
        for numchans in (16, 40):
            with self.subTest(numchans=numchans):
                output = self.path(f"power{numchans}.f32")
                frames = 400
                self.run_program(program, "--numchans", numchans,
                                 "--samples", frames * numchans, "--output", output)
                power = np.fromfile(output, dtype=np.float32).reshape(-1, numchans)
                self.assertEqual(len(power), frames)
                # the designed filter (100 dB) spans about 23 frames: the last
                # three quarters are steady
                mean = power[frames // 4:].mean(axis=0)
                expected = {c % numchans: a * a for c, a in zip(carriers, amplitudes)}
                for channel, tone_power in expected.items():
                    # unity gain at the channel's centre
                    self.assertAlmostEqual(mean[channel] / tone_power, 1.0, delta=0.01,
                                           msg=f"channel {channel}")
                others = [c for c in range(numchans) if c not in expected]
                self.assertLess(mean[others].max(), 1e-4 * min(expected.values()))

    def test_003_asserts_reject_bad_parameters(self):
        for parameters, message in (
                (dict(numchans="0"), "numchans >= 1"),
                (dict(oversample_rate="3"), "oversample_rate > 0"),
                (dict(oversample_rate="32"), "oversample_rate > 0"),
                (dict(oversample_rate="0"), "oversample_rate > 0"),
                (dict(channel_map="[16]"), "max(channel_map) < numchans"),
                (dict(channel_map="[3, -1]"), "min(channel_map) >= 0"),
                (dict(atten="0"), "len(taps) > 0 or atten > 0")):
            with self.subTest(**parameters):
                self.assert_rejected(self.edited(HEADLESS_EXAMPLE, BLOCK_ID, **parameters),
                                     message)
        # atten does not matter when taps are given; D = 16 / (16/12) = 12 is fine
        for parameters in (dict(atten="0", taps="[0.5, 1.0, 0.5]"),
                           dict(oversample_rate="16 / 12"),
                           dict(channel_map="[15, 0, 0, 7]")):
            with self.subTest(**parameters):
                self.assert_compiles(self.edited(GUI_EXAMPLE, BLOCK_ID, **parameters))

    def test_004_outputs_follow_the_channel_map_and_output_mode(self):
        # The GUI example connects 4 stream outputs (map of 4 entries): they
        # must exist; more may stay open. The headless example connects one
        # vector output of numchans. Mismatched connections fail to compile.
        for path, parameters, ok in (
                (GUI_EXAMPLE, dict(), True),
                (GUI_EXAMPLE, dict(channel_map="[2, 5, 13]"), False),  # output 3 missing
                (GUI_EXAMPLE, dict(channel_map="[2, 5, 13, 0, 1]"), True),  # 5th open
                (GUI_EXAMPLE, dict(channel_map="[]"), True),  # 16 outputs, 12 open
                (GUI_EXAMPLE, dict(vector_output="True"), False),  # vector into stream sinks
                (HEADLESS_EXAMPLE, dict(), True),
                (HEADLESS_EXAMPLE, dict(channel_map="[0, 1]"), False),  # vlen 2 != numchans
                (HEADLESS_EXAMPLE, dict(vector_output="False"), False)):
            with self.subTest(example=os.path.basename(path), **parameters):
                compiled = self.grcc(self.edited(path, BLOCK_ID, **parameters))
                self.assertEqual(compiled.returncode == 0, ok, compiled.stdout + compiled.stderr)

    def test_005_port_counts_and_sizes(self):
        # In GRC itself: outputs = len(channel_map) (numchans when empty), or
        # one vector output of that many samples.
        platform = grc_platform()
        for parameters, outputs, vlen in ((dict(numchans="16", channel_map="[]"), 16, 1),
                                          (dict(numchans="8", channel_map="[3, 3, 1]"), 3, 1),
                                          (dict(numchans="24", vector_output="True"), 1, 24),
                                          (dict(numchans="24", channel_map="[5, 6]",
                                                vector_output="True"), 1, 2)):
            with self.subTest(**parameters):
                flowgraph = platform.make_flow_graph()
                block = flowgraph.new_block(BLOCK_ID)
                for key, value in parameters.items():
                    block.params[key].set_value(value)
                flowgraph.rewrite()
                flowgraph.validate()
                self.assertEqual(len(block.sources), outputs)
                self.assertTrue(all(int(port.vlen) == vlen for port in block.sources))
                self.assertEqual(len(block.sinks), 1)

    def test_006_input_type_sets_the_input_port_and_the_call(self):
        check_input_types(self, BLOCK_ID)


if __name__ == '__main__':
    gr_unittest.run(qa_pfb_channelizer_ccf_grc)
