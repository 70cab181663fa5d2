#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Flowgraph pieces shared by the blocks' QA (qa_fft_filter,
qa_pfb_channelizer_ccf, qa_fft_vcc, qa_zeromq and the reliability tests): random
never-zero input (complex float or complex integers, with the in-tree chain that
converts the integers), an upstream block that passes items in random pieces, a gate
that holds the stream, a stall-safe wait, the float64 references of the filter
and the channelizer, a stream comparison, free loopback ports. Imported from the
tests' own folder (and by apps/qa_wideband_channelize.py); not installed."""

import contextlib
import os
import socket
import tempfile
import threading
import time

import numpy as np
from gnuradio import blocks, gr

# An item of each input_type of our blocks: one complex sample.
SAMPLE_ITEMS = {"fc32": np.complex64, "sc16": (np.int16, 2), "sc8": (np.int8, 2)}


def never_zero(rng, count):
    """Complex samples with magnitudes in [0.5, 1.5] and random phases."""
    magnitude = rng.uniform(0.5, 1.5, count)
    phase = rng.uniform(-np.pi, np.pi, count)
    return (magnitude * np.exp(1j * phase)).astype(np.complex64)


def never_zero_integers(rng, count, input_type):
    """`count` complex int16 ("sc16") or int8 ("sc8") samples as interleaved I, Q
    values: random over the type's whole range, its extremes (-32768 and 32767
    for int16) among them, no value zero."""
    dtype = np.int16 if input_type == "sc16" else np.int8
    info = np.iinfo(dtype)
    values = rng.integers(info.min, info.max, 2 * count, endpoint=True)
    values[values == 0] = 1
    values[rng.choice(2 * count, 4, replace=False)] = [info.min, info.max] * 2
    return values.astype(dtype)


def as_complex(samples):
    """Samples as complex128: complex ones as they are, interleaved integers as
    their values (I + jQ), as the in-tree converters give them."""
    samples = np.asarray(samples)
    if np.iscomplexobj(samples):
        return samples.astype(np.complex128)
    return samples[0::2].astype(np.float64) + 1j * samples[1::2].astype(np.float64)


def side_by_side_sources(tb, samples, input_type="fc32"):
    """The sources of a run of our block beside the in-tree one on `samples`:
    (ours, in_tree). For "fc32" both are one vector source of the complex
    samples. For "sc16" and "sc8" `samples` holds interleaved int16 or int8
    values: ours gives items of one complex sample (two integers), as our
    blocks take them; in_tree is GNU Radio's chain, a source of the values
    into interleaved_short_to_complex or interleaved_char_to_complex (default
    scale: the values), connected in `tb`."""
    if input_type == "fc32":
        source = blocks.vector_source_c(samples, False)
        return source, source
    if input_type == "sc16":
        values = samples.tolist()
        make, converter = blocks.vector_source_s, blocks.interleaved_short_to_complex()
    else:
        values = samples.view(np.uint8).tolist()  # vector_source_b takes bytes
        make, converter = blocks.vector_source_b, blocks.interleaved_char_to_complex()
    tb.connect(make(values, False), converter)
    return make(values, False, 2), converter


def complex_items(vlen):
    return np.complex64 if vlen == 1 else (np.complex64, vlen)


class random_chunks(gr.basic_block):
    """Passes items (samples, or vectors of vlen; or items of another numpy
    type, SAMPLE_ITEMS) on in pieces of random size, 1..max_chunk per call."""

    def __init__(self, max_chunk, seed, vlen=1, item=None):
        item = item or complex_items(vlen)
        gr.basic_block.__init__(self, name="random_chunks",
                                in_sig=[item], out_sig=[item])
        self.rng = np.random.default_rng(seed)
        self.max_chunk = max_chunk

    def general_work(self, input_items, output_items):
        count = min(len(input_items[0]), len(output_items[0]),
                    int(self.rng.integers(1, self.max_chunk + 1)))
        output_items[0][:count] = input_items[0][:count]
        self.consume(0, count)
        return count


class gate(gr.sync_block):
    """Passes the first `before` items (complex samples or vectors of vlen, or
    items of another numpy type), then waits until `opened` is set."""

    def __init__(self, before, vlen=1, item=None):
        item = item or complex_items(vlen)
        gr.sync_block.__init__(self, name="gate", in_sig=[item], out_sig=[item])
        self.before = before
        self.opened = threading.Event()

    def work(self, input_items, output_items):
        count = len(output_items[0])
        passed = self.nitems_written(0)
        if passed < self.before:
            count = min(count, self.before - passed)
        elif not self.opened.wait(0.01):
            return 0
        output_items[0][:count] = input_items[0][:count]
        return count


def wait_for(testcase, condition, seconds=120):
    deadline = time.monotonic() + seconds
    while not condition():
        testcase.assertLess(time.monotonic(), deadline, "flowgraph stalled")
        time.sleep(0.005)


def filter_reference(x, taps, D, zero_before=0):
    """fft_filter_ccc/ccf in float64: y[m] = sum_k h[k] x[m*D - k], m = 0 ..
    len(x)//D - 1, with x[n] taken as zero for n < zero_before (and n < 0)."""
    x = np.asarray(x, np.complex128).copy()
    x[:max(zero_before, 0)] = 0
    h = np.asarray(taps, np.complex128)
    outputs = len(x) // D
    if outputs == 0:
        return np.zeros(0, np.complex128)
    size = 1 << int(np.ceil(np.log2(len(x) + len(h))))
    full = np.fft.ifft(np.fft.fft(x, size) * np.fft.fft(h, size))
    return full[0:outputs * D:D]


def channelizer_reference(x, taps, numchans, D, first_frame=0, frames=None):
    """pfb_channelizer_ccf in float64: frames first_frame.. (all there are, or
    `frames`) x numchans, column c = channel c.

    y_c[q] = exp(-2 pi i c (D+1)/M) sum_n h[n] x[t-n] exp(-2 pi i c (t-n)/M),
    t = (q+1)D - 1, x[k < 0] = 0. Folding the terms by (t-n) mod M makes it
    one M-point DFT per frame.
    """
    x = np.asarray(x, np.complex128)
    h = np.asarray(taps, np.float64)
    M, L = numchans, len(h)
    frames = len(x) // D - first_frame if frames is None else frames
    padded = np.concatenate([np.zeros(L - 1), x])
    last = (np.arange(first_frame, first_frame + frames) + 1) * D - 1
    index = last[:, None] - np.arange(L)[None, :]
    terms = padded[index + L - 1] * h[None, :]
    # fold by sample index mod M: one bincount over (frame, residue) pairs
    bins = (np.arange(frames)[:, None] * M + index % M).ravel()
    folded = (np.bincount(bins, terms.real.ravel(), frames * M) +
              1j * np.bincount(bins, terms.imag.ravel(), frames * M)).reshape(frames, M)
    c = np.arange(M)
    return np.fft.fft(folded, axis=1) * np.exp(-2j * np.pi * c * (D + 1) / M)[None, :]


def assert_same_stream(ours, ref, element_tol, l2_tol, what=""):
    """Raises AssertionError unless ours has ref's length and matches it: every
    sample within element_tol * max|ref|, relative L2 difference <= l2_tol."""
    ours = np.asarray(ours, dtype=np.complex128)
    ref = np.asarray(ref, dtype=np.complex128)
    if ours.shape != ref.shape:
        raise AssertionError(f"{what}: {ours.shape} samples, expected {ref.shape}")
    if ref.size == 0:
        return
    error = np.abs(ours - ref)
    limit = element_tol * np.abs(ref).max()
    bad = np.flatnonzero(error > limit)
    if bad.size:
        k = bad[0]
        raise AssertionError(
            f"{what}: {bad.size} of {ref.size} samples differ; first: sample {k}: "
            f"ours {ours[k]:.6g}, reference {ref[k]:.6g} "
            f"(|diff| {error[k]:.3g} > {limit:.3g}); last: sample {bad[-1]}")
    relative_l2 = np.linalg.norm(ours - ref) / np.linalg.norm(ref)
    if relative_l2 > l2_tol:
        raise AssertionError(f"{what}: relative L2 difference {relative_l2:.3g} > {l2_tol}")


def consecutive_free_ports(count):
    """The first of `count` consecutive TCP ports of 127.0.0.1 that are free now,
    for a program that binds PORT, PORT + 1, ..."""
    def free(port):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
                return True
            except OSError:
                return False

    for _ in range(100):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))  # the system's pick
            first = probe.getsockname()[1]
        if first + count - 1 <= 65535 and all(map(free, range(first, first + count))):
            return first
    raise RuntimeError(f"no {count} consecutive free TCP ports on 127.0.0.1")


@contextlib.contextmanager
def captured_stdout(lines):
    """What C++ prints to standard output meanwhile, appended to `lines`."""
    with tempfile.TemporaryFile() as f:
        saved = os.dup(1)
        os.dup2(f.fileno(), 1)
        try:
            yield
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        f.seek(0)
        lines.extend(f.read().decode().splitlines())
