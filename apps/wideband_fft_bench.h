/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The measuring parts of wideband_fft_bench: the float64 reference, and the
 * libraries it compares: ours, VkFFT and clFFT on the same OpenCL device behind
 * one interface, and FFTW on the CPU. Device-side timing and the other parts
 * the benchmarks share are in bench_common.h.
 */

#ifndef INCLUDED_WIDEBAND_FFT_BENCH_H
#define INCLUDED_WIDEBAND_FFT_BENCH_H

#include "bench_common.h"

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

// fmt, size_text, timing, device_timer, measure_wall, ... (apps/bench_common.h)
using namespace bench_common;

// ---- float64 reference --------------------------------------------------

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

#ifdef WIDEBAND_HAVE_FFTW
// float64 DFT of whole rows by FFTW in double precision.
class reference_dft
{
public:
    reference_dft(size_t n, int sign)
        : d_n(n), d_in(fftw_alloc_complex(n)), d_out(fftw_alloc_complex(n))
    {
        d_plan = fftw_plan_dft_1d(int(n), d_in, d_out, sign, FFTW_ESTIMATE);
    }
    ~reference_dft()
    {
        fftw_destroy_plan(d_plan);
        fftw_free(d_in);
        fftw_free(d_out);
    }
    reference_dft(const reference_dft&) = delete;
    reference_dft& operator=(const reference_dft&) = delete;

    // Adds |y - X|^2 and |X|^2 over the row, X the DFT of x.
    void accumulate(const cfloat* x, const cfloat* y, double& err2, double& ref2)
    {
        for (size_t j = 0; j < d_n; ++j) {
            d_in[j][0] = x[j].real();
            d_in[j][1] = x[j].imag();
        }
        fftw_execute(d_plan);
        for (size_t k = 0; k < d_n; ++k) {
            const std::complex<double> ref(d_out[k][0], d_out[k][1]);
            err2 += std::norm(std::complex<double>(y[k]) - ref);
            ref2 += std::norm(ref);
        }
    }

private:
    size_t d_n;
    fftw_complex* d_in;
    fftw_complex* d_out;
    fftw_plan d_plan;
};
#else
// Without FFTW: a direct float64 DFT of up to 256 bins per row, O(N) each, with
// twiddles from an exact table indexed by (j*k) mod N.
class reference_dft
{
public:
    reference_dft(size_t n, int sign) : d_n(n), d_twiddles(n)
    {
        for (size_t m = 0; m < n; ++m)
            d_twiddles[m] = std::polar(1.0, sign * 2 * M_PI * double(m) / double(n));
        const size_t bins = std::min<size_t>(n, 256);
        for (size_t b = 0; b < bins; ++b)
            d_bins.push_back(b * n / bins);
    }

    void accumulate(const cfloat* x, const cfloat* y, double& err2, double& ref2) const
    {
        for (size_t k : d_bins) {
            std::complex<double> ref = 0;
            for (size_t j = 0; j < d_n; ++j)
                ref += std::complex<double>(x[j]) * d_twiddles[(uint64_t(j) * k) % d_n];
            err2 += std::norm(std::complex<double>(y[k]) - ref);
            ref2 += std::norm(ref);
        }
    }

private:
    size_t d_n;
    std::vector<std::complex<double>> d_twiddles;
    std::vector<size_t> d_bins;
};
#endif

struct accuracy {
    double rel_err;
    size_t rows;
};

// Relative L2 error of the sample rows of `out` against the DFT of `in`.
inline accuracy compare_with_reference(
    const cfloat* in, const cfloat* out, size_t n, size_t batch, int sign)
{
    reference_dft dft(n, sign);
    double err2 = 0, ref2 = 0;
    const std::vector<size_t> rows = sample_rows(n, batch);
    for (size_t r : rows)
        dft.accumulate(in + r * n, out + r * n, err2, ref2);
    return { std::sqrt(err2 / ref2), rows.size() };
}

inline size_t count_nonfinite(const cfloat* data, size_t points)
{
    size_t bad = 0;
    for (size_t i = 0; i < points; ++i)
        bad += !std::isfinite(data[i].real()) || !std::isfinite(data[i].imag());
    return bad;
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
