# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
"""The peer of our channelizer on the GPU machine: cupyx.signal.channelize_poly
(CuPy's polyphase channelizer, critically sampled: r = 1 only), timed the way
wideband_channelizer_bench times ours: 2^26 complex64 input samples on the
device, K * M taps, CUDA events around each call, 3 warm-up calls, the median
of 15. Prints one line per case and a table last:

    python3 scripts/gpu/peer_cupy_channelize.py [--log2 26] [--channels 16,64,256,1024,4096] [--taps-per-branch 8,16]

Run by scripts/gpu/run_channelizer_bench with the GPU host's python3 (the one that
has CuPy), when CuPy is importable.
"""
import argparse
import sys

import numpy as np


def median_ms(cp, call, warmup=3, reps=15):
    for _ in range(warmup):
        call()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(reps):
        start.record()
        call()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log2", type=int, default=26)
    parser.add_argument("--channels", default="16,64,256,1024,4096")
    parser.add_argument("--taps-per-branch", default="8,16")
    args = parser.parse_args()
    try:
        import cupy as cp
        from cupyx.signal import channelize_poly
    except Exception as ex:  # no CuPy: the run goes on without the peer
        print(f"# cupyx.signal.channelize_poly unavailable: {ex}")
        return 0
    samples = 1 << args.log2
    rng = cp.random.default_rng(11)
    x = (rng.random(2 * samples, dtype=cp.float32) * 2 - 1).view(cp.complex64)
    print(f"# CuPy {cp.__version__}, {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; "
          f"2^{args.log2} input samples, median of 15 after 3 warm-up calls, CUDA events")
    rows = []
    for M in (int(v) for v in args.channels.split(",")):
        for K in (int(v) for v in args.taps_per_branch.split(",")):
            taps = cp.asarray(np.hanning(K * M + 2)[1:-1], dtype=cp.float32)
            try:
                ms = median_ms(cp, lambda: channelize_poly(x, taps, M))
            except Exception as ex:
                print(f"peer M={M} K={K}: failed: {ex}")
                continue
            gsps = samples / (ms * 1e-3) / 1e9
            rows.append((M, K, ms, gsps))
            print(f"peer M={M} K={K} r=1: {ms:.4f} ms {gsps:.2f} Gsps", flush=True)
    print("\ncupyx.signal.channelize_poly (r = 1), input Gsamples/s")
    print(f"{'M':>6} {'K':>3} {'ms':>9} {'Gsps':>8}")
    for M, K, ms, gsps in rows:
        print(f"{M:>6} {K:>3} {ms:>9.3f} {gsps:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
