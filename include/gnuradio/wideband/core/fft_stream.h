/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_FFT_STREAM_H
#define INCLUDED_WIDEBAND_CORE_FFT_STREAM_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/fft_plan.h>
#include <gnuradio/wideband/core/stream_engine.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

struct WIDEBAND_CORE_API fft_stream_options {
    /*!
     * complex (complex output vectors), or a cosine transform (dct_ii,
     * dct_iii, dct_iv: f32 vectors in, f32 vectors out, scaled as norm says,
     * without direction, window or shift). The real FFTs are not streamed.
     */
    fft_transform transform = fft_transform::complex;
    dct_norm norm = dct_norm::none; //!< cosine transforms only
    fft_direction direction = fft_direction::forward;
    //! Empty, or fft_size real factors applied to each vector's input.
    std::vector<float> window;
    //! GNU Radio's fft_vcc shift (see fft_options::shift).
    bool shift = false;
    //! The input's samples: fc32, or f32 (real, as GNU Radio's fft_vfc reads
    //! them), or the complex integers (the output is complex float).
    sample_format input_format = sample_format::fc32;
    //! Input samples one call may bring, rounded down to whole vectors (at
    //! least one vector).
    size_t max_input_samples = 0;
};

/*!
 * \brief A stream of vectors of fft_size samples (complex, or real), each
 * transformed into fft_size complex values (or, for a cosine transform, real
 * vectors into real vectors):
 * fft_plan as a streaming engine, for the pipelines (chunks in flight,
 * several devices) and for device-resident streams (run_in_place(), no copy).
 *
 * A call's samples are whole vectors; no state is carried between calls
 * (history 0, one output step per vector). Not thread-safe, except
 * set_window(), which may come from another thread than the calls.
 */
class WIDEBAND_CORE_API fft_stream : public splittable_engine
{
public:
    /*!
     * \throws std::invalid_argument as check()
     */
    fft_stream(device_context::sptr context,
               size_t fft_size,
               const fft_stream_options& options);
    ~fft_stream() override;

    fft_stream(const fft_stream&) = delete;
    fft_stream& operator=(const fft_stream&) = delete;

    /*!
     * \brief What the constructor checks, without a context: fft_size >= 1, a
     * window empty or fft_size long, a cosine transform's f32 input and none
     * of the options it has not, one vector's buffer within \p device.
     * \throws std::invalid_argument saying what is wrong
     */
    static void
    check(const device_info& device, size_t fft_size, const fft_stream_options& options);

    /*!
     * \brief Why \p window cannot be used for vectors of \p fft_size points,
     * or "" when it can (empty, or fft_size values; non-finite values are
     * taken, as GNU Radio's fft_vcc takes them).
     */
    static std::string window_problem(const std::vector<float>& window, size_t fft_size);

    size_t fft_size() const { return d_fft_size; }
    //! Vectors one call transforms at most.
    size_t max_vectors() const { return d_max_vectors; }

    /*!
     * \brief A new window from the next call on (the plan is built here, in
     * the caller's thread, so that calls go on meanwhile).
     * \throws std::invalid_argument for a window neither empty nor fft_size long
     */
    void set_window(const std::vector<float>& window);

    // stream_engine: every vector is an output step of its own.
    stream_ratio step() const override { return { d_fft_size, d_fft_size }; }
    region input_region() const override;
    size_t max_input_samples() const override { return d_max_vectors * d_fft_size; }
    size_t max_output_elements() const override { return max_input_samples(); }
    size_t input_sample_bytes() const override
    {
        return sample_bytes(d_options.input_format);
    }
    //! 8 (complex float), or 4 for a cosine transform's real values.
    size_t output_element_bytes() const override;
    size_t input_regions() const override { return 2; }
    //! \throws std::invalid_argument unless \p samples is whole vectors
    size_t run(const cl::CommandQueue& queue,
               size_t samples,
               const cl::Buffer& output,
               const std::vector<cl::Event>& wait,
               cl::Event& done) override;

    //! In place, the steps are vectors.
    bool runs_in_place() const override { return true; }
    in_place_result run_in_place(const cl::CommandQueue& queue,
                                 const span& input,
                                 const span& output,
                                 const std::vector<cl::Event>& wait) override;

    // splittable_engine
    size_t history_samples() const override { return 0; }
    size_t continue_at(uint64_t position) override;

private:
    /*!
     * \brief Transforms \p vectors vectors (at most max_vectors()) from \p
     * input at complex element \p input_offset into \p output at \p
     * output_offset, after \p wait; returns the event of the transform.
     */
    cl::Event enqueue_at(const cl::CommandQueue& queue,
                         const cl::Buffer& input,
                         size_t input_offset,
                         const cl::Buffer& output,
                         size_t output_offset,
                         size_t vectors,
                         const std::vector<cl::Event>& wait = {});

    std::shared_ptr<const fft_plan> make_plan(const std::vector<float>& window) const;
    std::shared_ptr<const fft_plan> plan() const;

    const device_context::sptr d_context;
    const size_t d_fft_size;
    const fft_stream_options d_options;
    const size_t d_max_vectors;
    mutable std::mutex d_plan_mutex; // set_window() against the calls
    std::shared_ptr<const fft_plan> d_plan;
    cl::Buffer d_input[2]; // input_regions(): the upload of one call, the next
    size_t d_current = 0;
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_FFT_STREAM_H */
