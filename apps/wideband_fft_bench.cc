/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * wideband_fft_bench: throughput of the core's batched FFT on one OpenCL device,
 * measured in one run beside VkFFT and clFFT on the same device (behind one
 * interface), a device-side buffer copy (the memory ceiling) and FFTW on the
 * CPU (bench/cpu_peers.h). The help text states the method.
 */

#include "bench/cpu_peers.h"
#include "reference.h"

#include <gnuradio/wideband/core/block_dct.h>
#include <gnuradio/wideband/core/fft_plan.h>

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

#include <numeric>

using namespace cpu_peers;

namespace {

const char* const program_name = "wideband_fft_bench";
// The cosine transforms (dct2, dct3, dct4: N floats to N floats) and the 8x8
// block DCT (dct8x8, measured at N = 64 only: images of 8x8 blocks).
bool is_dct(const std::string& variant) { return variant.compare(0, 3, "dct") == 0; }
// Bytes a transform must move per point, whatever its passes: complex 8 read +
// 8 written; real (r2c, c2r) 4 + about 4 (a bin is a pair of real points);
// cosine 4 + 4.
double bytes_per_point(const std::string& variant)
{
    return variant == "r2c" || variant == "c2r" || is_dct(variant) ? 8 : 16;
}
// The width of dct8x8's image of `points` floats: square where 2^K allows,
// else twice as wide as high (0: too small for one row of 8x8 blocks).
size_t dct8x8_width(size_t points)
{
    size_t width = 8;
    while (width * width < points)
        width *= 2;
    return points % (8 * width) == 0 ? width : 0;
}
size_t largest_prime_factor(size_t n)
{
    size_t largest = 1;
    for (size_t p = 2; p * p <= n; ++p)
        for (; n % p == 0; n /= p)
            largest = p;
    return std::max(largest, n);
}
core::fft_transform cosine_transform(const std::string& variant)
{
    return variant == "dct2"   ? core::fft_transform::dct_ii
           : variant == "dct3" ? core::fft_transform::dct_iii
                               : core::fft_transform::dct_iv;
}
constexpr double max_rel_err = 1e-5; // float32 FFTs land near 1e-7; bugs far above

const std::vector<size_t> default_sizes = { 16,    64,      256,   1024, 4096, 16384,
                                            65536, 1048576, 1000,  1536, 2187, 2401,
                                            3125,  6000,    10000, 17,   4093 };
const std::vector<std::string> all_variants = { "fwd",  "inv",  "inplace", "r2c",   "c2r",
                                                "dct2", "dct3", "dct4",    "dct8x8" };
// Without --variants: the complex and real FFTs.
const std::vector<std::string> default_variants = {
    "fwd", "inv", "inplace", "r2c", "c2r"
};

// Libraries in display order; "copy" is clEnqueueCopyBuffer, the memory ceiling.
std::vector<std::string> built_in_libs()
{
    std::vector<std::string> libs = { "wideband" };
#ifdef WIDEBAND_HAVE_VKFFT
    libs.push_back("vkfft");
#endif
#ifdef WIDEBAND_HAVE_CLFFT
    libs.push_back("clfft");
#endif
#ifdef WIDEBAND_HAVE_FFTW
    libs.push_back("fftw");
#endif
    libs.push_back("copy");
    return libs;
}

// ---- command line -------------------------------------------------------

struct bench_options : common_options {
    std::vector<size_t> sizes = default_sizes;
    size_t total_log2 = 26;
    int reps = 25;
    int warmup = 5;
    std::vector<std::string> libs = built_in_libs();
    std::vector<std::string> variants = default_variants;
    size_t fftw_log2 = 0; // 0: total_log2
    int fftw_reps = 5;
    double fftw_plan_seconds = 2;
    int fftw_threads = int(std::max(1u, std::thread::hardware_concurrency()));
    bool small_batch = false;
    std::vector<size_t> small_sizes = { 256, 1024, 4096 };
    std::vector<size_t> small_points = { 4096, 16384, 65536, 262144 };
    int small_reps = 200;

    bool use(const std::string& lib) const { return contains(libs, lib); }
    bool variant(const std::string& v) const { return contains(variants, v); }
    size_t fftw_points_log2() const { return fftw_log2 ? fftw_log2 : total_log2; }
};

// A list of names out of `known`.
option_table::parser names(std::vector<std::string>& target,
                           const std::vector<std::string>& known)
{
    return [&target, known](const std::string& arg, const std::string& v) {
        target = split(arg, v);
        for (const auto& item : target)
            if (!contains(known, item))
                throw usage_error(
                    arg + ": '" + item + "' is not one of " + join(known) +
                    (arg == "--libs" ? " (those found at build time)" : ""));
    };
}

void declare_options(bench_options& o, option_table& t)
{
    const size_t most = option_table::most;
    t.add({
        { { "--sizes", "LIST", &o.sizes, 1, most },
          "transform lengths N, comma-separated" },
        { { "--total-log2", "K", &o.total_log2, 0, 31 },
          "points per launch 2^K [26: 512 MiB in + 512 MiB out]" },
        { { "--reps", "R", &o.reps, 1 }, "timed runs, median" },
        { { "--warmup", "W", &o.warmup, 0 }, "untimed runs first" },
        { { "--libs", "LIST", names(o.libs, built_in_libs()) },
          "of " + join(o.libs) + " [all of them]" },
        { { "--variants", "LIST", names(o.variants, all_variants), join(all_variants) },
          "of ours: fwd (forward out-of-place), inv (inverse, not normalized, "
          "out-of-place), inplace (forward in place), r2c, c2r (real), dct2, dct3, "
          "dct4 (cosine, unnormalised; VkFFT's beside them), dct8x8 (8x8 block "
          "DCT-II of an image, at N = 64 only) [" +
              join(default_variants) + "]" },
        { { "--fftw-log2", "K", &o.fftw_log2, 1, 31 },
          "points per FFTW execution 2^K [--total-log2]" },
        { { "--fftw-reps", "R", &o.fftw_reps, 1 },
          "FFTW timed runs after one warm-up, median" },
        { { "--fftw-plan-seconds", "S", &o.fftw_plan_seconds, 0 },
          "FFTW_MEASURE planning limit per N; 0: FFTW_ESTIMATE" },
        { { "--fftw-threads", "T", &o.fftw_threads, 1 },
          "FFTW threads [all hardware threads: " + std::to_string(o.fftw_threads) + "]" },
        { { "--small-batch", &o.small_batch },
          "also time single executions of small batches as a GNU Radio block issues "
          "them: host wall time of enqueue + clFinish, beside the device time" },
        { { "--small-sizes", "LIST", &o.small_sizes, 1, most },
          "N of the small-batch table" },
        { { "--small-points", "LIST", &o.small_points, 1, most },
          "points per execution" },
        { { "--small-reps", "R", &o.small_reps, 1 },
          "runs per small-batch figure, median" },
    });
}

std::string about()
{
    return R"(Throughput of gr-wideband's batched complex float32 FFT on one OpenCL device,
measured in one run beside VkFFT and clFFT on the same device, a device copy
(clEnqueueCopyBuffer, the memory ceiling) and FFTW on the CPU.
Built in: )" +
           join(built_in_libs(), ", ") +
           R"(.

Method: the data stay on the device; a launch computes batch = max(1, 2^K/N)
transforms (K = --total-log2), so it reads and writes about 2^K points. Each
timed transform sits between two 1-work-item kernels on a profiling queue; its
time is the second one's START minus the first one's END. W warm-up runs, then
the median of R runs; the mean of R runs back to back is also shown.
Gpt/s = N*batch/time; GB/s counts 16 bytes per point (8 read, 8 written;
real and cosine transforms 8) whatever the number of passes; 1 GB = 1e9 B;
%copy compares with a copy of the same bytes. Then the output is filled with
NaN, the transform runs once more, the whole output is searched for
non-finite values, its first rows and last row (blocks, for dct8x8) are
compared with a float64 reference (relative L2 error), and an out-of-place
input must be unchanged. FFTW runs on the host arrays, timed on the host.
)";
}

const char* const examples =
    R"(  wideband_fft_bench                     all sizes, 1 GiB per launch, on the GPU
  wideband_fft_bench --device cpu --total-log2 16 --sizes 64,1000,17 --reps 5
  wideband_fft_bench --libs wideband,copy --variants fwd --sizes 4096
  wideband_fft_bench --small-batch --csv fft_bench.csv
)";

// ---- the check against float64 ------------------------------------------

// Rows compared with the reference: the first ones (about 65536 points) and the
// last, so that an indexing error at either end of the batch shows.
std::vector<size_t> sample_rows(size_t n, size_t batch)
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

// ---- the libraries ------------------------------------------------------

// A library declined the length (clFFT has no algorithm for large primes).
struct unsupported : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The status ("unsupported" or "failed") and reason of the exception being handled.
std::pair<std::string, std::string> current_failure()
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
struct transform_runner {
    virtual ~transform_runner() = default;
    virtual void enqueue(const cl::CommandQueue& queue) = 0;
    virtual std::string describe() const = 0;
};

struct wideband_runner : transform_runner {
    wideband_runner(core::device_context::sptr ctx,
                    size_t n,
                    const core::fft_options& options,
                    const cl::Buffer& in,
                    const cl::Buffer& out)
        : plan(std::move(ctx), n, options), in(in), out(out)
    {
    }
    void enqueue(const cl::CommandQueue& q) override
    {
        plan.options().in_place ? plan.enqueue(q, out) : plan.enqueue(q, in, out);
    }
    std::string describe() const override { return plan.describe(); }

    core::fft_plan plan;
    cl::Buffer in, out;
};

// The 8x8 block DCT-II of one image of width x height floats (2^K points).
struct block_dct_runner : transform_runner {
    block_dct_runner(core::device_context::sptr ctx,
                     const core::block_dct_options& options,
                     const cl::Buffer& in,
                     const cl::Buffer& out)
        : transform(std::move(ctx), options), in(in), out(out)
    {
    }
    void enqueue(const cl::CommandQueue& q) override { transform.enqueue(q, in, out); }
    std::string describe() const override
    {
        return "image " + std::to_string(transform.options().width) + " x " +
               std::to_string(transform.options().height) + ", AAN";
    }

    core::block_dct transform;
    cl::Buffer in, out;
};

#ifdef WIDEBAND_HAVE_CLFFT
std::string clfft_status_name(clfftStatus status)
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

void clfft_check(clfftStatus status, const char* call)
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
        size_t lengths[1] = { n }, strides[1] = { 1 };
        clfft_check(clfftCreateDefaultPlan(&d_plan.h, ctx.context()(), CLFFT_1D, lengths),
                    "clfftCreateDefaultPlan");
        d_plan.valid = true;
        const clfftPlanHandle h = d_plan.h;
        const auto ci = CLFFT_COMPLEX_INTERLEAVED;
        clfft_check(clfftSetPlanPrecision(h, CLFFT_SINGLE), "clfftSetPlanPrecision");
        clfft_check(clfftSetLayout(h, ci, ci), "clfftSetLayout");
        clfft_check(clfftSetResultLocation(h, CLFFT_OUTOFPLACE),
                    "clfftSetResultLocation");
        clfft_check(clfftSetPlanBatchSize(h, batch), "clfftSetPlanBatchSize");
        clfft_check(clfftSetPlanInStride(h, CLFFT_1D, strides), "clfftSetPlanInStride");
        clfft_check(clfftSetPlanOutStride(h, CLFFT_1D, strides), "clfftSetPlanOutStride");
        clfft_check(clfftSetPlanDistance(h, n, n), "clfftSetPlanDistance");
        cl_command_queue q = queue();
        clfft_check(clfftBakePlan(h, 1, &q, nullptr, nullptr), "clfftBakePlan");
        clfft_check(clfftGetTmpBufSize(h, &d_temp_bytes), "clfftGetTmpBufSize");
        if (d_temp_bytes)
            d_temp = cl::Buffer(ctx.context(), CL_MEM_READ_WRITE, d_temp_bytes);
    }

    void enqueue(const cl::CommandQueue& queue) override
    {
        cl_command_queue q = queue();
        cl_mem in = d_in(), out = d_out(), temp = d_temp_bytes ? d_temp() : nullptr;
        clfft_check(clfftEnqueueTransform(
                        d_plan.h, CLFFT_FORWARD, 1, &q, 0, 0, 0, &in, &out, temp),
                    "clfftEnqueueTransform");
    }

    std::string describe() const override
    {
        return "out-of-place, temp buffer " + size_text(double(d_temp_bytes));
    }

private:
    struct plan_handle {
        clfftPlanHandle h = 0;
        bool valid = false;
        ~plan_handle()
        {
            if (valid)
                clfftDestroyPlan(&h);
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
    // dct_type 0: the complex forward FFT; 2, 3, 4: that DCT of real rows.
    vkfft_runner(const core::device_context& ctx,
                 size_t n,
                 size_t batch,
                 const cl::Buffer& in,
                 const cl::Buffer& out,
                 int dct_type = 0)
        : d_platform(ctx.device().getInfo<CL_DEVICE_PLATFORM>()),
          d_device(ctx.device()()),
          d_context(ctx.context()()),
          d_in(in()),
          d_out(out()),
          d_bytes(uint64_t(n) * batch * (dct_type ? sizeof(float) : sizeof(cfloat)))
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
        config.performDCT = uint64_t(dct_type);
        check(initializeVkFFT(&d_app, config), "initializeVkFFT");
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
        check(VkFFTAppend(&d_app, -1, &launch), "VkFFTAppend");
    }

    std::string describe() const override
    {
        return std::string("out-of-place (isInputFormatted), temp buffer ") +
               (d_app.configuration.allocateTempBuffer ? "allocated" : "none");
    }

private:
    static void check(VkFFTResult r, const char* call)
    {
        if (r != VKFFT_SUCCESS)
            throw std::runtime_error(std::string(call) + ": VkFFTResult " +
                                     std::to_string(int(r)));
    }

    cl_platform_id d_platform;
    cl_device_id d_device;
    cl_context d_context;
    cl_mem d_in, d_out;
    uint64_t d_bytes;
    VkFFTApplication d_app = {};
};
#endif

// ---- results ------------------------------------------------------------

struct result : measurement {
    result(std::string lib, std::string variant, size_t n, size_t batch)
        : lib(std::move(lib)), variant(std::move(variant)), n(n), batch(batch)
    {
        check = check_stats(max_rel_err);
        samples = n * batch;
    }
    std::string lib;     // wideband, vkfft, clfft, fftw
    std::string variant; // one of all_variants (peers: fwd, dct2, dct3, dct4)
    size_t n, batch;
    size_t rows = 0; // rows compared with float64
    bool input_checked = false, input_intact = true;

    double gpts() const { return per_second() / 1e9; }
    double gbs() const { return gpts() * bytes_per_point(variant); }
    double gbs_b2b() const { return per_second_b2b() * bytes_per_point(variant) / 1e9; }
    bool real_input() const { return variant == "r2c" || is_dct(variant); }
    bool real_output() const { return variant == "c2r" || is_dct(variant); }
    // Bytes of the input and output of the batch (r2c reads floats, writes bins
    // 0..N/2; c2r the other way round; a cosine transform floats both ways).
    size_t input_bytes() const
    {
        return batch * (real_input() ? n * 4 : real_output() ? (n / 2 + 1) * 8 : n * 8);
    }
    size_t output_bytes() const
    {
        return batch * (real_output() ? n * 4 : real_input() ? (n / 2 + 1) * 8 : n * 8);
    }
    std::string name() const
    {
        return lib + (lib == "wideband" || variant != "fwd" ? " " + variant : "");
    }
    void compare_cosine(const float* in, const float* out);
    void input_is(bool intact)
    {
        input_checked = true;
        input_intact = intact;
        if (!intact)
            check.fail("input changed");
    }

    // Adds the sample rows of `out` against the float64 transform of those of `in`,
    // and counts non-finite values over the whole output.
    // The buffers are the bench's complex ones: r2c reads them as floats, c2r
    // writes floats.
    void compare(const cfloat* in, const cfloat* out)
    {
        if (is_dct(variant))
            return compare_cosine(reinterpret_cast<const float*>(in),
                                  reinterpret_cast<const float*>(out));
        core::fft_options options;
        options.direction = variant == "inv" || real_output()
                                ? core::fft_direction::inverse
                                : core::fft_direction::forward;
        const float* in_floats = reinterpret_cast<const float*>(in);
        const float* out_floats = reinterpret_cast<const float*>(out);
        const size_t bins = n / 2 + 1;
        const std::vector<size_t> sampled = sample_rows(n, batch);
        for (size_t r : sampled) {
            std::vector<cfloat> x(n);
            for (size_t k = 0; k < n; ++k)
                x[k] = real_input()    ? cfloat(in_floats[r * n + k])
                       : real_output() ? (k < bins ? in[r * bins + k]
                                                   : std::conj(in[r * bins + n - k]))
                                       : in[r * n + k];
            if (real_output()) { // irfft ignores these imaginary parts
                x[0] = x[0].real();
                if (n % 2 == 0)
                    x[n / 2] = x[n / 2].real();
            }
            const std::vector<std::complex<double>> ref =
                wideband_reference::fft(x, options);
            if (real_output())
                for (size_t k = 0; k < n; ++k)
                    check.add(ref[k].real(), cfloat(out_floats[r * n + k]));
            else
                for (size_t k = 0; k < (real_input() ? bins : n); ++k)
                    check.add(ref[k], out[r * (real_input() ? bins : n) + k]);
        }
        // Non-finite values anywhere in the output (floats scanned in pairs).
        check.scan(out, output_bytes() / sizeof(cfloat));
        rows = sampled.size();
    }
};

// ---- the cosine transforms' check -----------------------------------------

// result::compare for dct2, dct3, dct4 (rows of N floats, unnormalised) and
// dct8x8 (the blocks of an image of width floats, block b at block row b /
// (width / 8), column b % (width / 8)).
void result::compare_cosine(const float* in, const float* out)
{
    const std::vector<size_t> sampled = sample_rows(n, batch);
    const size_t width = variant == "dct8x8" ? dct8x8_width(n * batch) : 0;
    for (size_t r : sampled) {
        std::vector<size_t> at(n); // where the points of row (block) r are
        for (size_t k = 0; k < n; ++k)
            at[k] = width ? (r / (width / 8) * 8 + k / 8) * width + r % (width / 8) * 8 +
                                k % 8
                          : r * n + k;
        std::vector<double> x(n);
        for (size_t k = 0; k < n; ++k)
            x[k] = in[at[k]];
        const std::vector<double> ref =
            width ? wideband_reference::block_dct(x, false, core::dct_norm::none)
                  : wideband_reference::dct(
                        x, cosine_transform(variant), core::dct_norm::none);
        for (size_t k = 0; k < n; ++k)
            check.add(std::complex<double>(ref[k]), cfloat(out[at[k]]));
    }
    check.scan(reinterpret_cast<const cfloat*>(out), output_bytes() / sizeof(cfloat));
    rows = sampled.size();
}

// One execution as a block issues it (the small-batch table).
struct latency : measurement {
    latency(std::string lib, size_t n, size_t batch)
        : lib(std::move(lib)), n(n), batch(batch)
    {
    }
    std::string lib;
    size_t n, batch;
    wall_timing wall;
    double device_us = nan_value;
    double msps() const { return double(n) * double(batch) / wall.median_us; }
};

size_t largest(const std::vector<size_t>& v)
{
    return *std::max_element(v.begin(), v.end());
}

// ---- the bench ----------------------------------------------------------

class bench : bench_base
{
public:
    bench(const bench_options& options, core::device_context::sptr ctx)
        : bench_base(options, { std::move(ctx) }),
          d_opt(options),
          d_total(size_t(1) << options.total_log2)
    {
        // Big enough for a launch, any single transform and the small batches.
        d_capacity = std::max(d_total, largest(d_opt.sizes));
        if (d_opt.small_batch)
            d_capacity = std::max(d_capacity, largest(d_opt.small_points));
        if (buffer_bytes() > d_ctx->info().max_alloc_bytes)
            throw std::runtime_error("buffers of " + size_text(double(buffer_bytes())) +
                                     " exceed the device's allocation limit of " +
                                     size_text(double(d_ctx->info().max_alloc_bytes)) +
                                     ": use a smaller --total-log2");
        d_host_in = wideband_reference::random_signal(d_capacity, 12345);
        d_host_out.resize(d_capacity);
        d_in = cl::Buffer(d_ctx->context(), CL_MEM_READ_WRITE, buffer_bytes());
        d_out = cl::Buffer(d_ctx->context(), CL_MEM_READ_WRITE, buffer_bytes());
        d_timer.queue().enqueueWriteBuffer(
            d_in, CL_TRUE, 0, buffer_bytes(), d_host_in.data());
#ifdef WIDEBAND_HAVE_CLFFT
        if (d_opt.use("clfft")) {
            clfftSetupData setup;
            clfftInitSetupData(&setup);
            clfft_check(clfftSetup(&setup), "clfftSetup");
        }
#endif
#ifdef WIDEBAND_HAVE_FFTW
        if (d_opt.use("fftw")) {
#ifdef WIDEBAND_HAVE_FFTW_THREADS
            fftwf_init_threads();
            fftwf_plan_with_nthreads(d_opt.fftw_threads);
#else
            d_opt.fftw_threads = 1;
#endif
            d_fftw_flags = fftw_flags(d_opt.fftw_plan_seconds);
            d_fftw_points = size_t(1) << d_opt.fftw_points_log2();
            size_t points = std::max(d_fftw_points, largest(d_opt.sizes));
            if (d_opt.small_batch)
                points = std::max(points, largest(d_opt.small_points));
            d_fftw_in = fftwf_buffer_of(points);
            d_fftw_out = fftwf_buffer_of(points);
        }
#endif
    }

    ~bench()
    {
#ifdef WIDEBAND_HAVE_CLFFT
        if (d_opt.use("clfft"))
            clfftTeardown();
#endif
    }

    int run()
    {
        print_header();
        warm_up_device(*d_ctx, d_timer, d_total * sizeof(cfloat));
        if (d_opt.use("copy"))
            measure_copies("start");
        d_progress = progress(d_opt.sizes.size());
        for (size_t n : d_opt.sizes)
            measure_size(n);
        if (d_opt.use("copy")) {
            std::cout << "\n";
            measure_copies("end");
        }
        if (d_opt.small_batch)
            measure_small_batches();
        if (d_csv.enabled())
            write_csv();
        if (d_opt.small_batch)
            print_latency_table();
        print_table();

        // Only our results decide: a peer may decline a length or be off.
        std::vector<const measurement*> ours;
        for (const auto& m : d_results)
            if (m.lib == "wideband")
                ours.push_back(&m);
        return verdict(ours, "");
    }

private:
    size_t buffer_bytes() const { return d_capacity * sizeof(cfloat); }

    void print_header() const
    {
        print_device_header(program_name, d_ctx->info());
        std::cout << "# points per launch 2^" << d_opt.total_log2 << " ("
                  << size_text(d_total * 8.0) << " in + " << size_text(d_total * 8.0)
                  << " out); " << d_opt.warmup << " warm-up runs, median of "
                  << d_opt.reps << " and mean of " << d_opt.reps
                  << " back to back, device-side timing\n"
                  << "# libraries: wideband (ours: " << join(d_opt.variants) << ")";
#ifdef WIDEBAND_HAVE_VKFFT
        if (d_opt.use("vkfft")) {
            const int v = VkFFTGetVersion();
            std::cout << ", VkFFT " << v / 10000 << "." << v / 100 % 100 << "." << v % 100
                      << " (OpenCL)";
        }
#endif
#ifdef WIDEBAND_HAVE_CLFFT
        if (d_opt.use("clfft")) {
            cl_uint major = 0, minor = 0, patch = 0;
            clfftGetVersion(&major, &minor, &patch);
            std::cout << ", clFFT " << major << "." << minor << "." << patch;
        }
#endif
#ifdef WIDEBAND_HAVE_FFTW
        if (d_opt.use("fftw"))
            std::cout << ", " << fftwf_version << " on the CPU (" << d_opt.fftw_threads
                      << " threads, "
                      << (d_fftw_flags == FFTW_MEASURE
                              ? fmt("FFTW_MEASURE limited to %g s per N",
                                    d_opt.fftw_plan_seconds)
                              : std::string("FFTW_ESTIMATE"))
                      << ", 2^" << d_opt.fftw_points_log2() << " points, median of "
                      << d_opt.fftw_reps << ", host timing)";
#endif
        if (d_opt.use("copy"))
            std::cout << ", clEnqueueCopyBuffer";
#ifdef WIDEBAND_HAVE_FFTW
        std::cout << "\n# float64 reference: whole rows, FFTW in double precision\n";
#else
        std::cout
            << "\n# float64 reference: whole rows, direct DFT (built without FFTW)\n";
#endif
        std::cout << std::flush;
    }

    void measure_copies(const std::string& when)
    {
        // The bytes of one launch's input, and twice that where the device holds it.
        const size_t launch_bytes = d_total * sizeof(cfloat);
        const core::device_info& d = d_ctx->info();
        for (size_t bytes : { launch_bytes, 2 * launch_bytes }) {
            const bool own = bytes > buffer_bytes();
            if (own && (bytes > d.max_alloc_bytes ||
                        2 * (bytes + buffer_bytes()) > d.global_mem_bytes)) {
                std::cout << "copy (" << when << ") " << size_text(double(bytes))
                          << ": skipped, does not fit beside the bench buffers"
                          << std::endl;
                continue;
            }
            d_copies.push_back(measure_copy(*d_ctx,
                                            d_timer,
                                            when,
                                            bytes,
                                            d_opt.warmup,
                                            d_opt.reps,
                                            own ? nullptr : &d_in,
                                            own ? nullptr : &d_out));
        }
    }

    std::unique_ptr<transform_runner> make_runner(const std::string& lib,
                                                  size_t n,
                                                  size_t batch,
                                                  const std::string& variant)
    {
        if (lib == "wideband" && variant == "dct8x8") {
            core::block_dct_options o;
            o.width = dct8x8_width(n * batch);
            if (n != 64 || !o.width)
                throw unsupported("dct8x8 transforms images of 8x8 blocks: N = 64 and "
                                  "2^K >= 64");
            o.height = n * batch / o.width;
            return std::make_unique<block_dct_runner>(d_ctx, o, d_in, d_out);
        }
        if (lib == "wideband") {
            core::fft_options o;
            o.direction = variant == "inv" ? core::fft_direction::inverse
                                           : core::fft_direction::forward;
            o.batch = batch;
            o.in_place = variant == "inplace";
            if (variant == "r2c")
                o.transform = core::fft_transform::real_forward;
            if (variant == "c2r") {
                o.transform = core::fft_transform::real_inverse;
                o.direction = core::fft_direction::inverse;
            }
            if (is_dct(variant))
                o.transform = cosine_transform(variant);
            return std::make_unique<wideband_runner>(d_ctx, n, o, d_in, d_out);
        }
#ifdef WIDEBAND_HAVE_VKFFT
        if (lib == "vkfft" && (variant == "dct3" || variant == "dct4") &&
            largest_prime_factor(n) > 13 && VkFFTGetVersion() < 10300)
            // Seen with 1.2.26 on PoCL (N = 17, 1031): a crash, not an error code.
            throw unsupported("VkFFT 1.2's DCT-III and IV of a length with a prime "
                              "factor above 13 crash in initializeVkFFT: not run");
        if (lib == "vkfft" && is_dct(variant) && n > 4096 && VkFFTGetVersion() < 10300)
            // Seen with 1.2.26 on an H100 (N = 8192): the command queue invalid
            // afterwards (CL_INVALID_COMMAND_QUEUE), every later launch failing.
            throw unsupported("VkFFT 1.2's DCT of N > 4096 breaks the command queue: "
                              "not run");
        if (lib == "vkfft")
            return std::make_unique<vkfft_runner>(
                *d_ctx, n, batch, d_in, d_out, is_dct(variant) ? variant[3] - '0' : 0);
#endif
#ifdef WIDEBAND_HAVE_CLFFT
        if (lib == "clfft")
            return std::make_unique<clfft_runner>(
                *d_ctx, d_timer.queue(), n, batch, d_in, d_out);
#endif
        throw std::logic_error("no device runner for " + lib);
    }

    void measure_size(size_t n)
    {
        const size_t batch = std::max<size_t>(1, d_total / n);
        std::cout << "\nN=" << n << "  batch " << batch << d_progress.step() << std::endl;
        for (const auto& variant : all_variants)
            if (d_opt.use("wideband") && d_opt.variant(variant) &&
                (variant != "dct8x8" || n == 64))
                measure_device("wideband", variant, n, batch);
        for (const char* lib : { "vkfft", "clfft" })
            if (d_opt.use(lib))
                measure_device(lib, "fwd", n, batch);
        // VkFFT's cosine transforms beside ours.
        for (const char* variant : { "dct2", "dct3", "dct4" })
            if (d_opt.use("vkfft") && d_opt.variant(variant))
                measure_device("vkfft", variant, n, batch);
        if (d_opt.use("fftw"))
            measure_fftw(n);
    }

    // Timed on the device; then the output is poisoned with NaN and the transform
    // runs once more, checked against float64, and an out-of-place run must have
    // left its input alone (restored for the next one if not).
    void measure_device(const std::string& lib,
                        const std::string& variant,
                        size_t n,
                        size_t batch)
    {
        result m(lib, variant, n, batch);
        try {
            const auto start = clock_type::now();
            std::unique_ptr<transform_runner> runner =
                make_runner(lib, n, batch, variant);
            m.setup_ms = ms_since(start);
            m.note = runner->describe();
            const enqueue_fn run = [&](const cl::CommandQueue& q) { runner->enqueue(q); };
            const size_t in_bytes = m.input_bytes(), out_bytes = m.output_bytes();
            enqueue_fn restore; // in place: the input again before each timed run
            if (variant == "inplace")
                restore = [&](const cl::CommandQueue& q) {
                    q.enqueueCopyBuffer(d_in, d_out, 0, 0, in_bytes);
                };
            m.time = d_timer.measure(run, restore, d_opt.warmup, d_opt.reps);

            const cl::CommandQueue& q = d_timer.queue();
            q.enqueueFillBuffer(d_out, quiet_nan_bits, 0, out_bytes);
            if (restore)
                restore(q);
            run(q);
            q.enqueueReadBuffer(d_out, CL_TRUE, 0, out_bytes, d_host_out.data());
            m.compare(d_host_in.data(), d_host_out.data());
            if (!restore) {
                q.enqueueReadBuffer(d_in, CL_TRUE, 0, in_bytes, d_host_out.data());
                m.input_is(std::memcmp(d_host_out.data(), d_host_in.data(), in_bytes) ==
                           0);
                if (!m.input_intact)
                    q.enqueueWriteBuffer(d_in, CL_TRUE, 0, in_bytes, d_host_in.data());
            }
        } catch (const std::exception&) {
            std::tie(m.status, m.note) = current_failure();
            drain(); // what the library left queued
        }
        print(m);
        d_results.push_back(m);
    }

    void measure_fftw(size_t n)
    {
#ifdef WIDEBAND_HAVE_FFTW
        result m("fftw", "fwd", n, std::max<size_t>(1, d_fftw_points / n));
        const size_t points = m.n * m.batch;
        cfloat *in = d_fftw_in.get(), *out = d_fftw_out.get();
        try {
            const auto start = clock_type::now();
            const fftwf_many plan(n, m.batch, FFTW_FORWARD, in, d_fftw_flags, out);
            m.setup_ms = ms_since(start);
            m.note = std::to_string(d_opt.fftw_threads) + " threads, batch " +
                     std::to_string(m.batch) + ", host time";
            // Filled after planning: FFTW_MEASURE overwrites the arrays.
            std::copy(d_host_in.begin(), d_host_in.begin() + points, in);
            m.time = repeat(
                [&] {
                    const auto t0 = clock_type::now();
                    plan.execute(in, out);
                    return ms_since(t0);
                },
                d_opt.fftw_reps);
            std::fill(out, out + points, cfloat(NAN, NAN));
            plan.execute(in, out);
            m.compare(in, out);
            m.input_is(std::equal(in, in + points, d_host_in.begin()));
        } catch (const std::exception&) {
            std::tie(m.status, m.note) = current_failure();
        }
        print(m);
        d_results.push_back(m);
#else
        (void)n;
#endif
    }

    // One execution as a block issues it: host wall time of enqueue + clFinish, and
    // the device time; FFTW's of fftwf_execute.
    latency measure_latency(const std::string& lib, size_t n, size_t batch)
    {
        latency l(lib, n, batch);
        try {
#ifdef WIDEBAND_HAVE_FFTW
            if (lib == "fftw") {
                cfloat *in = d_fftw_in.get(), *out = d_fftw_out.get();
                const fftwf_many plan(n, batch, FFTW_FORWARD, in, d_fftw_flags, out);
                std::copy(d_host_in.begin(), d_host_in.begin() + n * batch, in);
                l.wall = measure_wall(
                    [&] { plan.execute(in, out); }, d_opt.warmup, d_opt.small_reps);
                return l;
            }
#endif
            std::unique_ptr<transform_runner> runner = make_runner(lib, n, batch, "fwd");
            const enqueue_fn run = [&](const cl::CommandQueue& q) { runner->enqueue(q); };
            auto execute = [&] {
                run(d_compute);
                d_compute.finish();
            };
            l.wall = measure_wall(execute, d_opt.warmup, d_opt.small_reps);
            l.device_us =
                d_timer.measure(run, {}, d_opt.warmup, d_opt.small_reps).median_ms * 1e3;
        } catch (const std::exception&) {
            std::tie(l.status, l.note) = current_failure();
        }
        return l;
    }

    void measure_small_batches()
    {
        std::cout
            << "\nsmall batches: one execution, host wall time of enqueue + clFinish"
            << std::endl;
        for (size_t n : d_opt.small_sizes)
            for (size_t points : d_opt.small_points)
                for (const char* lib : { "wideband", "vkfft", "clfft", "fftw" }) {
                    if (n > points || !d_opt.use(lib))
                        continue;
                    const latency l = measure_latency(lib, n, points / n);
                    std::cout << "  N=" << n << " batch " << l.batch << " " << lib << ": "
                              << (l.status != "ok"
                                      ? l.status + ": " + l.note
                                      : fmt("wall %.1f us", l.wall.median_us) +
                                            fmt(" (min %.1f)", l.wall.min_us) +
                                            (l.lib == "fftw"
                                                 ? std::string()
                                                 : fmt(", device %.1f us", l.device_us)))
                              << std::endl;
                    d_latencies.push_back(l);
                }
    }

    void print(const result& m) const
    {
        m.print(m.name(),
                number(m.gpts()) + " Gpt/s  " + number(m.gbs()) + " GB/s",
                !std::isnan(m.time.b2b_ms),
                19,
                "err " + fmt("%.2e", m.check.rel_err()) + " over " +
                    std::to_string(m.rows) + (m.rows == 1 ? " row, " : " rows, ") +
                    std::to_string(m.check.nonfinite) + " non-finite" +
                    (!m.input_checked ? ""
                     : m.input_intact ? ", input intact"
                                      : ", INPUT CHANGED") +
                    (m.passed() ? "" : "  CHECK FAILED"));
    }

    const result* find(const std::string& lib, const std::string& variant, size_t n) const
    {
        for (const auto& m : d_results)
            if (m.lib == lib && m.variant == variant && m.n == n)
                return &m;
        return nullptr;
    }

    // The figures of a result: the CSV's columns, and the table's.
    columns<result> result_columns() const
    {
        using r = const result&;
        const double ceiling = copy_ceiling_gbs(d_copies, d_total * sizeof(cfloat));
        return columns<result>{
            { "table", [](r) { return "fft"; }, true },
            { "lib", [](r m) { return m.lib; }, true },
            { "variant", [](r m) { return m.variant; }, true },
            { "N", [](r m) { return m.n; }, true },
            { "batch", [](r m) { return m.batch; }, true },
            { "points", [](r m) { return m.n * m.batch; }, true },
            { "median_ms", "ms", 8, [](r m) { return m.time.median_ms; } },
            { "Gpts", "Gpt/s", 8, [](r m) { return m.gpts(); } },
            { "GBs", "GB/s", 7, [](r m) { return m.gbs(); } },
            { "GBs_b2b", [](r m) { return m.gbs_b2b(); } },
            { "pct_copy",
              "%copy",
              6,
              [ceiling](r m) {
                  return m.lib == "fftw" ? value()
                                         : value(100 * m.gbs() / ceiling, "%.0f");
              } },
            { "err", // the table's
              "err",
              9,
              [](r m) {
                  return fmt("%.1e", m.check.rel_err()) + (m.passed() ? " " : "!");
              } },
            { "rows_checked", [](r m) { return m.rows; } },
            { "input_intact",
              [](r m) { return m.input_checked ? value(m.input_intact) : value(); } },
            { "%fwd", // the table's
              "%fwd",
              5,
              [this](r m) -> value {
                  const result* fwd = find("wideband", "fwd", m.n);
                  return fwd && fwd->ok()
                             ? value(100 * fwd->time.median_ms / m.time.median_ms, "%.0f")
                             : "-";
              } },
        } +
               measured<result>(
                   "status,min_ms,max_ms,b2b_ms,rel_err,nonfinite,setup_ms,note");
    }

    columns<latency> latency_columns() const
    {
        using r = const latency&;
        return columns<latency>{
            { "table", [](r) { return "latency"; }, true },
            { "lib", [](r l) { return l.lib; }, true },
            { "variant", [](r) { return "fwd"; }, true },
            { "N", [](r l) { return l.n; }, true },
            { "batch", [](r l) { return l.batch; }, true },
            { "points", [](r l) { return l.n * l.batch; }, true },
            { "median_ms", [](r l) { return l.device_us * 1e-3; }, true },
            { "Gpts", [](r l) { return l.ok() ? l.msps() * 1e-3 : nan_value; }, true },
            { "wall_median_us", "wall", 14, [](r l) { return l.wall.median_us; }, true },
            { "wall_min_us", [](r l) { return l.wall.min_us; }, true },
            { "Msps", "Msps", 7, [](r l) { return l.msps(); } }, // the table's
        } + measured<latency>("status,note");
    }

    void print_latency_table() const
    {
        std::vector<std::string> libs;
        for (const char* lib : { "wideband", "vkfft", "clfft", "fftw" })
            if (d_opt.use(lib))
                libs.push_back(lib);
        std::cout
            << "\nSmall batches, one execution as a block issues it: wall = host time of "
               "enqueue + clFinish\n(FFTW: of fftwf_execute), dev = device time (tick "
               "kernels), microseconds, median of "
            << d_opt.small_reps << "; Msps = points per wall time\n";
        std::vector<std::pair<size_t, size_t>> rows; // N, points
        for (size_t n : d_opt.small_sizes)
            for (size_t points : d_opt.small_points)
                if (n <= points)
                    rows.push_back({ n, points / n * n });
        const columns<latency> all = latency_columns();
        std::vector<table_group> groups = {
            { "",
              { { "", "N", 8, [=](size_t i) { return rows[i].first; } },
                { "",
                  "batch",
                  8,
                  [=](size_t i) { return rows[i].second / rows[i].first; } },
                { "", "points", 8, [=](size_t i) { return rows[i].second; } } } }
        };
        for (const auto& lib : libs) {
            columns<latency> cells = { pick(all, "wall_median_us", lib + " wall", 14) };
            if (lib != "fftw")
                cells.push_back(
                    { "", "dev", 8, [](const latency& l) { return l.device_us; } });
            cells.push_back(pick(all, "Msps"));
            groups.push_back(group(
                "",
                [=](size_t i) -> const latency* {
                    for (const auto& l : d_latencies)
                        if (l.lib == lib && l.n * l.batch == rows[i].second &&
                            l.n == rows[i].first)
                            return &l;
                    return nullptr;
                },
                cells));
        }
        harness::print_table(std::cout, groups, rows.size());
    }

    void print_table() const
    {
        const double ceiling = copy_ceiling_gbs(d_copies, d_total * sizeof(cfloat));
        std::cout
            << "\nBatched complex float32 FFT on " << d_ctx->info().name << ", 2^"
            << d_opt.total_log2
            << " points per launch. GB/s counts 16 B per point (real, cosine: 8); %copy: "
            << "of clEnqueueCopyBuffer's " << copy_ceiling_text(ceiling)
            << (ceiling > 0 ? " (the faster of start and end)" : "")
            << "; %fwd: forward time / this time;\nerr: relative L2 error against "
               "float64, ! = check failed (non-finite output, err > 1e-5 or input "
               "changed)\n";
        // One group of columns per library and variant.
        const columns<result> all = result_columns();
        auto of = [this](const std::string& lib, const std::string& variant) {
            return [=](size_t i) { return find(lib, variant, d_opt.sizes[i]); };
        };
        std::vector<table_group>
            groups = { { "",
                         { { "", "N", 8, [this](size_t i) { return d_opt.sizes[i]; } },
                           { "", "batch", 8, [this](size_t i) {
                                return std::max<size_t>(1, d_total / d_opt.sizes[i]);
                            } } } } };
        const std::vector<std::tuple<std::string, std::string, std::string, std::string>>
            shown = {
                { "wideband", "fwd", "wideband forward", "median_ms,Gpts,GBs,pct_copy" },
                { "wideband", "inv", "inverse", "Gpts,%fwd" },
                { "wideband", "inplace", "in-place", "Gpts,%fwd" },
                { "wideband", "r2c", "real forward (r2c)", "Gpts,GBs,pct_copy" },
                { "wideband", "c2r", "real inverse (c2r)", "Gpts,GBs,pct_copy" },
                { "wideband", "dct2", "DCT-II", "Gpts,pct_copy" },
                { "vkfft", "dct2", "VkFFT DCT-II", "Gpts" },
                { "wideband", "dct3", "DCT-III", "Gpts,pct_copy" },
                { "vkfft", "dct3", "VkFFT DCT-III", "Gpts" },
                { "wideband", "dct4", "DCT-IV", "Gpts,pct_copy" },
                { "vkfft", "dct4", "VkFFT DCT-IV", "Gpts" },
                { "wideband", "dct8x8", "8x8 block DCT", "Gpts,pct_copy" },
                { "vkfft", "fwd", "VkFFT", "Gpts,GBs" },
                { "clfft", "fwd", "clFFT", "Gpts,GBs" },
                { "fftw", "fwd", "FFTW (CPU)", "Gpts" }
            };
        for (const auto& [lib, variant, title, names] : shown) {
            if (!d_opt.use(lib) ||
                ((lib == "wideband" || variant != "fwd") && !d_opt.variant(variant)))
                continue;
            columns<result> cells;
            for (const auto& name : split("", names + ",err"))
                cells.push_back(pick(all, name));
            groups.push_back(group(title, of(lib, variant), cells));
        }
        harness::print_table(std::cout, groups, d_opt.sizes.size());
        for (const auto& m : d_results)
            if (!m.ok())
                std::cout << "  " << m.name() << " N=" << m.n << ": " << m.status << ": "
                          << m.note << "\n";
        std::cout << std::flush;
    }

    void write_csv()
    {
        d_csv.header(
            "table,lib,variant,N,batch,points,status,median_ms,min_ms,max_ms,b2b_ms,"
            "Gpts,GBs,GBs_b2b,pct_copy,rel_err,nonfinite,rows_checked,input_intact,"
            "wall_median_us,wall_min_us,setup_ms,note");
        add_bandwidth_rows(d_csv, d_copies, {});
        const columns<result> results = result_columns();
        for (const auto& m : d_results)
            d_csv.row(results, m, m.ok());
        const columns<latency> latencies = latency_columns();
        for (const auto& l : d_latencies)
            d_csv.row(latencies, l);
        d_csv.finish();
    }

    bench_options d_opt;
    size_t d_total;    // points per launch
    size_t d_capacity; // points per device buffer
    std::vector<cfloat> d_host_in, d_host_out;
    cl::Buffer d_in, d_out;
    std::vector<result> d_results;
    std::vector<latency> d_latencies;
#ifdef WIDEBAND_HAVE_FFTW
    size_t d_fftw_points = 0; // points per FFTW execution
    fftwf_buffer d_fftw_in, d_fftw_out;
    unsigned d_fftw_flags = FFTW_ESTIMATE;
#endif
};

} // namespace

int main(int argc, char** argv)
{
    return bench_main<bench>(
        argc,
        argv,
        declare_options,
        { program_name,
          about(),
          examples,
          "ours only: non-finite values, error above 1e-5, or a changed input" });
}
