#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Channel plans: which channels to cut out of a wideband stream, read from a
CSV or YAML file, checked, and turned into the arguments of
wideband.channel_bank_ccc (a centre, a decimation and low-pass taps each).

    from gnuradio import wideband
    from gnuradio.wideband import channel_plan

    channels = channel_plan.load("plan.csv", samp_rate=20e6, center_freq=100e6)
    bank = channel_plan.make_bank(channels, 20e6, device="")
    # output i: channels[i], at channels[i].rate, centred on channels[i].frequency

A plan is a table, one row per channel (CSV: a header row naming the columns,
then one line per channel; blank lines and lines starting with # are skipped;
YAML: a list of mappings, or a mapping whose "channels" is that list):

  name            the channel's name (letters, digits, . _ -; unique); the
                  recordings are NAME.sigmf-data and NAME.sigmf-meta
  center          its centre, an absolute RF frequency in Hz (the input's centre
                  frequency plus the offset), or instead
  offset          its centre relative to the input's centre, in Hz; a plan
                  uses one of the two columns
  rate            its output sample rate in Hz: the decimation is samp_rate /
                  rate, which must be a whole number
  bandwidth       the width in Hz of the band to keep (the filter's pass band is
                  centre +- bandwidth / 2); alone, it sets the decimation to the
                  largest D with samp_rate / D >= OVERSAMPLE * bandwidth
  decimation      the decimation itself (optional; with rate, they must agree)
  transition      the width in Hz of the filter's transition band (optional;
                  default: rate - bandwidth, so that nothing aliases into the
                  pass band)
  attenuation_db  the stop-band attenuation of the Kaiser window design
                  (optional; default DEFAULT_ATTENUATION_DB or the caller's)
  window          kaiser (default), or hamming, hann, blackman,
                  blackmanharris, rectangular: then the window's own
                  attenuation, and attenuation_db must be left empty

Each row needs rate, bandwidth or decimation; without bandwidth it is
BANDWIDTH_FRACTION * rate. Numbers take k, M and G suffixes (433.92M). The
taps are GNU Radio's firdes.low_pass_2 (Kaiser window, the tap count Kaiser's
formula asks for, as pfb_channelizer_ccf designs its prototype) or
firdes.low_pass (the other windows, as many taps as their main lobe needs
for the transition), gain 1, cut-off in the middle of the transition band.
Every mistake is a PlanError naming the file, the line (CSV) or entry (YAML)
and the channel.
"""

import csv
import math
import os
import re

__all__ = ["PlanError", "Channel", "read", "design", "load", "bank_arguments", "make_bank",
           "COLUMNS", "WINDOWS", "DEFAULT_ATTENUATION_DB", "OVERSAMPLE", "BANDWIDTH_FRACTION"]

COLUMNS = ("name", "center", "offset", "bandwidth", "rate", "decimation", "transition",
           "attenuation_db", "window")
WINDOWS = ("kaiser", "hamming", "hann", "blackman", "blackmanharris", "rectangular")
DEFAULT_ATTENUATION_DB = 80.0
OVERSAMPLE = 1.25  # bandwidth alone: output rate at least 1.25 times the bandwidth
BANDWIDTH_FRACTION = 0.8  # rate or decimation alone: the bandwidth kept, 1 / OVERSAMPLE
MAX_TAPS = 1 << 20
NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*$")
SUFFIXES = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "g": 1e9}


class PlanError(ValueError):
    """A plan that cannot be read or used; the message names where."""


class Channel:
    """One channel of a plan, designed for an input of samp_rate.

    name, frequency (absolute centre, Hz), offset (from the input's centre,
    Hz), decimation, rate (samp_rate / decimation, exact), bandwidth,
    transition, attenuation_db (None for windows other than kaiser), window,
    taps (numpy float64 array), where (file and line or entry), warnings."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __repr__(self):
        return ("Channel(%r, frequency=%r, rate=%r, decimation=%d, bandwidth=%r, %d taps)"
                % (self.name, self.frequency, self.rate, self.decimation, self.bandwidth,
                   len(self.taps)))


def _hz(v):
    """A frequency in words: 48 kHz, 433.92 MHz."""
    for unit, scale in (("GHz", 1e9), ("MHz", 1e6), ("kHz", 1e3)):
        if abs(v) >= scale:
            return "%.9g %s" % (v / scale, unit)
    return "%.9g Hz" % v


def _number(text, what):
    if isinstance(text, bool):
        raise PlanError("%s: wants a number (got %r)" % (what, text))
    if isinstance(text, (int, float)):
        v = float(text)
    else:
        t = str(text).strip()
        scale = 1.0
        if t and t[-1] in SUFFIXES:
            scale = SUFFIXES[t[-1]]
            t = t[:-1]
        try:
            v = float(t) * scale
        except ValueError:
            raise PlanError("%s: wants a number, k, M, G suffixes allowed (got %r)"
                            % (what, text))
    if not math.isfinite(v):
        raise PlanError("%s: wants a finite number (got %r)" % (what, text))
    return v


def read(path):
    """The rows of a plan file: [(where, {column: text or value})], where
    "plan.csv line 3" or "plan.yaml entry 2". Empty cells are left out. CSV
    unless the name ends in .yaml or .yml."""
    label = os.path.basename(path)
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except OSError as e:
        raise PlanError("cannot read channel plan %s: %s" % (path, e.strerror or e))
    except UnicodeDecodeError as e:
        raise PlanError("channel plan %s is not UTF-8 text (%s)" % (path, e))
    if path.lower().endswith((".yaml", ".yml")):
        rows = _read_yaml(text, label)
    else:
        rows = _read_csv(text, label)
    if not rows:
        raise PlanError("channel plan %s has no channels" % path)
    return rows


def _column(name, where):
    key = str(name).strip().lower()
    if key not in COLUMNS:
        raise PlanError("%s: unknown column %r (columns: %s)" % (where, name, ", ".join(COLUMNS)))
    return key


def _read_csv(text, label):
    lines = [(i + 1, line) for i, line in enumerate(text.splitlines())
             if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        return []
    number, header = lines[0]
    names = [_column(c, "%s line %d (header)" % (label, number))
             for c in next(csv.reader([header]))]
    if len(set(names)) != len(names):
        raise PlanError("%s line %d (header): a column appears twice" % (label, number))
    if "name" not in names:
        raise PlanError("%s line %d (header): no name column (the header row comes first: "
                        "name,center,rate,...)" % (label, number))
    rows = []
    for number, line in lines[1:]:
        cells = next(csv.reader([line]))
        where = "%s line %d" % (label, number)
        if len(cells) > len(names):
            raise PlanError("%s: %d values for %d columns (%s)"
                            % (where, len(cells), len(names), ",".join(names)))
        row = {k: v.strip() for k, v in zip(names, cells) if v.strip()}
        rows.append((where, row))
    return rows


def _read_yaml(text, label):
    try:
        import yaml
    except ImportError:
        raise PlanError("%s: YAML plans need PyYAML (Debian: python3-yaml); use a CSV plan"
                        % label)
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise PlanError("%s is not valid YAML: %s" % (label, " ".join(str(e).split())))
    if isinstance(doc, dict) and "channels" in doc:
        doc = doc["channels"]
    if doc is None:
        return []
    if not isinstance(doc, list):
        raise PlanError("%s: wants a list of channels (or channels: followed by one)" % label)
    rows = []
    for i, entry in enumerate(doc, 1):
        where = "%s entry %d" % (label, i)
        if not isinstance(entry, dict):
            raise PlanError("%s: wants a mapping (name: ..., center: ..., ...), got %r"
                            % (where, entry))
        rows.append((where, {_column(k, where): v for k, v in entry.items()
                             if v is not None and str(v).strip() != ""}))
    return rows


def _kaiser_beta(a):
    if a > 50.0:
        return 0.1102 * (a - 8.7)
    if a >= 21.0:
        return 0.5842 * (a - 21.0) ** 0.4 + 0.07886 * (a - 21.0)
    return 0.0


# Window method: the transition band is about WIDTH[window] * samp_rate / ntaps
# wide (the window's main lobe; measured on firdes.low_pass: 3.3 for Hamming,
# 3.1 Hann, 5.5 Blackman, 7.3 Blackman-Harris, 0.84 rectangular).
WIDTH = {"hamming": 3.3, "hann": 3.1, "blackman": 5.5, "blackmanharris": 7.4,
         "rectangular": 0.9}


def design_taps(samp_rate, bandwidth, transition, attenuation_db=DEFAULT_ATTENUATION_DB,
                window="kaiser", where="taps"):
    """Low-pass taps (numpy float64, gain 1) passing |f| <= bandwidth / 2 and
    stopping from bandwidth / 2 + transition: GNU Radio's window design
    (firdes.low_pass_2 for Kaiser with the attenuation, firdes.low_pass for
    the other windows), cut-off in the middle of the transition band, with as
    many taps as the window needs for that transition. firdes counts int(a *
    fs / (22 * width)) taps (a: the attenuation, or the window's), short of
    what Kaiser's formula and the other windows' main lobes need: the width
    given to firdes is the one that makes it count those, as
    pfb_channelizer_ccf designs its prototype."""
    import numpy as np
    from gnuradio.fft import window as win
    from gnuradio.filter import firdes
    cutoff = bandwidth / 2.0 + transition / 2.0
    if window == "kaiser":
        a = attenuation_db
        ntaps = math.ceil(max(a - 7.95, 0.0) * samp_rate / (14.36 * transition)) + 1
        what = "%g dB" % a
    else:
        kind = {"hamming": win.WIN_HAMMING, "hann": win.WIN_HANN,
                "blackman": win.WIN_BLACKMAN, "blackmanharris": win.WIN_BLACKMAN_HARRIS,
                "rectangular": win.WIN_RECTANGULAR}[window]
        a = win.max_attenuation(kind, 6.76)
        ntaps = math.ceil(WIDTH[window] * samp_rate / transition) + 1
        what = "the %s window" % window
    if ntaps > MAX_TAPS:
        raise PlanError("%s: a transition of %s at %s and %s need %d taps, more than %d: "
                        "widen the transition%s" % (where, _hz(transition), _hz(samp_rate),
                                                   what, ntaps, MAX_TAPS,
                                                   " or lower attenuation_db"
                                                   if window == "kaiser" else ""))
    width = a * samp_rate / (22.0 * (ntaps + 0.5))
    if window == "kaiser":
        taps = firdes.low_pass_2(1.0, samp_rate, cutoff, width, a, win.WIN_KAISER,
                                 _kaiser_beta(a))
    else:
        taps = firdes.low_pass(1.0, samp_rate, cutoff, width, kind, 6.76)
    return np.array(taps, dtype=np.float64)


def design(rows, samp_rate, center_freq=0.0, attenuation_db=DEFAULT_ATTENUATION_DB):
    """[Channel] for the rows of read(), for an input of samp_rate centred on
    center_freq (Hz). Raises PlanError naming the row and channel."""
    if not (samp_rate > 0 and math.isfinite(samp_rate)):
        raise PlanError("the input's sample rate must be positive (got %r)" % (samp_rate,))
    uses = {key for _, row in rows for key in row if key in ("center", "offset")}
    if len(uses) > 1:
        raise PlanError("%s: the plan gives both center (absolute) and offset (from the "
                        "input's centre) columns; use one" % rows[0][0].rsplit(" ", 2)[0])
    channels = []
    names = {}
    for where, row in rows:
        channels.append(_design_row(where, row, samp_rate, center_freq, attenuation_db))
        name = channels[-1].name
        if name in names:
            raise PlanError("%s: channel name %r is used already (%s)" % (where, name,
                                                                           names[name]))
        names[name] = where
    return channels


def _design_row(where, row, fs, center_freq, default_attenuation):
    name = row.get("name")
    if name is None:
        raise PlanError("%s: no name" % where)
    name = str(name).strip()
    if not NAME.match(name):
        raise PlanError("%s: channel name %r: wants letters, digits, '.', '_' and '-' (it names "
                        "the files), not starting with '.' or '-'" % (where, name))
    at = "%s (channel %s)" % (where, name)

    def num(key):
        return _number(row[key], "%s: %s" % (at, key)) if key in row else None

    if "center" in row:
        frequency = num("center")
        offset = frequency - center_freq
    elif "offset" in row:
        offset = num("offset")
        frequency = center_freq + offset
    else:
        raise PlanError("%s: no center (absolute, Hz) or offset (from the input's centre, Hz)"
                        % at)
    rate, bandwidth, transition = num("rate"), num("bandwidth"), num("transition")
    decimation = None
    if "decimation" in row:
        d = num("decimation")
        if d != int(d) or d < 1:
            raise PlanError("%s: decimation wants a whole number >= 1 (got %r)"
                            % (at, row["decimation"]))
        decimation = int(d)
    for key, v in (("rate", rate), ("bandwidth", bandwidth), ("transition", transition)):
        if v is not None and not v > 0:
            raise PlanError("%s: %s must be positive (got %r)" % (at, key, row[key]))

    # The decimation: given, from the rate, or from the bandwidth.
    if decimation is not None:
        if decimation > fs:  # below 1 Hz: surely a slip
            raise PlanError("%s: decimation %d leaves less than one sample per second of %s"
                            % (at, decimation, _hz(fs)))
        if rate is not None and abs(fs / decimation - rate) > 1e-9 * rate:
            raise PlanError("%s: rate %s and decimation %d disagree: %s / %d = %s"
                            % (at, _hz(rate), decimation, _hz(fs), decimation,
                               _hz(fs / decimation)))
    elif rate is not None:
        if rate > fs:
            raise PlanError("%s: rate %s is above the input's %s" % (at, _hz(rate), _hz(fs)))
        d = fs / rate
        decimation = int(round(d))
        if abs(d - decimation) > 1e-9 * d:
            lo, hi = int(math.floor(d)), int(math.ceil(d))
            raise PlanError("%s: rate %s: %s / %s = %.6g is not a whole decimation; %s "
                            "(decimation %d) and %s (decimation %d) are possible"
                            % (at, _hz(rate), _hz(fs), _hz(rate), d, _hz(fs / lo), lo,
                               _hz(fs / hi), hi))
    elif bandwidth is not None:
        if bandwidth * OVERSAMPLE > fs:
            raise PlanError("%s: bandwidth %s needs an output rate of %g x %s, above the "
                            "input's %s; give rate or decimation"
                            % (at, _hz(bandwidth), OVERSAMPLE, _hz(bandwidth), _hz(fs)))
        decimation = max(1, int(math.floor(fs / (OVERSAMPLE * bandwidth) * (1 + 1e-12))))
    else:
        raise PlanError("%s: give rate (output sample rate), bandwidth or decimation" % at)
    rate = fs / decimation
    if bandwidth is None:
        bandwidth = BANDWIDTH_FRACTION * rate
    if bandwidth >= rate:
        raise PlanError("%s: bandwidth %s is not below the output rate %s (decimation %d): "
                        "the pass band would alias; lower the decimation or the bandwidth"
                        % (at, _hz(bandwidth), _hz(rate), decimation))
    warnings = []
    if transition is None:
        transition = rate - bandwidth
    elif bandwidth + transition > rate * (1 + 1e-12):
        warnings.append("%s: bandwidth %s plus transition %s exceed the output rate %s: what "
                        "lies up to %s beyond the pass band aliases into it"
                        % (at, _hz(bandwidth), _hz(transition), _hz(rate),
                           _hz(bandwidth + transition - rate)))

    # The channel within the input's band.
    if abs(offset) > fs / 2:
        raise PlanError("%s: centre %s is %s from the input's centre %s, outside its band "
                        "(+-%s)" % (at, _hz(frequency), _hz(offset), _hz(center_freq),
                                    _hz(fs / 2)))
    if abs(offset) + bandwidth / 2 > fs / 2 * (1 + 1e-12):
        raise PlanError("%s: its band %s .. %s does not fit the input's %s .. %s"
                        % (at, _hz(frequency - bandwidth / 2), _hz(frequency + bandwidth / 2),
                           _hz(center_freq - fs / 2), _hz(center_freq + fs / 2)))

    window = str(row.get("window", "kaiser")).strip().lower()
    if window not in WINDOWS:
        raise PlanError("%s: window %r: one of %s" % (at, row["window"], ", ".join(WINDOWS)))
    attenuation = num("attenuation_db")
    if window != "kaiser":
        if attenuation is not None:
            raise PlanError("%s: attenuation_db is for the kaiser window; the %s window has "
                            "its own" % (at, window))
    else:
        if attenuation is None:
            attenuation = float(default_attenuation)
        if not attenuation > 0:
            raise PlanError("%s: attenuation_db must be positive (got %r)"
                            % (at, row.get("attenuation_db", default_attenuation)))
    taps = design_taps(fs, bandwidth, transition, attenuation, window, at)
    return Channel(name=name, where=where, frequency=frequency, offset=offset,
                   decimation=decimation, rate=rate, bandwidth=bandwidth,
                   transition=transition, attenuation_db=attenuation, window=window, taps=taps,
                   warnings=warnings)


def load(path, samp_rate, center_freq=0.0, attenuation_db=DEFAULT_ATTENUATION_DB):
    """design(read(path), ...): the channels of a plan file."""
    return design(read(path), samp_rate, center_freq, attenuation_db)


def bank_arguments(channels):
    """(center_freqs, decimations, taps) for wideband.channel_bank_ccc."""
    return ([c.offset for c in channels], [c.decimation for c in channels],
            [[complex(t) for t in c.taps] for c in channels])


def make_bank(channels, samp_rate, device="", vector_output=False, input_type="fc32",
              full_scale=1.0):
    """wideband.channel_bank_ccc of the channels: output i is channels[i] of the
    samples divided by full_scale. For integer input (input_type "sc16" or
    "sc8") the integers cross to the device as they are, and full_scale (a
    power of two such as 32768: exact) divides the taps instead."""
    from gnuradio import wideband
    freqs, decims, taps = bank_arguments(channels)
    if full_scale != 1.0:
        taps = [[t / full_scale for t in channel] for channel in taps]
    return wideband.channel_bank_ccc(samp_rate, freqs, decims, taps, device, vector_output,
                                     input_type)

