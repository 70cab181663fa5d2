#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""What the GNU Radio Companion tests (qa_*_grc, qa_grc_blocks) share: where
the block definitions and example flowgraphs are, flowgraph files read and
edited as YAML, grcc and the programs it generates run in a temporary folder,
and GRC's own platform with our blocks loaded. Imported from the tests' own
folder; not installed."""

import ast
import os
import shutil
import subprocess
import sys
import tempfile

import yaml
from gnuradio import gr, gr_unittest

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BLOCKS_DIR = os.path.join(SOURCE_DIR, "grc")
EXAMPLES = os.path.join(SOURCE_DIR, "examples")


def example(name):
    """The path of examples/<name>.grc."""
    return os.path.join(EXAMPLES, name + ".grc")


def load(path):
    with open(path) as f:
        return yaml.safe_load(f)


def variable(flowgraph, name):
    """The value of a variable block whose value is a Python literal."""
    block = next(b for b in flowgraph["blocks"] if b["name"] == name)
    return ast.literal_eval(block["parameters"]["value"])


def blocks_of(flowgraph, block_id):
    """The parameters of every block of that kind."""
    return [b["parameters"] for b in flowgraph["blocks"] if b["id"] == block_id]


def grc_platform():
    """GRC's platform (what GNU Radio Companion and grcc build) with the block
    library loaded, grc/ first on its block path."""
    from gnuradio.grc.core.platform import Platform
    saved = os.environ.get("GRC_BLOCKS_PATH")
    os.environ["GRC_BLOCKS_PATH"] = BLOCKS_DIR
    try:
        platform = Platform(name="qa", prefs=gr.prefs(), version=gr.version(),
                            version_parts=(gr.major_version(), gr.api_version(),
                                           gr.minor_version()))
        platform.build_library()
    finally:
        if saved is None:
            os.environ.pop("GRC_BLOCKS_PATH")
        else:
            os.environ["GRC_BLOCKS_PATH"] = saved
    return platform


def check_input_types(test, block_id):
    """The block's Input Type parameter in GRC: sc16 and sc8 give its stream
    input GRC's port types of 4 and 2 bytes (fc32: complex, 8), the outputs
    stay complex, and the type reaches make() in Python and C++."""
    platform = grc_platform()
    for input_type, dtype, size in (("fc32", "complex", 8), ("sc16", "sc16", 4),
                                    ("sc8", "sc8", 2)):
        with test.subTest(input_type=input_type):
            flowgraph = platform.make_flow_graph()
            block = flowgraph.new_block(block_id)
            block.params["id"].set_value("block_0")
            block.params["input_type"].set_value(input_type)
            flowgraph.rewrite()
            flowgraph.validate()
            test.assertEqual([(p.dtype, p.item_size) for p in block.sinks
                              if p.dtype != "message"], [(dtype, size)])
            test.assertEqual({p.dtype for p in block.sources}, {"complex"})
            test.assertIn(f"input_type='{input_type}')", block.templates.render("make"))
            test.assertIn(f"'{input_type}');", block.cpp_templates.render("make"))


@gr_unittest.unittest.skipIf(shutil.which("grcc") is None, "grcc not installed")
class grc_testcase(gr_unittest.TestCase):
    """A test case with a temporary folder for grcc's output (one per class:
    grcc spends seconds loading the block library, so a class may compile its
    flowgraphs once) and an environment whose GRC block path has grc/ first."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.env = dict(os.environ, GRC_BLOCKS_PATH=BLOCKS_DIR)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    @classmethod
    def grcc(cls, *flowgraphs):
        """grcc's result for the flowgraphs, generated into the class's folder."""
        return subprocess.run(["grcc", "-o", cls.dir.name] + list(flowgraphs), env=cls.env,
                              capture_output=True, text=True, timeout=300)

    def path(self, name):
        """A file of the class's folder (e.g. the program grcc generated)."""
        return os.path.join(self.dir.name, name)

    def assert_compiles(self, flowgraph):
        """grcc compiles the flowgraph; returns the generated program's path."""
        compiled = self.grcc(flowgraph)
        self.assertEqual(compiled.returncode, 0, compiled.stdout + compiled.stderr)
        program = self.path(load(flowgraph)["options"]["parameters"]["id"] + ".py")
        with open(program) as f:
            compile(f.read(), program, "exec")
        return program

    def assert_rejected(self, flowgraph, message):
        """grcc refuses the flowgraph, saying `message` (an assert's text)."""
        compiled = self.grcc(flowgraph)
        self.assertNotEqual(compiled.returncode, 0, f"{flowgraph} compiled")
        self.assertIn(message, compiled.stdout + compiled.stderr)

    def run_program(self, program, *args):
        """Runs a generated program to its end; returns its output."""
        run = subprocess.run([sys.executable, program] + [str(a) for a in args],
                             env=self.env, capture_output=True, text=True, timeout=300)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        return run.stdout + run.stderr

    def edited(self, flowgraph, block_id, **parameters):
        """A copy of the flowgraph with the parameters of its block of kind
        block_id changed (or of its options with block_id "options")."""
        data = load(flowgraph)
        block = (data["options"] if block_id == "options" else
                 next(b for b in data["blocks"] if b["id"] == block_id))
        block["parameters"].update(parameters)
        path = self.path("edited.grc")
        with open(path, "w") as f:
            yaml.safe_dump(data, f)
        return path
