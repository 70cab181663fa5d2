#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
wideband.watch_thread_errors() / thread_errors(): when a block's work() raises
in GNU Radio 3.10, the scheduler logs "ERROR thread[...]: what", ends that
block's thread, and the rest of the flowgraph waits for ever. Here a
blocks.file_sink writes to /dev/full (every write fails with ENOSPC, no root
needed) beside a branch that works: the error must show up in thread_errors(),
named after the file sink's thread, at GNU Radio's default log level, at the
levels programs set (wideband_channelize sets warn) and at error; tb.stop() must
then end the flowgraph. A flowgraph without a failure must leave the list empty.
"""

import os
import tempfile
import threading
import time

from gnuradio import blocks, gr, gr_unittest
from gnuradio import wideband

# How long the failing write may take to reach thread_errors().
ERROR_DEADLINE_SECONDS = 20
# How long a stopped flowgraph may take to finish.
STOP_SECONDS = 5


class qa_thread_errors(gr_unittest.TestCase):

    def setUp(self):
        # Twice on purpose: a second sink would keep every error twice.
        wideband.watch_thread_errors()
        wideband.watch_thread_errors()
        wideband.clear_thread_errors()
        self.tb = gr.top_block()

    def tearDown(self):
        self.tb = None

    def build_failing_flowgraph(self):
        """A file sink on /dev/full fed for ever, beside a branch that works;
        returns the file sink."""
        source = blocks.vector_source_c([0j] * 4096, repeat=True)
        full_disk = blocks.file_sink(gr.sizeof_gr_complex, "/dev/full")
        self.tb.connect(source, full_disk)
        self.tb.connect(blocks.null_source(gr.sizeof_gr_complex),
                        blocks.head(gr.sizeof_gr_complex, 1 << 20),
                        blocks.null_sink(gr.sizeof_gr_complex))
        return full_disk

    def wait_for_thread_error(self):
        """thread_errors() once it holds something; fails after the deadline."""
        deadline = time.monotonic() + ERROR_DEADLINE_SECONDS
        while time.monotonic() < deadline:
            errors = wideband.thread_errors()
            if errors:
                return errors
            time.sleep(0.05)
        self.fail(f"no thread error within {ERROR_DEADLINE_SECONDS} s")

    def stop_within_deadline(self):
        self.tb.stop()
        waiter = threading.Thread(target=self.tb.wait, daemon=True)
        waiter.start()
        waiter.join(STOP_SECONDS)
        self.assertFalse(waiter.is_alive(),
                         f"tb.wait() did not return within {STOP_SECONDS} s of tb.stop()")

    def test_001_failing_file_sink_is_reported(self):
        logging = gr.logging()
        configured = logging.default_level()
        # The configured default, GNU Radio's built-in default (info), what
        # wideband_channelize sets (warn), and the highest level that lets
        # errors through.
        levels = (configured, gr.log_levels.info, gr.log_levels.warn, gr.log_levels.err)
        try:
            for level in levels:
                with self.subTest(level=level):
                    logging.set_default_level(level)
                    wideband.clear_thread_errors()
                    self.tb = gr.top_block()
                    full_disk = self.build_failing_flowgraph()
                    self.tb.start()
                    errors = self.wait_for_thread_error()
                    self.stop_within_deadline()

                    self.assertEqual(len(errors), 1, errors)
                    # Named after the block's thread, which the thread-per-block
                    # scheduler names after the block and its unique id.
                    self.assertRegex(errors[0],
                                     r"^thread\[thread-per-block\[\d+\]: <block "
                                     rf"file_sink\({full_disk.unique_id()}\)>\]: "
                                     r"file_sink write failed")
                    self.assertFalse(errors[0].endswith("\n"))
        finally:
            logging.set_default_level(configured)

    def test_002_clean_run_reports_nothing(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "samples.cf32")
            source = blocks.vector_source_c([1j] * 10000)
            self.tb.connect(source, blocks.file_sink(gr.sizeof_gr_complex, path))
            self.tb.connect(source, blocks.null_sink(gr.sizeof_gr_complex))
            self.tb.run()
            self.assertEqual(os.path.getsize(path), 10000 * gr.sizeof_gr_complex)
        self.assertEqual(wideband.thread_errors(), [])

    def test_003_clear_forgets_errors(self):
        self.build_failing_flowgraph()
        self.tb.start()
        self.wait_for_thread_error()
        self.stop_within_deadline()
        wideband.clear_thread_errors()
        self.assertEqual(wideband.thread_errors(), [])


if __name__ == "__main__":
    gr_unittest.run(qa_thread_errors)
