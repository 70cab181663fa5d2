#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""gnuradio.wideband.live: the parts of a channelizer that runs from a receiver
without end (wideband_channelize --source; docs/deployment.md).

  * parse_source() and build_source(): the input, through GNU Radio's own
    blocks -- soapy:ARGS (gr-soapy), uhd:ARGS (gr-uhd), osmosdr:ARGS
    (gr-osmosdr, optional), zmq:tcp://HOST:PORT (gr-zeromq PULL, tags
    passed) and file:PATH (a file or a named pipe, played at its rate
    through a throttle);
  * LossLog: the input's time line. rx_time tags (UHD gives one at the start
    and after every overflow; a ZeroMQ sender passes its radio's) set the time
    of an input sample; a tag whose time is later than the samples before it
    account for is a gap of that many lost samples, one that is earlier a
    time jump back. Our own back-pressure (the source blocked by a full
    buffer) is counted there too. Without rx_time tags, the host clock when
    the first sample arrived dates the stream, and gaps cannot be seen;
  * InputMonitor: a sink beside the channelizer on the source's output that
    reads the tags and counts the samples, without touching them;
  * SegmentedSigMFSink: one channel's SigMF recording rolled into segments,
    each with core:datetime, core:global_index (the stream's index of its first
    sample: continuous across segments) and the LossLog's events as annotations;
  * Status: a report every N seconds, on stderr and as JSON lines;
  * Station: the flowgraph of these around a channelizer, run until the source
    ends or SIGINT/SIGTERM, every recording then closed with its metadata.
"""

import collections
import datetime
import json
import math
import os
import re
import stat
import threading
import time

import numpy as np

SIGMF_VERSION = "1.0.0"
EXTENSION = {"name": "wideband", "version": "1.0.0", "optional": True}

SOURCE_KINDS = ("soapy", "uhd", "osmosdr", "zmq", "file")
RADIO_KINDS = ("soapy", "uhd", "osmosdr")
# Sample formats on the wire: GNU Radio item size and the channelizer's input_type.
FORMATS = {"fc32": (8, "fc32"), "sc16": (4, "sc16")}
ZMQ_TIMEOUT_MS = 100


class LiveError(Exception):
    """A live run that cannot go on as asked (the message says why)."""


class SourceError(LiveError):
    """A source that cannot be used as given (the message says why)."""


class SourceSpec:
    """--source KIND:ARGS with the radio's settings: rate (Hz), freq (Hz, or
    None), gain (dB, or None), antenna (or None), sample_format (fc32 or
    sc16: complex int16 where the source offers it); tags: whether a ZeroMQ
    sender passes GNU Radio's tags (its messages then have a tag header)."""

    def __init__(self, kind, args, rate, freq=None, gain=None, antenna=None,
                 sample_format="fc32", tags=True):
        self.kind, self.args, self.rate = kind, args, rate
        self.freq, self.gain, self.antenna = freq, gain, antenna
        self.sample_format, self.tags = sample_format, tags

    @property
    def itemsize(self):
        return FORMATS[self.sample_format][0]

    @property
    def input_type(self):
        return FORMATS[self.sample_format][1]


def parse_source(text, rate, freq=None, gain=None, antenna=None, sample_format="fc32",
                 tags=True):
    """SourceSpec of 'KIND:ARGS'; raises SourceError for a malformed one."""
    kind, sep, args = text.partition(":")
    if not sep or kind not in SOURCE_KINDS:
        raise SourceError("--source %r: wants KIND:ARGS, KIND one of %s"
                          % (text, ", ".join(SOURCE_KINDS)))
    if sample_format not in FORMATS:
        raise SourceError("sample format %r: one of %s" % (sample_format, ", ".join(FORMATS)))
    if rate is None or not rate > 0 or not math.isfinite(rate):
        raise SourceError("--source %s wants --rate, the input's sample rate in Hz" % kind)
    if kind == "osmosdr" and sample_format != "fc32":
        raise SourceError("osmosdr gives complex float only: --source-format fc32")
    if kind == "zmq":
        if not re.match(r"^(tcp://[^:/\s]+:\d+|ipc://\S+)$", args):
            raise SourceError("--source zmq:%s: wants zmq:tcp://HOST:PORT (the sender's PUSH "
                              "socket) or zmq:ipc://PATH" % args)
    elif kind == "file":
        if not args:
            raise SourceError("--source file: wants file:PATH")
        # A named pipe: another program writing samples as it receives them.
        is_pipe = os.path.exists(args) and stat.S_ISFIFO(os.stat(args).st_mode)
        if not (os.path.isfile(args) or is_pipe):
            raise SourceError("--source file:%s: no such file or named pipe" % args)
        if not is_pipe and os.path.getsize(args) % FORMATS[sample_format][0]:
            raise SourceError("--source file:%s: not a whole number of %s samples"
                              % (args, sample_format))
    if kind not in RADIO_KINDS and (gain is not None or antenna is not None):
        raise SourceError("--gain and --antenna go to a radio (soapy, uhd, osmosdr), "
                          "not to a %s source" % kind)
    if not tags and kind != "zmq":
        raise SourceError("--no-source-tags is for a ZeroMQ sender, not a %s source" % kind)
    return SourceSpec(kind, args, float(rate), freq, gain, antenna, sample_format, tags)


class Recipe:
    """How a source block is made: module (under gnuradio, or top level for
    osmosdr), factory (a name in it), args of the factory, then calls
    [(method, args)] on the block. Built by build(); inspected by the tests."""

    def __init__(self, module, factory, args, calls, package):
        self.module, self.factory, self.args, self.calls = module, factory, args, calls
        self.package = package  # what provides the module, for the error message

    def import_module(self):
        import importlib
        try:
            if self.module == "osmosdr":
                return importlib.import_module("osmosdr")
            return importlib.import_module("gnuradio." + self.module)
        except ImportError as e:
            raise SourceError("%s sources need %s, which is not installed here (%s)"
                              % (self.module, self.package, e))

    def build(self):
        mod = self.import_module()
        try:
            if self.factory == "usrp_source":
                args = (self.args[0], mod.stream_args(**self.args[1]))
            else:
                args = self.args
            block = getattr(mod, self.factory)(*args)
            for method, margs in self.calls:
                getattr(block, method)(*margs)
        except (RuntimeError, ValueError, KeyError, LookupError) as e:
            raise SourceError("cannot open the %s source %r: %s"
                              % (self.module, self.args[0], " ".join(str(e).split())))
        return block


def recipe(spec):
    """The Recipe of a radio's source block for spec (soapy, uhd, osmosdr)."""
    if spec.kind == "soapy":
        # gr-soapy 3.10: source(device, type, nchan, dev_args, stream_args,
        # tune_args, other_settings); the device string holds driver=...
        calls = [("set_sample_rate", (0, spec.rate))]
        if spec.freq is not None:
            calls.append(("set_frequency", (0, spec.freq)))
        if spec.gain is not None:
            calls += [("set_gain_mode", (0, False)), ("set_gain", (0, spec.gain))]
        if spec.antenna is not None:
            calls.append(("set_antenna", (0, spec.antenna)))
        return Recipe("soapy", "source", (spec.args, spec.sample_format, 1, "", "", [""], [""]),
                      calls, "gr-soapy (GNU Radio's soapy component)")
    if spec.kind == "uhd":
        # sc16: complex int16 on the host side as on the wire.
        calls = [("set_samp_rate", (spec.rate,))]
        if spec.freq is not None:
            calls.append(("set_center_freq", (spec.freq, 0)))
        if spec.gain is not None:
            calls.append(("set_gain", (spec.gain, 0)))
        if spec.antenna is not None:
            calls.append(("set_antenna", (spec.antenna, 0)))
        return Recipe("uhd", "usrp_source",
                      (spec.args, {"cpu_format": spec.sample_format, "otw_format": "sc16",
                                   "channels": [0]}),
                      calls, "gr-uhd (GNU Radio's uhd component)")
    if spec.kind == "osmosdr":
        calls = [("set_sample_rate", (spec.rate,))]
        if spec.freq is not None:
            calls.append(("set_center_freq", (spec.freq, 0)))
        if spec.gain is not None:
            calls += [("set_gain_mode", (False, 0)), ("set_gain", (spec.gain, 0))]
        if spec.antenna is not None:
            calls.append(("set_antenna", (spec.antenna, 0)))
        return Recipe("osmosdr", "source", (spec.args,), calls,
                      "gr-osmosdr (Debian package gr-osmosdr; an optional dependency)")
    raise ValueError("no radio recipe for %s" % spec.kind)


def build_source(spec):
    """(first, last, rx_time) of the GNU Radio blocks producing spec's
    samples (items of spec.itemsize); rx_time: whether the source may tag
    rx_time (UHD; a ZeroMQ sender that passes its radio's tags)."""
    from gnuradio import blocks
    if spec.kind in RADIO_KINDS:
        block = recipe(spec).build()
        return block, block, spec.kind == "uhd"
    if spec.kind == "zmq":
        from gnuradio import zeromq
        try:
            block = zeromq.pull_source(spec.itemsize, 1, spec.args, ZMQ_TIMEOUT_MS, spec.tags,
                                       -1)
        except RuntimeError as e:
            raise SourceError("cannot connect to %s: %s" % (spec.args, e))
        return block, block, spec.tags
    src = blocks.file_source(spec.itemsize, spec.args, False)
    throttle = blocks.throttle(spec.itemsize, spec.rate, True)
    return src, throttle, False


# ---------------------------------------------------------------------------
# The input's time line and what it lost
# ---------------------------------------------------------------------------


class Event:
    """A loss or discontinuity at input sample index: kind ("gap",
    "time_jump_back", "backpressure"), lost (samples, 0 if unknown), host
    (host clock, Unix seconds, when it was seen) and comment."""

    def __init__(self, kind, index, lost, host, comment):
        self.kind, self.index, self.lost, self.host, self.comment = \
            kind, index, lost, host, comment


class LossLog:
    """The input stream's time line (input sample index -> time) and its
    events, shared by the monitor (which writes) and the sinks and status
    (which read) across GNU Radio's threads."""

    def __init__(self, rate, tolerance=1):
        self.rate = float(rate)
        self.tolerance = tolerance  # samples of disagreement taken as rounding
        self.lock = threading.Lock()
        # [(index, secs, frac)]: the first rx_time tag and those after a
        # discontinuity, in order (a tag that agrees with the one before adds
        # nothing: the list stays short however long the run).
        self.refs = []
        self.host_start = None  # host clock when the first sample arrived
        self.seen = 0  # input samples the monitor has passed
        self.events = []  # those not yet forgotten (forget())
        self.count = 0  # events so far
        self.lost = 0

    @property
    def time_source(self):
        return "rx_time" if self.refs else "host clock"

    def first_samples(self, host_now):
        with self.lock:
            if self.host_start is None:
                self.host_start = host_now

    def advance(self, seen):
        with self.lock:
            self.seen = seen

    def on_rx_time(self, index, secs, frac, host_now=None):
        """An rx_time tag: input sample index was taken at secs + frac."""
        host_now = time.time() if host_now is None else host_now
        with self.lock:
            if self.refs:
                i0, s0, f0 = self.refs[-1]
                # In samples, exactly enough: whole seconds as integers.
                late = round(((secs - s0) + (frac - f0)) * self.rate) - (index - i0)
                if abs(late) <= self.tolerance:
                    return
                if late > 0:
                    self._add(Event("gap", index, late, host_now,
                                    "%d input samples lost before input sample %d (rx_time "
                                    "%s)" % (late, index, iso(secs + frac))))
                else:
                    self._add(Event("time_jump_back", index, 0, host_now,
                                    "rx_time went back by %d samples at input sample %d (%s)"
                                    % (-late, index, iso(secs + frac))))
            self.refs.append((index, int(secs), float(frac)))

    def add(self, kind, index, lost, comment, host_now=None):
        with self.lock:
            self._add(Event(kind, index, lost, time.time() if host_now is None else host_now,
                            comment))

    def _add(self, event):
        event.number = self.count
        self.events.append(event)
        self.count += 1
        self.lost += event.lost

    def events_from(self, number):
        """The events numbered number on that are still kept, in order."""
        with self.lock:
            return [e for e in self.events if e.number >= number]

    def forget(self, index, number):
        """Drops the events before input sample index numbered below number
        (logged): no recording needs them any more. A run of days with
        frequent overflows keeps a short list."""
        with self.lock:
            self.events = [e for e in self.events if e.index >= index or e.number >= number]

    def time_of(self, index):
        """Unix time (secs, frac) of input sample index: from the last rx_time
        tag at or before it (the first one for samples before it), else from
        the host clock when the first sample arrived; None before that."""
        with self.lock:
            ref = None
            for r in self.refs:
                if r[0] <= index or ref is None:
                    ref = r
                if r[0] > index:
                    break
            if ref is None:
                if self.host_start is None:
                    return None
                ref = (0, int(self.host_start), self.host_start - int(self.host_start))
        i0, s0, f0 = ref
        t = f0 + (index - i0) / self.rate
        whole = math.floor(t)
        return s0 + whole, t - whole

    def events_in(self, first, end):
        """The events at input indices first <= index < end."""
        with self.lock:
            return [e for e in self.events if first <= e.index < end]

    def snapshot(self):
        with self.lock:
            return self.seen, self.count, self.lost


def iso(t):
    """ISO 8601 UTC with microseconds of Unix time t (float, or (secs, frac))."""
    if isinstance(t, tuple):
        secs, frac = t
    else:
        secs = math.floor(t)
        frac = t - secs
    micro = int(round(frac * 1e6))
    if micro >= 1000000:
        secs, micro = secs + 1, micro - 1000000
    d = datetime.datetime.fromtimestamp(secs, datetime.timezone.utc).replace(microsecond=micro)
    return d.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def rx_time_value(value):
    """(secs, frac) of an rx_time tag's value (pmt tuple of uint64, double)."""
    import pmt
    return int(pmt.to_uint64(pmt.tuple_ref(value, 0))), float(pmt.to_double(
        pmt.tuple_ref(value, 1)))


def make_monitor(itemsize, loss):
    """InputMonitor for items of itemsize bytes (8: fc32, 4: sc16)."""
    from gnuradio import gr
    import pmt

    rx_time = pmt.intern("rx_time")

    class InputMonitor(gr.sync_block):
        """Sink beside the channelizer: reads rx_time tags, counts samples."""

        def __init__(self):
            gr.sync_block.__init__(self, "wideband_input_monitor",
                                   [np.complex64 if itemsize == 8 else np.uint32], [])

        def work(self, input_items, output_items):
            n = len(input_items[0])
            start = self.nitems_read(0)
            if start == 0 and n:
                loss.first_samples(time.time())
            for tag in self.get_tags_in_window(0, 0, n, rx_time):
                secs, frac = rx_time_value(tag.value)
                loss.on_rx_time(tag.offset, secs, frac)
            loss.advance(start + n)
            return n

    return InputMonitor()


# ---------------------------------------------------------------------------
# Segmented SigMF recordings
# ---------------------------------------------------------------------------


# A segment closed whose metadata is not written yet: its recording's file
# name base and description, number, first sample, samples, centre and
# annotations.
ClosedSegment = collections.namedtuple(
    "ClosedSegment", "base description number start count frequency notes")


class SegmentWriter:
    """One output's recording in segments: BASE-NNNNNN.sigmf-data and
    .sigmf-meta, segment_samples samples each (the last one shorter), and a
    new segment where the channel is retuned: a segment has one centre
    frequency. base None: an idle output (a spare slot), whose samples are
    counted and discarded; a reload starts and stops its recording where the
    channelizer's tag marks the change (expect()).

    Output sample k stands for input sample k * decimation: its time and
    the events there come from loss (LossLog). A segment's metadata is written
    once the monitor has passed the segment's end in the input (no later event
    can fall in it) or at close(); its data file is written as the samples
    come. Thread: GNU Radio's, one per output (write), the main one (close,
    expect)."""

    def __init__(self, folder, base, sample_rate, frequency, decimation, segment_samples,
                 loss, description, recorder, key=None):
        self.folder, self.base = folder, base
        self.key = base if key is None else key  # the name in the status; None: idle
        self.sample_rate, self.frequency = sample_rate, frequency
        self.decimation, self.segment_samples = decimation, segment_samples
        self.loss, self.description, self.recorder = loss, description, recorder
        self.written = 0  # output samples so far (recorded or not)
        self.segment = 0  # number of the current segment
        self.start = 0  # the current segment's first sample
        self.notes = []  # the current segment's own annotations
        self.file = None
        self.pending = []  # ClosedSegments whose metadata is not written yet
        self.paths = []  # (meta, data) of every segment written
        self.power_sum, self.power_count = 0.0, 0
        # The change a reload asked for (expect()): (frequency of the tag
        # where it applies or None, Channel to record, None to stop or
        # "retune", comment).
        self.expected = None
        self.lock = threading.Lock()

    def name(self, number, base=None):
        return os.path.join(self.folder, "%s-%06d" % (base or self.base, number))

    def changing(self):
        """Whether a change expect()ed has not reached the output yet."""
        with self.lock:
            return self.expected is not None

    def expect(self, frequency, change, comment=""):
        """From the first retune to frequency that write() is given on (the
        tag of the reload's last call to the channelizer), or from the next
        sample written when frequency is None (the output's channel stays
        the same): record change (a Channel: key, base, frequency,
        description), stop recording (None), or a retune ("retune")."""
        with self.lock:
            self.expected = (frequency, change, comment)

    def write(self, samples, retunes=()):
        """Appends samples (complex64), rolling segments at their boundaries;
        retunes: [(index in samples, new centre frequency, comment)], in
        order, where the channel's centre changes."""
        with self.lock:
            if self.expected is not None and self.expected[0] is None:
                self._changed(None, "")
            pos = 0
            for at, frequency, comment in list(retunes) + [(len(samples), None, None)]:
                if self.base is None:  # idle: counted, not kept
                    self.written += at - pos
                    self.start, pos = self.written, at
                while pos < at:
                    if self.file is None:
                        self.file = open(self.name(self.segment) + ".sigmf-data", "wb")
                    piece = samples[pos:min(at, pos + self.start + self.segment_samples -
                                            self.written)]
                    self.file.write(piece)  # its buffer: no copy
                    self.power_sum += float(np.vdot(piece, piece).real)
                    self.power_count += len(piece)
                    self.written += len(piece)
                    pos += len(piece)
                    if self.written == self.start + self.segment_samples:
                        self._close_segment()
                if frequency is not None:
                    self._changed(frequency, comment)
            self._write_ready(final=False)

    def _changed(self, frequency, comment):
        if self.expected is not None and self.expected[0] == frequency:
            _, change, note = self.expected
            self.expected = None
            if change is None:
                self._stop(note)
                return
            if change != "retune":
                self._start(change, note)
                return
            comment = (comment or "") + note
        if self.base is not None:  # else an idle output's step towards a channel
            self._retune(frequency, comment)

    def _retune(self, frequency, comment):
        if self.written > self.start:
            self._close_segment()
        self.notes.append({"core:sample_start": 0, "core:label": "retune",
                           "core:comment": "centre %.9g Hz (was %.9g Hz)%s"
                                           % (frequency, self.frequency, comment or ""),
                           "wideband:frequency": frequency})
        self.frequency = frequency

    def _start(self, channel, comment):
        self.key, self.base, self.description = channel.key, channel.base, channel.description
        self.frequency = channel.frequency
        self.segment, self.start = 0, self.written
        self.notes = [{"core:sample_start": 0, "core:label": "added",
                       "core:comment": "channel %s added at %.9g Hz%s"
                                       % (channel.key, channel.frequency, comment),
                       "wideband:frequency": channel.frequency}]

    def _stop(self, comment):
        count = self.written - self.start
        note = {"core:sample_start": max(count - 1, 0), "core:label": "removed",
                "core:comment": "channel %s removed: the recording ends after this sample, "
                                "before output sample %d%s" % (self.key, self.written, comment)}
        if count:
            self.notes.append(note)
            self._close_segment()
        elif self.pending and self.pending[-1].start + self.pending[-1].count == self.written:
            # Removed at a segment's end: the note goes to the segment ended there.
            note["core:sample_start"] = max(self.pending[-1].count - 1, 0)
            self.pending[-1].notes.append(note)
        self.key = self.base = None
        self.notes = []

    def _close_segment(self):
        if self.file is not None:
            self.file.close()
            self.file = None
        self.pending.append(ClosedSegment(self.base, self.description, self.segment,
                                          self.start, self.written - self.start,
                                          self.frequency, self.notes))
        self.segment += 1
        self.start = self.written
        self.notes = []

    def _write_ready(self, final):
        seen = self.loss.snapshot()[0]
        while self.pending:
            segment = self.pending[0]
            if not final and seen < (segment.start + segment.count) * self.decimation:
                break
            self._write_meta(segment, last=final and len(self.pending) == 1)
            self.pending.pop(0)

    def _write_meta(self, segment, last):
        """last: the recording's last segment, which takes the events after its
        last sample as well (at its last sample)."""
        base, description, number, start, count, frequency, notes = segment
        d = self.decimation
        t = self.loss.time_of(start * d)
        capture = {"core:sample_start": 0, "core:global_index": start,
                   "core:frequency": frequency}
        if t is not None:
            capture["core:datetime"] = iso(t)
        annotations = list(notes)
        end = (start + count) * d if not last else 1 << 62
        for e in self.loss.events_in(start * d, end):
            annotations.append({
                "core:sample_start": min(e.index // d - start, max(count - 1, 0)),
                "core:label": e.kind,
                "core:comment": "%s (host clock %s)" % (e.comment, iso(e.host)),
                "wideband:input_index": e.index,
                "wideband:lost_samples": e.lost,
            })
        meta = {
            "global": {
                "core:datatype": "cf32_le",
                "core:sample_rate": self.sample_rate,
                "core:version": SIGMF_VERSION,
                "core:num_channels": 1,
                "core:description": "%s; segment %d; core:datetime from %s" % (
                    description, number, self.loss.time_source),
                "core:recorder": self.recorder,
                "core:extensions": [EXTENSION],
                "wideband:time_source": self.loss.time_source,
                "wideband:segment": number,
                "wideband:decimation": d,
            },
            "captures": [capture],
            "annotations": annotations,
        }
        path = self.name(number, base) + ".sigmf-meta"
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=2)
            f.write("\n")
        os.replace(path + ".tmp", path)
        self.paths.append((path, self.name(number, base) + ".sigmf-data"))

    def close(self):
        """Closes the current segment and writes every metadata file left."""
        with self.lock:
            if self.written > self.start:
                self._close_segment()
            self._write_ready(final=True)

    def needed(self):
        """The first input sample whose events the recording may still need
        (its oldest segment whose metadata is not written yet)."""
        with self.lock:
            return (self.pending[0].start if self.pending else self.start) * self.decimation

    def take_power(self):
        """Mean |x|^2 since the last call (None if no samples)."""
        with self.lock:
            s, n = self.power_sum, self.power_count
            self.power_sum, self.power_count = 0.0, 0
        return s / n if n else None


def make_sink(writer, center_freq=0.0, channel_offset=None):
    """A GNU Radio sink of complex64 items writing them through writer. A
    "freq" tag (channel_bank_ccc's, where a new centre applies: the offset
    from the input's centre_freq) retunes the recording there; so does a
    "channel" tag (pfb_channelizer_ccf's, where a new channel map applies)
    given channel_offset(channel), the channel's offset."""
    from gnuradio import gr
    import pmt

    freq = pmt.intern("freq")
    channel = pmt.intern("channel")

    class SegmentedSigMFSink(gr.sync_block):
        def __init__(self):
            gr.sync_block.__init__(self, "wideband_segmented_sigmf_sink", [np.complex64], [])
            self.writer = writer

        def work(self, input_items, output_items):
            n = len(input_items[0])
            start = self.nitems_read(0)
            retunes = [(tag.offset - start, center_freq + pmt.to_double(tag.value), "")
                       for tag in self.get_tags_in_window(0, 0, n, freq)]
            if channel_offset is not None:
                retunes += [(tag.offset - start,
                             center_freq + channel_offset(pmt.to_long(tag.value)), "")
                            for tag in self.get_tags_in_window(0, 0, n, channel)]
            retunes.sort(key=lambda r: r[0])
            self.writer.write(input_items[0], retunes)
            return n

    return SegmentedSigMFSink()


def segment_samples(sample_rate, seconds=None, nbytes=None):
    """Channel samples per segment from --segment-seconds or --segment-bytes
    (8 bytes per cf32 sample); at least 1."""
    if seconds is not None:
        return max(1, int(round(seconds * sample_rate)))
    if nbytes is not None:
        return max(1, int(nbytes) // 8)
    raise ValueError("segment_samples wants seconds or nbytes")


# ---------------------------------------------------------------------------
# Status
# ---------------------------------------------------------------------------


class Status:
    """A report every interval seconds: input samples and the rate achieved
    against nominal, per-channel power and samples written, lost samples and events, our own
    back-pressure, the channelizer's time per work call (GNU Radio's
    performance counters, when on). Lines on stream (stderr); JSON lines to
    json_file and a ZeroMQ PUB socket (pub) when given."""

    def __init__(self, nominal_rate, loss, writers, interval, stream=None,
                 json_file=None, pub=None, chan=None):
        self.nominal, self.loss = nominal_rate, loss
        self.writers, self.interval = writers, interval
        self.stream, self.json_file, self.pub, self.chan = stream, json_file, pub, chan
        self.t_last = None  # monotonic time the interval began (None: at the first due())
        self.seen_last = 0
        self.backpressure_s = 0.0
        self.held = None  # since when (monotonic) the source's buffer is full

    def poll_backpressure(self, now, fullness, index):
        """Our own back-pressure: fullness (0..1) of the source's output
        buffer (GNU Radio's performance counter), index the source's samples
        so far. A full buffer holds the source back (a radio then overflows);
        each episode (from 95% full until below 50%) is an event of the
        LossLog, its time counted in backpressure_s."""
        if self.held is None and fullness >= 0.95:
            self.held = now
            self.loss.add("backpressure", index, 0,
                          "input buffer full from input sample %d: the source was held back "
                          "(a radio overflows; its rx_time then shows the gap)" % index)
        elif self.held is not None:
            self.backpressure_s += now - self.held
            self.held = now if fullness >= 0.5 else None

    def due(self, now):
        if self.t_last is None:
            self.t_last = now
            return False
        return now - self.t_last >= self.interval

    def report(self, now, final=False):
        seen, nevents, lost = self.loss.snapshot()
        dt = max(now - (self.t_last if self.t_last is not None else now), 1e-9)
        rate = (seen - self.seen_last) / dt
        self.t_last, self.seen_last = now, seen
        powers, written = {}, {}
        for w in self.writers:
            key = w.key
            if key is None:  # an idle output
                continue
            written[str(key)] = w.written
            p = w.take_power()
            # Strict JSON has no -Infinity: all-zero samples are null as well.
            powers[str(key)] = round(10 * math.log10(p), 2) if p else None
        work_ms = None
        if self.chan is not None:
            try:
                from gnuradio import gr
                work_ms = self.chan.pc_work_time_avg() / gr.high_res_timer_tps() * 1e3
            except (AttributeError, RuntimeError):
                work_ms = None
        record = {
            "time": iso(time.time()), "final": final,
            "input_samples": seen, "input_rate": rate, "nominal_rate": self.nominal,
            "rate_ratio": rate / self.nominal, "lost_samples": lost, "events": nevents,
            "backpressure_s": round(self.backpressure_s, 3),
            "time_source": self.loss.time_source,
            "work_ms_per_call": work_ms, "power_db": powers, "channel_samples": written,
        }
        if self.stream is not None:
            shown = ", ".join("%s %s" % (k, "-" if v is None else "%.1f" % v)
                              for k, v in list(powers.items())[:8])
            self.stream.write(
                "status: %s input samples, %.3f Msamples/s (%.1f%% of nominal), lost %d "
                "(%d events), back-pressure %.1f s%s; power dB: %s%s\n" % (
                    seen, rate / 1e6, 100 * rate / self.nominal, lost, nevents,
                    self.backpressure_s,
                    "" if work_ms is None else ", %.2f ms per channelizer call" % work_ms,
                    shown, ", ..." if len(powers) > 8 else ""))
            self.stream.flush()
        line = json.dumps(record, allow_nan=False)
        if self.json_file is not None:
            self.json_file.write(line + "\n")
            self.json_file.flush()
        if self.pub is not None:
            import zmq
            try:
                self.pub.send_string(line, zmq.NOBLOCK)
            except zmq.Again:
                pass  # PUB drops for slow subscribers; the next report follows
        return record


def open_control(endpoint):
    """A ZeroMQ REP socket bound to endpoint for Station.run's control."""
    control = None
    try:
        import zmq
        control = zmq.Context.instance().socket(zmq.REP)
        control.bind(endpoint)
    except Exception as e:  # ImportError, zmq.ZMQError
        if control is not None:
            control.close(0)
        raise LiveError("control on ZeroMQ %s: %s" % (endpoint, e))
    return control


def open_status_outputs(json_path=None, zmq_endpoint=None):
    """(file, PUB socket) for Status: json_path opened to append, a ZeroMQ
    PUB socket bound to zmq_endpoint; None for those not given."""
    json_file = pub = None
    try:
        if json_path:
            json_file = open(json_path, "a", encoding="utf-8")
    except OSError as e:
        raise LiveError("status file %s: %s" % (json_path, e.strerror or e))
    if zmq_endpoint:
        try:
            import zmq
            pub = zmq.Context.instance().socket(zmq.PUB)
            pub.bind(zmq_endpoint)
        except Exception as e:  # ImportError, zmq.ZMQError
            if pub is not None:
                pub.close(0)
            if json_file is not None:
                json_file.close()
            raise LiveError("status on ZeroMQ %s: %s" % (zmq_endpoint, e))
    return json_file, pub


# ---------------------------------------------------------------------------
# The station: source -> channelizer -> recordings, until stopped
# ---------------------------------------------------------------------------


class StopRequest:
    """SIGINT and SIGTERM: a flag the run's loop reads (the flowgraph is then
    stopped and every recording closed), not an exception; SIGHUP: another
    flag (reload), which the loop clears."""

    def __init__(self):
        import signal
        self.signal = None
        self.reload = False
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self.on_signal)
        signal.signal(signal.SIGHUP, self.on_hup)

    def on_signal(self, signum, frame):
        import signal
        self.signal = signal.Signals(signum).name

    def on_hup(self, signum, frame):
        self.reload = True


def idle(channel, offset=0.0):
    """A spare slot of a channel bank: channel's decimation and taps, at
    offset (Hz from the input's centre); name None (records nothing)."""
    from types import SimpleNamespace
    return SimpleNamespace(name=None, offset=offset, decimation=channel.decimation,
                           taps=channel.taps)


def plan_changes(slots, new, longest, busy=()):
    """What a reloaded channel plan changes live. slots: the bank's outputs,
    a channel_plan.Channel each or idle() for a spare; new: the plan
    (Channels, matched by name); longest: the most taps the bank started
    with; busy: slots whose last change has not reached their output yet.
    Returns ([(kind, slot, channel)], [why, for each change that needs a
    restart]): kind "retune" (a new centre or filter at the same
    decimation), "remove" (the slot becomes a spare) or "add" (a free spare
    of the channel's decimation takes it); a changed decimation is a remove
    and an add."""
    by_name = {c.name: c for c in new}
    free = {}
    for i, c in enumerate(slots):
        if c.name is None and i not in busy:
            free.setdefault(c.decimation, []).append(i)

    def too_long(c):
        """Why c cannot be given to a running bank, or None."""
        if len(c.taps) <= longest:
            return None
        return ("channel %s: %d taps, more than the %d the bank started with: needs a "
                "restart" % (c.name, len(c.taps), longest))

    def add(c, why):
        """("add", slot, c), or None after refused.append(why it cannot)."""
        if too_long(c):
            refused.append(too_long(c))
        elif not free.get(c.decimation):
            refused.append("channel %s %s: no spare slot of decimation %d left: needs a "
                           "restart (or more --spare-channels)" % (c.name, why, c.decimation))
        else:
            return ("add", free[c.decimation].pop(0), c)
        return None

    changes, refused = [], []
    for i, c in enumerate(slots):
        if c.name is None:
            continue
        n = by_name.get(c.name)
        if n is not None and n.decimation == c.decimation and n.offset == c.offset and \
                np.array_equal(n.taps, c.taps):
            continue
        if i in busy:
            refused.append("channel %s: its last change is still on its way to the output: "
                           "reload again" % c.name)
        elif n is None:
            changes.append(("remove", i, c))
        elif n.decimation != c.decimation:
            added = add(n, "with decimation %d (was %d)" % (n.decimation, c.decimation))
            if added:
                changes += [("remove", i, c), added]
        elif too_long(n):
            refused.append(too_long(n))
        else:
            changes.append(("retune", i, n))
    names = {c.name for c in slots}
    for c in new:
        if c.name not in names:
            added = add(c, "added")
            if added:
                changes.append(added)
    return changes, refused


def reconfigure_bank(bank, slots, new, longest, writers, center_freq, recording,
                     taps_scale=1.0):
    """Applies what plan_changes(slots, new, longest) allows to bank
    (channel_bank_ccc: from its next chunk, a "freq" tag where), to slots
    (in place) and to the writers of its outputs, which start, stop or
    retune their recordings at that tag; center_freq: the input's centre
    (Hz), as make_sink() is given; recording(channel): the Channel an added
    channel is recorded as; taps_scale: what the bank's taps carry beside
    the plan's (1 / the full scale of integer input). Returns lines that say
    what was done and what was not."""
    busy = {i for i, w in enumerate(writers) if w.changing()}
    changes, refused = plan_changes(slots, new, longest, busy)
    lines = list(refused)
    for kind, i, c in changes:
        old = slots[i]
        if kind == "remove":
            # The same centre again: nothing changes but the "freq" tag,
            # which marks where the recording ends.
            writers[i].expect(center_freq + old.offset, None)
            bank.set_center_freq(i, old.offset)
            slots[i] = idle(old, old.offset)
            lines.append("channel %s removed from the next chunk" % old.name)
            continue
        # The taps first: the centre's call, the last, gives the tag (of the
        # new centre) from which all of it applies; that tag alone when only
        # one of them changes.
        writers[i].expect(center_freq + c.offset, recording(c) if kind == "add" else "retune")
        if not np.array_equal(c.taps, old.taps):
            bank.set_taps(i, [complex(t) * taps_scale for t in c.taps])
        if c.offset != old.offset or np.array_equal(c.taps, old.taps):
            bank.set_center_freq(i, c.offset)
        lines.append("channel %s %s %.9g Hz (%d taps) from the next chunk"
                     % (c.name, "retuned to" if kind == "retune" else "added at", c.frequency,
                        len(c.taps)))
        slots[i] = c
    return lines


def reconfigure_channelizer(chan, recorded, new, writers, center_freq, channel_offset,
                            recording):
    """Gives pfb_channelizer_ccf chan the channel list new from its next chunk
    (a "channel" tag where, on each output whose channel changes): an added
    channel takes a spare output (recorded[i] None, its change arrived), a
    removed one's output becomes a spare, mapped to channel 0 (1 when it
    was 0). recorded: the channel each output records (None: a spare), in
    place; writers: the outputs' SegmentWriters, which start and stop their
    recordings at the tags; center_freq, channel_offset: as make_sink()
    has them; recording(channel): the Channel an added channel is recorded
    as. Returns lines that say what was done and what was not."""
    busy = {i for i, w in enumerate(writers) if w.changing()}
    chmap = list(chan.channel_map())
    free = [i for i, c in enumerate(recorded) if c is None and i not in busy]
    lines, changes = [], []
    for i, c in enumerate(recorded):
        if c is None or c in new:
            continue
        if i in busy:
            lines.append("channel %d: its last change is still on its way to the output: "
                         "reload again" % c)
            continue
        changes.append((i, 0 if c else 1, None))
        lines.append("channel %d removed from the next chunk" % c)
    for c in new:
        if c in recorded:
            continue
        if not free:
            lines.append("channel %d added: no spare output left: needs a restart (or more "
                         "--spare-channels)" % c)
            continue
        # A spare on another channel first: its tag marks where c starts.
        i = min(free, key=lambda i: chmap[i] == c)
        free.remove(i)
        changes.append((i, c, recording(c)))
        lines.append("channel %d added at %.9g Hz from the next chunk"
                     % (c, center_freq + channel_offset(c)))
    for i, c, change in changes:
        # No tag where the output's channel stays: the change applies from
        # the next sample the output gives.
        writers[i].expect(center_freq + channel_offset(c) if c != chmap[i] else None, change)
        recorded[i] = None if change is None else c
        chmap[i] = c
    if changes:
        chan.set_channel_map(chmap)  # every change in one chunk
    return lines

class Channel:
    """One output of the channelizer as the station records it: key (its name
    in the status), base (file name; None: a spare output, not recorded until
    a reload gives it a channel), sample_rate, frequency, description."""

    def __init__(self, key, base, sample_rate, frequency, description):
        self.key, self.base, self.description = key, base, description
        self.sample_rate, self.frequency = sample_rate, frequency


class Station:
    """source (spec) -> block (a channelizer whose output i is channels[i]) ->
    a SegmentWriter per output, and extra_sinks[i] (a ZeroMQ PUSH socket, say)
    on output i, beside the input monitor. input_buffer: samples, at least,
    between the source and the channelizer (what absorbs the channelizer's
    and the disks' hiccups before the source is held back); channel_offset: for
    pfb_channelizer_ccf, its channels' offsets (make_sink())."""

    POLL_SECONDS = 0.05
    STOP_SECONDS = 10

    def __init__(self, spec, block, channels, folder, recorder, segment_seconds=None,
                 segment_bytes=None, extra_sinks=(), input_buffer=None, channel_offset=None):
        from gnuradio import gr
        # GNU Radio's performance counters (work time, buffer fullness) are
        # read from the environment when the flowgraph starts (prefs.set_bool
        # is not).
        os.environ.setdefault("GR_CONF_PERFCOUNTERS_ON", "True")
        self.spec, self.block, self.channels = spec, block, channels
        self.first, self.last, _ = build_source(spec)
        if input_buffer:
            self.last.set_min_output_buffer(int(input_buffer))
        self.loss = LossLog(spec.rate)
        self.writers = [SegmentWriter(
            folder, ch.base, ch.sample_rate, ch.frequency, int(round(spec.rate / ch.sample_rate)),
            segment_samples(ch.sample_rate, segment_seconds, segment_bytes), self.loss,
            ch.description, recorder, ch.key) for ch in channels]
        self.center_freq = spec.freq or 0.0  # of the "freq" tags' offsets
        # Python blocks: referenced here for as long as the flowgraph runs.
        self.sinks = [make_sink(w, self.center_freq, channel_offset) for w in self.writers]
        self.monitor = make_monitor(spec.itemsize, self.loss)
        self.tb = tb = gr.top_block("wideband_station")
        if self.first is not self.last:
            tb.connect(self.first, self.last)
        tb.connect(self.last, block)
        tb.connect(self.last, self.monitor)
        for i, sink in enumerate(self.sinks):
            tb.connect((block, i), sink)
        for i, sink in enumerate(extra_sinks):
            tb.connect((block, i), sink)

    def run(self, status, failure, log, reload=None, control=None):
        """Runs until the source ends or SIGINT/SIGTERM, or failure() (a
        callable) says why it cannot go on; reports status, log(line) each
        event; on SIGHUP, or the request "reload" on control (a ZeroMQ REP
        socket, answered with the lines as a JSON list), calls reload(), which
        returns lines to log (None: there is nothing to reload). Then stops
        the flowgraph and closes every recording. Returns (the signal's name or None, the
        failure or None, the final status); stuck tells whether the
        flowgraph's threads failed to stop."""
        stop = StopRequest()
        shown = 0
        failed = None
        tb = self.tb
        status.t_last = time.monotonic()  # the source streams from tb.start()
        tb.start()
        waiter = threading.Thread(target=tb.wait, daemon=True)
        waiter.start()
        try:
            while waiter.is_alive() and stop.signal is None:
                waiter.join(self.POLL_SECONDS)
                now = time.monotonic()
                try:
                    fullness = self.last.pc_output_buffers_full(0)
                except (AttributeError, RuntimeError):
                    fullness = 0.0
                status.poll_backpressure(now, fullness, self.last.nitems_written(0))
                for e in self.loss.events_from(shown):
                    log("%s at input sample %d (%s): %s" % (e.kind, e.index, iso(e.host),
                                                             e.comment))
                    shown = e.number + 1
                self.loss.forget(min(w.needed() for w in self.writers), shown)
                if status.interval and status.due(now):
                    status.report(now)
                if stop.reload:
                    stop.reload = False
                    for line in self.reloaded(reload, "SIGHUP"):
                        log(line)
                if control is not None:
                    self.serve(control, reload, log)
                failed = failure()
                if failed:
                    break
        finally:
            tb.stop()
            waiter.join(self.STOP_SECONDS)
            unwritten = None  # the first recording that could not be closed
            for w in self.writers:  # every one, whatever the others do
                try:
                    w.close()
                except OSError as e:
                    unwritten = unwritten or "cannot write %s: %s" % (
                        e.filename or w.name(w.segment), e.strerror or e)
            for e in self.loss.events_from(shown):
                log("%s at input sample %d (%s): %s" % (e.kind, e.index, iso(e.host),
                                                         e.comment))
            record = status.report(time.monotonic(), final=True)
        self.stuck = waiter.is_alive()  # GNU Radio's threads would keep the process
        if self.stuck and not failed:
            failed = "the flowgraph did not stop within %d s" % self.STOP_SECONDS
        failed = failed or unwritten
        return stop.signal, failed or failure(), record

    @staticmethod
    def reloaded(reload, why):
        return ["%s: %s" % (why, line) for line in (reload() if reload else
                                                     ["nothing to reload"])]

    @staticmethod
    def serve(control, reload, log):
        """Answers a request waiting on control (REP), if any: "reload" as
        SIGHUP does (the reply: its lines, a JSON list); else an error."""
        import zmq
        try:
            request = control.recv_string(zmq.NOBLOCK).strip()
        except zmq.Again:
            return
        except UnicodeDecodeError:
            request = None
        if request == "reload":
            lines = Station.reloaded(reload, "control: reload")
            for line in lines:
                log(line)
        else:
            lines = ["control: unknown request %r (known: reload)" % (request,)]
        control.send_string(json.dumps(lines))
