#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
The GRC block definition grc/wideband_pfb_decimator_ccf.block.yml: a
flowgraph with ours beside the in-tree Polyphase Decimator on one source
compiles with grcc and runs, and ours' output is the in-tree block's; the
channel and taps are variables whose changes reach the block; the asserts
reject bad parameters.
"""

import numpy as np
import yaml
from gnuradio import gr_unittest

from grc_qa_helpers import grc_testcase
from qa_pfb_decimator_ccf import assert_same_channel

BLOCK_ID = "wideband_pfb_decimator_ccf"
SAMPLES = 5003
TAPS = "[0.5, -1.0, 0.75, 0.25, -0.5, 1.0, 0.3, -0.2, 0.6, 0.9, -0.4]"


class qa_pfb_decimator_ccf_grc(grc_testcase):

    def flowgraph(self, decim="5", channel="channel", taps="taps"):
        """vector source -> ours and the in-tree block -> file sinks; returns
        the .grc's path."""

        def block(name, block_id, **parameters):
            return dict(name=name, id=block_id, parameters=parameters,
                        states=dict(coordinate=[0, 0], state="enabled"))

        sink = dict(type="complex", vlen="1", unbuffered="False", append="False")
        data = dict(
            options=dict(parameters=dict(id="decimator_flowgraph", output_language="python",
                                         generate_options="no_gui", run_options="run"),
                         states=dict(coordinate=[0, 0], state="enabled")),
            blocks=[
                block("channel", "variable", value="3"),
                block("taps", "variable", value=TAPS),
                # never zero: the imaginary part is at least 1
                block("source", "blocks_vector_source_x", type="complex", repeat="False",
                      vector=f"[(k % 7 - 3) + 1j * (k % 5 + 1) for k in range({SAMPLES})]"),
                block("ours", BLOCK_ID, decim=decim, taps=taps, channel=channel,
                      fft_filts="False"),
                block("theirs", "pfb_decimator_ccf", decim=decim, taps=taps,
                      channel=channel),
                block("ours_sink", "blocks_file_sink", file=repr(self.path("ours.c64")),
                      **sink),
                block("theirs_sink", "blocks_file_sink",
                      file=repr(self.path("theirs.c64")), **sink),
            ],
            connections=[["source", "0", "ours", "0"], ["source", "0", "theirs", "0"],
                         ["ours", "0", "ours_sink", "0"],
                         ["theirs", "0", "theirs_sink", "0"]],
            metadata=dict(file_format=1))
        path = self.path("decimator_flowgraph.grc")
        with open(path, "w") as f:
            yaml.safe_dump(data, f)
        return path

    def test_001_flowgraph_matches_the_in_tree_block(self):
        program = self.assert_compiles(self.flowgraph())
        with open(program) as f:
            code = f.read()
        self.assertIn("wideband.pfb_decimator_ccf(", code)
        # the variables' changes reach the block
        self.assertIn("self.ours.set_channel(self.channel)", code)
        self.assertIn("self.ours.set_taps(self.taps)", code)
        self.run_program(program)
        ours = np.fromfile(self.path("ours.c64"), dtype=np.complex64)
        theirs = np.fromfile(self.path("theirs.c64"), dtype=np.complex64)
        self.assertEqual(len(ours), SAMPLES // 5)
        # the in-tree hier block's FFT filters drop the end of the stream
        self.assertGreater(len(theirs), 0.8 * len(ours))
        assert_same_channel(ours[:len(theirs)], theirs)

    def test_002_asserts_reject_bad_parameters(self):
        for parameters, message in ((dict(decim="0"), "decim >= 1"),
                                    (dict(channel="5"), "0 <= channel < decim"),
                                    (dict(channel="-1"), "0 <= channel < decim"),
                                    (dict(taps="[]"), "len(taps) > 0")):
            with self.subTest(**parameters):
                self.assert_rejected(self.flowgraph(**parameters), message)


if __name__ == '__main__':
    gr_unittest.run(qa_pfb_decimator_ccf_grc)
