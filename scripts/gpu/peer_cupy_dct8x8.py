# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

"""cupyx.scipy.fft.dctn (type 2, unnormalised) of batched 8x8 blocks, 2^26
points per call, CUDA events, 5 warm-ups, median of 25 (the method of
cupy_real_dct_peer.py); checked against scipy in float64 on a few blocks."""
import numpy as np, cupy as cp, cupyx.scipy.fft as cfft, scipy.fft
total = 1 << 26
x = cp.random.standard_normal((total // 64, 8, 8), dtype=cp.float32)
def med(fn, reps=25):
    for _ in range(5): fn()
    cp.cuda.Device().synchronize(); ts = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event(); a.record(); fn(); b.record(); b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b))
    return float(np.median(ts))
y = cfft.dctn(x[:16], type=2, axes=(1, 2))
ref = scipy.fft.dctn(cp.asnumpy(x[:16]).astype(np.float64), type=2, axes=(1, 2))
err = np.linalg.norm(cp.asnumpy(y) - ref) / np.linalg.norm(ref)
t = med(lambda: cfft.dctn(x, type=2, axes=(1, 2)))
print("DCT8x8,64,%d,%.4f,%.1f,err %.1e" % (total // 64, t, total / t / 1e6, err), flush=True)
