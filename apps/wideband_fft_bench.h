/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The measuring parts of wideband_fft_bench: the check against the float64
 * reference (lib/core/tests/reference), and the libraries it compares: ours,
 * VkFFT and clFFT on the same OpenCL device behind one interface, and FFTW on
 * the CPU. Device-side timing and the other parts the benchmarks share are in
 * bench/harness.h.
 */

#ifndef INCLUDED_WIDEBAND_FFT_BENCH_H
#define INCLUDED_WIDEBAND_FFT_BENCH_H

#include "bench/harness.h"
#include "reference.h"

#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/fft_plan.h>

#ifdef WIDEBAND_HAVE_FFTW
#include <fftw3.h>
#endif
#ifdef WIDEBAND_HAVE_CLFFT
#include <clFFT.h>
#endif
#ifdef WIDEBAND_HAVE_VKFFT
#define VKFFT_BACKEND 3 // OpenCL
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <vkFFT.h>
#pragma GCC diagnostic pop
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace fft_bench {

// fmt, size_text, timing, device_timer, measure_wall, ... (apps/bench/harness.h)
using namespace harness;

// ---- the check against float64 ------------------------------------------

// Rows compared with the reference: the first ones (about 65536 points) and the
// last, so that an indexing error at either end of the batch shows.
inline std::vector<size_t> sample_rows(size_t n, size_t batch)
{
    size_t first = std::min(batch, std::max<size_t>(2, 65536 / n));
    if (first == batch && batch > 1)
        --first;
    std::vector<size_t> rows(first);
    std::iota(rows.begin(), rows.end(), size_t(0));
    if (batch > 1)
        rows.push_back(batch - 1);
    return rows;
}

// Adds the sample rows of `out` against the float64 transform of those of `in`.
inline void compare_with_reference(const cfloat* in,
                                   const cfloat* out,
                                   size_t n,
                                   size_t batch,
                                   bool inverse,
                                   check_stats& check)
{
    core::fft_options options;
    options.direction =
        inverse ? core::fft_direction::inverse : core::fft_direction::forward;
    for (size_t r : sample_rows(n, batch)) {
        const std::vector<std::complex<double>> ref = wideband_reference::fft(
            std::vector<cfloat>(in + r * n, in + (r + 1) * n), options);
        for (size_t k = 0; k < n; ++k)
            check.add(ref[k], out[r * n + k]);
    }
}

// ---- the libraries ------------------------------------------------------

// A library declined the length (clFFT has no algorithm for large primes).
struct unsupported : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The status ("unsupported" or "failed") and reason of the exception being handled.
inline std::pair<std::string, std::string> current_failure()
{
    try {
        throw;
    } catch (const unsupported& e) {
        return { "unsupported", e.what() };
    } catch (const std::exception&) {
        return { "failed", current_error_text() };
    }
}

// One library's transform of a fixed length and batch on the bench buffers.
class transform_runner
{
public:
    virtual ~transform_runner() = default;
    virtual void enqueue(const cl::CommandQueue& queue) = 0;
    virtual std::string describe() const = 0;
};

class wideband_runner : public transform_runner
{
public:
    wideband_runner(core::device_context::sptr ctx,
                    size_t n,
                    const core::fft_options& options,
                    const cl::Buffer& in,
                    const cl::Buffer& out)
        : d_plan(std::move(ctx), n, options), d_in(in), d_out(out)
    {
    }

    void enqueue(const cl::CommandQueue& queue) override
    {
        if (d_plan.options().in_place)
            d_plan.enqueue(queue, d_out);
        else
            d_plan.enqueue(queue, d_in, d_out);
    }

    std::string describe() const override { return d_plan.describe(); }

private:
    core::fft_plan d_plan;
    cl::Buffer d_in, d_out;
};

#ifdef WIDEBAND_HAVE_CLFFT
inline std::string clfft_status_name(clfftStatus status)
{
    static const char* const names[] = { "CLFFT_BUGCHECK",
                                         "CLFFT_NOTIMPLEMENTED",
                                         "CLFFT_TRANSPOSED_NOTIMPLEMENTED",
                                         "CLFFT_FILE_NOT_FOUND",
                                         "CLFFT_FILE_CREATE_FAILURE",
                                         "CLFFT_VERSION_MISMATCH",
                                         "CLFFT_INVALID_PLAN",
                                         "CLFFT_DEVICE_NO_DOUBLE",
                                         "CLFFT_DEVICE_MISMATCH" };
    if (status >= CLFFT_BUGCHECK && status < CLFFT_ENDSTATUS)
        return std::string(names[status - CLFFT_BUGCHECK]) + " (" +
               std::to_string(int(status)) + ")";
    return core::cl_error_name(status); // the other codes are OpenCL's
}

inline void clfft_check(clfftStatus status, const char* call)
{
    if (status == CLFFT_NOTIMPLEMENTED)
        throw unsupported(std::string(call) + ": " + clfft_status_name(status));
    if (status != CLFFT_SUCCESS)
        throw std::runtime_error(std::string(call) + ": " + clfft_status_name(status));
}

// clFFT 2.x: CLFFT_SINGLE, interleaved, out-of-place, distance N, our temp buffer.
class clfft_runner : public transform_runner
{
public:
    clfft_runner(const core::device_context& ctx,
                 const cl::CommandQueue& queue,
                 size_t n,
                 size_t batch,
                 const cl::Buffer& in,
                 const cl::Buffer& out)
        : d_in(in), d_out(out)
    {
        size_t lengths[1] = { n };
        clfft_check(
            clfftCreateDefaultPlan(&d_plan.handle, ctx.context()(), CLFFT_1D, lengths),
            "clfftCreateDefaultPlan");
        d_plan.valid = true;
        size_t strides[1] = { 1 };
        clfft_check(clfftSetPlanPrecision(d_plan.handle, CLFFT_SINGLE),
                    "clfftSetPlanPrecision");
        clfft_check(clfftSetLayout(d_plan.handle,
                                   CLFFT_COMPLEX_INTERLEAVED,
                                   CLFFT_COMPLEX_INTERLEAVED),
                    "clfftSetLayout");
        clfft_check(clfftSetResultLocation(d_plan.handle, CLFFT_OUTOFPLACE),
                    "clfftSetResultLocation");
        clfft_check(clfftSetPlanBatchSize(d_plan.handle, batch), "clfftSetPlanBatchSize");
        clfft_check(clfftSetPlanInStride(d_plan.handle, CLFFT_1D, strides),
                    "clfftSetPlanInStride");
        clfft_check(clfftSetPlanOutStride(d_plan.handle, CLFFT_1D, strides),
                    "clfftSetPlanOutStride");
        clfft_check(clfftSetPlanDistance(d_plan.handle, n, n), "clfftSetPlanDistance");
        cl_command_queue q = queue();
        clfft_check(clfftBakePlan(d_plan.handle, 1, &q, nullptr, nullptr),
                    "clfftBakePlan");
        clfft_check(clfftGetTmpBufSize(d_plan.handle, &d_temp_bytes),
                    "clfftGetTmpBufSize");
        if (d_temp_bytes)
            d_temp = cl::Buffer(ctx.context(), CL_MEM_READ_WRITE, d_temp_bytes);
    }

    void enqueue(const cl::CommandQueue& queue) override
    {
        cl_command_queue q = queue();
        cl_mem in = d_in(), out = d_out();
        clfft_check(clfftEnqueueTransform(d_plan.handle,
                                          CLFFT_FORWARD,
                                          1,
                                          &q,
                                          0,
                                          nullptr,
                                          nullptr,
                                          &in,
                                          &out,
                                          d_temp_bytes ? d_temp() : nullptr),
                    "clfftEnqueueTransform");
    }

    std::string describe() const override
    {
        return "out-of-place, temp buffer " + size_text(double(d_temp_bytes));
    }

private:
    struct plan_handle {
        clfftPlanHandle handle = 0;
        bool valid = false;
        ~plan_handle()
        {
            if (valid)
                clfftDestroyPlan(&handle);
        }
    };
    plan_handle d_plan;
    cl::Buffer d_in, d_out, d_temp;
    size_t d_temp_bytes = 0;
};
#endif

#ifdef WIDEBAND_HAVE_VKFFT
// VkFFT 1.2 on OpenCL: out-of-place through isInputFormatted (reads inputBuffer,
// writes buffer), forward plan only, default tuning, its own temp buffer.
class vkfft_runner : public transform_runner
{
public:
    vkfft_runner(const core::device_context& ctx,
                 size_t n,
                 size_t batch,
                 const cl::Buffer& in,
                 const cl::Buffer& out)
        : d_platform(ctx.device().getInfo<CL_DEVICE_PLATFORM>()),
          d_device(ctx.device()()),
          d_context(ctx.context()()),
          d_in(in()),
          d_out(out()),
          d_bytes(uint64_t(n) * batch * sizeof(cfloat))
    {
        // VkFFT keeps the pointers of the configuration: they point at members.
        VkFFTConfiguration config = {};
        config.FFTdim = 1;
        config.size[0] = n;
        config.numberBatches = batch;
        config.platform = &d_platform;
        config.device = &d_device;
        config.context = &d_context;
        config.bufferSize = &d_bytes;
        config.buffer = &d_out;
        config.isInputFormatted = 1;
        config.inputBufferSize = &d_bytes;
        config.inputBuffer = &d_in;
        config.makeForwardPlanOnly = 1;
        const VkFFTResult r = initializeVkFFT(&d_app, config);
        if (r != VKFFT_SUCCESS)
            throw std::runtime_error("initializeVkFFT: VkFFTResult " +
                                     std::to_string(int(r)));
    }
    ~vkfft_runner() override { deleteVkFFT(&d_app); }
    vkfft_runner(const vkfft_runner&) = delete;
    vkfft_runner& operator=(const vkfft_runner&) = delete;

    void enqueue(const cl::CommandQueue& queue) override
    {
        cl_command_queue q = queue();
        VkFFTLaunchParams launch = {};
        launch.commandQueue = &q;
        launch.buffer = &d_out;
        launch.inputBuffer = &d_in;
        const VkFFTResult r = VkFFTAppend(&d_app, -1, &launch);
        if (r != VKFFT_SUCCESS)
            throw std::runtime_error("VkFFTAppend: VkFFTResult " +
                                     std::to_string(int(r)));
    }

    std::string describe() const override
    {
        return std::string("out-of-place (isInputFormatted), temp buffer ") +
               (d_app.configuration.allocateTempBuffer ? "allocated" : "none");
    }

private:
    cl_platform_id d_platform;
    cl_device_id d_device;
    cl_context d_context;
    cl_mem d_in, d_out;
    uint64_t d_bytes;
    VkFFTApplication d_app = {};
};
#endif

#ifdef WIDEBAND_HAVE_FFTW
struct fftwf_deleter {
    void operator()(fftwf_complex* p) const { fftwf_free(p); }
};
using fftwf_array = std::unique_ptr<fftwf_complex[], fftwf_deleter>;

// A batched single-precision FFTW plan on the host arrays, destroyed with it.
class fftw_batch_plan
{
public:
    fftw_batch_plan(
        size_t n, size_t batch, fftwf_complex* in, fftwf_complex* out, unsigned flags)
    {
        const int len = int(n);
        d_plan = fftwf_plan_many_dft(1,
                                     &len,
                                     int(batch),
                                     in,
                                     nullptr,
                                     1,
                                     len,
                                     out,
                                     nullptr,
                                     1,
                                     len,
                                     FFTW_FORWARD,
                                     flags);
        if (!d_plan)
            throw std::runtime_error("fftwf_plan_many_dft returned no plan");
    }
    ~fftw_batch_plan() { fftwf_destroy_plan(d_plan); }
    fftw_batch_plan(const fftw_batch_plan&) = delete;
    fftw_batch_plan& operator=(const fftw_batch_plan&) = delete;

    void execute() const { fftwf_execute(d_plan); }

private:
    fftwf_plan d_plan;
};
#endif

} // namespace fft_bench

#endif /* INCLUDED_WIDEBAND_FFT_BENCH_H */
