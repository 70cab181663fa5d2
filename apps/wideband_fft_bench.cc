/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * wideband_fft_bench: throughput of the core's batched FFT on one OpenCL device,
 * measured in one run beside VkFFT and clFFT on the same device, a device-side
 * buffer copy (the memory ceiling) and FFTW on the CPU. The help text states the
 * method, which is that of the team's GPU anchor measurements.
 */

#include "wideband_fft_bench.h"

#include <cstring>
#include <iostream>
#include <thread>

using namespace fft_bench;

namespace {

const char* const program_name = "wideband_fft_bench";
constexpr double bytes_per_point = 16; // 8 read + 8 written, whatever the passes
constexpr double max_rel_err = 1e-5;   // float32 FFTs land near 1e-7; bugs far above

const std::vector<size_t> default_sizes = { 16,    64,      256,   1024, 4096, 16384,
                                            65536, 1048576, 1000,  1536, 2187, 2401,
                                            3125,  6000,    10000, 17,   4093 };
const std::vector<std::string> all_variants = { "fwd", "inv", "inplace" };

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
    std::vector<std::string> variants = all_variants;
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
    t.counts("--sizes",
             "LIST",
             "transform lengths N, comma-separated",
             o.sizes,
             1,
             std::numeric_limits<int>::max())
        .count("--total-log2",
               "K",
               "points per launch 2^K [26: 512 MiB in + 512 MiB out]",
               o.total_log2,
               0,
               31)
        .count("--reps", "R", "timed runs, median", o.reps, 1)
        .count("--warmup", "W", "untimed runs first", o.warmup, 0)
        .value("--libs",
               "LIST",
               "of " + join(o.libs) + " [all of them]",
               names(o.libs, built_in_libs()))
        .value("--variants",
               "LIST",
               "of ours: fwd (forward out-of-place), inv (inverse, not normalized, "
               "out-of-place), inplace (forward in place)",
               names(o.variants, all_variants),
               join(all_variants))
        .count("--fftw-log2",
               "K",
               "points per FFTW execution 2^K [--total-log2]",
               o.fftw_log2,
               1,
               31)
        .count("--fftw-reps",
               "R",
               "FFTW timed runs after one warm-up, median",
               o.fftw_reps,
               1)
        .number("--fftw-plan-seconds",
                "S",
                "FFTW_MEASURE planning limit per N; 0: FFTW_ESTIMATE",
                o.fftw_plan_seconds,
                0)
        .count("--fftw-threads",
               "T",
               "FFTW threads [all hardware threads: " + std::to_string(o.fftw_threads) +
                   "]",
               o.fftw_threads,
               1)
        .flag("--small-batch",
              "also time single executions of small batches as a GNU Radio block "
              "issues them: host wall time of enqueue + clFinish, beside the device "
              "time",
              o.small_batch)
        .counts("--small-sizes",
                "LIST",
                "N of the small-batch table",
                o.small_sizes,
                1,
                std::numeric_limits<int>::max())
        .counts("--small-points",
                "LIST",
                "points per execution",
                o.small_points,
                1,
                std::numeric_limits<int>::max())
        .count(
            "--small-reps", "R", "runs per small-batch figure, median", o.small_reps, 1);
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
Gpt/s = N*batch/time; GB/s counts 16 bytes per point (8 read, 8 written)
whatever the number of passes; 1 GB = 1e9 B; %copy compares with a copy of the
same bytes. Then the output is filled with NaN, the transform runs once more,
the whole output is searched for non-finite values, its first rows and last row
are compared with a float64 FFT (relative L2 error), and an out-of-place input
must be unchanged. FFTW runs on the host arrays, timed on the host.
)";
}

const char* const examples = R"(Examples:
  wideband_fft_bench                     all sizes, 1 GiB per launch, on the GPU
  wideband_fft_bench --device cpu --total-log2 16 --sizes 64,1000,17 --reps 5
  wideband_fft_bench --libs wideband,copy --variants fwd --sizes 4096
  wideband_fft_bench --small-batch --csv fft_bench.csv

Exit status: 0 done, every check of ours passed; 1 an OpenCL or other run-time
error, or a plan of ours that failed; 2 a bad command line or a --device that
matches no device; 3 an output of ours failed its check (non-finite values,
error above 1e-5, or a changed input).
)";

// ---- results ------------------------------------------------------------

struct measurement {
    std::string lib;             // wideband, vkfft, clfft, fftw
    std::string variant = "fwd"; // fwd, inv, inplace
    size_t n = 0;
    size_t batch = 0;
    std::string status = "ok"; // ok, unsupported, failed
    std::string note;          // plan description, or why it did not run
    double setup_ms = nan_value;
    timing time;
    check_stats check{ max_rel_err };
    size_t rows = 0; // rows compared with float64
    bool input_checked = false;
    bool input_intact = true;

    bool ok() const { return status == "ok"; }
    bool passed() const { return ok() && check.passed() && input_intact; }
    double points() const { return double(n) * double(batch); }
    double gpts() const { return points() / (time.median_ms * 1e-3) / 1e9; }
    double gbs() const { return gpts() * bytes_per_point; }
    double gbs_b2b() const
    {
        return points() * bytes_per_point / (time.b2b_ms * 1e-3) / 1e9;
    }
    std::string name() const { return lib + (lib == "wideband" ? " " + variant : ""); }
};

struct latency {
    std::string lib;
    size_t n = 0;
    size_t batch = 0;
    std::string status = "ok";
    std::string note;
    wall_timing wall;
    double device_us = nan_value;
    double msps() const { return double(n) * double(batch) / wall.median_us; }
};

// ---- the bench ----------------------------------------------------------

class bench
{
public:
    bench(const bench_options& options, core::device_context::sptr ctx);
    ~bench();
    int run();

private:
    void print_header() const;
    void measure_copies(const std::string& when);
    void measure_size(size_t n);
    std::unique_ptr<transform_runner> make_runner(const std::string& lib,
                                                  size_t n,
                                                  size_t batch,
                                                  const std::string& variant);
    measurement measure_device(const std::string& lib,
                               const std::string& variant,
                               size_t n,
                               size_t batch);
    void check_output(measurement& m, const enqueue_fn& run, const enqueue_fn& restore);
    void measure_fftw(size_t n);
    void measure_small_batches();
    latency measure_latency(const std::string& lib, size_t n, size_t batch);
    void print_measurement(const measurement& m) const;
    void print_latency_table() const;
    void print_table() const;
    void write_csv();
    const measurement*
    find(const std::string& lib, const std::string& variant, size_t n) const;
    size_t buffer_bytes() const { return d_capacity * sizeof(cfloat); }

    bench_options d_opt;
    core::device_context::sptr d_ctx;
    device_timer d_timer;
    cl::CommandQueue d_plain_queue; // no profiling, like a block's queue
    size_t d_total;                 // points per launch
    size_t d_capacity;              // points per device buffer
    std::vector<cfloat> d_host_in, d_host_out;
    cl::Buffer d_in, d_out;
    std::vector<measurement> d_results;
    std::vector<copy_measurement> d_copies;
    std::vector<latency> d_latencies;
    csv_file d_csv; // opened at the start, so a bad path fails at once
    progress d_progress;
#ifdef WIDEBAND_HAVE_FFTW
    size_t d_fftw_points = 0; // points per FFTW execution
    fftwf_array d_fftw_in, d_fftw_out;
    unsigned d_fftw_flags = FFTW_ESTIMATE;
#endif
};

size_t largest(const std::vector<size_t>& v)
{
    return *std::max_element(v.begin(), v.end());
}

bench::bench(const bench_options& options, core::device_context::sptr ctx)
    : d_opt(options),
      d_ctx(std::move(ctx)),
      d_timer(*d_ctx),
      d_plain_queue(d_ctx->create_queue(false)),
      d_total(size_t(1) << options.total_log2),
      d_csv(options.csv)
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
        if (d_opt.fftw_plan_seconds > 0) {
            d_fftw_flags = FFTW_MEASURE;
            fftwf_set_timelimit(d_opt.fftw_plan_seconds);
        }
        d_fftw_points = size_t(1) << d_opt.fftw_points_log2();
        size_t points = std::max(d_fftw_points, largest(d_opt.sizes));
        if (d_opt.small_batch)
            points = std::max(points, largest(d_opt.small_points));
        d_fftw_in.reset(fftwf_alloc_complex(points));
        d_fftw_out.reset(fftwf_alloc_complex(points));
        if (!d_fftw_in || !d_fftw_out)
            throw std::runtime_error("cannot allocate " + size_text(16.0 * points) +
                                     " for FFTW");
    }
#endif
}

bench::~bench()
{
#ifdef WIDEBAND_HAVE_CLFFT
    if (d_opt.use("clfft"))
        clfftTeardown();
#endif
}

void bench::print_header() const
{
    print_device_header(program_name, d_ctx->info());
    std::cout << "# points per launch 2^" << d_opt.total_log2 << " ("
              << size_text(d_total * 8.0) << " in + " << size_text(d_total * 8.0)
              << " out); " << d_opt.warmup << " warm-up runs, median of " << d_opt.reps
              << " and mean of " << d_opt.reps << " back to back, device-side timing\n"
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
    std::cout << "\n# float64 reference: whole rows, "
#ifdef WIDEBAND_HAVE_FFTW
              << "FFTW in double precision\n"
#else
              << "direct DFT (built without FFTW)\n"
#endif
              << std::flush;
}

void bench::measure_copies(const std::string& when)
{
    // The bytes of one launch's input, and twice that where the device holds it.
    const size_t launch_bytes = d_total * sizeof(cfloat);
    for (size_t bytes : { launch_bytes, 2 * launch_bytes }) {
        const core::device_info& d = d_ctx->info();
        const bool own_buffers = bytes > buffer_bytes();
        if (own_buffers && (bytes > d.max_alloc_bytes ||
                            2 * (bytes + buffer_bytes()) > d.global_mem_bytes)) {
            std::cout << "copy (" << when << ") " << size_text(double(bytes))
                      << ": skipped, does not fit beside the bench buffers" << std::endl;
            continue;
        }
        d_copies.push_back(measure_copy(*d_ctx,
                                        d_timer,
                                        when,
                                        bytes,
                                        d_opt.warmup,
                                        d_opt.reps,
                                        own_buffers ? nullptr : &d_in,
                                        own_buffers ? nullptr : &d_out));
    }
}

std::unique_ptr<transform_runner> bench::make_runner(const std::string& lib,
                                                     size_t n,
                                                     size_t batch,
                                                     const std::string& variant)
{
    if (lib == "wideband") {
        core::fft_options o;
        o.direction = variant == "inv" ? core::fft_direction::inverse
                                       : core::fft_direction::forward;
        o.batch = batch;
        o.in_place = variant == "inplace";
        return std::make_unique<wideband_runner>(d_ctx, n, o, d_in, d_out);
    }
#ifdef WIDEBAND_HAVE_VKFFT
    if (lib == "vkfft")
        return std::make_unique<vkfft_runner>(*d_ctx, n, batch, d_in, d_out);
#endif
#ifdef WIDEBAND_HAVE_CLFFT
    if (lib == "clfft")
        return std::make_unique<clfft_runner>(
            *d_ctx, d_timer.queue(), n, batch, d_in, d_out);
#endif
    throw std::logic_error("no device runner for " + lib);
}

void bench::measure_size(size_t n)
{
    const size_t batch = std::max<size_t>(1, d_total / n);
    std::cout << "\nN=" << n << "  batch " << batch << d_progress.step() << std::endl;
    for (const auto& variant : all_variants)
        if (d_opt.use("wideband") && d_opt.variant(variant))
            d_results.push_back(measure_device("wideband", variant, n, batch));
    for (const char* lib : { "vkfft", "clfft" })
        if (d_opt.use(lib))
            d_results.push_back(measure_device(lib, "fwd", n, batch));
    if (d_opt.use("fftw"))
        measure_fftw(n);
}

measurement bench::measure_device(const std::string& lib,
                                  const std::string& variant,
                                  size_t n,
                                  size_t batch)
{
    measurement m;
    m.lib = lib;
    m.variant = variant;
    m.n = n;
    m.batch = batch;
    try {
        const auto start = clock_type::now();
        std::unique_ptr<transform_runner> runner = make_runner(lib, n, batch, variant);
        m.setup_ms = ms_since(start);
        m.note = runner->describe();
        const enqueue_fn run = [&](const cl::CommandQueue& q) { runner->enqueue(q); };
        enqueue_fn restore; // in place: the input again before each timed run
        if (variant == "inplace")
            restore = [&](const cl::CommandQueue& q) {
                q.enqueueCopyBuffer(d_in, d_out, 0, 0, n * batch * sizeof(cfloat));
            };
        m.time = d_timer.measure(run, restore, d_opt.warmup, d_opt.reps);
        check_output(m, run, restore);
    } catch (const std::exception&) {
        std::tie(m.status, m.note) = current_failure();
        // Drain what the library left queued; its error is recorded above.
        try {
            d_timer.queue().finish();
        } catch (const cl::Error&) {
        }
    }
    print_measurement(m);
    return m;
}

// Poisons the output with NaN and runs once more; then counts non-finite values
// over the whole output, compares sample rows with float64, and checks that an
// out-of-place run left its input alone (restoring it for the next one if not).
void bench::check_output(measurement& m, const enqueue_fn& run, const enqueue_fn& restore)
{
    const cl::CommandQueue& q = d_timer.queue();
    const size_t points = m.n * m.batch;
    const size_t bytes = points * sizeof(cfloat);
    q.enqueueFillBuffer(d_out, quiet_nan_bits, 0, bytes);
    if (restore)
        restore(q);
    run(q);
    q.enqueueReadBuffer(d_out, CL_TRUE, 0, bytes, d_host_out.data());
    compare_with_reference(
        d_host_in.data(), d_host_out.data(), m.n, m.batch, m.variant == "inv", m.check);
    m.check.scan(d_host_out.data(), points);
    m.rows = sample_rows(m.n, m.batch).size();
    if (!restore) {
        q.enqueueReadBuffer(d_in, CL_TRUE, 0, bytes, d_host_out.data());
        m.input_checked = true;
        m.input_intact = std::memcmp(d_host_out.data(), d_host_in.data(), bytes) == 0;
        if (!m.input_intact)
            q.enqueueWriteBuffer(d_in, CL_TRUE, 0, bytes, d_host_in.data());
    }
}

void bench::measure_fftw(size_t n)
{
#ifdef WIDEBAND_HAVE_FFTW
    measurement m;
    m.lib = "fftw";
    m.n = n;
    m.batch = std::max<size_t>(1, d_fftw_points / n);
    const size_t points = m.n * m.batch;
    auto* in = reinterpret_cast<cfloat*>(d_fftw_in.get());
    auto* out = reinterpret_cast<cfloat*>(d_fftw_out.get());
    try {
        const auto start = clock_type::now();
        const fftw_batch_plan plan(
            n, m.batch, d_fftw_in.get(), d_fftw_out.get(), d_fftw_flags);
        m.setup_ms = ms_since(start);
        m.note = std::to_string(d_opt.fftw_threads) + " threads, batch " +
                 std::to_string(m.batch) + ", host time";
        // Filled after planning: FFTW_MEASURE overwrites the arrays.
        std::copy(d_host_in.begin(), d_host_in.begin() + points, in);
        plan.execute();
        std::vector<double> ms;
        for (int i = 0; i < d_opt.fftw_reps; ++i) {
            const auto t0 = clock_type::now();
            plan.execute();
            ms.push_back(ms_since(t0));
        }
        m.time = summarize(ms);
        std::fill(out, out + points, cfloat(NAN, NAN));
        plan.execute();
        compare_with_reference(in, out, n, m.batch, false, m.check);
        m.check.scan(out, points);
        m.rows = sample_rows(n, m.batch).size();
        m.input_checked = true;
        m.input_intact = std::equal(in, in + points, d_host_in.begin());
    } catch (const std::exception&) {
        std::tie(m.status, m.note) = current_failure();
    }
    print_measurement(m);
    d_results.push_back(m);
#else
    (void)n;
#endif
}

latency bench::measure_latency(const std::string& lib, size_t n, size_t batch)
{
    latency l;
    l.lib = lib;
    l.n = n;
    l.batch = batch;
    try {
        std::unique_ptr<transform_runner> runner = make_runner(lib, n, batch, "fwd");
        const enqueue_fn run = [&](const cl::CommandQueue& q) { runner->enqueue(q); };
        l.wall = measure_wall(
            [&] {
                run(d_plain_queue);
                d_plain_queue.finish();
            },
            d_opt.warmup,
            d_opt.small_reps);
        l.device_us =
            d_timer.measure(run, {}, d_opt.warmup, d_opt.small_reps).median_ms * 1e3;
    } catch (const std::exception&) {
        std::tie(l.status, l.note) = current_failure();
    }
    return l;
}

void bench::measure_small_batches()
{
    std::cout << "\nsmall batches: one execution, host wall time of enqueue + clFinish"
              << std::endl;
    for (size_t n : d_opt.small_sizes) {
        for (size_t points : d_opt.small_points) {
            if (n > points)
                continue;
            const size_t batch = points / n;
            std::vector<latency> row;
            for (const char* lib : { "wideband", "vkfft", "clfft" })
                if (d_opt.use(lib))
                    row.push_back(measure_latency(lib, n, batch));
#ifdef WIDEBAND_HAVE_FFTW
            if (d_opt.use("fftw")) {
                latency l;
                l.lib = "fftw";
                l.n = n;
                l.batch = batch;
                try {
                    const fftw_batch_plan plan(
                        n, batch, d_fftw_in.get(), d_fftw_out.get(), d_fftw_flags);
                    std::copy(d_host_in.begin(),
                              d_host_in.begin() + n * batch,
                              reinterpret_cast<cfloat*>(d_fftw_in.get()));
                    l.wall = measure_wall(
                        [&] { plan.execute(); }, d_opt.warmup, d_opt.small_reps);
                } catch (const std::exception&) {
                    std::tie(l.status, l.note) = current_failure();
                }
                row.push_back(l);
            }
#endif
            for (const latency& l : row) {
                std::cout << "  N=" << n << " batch " << batch << " " << l.lib << ": "
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
    }
}

void bench::print_measurement(const measurement& m) const
{
    const std::string indent(19, ' ');
    std::cout << "  " << m.name()
              << std::string(std::max<size_t>(1, 17 - m.name().size()), ' ');
    if (!m.ok()) {
        std::cout << m.status << ": " << m.note << std::endl;
        return;
    }
    std::cout << fmt("%.4f ms", m.time.median_ms) << fmt(" (min %.4f", m.time.min_ms)
              << (std::isnan(m.time.b2b_ms) ? std::string(")")
                                            : fmt(", b2b %.4f)", m.time.b2b_ms))
              << "  " << number(m.gpts()) << " Gpt/s  " << number(m.gbs()) << " GB/s\n"
              << indent << "err " << fmt("%.2e", m.check.rel_err()) << " over " << m.rows
              << (m.rows == 1 ? " row, " : " rows, ") << m.check.nonfinite
              << " non-finite"
              << (m.input_checked
                      ? (m.input_intact ? ", input intact" : ", INPUT CHANGED")
                      : "")
              << (m.passed() ? "" : "  CHECK FAILED") << "\n"
              << indent << fmt("setup %.0f ms: ", m.setup_ms) << m.note << std::endl;
}

const measurement*
bench::find(const std::string& lib, const std::string& variant, size_t n) const
{
    for (const auto& m : d_results)
        if (m.lib == lib && m.variant == variant && m.n == n)
            return &m;
    return nullptr;
}

void bench::print_latency_table() const
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
    std::string header = pad("N", 8) + pad("batch", 8) + pad("points", 8) + " |";
    for (const auto& lib : libs)
        header += pad(lib + " wall", 14) + (lib == "fftw" ? "" : pad("dev", 8)) +
                  pad("Msps", 7) + " |";
    std::cout << header << "\n" << std::string(header.size(), '-') << "\n";
    for (size_t n : d_opt.small_sizes) {
        for (size_t points : d_opt.small_points) {
            if (n > points)
                continue;
            const size_t batch = points / n;
            std::string line = pad(std::to_string(n), 8) + pad(std::to_string(batch), 8) +
                               pad(std::to_string(n * batch), 8) + " |";
            for (const auto& lib : libs) {
                const size_t width = lib == "fftw" ? 21 : 29;
                std::string cells(width, ' ');
                for (const auto& l : d_latencies)
                    if (l.lib == lib && l.n == n && l.batch == batch)
                        cells =
                            l.status != "ok"
                                ? pad(l.status, width)
                                : pad(number(l.wall.median_us), 14) +
                                      (lib == "fftw" ? "" : pad(number(l.device_us), 8)) +
                                      pad(number(l.msps()), 7);
                line += cells + " |";
            }
            std::cout << line << "\n";
        }
    }
}

void bench::print_table() const
{
    // One group of columns per library and variant, and the cells of a measurement.
    struct group {
        std::string lib, variant;
        text_table::group columns;
        std::function<text_table::cells(const measurement&)> cells;
    };
    const double ceiling = copy_ceiling_gbs(d_copies, d_total * sizeof(cfloat));
    auto err = [](const measurement& m) {
        return fmt("%.1e", m.check.rel_err()) + (m.passed() ? " " : "!");
    };
    auto percent_of_forward = [this](const measurement& m) {
        const measurement* fwd = find("wideband", "fwd", m.n);
        return fwd && fwd->ok()
                   ? fmt("%.0f", 100 * fwd->time.median_ms / m.time.median_ms)
                   : std::string("-");
    };
    std::vector<group> groups;
    if (d_opt.use("wideband") && d_opt.variant("fwd"))
        groups.push_back({ "wideband",
                           "fwd",
                           { "wideband forward",
                             { { "ms", 8 },
                               { "Gpt/s", 8 },
                               { "GB/s", 7 },
                               { "%copy", 6 },
                               { "err", 9 } } },
                           [&](const measurement& m) {
                               return text_table::cells{
                                   number(m.time.median_ms),
                                   number(m.gpts()),
                                   number(m.gbs()),
                                   ceiling > 0 ? fmt("%.0f", 100 * m.gbs() / ceiling)
                                               : "-",
                                   err(m)
                               };
                           } });
    for (const auto& v :
         { std::make_pair("inv", "inverse"), std::make_pair("inplace", "in-place") })
        if (d_opt.use("wideband") && d_opt.variant(v.first))
            groups.push_back(
                { "wideband",
                  v.first,
                  { v.second, { { "Gpt/s", 8 }, { "%fwd", 5 }, { "err", 9 } } },
                  [&](const measurement& m) {
                      return text_table::cells{ number(m.gpts()),
                                                percent_of_forward(m),
                                                err(m) };
                  } });
    for (const auto& lib :
         { std::make_pair("vkfft", "VkFFT"), std::make_pair("clfft", "clFFT") })
        if (d_opt.use(lib.first))
            groups.push_back(
                { lib.first,
                  "fwd",
                  { lib.second, { { "Gpt/s", 8 }, { "GB/s", 7 }, { "err", 9 } } },
                  [&](const measurement& m) {
                      return text_table::cells{ number(m.gpts()),
                                                number(m.gbs()),
                                                err(m) };
                  } });
    if (d_opt.use("fftw"))
        groups.push_back({ "fftw",
                           "fwd",
                           { "FFTW (CPU)", { { "Gpt/s", 8 }, { "err", 9 } } },
                           [&](const measurement& m) {
                               return text_table::cells{ number(m.gpts()), err(m) };
                           } });

    std::cout
        << "\nBatched complex float32 FFT on " << d_ctx->info().name << ", 2^"
        << d_opt.total_log2 << " points per launch. GB/s counts 16 B per point; %copy: "
        << "of clEnqueueCopyBuffer's "
        << (ceiling > 0 ? fmt("%.0f GB/s", ceiling) + " (the faster of start and end)"
                        : std::string("(not measured)"))
        << "; %fwd: forward time / this time;\nerr: relative L2 error against float64, "
           "! = check failed (non-finite output, err > 1e-5 or input changed)\n";
    std::vector<text_table::group> columns = { { "", { { "N", 8 }, { "batch", 8 } } } };
    for (const auto& g : groups)
        columns.push_back(g.columns);
    const text_table table(columns);
    table.print_header(std::cout);
    for (size_t n : d_opt.sizes) {
        std::vector<text_table::cells> row = {
            { std::to_string(n), std::to_string(std::max<size_t>(1, d_total / n)) }
        };
        for (const auto& g : groups) {
            const measurement* m = find(g.lib, g.variant, n);
            row.push_back(!m        ? text_table::cells{}
                          : m->ok() ? g.cells(*m)
                                    : text_table::cells{ m->status });
        }
        table.print_row(std::cout, row);
    }
    for (const auto& m : d_results)
        if (!m.ok())
            std::cout << "  " << m.name() << " N=" << m.n << ": " << m.status << ": "
                      << m.note << "\n";
    std::cout << std::flush;
}

void bench::write_csv()
{
    using csv = csv_file;
    d_csv.header({ "table",       "lib",          "variant",      "N",
                   "batch",       "points",       "status",       "median_ms",
                   "min_ms",      "max_ms",       "b2b_ms",       "Gpts",
                   "GBs",         "GBs_b2b",      "pct_copy",     "rel_err",
                   "nonfinite",   "rows_checked", "input_intact", "wall_median_us",
                   "wall_min_us", "setup_ms",     "note" });
    for (const auto& c : d_copies) {
        csv::fields fields = { { "table", "copy" },
                               { "lib", "clEnqueueCopyBuffer" },
                               { "variant", c.when },
                               { "points", std::to_string(c.bytes / sizeof(cfloat)) },
                               { "status", c.status },
                               { "GBs", csv::number(c.status == "ok" ? c.gbs() : NAN) },
                               { "note", c.note } };
        csv::add_timing(fields, c.time);
        d_csv.row(fields);
    }
    const double ceiling = copy_ceiling_gbs(d_copies, d_total * sizeof(cfloat));
    for (const auto& m : d_results) {
        csv::fields fields = { { "table", "fft" },
                               { "lib", m.lib },
                               { "variant", m.variant },
                               { "N", std::to_string(m.n) },
                               { "batch", std::to_string(m.batch) },
                               { "points", std::to_string(m.n * m.batch) },
                               { "status", m.status },
                               { "setup_ms", csv::number(m.setup_ms) },
                               { "note", m.note } };
        if (m.ok()) {
            csv::add_timing(fields, m.time);
            fields["Gpts"] = csv::number(m.gpts());
            fields["GBs"] = csv::number(m.gbs());
            fields["GBs_b2b"] = csv::number(m.gbs_b2b());
            if (ceiling > 0 && m.lib != "fftw")
                fields["pct_copy"] = csv::number(100 * m.gbs() / ceiling);
            fields["rel_err"] = csv::number(m.check.rel_err());
            fields["nonfinite"] = std::to_string(m.check.nonfinite);
            fields["rows_checked"] = std::to_string(m.rows);
            if (m.input_checked)
                fields["input_intact"] = std::to_string(int(m.input_intact));
        }
        d_csv.row(fields);
    }
    for (const auto& l : d_latencies)
        d_csv.row({ { "table", "latency" },
                    { "lib", l.lib },
                    { "variant", "fwd" },
                    { "N", std::to_string(l.n) },
                    { "batch", std::to_string(l.batch) },
                    { "points", std::to_string(l.n * l.batch) },
                    { "status", l.status },
                    { "median_ms", csv::number(l.device_us * 1e-3) },
                    { "Gpts", csv::number(l.status == "ok" ? l.msps() * 1e-3 : NAN) },
                    { "wall_median_us", csv::number(l.wall.median_us) },
                    { "wall_min_us", csv::number(l.wall.min_us) },
                    { "note", l.note } });
    d_csv.finish();
}

int bench::run()
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

    bool plan_failed = false, check_failed = false;
    for (const auto& m : d_results) {
        if (m.lib != "wideband")
            continue;
        plan_failed |= !m.ok();
        check_failed |= m.ok() && !m.passed();
    }
    if (plan_failed)
        return 1;
    if (check_failed) {
        std::cout << "CHECK FAILED: an output of ours was wrong (marked ! above)"
                  << std::endl;
        return 3;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    return bench_main<bench, bench_options>(
        program_name, argc, argv, declare_options, about(), examples);
}
