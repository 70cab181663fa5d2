#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""End-to-end tests of apps/wideband_channelize, run as a program.

    qa_wideband_channelize.py [unittest arguments, e.g. Synthetic]

The program is apps/wideband_channelize beside this file, or $WIDEBAND_CHANNELIZE;
it runs under this interpreter, so PYTHONPATH must reach gnuradio.wideband (ctest
sets it to the build tree's test_modules)."""

import atexit
import contextlib
import json
import math
import os
import queue
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import numpy as np


def use_a_home_of_our_own():
    """GNU Radio reads its settings (log destination, buffer factory) from
    $HOME/.gnuradio: the program and this file's flowgraphs run in a home of
    their own, so that the user's settings cannot change what they print. The
    kernel caches stay where they were."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    os.environ.setdefault("WIDEBAND_KERNEL_CACHE",
                          os.path.join(cache, "gr-wideband", "kernels"))
    os.environ.setdefault("POCL_CACHE_DIR", os.path.join(cache, "pocl"))
    home = tempfile.mkdtemp(prefix="qa_wideband_channelize.home.")
    atexit.register(shutil.rmtree, home, True)
    os.environ["HOME"] = home


use_a_home_of_our_own()
APP = os.environ.get("WIDEBAND_CHANNELIZE") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "wideband_channelize")
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python",
                             "wideband"))
from stream_qa_helpers import consecutive_free_ports  # noqa: E402 (after its folder)


def run_app(*args, cwd=None, env=None, preexec_fn=None, timeout=600):
    """(exit status, stdout, stderr) of the program; env: more environment."""
    p = subprocess.run([sys.executable, APP] + [str(a) for a in args], cwd=cwd,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout, env=dict(os.environ, **(env or {})),
                       preexec_fn=preexec_fn)
    return p.returncode, p.stdout, p.stderr


def centre_offset(c, M):
    """Channel c's centre in cycles per input sample ((c - M)/M from M/2 on)."""
    return c / M if 2 * c < M else (c - M) / M


def notes(meta):
    """A SigMF segment's annotations as (label, sample_start), but for
    back-pressure (the channelizer behind a file's rate on a loaded CPU)."""
    return [(a["core:label"], a["core:sample_start"]) for a in meta["annotations"]
            if a["core:label"] != "backpressure"]


def table_rows(stdout):
    """{channel: (power_db, mark)} from the power table."""
    rows = {}
    for line in stdout.splitlines():
        m = re.match(r"^\s*(\d+)\s+(-?[\d.]+ \w*Hz)\s+(-?[\d.]+|-inf)\s+(-?[\d.]+|-?inf|nan)"
                     r"(?:\s+(yes|MISSED|UNEXPECTED))?", line)
        if m:
            rows[int(m.group(1))] = (float(m.group(3)), m.group(5) or "")
    return rows


@contextlib.contextmanager
def zmq_consumers(endpoints):
    """A flowgraph pulling from each of endpoints ({key: endpoint}) into a vector
    sink, running inside the with block; yields {key: sink}."""
    from gnuradio import blocks, gr, zeromq
    tb = gr.top_block()
    sinks = {}
    for c, endpoint in endpoints.items():
        sinks[c] = blocks.vector_sink_c()
        tb.connect(zeromq.pull_source(gr.sizeof_gr_complex, 1, endpoint), sinks[c])
    tb.start()
    try:
        yield sinks
    finally:
        tb.stop()
        tb.wait()


def wait_for_items(sinks, count, seconds):
    """Until every sink has count items, or seconds have passed."""
    deadline = time.monotonic() + seconds
    while any(s.nitems_read(0) < count for s in sinks.values()) and \
            time.monotonic() < deadline:
        time.sleep(0.01)


def read_lines(stream, lines):
    """Puts each line of stream into the queue lines, then "" at its end."""
    for line in stream:
        lines.put(line)
    lines.put("")


class HeldPipe:
    """A named pipe the program plays as its file: source, written by a thread
    only as far as release() allows. The test decides where in the input a
    reload falls, whatever the machine's speed: a file cannot, as GNU Radio's
    throttle catches up after a stall (the first kernel builds on a loaded
    machine) and may reach the end first."""

    def __init__(self, path, samples):
        os.mkfifo(path)
        self.path, self.data, self.itemsize = path, samples.tobytes(), samples.itemsize
        self.allowed = 0
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self.write, daemon=True)
        self.thread.start()

    def release(self, count=None):
        """The first count samples (all: None) let through; all ends the file."""
        with self.cond:
            self.allowed = len(self.data) if count is None else count * self.itemsize
            self.cond.notify()

    def write(self):
        done = 0
        try:
            with open(self.path, "wb") as f:
                while done < len(self.data):
                    with self.cond:
                        self.cond.wait_for(lambda: self.allowed > done)
                        end = self.allowed
                    f.write(self.data[done:end])
                    f.flush()
                    done = end
        except BrokenPipeError:
            pass  # the program ended first: its test says why

    def close(self):
        """The thread ended, also when no reader came or the reader died."""
        self.release()
        reader = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)  # frees a writer in open()
        os.close(reader)
        self.thread.join(30)


class Case(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="qa_channelize_")
        # The first cleanup registered runs last: after a test's programs end.
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def ok(self, *args, rc=0):
        status, out, err = run_app(*args)
        self.assertEqual(status, rc, "exit status %d, expected %d\n--- stdout\n%s--- stderr\n%s"
                         % (status, rc, out, err))
        self.assertNotIn("Traceback", err)
        return out, err

    def check_sigmf(self, outdir, name, M, channels, fs, centre, oversample, nsamples,
                    carriers=None):
        """Every selected channel has a valid recording: the meta's fields and the
        data's length; returns {channel: samples}."""
        D = int(round(M / oversample))
        width = max(4, len(str(M - 1)))
        files = sorted(f for f in os.listdir(outdir) if f.startswith(name + "_ch"))
        self.assertEqual(len(files), 2 * len(channels), files)
        data = {}
        for c in channels:
            base = os.path.join(outdir, "%s_ch%0*d" % (name, width, c))
            with open(base + ".sigmf-meta") as f:
                meta = json.load(f)
            g = meta["global"]
            self.assertEqual(g["core:datatype"], "cf32_le")
            self.assertRegex(g["core:version"], r"^1\.\d+\.\d+$")
            self.assertAlmostEqual(g["core:sample_rate"], fs / D, delta=1e-9 * fs)
            self.assertIn("wideband_channelize", g["core:recorder"])
            self.assertIsInstance(g["core:description"], str)
            self.assertEqual(len(meta["captures"]), 1)
            cap = meta["captures"][0]
            self.assertEqual(cap["core:sample_start"], 0)
            self.assertAlmostEqual(cap["core:frequency"], centre + centre_offset(c, M) * fs,
                                   delta=1e-6 * max(fs, abs(centre)))
            self.assertIsInstance(meta["annotations"], list)
            if carriers is not None:
                self.assertEqual(bool(meta["annotations"]), c in carriers,
                                 "channel %d annotations %r" % (c, meta["annotations"]))
                for a in meta["annotations"]:
                    self.assertEqual(a["core:label"], "carrier")
                    self.assertEqual(a["core:sample_start"], 0)
            size = os.path.getsize(base + ".sigmf-data")
            self.assertEqual(size % 8, 0, "not a whole number of cf32 samples")
            self.assertEqual(size // 8, nsamples // D, "channel %d length" % c)
            data[c] = np.fromfile(base + ".sigmf-data", dtype=np.complex64)
        return data


class Synthetic(Case):
    """The synthetic signal: carriers in the right channels, valid SigMF, plot."""

    def test_carriers_in_their_channels(self):
        M, N, fs, fc = 32, 1 << 20, 20e6, 433.92e6
        out, err = self.ok("--expect", "-c", M, "--carriers", 5, "--samples", N,
                           "-s", "20M", "-f", "433.92M", "--seed", 3, "-o", self.dir)
        self.assertRegex(out, r"result: +all 5 expected carriers found in their channels")
        self.assertRegex(out, r"throughput: +%d input samples in [\d.]+ s: [\d.]+ Msamples/s on "
                         % N)
        m = re.search(r"found in their channels \(([\d, ]+)\)", out)
        carriers = {int(c) for c in m.group(1).split(",")}
        self.assertEqual(len(carriers), 5)
        rows = table_rows(out)
        self.assertEqual(sorted(rows), list(range(M)))
        for c, (p, mark) in rows.items():
            self.assertEqual(mark, "yes" if c in carriers else "", "channel %d" % c)
        # The table shows the power put in beside the power measured.
        for line in out.splitlines():
            m = re.match(r"^\s*(\d+)\s.*?(-?[\d.]+)\s+[-\d.]+\s+yes\s+(QPSK|16-QAM) (-?[\d.]+) dB",
                         line)
            if m:
                self.assertAlmostEqual(float(m.group(2)), float(m.group(4)), delta=0.3, msg=line)
        data = self.check_sigmf(self.dir, "synthetic", M, list(range(M)), fs, fc, 1, N, carriers)
        # Channel M/2 is labelled -fs/2.
        with open(self.path("synthetic_ch%04d.sigmf-meta" % (M // 2))) as f:
            self.assertEqual(json.load(f)["captures"][0]["core:frequency"], fc - fs / 2)
        noise = [10 * math.log10(np.mean(np.abs(v[64:]) ** 2)) for c, v in data.items()
                 if c not in carriers]
        sig = [10 * math.log10(np.mean(np.abs(data[c][64:]) ** 2)) for c in carriers]
        self.assertGreater(min(sig), max(noise) + 20)
        with open(self.path("channelize.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_expect_mismatch_exit_3(self):
        # Channel 0 holds no carrier with this seed; the real carriers are not listed.
        out, err = self.ok("--expect", "0", "-c", 16, "--carriers", 2, "--samples", 1 << 18,
                           "--no-plot", "--quiet", "-o", self.dir, rc=3)
        self.assertRegex(out, r"result: +1 of 1 expected carriers MISSED \(channels 0\); "
                         r"carriers in UNEXPECTED channels")
        self.assertFalse(os.path.exists(self.path("channelize.png")))


class Layouts(Case):
    """Vector output split into files equals one stream per channel; channel lists,
    oversampling, a length that is not a multiple of D."""

    def test_vector_equals_streams(self):
        M, N, R = 16, 300007, 2
        sel = [14, 15, 0, 1, 2, 8]  # "-2-2,8": through DC, and M/2
        args = ["-c", M, "-r", R, "--channels-list", "-2-2,8", "--samples", N,
                "--carriers", 4, "--seed", 5, "--no-plot", "--expect"]
        self.ok(*args, "--output-layout", "streams", "-o", self.path("s"))
        self.ok(*args, "--output-layout", "vector", "-o", self.path("v"))
        a = self.check_sigmf(self.path("s"), "synthetic", M, sel, 100e6, 0.0, R, N)
        b = self.check_sigmf(self.path("v"), "synthetic", M, sel, 100e6, 0.0, R, N)
        for c in sel:
            np.testing.assert_array_equal(a[c], b[c])
        self.assertEqual([f for f in os.listdir(self.path("v")) if f.endswith(".tmp")], [])


class FileInputs(Case):
    """A raw complex64 file and SigMF recordings: tones land in the channel whose
    centre frequency the output metadata names."""

    M = 16
    N = 100000
    fs = 2e6

    def tones(self, specs, noise=1e-3, seed=0):
        """Sum of tones (channel, offset in channel spacings, amplitude) plus noise."""
        n = np.arange(self.N)
        x = np.zeros(self.N, np.complex128)
        for c, off, amp in specs:
            x += amp * np.exp(2j * np.pi * (centre_offset(c, self.M) + off / self.M) * n)
        rng = np.random.default_rng(seed)
        x += noise * (rng.standard_normal(self.N) + 1j * rng.standard_normal(self.N))
        return x.astype(np.complex64)

    def check_tone(self, samples, offset):
        """The channel's strongest frequency is offset channel spacings off its centre."""
        y = samples[64:]
        spec = np.abs(np.fft.fft(y * np.hanning(y.size)))
        f = np.fft.fftfreq(y.size)[np.argmax(spec)]  # cycles per output sample (D = M)
        self.assertAlmostEqual(f, offset, delta=2.0 / y.size)

    def test_raw_file(self):
        x = self.tones([(3, 0.1, 0.5), (12, -0.05, 0.2)])
        x.tofile(self.path("capture.cfile"))
        out, err = self.ok(self.path("capture.cfile"), "-c", self.M, "-s", "2M", "-f", "100M",
                           "--expect", "3,-4", "-o", self.path("out"))
        data = self.check_sigmf(self.path("out"), "capture", self.M, list(range(self.M)),
                                self.fs, 100e6, 1, self.N, {3, 12})
        self.check_tone(data[3], 0.1)
        self.check_tone(data[12], -0.05)
        with open(self.path("out", "capture_ch0003.sigmf-meta")) as f:
            self.assertEqual(json.load(f)["captures"][0]["core:frequency"], 100e6 + 3 * 125e3)
        with open(self.path("out", "capture_ch0012.sigmf-meta")) as f:
            self.assertEqual(json.load(f)["captures"][0]["core:frequency"], 100e6 - 4 * 125e3)

    def write_sigmf(self, base, x, datatype="cf32_le", rate=None, freq=915e6):
        if datatype == "cf32_le":
            x.tofile(base + ".sigmf-data")
        else:
            iq = np.stack([x.real, x.imag], axis=1) * 32767
            iq.round().astype("<i2").tofile(base + ".sigmf-data")
        meta = {"global": {"core:datatype": datatype, "core:version": "1.0.0",
                           "core:sample_rate": self.fs if rate is None else rate,
                           "core:description": "test recording"},
                "captures": [{"core:sample_start": 0, "core:frequency": freq}],
                "annotations": []}
        with open(base + ".sigmf-meta", "w") as f:
            json.dump(meta, f)

    def test_sigmf(self):
        x = self.tones([(13, -0.15, 0.3)])  # channel 13 = -3 of 16
        self.write_sigmf(self.path("rec"), x)
        out, err = self.ok(self.path("rec.sigmf-meta"), "-c", self.M, "-l", "-3,0,5",
                           "--expect", "-3", "-o", self.path("out"))
        self.assertIn("915.000 MHz", out)
        data = self.check_sigmf(self.path("out"), "rec", self.M, [13, 0, 5], self.fs, 915e6,
                                1, self.N, {13})
        self.check_tone(data[13], -0.15)
        with open(self.path("out", "rec_ch0013.sigmf-meta")) as f:
            self.assertEqual(json.load(f)["captures"][0]["core:frequency"], 915e6 - 3 * 125e3)

    def test_sigmf_ci16_skip_samples(self):
        x = self.tones([(5, 0.0, 0.4)])
        self.write_sigmf(self.path("rec16"), x, datatype="ci16_le", freq=0)
        # The .sigmf-data name works too; 1000 samples skipped, 50000 used.
        self.ok(self.path("rec16.sigmf-data"), "-c", self.M, "--skip", 1000, "--samples", 50000,
                "--expect", "5", "--no-plot", "-o", self.path("out"))
        data = self.check_sigmf(self.path("out"), "rec16", self.M, list(range(self.M)), self.fs,
                                0.0, 1, 50000, {5})
        self.check_tone(data[5], 0.0)

    def test_integer_samples_go_to_the_device_unconverted(self):
        """ci16_le and ci8 recordings (and raw files of them) give the channels of
        their values divided by the full scale (32768, 128), as the cf32_le
        recording of those floats does: the integers cross as they are, the
        scale is in the taps. So do the recordings through a channel plan
        (--plan: channel_bank_ccc)."""
        x = self.tones([(6, 0.1, 0.4), (11, -0.2, 0.3)], noise=0.05)
        plan = self.path("plan.csv")
        with open(plan, "w") as f:
            f.write("name,center,rate,bandwidth,decimation,transition,attenuation_db,window\n"
                    "up,762.5k,125k,,,,,\n"
                    "down,-650k,,,5,,,\n"
                    "dc,0,2M,,,,,\n")
        for datatype, dtype, scale in (("ci16_le", "<i2", 32768), ("ci8", "i1", 128)):
            with self.subTest(datatype=datatype):
                iq = np.stack([x.real, x.imag], axis=1) * (scale - 1)
                iq = iq.round().astype(dtype)
                iq.tofile(self.path(datatype + ".raw"))
                self.write_sigmf(self.path(datatype), x, freq=0)
                iq.tofile(self.path(datatype + ".sigmf-data"))
                with open(self.path(datatype + ".sigmf-meta")) as f:
                    meta = json.load(f)
                meta["global"]["core:datatype"] = datatype
                with open(self.path(datatype + ".sigmf-meta"), "w") as f:
                    json.dump(meta, f)
                values = iq.astype(np.float32) / scale
                self.write_sigmf(self.path("float"), (values[:, 0] + 1j * values[:, 1])
                                 .astype(np.complex64), freq=0)
                runs = {"float": (self.path("float.sigmf-meta"),),
                        datatype: (self.path(datatype + ".sigmf-meta"),),
                        "raw": (self.path(datatype + ".raw"), "--datatype", datatype,
                                "-s", "2M")}
                converted = "%s input converted on the device" % (
                    "sc16" if datatype == "ci16_le" else "sc8")
                channels = {}
                for name, source in runs.items():
                    out, err = self.ok(*source, "-c", self.M, "-l", "6,11,0", "--no-plot",
                                       "-o", self.path(name + "-out"), "--overwrite")
                    if name != "float":
                        self.assertIn(converted, out)
                    channels[name] = self.check_sigmf(
                        self.path(name + "-out"), name if name != "raw" else datatype,
                        self.M, [6, 11, 0], self.fs, 0.0, 1, self.N)
                for name in ("float", datatype):
                    out, err = self.ok(runs[name][0], "--plan", plan, "--no-plot",
                                       "-o", self.path(name + "-plan"), "--overwrite")
                    if name != "float":
                        self.assertIn(converted, out)
                    for c, D in (("up", 16), ("down", 5), ("dc", 1)):
                        channels[name][c] = np.fromfile(
                            self.path(name + "-plan", c + ".sigmf-data"), np.complex64)
                        self.assertEqual(len(channels[name][c]), self.N // D)
                compared = {datatype: (6, 11, 0, "up", "down", "dc"), "raw": (6, 11, 0)}
                for name, keys in compared.items():
                    for c in keys:
                        expected = channels["float"][c]
                        np.testing.assert_allclose(
                            channels[name][c], expected, rtol=0,
                            atol=1e-6 * np.abs(expected).max(),
                            err_msg="%s, channel %s" % (name, c))

    def test_sigmf_non_conforming_dataset(self):
        """core:dataset names the data file, core:header_bytes and
        core:trailing_bytes frame the samples: the same channels as from the
        plain recording."""
        x = self.tones([(6, 0.1, 0.4)])
        self.write_sigmf(self.path("plain"), x, datatype="ci16_le")
        with open(self.path("plain.sigmf-data"), "rb") as f:
            samples = f.read()
        with open(self.path("capture.bin"), "wb") as f:
            f.write(os.urandom(6) + samples + os.urandom(10))
        with open(self.path("plain.sigmf-meta")) as f:
            meta = json.load(f)
        meta["global"]["core:dataset"] = "capture.bin"
        meta["global"]["core:trailing_bytes"] = 10
        meta["captures"][0]["core:header_bytes"] = 6
        with open(self.path("ncd.sigmf-meta"), "w") as f:
            json.dump(meta, f)
        for name in ("plain", "ncd"):
            self.ok(self.path(name + ".sigmf-meta"), "-c", self.M, "--skip", 3, "--no-plot",
                    "--quiet", "-o", self.path(name + "-out"))
        a = self.check_sigmf(self.path("plain-out"), "plain", self.M, list(range(self.M)),
                             self.fs, 915e6, 1, self.N - 3)
        b = self.check_sigmf(self.path("ncd-out"), "ncd", self.M, list(range(self.M)), self.fs,
                             915e6, 1, self.N - 3)
        for c in a:
            np.testing.assert_array_equal(a[c], b[c], "channel %d" % c)
        # A header that ends inside a sample, and bytes between captures, are refused.
        meta["captures"][0]["core:header_bytes"] = 7
        with open(self.path("odd.sigmf-meta"), "w") as f:
            json.dump(meta, f)
        status, out, err = run_app(self.path("odd.sigmf-meta"), "-o", self.path("odd-out"))
        self.assertEqual(status, 1, err)
        self.assertRegex(err, r"a header of 7 bytes does not end on a ci16_le sample boundary")
        meta["captures"][0]["core:header_bytes"] = 6
        meta["captures"].append({"core:sample_start": 100, "core:header_bytes": 4})
        with open(self.path("two.sigmf-meta"), "w") as f:
            json.dump(meta, f)
        status, out, err = run_app(self.path("two.sigmf-meta"), "-o", self.path("two-out"))
        self.assertEqual(status, 1, err)
        self.assertRegex(err, r"capture 1 has core:header_bytes")


class ZeroMQ(Case):
    """--zmq over loopback: a PULL consumer on each printed endpoint receives its
    channel, every sample in order, the same as the channel's recording."""

    M = 16
    N = 1 << 18

    def start(self, channels, *args):
        """Starts the program; returns {channel: endpoint} from the lines it prints
        before it streams (it then waits for the consumers)."""
        self.stderr = open(self.path("stderr.txt"), "w")
        self.addCleanup(self.stderr.close)
        self.app = subprocess.Popen([sys.executable, APP] + [str(a) for a in args],
                                    stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        self.addCleanup(self.app.stdout.close)
        self.addCleanup(self.app.wait, 60)
        self.addCleanup(self.app.kill)
        self.lines = queue.Queue()
        self.reader = threading.Thread(target=read_lines, args=(self.app.stdout, self.lines),
                                       daemon=True)
        self.reader.start()
        self.stdout = ""
        endpoints = {}
        while len(endpoints) < channels:
            try:
                line = self.lines.get(timeout=120)
            except queue.Empty:
                self.fail("not all endpoints printed within 120 s:\n" + self.stdout)
            if not line:
                with open(self.path("stderr.txt")) as f:
                    self.fail("the program ended before printing all endpoints:\n%s%s"
                              % (self.stdout, f.read()))
            self.stdout += line
            m = re.match(r"^zeromq: +channel (\S+) \(.*\) on (tcp://[^\s,]+)(, \d+ samples)?$",
                         line)
            if m:
                key = m.group(1)
                endpoints[int(key) if key.isdigit() else key] = m.group(2)
        return endpoints

    def receive(self, endpoints, count):
        """Pulls from every endpoint until the program ends and count samples came
        from each (or 30 s more passed); returns {channel: samples}."""
        with zmq_consumers(endpoints) as sinks:
            status = self.app.wait(timeout=300)
            self.reader.join(10)
            while not self.lines.empty():
                self.stdout += self.lines.get()
            with open(self.path("stderr.txt")) as f:
                self.assertEqual(status, 0, "exit status %d\n--- stdout\n%s--- stderr\n%s"
                                 % (status, self.stdout, f.read()))
            wait_for_items(sinks, count, 30)
        return {c: np.asarray(s.data(), np.complex64) for c, s in sinks.items()}

    def check_received(self, received, recordings):
        for c, samples in received.items():
            self.assertEqual(len(samples), len(recordings[c]), "channel %s: sample count" % c)
            np.testing.assert_array_equal(samples, recordings[c], "channel %s" % c)
        # The channels differ, so each endpoint carried its own.
        for a in received:
            for b in recordings:
                if a != b:
                    self.assertFalse(np.array_equal(received[a], recordings[b]))

    def test_every_sample_of_each_channel_in_order(self):
        port = consecutive_free_ports(3)
        endpoints = self.start(3, "-c", self.M, "--samples", self.N, "-l", "5,2,-3",
                               "--zmq", "tcp://127.0.0.1:%d" % port, "--no-plot",
                               "-o", self.path("out"))
        self.assertIn("zeromq:      PUSH sockets, %d complex64 samples per channel"
                      % (self.N // self.M), self.stdout)
        # PORT + the channel's position in --channels-list.
        self.assertEqual(endpoints, {5: "tcp://127.0.0.1:%d" % port,
                                     2: "tcp://127.0.0.1:%d" % (port + 1),
                                     13: "tcp://127.0.0.1:%d" % (port + 2)})
        received = self.receive(endpoints, self.N // self.M)
        recordings = self.check_sigmf(self.path("out"), "synthetic", self.M, [5, 2, 13], 100e6,
                                      0.0, 1, self.N)
        self.check_received(received, recordings)

    def test_any_free_port_vector_layout_quiet(self):
        R = 2
        endpoints = self.start(2, "-c", self.M, "-r", R, "--samples", self.N, "-l", "0,8",
                               "--zmq", "tcp://127.0.0.1:*", "--output-layout", "vector",
                               "--quiet", "--no-plot", "-o", self.path("out"))
        self.assertEqual(sorted(endpoints), [0, 8])
        self.assertEqual(len(set(endpoints.values())), 2)
        received = self.receive(endpoints, self.N * R // self.M)
        recordings = self.check_sigmf(self.path("out"), "synthetic", self.M, [0, 8], 100e6, 0.0,
                                      R, self.N)
        self.check_received(received, recordings)


    @unittest.skipUnless(os.geteuid() == 0 and shutil.which("mount"),
                         "mounting a small tmpfs needs root")
    def test_disk_fills_while_streaming(self):
        """The disk fills after every check has passed: the program, paced by
        its consumer, stops within seconds with the system's message (GNU
        Radio's file_sink would leave the flowgraph waiting for ever)."""
        disk = self.path("disk")
        os.mkdir(disk)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", disk]).returncode:
            self.skipTest("cannot mount a tmpfs here")
        self.addCleanup(subprocess.run, ["umount", "-l", disk])
        endpoints = self.start(1, "-c", self.M, "--samples", 1 << 20, "-l", 3, "--zmq",
                               "tcp://127.0.0.1:*", "--no-plot", "-o", os.path.join(disk, "a"))
        with open(os.path.join(disk, "filler"), "wb") as f:
            try:
                while True:
                    f.write(bytes(1 << 16))
                    f.flush()
            except OSError:
                pass
        from gnuradio import blocks, gr, zeromq
        tb = gr.top_block()
        tb.connect(zeromq.pull_source(gr.sizeof_gr_complex, 1, endpoints[3]),
                   blocks.null_sink(gr.sizeof_gr_complex))
        tb.start()
        try:
            status = self.app.wait(timeout=60)
        finally:
            tb.stop()
            tb.wait()
        with open(self.path("stderr.txt")) as f:
            err = f.read()
        self.assertEqual(status, 1, err)
        self.assertRegex(err.splitlines()[-1], r"^wideband_channelize: cannot write .*/a/"
                                               r"synthetic_ch0003.sigmf-data: No space left on "
                                               r"device$")
        self.assertEqual(os.listdir(os.path.join(disk, "a")), [])


def freq_xlating_reference(x, taps, decimation, offset, fs):
    """freq_xlating_fir_filter_ccc's definition in float64: y[n] = e^{-j w (N-1)/2}
    e^{-j w D n} sum_k p[k] e^{j w k} x[nD - k] (x before the stream 0), w = 2 pi
    offset / fs, N taps p, decimation D; the in-tree block's N // D outputs."""
    w = 2 * np.pi * offset / fs
    k = np.arange(len(taps))
    h = np.asarray(taps, np.float64) * np.exp(1j * w * k)
    y = np.convolve(np.asarray(x, np.complex128), h)[:len(x)][::decimation][:len(x) // decimation]
    n = np.arange(len(y))
    return np.exp(-1j * w * (len(taps) - 1) / 2) * np.exp(-1j * w * decimation * n) * y


def relative_l2(a, b):
    return float(np.linalg.norm(np.asarray(a, np.complex128) - b) / np.linalg.norm(b))


class Plan(Case):
    """--plan: channels at their own centres, rates and filters through
    channel_bank_ccc; each recording is freq_xlating_fir_filter_ccc of the
    input with the plan's taps (against that definition in float64), with
    its true rate and centre in the metadata; CSV and YAML; --zmq; bad
    plans refused naming the line and channel."""

    fs = 1e6
    fc = 100e6
    N = 60000
    # name, absolute centre, a tone's offset from it, decimation
    CSV = ("# a test plan\n"
           "name,center,rate,bandwidth,decimation,transition,attenuation_db,window\n"
           "narrow,100.1M,50k,,,,,\n"             # D = 20, bandwidth 40 kHz
           "wide,99.75M,,150k,,,60,\n"            # D = floor(1M / 187.5k) = 5
           "\n"
           "edge,99.55M,,,10,,,hamming\n"         # 450 kHz below, bandwidth 80 kHz
           "full,100M,1M,,,,,\n")                 # D = 1
    EXPECTED = {"narrow": (100.1e6, 20, 40e3), "wide": (99.75e6, 5, 150e3),
                "edge": (99.55e6, 10, 80e3), "full": (100e6, 1, 800e3)}
    TONES = ((100.1e6 + 3e3, 0.3), (99.75e6 - 20e3, 0.2), (99.55e6 + 10e3, 0.4))

    def input(self):
        n = np.arange(self.N)
        x = np.zeros(self.N, np.complex128)
        for f, amp in self.TONES:
            x += amp * np.exp(2j * np.pi * (f - self.fc) / self.fs * n)
        rng = np.random.default_rng(4)
        x += 1e-3 * (rng.standard_normal(self.N) + 1j * rng.standard_normal(self.N))
        return x.astype(np.complex64)

    def write(self, name, text):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.path(name)

    def check_plan_outputs(self, outdir, x, plan_path):
        """The recordings of the plan: metadata, lengths, and the float64
        definition of each channel with the plan's taps; returns {name: data}."""
        from gnuradio.wideband import channel_plan
        channels = {c.name: c for c in channel_plan.load(plan_path, self.fs, self.fc)}
        self.assertEqual(sorted(channels), sorted(self.EXPECTED))
        data = {}
        for name, (freq, D, bandwidth) in self.EXPECTED.items():
            c = channels[name]
            self.assertEqual((c.decimation, c.frequency), (D, freq), name)
            self.assertAlmostEqual(c.bandwidth, bandwidth, delta=1e-6, msg=name)
            with open(os.path.join(outdir, name + ".sigmf-meta")) as f:
                meta = json.load(f)
            g = meta["global"]
            self.assertEqual(g["core:datatype"], "cf32_le")
            self.assertEqual(g["core:sample_rate"], self.fs / D, name)
            self.assertIn("wideband_channelize", g["core:recorder"])
            self.assertIn("channel %s (centre %+.9g Hz from the input's" % (name, freq - self.fc),
                          g["core:description"])
            self.assertEqual(meta["captures"], [{"core:sample_start": 0,
                                                 "core:frequency": freq}], name)
            y = np.fromfile(os.path.join(outdir, name + ".sigmf-data"), np.complex64)
            self.assertEqual(len(y), self.N // D, name)
            ref = freq_xlating_reference(x, c.taps, D, freq - self.fc, self.fs)
            self.assertLess(relative_l2(y, ref), 1e-4, name)
            data[name] = y
        return data

    def test_reference_is_the_in_tree_filter(self):
        """The float64 definition above is gnuradio.filter.freq_xlating_fir_filter_ccc
        (on a short input: the in-tree block drifts in float32 over long ones)."""
        from gnuradio import blocks, filter, gr
        from gnuradio.wideband import channel_plan
        x = self.input()[:3000]
        for c in channel_plan.load(self.write("plan.csv", self.CSV), self.fs, self.fc):
            tb = gr.top_block()
            sink = blocks.vector_sink_c()
            tb.connect(blocks.vector_source_c(x.tolist()),
                       filter.freq_xlating_fir_filter_ccc(c.decimation, c.taps.tolist(),
                                                          c.offset, self.fs), sink)
            tb.run()
            ref = freq_xlating_reference(x, c.taps, c.decimation, c.offset, self.fs)
            self.assertLess(relative_l2(sink.data(), ref), 1e-3, c.name)

    def test_csv_and_yaml_plans(self):
        x = self.input()
        x.tofile(self.path("in.cfile"))
        plan = self.write("plan.csv", self.CSV)
        out, err = self.ok(self.path("in.cfile"), "-s", "1M", "-f", "100M", "--plan", plan,
                           "--expect", "narrow,wide,edge,full", "-o", self.path("csv"))
        self.assertRegex(out, r"result: +all 4 expected carriers found in their channels "
                              r"\(edge, full, narrow, wide\)")
        self.assertRegex(out, r"wrote: +4 SigMF recordings in .*, 3000 to 60000 samples")
        self.assertEqual(sorted(os.listdir(self.path("csv"))),
                         sorted(["channelize.png"] + [n + ext for n in self.EXPECTED
                                                      for ext in (".sigmf-data", ".sigmf-meta")]))
        a = self.check_plan_outputs(self.path("csv"), x, plan)
        # The same plan in YAML, centres as offsets, through a SigMF recording
        # that gives the rate and centre.
        yaml_plan = self.write("plan.yaml", """channels:
  - {name: narrow, offset: 100k, rate: 50k}
  - {name: wide, offset: -250000, bandwidth: 150k, attenuation_db: 60}
  - {name: edge, offset: -450k, decimation: 10, window: hamming}
  - {name: full, offset: 0, rate: 1M}
""")
        x.tofile(self.path("rec.sigmf-data"))
        with open(self.path("rec.sigmf-meta"), "w") as f:
            json.dump({"global": {"core:datatype": "cf32_le", "core:sample_rate": self.fs,
                                  "core:version": "1.0.0"},
                       "captures": [{"core:sample_start": 0, "core:frequency": self.fc}]}, f)
        self.ok(self.path("rec.sigmf-meta"), "--plan", yaml_plan, "--no-plot", "--quiet",
                "-o", self.path("yaml"))
        b = self.check_plan_outputs(self.path("yaml"), x, yaml_plan)
        for name in a:  # the same channels (to float rounding: GNU Radio's calls may differ)
            self.assertLess(relative_l2(b[name], a[name]), 1e-5, name)

    def test_zmq(self):
        x = self.input()
        x.tofile(self.path("in.cfile"))
        port = consecutive_free_ports(4)
        endpoints = ZeroMQ.start(self, 4, self.path("in.cfile"), "-s", "1M", "-f", "100M",
                                 "--plan", self.write("plan.csv", self.CSV),
                                 "--zmq", "tcp://127.0.0.1:%d" % port, "--no-plot",
                                 "-o", self.path("out"))
        self.assertEqual(endpoints, {name: "tcp://127.0.0.1:%d" % (port + i)
                                     for i, name in enumerate(["narrow", "wide", "edge", "full"])})
        received = ZeroMQ.receive(self, endpoints, self.N)
        recordings = {name: np.fromfile(self.path("out", name + ".sigmf-data"), np.complex64)
                      for name in endpoints}
        ZeroMQ.check_received(self, received, recordings)

    def test_example(self):
        """examples/channel_bank.py: channel_bank_ccc on examples/channel_plan.csv,
        each channel's tone where it was put."""
        example = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples",
                               "channel_bank.py")
        p = subprocess.run([sys.executable, example, "--samples", "100000", "--output",
                            self.path("out")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        names = ["lpd_ch01", "lora_433175", "keyfob", "sensor", "lora_434665"]
        rows = [line.split() for line in p.stdout.splitlines()[2:]]
        self.assertEqual([r[0] for r in rows], names, p.stdout)
        for r in rows:
            self.assertEqual(len(r), 8, r)  # no "OFF"
        self.assertEqual(sorted(os.listdir(self.path("out"))), sorted(n + ".cf32" for n in names))

    def test_designed_taps(self):
        """The taps pass the band and stop from the transition on (where that
        is below fs/2): Kaiser by the attenuation asked, the other windows by
        their own (within 3 and 4 dB), the pass band within as much ripple."""
        from gnuradio.fft import window
        from gnuradio.wideband import channel_plan
        own = {"hamming": window.WIN_HAMMING, "hann": window.WIN_HANN,
               "blackman": window.WIN_BLACKMAN, "blackmanharris": window.WIN_BLACKMAN_HARRIS,
               "rectangular": window.WIN_RECTANGULAR}
        plan = self.write("plan.csv", self.CSV + "deep,100.2M,25k,,,,100,\n" + "".join(
            "%s,100.2M,,,10,,,%s\n" % (w, w) for w in own))
        for c in channel_plan.load(plan, self.fs, self.fc):
            a = c.attenuation_db - 3 if c.window == "kaiser" else \
                window.max_attenuation(own[c.window], 6.76) - 4
            f = np.fft.fftfreq(1 << 18) * self.fs
            H = np.abs(np.fft.fft(c.taps, 1 << 18))
            passband = H[np.abs(f) <= c.bandwidth / 2]
            stopband = H[np.abs(f) >= c.bandwidth / 2 + c.transition]
            self.assertLess(np.max(np.abs(passband - 1)), 10 ** (-a / 20), c.name)
            if stopband.size:
                self.assertLess(np.max(stopband), 10 ** (-a / 20), c.name)

    def test_bad_plans(self):
        from gnuradio.wideband import channel_plan
        head = "name,center,rate\n"
        csv_mistakes = (
                ("", r"plan.csv has no channels"),
                ("name,centre,rate\nx,1M,10k\n", r"line 1 \(header\): unknown column 'centre'"),
                ("center,rate\n1M,10k\n", r"no name column"),
                (head + "a,100.1M,10k\na,100.2M,10k\n",
                 r"line 3: channel name 'a' is used already \(plan.csv line 2\)"),
                (head + "a/b,100.1M,10k\n", r"line 2: channel name 'a/b'"),
                (head + "a,100.1M,48k\n",
                 r"line 2 \(channel a\): rate 48 kHz: 1 MHz / 48 kHz = 20.8333 is not a whole "
                 r"decimation; 50 kHz \(decimation 20\) and 47.6190476 kHz \(decimation 21\)"),
                (head + "a,100.1M,2M\n", r"rate 2 MHz is above the input's 1 MHz"),
                (head + "a,100.6M,10k\n", r"\(channel a\): centre 100.6 MHz is 600 kHz from "
                                          r"the input's centre 100 MHz, outside its band"),
                (head + "a,100.49M,100k\n", r"\(channel a\): its band 100.45 MHz .. 100.53 MHz "
                                            r"does not fit the input's 99.5 MHz .. 100.5 MHz"),
                (head + "a,100.1M,x\n", r"\(channel a\): rate: wants a number"),
                (head + "a,100.1M,-5k\n", r"rate must be positive"),
                (head + "a,100.1M,10k,7\n", r"line 2: 4 values for 3 columns"),
                ("name,center\na,100.1M\n", r"give rate \(output sample rate\), bandwidth or "
                                             r"decimation"),
                ("name,center,rate,decimation\na,100.1M,10k,50\n",
                 r"rate 10 kHz and decimation 50 disagree: 1 MHz / 50 = 20 kHz"),
                ("name,center,rate,bandwidth\na,100.1M,10k,10k\n",
                 r"bandwidth 10 kHz is not below the output rate 10 kHz"),
                ("name,center,rate,window\na,100.1M,10k,gauss\n", r"window 'gauss': one of"),
                ("name,center,rate,window,attenuation_db\na,100.1M,10k,hann,90\n",
                 r"attenuation_db is for the kaiser window"),
                ("name,center,rate,transition\na,100.1M,10k,0.001\n",
                 r"need \d+ taps, more than 1048576"),
                ("name,rate\na,10k\n", r"no center \(absolute, Hz\) or offset"),
                ("name,center,offset,rate\na,100.1M,,10k\nb,,5k,10k\n",
                 r"gives both center \(absolute\) and offset"),
                ("name,center,decimation\na,100.1M,2.5\n", r"decimation wants a whole number"))
        yaml_mistakes = (("- [1, 2]\n", r"plan.yaml entry 1: wants a mapping"),
                         ("channels: 3\n", r"wants a list of channels"),
                         ("- {name: a, rate: 10k, center: 100.1M, bw: 5k}\n",
                          r"plan.yaml entry 1: unknown column 'bw'"),
                         ("- {name: a\n", r"plan.yaml is not valid YAML"))
        for name, mistakes in (("plan.csv", csv_mistakes), ("plan.yaml", yaml_mistakes)):
            for text, regex in mistakes:
                with self.subTest(text=text):
                    with self.assertRaisesRegex(channel_plan.PlanError, regex):
                        channel_plan.load(self.write(name, text), self.fs, self.fc)
        with self.assertRaisesRegex(channel_plan.PlanError, r"cannot read channel plan .*: No such"):
            channel_plan.load(self.path("missing.csv"), self.fs, self.fc)
        # The program: one line, exit status 1 for the plan, 2 for the command line.
        np.zeros(1000, np.complex64).tofile(self.path("in.cfile"))
        ok_plan = self.write("ok.csv", head + "a,100.1M,10k\n")
        for rc, args, regex in (
                (1, ("--plan", self.path("missing.csv")), r"cannot read channel plan"),
                (1, ("--plan", self.write("bad.csv", head + "a,100.1M,48k\n")),
                 r"^wideband_channelize: bad.csv line 2 \(channel a\): rate 48 kHz: .* is not a "
                 r"whole decimation"),
                (1, ("--plan", ok_plan, "--samples", "50"),
                 r"50 input samples give no output for channel a \(decimation 100\)"),
                (2, ("--plan", ok_plan, "-l", "3"), r"--channels-list does not go with --plan"),
                (2, ("--plan", ok_plan, "--taps", "t.txt"), r"--taps does not go with --plan"),
                (2, ("--plan", ok_plan, "--expect", "a,b"),
                 r"--expect: b is not a channel of .*ok.csv \(a\)"),
                (2, ("--plan", ok_plan, "--expect"), r"--expect with --plan wants the names"),
                (2, ("--plan", ok_plan, "--zmq", "tcp://*:65536"),
                 r"--zmq tcp://\*:65536: PORT must be 1..65535")):
            with self.subTest(args=args):
                status, out, err = run_app(self.path("in.cfile"), "-s", "1M", "-f", "100M",
                                           *args, "-o", self.path("out"), cwd=self.dir)
                self.assertEqual(status, rc, err)
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertRegex(err, regex)
                self.assertNotIn("Traceback", err)


class Errors(Case):
    """User mistakes: exit status 2 (usage) or 1 (files), one line, no traceback."""

    def one_line(self, rc, *args, regex=None):
        status, out, err = run_app(*args, cwd=self.dir)
        self.assertEqual(status, rc, "args %r: exit status %d\n%s%s" % (args, status, out, err))
        self.assertEqual(out, "", args)
        self.assertEqual(len(err.splitlines()), 1, "args %r: stderr %r" % (args, err))
        self.assertTrue(err.startswith("wideband_channelize: "), err)
        if regex:
            self.assertRegex(err, regex)

    def test_usage(self):
        self.one_line(2, "--bogus", regex="unrecognized arguments")
        self.one_line(2, "--channels", "0")
        self.one_line(2, "--channels", "16", "--oversample", "3", regex="not an integer")
        self.one_line(2, "--channels", "16", "--channels-list", "16", regex="outside 0..15")
        self.one_line(2, "--channels-list", "1,x")
        self.one_line(2, "--channels", "8", "--carriers", "3", regex="at most M/4")
        self.one_line(2, "--attenuation", "80", "--taps", "t.txt")
        self.one_line(2, "--device", "no-such-device-xyz", regex="matches no OpenCL device")
        self.one_line(2, "--device", "0:", regex="is malformed")
        self.one_line(2, "--device", "cpu:all", regex="names several devices")
        self.one_line(2, "capture.cfile", "--expect", regex="synthetic")
        for value in ("nan", "inf", "-inf", "x"):
            self.one_line(2, "--oversample", value, regex="--oversample")
            self.one_line(2, "--attenuation", value, regex="--attenuation")
        for option in ("--oversample", "--attenuation", "--sample-rate"):
            self.one_line(2, option, "0", regex="%s must be positive" % option)
            self.one_line(2, option, "-3", regex="%s must be positive" % option)
        for value in ("-1", "1.5", "x", "99999999999999999999"):
            self.one_line(2, "--channels", value, regex="--channels")
        self.one_line(2, "--channels", str(2**24 + 1), regex="at most 16777216")
        self.one_line(2, "--channels", str(2**18 + 1), regex="synthetic signal takes at most")
        for option in ("--samples", "--skip", "--seed", "--carriers"):
            self.one_line(2, option, "-1", regex="wants a whole number")
        self.one_line(2, "--datatype", "cf64", regex="invalid choice")
        self.one_line(2, "--name", "a/b", regex="must not contain")
        self.one_line(1, "--attenuation", "1e9", regex="more than the 2\\^30")
        self.one_line(2, "-c", "16", "-l", "5-3",
                      regex=r"--channels-list: 5-3 goes down: it would wrap through channel 0 "
                            r"\(5..15, 0..3: 15 channels\); add --wrap for that, or write 3-5")
        self.one_line(2, "-c", "16", "-e", "9-2", regex=r"--expect: 9-2 goes down")
        for option in ("-c", "--channels", "-n", "--skip", "--carriers"):
            self.one_line(2, option, "-5", regex=r"argument .*%s.*: wants (an integer|a whole)"
                          % option)
        self.one_line(2, "-f", "-5X", regex=r"--center-freq: wants a number")

    def test_files(self):
        self.one_line(1, self.path("missing.cfile"), regex="No such file")
        self.one_line(1, self.path("missing.sigmf-meta"), regex="No such file")
        with open(self.path("bad.sigmf-meta"), "w") as f:
            f.write('{"global": {"core:datatype": "cf32_le", ')
        np.zeros(1000, np.complex64).tofile(self.path("bad.sigmf-data"))
        self.one_line(1, self.path("bad.sigmf-meta"), regex="not valid JSON")
        with open(self.path("bad.sigmf-meta"), "w") as f:
            json.dump({"global": {"core:sample_rate": 1e6}}, f)
        self.one_line(1, self.path("bad.sigmf-data"), regex="malformed SigMF.*core:datatype")
        with open(self.path("bad.sigmf-meta"), "w") as f:
            json.dump({"global": {"core:datatype": "cf32_le", "core:sample_rate": "fast"}}, f)
        self.one_line(1, self.path("bad.sigmf-meta"), regex="core:sample_rate")
        with open(self.path("bad.sigmf-meta"), "w") as f:
            json.dump({"global": {"core:datatype": "rf64_be", "core:sample_rate": 1e6}}, f)
        self.one_line(1, self.path("bad.sigmf-meta"), regex="not supported")
        with open(self.path("bad.sigmf-meta"), "w") as f:
            json.dump({"global": {"core:datatype": "cf32_le", "core:sample_rate": -1e6}}, f)
        self.one_line(1, self.path("bad.sigmf-meta"), regex="must be a positive number")
        with open(self.path("alone.sigmf-meta"), "w") as f:
            json.dump({"global": {"core:datatype": "cf32_le", "core:sample_rate": 1e6}}, f)
        self.one_line(1, self.path("alone.sigmf-meta"), regex="cannot read .*alone.sigmf-data")
        open(self.path("empty.cfile"), "wb").close()
        self.one_line(1, self.path("empty.cfile"), regex="holds 0 samples")
        with open(self.path("torn.cfile"), "wb") as f:
            f.write(os.urandom(8 * 1000 + 3))
        self.one_line(1, self.path("torn.cfile"),
                      regex="8003 bytes is not a whole number of cf32_le samples")
        self.one_line(1, self.path("torn.cfile"), "--datatype", "ci16_le",
                      regex="not a whole number of ci16_le samples")
        self.one_line(1, self.dir, regex="Is a directory")
        self.one_line(1, "--taps", self.path("missing-taps.txt"), regex="taps file")
        for name, text, regex in (("empty.txt", "", "non-empty list"),
                                  ("words.txt", "1.0 two 3.0", "not a list of numbers"),
                                  ("nan.txt", "1.0, nan, 1.0", "taps must be finite"),
                                  ("inf.txt", "1.0\n-inf", "taps must be finite")):
            with open(self.path(name), "w") as f:
                f.write(text)
            self.one_line(1, "--taps", self.path(name), regex=regex)

    def test_zmq(self):
        self.one_line(2, "--zmq", "5600", regex=r"--zmq '5600': wants tcp://HOST:PORT")
        self.one_line(2, "--zmq", "udp://*:5600", regex="wants tcp://HOST:PORT")
        self.one_line(2, "--zmq", "tcp://*:0", regex="PORT must be 1..65535")
        self.one_line(2, "-c", "16", "--zmq", "tcp://*:65530",
                      regex="16 channels need ports up to 65545")
        self.one_line(2, "-c", "512", "--zmq", "tcp://*:5600", regex="at most 256")
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            self.one_line(1, "-c", "16", "-l", "7", "--zmq", "tcp://127.0.0.1:%d" % port,
                          "-o", self.dir,
                          regex=r"cannot bind tcp://127.0.0.1:%d for channel 7: Address "
                                r"already in use" % port)
        self.one_line(1, "-c", "16", "-l", "7", "--zmq", "tcp://no-such-interface:5600",
                      "-o", self.dir, regex="HOST must be an address of this machine")


class Outputs(Case):
    """What the program leaves behind: every output path checked before
    anything is computed; a sink that fails (a full disk, a file-size limit)
    stops the run in seconds with the system's message and exit status 1;
    files are written under temporary names and renamed into place only when
    the run succeeds; a folder holding files is used only with --overwrite,
    which replaces only this program's earlier files."""

    def failed(self, *args, regex, seconds=60, **kw):
        """Runs the program expecting exit status 1 within seconds, its last
        line matching regex, and no output file left behind."""
        started = time.monotonic()
        status, out, err = run_app(*args, **kw)
        self.assertLess(time.monotonic() - started, seconds, err)
        self.assertEqual(status, 1, "exit status %d\n%s%s" % (status, out, err))
        self.assertNotIn("Traceback", err)
        self.assertRegex(err.splitlines()[-1], "^wideband_channelize: " + regex)
        return out, err

    def entries(self, folder):
        return sorted(os.listdir(folder)) if os.path.isdir(folder) else []

    def test_sink_fails_while_streaming(self):
        import resource

        # Writes beyond it fail with EFBIG ("File too large"); above the size of
        # the kernel binaries that PoCL writes to its cache.
        def file_size_limit():
            resource.setrlimit(resource.RLIMIT_FSIZE, (16 << 20, 16 << 20))

        for layout in ("streams", "vector"):  # 32 MB a channel, 512 MB of frames
            out = self.path(layout)
            self.failed("-c", 16, "-n", 64 << 20, "--output-layout", layout, "-o", out,
                        preexec_fn=file_size_limit,
                        regex=r"cannot write .*%s/.*: File too large$" % layout)
            self.assertEqual(self.entries(out), [], layout)

    @unittest.skipUnless(hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("mount"),
                         "mounting a small tmpfs needs root")
    def test_full_disk(self):
        disk = self.path("disk")
        os.mkdir(disk)
        # 1 MiB of recordings plus 64 KiB: they fit, their metadata (a page
        # each) fills the rest, and the plot finds the disk full.
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1088k", "tmpfs", disk]).returncode:
            self.skipTest("cannot mount a tmpfs here")
        self.addCleanup(subprocess.run, ["umount", "-l", disk])
        M, N = 16, 16 * 8192
        self.failed("-c", M, "-n", N, "-o", os.path.join(disk, "a"),
                    regex=r"cannot write plot .*channelize.png: No space left on device$")
        self.assertEqual(self.entries(os.path.join(disk, "a")), [])
        # Recordings larger than the disk: refused before anything is computed.
        self.failed("-c", M, "-n", 8 * N, "-o", os.path.join(disk, "b"), seconds=20,
                    regex=r"no space left on device for the recordings in .*b: they need "
                          r"8.4M bytes, 1.1M are free$")
        self.assertEqual(self.entries(os.path.join(disk, "b")), [])
        # Without the plot everything fits.
        status, out, err = run_app("-c", M, "-n", N, "-o", os.path.join(disk, "c"), "--no-plot")
        self.assertEqual(status, 0, err)
        self.check_sigmf(os.path.join(disk, "c"), "synthetic", M, list(range(M)), 100e6, 0.0,
                         1, N)

    def test_paths_checked_first(self):
        # 2^30 samples would take minutes: each refusal comes at once.
        big = ("-c", 16, "-n", 1 << 30)
        self.failed(*big, "--plot", "/proc/no-such-folder/p.png", "-o", self.path("a"),
                    seconds=30, regex=r"cannot write /proc/no-such-folder/p.png: No such file")
        self.assertEqual(self.entries(self.path("a")), [])
        open(self.path("file"), "w").close()
        self.failed(*big, "-o", self.path("file", "sub"), seconds=30,
                    regex=r"cannot use output folder .*file/sub: Not a directory")

    def test_sizes_beyond_the_device_refused_at_once(self):
        # 10^7 channels of a 160 MB recording, in chunks of 2^30 samples: the
        # channelizer's input window (16 GiB and more) exceeds any device's
        # allocation here (PoCL's limit follows the free memory); refused
        # before a tap is designed or a file made.
        with open(self.path("big.cfile"), "wb") as f:
            f.truncate(160 * 1000 * 1000)
        self.failed(self.path("big.cfile"), "-c", 10000000, "-o", self.path("out"), seconds=30,
                    env={"WIDEBAND_CHUNK_SAMPLES": str(1 << 30)},
                    regex=r"channelizer: .*an input window.* needs a device buffer of \d+ bytes")
        self.assertEqual(self.entries(self.path("out")), [])

    def test_terminated_run_leaves_nothing(self):
        out = self.path("out")
        app = subprocess.Popen([sys.executable, APP, "-c", "16", "-n", "1G", "-o", out,
                                "--no-plot"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        self.addCleanup(app.kill)
        deadline = time.monotonic() + 120
        while not any(f.endswith(".partial") for f in self.entries(out)):
            if app.poll() is not None:
                self.fail("the program ended early: " + app.stderr.read())
            self.assertLess(time.monotonic(), deadline, "no file written within 120 s")
            time.sleep(0.1)
        app.terminate()
        _, err = app.communicate(timeout=60)
        self.assertEqual(app.returncode, 143, err)
        self.assertEqual(err.splitlines()[-1], "wideband_channelize: terminated")
        self.assertEqual(self.entries(out), [])

    def test_overwrite(self):
        out = self.path("out")
        self.ok("-c", 32, "-n", 1 << 16, "-o", out)
        self.assertEqual(len(self.entries(out)), 2 * 32 + 1)
        self.failed("-c", 16, "-n", 1 << 16, "-o", out,
                    regex=r"output folder .*out is not empty \(65 entries: channelize.png, "
                          r"synthetic_ch0000.sigmf-data, synthetic_ch0000.sigmf-meta, \.\.\.\): "
                          r"choose a new or empty one with -o, or --overwrite")
        self.assertEqual(len(self.entries(out)), 2 * 32 + 1)
        with open(os.path.join(out, "notes.txt"), "w") as f:
            f.write("the user's own file\n")
        self.ok("-c", 16, "-n", 1 << 16, "-o", out, "--overwrite", "--seed", 7)
        # The 16-channel run's files, the plot and the user's file: no 32-channel leftovers.
        self.check_sigmf(out, "synthetic", 16, list(range(16)), 100e6, 0.0, 1, 1 << 16)
        self.assertEqual(len(self.entries(out)), 2 * 16 + 2)
        self.assertIn("notes.txt", self.entries(out))
        # A file of someone else's where a recording would go is never replaced.
        foreign = os.path.join(out, "synthetic_ch0003.sigmf-meta")
        with open(foreign, "w") as f:
            json.dump({"global": {"core:datatype": "cf32_le", "core:recorder": "other"}}, f)
        self.failed("-c", 16, "-n", 1 << 16, "-o", out, "--overwrite",
                    regex=r".*synthetic_ch0003.sigmf-(meta|data) exists and was not written by "
                          r"wideband_channelize: not replaced")
        with open(foreign) as f:
            self.assertEqual(json.load(f)["global"]["core:recorder"], "other")

    def test_negative_frequencies_and_wrapped_ranges(self):
        for text, hz in (("-5M", -5e6), ("-2.4G", -2.4e9), ("-5e6", -5e6), ("-.5k", -500.0)):
            out = self.path(text)
            self.ok("-c", 16, "-n", 1 << 16, "-f", text, "-l", "5-3", "--wrap", "--no-plot",
                    "-o", out, "--quiet")
            channels = list(range(5, 16)) + list(range(0, 4))
            self.check_sigmf(out, "synthetic", 16, channels, 100e6, hz, 1, 1 << 16)


class Faults(Case):
    """A device that fails mid-stream, a kernel build that fails
    (WIDEBAND_FAULT, docs/reliability.md): exit status 1, the program's last
    line names the problem (before it, the block's own log line), no
    traceback, and it ends in seconds."""

    def check(self, fault, *words):
        started = time.monotonic()
        status, out, err = run_app("-c", "16", "-n", str(3 << 19), "-o", self.dir, "--no-plot",
                                   env={"WIDEBAND_FAULT": fault})
        self.assertLess(time.monotonic() - started, 120)
        self.assertEqual(status, 1, "exit status %d\n%s%s" % (status, out, err))
        self.assertNotIn("Traceback", err)
        last = err.splitlines()[-1]
        self.assertTrue(last.startswith("wideband_channelize: the channelizer stopped: "
                                        "pfb_channelizer_ccf on "), last)
        for word in words:
            self.assertIn(word, last)

    def test_device_fails_mid_stream(self):
        self.check("enqueue:2", "CL_OUT_OF_RESOURCES")

    def test_kernel_build_fails(self):
        self.check("build", "OpenCL build of kernels/pfb_channelizer.cl failed")


# A sender on another "host": a GNU Radio flowgraph pushing complex64 samples
# with their rx_time tags (pass_tags) to a PUSH socket, as a radio host would.
# argv: port rate samples.npy tags.json (offset, secs, frac per tag) [raw: no
# pass_tags]
SENDER = """
import json, sys, time
import numpy as np, pmt
from gnuradio import blocks, gr, zeromq
port, rate, data, tags = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
x = np.load(data)
with open(tags) as f:
    tags = [gr.tag_utils.python_to_tag((o, pmt.intern("rx_time"), pmt.make_tuple(
        pmt.from_uint64(s), pmt.from_double(fr)))) for o, s, fr in json.load(f)]
tb = gr.top_block()
src = blocks.vector_source_c(x, False, 1, tags)
push = zeromq.push_sink(gr.sizeof_gr_complex, 1, "tcp://127.0.0.1:%d" % port, 100,
                       sys.argv[5:] != ["raw"], -1)
tb.connect(src, blocks.throttle(gr.sizeof_gr_complex, rate, True), push)
tb.run()
time.sleep(3600)  # keeps the socket until the test ends it
"""


class Live(Case):
    """--source: a live run. A ZeroMQ source fed by another process, with a gap
    it says with rx_time, to SigMF segments and --zmq consumers, ended by
    SIGTERM; a file played at its rate, ended by SIGTERM mid-stream and to its
    end, against the batch program on the same samples; mistakes."""

    M = 4
    T0 = 1795000000  # rx_time of the first sample, Unix seconds

    def start_app(self, *args):
        self.errpath = self.path("stderr.txt")
        err = open(self.errpath, "w")
        self.addCleanup(err.close)
        app = subprocess.Popen([sys.executable, APP] + [str(a) for a in args],
                               stdout=subprocess.PIPE, stderr=err, text=True)
        self.addCleanup(app.stdout.close)
        self.addCleanup(lambda: app.poll() is None and (app.kill(), app.wait(30)))
        return app

    def wait_status(self, app, path, done, timeout=300):
        """The last JSON status record once done(record), the program running."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if app.poll() is not None:
                with open(self.errpath) as f:
                    self.fail("the program ended (%d):\n%s" % (app.returncode, f.read()))
            if os.path.exists(path):
                with open(path) as f:
                    lines = f.read().split("\n")[:-1]  # complete lines only
                if lines and done(json.loads(lines[-1])):
                    return json.loads(lines[-1])
            time.sleep(0.2)
        with open(self.errpath) as f:
            self.fail("status never reached its goal in %d s:\n%s" % (timeout, f.read()))

    def finish_app(self, app, timeout=300):
        """(stdout, stderr) of the program once it exits, with status 0."""
        out = app.stdout.read()
        rc = app.wait(timeout)
        with open(self.errpath) as f:
            err = f.read()
        self.assertEqual(rc, 0, "exit status %d\n--- stdout\n%s--- stderr\n%s" % (rc, out, err))
        self.assertNotIn("Traceback", err)
        return out, err

    def request_reload(self, control):
        """The reply (a list of lines) of the program's --control socket to
        the request "reload"."""
        import zmq
        req = zmq.Context.instance().socket(zmq.REQ)
        self.addCleanup(req.close, 0)
        req.connect(control)
        req.send_string("reload")
        self.assertTrue(req.poll(60000), "no reply from --control")
        return json.loads(req.recv_string())

    def held_pipe(self, samples, first):
        """A HeldPipe of samples with the first `first` let through: its path."""
        pipe = HeldPipe(self.path("iq.pipe"), samples)
        self.addCleanup(pipe.close)
        pipe.release(first)
        return pipe

    def wait_log(self, app, pattern, timeout=120):
        """Once the program's stderr has a line matching pattern."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(self.errpath) as f:
                err = f.read()
            if re.search(pattern, err, re.M):
                return
            if app.poll() is not None:
                self.fail("the program ended (%d):\n%s" % (app.returncode, err))
            time.sleep(0.1)
        self.fail("no line %r on stderr in %d s:\n%s" % (pattern, timeout, err))

    def reload_to_end(self, app, pipe, key, path, text):
        """Once channel key has 5000 samples (its status, to st.json): path
        rewritten with text, SIGHUP, the rest of the pipe's samples once the
        program has read the file again, and the run to its end: finish_app()."""
        import signal
        self.wait_status(app, self.path("st.json"), lambda r: r["channel_samples"][key] >= 5000)
        with open(path, "w") as f:
            f.write(text)
        app.send_signal(signal.SIGHUP)
        self.wait_log(app, r"SIGHUP: ")
        pipe.release()
        return self.finish_app(app)

    def stop_app(self, app, sig):
        app.send_signal(sig)
        return self.finish_app(app, 120)

    def segments(self, folder, base, added=False):
        """(metas, samples) of a channel's segments, checked to be one
        continuous recording: numbered from 0, core:global_index continuous
        from 0 (added: a channel added while running, from its first's)."""
        names = sorted(f for f in os.listdir(folder)
                       if f.startswith(base + "-") and f.endswith(".sigmf-meta"))
        self.assertTrue(names, "no segments of %s" % base)
        metas, data, total = [], [], 0
        for i, name in enumerate(names):
            self.assertEqual(name, "%s-%06d.sigmf-meta" % (base, i))
            with open(os.path.join(folder, name)) as f:
                meta = json.load(f)
            if added and i == 0:
                total = meta["captures"][0]["core:global_index"]
            x = np.fromfile(os.path.join(folder, name[:-len("meta")] + "data"), np.complex64)
            self.assertEqual(meta["global"]["core:datatype"], "cf32_le")
            self.assertEqual(meta["global"]["wideband:segment"], i)
            cap = meta["captures"][0]
            self.assertEqual((cap["core:sample_start"], cap["core:global_index"]), (0, total))
            self.assertIn("core:datetime", cap)
            total += len(x)
            metas.append(meta)
            data.append(x)
        leftovers = [f for f in os.listdir(folder) if f.startswith(base + "-")
                     and not f.endswith((".sigmf-meta", ".sigmf-data"))]
        self.assertEqual(leftovers, [])
        self.assertEqual(2 * len(names), len([f for f in os.listdir(folder)
                                              if f.startswith(base + "-")]))
        return metas, np.concatenate(data)

    def batch(self, raw, rate, datatype, channels):
        """The batch program's recordings of the raw file: {channel: samples}."""
        out = self.path("batch")
        self.ok(raw, "--datatype", datatype, "-s", rate, "-c", self.M, "-l", channels,
                "--no-plot", "-o", out, "--quiet")
        return {c: np.fromfile(os.path.join(out, "%s_ch%04d.sigmf-data"
                                            % (os.path.splitext(os.path.basename(raw))[0], c)),
                               np.complex64)
                for c in map(int, channels.split(","))}

    def signal(self, n, seed=5):
        """A carrier in channel 1 (+fs/4) over weak noise."""
        rng = np.random.default_rng(seed)
        k = np.arange(n)
        return (0.5 * np.exp(0.5j * np.pi * k) + 0.01 * (rng.standard_normal(n) + 1j *
                rng.standard_normal(n))).astype(np.complex64)

    def test_zmq_source_gap_sigterm(self):
        import signal
        rate, D = 1e6, self.M
        gap_at, gap = 310000, 5000
        full = self.signal(600000 + gap)
        sent = np.concatenate([full[:gap_at], full[gap_at + gap:]])
        np.save(self.path("x.npy"), sent)
        with open(self.path("tags.json"), "w") as f:
            json.dump([(0, self.T0, 0.25), (gap_at, self.T0, 0.25 + (gap_at + gap) / rate)], f)
        port = consecutive_free_ports(1)
        sender = subprocess.Popen([sys.executable, "-c", SENDER, str(port), str(rate),
                                   self.path("x.npy"), self.path("tags.json")])
        self.addCleanup(lambda: (sender.kill(), sender.wait(30)))
        out_port = consecutive_free_ports(2)
        # The status also on a PUB socket, for a monitoring system.
        import zmq
        status_port = consecutive_free_ports(1)
        sub = zmq.Context.instance().socket(zmq.SUB)
        self.addCleanup(sub.close, 0)
        sub.setsockopt_string(zmq.SUBSCRIBE, "")
        sub.connect("tcp://127.0.0.1:%d" % status_port)
        app = self.start_app("--source", "zmq:tcp://127.0.0.1:%d" % port, "--rate", rate,
                             "--freq", "100M", "-c", self.M, "-l", "0,1", "-o", self.path("out"),
                             "--segment-seconds", 0.1, "--zmq", "tcp://127.0.0.1:%d" % out_port,
                             "--status-interval", 0.5, "--status-json", self.path("st.json"),
                             "--status-zmq", "tcp://127.0.0.1:%d" % status_port)
        # Consumers of the channels (the app waits for them: nothing dropped).
        with zmq_consumers({c: "tcp://127.0.0.1:%d" % (out_port + c) for c in (0, 1)}) \
                as vsinks:
            n_out = len(sent) // D
            rec = self.wait_status(app, self.path("st.json"), lambda r: all(
                v == n_out for v in r["channel_samples"].values()))
            self.assertEqual(rec["input_samples"], len(sent))
            wait_for_items(vsinks, n_out, 60)
        out, err = self.stop_app(app, signal.SIGTERM)
        self.assertRegex(out, r"stopped: +by SIGTERM; %d input samples, %d lost in 1 events "
                              r"\(time from rx_time\)" % (len(sent), gap))
        self.assertRegex(err, r"gap at input sample %d .*%d input samples lost" % (gap_at, gap))
        with open(self.path("st.json")) as f:
            final = json.loads(f.read().splitlines()[-1])
        self.assertTrue(final["final"])
        self.assertEqual((final["lost_samples"], final["events"]), (gap, 1))
        published = []
        while sub.poll(2000):
            published.append(json.loads(sub.recv_string()))
        self.assertTrue(published)
        self.assertEqual(published[-1], final)
        seg = 25000  # 0.1 s at 250 ksamples/s
        for c in (0, 1):
            metas, x = self.segments(self.path("out"), "zmq_ch%04d" % c)
            self.assertEqual(len(x), n_out)
            self.assertEqual([m["captures"][0]["core:global_index"] for m in metas],
                             list(range(0, n_out, seg)))
            np.testing.assert_array_equal(np.asarray(vsinks[c].data(), np.complex64), x)
            for i, m in enumerate(metas):
                self.assertEqual(m["global"]["wideband:time_source"], "rx_time")
                self.assertEqual(m["global"]["core:sample_rate"], rate / D)
                self.assertEqual(m["captures"][0]["core:frequency"], 100e6 + c * rate / D)
                # The input sample a segment starts at, plus the gap after it.
                n = i * seg * D + (gap if i * seg * D >= gap_at else 0)
                t = 0.25 + n / rate
                self.assertEqual(m["captures"][0]["core:datetime"],
                                 time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(self.T0))
                                 + (".%06dZ" % round(t * 1e6)), "segment %d" % i)
                want = [("gap", gap_at // D - i * seg, gap)] if i == gap_at // D // seg else []
                self.assertEqual([(a["core:label"], a["core:sample_start"],
                                   a["wideband:lost_samples"]) for a in m["annotations"]], want)
            # The carrier is in channel 1.
            p = float(np.mean(np.abs(x[100:]) ** 2))
            if c == 1:
                self.assertGreater(p, 0.1)
            else:
                self.assertLess(p, 0.01)

    def test_zmq_sender_without_tags(self):
        """A sender of raw samples: refused with a hint, unless --no-source-tags
        (then dated by the host clock)."""
        import signal
        rate, n = 1e6, 200000
        np.save(self.path("x.npy"), self.signal(n, seed=17))
        with open(self.path("tags.json"), "w") as f:
            json.dump([], f)
        ports = []
        for _ in range(2):
            ports.append(consecutive_free_ports(1))
            sender = subprocess.Popen([sys.executable, "-c", SENDER, str(ports[-1]), str(rate),
                                       self.path("x.npy"), self.path("tags.json"), "raw"])
            self.addCleanup(lambda s=sender: (s.kill(), s.wait(30)))
        app = self.start_app("--source", "zmq:tcp://127.0.0.1:%d" % ports[0], "--rate", rate,
                             "-c", self.M, "-l", "1", "-o", self.path("o1"))
        out = app.stdout.read()
        self.assertEqual(app.wait(300), 1, out)
        with open(self.errpath) as f:
            err = f.read()
        self.assertIn("the ZeroMQ sender does not pass tags: turn Pass Tags on in its PUSH "
                      "sink, or give --no-source-tags", err)
        app = self.start_app("--source", "zmq:tcp://127.0.0.1:%d" % ports[1], "--rate", rate,
                             "--no-source-tags", "-c", self.M, "-l", "1", "-o", self.path("o2"),
                             "--status-interval", 0.3, "--status-json", self.path("st.json"))
        self.wait_status(app, self.path("st.json"),
                         lambda r: r["channel_samples"]["1"] == n // self.M)
        out, err = self.stop_app(app, signal.SIGTERM)
        self.assertRegex(out, r"stopped: +by SIGTERM; %d input samples, 0 lost in 0 events "
                              r"\(time from host clock\)" % n)
        metas, y = self.segments(self.path("o2"), "zmq_ch0001")
        self.assertEqual(len(y), n // self.M)
        self.assertGreater(float(np.mean(np.abs(y[100:]) ** 2)), 0.1)  # the carrier

    def test_file_source_sigterm_mid_stream_sc16(self):
        import signal
        # 20 s of samples: GNU Radio's throttle catches up after a stall (the
        # kernels' first builds on a loaded CI machine), so a shorter file can
        # end before the SIGTERM it is to be stopped by.
        rate, n = 100e3, 2000000
        x = self.signal(n)
        raw = self.path("iq.cs16")
        iq = np.empty(2 * n, np.int16)
        iq[0::2] = np.round(x.real * 16384)
        iq[1::2] = np.round(x.imag * 16384)
        iq.tofile(raw)
        control = "tcp://127.0.0.1:%d" % consecutive_free_ports(1)
        app = self.start_app("--source", "file:" + raw, "--source-format", "sc16", "--rate", rate,
                             "-c", self.M, "-l", "1,3", "-o", self.path("out"),
                             "--segment-bytes", 160000, "--status-interval", 0.3,
                             "--status-json", self.path("st.json"), "--control", control)
        # Two segments of 20000 samples done in each channel.
        self.wait_status(app, self.path("st.json"), lambda r: all(
            v >= 30000 for v in r["channel_samples"].values()))
        # A channel list given on the command line cannot change: said, and the
        # run goes on; the same asked on the control socket.
        app.send_signal(signal.SIGHUP)
        reply = self.request_reload(control)
        self.assertEqual(len(reply), 1, reply)
        self.assertRegex(reply[0], r"^control: reload: ignored: the channel list was given on "
                                   r"the command line; give it as -l @FILE")
        self.wait_status(app, self.path("st.json"), lambda r: all(
            v >= 50000 for v in r["channel_samples"].values()))
        out, err = self.stop_app(app, signal.SIGTERM)
        self.assertIn("SIGHUP: ignored: the channel list was given on the command line; give "
                      "it as -l @FILE to change it while running", err)
        # No loss; back-pressure events (the channelizer, on a loaded CPU,
        # behind the file's rate) are possible.
        stopped = re.search(r"stopped: +by SIGTERM; \d+ input samples, 0 lost in (\d+) events "
                            r"\(time from host clock\)", out)
        self.assertTrue(stopped, out)
        ref = self.batch(raw, rate, "ci16_le", "1,3")
        for c in (1, 3):
            metas, y = self.segments(self.path("out"), "file_ch%04d" % c)
            self.assertTrue(all(m["global"]["wideband:time_source"] == "host clock"
                                for m in metas))
            labels = [a["core:label"] for meta in metas for a in meta["annotations"]]
            self.assertEqual(labels, ["backpressure"] * int(stopped.group(1)))
            self.assertLess(len(y), n // self.M)  # stopped before the end
            self.assertGreaterEqual(len(y), 50000)
            self.assertEqual([meta["captures"][0]["core:global_index"] for meta in metas],
                             list(range(0, len(y), 20000)))
            np.testing.assert_allclose(y, ref[c][:len(y)], rtol=0, atol=1e-5)

    def test_channel_list_changed_on_sighup(self):
        """-l @FILE: SIGHUP reads the list again; the channel removed ends its
        recording and the one added starts its own on the spare output, both
        at the sample the channelizer's "channel" tags mark (one map: the same
        sample), each the batch program's channel there; the channel kept goes
        on untouched."""
        rate, n = 1e6, 1000000
        raw = self.path("iq.cf32")
        x = self.signal(n, seed=19)
        x.tofile(raw)
        pipe = self.held_pipe(x, n // 2)  # the SIGHUP before the second half
        channels = self.path("list.txt")
        with open(channels, "w") as f:
            f.write("1\n3\n")
        app = self.start_app("--source", "file:" + pipe.path, "--rate", rate, "-c", self.M,
                             "-l", "@" + channels, "--spare-channels", 1, "-o", self.path("out"),
                             "--name", "f", "--segment-seconds", 0.5, "--status-interval", 0.2,
                             "--status-json", self.path("st.json"))
        out, err = self.reload_to_end(app, pipe, "3", channels, "1,2\n")
        self.assertRegex(err, r"SIGHUP: channel list .*list\.txt: channel 3 removed from the "
                              r"next chunk\n.*SIGHUP: channel list .*list\.txt: channel 2 added "
                              r"at -?500000 Hz from the next chunk")
        self.assertRegex(out, r"output: +2 channels and 1 spare outputs")
        ref = self.batch(raw, rate, "cf32_le", "1,2,3")

        metas, y = self.segments(self.path("out"), "f_ch0003")
        end = len(y)
        self.assertGreater(end, 5000)
        self.assertLessEqual(end, n // 2 // self.M)
        last = end - metas[-1]["captures"][0]["core:global_index"]
        self.assertEqual([notes(m) for m in metas],
                         [[]] * (len(metas) - 1) + [[("removed", last - 1)]])
        np.testing.assert_allclose(y, ref[3][:end], rtol=0, atol=1e-5)
        metas, y = self.segments(self.path("out"), "f_ch0002", added=True)
        self.assertEqual(metas[0]["captures"][0]["core:global_index"], end)
        self.assertEqual([notes(m) for m in metas], [[("added", 0)]] + [[]] * (len(metas) - 1))
        np.testing.assert_allclose(y, ref[2][end:], rtol=0, atol=1e-5)
        metas, y = self.segments(self.path("out"), "f_ch0001")
        self.assertEqual([notes(m) for m in metas], [[]] * len(metas))
        np.testing.assert_allclose(y, ref[1], rtol=0, atol=1e-5)

    def test_recordings_cannot_be_written(self):
        """The output folder gone mid-run: exit status 1, one line naming the
        file and why (no Python frames)."""
        rate, n = 50e3, 1000000
        raw = self.path("iq.cf32")
        self.signal(n).tofile(raw)
        app = self.start_app("--source", "file:" + raw, "--rate", rate, "-c", self.M,
                             "-o", self.path("out"), "--segment-seconds", 0.1,
                             "--status-interval", 0.3, "--status-json", self.path("st.json"))
        self.wait_status(app, self.path("st.json"),
                         lambda r: r["channel_samples"]["0"] >= 10000)
        # Moved away in one step: a folder removed file by file races the
        # program writing its next segment into it.
        os.rename(self.path("out"), self.path("gone"))
        out = app.stdout.read()
        self.assertEqual(app.wait(120), 1, out)
        with open(self.errpath) as f:
            err = [line for line in f.read().splitlines() if not line.startswith("status:")]
        self.assertEqual(len(err), 1, err)
        self.assertRegex(err[0], r"^wideband_channelize: .*No such file or directory.*out/file_ch")
        self.assertNotIn(" At: ", err[0])

    def test_file_source_to_its_end(self):
        rate, n = 2e6, 400000
        x = self.signal(n, seed=9)
        raw = self.path("iq.cf32")
        x.tofile(raw)
        app = self.start_app("--source", "file:" + raw, "--rate", rate, "-c", self.M,
                             "-l", "0,1,2,3", "-o", self.path("out"), "--name", "f",
                             "--segment-seconds", 0.04, "--status-interval", 0)
        out, _ = self.finish_app(app)
        self.assertRegex(out, r"stopped: +end of the source; %d input samples, 0 lost" % n)
        ref = self.batch(raw, rate, "cf32_le", "0,1,2,3")
        for c in range(self.M):
            metas, y = self.segments(self.path("out"), "f_ch%04d" % c)
            self.assertEqual(len(metas), 5)  # 100000 samples in segments of 20000
            np.testing.assert_allclose(y, ref[c], rtol=0, atol=1e-5)

    def file_and_plan(self, n, seed):
        """A file of n samples of signal() and a plan of two channels (up at
        +250 kHz, 50 kHz; mid at 0, 100 kHz): (its path, the plan's)."""
        raw = self.path("iq.cf32")
        self.signal(n, seed=seed).tofile(raw)
        plan = self.path("plan.csv")
        with open(plan, "w") as f:
            f.write("name,offset,rate\nup,250k,50k\nmid,0,100k\n")
        return raw, plan

    def test_channel_bank_from_a_file(self):
        """--plan live: each channel at its own rate, segments of its own length,
        the same samples as the batch program's; also from complex int16, which
        the bank takes as it is (its full scale in the taps)."""
        rate = 1e6
        raw, plan = self.file_and_plan(300000, seed=11)
        x = np.fromfile(raw, np.complex64)
        raw16 = self.path("iq.cs16")
        iq = np.empty(2 * len(x), np.int16)
        iq[0::2], iq[1::2] = np.round(x.real * 16384), np.round(x.imag * 16384)
        iq.tofile(raw16)
        fc32_output = {}
        for source, fmt, datatype in ((raw, "fc32", "cf32_le"), (raw16, "sc16", "ci16_le")):
            out, batch = self.path("out_" + fmt), self.path("batch_" + fmt)
            app = self.start_app("--source", "file:" + source, "--source-format", fmt,
                                 "--rate", rate, "--freq", "10M", "--plan", plan, "-o", out,
                                 "--segment-seconds", 0.1, "--status-interval", 0)
            self.finish_app(app)
            self.ok(source, "--datatype", datatype, "-s", rate, "-f", "10M", "--plan", plan,
                    "--no-plot", "--quiet", "-o", batch)
            for name, ch_rate in (("up", 50e3), ("mid", 100e3)):
                metas, y = self.segments(out, name)
                self.assertEqual([len(m["annotations"]) for m in metas], [0] * len(metas))
                self.assertEqual(metas[0]["captures"][0]["core:frequency"],
                                 10e6 + (250e3 if name == "up" else 0))
                self.assertEqual(metas[0]["global"]["core:sample_rate"], ch_rate)
                self.assertEqual([m["captures"][0]["core:global_index"] for m in metas],
                                 [round(0.1 * ch_rate) * i for i in range(3)])
                ref = np.fromfile(os.path.join(batch, name + ".sigmf-data"), np.complex64)
                self.assertEqual(len(y), len(ref))
                self.assertLess(relative_l2(y, ref), 1e-5, (fmt, name))
                # The int16 file at half its full scale: half the fc32 run's
                # samples, but for the integers' rounding (1e-3 of the noise).
                if fmt == "fc32":
                    fc32_output[name] = y
                else:
                    self.assertLess(relative_l2(y, 0.5 * fc32_output[name]), 1e-2, name)

    def test_channel_bank_retuned_on_sighup(self):
        """SIGHUP reloads the plan: the channel whose centre changed is retuned
        where the bank's freq tag says, a new segment starts there with the new
        centre and a retune annotation; the other channel goes on untouched."""
        rate, n = 1e6, 1000000
        raw, plan = self.file_and_plan(n, seed=13)  # the carrier at +250 kHz
        pipe = self.held_pipe(np.fromfile(raw, np.complex64), n // 2)
        app = self.start_app("--source", "file:" + pipe.path, "--rate", rate, "--freq", "10M",
                             "--plan", plan, "-o", self.path("out"), "--segment-seconds", 0.5,
                             "--status-interval", 0.2, "--status-json", self.path("st.json"))
        out, err = self.reload_to_end(app, pipe, "up", plan,
                                      "name,offset,rate\nup,-250k,50k\nmid,0,100k\n")
        self.assertRegex(err, r"SIGHUP: plan .*plan\.csv: channel up retuned to 9750000 Hz "
                              r"\(\d+ taps\) from the next chunk")
        self.assertRegex(out, r"stopped: +end of the source; %d input samples" % n)
        metas, y = self.segments(self.path("out"), "up")
        self.assertEqual(len(y), n // 20)
        # Back-pressure (the bank behind the file's rate on a loaded CPU) may be
        # annotated as well.
        def retunes(meta):
            return [a for a in meta["annotations"] if a["core:label"] != "backpressure"]
        retuned = [m for m in metas if retunes(m)]
        self.assertEqual(len(retuned), 1, [m["annotations"] for m in metas])
        self.assertEqual(len(retunes(retuned[0])), 1)
        a = retunes(retuned[0])[0]
        self.assertEqual((a["core:label"], a["core:sample_start"], a["wideband:frequency"]),
                         ("retune", 0, 9.75e6))
        k = retuned[0]["captures"][0]["core:global_index"]
        self.assertGreater(k, 0)
        self.assertLessEqual(k, n // 2 // 20)
        for m in metas:
            self.assertEqual(m["captures"][0]["core:frequency"],
                             10.25e6 if m["captures"][0]["core:global_index"] < k else 9.75e6)
        # The carrier up to the retune, noise from its filter's start-up on.
        self.assertGreater(float(np.mean(np.abs(y[max(0, k - 500):k]) ** 2)), 0.1)
        self.assertLess(float(np.mean(np.abs(y[k + 200:k + 2000]) ** 2)), 0.01)
        metas, y = self.segments(self.path("out"), "mid")
        self.assertEqual([retunes(m) for m in metas], [[]] * len(metas))
        self.assertEqual(len(y), n // 10)

    def assert_channel_from(self, y, x, first, plan_text, name, rate=1e6):
        """y: channel name of plan_text from its output sample first on, equal
        to the float64 definition there up to one phase (a retune's step)."""
        from gnuradio.wideband import channel_plan
        c = {c.name: c for c in channel_plan.load(self.write_plan(plan_text), rate, 10e6)}[name]
        D, m = c.decimation, -(-len(c.taps) // c.decimation)
        start = (first - m) * D
        self.assertGreaterEqual(start, 0)
        ref = freq_xlating_reference(x[start:(first + len(y)) * D], c.taps, D, c.offset,
                                     rate)[m:]
        self.assertEqual(len(ref), len(y))
        phase = np.vdot(ref, y) / np.vdot(ref, ref)
        self.assertAlmostEqual(abs(phase), 1.0, delta=1e-4)
        self.assertLess(relative_l2(y, phase * ref), 1e-4, name)

    def write_plan(self, text):
        path = self.path("plan-ref.csv")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_channel_bank_channels_added_and_removed(self):
        """SIGHUP: a channel removed from the plan ends its recording where the
        bank's freq tag marks the change, a channel added takes the spare
        output of its decimation and starts its recording there (its samples
        from the first on the filter's at its centre); then "reload" on
        --control gives the removed one back (new files); the channel left
        alone goes on untouched."""
        import signal
        rate, n = 1e6, 3000000
        raw, plan = self.file_and_plan(n, seed=17)  # the carrier at +250 kHz
        x = np.fromfile(raw, np.complex64)
        pipe = self.held_pipe(x, n // 5)  # reloads between the pipe's stages
        first = "name,offset,rate\nup,250k,50k\nmid,0,100k\n"
        second = "name,offset,rate\nmid,0,100k\nnew,250k,100k\n"
        third = second + "up,250k,50k\n"
        control = "tcp://127.0.0.1:%d" % consecutive_free_ports(1)
        app = self.start_app("--source", "file:" + pipe.path, "--rate", rate, "--freq", "10M",
                             "--plan", plan, "--spare-channels", 1, "-o", self.path("out"),
                             "--segment-seconds", 0.5, "--status-interval", 0.2,
                             "--status-json", self.path("st.json"), "--control", control)
        self.wait_status(app, self.path("st.json"), lambda r: r["channel_samples"]["up"] >= 5000)
        with open(plan, "w") as f:
            f.write(second)
        app.send_signal(signal.SIGHUP)
        self.wait_log(app, r"SIGHUP: ")
        pipe.release(n // 2)
        self.wait_status(app, self.path("st.json"), lambda r: sorted(r["channel_samples"]) ==
                         ["mid", "new"] and r["channel_samples"]["new"] > 0)
        with open(plan, "w") as f:
            f.write(third)
        reply = self.request_reload(control)
        pipe.release()
        self.assertEqual(len(reply), 1, reply)
        self.assertRegex(reply[0], r"^control: reload: plan .*plan\.csv: channel up added at "
                                   r"10250000 Hz \(\d+ taps\) from the next chunk$")
        out, err = self.finish_app(app)
        self.assertRegex(err, r"SIGHUP: plan .*plan\.csv: channel up removed from the next "
                              r"chunk\n.*SIGHUP: plan .*plan\.csv: channel new added at "
                              r"10250000 Hz \(\d+ taps\) from the next chunk")
        self.assertRegex(out, r"output: +2 channels and 2 spare outputs")
        self.assertRegex(out, r"stopped: +end of the source; %d input samples" % n)

        # up: from the start to the removal, its last sample annotated.
        metas, y = self.segments(self.path("out"), "up")
        end = len(y)
        self.assertGreater(end, 5000)
        self.assertLessEqual(end, n // 5 // 20)
        last = end - metas[-1]["captures"][0]["core:global_index"]
        self.assertEqual([notes(m) for m in metas],
                         [[]] * (len(metas) - 1) + [[("removed", last - 1)]])
        removed = [a for a in metas[-1]["annotations"] if a["core:label"] == "removed"]
        self.assertTrue(removed[0]["core:comment"].endswith("before output sample %d" % end),
                        removed)
        self.assert_channel_from(y[-3000:], x, end - 3000, first, "up")
        # new and up again: from the sample their tag marks, an added note there.
        for base, name, plan_text in (("new", "new", second), ("up_2", "up", third)):
            metas, y = self.segments(self.path("out"), base, added=True)
            k = metas[0]["captures"][0]["core:global_index"]
            self.assertEqual([notes(m) for m in metas], [[("added", 0)]] + [[]] *
                             (len(metas) - 1))
            self.assertEqual(metas[0]["captures"][0]["core:frequency"], 10.25e6)
            self.assertEqual(k + len(y), n // (10 if name == "new" else 20))
            self.assert_channel_from(y[:3000], x, k, plan_text, name)
        self.assertGreater(k, end)  # up_2's
        metas, y = self.segments(self.path("out"), "mid")
        self.assertEqual([notes(m) for m in metas], [[]] * len(metas))
        self.assertEqual(len(y), n // 10)
        self.assert_channel_from(y[200000:250000], x, 200000, first, "mid")

    def test_mistakes(self):
        raw = self.path("iq.cf32")
        np.zeros(1000, np.complex64).tofile(raw)
        for args, rc, msg in (
                (["--source", "zmq:127.0.0.1:5", "--rate", "1M"], 2, "wants zmq:tcp://HOST:PORT"),
                (["--source", "soapy:driver=x"], 2, "wants --rate"),
                ([raw, "--source", "file:" + raw, "--rate", "1M"], 2,
                 "INPUT does not go with --source"),
                (["--source", "file:" + raw, "--rate", "1M", "--gain", "3"], 2,
                 "--gain and --antenna go to a radio"),
                (["--gain", "3"], 2, "go with --source"),
                (["--spare-channels", "2"], 2, "--spare-channels go with --source"),
                (["--source", "file:" + raw, "--rate", "1M", "-l", "@" + self.path("none")], 2,
                 "--channels-list @%s: No such file or directory" % self.path("none")),
                (["--source", "soapy:driver=qa_no_such_driver", "--rate", "1M", "-o",
                  self.path("o1")], 1, "cannot open the soapy source 'driver=qa_no_such_driver'")):
            status, out, err = run_app(*args, timeout=300)
            self.assertEqual(status, rc, "%s: %s" % (args, err))
            self.assertIn(msg, err)
            self.assertNotIn("Traceback", err)
        try:
            import osmosdr  # noqa: F401
        except ImportError:
            status, out, err = run_app("--source", "osmosdr:rtl=0", "--rate", "2M", "-o",
                                       self.path("o2"), timeout=300)
            self.assertEqual(status, 1, err)
            self.assertRegex(err, r"osmosdr sources need gr-osmosdr \(Debian package gr-osmosdr; "
                                  r"an optional dependency\), which is not installed")


if __name__ == "__main__":
    unittest.main(verbosity=2)
