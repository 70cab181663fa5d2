#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
The GNU Radio Companion side as a whole (each block's own behaviour is tested
in its qa_*_grc): every block of include/gnuradio/wideband has a definition in
grc/, installed, under the one category, documented, with asserts, Python and
C++ templates and a device parameter; a block dropped into a flowgraph with its
defaults shows no error; the C++ templates generate code that compiles; every
example flowgraph is compiled and run by a test, and every QT GUI example has a
headless variant.
"""

import glob
import os
import re
import shutil
import subprocess

import yaml
from gnuradio import gr_unittest

from grc_qa_helpers import BLOCKS_DIR, EXAMPLES, SOURCE_DIR, grc_platform, grc_testcase, load

CATEGORY = "[Wideband (OpenCL)]"
DEFINITIONS = sorted(glob.glob(os.path.join(BLOCKS_DIR, "*.block.yml")))


def block_classes():
    """The GNU Radio blocks the public headers declare: name -> the names of
    its typedefs (fft_v -> fft_vcc, fft_vfc), or [name]."""
    classes = {}
    for header in glob.glob(os.path.join(SOURCE_DIR, "include", "gnuradio", "wideband", "*.h")):
        with open(header) as f:
            text = f.read()
        for name in re.findall(r"class WIDEBAND_API (\w+) : virtual public gr::", text):
            classes[name] = re.findall(rf"typedef {name}<[^;]*> (\w+);", text) or [name]
    return classes


def blocks_made(definition):
    """The wideband blocks a definition's Python make template names, with
    ${type.fcn} replaced by each of the type parameter's fcn attributes (one
    definition for fft_vcc and fft_vfc, as GNU Radio's fft_vxx)."""
    make = definition["templates"]["make"]
    variants = [make]
    for parameter in definition["parameters"]:
        if parameter["id"] == "type" and "fcn" in parameter.get("option_attributes", {}):
            variants = [make.replace("${type.fcn}", fcn)
                        for fcn in parameter["option_attributes"]["fcn"]]
    return {name for v in variants for name in re.findall(r"wideband\.(\w+)\(", v)}


def cpp_flowgraph(path):
    """A flowgraph for C++ (no GUI) through every block and template branch:
    literal complex and real taps, a firdes design as complex taps (for the
    FFT filter, the frequency-translating filter and the channel bank), taps
    per channel, a channel map, vector outputs, an inverse FFT with a
    window, an FFT of real vectors, a decimator's channel and flags, a
    synthesizer's vector input, twox and channel map, a resampler's taps given
    and designed (empty taps)."""

    def block(name, block_id, **parameters):
        return dict(name=name, id=block_id, parameters=parameters,
                    states=dict(coordinate=[0, 0], state="enabled"))

    flowgraph = dict(
        options=dict(parameters=dict(id="cpp_templates", output_language="cpp",
                                     generate_options="no_gui"),
                     states=dict(coordinate=[0, 0], state="enabled")),
        blocks=[
            block("source", "blocks_null_source", type="complex"),
            block("ccc_list", "wideband_fft_filter_xxx", type="ccc", decimation="2",
                  taps="[0.5, 1 + 1j, 0.5]"),
            block("ccc_design", "wideband_fft_filter_xxx", type="ccc", decimation="1",
                  taps="firdes.low_pass(1.0, 1.0, 0.25, 0.05, window.WIN_HAMMING)"),
            block("ccf_list", "wideband_fft_filter_xxx", type="ccf", decimation="1",
                  taps="[0.25, 0.5, 0.25]"),
            block("xlating_list", "wideband_freq_xlating_fft_filter_ccc", decimation="2",
                  taps="[0.5, 1 + 1j, 0.5]", center_freq="-0.125", samp_rate="1.0"),
            block("xlating_design", "wideband_freq_xlating_fft_filter_ccc", decimation="1",
                  taps="firdes.low_pass(1.0, 1.0, 0.25, 0.05, window.WIN_HAMMING)",
                  center_freq="0.25", samp_rate="1.0", device="'cpu'"),
            block("bank_lists", "wideband_channel_bank_ccc", samp_rate="1.0",
                  center_freqs="[0.25, -0.125]", decimations="[1, 3]",
                  taps="[[0.5, 1 + 1j, 0.5], [0.25]]"),
            block("bank_design", "wideband_channel_bank_ccc", samp_rate="1.0",
                  center_freqs="[0.25, -0.5]", decimations="[2]",
                  taps="firdes.low_pass(1.0, 1.0, 0.25, 0.05, window.WIN_BLACKMAN_hARRIS)",
                  vector_output="True"),
            block("bank_one_list", "wideband_channel_bank_ccc", samp_rate="1.0",
                  center_freqs="[0.0]", decimations="[1]", taps="[0.5, 1 + 1j, 0.5]"),
            block("bank_sink", "blocks_null_sink", type="complex", vlen="1"),
            block("bank_vector_sink", "blocks_null_sink", type="complex", vlen="2"),
            block("channelizer", "wideband_pfb_channelizer_ccf", numchans="16",
                  channel_map="[1, 0, 15, 2]", vector_output="True"),
            block("decimator", "wideband_pfb_decimator_ccf", decim="3",
                  taps="[0.5, 1.0, 0.5, 0.25]", channel="2", fft_filts="False"),
            block("decimator_sink", "blocks_null_sink", type="complex", vlen="1"),
            block("synthesizer_source", "blocks_null_source", type="complex", vlen="8"),
            block("synthesizer", "wideband_pfb_synthesizer_ccf", numchans="4",
                  taps="[0.5, 1.0, 0.5, 0.25]", twox="True", ch_map="[7, 0, 3]",
                  vector_input="True"),
            block("synthesizer_sink", "blocks_null_sink", type="complex", vlen="1"),
            block("resampler_design", "wideband_pfb_arb_resampler_ccf", rrate="0.6144",
                  taps="[]", nfilts="32", atten="80", samp_delay="0", device='""'),
            block("resampler_list", "wideband_pfb_arb_resampler_ccf", rrate="2.5",
                  taps="[0.5, 1.0, 0.5, 0.25]", nfilts="4", atten="100",
                  samp_delay="0", device='""'),
            block("resampler_sink", "blocks_null_sink", type="complex", vlen="1"),
            block("fft", "wideband_fft_vcc", fft_size="4", forward="False",
                  window="window.blackmanharris(4)", shift="True"),
            block("sink", "blocks_null_sink", type="complex", vlen="4"),
            block("real_source", "blocks_null_source", type="float", vlen="8"),
            block("real_fft", "wideband_fft_vcc", type="float", fft_size="8",
                  forward="True", window="window.hann(8)", shift="False"),
            block("real_sink", "blocks_null_sink", type="complex", vlen="8"),
            block("real_stream", "blocks_null_source", type="float", vlen="1"),
            block("real_filter", "wideband_fft_filter_xxx", type="fff", decimation="2",
                  taps="[0.25, 0.5, 0.25]"),
            block("real_filter_sink", "blocks_null_sink", type="float", vlen="1"),
        ],
        connections=[["source", "0", "ccc_list", "0"], ["ccc_list", "0", "ccc_design", "0"],
                     ["ccc_design", "0", "ccf_list", "0"], ["ccf_list", "0", "xlating_list", "0"],
                     ["xlating_list", "0", "xlating_design", "0"],
                     ["xlating_design", "0", "bank_lists", "0"],
                     ["bank_lists", "1", "bank_sink", "0"],
                     ["bank_lists", "0", "bank_design", "0"],
                     ["bank_design", "0", "bank_vector_sink", "0"],
                     ["xlating_design", "0", "bank_one_list", "0"],
                     ["bank_one_list", "0", "channelizer", "0"],
                     ["bank_one_list", "0", "decimator", "0"],
                     ["decimator", "0", "decimator_sink", "0"],
                     ["synthesizer_source", "0", "synthesizer", "0"],
                     ["synthesizer", "0", "synthesizer_sink", "0"],
                     ["bank_one_list", "0", "resampler_design", "0"],
                     ["resampler_design", "0", "resampler_list", "0"],
                     ["resampler_list", "0", "resampler_sink", "0"],
                     ["channelizer", "0", "fft", "0"], ["fft", "0", "sink", "0"],
                     ["real_source", "0", "real_fft", "0"], ["real_fft", "0", "real_sink", "0"],
                     ["real_stream", "0", "real_filter", "0"],
                     ["real_filter", "0", "real_filter_sink", "0"]],
        metadata=dict(file_format=1))
    with open(path, "w") as f:
        yaml.safe_dump(flowgraph, f)


class qa_grc_blocks(grc_testcase):

    def test_001_every_block_has_a_definition(self):
        ids = [load(path)["id"] for path in DEFINITIONS]
        made = set().union(*(blocks_made(load(path)) for path in DEFINITIONS))
        classes = block_classes()
        self.assertGreaterEqual(len(classes), 3)
        for name, aliases in classes.items():
            with self.subTest(block=name):
                self.assertTrue(any(i == "wideband_" + name or i.startswith(f"wideband_{name}_")
                                    for i in ids) or set(aliases) <= made,
                                f"no grc/wideband_{name}*.block.yml, and no definition makes "
                                f"{', '.join(aliases)}")
        with open(os.path.join(BLOCKS_DIR, "CMakeLists.txt")) as f:
            installed = f.read()
        for path in DEFINITIONS:
            self.assertIn(os.path.basename(path), installed, "not installed")

    def test_002_definitions_are_complete(self):
        for path in DEFINITIONS:
            with self.subTest(definition=os.path.basename(path)):
                block = load(path)
                self.assertEqual(block["category"], CATEGORY)
                self.assertTrue(block["label"].endswith("(OpenCL)"), block["label"])
                self.assertEqual(set(block["flags"]), {"python", "cpp"})
                doc = block["documentation"]
                for topic in ("drop-in", "Device selects", "WIDEBAND_DEVICE"):
                    self.assertIn(topic, doc)
                self.assertTrue(re.search(r"(?i)alignment|delay", doc), "no alignment/delay")
                self.assertGreater(len(block["asserts"]), 0)
                self.assertIn("wideband.", block["templates"]["make"])
                for key in ("includes", "declarations", "make", "link"):
                    self.assertIn(key, block["cpp_templates"])
                parameters = {p["id"]: p for p in block["parameters"]}
                self.assertEqual(parameters["device"]["default"], "")
                for p in parameters.values():
                    self.assertTrue("default" in p or p["dtype"] == "enum",
                                    f"{p['id']} has no default")

    def test_003_blocks_with_defaults_show_no_error(self):
        # as when dropped into a new flowgraph from the block tree (GRC's new
        # flowgraph, default_flow_graph.grc, has a samp_rate variable that
        # rate parameters take as their default, as the in-tree blocks' do)
        from gnuradio.grc.core import Constants
        platform = grc_platform()
        for path in DEFINITIONS:
            block_id = load(path)["id"]
            with self.subTest(block=block_id):
                flowgraph = platform.make_flow_graph(Constants.DEFAULT_FLOW_GRAPH)
                block = flowgraph.new_block(block_id)
                block.params["id"].set_value("block_0")
                flowgraph.rewrite()
                flowgraph.validate()
                self.assertEqual(block.category, [CATEGORY[1:-1]])
                errors = [e for e in block.get_error_messages() if "not connected" not in e]
                self.assertEqual(errors, [])

    @gr_unittest.unittest.skipIf(shutil.which("c++") is None, "no C++ compiler")
    def test_004_cpp_templates_compile(self):
        flowgraph = self.path("cpp_templates.grc")
        cpp_flowgraph(flowgraph)
        compiled = self.grcc(flowgraph)
        self.assertEqual(compiled.returncode, 0, compiled.stdout + compiled.stderr)
        source = self.path(os.path.join("cpp_templates", "cpp_templates.cpp"))
        with open(source) as f:
            code = f.read()
        self.assertEqual(code.count("gr::wideband::"), 16)
        self.assertEqual(code.count("gr::wideband::pfb_arb_resampler_ccf::make("), 2)
        self.assertIn("gr::wideband::fft_filter_fff::make(", code)
        self.assertIn("gr::wideband::fft_vfc::make(8, true", code)
        self.assertIn("gr::wideband::pfb_synthesizer_ccf::make(", code)
        self.assertIn("set_channel_map({7, 0, 3})", code)
        check = subprocess.run(["c++", "-std=c++17", "-fsyntax-only",
                                "-I", os.path.join(SOURCE_DIR, "include"), source],
                               capture_output=True, text=True, timeout=300)
        self.assertEqual(check.returncode, 0, check.stderr)

    def test_005_every_example_is_tested_and_has_a_headless_variant(self):
        tests = ""
        for path in glob.glob(os.path.join(os.path.dirname(__file__), "qa_*grc.py")):
            with open(path) as f:
                tests += f.read()
        for path in sorted(glob.glob(os.path.join(EXAMPLES, "*.grc"))):
            name = os.path.basename(path)[:-len(".grc")]
            with self.subTest(example=name):
                self.assertIn(f'"{name}"', tests, "no test compiles it")
                if load(path)["options"]["parameters"]["generate_options"] == "qt_gui":
                    self.assertTrue(os.path.exists(os.path.join(EXAMPLES, name + "_headless.grc")),
                                    "a QT GUI example without a headless variant")


if __name__ == '__main__':
    gr_unittest.run(qa_grc_blocks)
