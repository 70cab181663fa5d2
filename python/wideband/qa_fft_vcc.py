#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
wideband.fft_vcc against gnuradio.fft.fft_vcc: both blocks run in the same
flowgraph on the same random, never-zero input, and every output element of
ours is compared with the in-tree block's.

Tolerance, per output vector (the two blocks compute in float32 by different
algorithms, so they may differ by rounding only):
  every element:  |ours - ref| <= ELEMENT_TOL * max|ref|
  the vector:     ||ours - ref|| <= L2_TOL * ||ref||
A float32 FFT's error relative to the exact transform is about
eps * sqrt(log2 N) in L2 norm (eps = 6e-8); measured on PoCL, the two blocks
differ by at most 2.1e-7 (L2) and 3.4e-7 (element) for all sizes here, which
leaves a margin of 5 to 10 for other devices' rounding. Any real mistake (a
wrong twiddle, window index, shift or direction) changes the result by 1e-2 or
more.
"""

import os
import subprocess
import sys
import tempfile
from unittest import mock

import numpy as np
from gnuradio import blocks, fft, gr, gr_unittest
from gnuradio.fft import window
from gnuradio import wideband
from stream_qa_helpers import gate, random_chunks, wait_for

ELEMENT_TOL = 3e-6
L2_TOL = 1e-6


def never_zero(rng, count):
    """Complex samples with magnitudes in [0.5, 1.5] and random phases."""
    magnitude = rng.uniform(0.5, 1.5, count)
    phase = rng.uniform(-np.pi, np.pi, count)
    return (magnitude * np.exp(1j * phase)).astype(np.complex64)


def windows_for(n, rng):
    """Name and window: none, a standard one, random positive factors."""
    return [("none", []),
            ("blackmanharris", window.blackmanharris(n)),
            ("random", list(rng.uniform(0.1, 1.0, n)))]


def assert_same_vectors(ours, ref, n, vectors):
    """Raises AssertionError unless ours matches ref within the tolerances."""
    ours = np.asarray(ours, dtype=np.complex128)
    ref = np.asarray(ref, dtype=np.complex128)
    if ours.size != vectors * n or ref.size != vectors * n:
        raise AssertionError(f"expected {vectors} vectors of {n}, got {ours.size / n} "
                             f"(ours) and {ref.size / n} (reference)")
    ours = ours.reshape(vectors, n)
    ref = ref.reshape(vectors, n)
    error = np.abs(ours - ref)
    element_limit = ELEMENT_TOL * np.abs(ref).max(axis=1, keepdims=True)
    bad = np.argwhere(error > element_limit)
    if bad.size:
        v, k = bad[0]
        raise AssertionError(
            f"{len(bad)} elements differ; first: vector {v}, element {k}: "
            f"ours {ours[v, k]:.6g}, reference {ref[v, k]:.6g} "
            f"(|diff| {error[v, k]:.3g} > {element_limit[v, 0]:.3g})")
    relative_l2 = np.linalg.norm(ours - ref, axis=1) / np.linalg.norm(ref, axis=1)
    worst = int(np.argmax(relative_l2))
    if relative_l2[worst] > L2_TOL:
        raise AssertionError(f"vector {worst}: relative L2 difference "
                             f"{relative_l2[worst]:.3g} > {L2_TOL}")


class qa_fft_vcc(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()

    def tearDown(self):
        self.tb = None

    def compare(self, n, forward, win, shift, vectors, seed,
                max_chunk=None, max_noutput=None, output_multiple=None):
        """Runs ours and the in-tree block side by side and compares them."""
        rng = np.random.default_rng(seed)
        src = blocks.vector_source_c(never_zero(rng, n * vectors), False, n)
        ref = fft.fft_vcc(n, forward, win, shift)
        ours = wideband.fft_vcc(n, forward, win, shift)
        ref_sink = blocks.vector_sink_c(n)
        ours_sink = blocks.vector_sink_c(n)
        if max_noutput:
            ours.set_max_noutput_items(max_noutput)
        if output_multiple:
            ours.set_output_multiple(output_multiple)
        self.tb.connect(src, ref, ref_sink)
        if max_chunk:
            chunks = random_chunks(max_chunk, seed, vlen=n)
            self.tb.connect(src, chunks, ours)
        else:
            self.tb.connect(src, ours)
        self.tb.connect(ours, ours_sink)
        self.tb.run()
        assert_same_vectors(ours_sink.data(), ref_sink.data(), n, vectors)

    def test_000_comparison_detects_a_small_error(self):
        rng = np.random.default_rng(0)
        ref = never_zero(rng, 64).astype(np.complex128)
        assert_same_vectors(ref, ref, 64, 1)
        wrong = ref.copy()
        wrong[17] += 1e-4 * np.abs(ref).max()
        with self.assertRaises(AssertionError):
            assert_same_vectors(wrong, ref, 64, 1)
        with self.assertRaises(AssertionError):
            assert_same_vectors(ref[:-64], ref[:-64], 64, 1)

    def test_001_sizes_windows_shift_direction(self):
        # 17: Bluestein; 45, 100: radices 3 and 5, odd and even; 8192: longer
        # than one on-chip pass on GPUs. Random chunks of the input stream.
        seed = 1
        for n in (16, 17, 45, 64, 100, 1024, 4096, 8192):
            vectors = max(24, 16384 // n)
            for name, win in windows_for(n, np.random.default_rng(n)):
                for shift in (False, True):
                    for forward in (True, False):
                        seed += 1
                        with self.subTest(n=n, window=name, shift=shift,
                                          forward=forward):
                            self.setUp()
                            self.compare(n, forward, win, shift, vectors, seed,
                                         max_chunk=37)

    def test_002_tiny_sizes(self):
        seed = 100
        for n in (1, 2, 3, 5):
            for name, win in windows_for(n, np.random.default_rng(n)):
                for shift in (False, True):
                    for forward in (True, False):
                        seed += 1
                        with self.subTest(n=n, window=name, shift=shift,
                                          forward=forward):
                            self.setUp()
                            self.compare(n, forward, win, shift, 300, seed)

    def test_003_odd_work_sizes(self):
        # Calls of few and odd numbers of vectors, and a multiple the batch
        # must respect.
        win = list(np.random.default_rng(3).uniform(0.1, 1.0, 100))
        self.compare(100, True, win, True, 301, 200, max_noutput=7)
        self.setUp()
        self.compare(100, False, win, True, 300, 201, output_multiple=3,
                     max_chunk=11)
        self.setUp()
        self.compare(17, True, [], True, 1001, 202, max_noutput=1)

    def test_004_calls_larger_than_one_batch(self):
        # One device execution moves 4 MiB, i.e. 32 vectors of 16384 points;
        # large buffers hand work() more than that at once, and it must return
        # the count it computed.
        n = 16384
        rng = np.random.default_rng(4)
        src = blocks.vector_source_c(never_zero(rng, n * 150), False, n)
        src.set_min_output_buffer(128)
        ours = wideband.fft_vcc(n, True, window.hann(n), True)
        ours.set_min_output_buffer(128)
        ref = fft.fft_vcc(n, True, window.hann(n), True)
        ours_sink = blocks.vector_sink_c(n)
        ref_sink = blocks.vector_sink_c(n)
        self.tb.connect(src, ours, ours_sink)
        self.tb.connect(src, ref, ref_sink)
        self.tb.run()
        assert_same_vectors(ours_sink.data(), ref_sink.data(), n, 150)

    def test_005_set_window_while_running(self):
        # The gate holds the stream after `before` vectors until both blocks
        # have their new window: every later vector must use it.
        n, before, after = 256, 40, 60
        rng = np.random.default_rng(5)
        src = blocks.vector_source_c(never_zero(rng, n * (before + after)), False, n)
        hold = gate(before, vlen=n)
        first = window.blackmanharris(n)
        second = list(rng.uniform(0.1, 1.0, n))
        ours = wideband.fft_vcc(n, True, first, True)
        ref = fft.fft_vcc(n, True, first, True)
        ours_sink = blocks.vector_sink_c(n)
        ref_sink = blocks.vector_sink_c(n)
        self.tb.connect(src, hold)
        self.tb.connect(hold, ours, ours_sink)
        self.tb.connect(hold, ref, ref_sink)
        self.tb.start()
        wait_for(self, lambda: min(len(ours_sink.data()), len(ref_sink.data())) >= before * n)
        self.assertTrue(ours.set_window(second))
        self.assertTrue(ref.set_window(second))
        hold.opened.set()
        self.tb.wait()
        assert_same_vectors(ours_sink.data(), ref_sink.data(), n, before + after)
        self.assertFloatTuplesAlmostEqual(ours.window(), second, 7)

    def test_006_set_window_between_runs(self):
        n = 64
        rng = np.random.default_rng(6)
        data = never_zero(rng, n * 50)
        src = blocks.vector_source_c(data, False, n)
        ours = wideband.fft_vcc(n, False, [], True)
        ref = fft.fft_vcc(n, False, [], True)
        ours_sink = blocks.vector_sink_c(n)
        ref_sink = blocks.vector_sink_c(n)
        self.tb.connect(src, ours, ours_sink)
        self.tb.connect(src, ref, ref_sink)
        for win in (window.hamming(n), list(rng.uniform(0.1, 1.0, n)), []):
            self.assertTrue(ours.set_window(win))
            self.assertTrue(ref.set_window(win))
            src.rewind()
            ours_sink.reset()
            ref_sink.reset()
            self.tb.run()
            assert_same_vectors(ours_sink.data(), ref_sink.data(), n, 50)
            self.assertEqual(len(ours.window()), len(win))

    def test_007_set_window_of_wrong_length_keeps_the_window(self):
        # As gnuradio.fft.fft_vcc: False, and the current window stays.
        n = 32
        first = window.hann(n)
        ours = wideband.fft_vcc(n, True, first)
        ref = fft.fft_vcc(n, True, first)
        for wrong in ([1.0] * (n - 1), [1.0] * (n + 1), [1.0]):
            self.assertFalse(ours.set_window(wrong))
            self.assertFalse(ref.set_window(wrong))
        self.assertFloatTuplesAlmostEqual(ours.window(), first, 7)
        rng = np.random.default_rng(7)
        src = blocks.vector_source_c(never_zero(rng, n * 20), False, n)
        ours_sink = blocks.vector_sink_c(n)
        ref_sink = blocks.vector_sink_c(n)
        self.tb.connect(src, ours, ours_sink)
        self.tb.connect(src, ref, ref_sink)
        self.tb.run()
        assert_same_vectors(ours_sink.data(), ref_sink.data(), n, 20)

    def test_008_bad_arguments_raise_value_error(self):
        for size in (0, -1, -1024):
            with self.assertRaisesRegex(ValueError, r"fft_size must be 1\.\."):
                wideband.fft_vcc(size, True, [])
        for length in (1, 15, 17):
            with self.assertRaisesRegex(ValueError,
                                        rf"window has {length} values.*fft_size \(16\)"):
                wideband.fft_vcc(16, True, [1.0] * length)
        for device in ("no-such-device-xyz", "9:9", "0:", "1:x"):
            with self.assertRaisesRegex(ValueError, "device"):
                wideband.fft_vcc(16, True, [], False, device)
            with self.assertRaises(ValueError):
                wideband.find_device(device)
        if not any(d["type"] == "GPU" for d in wideband.list_devices()):
            with self.assertRaisesRegex(ValueError, "(?i)gpu"):
                wideband.fft_vcc(16, True, [], False, "gpu")

    def test_009_device_selection(self):
        devices = wideband.list_devices()
        self.assertGreater(len(devices), 0)
        self.assertEqual(sum(d["automatic"] for d in devices), 1)
        automatic = wideband.find_device("")
        self.assertTrue(automatic["automatic"])
        self.assertEqual(wideband.fft_vcc(16, True, []).device_name(), automatic["name"])

        specs = ["0:0", devices[-1]["address"], devices[-1]["name"][:6].upper()]
        specs += [t for t in ("cpu", "gpu") if any(d["type"] == t.upper() for d in devices)]
        for spec in specs:
            with self.subTest(device=spec):
                expected = wideband.find_device(spec)
                block = wideband.fft_vcc(16, True, [], False, spec)
                self.assertEqual(block.device_name(), expected["name"])
        # A block on an explicitly chosen device computes the same.
        self.compare(16, True, window.hann(16), True, 100, 9)

    def test_010_wideband_device_environment(self):
        last = wideband.list_devices()[-1]
        saved = os.environ.get("WIDEBAND_DEVICE")
        try:
            os.environ["WIDEBAND_DEVICE"] = last["address"]
            self.assertEqual(wideband.find_device("")["address"], last["address"])
            self.assertEqual(wideband.fft_vcc(8, True, []).device_name(), last["name"])
            os.environ["WIDEBAND_DEVICE"] = "no-such-device-xyz"
            with self.assertRaises(ValueError):
                wideband.fft_vcc(8, True, [])
            self.assertFalse(any(d["automatic"] for d in wideband.list_devices()))
        finally:
            if saved is None:
                os.environ.pop("WIDEBAND_DEVICE", None)
            else:
                os.environ["WIDEBAND_DEVICE"] = saved

    def test_011_no_opencl_platform(self):
        # An ICD loader with an empty vendor directory sees no platform.
        script = ("from gnuradio import wideband\n"
                  "assert wideband.list_devices() == []\n"
                  "wideband.fft_vcc(16, True, [])\n")
        with tempfile.TemporaryDirectory() as empty:
            env = dict(os.environ, OCL_ICD_VENDORS=empty, OPENCL_VENDOR_PATH=empty)
            env.pop("WIDEBAND_DEVICE", None)
            run = subprocess.run([sys.executable, "-c", script], env=env,
                                 capture_output=True, text=True, timeout=120)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("RuntimeError", run.stderr)
        self.assertIn("no OpenCL platform found", run.stderr)

    def test_012_the_in_tree_calls_work(self):
        # A flowgraph for fft.fft_vcc works with only the module changed: nthreads
        # (ignored) fifth, the device after it or fifth as before, and the
        # exception types of the in-tree block where both refuse (the in-tree
        # block refuses a wrong window with RuntimeError, ours with ValueError).
        device = wideband.find_device("")["name"]
        win = window.hann(16)
        for args, keywords in (((16, True, win), {}), ((16, False, win, True), {}),
                               ((16, True, win, True, 2), {}),
                               ((16, True, win), {"shift": True, "nthreads": 4})):
            fft.fft_vcc(*args, **keywords)
            self.assertEqual(wideband.fft_vcc(*args, **keywords).device_name(), device)
        for args, keywords in (((16, True, win, True, 1, ""), {}),
                               ((16, True, win, True, ""), {}),
                               ((16, True, win), {"device": ""}),
                               ((16, True, win, False, 2), {"device": ""})):
            self.assertEqual(wideband.fft_vcc(*args, **keywords).device_name(), device)
        for size, error in ((0, ValueError), (-4, ValueError), (4.5, TypeError)):
            with self.subTest(fft_size=size):
                with self.assertRaises(error):
                    fft.fft_vcc(size, True, [])
                with self.assertRaises(error):
                    wideband.fft_vcc(size, True, [])

    def test_013_blocks_write_nothing_to_stderr(self):
        # New kernels, built for blocks made and run, leave stderr empty: no
        # compiler warnings (PoCL prints "N warnings generated." for each build),
        # no GNU Radio log lines (set_min_output_buffer logs one per block).
        # Radix 14 and a work-group of 64 once left a codelet out of line.
        script = """
import numpy as np
from gnuradio import blocks, gr, wideband
from gnuradio.fft import window
for n in (12, 42, 210, 512, 1000, 4093):
    wideband.fft_vcc(n, True, window.hann(n), True)
wideband.fft_filter_ccc(1, [1, 2, 3])
wideband.fft_filter_ccc(3, [0.5j, 1.0, 0.5])
tb = gr.top_block()
source = blocks.vector_source_c(np.ones(4096, dtype=np.complex64).tolist())
channelizer = wideband.pfb_channelizer_ccf(16, [], 2.0, [0, 1], "", 100, True)
tb.connect(source, channelizer, blocks.null_sink(gr.sizeof_gr_complex * 2))
tb.run()
"""
        with tempfile.TemporaryDirectory() as caches:
            env = dict(os.environ, WIDEBAND_KERNEL_CACHE="off", POCL_CACHE_DIR=caches,
                       WIDEBAND_FFT_TUNE="wg=64")
            run = subprocess.run([sys.executable, "-c", script], env=env,
                                 capture_output=True, text=True, timeout=600)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stderr, "")

    def test_014_bad_environment_variables_raise_value_error(self):
        # Each WIDEBAND_* variable parsed strictly and range-checked when a block
        # is made: one line naming it and what it takes (lib/core/environment.cc).
        taps = [0.5, 1.0, 0.5]
        makers = {
            "fft_vcc": lambda: wideband.fft_vcc(16, True, []),
            "fft_filter_ccc": lambda: wideband.fft_filter_ccc(2, taps),
            "pfb_channelizer_ccf": lambda: wideband.pfb_channelizer_ccf(4, taps),
        }
        cases = {
            "WIDEBAND_CHUNK_SAMPLES": (["-1", "0", "abc", "1023", "2e6", "0x100000",
                                        str(2**30 + 1), str(2**64)],
                                       "an integer from 1024 to 1073741824", "65536"),
            "WIDEBAND_PIPELINE_DEPTH": (["-1", "0", "abc", "17", "1000000", " 2"],
                                        "an integer from 1 to 16", "3"),
            "WIDEBAND_COPY_THREADS": (["-1", "0", "abc", "65", str(2**64)],
                                      "an integer from 1 to 64", "5"),
            "WIDEBAND_PROFILE": (["-1", "2", "yes", "on"], "0 or 1", "0"),
            "WIDEBAND_BUILD_LOG": (["-1", "2", "yes"], "0 or 1", "0"),
            "WIDEBAND_FAULT": (["enqueue:0", "enqueue:-1", "enqueue:abc", "enqueue:",
                                "enqueue:" + str(2**64), "builds", "build:"],
                               "build, build:TEXT or enqueue:N", "enqueue:1000000"),
            "WIDEBAND_FFT_TUNE": (["wg=0", "wg=abc", "local=1", "pad=17", "twiddles=x",
                                   "unknown=1", "wg"], "key=value entries", "wg=128"),
        }
        for name, (bad_values, wanted, good) in cases.items():
            for value in bad_values:
                for block, make in makers.items():
                    with self.subTest(variable=name, value=value, block=block):
                        with mock.patch.dict(os.environ, {name: value}):
                            with self.assertRaises(ValueError) as raised:
                                make()
                        self.assertTrue(str(raised.exception).startswith(
                            f"{name}={value}: wants {wanted}"), str(raised.exception))
                        self.assertNotIn("\n", str(raised.exception))
            with mock.patch.dict(os.environ, {name: good}):
                for make in makers.values():
                    make()


if __name__ == '__main__':
    gr_unittest.run(qa_fft_vcc)
