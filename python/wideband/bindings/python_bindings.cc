/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <pybind11/pybind11.h>

namespace py = pybind11;

void bind_channel_bank_ccc(py::module& m);
void bind_core(py::module& m);
void bind_dct_vff(py::module& m);
void bind_edge_memory(py::module& m);
void bind_fft_filter(py::module& m);
void bind_fft_v(py::module& m);
void bind_freq_xlating_fft_filter_ccc(py::module& m);
void bind_pfb_arb_resampler_ccf(py::module& m);
void bind_pfb_channelizer_ccf(py::module& m);
void bind_pfb_decimator_ccf(py::module& m);
void bind_pfb_synthesizer_ccf(py::module& m);
void bind_thread_errors(py::module& m);
void bind_work_error(py::module& m);

PYBIND11_MODULE(wideband_python, m)
{
    // The blocks derive from gr.sync_block: its bindings must be loaded first.
    py::module::import("gnuradio.gr");

    bind_channel_bank_ccc(m);
    bind_core(m);
    bind_dct_vff(m);
    bind_edge_memory(m);
    bind_fft_filter(m);
    bind_fft_v(m);
    bind_freq_xlating_fft_filter_ccc(m);
    bind_pfb_arb_resampler_ccf(m);
    bind_pfb_channelizer_ccf(m);
    bind_pfb_decimator_ccf(m);
    bind_pfb_synthesizer_ccf(m);
    bind_thread_errors(m);
    bind_work_error(m);
}
