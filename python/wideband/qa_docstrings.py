#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
The Python help of the blocks and functions is their C++ header's doxygen
comment (one source: bindings/extract_docstrings.py writes the comments into
the bindings at build time). Every documented declaration of the bound
headers reaches help(); every method the bindings define has a header
comment; no doxygen markup is left.
"""

import importlib.util
import os
import pydoc
import re

from gnuradio import gr_unittest
from gnuradio import wideband

HERE = os.path.dirname(os.path.abspath(__file__))
HEADERS = os.path.join(HERE, "..", "..", "include", "gnuradio", "wideband")
# the headers bindings/CMakeLists.txt extracts, and their Python names
BOUND = {
    "channel_bank_ccc.h": {},
    "dct_vff.h": {},
    "edge_memory.h": {},
    "fft_filter.h": {"fft_filter": ["fft_filter_ccc", "fft_filter_ccf"]},
    "fft_filter_fff.h": {},
    "fft_v.h": {"fft_v": ["fft_vcc", "fft_vfc"]},
    "freq_xlating_fft_filter_ccc.h": {},
    "pfb_arb_resampler_ccf.h": {},
    "pfb_channelizer_ccf.h": {},
    "pfb_decimator_ccf.h": {},
    "pfb_synthesizer_ccf.h": {},
    "thread_errors.h": {},
    "work_error.h": {},
}


def load_extractor():
    path = os.path.join(HERE, "bindings", "extract_docstrings.py")
    spec = importlib.util.spec_from_file_location("extract_docstrings", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def words(text):
    return " ".join(text.split())


def help_text(obj):
    """What help(obj) prints, without the margins of a class's help."""
    text = pydoc.render_doc(obj, renderer=pydoc.plaintext)
    return "\n".join(re.sub(r"^ *\| ?", "", line) for line in text.splitlines())


class qa_docstrings(gr_unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        extractor = load_extractor()
        cls.docs = []  # (Python name, object, header key, header doc)
        cls.classes = []
        for header, names in BOUND.items():
            for key, doc in extractor.extract(os.path.join(HEADERS, header)).items():
                scope, _, member = key.rpartition("::")
                if not scope:
                    for name in names.get(key, [key]):
                        obj = getattr(wideband, name)
                        cls.docs.append((name, obj, key, doc))
                        if isinstance(obj, type):
                            cls.classes.append(obj)
                    continue
                for name in names.get(scope, [scope]):
                    owner = getattr(wideband, name)
                    # make() is the constructor: its comment is in the class's help
                    if member == "make":
                        cls.docs.append((name, owner, key, doc))
                    else:
                        cls.docs.append((f"{name}.{member}", getattr(owner, member), key,
                                         doc))

    def test_001_help_shows_the_header_comments(self):
        self.assertGreaterEqual(len(self.docs), 30)
        for name, obj, key, doc in self.docs:
            with self.subTest(key=key, python=name):
                self.assertTrue(doc.strip())
                self.assertTrue(words(doc) in words(help_text(obj)),
                                f"help({name}) lacks:\n{doc}")

    def test_002_known_text(self):
        # what the headers say, as help() shows it
        cases = (
            (wideband.pfb_channelizer_ccf,
             ("Polyphase filterbank channelizer on an OpenCL device",
              "vector_output: one output of vectors",
              "Raises ValueError for numchans < 1",
              "pfb_channelizer_ccf(numchans, taps, oversample_rate, atten)")),
            (wideband.pfb_decimator_ccf,
             ("drop-in for gnuradio.filter.pfb_decimator_ccf",
              "use_fft_filters: the in-tree block's choice", "changes nothing here")),
            (wideband.pfb_synthesizer_ccf,
             ("drop-in for gnuradio.filter.pfb_synthesizer_ccf",
              "vector_input: one input of P-item vectors",
              "Inputs: 1 to P streams", "negative numchans raises TypeError")),
            (wideband.pfb_arb_resampler_ccf,
             ("drop-in for gnuradio.filter.pfb_arb_resampler_ccf",
              "phase recurrence in its single-precision arithmetic",
              "It runs on one device")),
            (wideband.fft_filter_ccf,
             ("FIR filter by fast convolution on an OpenCL device",
              "nthreads: ignored", "the device third")),
            (wideband.freq_xlating_fft_filter_ccc,
             ("drop-in for gnuradio.filter.freq_xlating_fft_filter_ccc",
              "phi is the in-tree block's start phase")),
            (wideband.fft_vcc, ("drop-ins for gr::fft::fft_vcc and fft_vfc",
                                "Raises RuntimeError when the machine has no OpenCL")),
            (wideband.fft_vfc, ("fft_vfc (real vectors, T = float)",
                                "all of them for fft_vfc too")),
            (wideband.dct_vff, ("equal to scipy.fft.dct(x, type, norm=norm)",
                                "type 3 (the inverse of type 2)")),
            (wideband.work_error, ("The error that stopped a gr-wideband block",)),
        )
        for obj, phrases in cases:
            shown = words(help_text(obj))
            for phrase in phrases:
                self.assertTrue(phrase in shown, f"help({obj.__name__}) lacks: {phrase}")

    def test_003_every_bound_method_is_documented(self):
        documented = {name for name, _, _, _ in self.docs}
        self.assertEqual(len(self.classes), 12)
        for cls in self.classes:
            for name, member in vars(cls).items():
                if name.startswith("_"):
                    continue
                with self.subTest(method=f"{cls.__name__}.{name}"):
                    self.assertIn(f"{cls.__name__}.{name}", documented,
                                  "no header comment reaches its docstring")

    def test_004_no_doxygen_markup(self):
        for name, obj, _, _ in self.docs:
            with self.subTest(python=name):
                self.assertIsNone(re.search(r"\\(brief|param|throws|details|p|ingroup)\b",
                                            obj.__doc__ or ""))


if __name__ == '__main__':
    gr_unittest.run(qa_docstrings)
