/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_FFT_VCC_IMPL_H
#define INCLUDED_WIDEBAND_FFT_VCC_IMPL_H

#include "work_guard.h"
#include <gnuradio/wideband/core/fft_plan.h>
#include <gnuradio/wideband/fft_vcc.h>
#include <gnuradio/wideband/opencl_buffer.h>

#include <memory>
#include <mutex>

namespace gr {
namespace wideband {

class fft_vcc_impl : public fft_vcc, public opencl_block, public work_guard
{
public:
    fft_vcc_impl(int fft_size,
                 bool forward,
                 const std::vector<float>& window,
                 bool shift,
                 const std::string& device);

    bool set_window(const std::vector<float>& window) override;
    std::vector<float> window() const override;
    std::string device_name() const override;
    core::device_context::sptr opencl_context() const override;

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    std::shared_ptr<const core::fft_plan>
    make_plan(const std::vector<float>& window) const;
    int transform(int noutput_items,
                  gr_vector_const_void_star& input_items,
                  gr_vector_void_star& output_items);

    const size_t d_fft_size;
    const bool d_forward;
    const bool d_shift;
    const core::device_context::sptr d_context;
    const size_t d_max_vectors; // vectors per device execution
    cl::CommandQueue d_queue;
    cl::Buffer d_input;
    cl::Buffer d_output;
    // d_window and d_plan are replaced together by set_window(), which may run
    // on another thread than work().
    mutable std::mutex d_plan_mutex;
    std::vector<float> d_window;
    std::shared_ptr<const core::fft_plan> d_plan;
    bool d_ports_known = false; // read at the first work() of a run
    stream_port d_input_port, d_output_port;
};

} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_FFT_VCC_IMPL_H */
