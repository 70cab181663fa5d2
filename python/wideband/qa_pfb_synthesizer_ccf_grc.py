#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
The GRC block definition grc/wideband_pfb_synthesizer_ccf.block.yml: a
flowgraph with ours beside the in-tree Polyphase Synthesizer on the same
sources (two connections, twox, a channel map) compiles with grcc and runs,
and ours' output is the in-tree block's; the taps and channel map are
variables whose changes reach the block; vector input takes vectors of P
items; the asserts reject bad parameters.
"""

import numpy as np
import yaml
from gnuradio import gr_unittest

from grc_qa_helpers import grc_testcase
from qa_pfb_synthesizer_ccf import assert_same_output

BLOCK_ID = "wideband_pfb_synthesizer_ccf"
FRAMES = 1001
TAPS = "[0.5, -1.0, 0.75, 0.25, -0.5, 1.0, 0.3, -0.2, 0.6, 0.9, -0.4]"


class qa_pfb_synthesizer_ccf_grc(grc_testcase):

    def flowgraph(self, numchans="4", twox="True", connections="2", vector_input=None,
                  ch_map="ch_map", taps="taps"):
        """Two vector sources -> ours and the in-tree block -> file sinks (with
        vector_input, ours takes the sources through streams_to_vector and a
        vector of P = 2 numchans); returns the .grc's path."""

        def block(name, block_id, **parameters):
            return dict(name=name, id=block_id, parameters=parameters,
                        states=dict(coordinate=[0, 0], state="enabled"))

        sink = dict(type="complex", vlen="1", unbuffered="False", append="False")
        ours = dict(numchans=numchans, taps=taps, twox=twox, ch_map=ch_map,
                    connections=connections)
        if vector_input:
            ours["vector_input"] = vector_input
        blocks = [
            block("ch_map", "variable", value="[5, 0]"),
            block("taps", "variable", value=TAPS),
            # never zero: the imaginary parts are at least 1
            block("source0", "blocks_vector_source_x", type="complex", repeat="False",
                  vector=f"[(k % 7 - 3) + 1j * (k % 5 + 1) for k in range({FRAMES})]"),
            block("source1", "blocks_vector_source_x", type="complex", repeat="False",
                  vector=f"[(k % 3 - 1) - 1j * (k % 4 + 1) for k in range({FRAMES})]"),
            block("ours", BLOCK_ID, **ours),
            block("theirs", "pfb_synthesizer_ccf", numchans=numchans, taps=taps,
                  twox=twox, ch_map=ch_map, connections="2"),
            block("ours_sink", "blocks_file_sink", file=repr(self.path("ours.c64")),
                  **sink),
            block("theirs_sink", "blocks_file_sink", file=repr(self.path("theirs.c64")),
                  **sink),
        ]
        connections = [["source0", "0", "theirs", "0"], ["source1", "0", "theirs", "1"],
                       ["ours", "0", "ours_sink", "0"], ["theirs", "0", "theirs_sink", "0"]]
        if vector_input:
            # the two channels first, the other bins of the vector zero
            blocks += [block("zeros", "analog_const_source_x", type="complex", const="0"),
                       block("to_vector", "blocks_streams_to_vector", type="complex",
                             num_streams="8", vlen="1")]
            connections += [["source0", "0", "to_vector", "0"],
                            ["source1", "0", "to_vector", "1"],
                            ["to_vector", "0", "ours", "0"]]
            connections += [["zeros", "0", "to_vector", str(i)] for i in range(2, 8)]
        else:
            connections += [["source0", "0", "ours", "0"], ["source1", "0", "ours", "1"]]
        data = dict(
            options=dict(parameters=dict(id="synthesizer_flowgraph",
                                         output_language="python",
                                         generate_options="no_gui", run_options="run"),
                         states=dict(coordinate=[0, 0], state="enabled")),
            blocks=blocks, connections=connections, metadata=dict(file_format=1))
        path = self.path("synthesizer_flowgraph.grc")
        with open(path, "w") as f:
            yaml.safe_dump(data, f)
        return path

    def run_and_compare(self, path):
        program = self.assert_compiles(path)
        with open(program) as f:
            code = f.read()
        self.assertIn("wideband.pfb_synthesizer_ccf(", code)
        # the variables' changes reach the block
        self.assertIn("self.ours.set_channel_map(self.ch_map)", code)
        self.assertIn("self.ours.set_taps(self.taps)", code)
        self.run_program(program)
        ours = np.fromfile(self.path("ours.c64"), dtype=np.complex64)
        theirs = np.fromfile(self.path("theirs.c64"), dtype=np.complex64)
        self.assertEqual(len(theirs), FRAMES * 4)
        assert_same_output(ours, theirs)

    def test_001_flowgraph_matches_the_in_tree_block(self):
        self.run_and_compare(self.flowgraph())

    def test_002_vector_input(self):
        # a map of two entries: the vector's other six items are unused
        self.run_and_compare(self.flowgraph(vector_input="True"))

    def test_003_asserts_reject_bad_parameters(self):
        for parameters, message in ((dict(numchans="0"), "numchans >= 1"),
                                    (dict(numchans="3"), "numchans % 2 == 0"),
                                    (dict(connections="9"), "1 <= connections"),
                                    (dict(taps="[]"), "len(taps) > 0")):
            with self.subTest(**parameters):
                self.assert_rejected(self.flowgraph(**parameters), message)


if __name__ == '__main__':
    gr_unittest.run(qa_pfb_synthesizer_ccf_grc)
