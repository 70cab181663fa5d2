/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * wideband_filter_bench: throughput of the core's streaming FIR filter
 * (core::fft_filter, overlap-save) device-resident and with host <-> device
 * transfers through core::stream_pipeline (core::multi_device_pipeline over
 * several devices), and of its batched convolution
 * (core::batched_convolution) over the M x J by N grid of the classic OpenCL
 * batched-convolution study, each beside an FFTW implementation on the CPU in
 * the same run. print_help() states the method.
 */

#include "bench/harness.h"
#include "reference.h"

#include <gnuradio/wideband/core/batched_convolution.h>
#include <gnuradio/wideband/core/fft_filter.h>
#include <gnuradio/wideband/core/host_copy.h>
#include <gnuradio/wideband/core/multi_device_pipeline.h>
#include <gnuradio/wideband/core/pinned_buffer.h>

#ifdef WIDEBAND_HAVE_FFTW
#include <fftw3.h>
#endif

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

using namespace harness;

namespace {

const char* const program_name = "wideband_filter_bench";
constexpr double max_rel_err = 1e-4;
constexpr size_t input_ring = 4; // host input chunks with transfers, cycled
// Sample indices of the batched convolution's filters (signals start at 0).
constexpr uint64_t filter_base = uint64_t(1) << 40;
// Host memory for the pairs FFTW times at once (inputs and outputs).
constexpr size_t cpu_pairs_bytes = size_t(1) << 30;
// Points per batched FFTW execution in the batched convolution.
constexpr size_t cpu_group_points = 8192;
// FFT points per CPU thread below which fewer threads are used.
constexpr size_t cpu_points_per_thread = 16384;
#ifdef WIDEBAND_HAVE_FFTW
constexpr bool have_fftw = true;
#else
constexpr bool have_fftw = false;
#endif

size_t hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// ---- command line -------------------------------------------------------

struct pair_shape {
    size_t M = 0, J = 0;
    size_t pairs() const { return M * J; }
    std::string text() const { return std::to_string(M) + "x" + std::to_string(J); }
};

struct bench_options {
    std::string device;
    std::vector<size_t> taps = { 64, 256, 1024, 8192, 65536 };
    std::vector<size_t> decimations = { 1 };
    size_t samples_log2 = 26;
    std::vector<size_t> chunk_log2 = { 19, 22 };
    size_t stream_log2 = 26;
    size_t depth = 2;
    int reps = 15;
    int warmup = 3;
    int transfer_reps = 3;
    std::vector<pair_shape> pairs = { { 10, 10 }, { 50, 50 }, { 200, 200 } };
    std::vector<size_t> conv_sizes = { 32,   64,   128,  256,   512,   1024,
                                       2048, 4096, 8192, 16384, 32768, 65536 };
    double conv_budget = 2;
    double conv_memory_mib = 0; // 0: 40% of the device's global memory
    size_t cpu_threads = hardware_threads();
    size_t cpu_log2 = 22;
    int cpu_reps = 3;
    double cpu_budget = 0.5;
    double fftw_plan_seconds = 0.5;
    bool fftw_same_size = false;
    double time_limit = 0; // seconds; 0: none
    bool filter = true, conv = true, transfers = true, fftw = have_fftw;
    bool copy_out = true; // with transfers: copy each chunk's output off the pipeline
    std::string csv;
    bool help = false;

    size_t samples() const { return size_t(1) << samples_log2; }
};

void print_help()
{
    const bench_options d;
    std::cout << "Usage: " << program_name << " [OPTIONS]\n"
              << R"(
Throughput of gr-wideband's FIR filter engine (core::fft_filter: overlap-save
fast convolution, what the blocks fft_filter_ccc/ccf run on an OpenCL device) and
of its batched convolution (core::batched_convolution), each beside a CPU
implementation with FFTW (single precision, all cores) in the same run.

FIR filter, one row per taps T and decimation D (taps: a Blackman-windowed sinc,
cut-off 0.4/D cycles per sample, DC gain 1; complex input uniform in [-1, 1)):
  device  device-resident: each call brings 2^S new samples (S = --samples-log2),
          written once into both of the engine's input regions; the engine
          carries its history, so repeated calls stream. Each timed call
          (enqueue()) sits between two 1-work-item kernels on a profiling queue;
          its time is the second one's START minus the first one's END. W
          warm-up calls, the median of R (and the mean of R back to back in the
          CSV). GB/s counts 8 B in + 8/D B out per input sample; %copy compares
          with clEnqueueCopyBuffer of 2^S samples (bytes read + written per
          second, the faster of the run's start and end).
  2^C     with transfers, through core::stream_pipeline as the GNU Radio blocks
          use it (pinned staging buffers, separate upload, compute and download
          queues, --depth chunks in flight): chunks of 2^C samples (--chunk-log2;
          the blocks use 2^19) copied from host memory into the pipeline, each
          chunk's output copied out of it once it is on the host; host wall time
          of 2^Q samples (Q = --stream-log2, at least 4 chunks), one warm-up
          sequence, the median of --transfer-reps. With a --device naming N
          devices, also through core::multi_device_pipeline over the first
          2..N of them (one engine each, chunks in turn; the device-resident,
          FFTW and batched columns use the first device), in a table of
          Msamples/s by device count. lim: the PCIe limit from
          pinned copies measured in the same run, min(h2d/8, d2h/(8/D),
          both/(8+8/D)) input samples per second.
  FFTW    the same filter by overlap-save on the CPU: in-place fftwf plans of
          the FFT size shown (a power of two >= 4096 with the fewest operations
          per output, or with --fftw-fft same the GPU's), the blocks of a call
          spread over --cpu-threads threads, each executing the single-threaded
          plans on its own blocks (fftwf_execute_dft); calls of >= 2^--cpu-log2
          samples (and >= 2 blocks per thread), one warm-up, the median of up to
          --cpu-reps within --cpu-budget seconds.
  x       GPU throughput / FFTW throughput: device-resident (dev) and the faster
          transfer column (xfer).

Batched convolution, as a matrix: P = M x J pairs (--pairs), each a signal of
L = N points with its own filter of S = N points (N: --conv-sizes), giving
2N - 1 points. GPU: a set of all P pairs with the inputs on the device, split
into calls of as many pairs as fit --conv-memory and the allocation limit (the
results do not depend on the split); device time of a whole set (tick kernels
around its calls), one warm-up call, then the median of up to R sets that fit
--conv-budget seconds; a set longer than that is estimated from timed calls
(~). FFTW: the same work (forward FFTs of the zero-padded signal and filter,
multiply, inverse, the GPU's FFT size) on --cpu-threads threads, batched plans
of about 8192 points; a set that would take more than --cpu-budget seconds is
timed on a subset of the pairs and scaled to P (~). x = FFTW time / GPU time.
GB/s counts each input and output point once: 8 (L + S + 2N - 1) bytes per pair.

Checks: outputs are NaN-filled before they are computed. FIR: three calls from
zero history (2^S samples, a shorter call, 2^S again): every output finite, the
output count right, sampled outputs (the start, block edges, spread over the
call) against the direct sum in float64; with transfers the sampled outputs of
the last 3 chunks; FFTW likewise. Batched: every output point of 3 pairs (first,
middle, last of a call) finite, sampled points against the direct sum in
float64. err = relative L2 error over the sampled points; above 1e-4 fails.

Options:
  --device STR            OpenCL device: "" = automatic (first GPU, else CPU; env
                          WIDEBAND_DEVICE), gpu, cpu, P:D, or part of its name;
                          several (gpu:all, 0:0,0:1, ...): streaming scaling
  --taps LIST             FIR taps T, comma-separated [)"
              << join(d.taps) << R"(]
  --decimation LIST       FIR decimation D [1]
  --samples-log2 S        input samples per device-resident call, 2^S [26]
  --chunk-log2 LIST       samples per chunk with transfers, 2^C [)"
              << join(d.chunk_log2) << R"(]
  --stream-log2 Q         samples per timed transfer sequence, 2^Q [26]
  --depth N               stream_pipeline depth: chunks in flight [2, the blocks']
  --reps R                timed device-resident calls, median [15]
  --warmup W              untimed calls first [3]
  --transfer-reps T       timed transfer sequences, median [3]
  --pairs LIST            batched convolution M x J [10x10,50x50,200x200]
  --conv-sizes LIST       N = L = S; A..B stands for the powers of two from A
                          to B [32..65536]
  --conv-budget SEC       GPU seconds for the timed sets of one cell; a longer
                          set is estimated from calls [2]
  --conv-memory MIB       device memory for one call's buffers; 0: 40% of the
                          device's global memory [0]
  --cpu-threads N         FFTW threads [all hardware threads: )"
              << d.cpu_threads << R"(]
  --cpu-log2 C            input samples per FFTW filter call, at least 2^C [22]
  --cpu-reps R            timed FFTW runs, median [3]
  --cpu-budget SEC        FFTW seconds per row or cell; beyond, fewer runs, and
                          in the batched grid a subset of the pairs, scaled [0.5]
  --fftw-plan-seconds S   FFTW_MEASURE planning limit per plan; 0: FFTW_ESTIMATE
                          [0.5]
  --fftw-fft auto|same    FIR FFT size on the CPU: FFTW's best power of two, or
                          the GPU engine's [auto]
  --time-limit SEC        start no further row or cell after SEC seconds, print
                          the tables of what was measured, exit status 4; 0: no
                          limit [0]
  --no-filter             skip the FIR filter rows
  --no-conv               skip the batched convolution grid
  --no-transfers          skip the FIR rows with transfers
  --no-copy-out           with transfers, read the outputs in the pipeline's
                          pinned buffers instead of copying them out (as a
                          consumer that works in place would)
  --no-fftw               skip FFTW (the CPU columns)
  --csv FILE              write every figure to FILE as CSV
  -h, --help              this text

Examples:
  wideband_filter_bench                          the issue's grid on the GPU
  wideband_filter_bench --no-conv --taps 1024 --decimation 1,4
  wideband_filter_bench --no-filter --pairs 50x50 --conv-sizes 1024..65536
  wideband_filter_bench --device cpu --samples-log2 14 --chunk-log2 12
      --stream-log2 14 --taps 16,100 --pairs 2x3 --conv-sizes 32,100 --reps 2
  wideband_filter_bench --time-limit 240 --csv filter.csv
  wideband_filter_bench --device gpu:all --no-conv --no-fftw --taps 64,1024

Exit status: 0 done, every check passed; 1 an OpenCL or other run-time error, or
a measurement that failed; 2 a bad command line or a --device that matches no
device; 3 an output failed its check (err above 1e-4, non-finite values or a
wrong output count); 4 stopped by --time-limit (every check made passed).
)";
    if (!have_fftw)
        std::cout << "\n(built without FFTW: no CPU columns)\n";
}

bench_options parse_command_line(int argc, char** argv)
{
    bench_options o;
    std::string arg; // the option being parsed, for the error messages
    auto count = [&](const std::string& v,
                     size_t lowest,
                     size_t highest = std::numeric_limits<int>::max()) {
        return parse_count(arg, v, lowest, highest);
    };
    auto counts = [&](const std::string& v, size_t lowest, size_t highest) {
        std::vector<size_t> values;
        for (const auto& item : split(arg, v))
            values.push_back(count(item, lowest, highest));
        return values;
    };
    const value_options values = {
        { "--device", [&](const std::string& v) { o.device = v; } },
        { "--taps", [&](const std::string& v) { o.taps = counts(v, 1, 1 << 22); } },
        { "--decimation",
          [&](const std::string& v) { o.decimations = counts(v, 1, 1 << 20); } },
        { "--samples-log2",
          [&](const std::string& v) { o.samples_log2 = count(v, 4, 31); } },
        { "--chunk-log2",
          [&](const std::string& v) { o.chunk_log2 = counts(v, 4, 28); } },
        { "--stream-log2",
          [&](const std::string& v) { o.stream_log2 = count(v, 4, 34); } },
        { "--depth", [&](const std::string& v) { o.depth = count(v, 1, 64); } },
        { "--reps", [&](const std::string& v) { o.reps = int(count(v, 1)); } },
        { "--warmup", [&](const std::string& v) { o.warmup = int(count(v, 0)); } },
        { "--transfer-reps",
          [&](const std::string& v) { o.transfer_reps = int(count(v, 1)); } },
        { "--pairs",
          [&](const std::string& v) {
              o.pairs.clear();
              for (const auto& item : split(arg, v)) {
                  const size_t x = item.find_first_of("xX");
                  if (x == std::string::npos)
                      throw usage_error(arg + ": '" + item + "' is not MxJ");
                  pair_shape p;
                  p.M = count(item.substr(0, x), 1, 1 << 16);
                  p.J = count(item.substr(x + 1), 1, 1 << 16);
                  o.pairs.push_back(p);
              }
          } },
        { "--conv-sizes",
          [&](const std::string& v) {
              o.conv_sizes.clear();
              for (const auto& item : split(arg, v)) {
                  const size_t dots = item.find("..");
                  if (dots == std::string::npos) {
                      o.conv_sizes.push_back(count(item, 1, 1 << 24));
                      continue;
                  }
                  const size_t a = count(item.substr(0, dots), 1, 1 << 24);
                  const size_t b = count(item.substr(dots + 2), a, 1 << 24);
                  for (size_t n = a; n <= b; n *= 2)
                      o.conv_sizes.push_back(n);
              }
          } },
        { "--conv-budget",
          [&](const std::string& v) { o.conv_budget = parse_number(arg, v, 0); } },
        { "--conv-memory",
          [&](const std::string& v) { o.conv_memory_mib = parse_number(arg, v, 0); } },
        { "--cpu-threads",
          [&](const std::string& v) { o.cpu_threads = count(v, 1, 4096); } },
        { "--cpu-log2", [&](const std::string& v) { o.cpu_log2 = count(v, 4, 30); } },
        { "--cpu-reps", [&](const std::string& v) { o.cpu_reps = int(count(v, 1)); } },
        { "--cpu-budget",
          [&](const std::string& v) { o.cpu_budget = parse_number(arg, v, 0); } },
        { "--fftw-plan-seconds",
          [&](const std::string& v) { o.fftw_plan_seconds = parse_number(arg, v, 0); } },
        { "--fftw-fft",
          [&](const std::string& v) {
              if (v != "auto" && v != "same")
                  throw usage_error(arg + ": '" + v + "' is neither auto nor same");
              o.fftw_same_size = v == "same";
          } },
        { "--time-limit",
          [&](const std::string& v) { o.time_limit = parse_number(arg, v, 0); } },
        { "--csv", [&](const std::string& v) { o.csv = v; } },
    };
    const flag_options flags = {
        { "-h", [&] { o.help = true; } },
        { "--help", [&] { o.help = true; } },
        { "--no-filter", [&] { o.filter = false; } },
        { "--no-conv", [&] { o.conv = false; } },
        { "--no-transfers", [&] { o.transfers = false; } },
        { "--no-copy-out", [&] { o.copy_out = false; } },
        { "--no-fftw", [&] { o.fftw = false; } },
    };
    parse_arguments(argc, argv, arg, values, flags);
    return o;
}

// ---- taps and the float64 references -------------------------------------------

// Blackman-windowed sinc of T taps, cut-off 0.4/D cycles per sample, DC gain 1.
std::vector<cfloat> design_taps(size_t T, size_t D)
{
    const std::vector<double> h = windowed_sinc(T, 0.4 / double(D));
    return std::vector<cfloat>(h.begin(), h.end());
}

// Output m of the filter in float64 (lib/core/tests/reference).
std::complex<double> filter_reference(const wideband_reference::sample_fn& x,
                                      const std::vector<cfloat>& h,
                                      size_t D,
                                      uint64_t m)
{
    return wideband_reference::fir(x, h, D, m, 1)[0];
}

// Point n of pair p's convolution (signal L points, filter S points) in float64.
std::complex<double> conv_reference(size_t L, size_t S, uint64_t p, size_t n)
{
    std::vector<cfloat> signal(L), filter(S);
    for (size_t i = 0; i < L; ++i)
        signal[i] = signal_sample(p * L + i);
    for (size_t k = 0; k < S; ++k)
        filter[k] = signal_sample(filter_base + p * S + k);
    return wideband_reference::linear_convolution_at(
        signal.data(), L, filter.data(), S, n);
}

// The pairs of a call of `pairs` whose outputs are checked: first, middle, last.
std::vector<size_t> checked_pair_indices(size_t pairs)
{
    std::vector<size_t> p = { 0, pairs / 2, pairs - 1 };
    p.erase(std::unique(p.begin(), p.end()), p.end());
    return p;
}

// ---- CPU threads ----------------------------------------------------------

// Persistent worker threads: run(n, task) calls task(i, n) for i < n on n
// threads, the caller being thread 0, and returns when all are done.
class thread_pool
{
public:
    using task_fn = std::function<void(size_t, size_t)>;

    explicit thread_pool(size_t threads) : d_size(std::max<size_t>(threads, 1))
    {
        for (size_t i = 1; i < d_size; ++i)
            d_workers.emplace_back([this, i] { work(i); });
    }
    ~thread_pool()
    {
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_stop = true;
            ++d_generation;
        }
        d_wake.notify_all();
        for (auto& t : d_workers)
            t.join();
    }
    thread_pool(const thread_pool&) = delete;
    thread_pool& operator=(const thread_pool&) = delete;

    size_t size() const { return d_size; }

    void run(size_t n, const task_fn& task)
    {
        n = std::min(std::max<size_t>(n, 1), d_size);
        if (n == 1) {
            task(0, 1);
            return;
        }
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_task = &task;
            d_active = n;
            d_pending = n - 1;
            ++d_generation;
        }
        d_wake.notify_all();
        std::exception_ptr error;
        try {
            task(0, n);
        } catch (...) {
            error = std::current_exception();
        }
        std::unique_lock<std::mutex> lock(d_mutex);
        d_done.wait(lock, [&] { return d_pending == 0; });
        d_task = nullptr;
        if (!error)
            error = d_error;
        d_error = nullptr;
        if (error)
            std::rethrow_exception(error);
    }

private:
    void work(size_t index)
    {
        uint64_t seen = 0;
        for (;;) {
            const task_fn* task = nullptr;
            size_t n = 0;
            {
                std::unique_lock<std::mutex> lock(d_mutex);
                d_wake.wait(lock, [&] { return d_generation != seen; });
                seen = d_generation;
                if (d_stop)
                    return;
                if (index >= d_active)
                    continue;
                task = d_task;
                n = d_active;
            }
            try {
                (*task)(index, n);
            } catch (...) {
                std::lock_guard<std::mutex> lock(d_mutex);
                if (!d_error)
                    d_error = std::current_exception();
            }
            std::lock_guard<std::mutex> lock(d_mutex);
            if (--d_pending == 0)
                d_done.notify_one();
        }
    }

    size_t d_size;
    std::vector<std::thread> d_workers;
    std::mutex d_mutex;
    std::condition_variable d_wake, d_done;
    const task_fn* d_task = nullptr;
    size_t d_active = 0, d_pending = 0;
    uint64_t d_generation = 0;
    bool d_stop = false;
    std::exception_ptr d_error;
};

// dst[i] = signal_sample(start + i), i < n, on the pool's threads.
void fill_signal(thread_pool& pool, cfloat* dst, uint64_t start, size_t n)
{
    pool.run(n >= (size_t(1) << 16) ? pool.size() : 1, [&](size_t i, size_t t) {
        for (size_t k = n * i / t, end = n * (i + 1) / t; k < end; ++k)
            dst[k] = signal_sample(start + k);
    });
}

// ---- FFTW on the CPU ------------------------------------------------------

#ifdef WIDEBAND_HAVE_FFTW

struct fftwf_deleter {
    void operator()(cfloat* p) const { fftwf_free(p); }
};
using fftwf_buffer = std::unique_ptr<cfloat[], fftwf_deleter>;

fftwf_buffer fftwf_buffer_of(size_t n)
{
    auto* p = reinterpret_cast<cfloat*>(fftwf_alloc_complex(std::max<size_t>(n, 1)));
    if (!p)
        throw std::runtime_error("fftwf_alloc_complex(" + std::to_string(n) + ") failed");
    return fftwf_buffer(p);
}

fftwf_complex* as_fftw(cfloat* p) { return reinterpret_cast<fftwf_complex*>(p); }

// An in-place plan of `howmany` contiguous transforms of n points, executed on
// any buffer of the same alignment (fftwf_alloc) by any thread.
class fftwf_many
{
public:
    fftwf_many(size_t n, size_t howmany, int sign, cfloat* scratch, unsigned flags)
        : d_n(n), d_howmany(howmany)
    {
        const int length = int(n);
        d_plan = fftwf_plan_many_dft(1,
                                     &length,
                                     int(howmany),
                                     as_fftw(scratch),
                                     nullptr,
                                     1,
                                     length,
                                     as_fftw(scratch),
                                     nullptr,
                                     1,
                                     length,
                                     sign,
                                     flags);
        if (!d_plan)
            throw std::runtime_error("fftwf_plan_many_dft returned no plan for N=" +
                                     std::to_string(n));
    }
    ~fftwf_many() { fftwf_destroy_plan(d_plan); }
    fftwf_many(const fftwf_many&) = delete;
    fftwf_many& operator=(const fftwf_many&) = delete;

    void execute(cfloat* data) const
    {
        fftwf_execute_dft(d_plan, as_fftw(data), as_fftw(data));
    }
    size_t howmany() const { return d_howmany; }

private:
    size_t d_n, d_howmany;
    fftwf_plan d_plan;
};

inline cfloat cmul(const cfloat& a, const cfloat& b) // no NaN/inf fix-ups (__mulsc3)
{
    return cfloat(a.real() * b.real() - a.imag() * b.imag(),
                  a.real() * b.imag() + a.imag() * b.real());
}

unsigned fftw_flags(double plan_seconds)
{
    if (plan_seconds <= 0)
        return FFTW_ESTIMATE;
    fftwf_set_timelimit(plan_seconds);
    return FFTW_MEASURE;
}

// The FIR filter by overlap-save with FFTW: block b reads x[b B .. b B + L) (T - 1
// history samples first) and gives the B / D outputs y[b B / D + i] from points
// T - 1 + i D of its circular convolution.
class fftw_filter
{
public:
    fftw_filter(const std::vector<cfloat>& taps,
                size_t D,
                size_t L,
                size_t threads,
                unsigned flags)
        : d_T(taps.size()), d_D(D), d_L(L), d_B((L - taps.size() + 1) / D * D)
    {
        if (d_L < d_T || d_B == 0)
            throw std::invalid_argument("FFTW FFT size " + std::to_string(L) +
                                        " is below taps + D - 1");
        fftwf_buffer scratch = fftwf_buffer_of(L);
        d_forward.reset(new fftwf_many(L, 1, FFTW_FORWARD, scratch.get(), flags));
        d_inverse.reset(new fftwf_many(L, 1, FFTW_BACKWARD, scratch.get(), flags));
        d_spectrum = fftwf_buffer_of(L);
        std::fill(d_spectrum.get(), d_spectrum.get() + L, cfloat(0));
        std::copy(taps.begin(), taps.end(), d_spectrum.get());
        d_forward->execute(d_spectrum.get());
        const float scale = 1.0f / float(L);
        for (size_t k = 0; k < L; ++k)
            d_spectrum[k] *= scale;
        for (size_t i = 0; i < threads; ++i)
            d_work.push_back(fftwf_buffer_of(L));
    }

    size_t fft_size() const { return d_L; }
    size_t step() const { return d_B; }
    // Input samples x must hold for `blocks` blocks (history included).
    size_t input_length(size_t blocks) const { return (blocks - 1) * d_B + d_L; }

    void run(thread_pool& pool, const cfloat* x, size_t blocks, cfloat* y) const
    {
        pool.run(std::min(blocks, d_work.size()), [&](size_t i, size_t t) {
            cfloat* buf = d_work[i].get();
            const cfloat* h = d_spectrum.get();
            const size_t per_block = d_B / d_D;
            for (size_t b = blocks * i / t, end = blocks * (i + 1) / t; b < end; ++b) {
                std::memcpy(static_cast<void*>(buf), x + b * d_B, d_L * sizeof(cfloat));
                d_forward->execute(buf);
                for (size_t k = 0; k < d_L; ++k)
                    buf[k] = cmul(buf[k], h[k]);
                d_inverse->execute(buf);
                cfloat* out = y + b * per_block;
                for (size_t j = 0; j < per_block; ++j)
                    out[j] = buf[d_T - 1 + j * d_D];
            }
        });
    }

private:
    size_t d_T, d_D, d_L, d_B;
    std::unique_ptr<fftwf_many> d_forward, d_inverse;
    fftwf_buffer d_spectrum;
    std::vector<fftwf_buffer> d_work;
};

// The power of two >= 4096 (and >= T + D - 1) with the fewest FFT operations
// per output, up to 2^20.
size_t fftw_filter_size(size_t T, size_t D)
{
    size_t best = 0;
    double best_cost = INFINITY;
    for (size_t L = 4096; L <= (size_t(1) << 20) || best == 0; L *= 2) {
        if (L < T + D - 1)
            continue;
        const size_t B = (L - T + 1) / D * D;
        const double cost = std::log2(double(L)) * double(L) / double(B);
        if (cost < best_cost) {
            best_cost = cost;
            best = L;
        }
    }
    return best;
}

// Batched convolution with FFTW: pairs in groups of G (about cpu_group_points
// points) through batched plans, the rest one by one; pair p's signal at
// s + p L, filter at f + p S, result (L + S - 1 points) at y + p (L + S - 1).
class fftw_batched
{
public:
    fftw_batched(size_t L, size_t S, size_t n, size_t threads, unsigned flags)
        : d_L(L), d_S(S), d_n(n), d_G(std::max<size_t>(1, cpu_group_points / n))
    {
        fftwf_buffer scratch = fftwf_buffer_of(d_G * n);
        d_forward_group.reset(new fftwf_many(n, d_G, FFTW_FORWARD, scratch.get(), flags));
        d_inverse_group.reset(
            new fftwf_many(n, d_G, FFTW_BACKWARD, scratch.get(), flags));
        if (d_G > 1) {
            d_forward_one.reset(new fftwf_many(n, 1, FFTW_FORWARD, scratch.get(), flags));
            d_inverse_one.reset(
                new fftwf_many(n, 1, FFTW_BACKWARD, scratch.get(), flags));
        }
        for (size_t i = 0; i < threads; ++i) {
            d_signal_work.push_back(fftwf_buffer_of(d_G * n));
            d_filter_work.push_back(fftwf_buffer_of(d_G * n));
        }
    }

    size_t group() const { return d_G; }

    void run(thread_pool& pool,
             size_t threads,
             const cfloat* s,
             const cfloat* f,
             cfloat* y,
             size_t pairs) const
    {
        threads = std::min({ threads, d_signal_work.size(), pairs });
        pool.run(threads, [&](size_t i, size_t t) {
            size_t p = pairs * i / t;
            const size_t end = pairs * (i + 1) / t;
            while (p < end) {
                const size_t g = end - p >= d_G ? d_G : 1;
                compute(i, s, f, y, p, g);
                p += g;
            }
        });
    }

private:
    void compute(size_t thread,
                 const cfloat* s,
                 const cfloat* f,
                 cfloat* y,
                 size_t first,
                 size_t g) const
    {
        cfloat* a = d_signal_work[thread].get();
        cfloat* b = d_filter_work[thread].get();
        const size_t n = d_n, out = d_L + d_S - 1;
        for (size_t q = 0; q < g; ++q) {
            const size_t p = first + q;
            std::copy(s + p * d_L, s + (p + 1) * d_L, a + q * n);
            std::fill(a + q * n + d_L, a + (q + 1) * n, cfloat(0));
            std::copy(f + p * d_S, f + (p + 1) * d_S, b + q * n);
            std::fill(b + q * n + d_S, b + (q + 1) * n, cfloat(0));
        }
        const fftwf_many& forward = g == d_G ? *d_forward_group : *d_forward_one;
        const fftwf_many& inverse = g == d_G ? *d_inverse_group : *d_inverse_one;
        forward.execute(a);
        forward.execute(b);
        const float scale = 1.0f / float(n);
        for (size_t k = 0; k < g * n; ++k)
            a[k] = cmul(a[k], b[k]) * scale;
        inverse.execute(a);
        for (size_t q = 0; q < g; ++q)
            std::copy(a + q * n, a + q * n + out, y + (first + q) * out);
    }

    size_t d_L, d_S, d_n, d_G;
    std::unique_ptr<fftwf_many> d_forward_group, d_inverse_group, d_forward_one,
        d_inverse_one;
    std::vector<fftwf_buffer> d_signal_work, d_filter_work;
};

#endif // WIDEBAND_HAVE_FFTW

// The batched convolution's FFT length: the smallest 7-smooth n >= L + S - 1
// (the engine's default).
size_t seven_smooth_at_least(size_t n)
{
    for (;; ++n) {
        size_t m = n;
        for (size_t p : { 2, 3, 5, 7 })
            while (m % p == 0)
                m /= p;
        if (m == 1)
            return n;
    }
}

// A speed-up in at most 5 characters.
std::string ratio_text(double x)
{
    return fmt(x >= 99.95 ? "%.0f" : x >= 1 ? "%.1f" : "%.2f", x);
}

// ---- results ------------------------------------------------------------

struct filter_row {
    size_t T = 0, D = 1;
    std::string describe() const
    {
        return std::to_string(T) + " taps, decimation " + std::to_string(D);
    }
};

struct filter_measurement {
    size_t row = 0;
    std::string variant;       // device, transfers, fftw
    size_t chunk_log2 = 0;     // transfers
    size_t devices = 1;        // transfers: chunks spread over this many
    std::string status = "ok"; // ok, failed, skipped, not run
    std::string note;
    size_t fft_size = 0;
    size_t samples = 0; // input samples per timed unit (a call or a sequence)
    size_t calls = 1;
    timing time;
    double setup_ms = nan_value;
    check_stats check;

    bool ok() const { return status == "ok"; }
    bool passed() const { return !ok() || check.passed(); }
    double msps() const { return double(samples) / (time.median_ms * 1e-3) / 1e6; }
    double msps_b2b() const { return double(samples) / (time.b2b_ms * 1e-3) / 1e6; }
};

struct conv_cell {
    pair_shape shape;
    size_t N = 0;
    size_t fft_size = 0;
    std::string describe;
    // GPU
    std::string gpu_status = "ok", gpu_note;
    size_t per_call = 0, calls = 0;
    bool gpu_estimated = false;
    int gpu_sets = 0; // sets timed (0 when estimated)
    timing gpu;       // ms per set
    double setup_ms = nan_value;
    check_stats gpu_check;
    // FFTW
    std::string cpu_status = "not run", cpu_note;
    size_t cpu_pairs = 0, cpu_threads = 0; // pairs timed, threads used
    timing cpu;                            // ms for cpu_pairs pairs
    check_stats cpu_check;

    size_t pairs() const { return shape.pairs(); }
    size_t out_length() const { return 2 * N - 1; }
    bool gpu_ok() const { return gpu_status == "ok"; }
    bool cpu_ok() const { return cpu_status == "ok"; }
    bool cpu_scaled() const { return cpu_pairs < pairs(); }
    double gpu_ms() const { return gpu.median_ms; }
    double cpu_ms() const
    {
        return cpu.median_ms * double(pairs()) / double(std::max<size_t>(cpu_pairs, 1));
    }
    double bytes() const { return 8.0 * double(pairs()) * double(2 * N + out_length()); }
    double gpu_gbs() const { return bytes() / (gpu_ms() * 1e-3) / 1e9; }
    double cpu_gbs() const { return bytes() / (cpu_ms() * 1e-3) / 1e9; }
    double points_per_ns() const // output Gpoints/s
    {
        return double(pairs()) * double(out_length()) / (gpu_ms() * 1e-3) / 1e9;
    }
    bool passed() const
    {
        return (!gpu_ok() || gpu_check.passed()) && (!cpu_ok() || cpu_check.passed());
    }
    std::string label() const
    {
        return shape.text() + " N=" + std::to_string(N) + " (" + std::to_string(pairs()) +
               " pairs)";
    }
};

// ---- the bench ----------------------------------------------------------

class bench
{
public:
    bench(const bench_options& options, std::vector<core::device_context::sptr> devices);
    int run();

private:
    bool over_time() const;
    void print_header() const;
    void measure_copies(const std::string& when);

    void measure_filter_row(size_t index);
    filter_measurement measure_filter_device(size_t index,
                                             const std::vector<cfloat>& taps);
    filter_measurement measure_filter_transfers(size_t index,
                                                const std::vector<cfloat>& taps,
                                                size_t chunk_log2,
                                                size_t devices);
    filter_measurement measure_filter_fftw(size_t index,
                                           const std::vector<cfloat>& taps,
                                           size_t gpu_fft_size);
    check_stats
    check_filter_engine(core::fft_filter& engine, const cl::Buffer& out, size_t max);
    void prime_filter(core::fft_filter& engine, const cl::Buffer& out);

    void measure_conv_size(size_t N);
    void measure_conv_gpu(conv_cell& c);
    void measure_conv_fftw(conv_cell& c, const void* plans);
    void fill_device(const cl::Buffer& buffer, size_t elements, uint64_t base);

    void print_filter(const filter_measurement& m) const;
    void print_conv(const conv_cell& c) const;
    void print_filter_table() const;
    void print_device_scaling() const;
    void print_conv_table() const;
    void write_csv();
    const filter_measurement* find(size_t row,
                                   const std::string& variant,
                                   size_t chunk_log2 = 0,
                                   size_t devices = 1) const;
    double pcie_limit_msps(size_t D) const;
    double device_memory_budget() const;
    void drain() const;
    std::string fftw_text() const;

    bench_options d_opt;
    std::vector<core::device_context::sptr> d_devices; // --device; streaming only
    core::device_context::sptr d_ctx;                  // the first: everything else
    device_timer d_timer;
    cl::CommandQueue d_compute; // no profiling
    cl::Kernel d_fill;
    thread_pool d_pool;
    unsigned d_fftw_flags = 0;
    clock_type::time_point d_start;
    std::vector<filter_row> d_rows;
    std::vector<filter_measurement> d_filter;
    std::vector<conv_cell> d_cells;
    std::vector<copy_measurement> d_copies;
    std::vector<pcie_measurement> d_pcie;
    size_t d_rows_not_run = 0, d_cells_not_run = 0;
    csv_file d_csv; // opened at the start, so a bad path fails at once
    progress d_progress;
};

bench::bench(const bench_options& options,
             std::vector<core::device_context::sptr> devices)
    : d_opt(options),
      d_devices(std::move(devices)),
      d_ctx(d_devices.front()),
      d_timer(*d_ctx),
      d_compute(d_ctx->create_queue(false)),
      d_pool(options.cpu_threads),
      d_start(clock_type::now()),
      d_csv(options.csv)
{
    cl::Program program(d_ctx->context(), std::string(fill_signal_source));
    program.build(std::vector<cl::Device>{ d_ctx->device() });
    d_fill = cl::Kernel(program, "fill_signal");
#ifdef WIDEBAND_HAVE_FFTW
    if (d_opt.fftw)
        d_fftw_flags = fftw_flags(d_opt.fftw_plan_seconds);
#endif
    if (d_opt.filter)
        for (size_t T : d_opt.taps)
            for (size_t D : d_opt.decimations)
                d_rows.push_back({ T, D });
}

bool bench::over_time() const
{
    return d_opt.time_limit > 0 && ms_since(d_start) > 1e3 * d_opt.time_limit;
}

void bench::drain() const { harness::drain({ &d_timer.queue(), &d_compute }); }

std::string bench::fftw_text() const
{
#ifdef WIDEBAND_HAVE_FFTW
    return std::string(fftwf_version) + ", " + std::to_string(d_pool.size()) +
           " threads, " +
           (d_fftw_flags == FFTW_MEASURE
                ? "FFTW_MEASURE (" + fmt("%g", d_opt.fftw_plan_seconds) + " s per plan)"
                : std::string("FFTW_ESTIMATE"));
#else
    return "not built with FFTW";
#endif
}

void bench::print_header() const
{
    print_device_header(program_name, d_ctx->info());
    if (d_opt.filter) {
        std::cout << "# FIR device-resident: 2^" << d_opt.samples_log2
                  << " input samples per call (" << size_text(d_opt.samples() * 8.0)
                  << "), " << d_opt.warmup << " warm-up calls, median of " << d_opt.reps
                  << ", device-side timing\n";
        if (d_opt.transfers && d_devices.size() > 1) {
            std::cout << "# FIR with transfers also over the first 2.."
                      << d_devices.size() << " of the devices";
            for (const auto& d : d_devices)
                std::cout << " " << d->info().address();
            std::cout << " (multi_device_pipeline)\n";
        }
        if (d_opt.transfers)
            std::cout << "# FIR with transfers: stream_pipeline depth " << d_opt.depth
                      << ", chunks of 2^" << join(d_opt.chunk_log2, ", 2^")
                      << " samples, 2^" << d_opt.stream_log2
                      << " samples per sequence, median of " << d_opt.transfer_reps
                      << " sequences, host timing"
                      << (d_opt.copy_out ? "" : ", outputs not copied out") << "\n";
    }
    if (d_opt.conv)
        std::cout << "# batched convolution: pairs " <<
            [&] {
                std::vector<std::string> p;
                for (const auto& s : d_opt.pairs)
                    p.push_back(s.text());
                return join(p);
            }()
                  << ", N = " << join(d_opt.conv_sizes) << "; up to " << d_opt.reps
                  << " sets within " << fmt("%g", d_opt.conv_budget) << " s per cell, "
                  << size_text(device_memory_budget()) << " of buffers per call\n";
    std::cout << "# CPU: " << (d_opt.fftw ? fftw_text() : std::string("FFTW skipped"))
              << "\n# check: float64 direct sums, err limit " << fmt("%g", max_rel_err)
              << std::endl;
}

// clEnqueueCopyBuffer of one device-resident call's input bytes.
void bench::measure_copies(const std::string& when)
{
    d_copies.push_back(measure_copy(*d_ctx,
                                    d_timer,
                                    when,
                                    std::min<size_t>(d_opt.samples() * sizeof(cfloat),
                                                     d_ctx->info().max_alloc_bytes / 2),
                                    d_opt.warmup,
                                    d_opt.reps));
}

// ---- FIR filter -----------------------------------------------------------

/*
 * Three calls from zero history into NaN-filled output: `max` samples, a shorter
 * call (which leaves samples short of an output when D > 1), `max` again; every
 * output of each must be finite, sampled ones are compared with the float64 sum.
 */
check_stats
bench::check_filter_engine(core::fft_filter& engine, const cl::Buffer& out, size_t max)
{
    const cl::CommandQueue& q = d_compute;
    const size_t D = engine.decimation(), T = engine.taps().size();
    const size_t per_block = engine.block_step() / D;
    const size_t sizes[] = { max, std::min(max, max / 3 + D / 2 + 1), max };
    const size_t out_bytes = out.getInfo<CL_MEM_SIZE>();
    const wideband_reference::sample_fn x = signal_sample;
    std::vector<cfloat> input, output;
    check_stats s;
    uint64_t pos = 0; // samples before the call
    engine.reset();
    for (size_t n : sizes) {
        const auto region = engine.input_region();
        if (region.capacity < n) {
            s.fail("input_region() capacity " + std::to_string(region.capacity) + " < " +
                   std::to_string(n));
            break;
        }
        input.resize(n);
        fill_signal(d_pool, input.data(), pos, n);
        q.enqueueWriteBuffer(region.buffer,
                             CL_TRUE,
                             region.offset * sizeof(cfloat),
                             n * sizeof(cfloat),
                             input.data());
        q.enqueueFillBuffer(out, quiet_nan_bits, 0, out_bytes);
        const uint64_t first = pos / D;
        const size_t expected = size_t((pos + n) / D - first);
        const auto result = engine.enqueue(q, n, out);
        q.finish();
        if (result.outputs != expected)
            s.fail(std::to_string(result.outputs) + " outputs, expected " +
                   std::to_string(expected));
        const size_t got = std::min(result.outputs, expected);
        output.resize(std::max<size_t>(got, 1));
        if (got)
            q.enqueueReadBuffer(out, CL_TRUE, 0, got * sizeof(cfloat), output.data());
        s.scan(output.data(), got);
        const std::vector<size_t> edges = { T - 2,
                                            T - 1,
                                            T,
                                            per_block - 1,
                                            per_block,
                                            per_block + 1,
                                            2 * per_block,
                                            3 * per_block - 1 };
        for (size_t i : sample_indices(got, edges, 16))
            s.add(filter_reference(x, engine.taps(), D, first + i), output[i]);
        pos += n;
    }
    return s;
}

// Zero history, then the test signal in the new-sample part of both input regions
// (a call of no samples moves to the other one), so that timed calls read
// initialised data.
void bench::prime_filter(core::fft_filter& engine, const cl::Buffer& out)
{
    d_compute.finish();
    engine.reset();
    std::vector<cfloat> input(engine.max_input_samples());
    fill_signal(d_pool, input.data(), 0, input.size());
    for (size_t w = 0; w < engine.input_regions(); ++w) {
        const auto region = engine.input_region();
        d_compute.enqueueWriteBuffer(region.buffer,
                                     CL_TRUE,
                                     region.offset * sizeof(cfloat),
                                     region.capacity * sizeof(cfloat),
                                     input.data());
        engine.enqueue(d_compute, 0, out);
    }
    d_compute.finish();
}

filter_measurement bench::measure_filter_device(size_t index,
                                                const std::vector<cfloat>& taps)
{
    const filter_row& row = d_rows[index];
    filter_measurement m;
    m.row = index;
    m.variant = "device";
    try {
        const auto start = clock_type::now();
        core::fft_filter_options o;
        o.taps = taps;
        o.decimation = row.D;
        o.max_input_samples = d_opt.samples();
        core::fft_filter engine(d_ctx, o);
        m.setup_ms = ms_since(start);
        m.fft_size = engine.fft_size();
        m.samples = engine.max_input_samples();
        m.note = engine.describe();
        const size_t out_bytes = std::max<size_t>(engine.max_output_elements(), 1) * 8;
        if (out_bytes > d_ctx->info().max_alloc_bytes)
            throw std::runtime_error("the output of " + size_text(double(out_bytes)) +
                                     " exceeds the device's allocation limit: use a "
                                     "smaller --samples-log2");
        cl::Buffer out(d_ctx->context(), CL_MEM_READ_WRITE, out_bytes);
        m.check = check_filter_engine(engine, out, m.samples);
        prime_filter(engine, out);
        m.time = d_timer.measure(
            [&](const cl::CommandQueue& q) { engine.enqueue(q, m.samples, out); },
            {},
            d_opt.warmup,
            d_opt.reps);
    } catch (const std::exception&) {
        m.status = "failed";
        m.note = current_error_text();
        drain();
    }
    print_filter(m);
    return m;
}

/*
 * The engine behind a core::stream_pipeline, as the blocks drive it: chunks of
 * 2^C samples from a ring of host chunks go in; each chunk's output, once on
 * the host, is copied out. Sampled outputs of the last chunks of the last
 * sequence are checked.
 */
filter_measurement bench::measure_filter_transfers(size_t index,
                                                   const std::vector<cfloat>& taps,
                                                   size_t chunk_log2,
                                                   size_t devices)
{
    const filter_row& row = d_rows[index];
    const size_t chunk = size_t(1) << chunk_log2;
    const size_t calls =
        std::max<size_t>(4, (size_t(1) << d_opt.stream_log2) >> chunk_log2);
    filter_measurement m;
    m.row = index;
    m.variant = "transfers";
    m.chunk_log2 = chunk_log2;
    m.devices = devices;
    m.samples = chunk * calls;
    m.calls = calls;
    try {
        const auto start = clock_type::now();
        core::fft_filter_options o;
        o.taps = taps;
        o.decimation = row.D;
        o.max_input_samples = chunk;
        // One engine per device; with one, the pipeline is a plain stream_pipeline.
        const std::vector<core::device_context::sptr> contexts(
            d_devices.begin(), d_devices.begin() + devices);
        std::vector<std::unique_ptr<core::fft_filter>> engines;
        std::vector<core::splittable_engine*> split;
        for (const auto& context : contexts) {
            engines.emplace_back(new core::fft_filter(context, o));
            split.push_back(engines.back().get());
        }
        const core::fft_filter& engine = *engines.front();
        core::multi_device_pipeline pipeline(contexts, split, d_opt.depth);
        m.setup_ms = ms_since(start);
        m.fft_size = engine.fft_size();
        m.note = std::to_string(calls) + " chunks of 2^" + std::to_string(chunk_log2) +
                 ", depth " + std::to_string(d_opt.depth) +
                 (devices > 1 ? " per device, " + std::to_string(devices) + " devices"
                              : std::string()) +
                 (d_opt.copy_out ? ", outputs copied out" : ", outputs read in place");

        const size_t ring = input_ring * chunk;
        std::vector<cfloat> host_in(ring);
        fill_signal(d_pool, host_in.data(), 0, ring);
        std::vector<cfloat> sink(std::max<size_t>(engine.max_output_elements(), 1));

        struct sample_record {
            uint64_t index;
            cfloat value;
        };
        std::deque<std::vector<sample_record>> records; // the last 3 chunks'
        uint64_t submitted = 0, delivered = 0;          // samples in, outputs out
        size_t chunk_index = 0;
        check_stats counts; // output count problems
        auto take = [&](const cfloat* y, size_t n) {
            if (d_opt.copy_out) {
                core::host_copy(sink.data(), y, n * sizeof(cfloat));
                y = sink.data();
            }
            std::vector<sample_record> r;
            for (size_t i : sample_indices(n, {}, 3))
                r.push_back({ delivered + i, y[i] });
            records.push_back(std::move(r));
            if (records.size() > 3)
                records.pop_front();
            delivered += n;
        };
        auto sequence = [&] {
            const double ms = stream_sequence(
                pipeline, host_in.data(), input_ring, chunk, calls, chunk_index, take);
            submitted += chunk * calls;
            if (delivered != submitted / row.D)
                counts.fail(std::to_string(delivered) + " outputs after " +
                            std::to_string(submitted) + " samples, expected " +
                            std::to_string(submitted / row.D));
            return ms;
        };
        sequence(); // warm-up
        std::vector<double> ms;
        for (int i = 0; i < d_opt.transfer_reps; ++i)
            ms.push_back(sequence());
        m.time = summarize(ms);
        // The stream is the ring of host chunks, repeating.
        auto x = [&](uint64_t k) { return host_in[k % ring]; };
        m.check = counts;
        for (const auto& r : records)
            for (const auto& s : r)
                m.check.add(filter_reference(x, engine.taps(), row.D, s.index), s.value);
    } catch (const std::exception&) {
        m.status = "failed";
        m.note = current_error_text();
        drain();
    }
    print_filter(m);
    return m;
}

filter_measurement bench::measure_filter_fftw(size_t index,
                                              const std::vector<cfloat>& taps,
                                              size_t gpu_fft_size)
{
    const filter_row& row = d_rows[index];
    filter_measurement m;
    m.row = index;
    m.variant = "fftw";
#ifdef WIDEBAND_HAVE_FFTW
    try {
        const size_t T = taps.size(), D = row.D;
        const size_t L =
            d_opt.fftw_same_size && gpu_fft_size ? gpu_fft_size : fftw_filter_size(T, D);
        const auto start = clock_type::now();
        fftw_filter filter(taps, D, L, d_pool.size(), d_fftw_flags);
        m.setup_ms = ms_since(start);
        m.fft_size = L;
        const size_t B = filter.step();
        const size_t blocks =
            std::max({ ((size_t(1) << d_opt.cpu_log2) + B - 1) / B, 2 * d_pool.size() });
        m.samples = blocks * B;
        // Zero history, the signal from sample 0, zeros past it.
        std::vector<cfloat> x(filter.input_length(blocks) + T - 1);
        std::fill(x.begin(), x.begin() + (T - 1), cfloat(0));
        fill_signal(d_pool, x.data() + (T - 1), 0, m.samples);
        std::fill(x.begin() + (T - 1) + m.samples, x.end(), cfloat(0));
        const size_t outputs = m.samples / D;
        std::vector<cfloat> y(outputs);
        std::fill(y.begin(), y.end(), cfloat(NAN, NAN));

        auto call = [&] {
            const auto t0 = clock_type::now();
            filter.run(d_pool, x.data(), blocks, y.data());
            return ms_since(t0);
        };
        const double first = call(); // warm-up (and the checked output)
        m.check.scan(y.data(), outputs);
        const wideband_reference::sample_fn xs = signal_sample;
        const size_t per_block = B / D;
        for (size_t i :
             sample_indices(outputs,
                            { T - 2, T - 1, T, per_block - 1, per_block, per_block + 1 },
                            16))
            m.check.add(filter_reference(xs, taps, D, i), y[i]);
        const int reps = int(
            std::clamp<double>(std::floor(1e3 * d_opt.cpu_budget / std::max(first, 1e-3)),
                               1,
                               d_opt.cpu_reps));
        std::vector<double> ms;
        for (int i = 0; i < reps; ++i)
            ms.push_back(call());
        m.time = summarize(ms);
        m.calls = size_t(reps);
        m.note = "overlap-save, FFT " + std::to_string(L) + ", " +
                 std::to_string(blocks) + " blocks of " + std::to_string(B) +
                 " samples, " + std::to_string(std::min(blocks, d_pool.size())) +
                 " threads, median of " + std::to_string(reps);
    } catch (const std::exception&) {
        m.status = "failed";
        m.note = current_error_text();
    }
#else
    (void)taps;
    (void)gpu_fft_size;
    m.status = "skipped";
    m.note = "not built with FFTW";
#endif
    print_filter(m);
    return m;
}

void bench::measure_filter_row(size_t index)
{
    const filter_row& row = d_rows[index];
    std::cout << "\nFIR " << row.describe() << d_progress.step() << std::endl;
    const std::vector<cfloat> taps = design_taps(row.T, row.D);
    d_filter.push_back(measure_filter_device(index, taps));
    const size_t gpu_fft = d_filter.back().fft_size;
    if (d_opt.transfers)
        for (size_t n = 1; n <= d_devices.size(); ++n)
            for (size_t c : d_opt.chunk_log2)
                d_filter.push_back(measure_filter_transfers(index, taps, c, n));
    if (d_opt.fftw)
        d_filter.push_back(measure_filter_fftw(index, taps, gpu_fft));
}

// ---- batched convolution --------------------------------------------------

double bench::device_memory_budget() const
{
    if (d_opt.conv_memory_mib > 0)
        return d_opt.conv_memory_mib * 1048576.0;
    return 0.4 * double(d_ctx->info().global_mem_bytes);
}

// Elements [0, elements) of `buffer` := signal_sample(base + i).
void bench::fill_device(const cl::Buffer& buffer, size_t elements, uint64_t base)
{
    const size_t piece = size_t(1) << 24;
    d_fill.setArg(0, buffer);
    d_fill.setArg(2, cl_ulong(base));
    for (size_t offset = 0; offset < elements; offset += piece) {
        d_fill.setArg(1, cl_ulong(offset));
        d_compute.enqueueNDRangeKernel(
            d_fill, cl::NullRange, cl::NDRange(std::min(piece, elements - offset)));
    }
}

/*
 * One cell on the GPU: calls of up to `per_call` pairs (what fits the memory
 * budget and the allocation limit) make a set of P pairs. The buffers hold the
 * first per_call pairs and every call of the set reuses them (the inputs are on
 * the device; the results do not depend on the split).
 */
void bench::measure_conv_gpu(conv_cell& c)
{
    const size_t N = c.N, L = N, S = N, out = c.out_length(), P = c.pairs();
    try {
        const size_t n = seven_smooth_at_least(out);
        // signals, filters, outputs, the filters' spectra, up to 3 work buffers
        const double per_pair = 8.0 * double(L + S + out + 4 * n);
        const double max_alloc = double(d_ctx->info().max_alloc_bytes);
        const size_t fit = size_t(std::min(
            { device_memory_budget() / per_pair, max_alloc / (8.0 * double(n)) }));
        if (fit == 0)
            throw std::runtime_error("one pair needs " + size_text(per_pair) +
                                     ": more than --conv-memory or the allocation limit");
        c.per_call = std::min(P, fit);
        c.calls = (P + c.per_call - 1) / c.per_call;
        const size_t last = P - (c.calls - 1) * c.per_call;

        const auto start = clock_type::now();
        core::batched_convolution_options o;
        o.signal_length = L;
        o.filter_length = S;
        o.max_pairs = c.per_call;
        core::batched_convolution engine(d_ctx, o);
        c.setup_ms = ms_since(start);
        c.fft_size = engine.fft_size();
        c.describe = engine.describe();
        const size_t Q = c.per_call;
        cl::Buffer signals(d_ctx->context(), CL_MEM_READ_WRITE, Q * L * 8);
        cl::Buffer filters(d_ctx->context(), CL_MEM_READ_WRITE, Q * S * 8);
        cl::Buffer outputs(d_ctx->context(), CL_MEM_READ_WRITE, Q * out * 8);
        fill_device(signals, Q * L, 0);
        fill_device(filters, Q * S, filter_base);
        d_compute.enqueueFillBuffer(outputs, quiet_nan_bits, 0, Q * out * 8);

        // One call of Q pairs (also the warm-up), checked.
        engine.enqueue(d_compute, signals, filters, outputs, Q);
        d_compute.finish();
        std::vector<cfloat> y(out);
        for (size_t p : checked_pair_indices(Q)) {
            d_compute.enqueueReadBuffer(outputs, CL_TRUE, p * out * 8, out * 8, y.data());
            c.gpu_check.scan(y.data(), out);
            for (size_t i : sample_indices(out, { L - 1, L, S - 1 }, 48))
                c.gpu_check.add(conv_reference(L, S, p, i), y[i]);
        }

        auto set = [&](const cl::CommandQueue& q) {
            for (size_t k = 0; k < c.calls; ++k)
                engine.enqueue(q, signals, filters, outputs, k + 1 < c.calls ? Q : last);
        };
        const double budget_ms = 1e3 * d_opt.conv_budget;
        // Host time of one set (after the warm-up call above), to plan the reps.
        const auto t0 = clock_type::now();
        set(d_timer.queue());
        d_timer.queue().finish();
        const double probe_ms = ms_since(t0);
        if (probe_ms <= budget_ms || c.calls == 1) {
            const int reps = int(std::clamp<double>(
                std::floor(budget_ms / (2 * std::max(probe_ms, 1e-3))), 1, d_opt.reps));
            c.gpu = d_timer.measure(set, {}, reps >= 3 ? 1 : 0, reps);
            c.gpu_sets = reps;
        } else {
            // Calls of Q pairs, as many as the budget allows (at least 1), scaled.
            const double call_ms = probe_ms / double(c.calls);
            const int reps = int(std::clamp<double>(
                std::floor(budget_ms / (2 * std::max(call_ms, 1e-3))), 1, d_opt.reps));
            timing t = d_timer.measure(
                [&](const cl::CommandQueue& q) {
                    engine.enqueue(q, signals, filters, outputs, Q);
                },
                {},
                0,
                reps);
            const double scale = double(P) / double(Q);
            c.gpu.median_ms = t.median_ms * scale;
            c.gpu.min_ms = t.min_ms * scale;
            c.gpu.max_ms = t.max_ms * scale;
            c.gpu.b2b_ms = t.b2b_ms * scale;
            c.gpu_estimated = true;
            c.gpu_note = "estimated: a set of " + std::to_string(c.calls) +
                         " calls takes about " + fmt("%.1f s", probe_ms / 1e3) +
                         ", more than --conv-budget; median of " + std::to_string(reps) +
                         " calls of " + std::to_string(Q) + " pairs, times P/" +
                         std::to_string(Q);
        }
    } catch (const std::exception&) {
        c.gpu_status = "failed";
        c.gpu_note = current_error_text();
        drain();
    }
}

/*
 * One cell with FFTW: a calibration run of one group per thread, then the
 * median of up to --cpu-reps runs of as many pairs as --cpu-budget allows (all
 * P when they fit), scaled to P.
 */
void bench::measure_conv_fftw(conv_cell& c, const void* plans)
{
#ifdef WIDEBAND_HAVE_FFTW
    const auto& conv = *static_cast<const fftw_batched*>(plans);
    const size_t L = c.N, S = c.N, out = c.out_length(), P = c.pairs();
    try {
        const size_t cap = std::max<size_t>(1, cpu_pairs_bytes / (8 * (L + S + out)));
        std::vector<cfloat> s, f, y;
        auto ensure = [&](size_t pairs) { // inputs of the first `pairs` pairs
            const size_t had = s.size() / L;
            if (pairs <= had)
                return;
            s.resize(pairs * L);
            f.resize(pairs * S);
            y.resize(pairs * out);
            fill_signal(d_pool, s.data() + had * L, had * L, (pairs - had) * L);
            fill_signal(
                d_pool, f.data() + had * S, filter_base + had * S, (pairs - had) * S);
        };
        auto threads_for = [&](size_t pairs) {
            return std::clamp<size_t>(
                pairs * c.fft_size / cpu_points_per_thread, 1, d_pool.size());
        };
        auto run = [&](size_t pairs) {
            const auto t0 = clock_type::now();
            conv.run(d_pool, threads_for(pairs), s.data(), f.data(), y.data(), pairs);
            return ms_since(t0);
        };
        const size_t calibration = std::min({ P, cap, d_pool.size() * conv.group() });
        ensure(calibration);
        std::fill(y.begin(), y.end(), cfloat(NAN, NAN));
        run(calibration); // warm-up
        const double per_pair = run(calibration) / double(calibration);
        for (size_t p : checked_pair_indices(calibration)) {
            c.cpu_check.scan(y.data() + p * out, out);
            for (size_t i : sample_indices(out, { L - 1, L, S - 1 }, 48))
                c.cpu_check.add(conv_reference(L, S, p, i), y[p * out + i]);
        }
        const double budget_ms = 1e3 * d_opt.cpu_budget;
        size_t pairs = std::min(P, cap);
        if (double(pairs) * per_pair * d_opt.cpu_reps > budget_ms)
            pairs = std::min(
                pairs,
                std::max(calibration,
                         size_t(budget_ms / (per_pair * d_opt.cpu_reps + 1e-9))));
        ensure(pairs);
        if (pairs > calibration)
            run(pairs); // warm-up of the new memory
        std::vector<double> ms;
        for (int i = 0; i < d_opt.cpu_reps; ++i)
            ms.push_back(run(pairs));
        c.cpu = summarize(ms);
        c.cpu_pairs = pairs;
        c.cpu_threads = threads_for(pairs);
        c.cpu_status = "ok";
        c.cpu_note = std::to_string(c.cpu_threads) + " threads, groups of " +
                     std::to_string(conv.group()) + ", median of " +
                     std::to_string(d_opt.cpu_reps) +
                     (pairs < P ? " runs of " + std::to_string(pairs) + " of the " +
                                      std::to_string(P) + " pairs, scaled"
                                : " runs");
    } catch (const std::exception&) {
        c.cpu_status = "failed";
        c.cpu_note = current_error_text();
    }
#else
    (void)plans;
    c.cpu_status = "skipped";
    c.cpu_note = "not built with FFTW";
#endif
}

void bench::measure_conv_size(size_t N)
{
    std::cout << "\nbatched convolution N = " << N << d_progress.step() << std::endl;
#ifdef WIDEBAND_HAVE_FFTW
    std::unique_ptr<fftw_batched> plans;
    std::string plan_error;
    if (d_opt.fftw)
        try {
            plans.reset(new fftw_batched(
                N, N, seven_smooth_at_least(2 * N - 1), d_pool.size(), d_fftw_flags));
        } catch (const std::exception&) {
            plan_error = current_error_text();
        }
#endif
    for (const pair_shape& shape : d_opt.pairs) {
        conv_cell c;
        c.shape = shape;
        c.N = N;
        if (over_time()) {
            c.gpu_status = c.cpu_status = "not run";
            c.gpu_note = c.cpu_note = "--time-limit reached";
            ++d_cells_not_run;
            d_cells.push_back(c);
            continue;
        }
        measure_conv_gpu(c);
        if (d_opt.fftw) {
            if (!c.fft_size)
                c.fft_size = seven_smooth_at_least(c.out_length());
#ifdef WIDEBAND_HAVE_FFTW
            if (plans)
                measure_conv_fftw(c, plans.get());
            else {
                c.cpu_status = "failed";
                c.cpu_note = plan_error;
            }
#else
            measure_conv_fftw(c, nullptr);
#endif
        } else {
            c.cpu_status = "skipped";
        }
        print_conv(c);
        d_cells.push_back(c);
    }
}

// ---- printing -------------------------------------------------------------

void bench::print_filter(const filter_measurement& m) const
{
    std::string name =
        m.variant == "device" ? "device-resident"
        : m.variant == "fftw"
            ? "FFTW (CPU)"
            : "transfers 2^" + std::to_string(m.chunk_log2) +
                  (m.devices > 1 ? ", " + std::to_string(m.devices) + " devices"
                                 : std::string());
    std::cout << "  " << name
              << std::string(name.size() < 18 ? 18 - name.size() : 1, ' ');
    if (!m.ok()) {
        std::cout << m.status << ": " << m.note << std::endl;
        return;
    }
    std::cout << fmt("%.4f ms", m.time.median_ms) << fmt(" (min %.4f", m.time.min_ms)
              << (m.variant == "device" ? fmt(", b2b %.4f)", m.time.b2b_ms)
                                        : std::string(")"))
              << "  " << number(m.msps()) << " Msps, FFT " << m.fft_size << "\n";
    const std::string indent(20, ' ');
    std::cout << indent << m.check.text() << "\n"
              << indent
              << (std::isnan(m.setup_ms) ? "" : fmt("setup %.0f ms: ", m.setup_ms))
              << m.note << std::endl;
}

void bench::print_conv(const conv_cell& c) const
{
    std::cout << "  " << c.label() << ":\n";
    std::cout << "    GPU  ";
    if (!c.gpu_ok())
        std::cout << c.gpu_status << ": " << c.gpu_note << "\n";
    else
        std::cout << (c.gpu_estimated ? "~" : "") << fmt("%.4f ms per set", c.gpu_ms())
                  << fmt(" (min %.4f)", c.gpu.min_ms) << "  " << number(c.gpu_gbs())
                  << " GB/s  " << number(c.points_per_ns()) << " Gpoints/s out, "
                  << c.calls << " call" << (c.calls > 1 ? "s" : "")
                  << " of <= " << c.per_call << " pairs, "
                  << (c.gpu_estimated ? std::string("estimated")
                                      : std::to_string(c.gpu_sets) + " sets")
                  << "\n         " << c.gpu_check.text()
                  << (std::isnan(c.setup_ms) ? std::string()
                                             : fmt("; setup %.0f ms", c.setup_ms))
                  << "\n         " << c.describe
                  << (c.gpu_note.empty() ? "" : "\n         " + c.gpu_note) << "\n";
    if (c.cpu_status != "skipped") {
        std::cout << "    FFTW ";
        if (!c.cpu_ok())
            std::cout << c.cpu_status << ": " << c.cpu_note << "\n";
        else
            std::cout << (c.cpu_scaled() ? "~" : "") << fmt("%.4f ms per set", c.cpu_ms())
                      << "  " << number(c.cpu_gbs()) << " GB/s  " << c.cpu_note
                      << "\n         " << c.cpu_check.text() << "\n";
    }
    std::cout << std::flush;
}

const filter_measurement* bench::find(size_t row,
                                      const std::string& variant,
                                      size_t chunk_log2,
                                      size_t devices) const
{
    for (const auto& m : d_filter)
        if (m.row == row && m.variant == variant && m.chunk_log2 == chunk_log2 &&
            m.devices == devices)
            return &m;
    return nullptr;
}

// Input Msps the bus allows with uploads and downloads overlapped.
double bench::pcie_limit_msps(size_t D) const
{
    return pcie_limit(d_pcie, 8.0 / double(D)) / 1e6;
}

void bench::print_filter_table() const
{
    const double ceiling = copy_ceiling_gbs(d_copies);
    std::cout << "\nFIR filter (core::fft_filter) on " << d_ctx->info().name
              << ": input Msamples/s; device-resident 2^" << d_opt.samples_log2
              << " samples per call, device time, median of " << d_opt.reps
              << ".\nGB/s counts 8 + 8/D B per input sample; %copy: of "
                 "clEnqueueCopyBuffer's "
              << (ceiling > 0 ? fmt("%.0f GB/s", ceiling)
                              : std::string("(not measured)"));
    if (d_opt.transfers)
        std::cout << ".\nWith transfers (stream_pipeline, depth " << d_opt.depth
                  << (d_opt.copy_out ? "" : ", outputs not copied out")
                  << "): columns 2^C = samples per chunk, host time of 2^"
                  << d_opt.stream_log2 << " samples; lim = pinned PCIe limit ("
                  << fmt("h2d %.1f", pcie_gbs(d_pcie, "h2d"))
                  << fmt(", d2h %.1f", pcie_gbs(d_pcie, "d2h"))
                  << fmt(", both %.1f GB/s", pcie_gbs(d_pcie, "both")) << ")";
    if (d_opt.fftw)
        std::cout << ".\nFFTW: overlap-save on the CPU (" << fftw_text()
                  << "); x = GPU / FFTW Msps, dev: device-resident, xfer: the faster "
                     "transfer column";
    std::cout << ".\nerr: the largest relative L2 error of the row's checks against "
                 "float64, ! = check failed\n";

    std::string head0 = pad("", 17) + " |",
                head1 = pad("taps", 6) + pad("D", 3) + pad("FFT", 8) + " |";
    const std::string title = " GPU device-resident";
    head0 += title + std::string(31 - title.size(), ' ') + "|";
    head1 += pad("ms", 8) + pad("Msps", 9) + pad("GB/s", 7) + pad("%copy", 6) + " |";
    if (d_opt.transfers) {
        const size_t width = 8 * (d_opt.chunk_log2.size() + 1) + 1;
        const std::string t = width > 21 ? " with transfers, Msps" : " transfers";
        head0 += t + std::string(width > t.size() ? width - t.size() : 1, ' ') + "|";
        for (size_t c : d_opt.chunk_log2)
            head1 += pad("2^" + std::to_string(c), 8);
        head1 += pad("lim", 8) + " |";
    }
    if (d_opt.fftw) {
        const std::string t = " FFTW (CPU)";
        head0 += t + std::string(32 - t.size(), ' ') + "|";
        head1 += pad("FFT", 8) + pad("Msps", 8) + pad("x dev", 8) + pad("xfer", 7) + " |";
    }
    head1 += pad("err", 9);
    std::cout << head0 << "\n" << head1 << "\n" << std::string(head1.size(), '-') << "\n";

    for (size_t i = 0; i < d_rows.size(); ++i) {
        const filter_row& row = d_rows[i];
        const filter_measurement* e = find(i, "device");
        double worst = 0; // the largest error of the row's checks
        bool passed = true, any = false;
        auto account = [&](const filter_measurement* m) {
            if (!m || !m->ok())
                return;
            any = true;
            passed &= m->passed();
            const double r = m->check.rel_err();
            worst = std::isnan(r) || std::isnan(worst) ? nan_value : std::max(worst, r);
        };
        std::string line = pad(std::to_string(row.T), 6) + pad(std::to_string(row.D), 3) +
                           pad(e && e->fft_size ? std::to_string(e->fft_size) : "-", 8) +
                           " |";
        if (e && e->ok()) {
            const double gbs = e->msps() * 1e-3 * (8 + 8.0 / double(row.D));
            line += pad(number(e->time.median_ms), 8) + pad(number(e->msps()), 9) +
                    pad(number(gbs), 7) +
                    pad(ceiling > 0 ? fmt("%.0f", 100 * gbs / ceiling) : "-", 6) + " |";
        } else {
            line += pad(e ? e->status : "", 30) + " |";
        }
        account(e);
        double best_transfer = 0;
        if (d_opt.transfers) {
            for (size_t c : d_opt.chunk_log2) {
                const filter_measurement* t = find(i, "transfers", c);
                line += pad(t && t->ok() ? number(t->msps()) : t ? t->status : "", 8);
                if (t && t->ok())
                    best_transfer = std::max(best_transfer, t->msps());
                account(t);
            }
            line += pad(number(pcie_limit_msps(row.D)), 8) + " |";
        }
        if (d_opt.fftw) {
            const filter_measurement* f = find(i, "fftw");
            if (f && f->ok()) {
                line +=
                    pad(std::to_string(f->fft_size), 8) + pad(number(f->msps()), 8) +
                    pad(e && e->ok() ? ratio_text(e->msps() / f->msps()) : "-", 8) +
                    pad(best_transfer > 0 ? ratio_text(best_transfer / f->msps()) : "-",
                        7) +
                    " |";
            } else {
                line += pad(f ? f->status : "", 31) + " |";
            }
            account(f);
        }
        line += pad(any ? fmt("%.1e", worst) + (passed ? " " : "!") : "-", 9);
        std::cout << line << "\n";
    }
    for (const auto& m : d_filter)
        if (m.status == "failed")
            std::cout << "  " << d_rows[m.row].describe() << " " << m.variant
                      << (m.variant == "transfers" ? " 2^" + std::to_string(m.chunk_log2)
                                                   : "")
                      << (m.devices > 1 ? " on " + std::to_string(m.devices) + " devices"
                                        : "")
                      << ": " << m.status << ": " << m.note << "\n";
    std::cout << std::flush;
}

void bench::print_device_scaling() const
{
    std::vector<scaling_line> lines;
    for (size_t i = 0; i < d_rows.size(); ++i)
        for (size_t c : d_opt.chunk_log2) {
            scaling_line line{ d_rows[i].describe() + ", 2^" + std::to_string(c), {} };
            for (size_t n = 1; n <= d_devices.size(); ++n) {
                const filter_measurement* t = find(i, "transfers", c, n);
                line.rates.push_back(t && t->ok() ? t->msps() : nan_value);
            }
            lines.push_back(line);
        }
    print_scaling("FIR filter with transfers over several devices "
                  "(core::multi_device_pipeline, depth " +
                      std::to_string(d_opt.depth) +
                      " per device): input Msamples/s with the first 1, 2, ... "
                      "devices, chunks of 2^C samples",
                  d_devices,
                  lines);
}

void bench::print_conv_table() const
{
    std::cout << "\nBatched convolution (core::batched_convolution) on "
              << d_ctx->info().name
              << ": ms per set of M x J pairs, L = S = N, 2N - 1 points out; GPU: "
                 "device time, inputs on the device; GB/s: inputs + outputs once";
    if (d_opt.fftw)
        std::cout << ";\nFFTW: " << fftw_text() << "; x = FFTW ms / GPU ms";
    std::cout
        << ".\n~ = estimated (GPU: from calls, a set exceeding --conv-budget; FFTW: "
           "a subset of the pairs, scaled); ! = a check failed\n";
    const size_t cw = d_opt.fftw ? 36 : 20;
    std::string head0 = pad("", 6) + " |", head1 = pad("N", 6) + " |";
    for (const auto& s : d_opt.pairs) {
        std::string t = " " + s.text() + " (" + std::to_string(s.pairs()) + " pairs)";
        head0 += t + std::string(cw + 1 > t.size() ? cw + 1 - t.size() : 1, ' ') + "|";
        head1 += pad("GPU ms", 11) + pad("GB/s", 8);
        if (d_opt.fftw)
            head1 += pad("FFTW ms", 11) + pad("x", 6);
        head1 += " |";
    }
    std::cout << head0 << "\n" << head1 << "\n" << std::string(head1.size(), '-') << "\n";
    for (size_t N : d_opt.conv_sizes) {
        std::string line = pad(std::to_string(N), 6) + " |";
        for (const auto& s : d_opt.pairs) {
            const conv_cell* c = nullptr;
            for (const auto& cell : d_cells)
                if (cell.N == N && cell.shape.M == s.M && cell.shape.J == s.J)
                    c = &cell;
            std::string cell_text;
            if (!c) {
                cell_text = pad("", cw);
            } else {
                const std::string bad = c->passed() ? "" : "!";
                if (c->gpu_ok())
                    cell_text += pad((c->gpu_estimated ? "~" : "") + number(c->gpu_ms()) +
                                         (c->gpu_check.passed() ? "" : "!"),
                                     11) +
                                 pad(number(c->gpu_gbs()), 8);
                else
                    cell_text += pad(c->gpu_status, 19);
                if (d_opt.fftw) {
                    if (c->cpu_ok())
                        cell_text +=
                            pad((c->cpu_scaled() ? "~" : "") + number(c->cpu_ms()) +
                                    (c->cpu_check.passed() ? "" : "!"),
                                11) +
                            pad(c->gpu_ok() ? ratio_text(c->cpu_ms() / c->gpu_ms())
                                            : std::string("-"),
                                6);
                    else
                        cell_text += pad(c->cpu_status, 17);
                }
            }
            line += cell_text + " |";
        }
        std::cout << line << "\n";
    }
    for (const auto& c : d_cells) {
        if (c.gpu_status == "failed")
            std::cout << "  " << c.label() << " GPU: failed: " << c.gpu_note << "\n";
        if (c.cpu_status == "failed")
            std::cout << "  " << c.label() << " FFTW: failed: " << c.cpu_note << "\n";
    }
    std::cout << std::flush;
}

void bench::write_csv()
{
    d_csv.header({ "table",
                   "taps",
                   "D",
                   "M",
                   "J",
                   "pairs",
                   "N",
                   "fft_size",
                   "variant",
                   "chunk",
                   "devices",
                   "pairs_per_call",
                   "pairs_timed",
                   "samples",
                   "calls",
                   "status",
                   "estimated",
                   "median_ms",
                   "min_ms",
                   "max_ms",
                   "b2b_ms",
                   "Msps",
                   "Msps_b2b",
                   "GBs",
                   "pct_copy",
                   "pcie_limit_Msps",
                   "Gpoints_per_s",
                   "speedup",
                   "rel_err",
                   "points_checked",
                   "nonfinite",
                   "setup_ms",
                   "note" });
    for (const auto& c : d_copies) {
        csv_file::fields fields = {
            { "table", "copy" },
            { "variant", "clEnqueueCopyBuffer " + c.when },
            { "samples", std::to_string(c.bytes / sizeof(cfloat)) },
            { "status", c.status },
            { "GBs", csv_file::number(c.status == "ok" ? c.gbs() : NAN) },
            { "note", c.note }
        };
        csv_file::add_timing(fields, c.time);
        d_csv.row(fields);
    }
    for (const auto& p : d_pcie) {
        csv_file::fields fields = {
            { "table", "pcie" },
            { "variant", p.direction },
            { "samples", std::to_string(p.bytes / sizeof(cfloat)) },
            { "status", p.status },
            { "GBs", csv_file::number(p.status == "ok" ? p.gbs() : NAN) },
            { "note", p.note }
        };
        csv_file::add_timing(fields, p.time);
        d_csv.row(fields);
    }
    const double ceiling = copy_ceiling_gbs(d_copies);
    for (const auto& m : d_filter) {
        const filter_row& r = d_rows[m.row];
        csv_file::fields fields = { { "table", "filter" },
                                    { "taps", std::to_string(r.T) },
                                    { "D", std::to_string(r.D) },
                                    { "variant", m.variant },
                                    { "status", m.status },
                                    { "setup_ms", csv_file::number(m.setup_ms) },
                                    { "note", m.note } };
        if (m.variant == "transfers") {
            fields["chunk"] = std::to_string(size_t(1) << m.chunk_log2);
            fields["devices"] = std::to_string(m.devices);
        }
        if (m.fft_size)
            fields["fft_size"] = std::to_string(m.fft_size);
        if (m.ok()) {
            fields["samples"] = std::to_string(m.samples);
            fields["calls"] = std::to_string(m.calls);
            csv_file::add_timing(fields, m.time);
            fields["Msps"] = csv_file::number(m.msps());
            if (m.variant == "device") {
                const double gbs = m.msps() * 1e-3 * (8 + 8.0 / double(r.D));
                fields["Msps_b2b"] = csv_file::number(m.msps_b2b());
                fields["GBs"] = csv_file::number(gbs);
                if (ceiling > 0)
                    fields["pct_copy"] = csv_file::number(100 * gbs / ceiling);
            }
            if (m.variant == "transfers")
                fields["pcie_limit_Msps"] = csv_file::number(pcie_limit_msps(r.D));
            if (m.variant != "fftw") {
                const filter_measurement* c = find(m.row, "fftw");
                if (c && c->ok())
                    fields["speedup"] = csv_file::number(m.msps() / c->msps());
            }
            csv_file::add_check(fields, m.check);
        }
        d_csv.row(fields);
    }
    for (const auto& c : d_cells) {
        csv_file::fields base = {
            { "table", "conv" },
            { "M", std::to_string(c.shape.M) },
            { "J", std::to_string(c.shape.J) },
            { "pairs", std::to_string(c.pairs()) },
            { "N", std::to_string(c.N) },
        };
        if (c.fft_size)
            base["fft_size"] = std::to_string(c.fft_size);
        csv_file::fields g = base;
        g["variant"] = "gpu";
        g["status"] = c.gpu_status;
        g["note"] = c.gpu_note;
        if (c.gpu_ok()) {
            g["pairs_per_call"] = std::to_string(c.per_call);
            g["pairs_timed"] =
                c.gpu_estimated ? std::to_string(c.per_call) : std::to_string(c.pairs());
            g["calls"] = std::to_string(c.calls);
            g["estimated"] = std::to_string(int(c.gpu_estimated));
            csv_file::add_timing(g, c.gpu);
            g["GBs"] = csv_file::number(c.gpu_gbs());
            g["Gpoints_per_s"] = csv_file::number(c.points_per_ns());
            g["setup_ms"] = csv_file::number(c.setup_ms);
            if (c.cpu_ok())
                g["speedup"] = csv_file::number(c.cpu_ms() / c.gpu_ms());
            csv_file::add_check(g, c.gpu_check);
            if (g["note"].empty())
                g["note"] = c.describe;
        }
        d_csv.row(g);
        if (c.cpu_status == "skipped")
            continue;
        csv_file::fields h = base;
        h["variant"] = "fftw";
        h["status"] = c.cpu_status;
        h["note"] = c.cpu_note;
        if (c.cpu_ok()) {
            const double scale = double(c.pairs()) / double(c.cpu_pairs);
            h["pairs_timed"] = std::to_string(c.cpu_pairs);
            h["estimated"] = std::to_string(int(c.cpu_scaled()));
            timing t = c.cpu;
            t.median_ms *= scale;
            t.min_ms *= scale;
            t.max_ms *= scale;
            csv_file::add_timing(h, t);
            h["GBs"] = csv_file::number(c.cpu_gbs());
            h["Gpoints_per_s"] = csv_file::number(
                double(c.pairs()) * double(c.out_length()) / c.cpu_ms() / 1e6);
            csv_file::add_check(h, c.cpu_check);
        }
        d_csv.row(h);
    }
    d_csv.finish();
}

int bench::run()
{
    print_header();
    warm_up_device(*d_ctx,
                   d_timer,
                   std::min<size_t>(d_opt.samples() * sizeof(cfloat),
                                    d_ctx->info().max_alloc_bytes / 2));
    measure_copies("start");
    if (d_opt.filter && d_opt.transfers) {
        // The largest transfer chunk, one direction at a time, then both at once.
        const size_t chunk_log2 =
            *std::max_element(d_opt.chunk_log2.begin(), d_opt.chunk_log2.end());
        d_pcie = measure_pcie(d_ctx,
                              (size_t(1) << chunk_log2) * sizeof(cfloat),
                              std::max<size_t>(4,
                                               (size_t(1) << d_opt.stream_log2) >>
                                                   std::min<size_t>(chunk_log2, 63)),
                              d_opt.transfer_reps);
    }
    d_progress = progress(d_rows.size() + (d_opt.conv ? d_opt.conv_sizes.size() : 0));
    for (size_t i = 0; i < d_rows.size(); ++i) {
        if (over_time()) {
            filter_measurement m;
            m.row = i;
            m.variant = "device";
            m.status = "not run";
            m.note = "--time-limit reached";
            d_filter.push_back(m);
            ++d_rows_not_run;
            continue;
        }
        measure_filter_row(i);
    }
    if (d_opt.conv)
        for (size_t N : d_opt.conv_sizes)
            measure_conv_size(N);
    if (d_rows_not_run || d_cells_not_run)
        std::cout << "\n--time-limit " << fmt("%g", d_opt.time_limit)
                  << " s reached: " << d_rows_not_run << " FIR rows and "
                  << d_cells_not_run << " batched cells not run" << std::endl;
    std::cout << "\n";
    measure_copies("end");
    if (d_csv.enabled())
        write_csv();
    if (d_opt.filter)
        print_filter_table();
    if (d_opt.filter && d_opt.transfers && d_devices.size() > 1)
        print_device_scaling();
    if (d_opt.conv)
        print_conv_table();

    bool failed = false, check_failed = false;
    for (const auto& m : d_filter) {
        failed |= m.status == "failed";
        check_failed |= !m.passed();
    }
    for (const auto& c : d_cells) {
        failed |= c.gpu_status == "failed" || c.cpu_status == "failed";
        check_failed |= !c.passed();
    }
    std::cout << "total " << fmt("%.0f s", ms_since(d_start) / 1e3) << std::endl;
    if (check_failed) {
        std::cout << "CHECK FAILED: an output was wrong (marked ! above)" << std::endl;
        return 3;
    }
    if (failed)
        return 1;
    if (d_rows_not_run || d_cells_not_run) {
        std::cout << "INCOMPLETE: " << d_rows_not_run << " FIR rows and "
                  << d_cells_not_run << " batched cells not run (--time-limit)"
                  << std::endl;
        return 4;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    return bench_main<bench>(program_name, argc, argv, parse_command_line, print_help);
}
