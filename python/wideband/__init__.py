#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
gr-wideband: wideband channelization on GPUs through OpenCL.

Blocks:
  fft_vcc(fft_size, forward, window, shift=False, device="")
      drop-in for gnuradio.fft.fft_vcc that runs batched on an OpenCL device
  fft_vfc(fft_size, forward, window, shift=False, device="")
      the same for real input vectors (gnuradio.fft.fft_vfc)
  fft_filter_ccc/ccf(decimation, taps, device="", input_type="fc32"),
  fft_filter_fff(decimation, taps, device="")
      drop-ins for gnuradio.filter.fft_filter_ccc/ccf/fff

Devices:
  list_devices()      every OpenCL device, as dicts ("automatic" marks the one
                      device="" picks)
  find_device(spec)   the device a device string selects

Faults:
  work_error(block)   the error that stopped a gr-wideband block in a running
                      flowgraph, "" if none (docs/reliability.md)
  watch_thread_errors()  start keeping the errors that end any block's thread
                      (GNU Radio logs them, and the flowgraph then hangs)
  thread_errors()     those errors since then, e.g. "thread[thread-per-block[4]:
                      <block file_sink(4)>]: file_sink write failed ..."
  clear_thread_errors()  forget them
  watch_fault()       test-only: the engines read WIDEBAND_FAULT from now on
                      (read only when set at load otherwise; docs/reliability.md)

A device string is "" (automatic: the first GPU, else accelerator, else CPU;
the environment variable WIDEBAND_DEVICE replaces ""), "gpu", "cpu",
"accelerator", "P:D" (platform and device index) or part of a device name.
"""

from .wideband_python import *
