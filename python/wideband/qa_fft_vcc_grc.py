#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
The GRC block definition grc/wideband_fft_vcc.block.yml: grcc compiles
examples/fft_vcc_spectrum.grc with it, the generated flowgraph runs and finds
its tone, and the block's asserts reject bad parameters.
"""

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import yaml
from gnuradio import gr_unittest

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BLOCKS_DIR = os.path.join(SOURCE_DIR, "grc")
EXAMPLE = os.path.join(SOURCE_DIR, "examples", "fft_vcc_spectrum.grc")


@gr_unittest.unittest.skipIf(shutil.which("grcc") is None, "grcc not installed")
class qa_fft_vcc_grc(gr_unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.env = dict(os.environ, GRC_BLOCKS_PATH=BLOCKS_DIR)

    def tearDown(self):
        self.dir.cleanup()

    def grcc(self, flowgraph):
        return subprocess.run(["grcc", "-o", self.dir.name, flowgraph], env=self.env,
                              capture_output=True, text=True, timeout=300)

    def test_001_example_runs_and_finds_the_tone(self):
        compiled = self.grcc(EXAMPLE)
        self.assertEqual(compiled.returncode, 0, compiled.stdout + compiled.stderr)
        fft_size, vectors = 256, 40
        output = os.path.join(self.dir.name, "spectrum.f32")
        run = subprocess.run(
            [sys.executable, os.path.join(self.dir.name, "fft_vcc_spectrum.py"),
             "--fft-size", str(fft_size), "--vectors", str(vectors),
             "--output", output],
            env=self.env, capture_output=True, text=True, timeout=300)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        spectra = np.fromfile(output, dtype=np.float32).reshape(-1, fft_size)
        self.assertEqual(len(spectra), vectors)
        # The tone at samp_rate/8, shifted: DC sits at fft_size/2.
        self.assertTrue(np.all(spectra.argmax(axis=1) == fft_size // 2 + fft_size // 8))

    def test_002_asserts_reject_bad_parameters(self):
        for name, value, message in (
                ("window", "[1.0, 2.0, 3.0]", "len(window) == 0 or len(window) == fft_size"),
                ("fft_size", "0", "fft_size >= 1")):
            with self.subTest(parameter=name):
                with open(EXAMPLE) as f:
                    flowgraph = yaml.safe_load(f)
                block = next(b for b in flowgraph["blocks"]
                             if b["id"] == "wideband_fft_vcc")
                block["parameters"][name] = value
                path = os.path.join(self.dir.name, "bad.grc")
                with open(path, "w") as f:
                    yaml.safe_dump(flowgraph, f)
                compiled = self.grcc(path)
                self.assertNotEqual(compiled.returncode, 0)
                self.assertIn(message, compiled.stdout + compiled.stderr)


if __name__ == '__main__':
    gr_unittest.run(qa_fft_vcc_grc)
