#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""channel_bank: the channels of a channel plan out of one wideband stream,
with gr-wideband's channel_bank_ccc in a GNU Radio flowgraph.

    channel_bank.py [--plan channel_plan.csv] [--device DEV] [--samples N]
                    [--output DIR]

The input is synthetic: at the plan's input rate and centre, one tone in each
channel (a tenth of its bandwidth above its centre) plus noise. The plan (CSV
or YAML, see gnuradio.wideband.channel_plan or wideband_channelize --help) is
designed with gnuradio.wideband.channel_plan into each channel's centre,
decimation and taps, the arguments of channel_bank_ccc; output i is channel
i, gnuradio.filter.freq_xlating_fir_filter_ccc of the input at that channel's
rate. The program prints, per channel, its rate, its samples, and where in it
the tone was found beside where it was put; exit status 1 if any is off.
With --output, each channel also goes to DIR/NAME.cf32 (complex64).

From the build tree: PYTHONPATH=build/test_modules /usr/bin/python3
examples/channel_bank.py. For recordings with SigMF metadata, use
wideband_channelize INPUT --plan PLAN.
"""

import argparse
import os
import sys

import numpy as np
from gnuradio import blocks, gr, wideband
from gnuradio.wideband import channel_plan

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--plan", default=os.path.join(HERE, "channel_plan.csv"),
                   help="channel plan, CSV or YAML (default: channel_plan.csv beside this)")
    p.add_argument("--samp-rate", type=float, default=2e6,
                   help="input sample rate, Hz (default 2e6)")
    p.add_argument("--center-freq", type=float, default=433.92e6,
                   help="input centre frequency, Hz; the plan's centres are absolute "
                        "(default 433.92e6)")
    p.add_argument("--samples", type=int, default=1 << 20, help="input samples (default 2^20)")
    p.add_argument("--device", default="", help='OpenCL device (default "": automatic)')
    p.add_argument("--output", metavar="DIR", help="also write DIR/NAME.cf32 per channel")
    args = p.parse_args()

    fs, fc = args.samp_rate, args.center_freq
    try:
        channels = channel_plan.load(args.plan, fs, fc)
    except channel_plan.PlanError as e:
        sys.exit("channel_bank.py: %s" % e)

    # A tone a tenth of its bandwidth above each channel's centre, plus noise.
    n = np.arange(args.samples)
    x = np.zeros(args.samples, np.complex128)
    for c in channels:
        x += 0.1 * np.exp(2j * np.pi * (c.offset + c.bandwidth / 10) / fs * n)
    rng = np.random.default_rng(1)
    x += 1e-3 * (rng.standard_normal(x.size) + 1j * rng.standard_normal(x.size))

    # The bank: one input, one output per channel at its own rate.
    center_freqs, decimations, taps = channel_plan.bank_arguments(channels)
    bank = wideband.channel_bank_ccc(fs, center_freqs, decimations, taps, args.device)
    tb = gr.top_block("channel_bank")
    tb.connect(blocks.vector_source_c(x.astype(np.complex64).tolist()), bank)
    sinks = []
    for i, c in enumerate(channels):
        sinks.append(blocks.vector_sink_c())
        tb.connect((bank, i), sinks[-1])
        if args.output:
            os.makedirs(args.output, exist_ok=True)
            tb.connect((bank, i), blocks.file_sink(gr.sizeof_gr_complex,
                                                   os.path.join(args.output, c.name + ".cf32")))
    tb.run()

    print("%d input samples at %g Hz, centre %g Hz, on %s"
          % (args.samples, fs, fc, bank.device_name()))
    print("%-12s %14s %12s %5s %6s %9s %12s %12s" % ("channel", "centre Hz", "rate Hz", "D",
                                                    "taps", "samples", "tone put Hz",
                                                    "found Hz"))
    bad = 0
    for c, sink in zip(channels, sinks):
        y = np.array(sink.data())
        if len(y) != args.samples // c.decimation:
            bad += 1
        settle = -(-len(c.taps) // c.decimation)
        y = y[settle:]
        spectrum = np.abs(np.fft.fft(y * np.hanning(len(y)))) if len(y) else np.zeros(1)
        found = np.fft.fftfreq(len(y) or 1, 1 / c.rate)[np.argmax(spectrum)]
        put = c.bandwidth / 10
        ok = abs(found - put) <= 2 * c.rate / max(len(y), 1)
        bad += not ok
        print("%-12s %14.0f %12.3f %5d %6d %9d %12.1f %12.1f%s"
              % (c.name, c.frequency, c.rate, c.decimation, len(c.taps), len(sink.data()),
                 put, found, "" if ok else "  OFF"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
