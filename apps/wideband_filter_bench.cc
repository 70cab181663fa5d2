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
 * batched-convolution study, each beside an FFTW implementation on the CPU
 * (bench/cpu_peers.h) in the same run; and of the channel bank
 * (core::channel_bank, issue 18) device-resident beside the filter engine at
 * the bank's FFT length. The help text (about) states the method.
 */

#include "bench/cpu_peers.h"
#include "reference.h"

#include <gnuradio/wideband/core/arb_resampler.h>
#include <gnuradio/wideband/core/batched_convolution.h>
#include <gnuradio/wideband/core/channel_bank.h>
#include <gnuradio/wideband/core/fft_filter.h>
#include <gnuradio/wideband/core/stream_config.h>

#include <deque>
#include <iostream>
#include <numeric>

using namespace cpu_peers;

namespace {

const char* const program_name = "wideband_filter_bench";
constexpr double max_rel_err = 1e-4;
constexpr size_t input_ring = 4; // host input chunks with transfers, cycled
// Sample indices of the batched convolution's filters (signals start at 0).
constexpr uint64_t filter_base = uint64_t(1) << 40;
// Host memory for the pairs FFTW times at once (inputs and outputs).
constexpr size_t cpu_pairs_bytes = size_t(1) << 30;
// FFT points per CPU thread below which fewer threads are used.
constexpr size_t cpu_points_per_thread = 16384;
#ifdef WIDEBAND_HAVE_FFTW
constexpr bool have_fftw = true;
#else
constexpr bool have_fftw = false;
#endif

// ---- command line -------------------------------------------------------

struct pair_shape {
    size_t M = 0, J = 0;
    size_t pairs() const { return M * J; }
    std::string text() const { return std::to_string(M) + "x" + std::to_string(J); }
};
std::ostream& operator<<(std::ostream& out, const pair_shape& s)
{
    return out << s.text();
}

struct bench_options : common_options {
    std::vector<size_t> taps = { 64, 256, 1024, 8192, 65536 };
    std::vector<size_t> decimations = { 1 };
    std::vector<size_t> fft_sizes; // more FIR rows with these FFT lengths
    size_t samples_log2 = 26;
    std::vector<size_t> chunk_log2 = { 19, 22 };
    size_t stream_log2 = 26;
    size_t depth = 0; // 0: the blocks' (core::stream_config)
    int reps = 15;
    int warmup = 3;
    int transfer_reps = 3;
    std::vector<pair_shape> pairs = { { 10, 10 }, { 50, 50 }, { 200, 200 } };
    std::vector<size_t> conv_sizes = { 32,   64,   128,  256,   512,   1024,
                                       2048, 4096, 8192, 16384, 32768, 65536 };
    double conv_budget = 2;
    double conv_memory_mib = 0; // 0: 40% of the device's global memory
    size_t cpu_threads = std::max(1u, std::thread::hardware_concurrency());
    size_t cpu_log2 = 22;
    int cpu_reps = 3;
    double cpu_budget = 0.5;
    double fftw_plan_seconds = 0.5;
    bool fftw_same_size = false;
    bank_plans banks; // the --bank-* options
    std::vector<size_t> arb_taps_per_filter = { 8, 16 };
    time_limit limit;
    bool filter = true, conv = true, bank = true, transfers = true, fftw = have_fftw;
    bool arb = true;
    bool real = false;    // also the real filter's rows
    bool copy_out = true; // with transfers: copy each chunk's output off the pipeline

    size_t samples() const { return size_t(1) << samples_log2; }
};

// The transfers stream with the blocks' chunks in flight unless --depth
// (core::stream_config; the chunk sizes are the measured variable here).
bench_options with_the_blocks_depth(bench_options o, const core::device_info& device)
{
    if (o.depth == 0)
        o.depth = core::stream_config::for_device(device).pipeline_depth;
    return o;
}

void declare_options(bench_options& o, option_table& t)
{
    auto pairs = [&o](const std::string& arg, const std::string& v) {
        o.pairs.clear();
        for (const auto& item : split(arg, v)) {
            const size_t x = item.find_first_of("xX");
            if (x == std::string::npos)
                throw usage_error(arg + ": '" + item + "' is not MxJ");
            o.pairs.push_back({ parse_count(arg, item.substr(0, x), 1, 1 << 16),
                                parse_count(arg, item.substr(x + 1), 1, 1 << 16) });
        }
    };
    auto sizes = [&o](const std::string& arg, const std::string& v) {
        o.conv_sizes.clear();
        for (const auto& item : split(arg, v)) {
            const size_t dots = item.find("..");
            const size_t a = parse_count(arg, item.substr(0, dots), 1, 1 << 24);
            const size_t b = dots == std::string::npos
                                 ? a
                                 : parse_count(arg, item.substr(dots + 2), a, 1 << 24);
            for (size_t n = a; n <= b; n *= 2)
                o.conv_sizes.push_back(n);
        }
    };
    auto fft = [&o](const std::string& arg, const std::string& v) {
        if (v != "auto" && v != "same")
            throw usage_error(arg + ": '" + v + "' is neither auto nor same");
        o.fftw_same_size = v == "same";
    };
    t.add({
        { { "--taps", "LIST", &o.taps, 1, 1 << 22 }, "FIR taps T, comma-separated" },
        { { "--decimation", "LIST", &o.decimations, 1, 1 << 20 }, "FIR decimation D" },
        { { "--fft-sizes", "LIST", &o.fft_sizes, 2, 1 << 24 },
          "also FIR rows with these FFT lengths (fft_filter_options::fft_size), where "
          "they hold T + D - 1 points [none]" },
        { { "--samples-log2", "S", &o.samples_log2, 4, 31 },
          "input samples per device-resident call, 2^S" },
        { { "--chunk-log2", "LIST", &o.chunk_log2, 4, 28 },
          "samples per chunk with transfers, 2^C" },
        { { "--stream-log2", "Q", &o.stream_log2, 4, 34 },
          "samples per timed transfer sequence, 2^Q" },
        { { "--depth", "N", &o.depth, 1, 64 },
          "stream_pipeline depth: chunks in flight [the blocks': 2]" },
        { { "--reps", "R", &o.reps, 1 }, "timed device-resident calls, median" },
        { { "--warmup", "W", &o.warmup, 0 }, "untimed calls first" },
        { { "--transfer-reps", "T", &o.transfer_reps, 1 },
          "timed transfer sequences, median" },
        { { "--pairs", "LIST", pairs },
          "batched convolution M x J [10x10,50x50,200x200]" },
        { { "--conv-sizes", "LIST", sizes },
          "N = L = S; A..B stands for the powers of two from A to B [32..65536]" },
        { { "--conv-budget", "SEC", &o.conv_budget, 0 },
          "GPU seconds for the timed sets of one cell; a longer set is estimated from "
          "calls" },
        { { "--conv-memory", "MIB", &o.conv_memory_mib, 0 },
          "device memory for one call's buffers; 0: 40% of the device's global memory" },
        { { "--cpu-threads", "N", &o.cpu_threads, 1, 4096 },
          "FFTW threads [all hardware threads: " + std::to_string(o.cpu_threads) + "]" },
        { { "--cpu-log2", "C", &o.cpu_log2, 4, 30 },
          "input samples per FFTW filter call, at least 2^C" },
        { { "--cpu-reps", "R", &o.cpu_reps, 1 }, "timed FFTW runs, median" },
        { { "--cpu-budget", "SEC", &o.cpu_budget, 0 },
          "FFTW seconds per row or cell; beyond, fewer runs, and in the batched grid a "
          "subset of the pairs, scaled" },
        { { "--fftw-plan-seconds", "S", &o.fftw_plan_seconds, 0 },
          "FFTW_MEASURE planning limit per plan; 0: FFTW_ESTIMATE" },
        { { "--fftw-fft", "auto|same", fft, "auto" },
          "FIR FFT size on the CPU: FFTW's best power of two, or the GPU engine's" },
    });
    o.banks.declare(t);
    t.add({
        { { "--arb-taps-per-filter", "LIST", &o.arb_taps_per_filter, 1, 4096 },
          "arbitrary resampler: taps per filter (32 filters)" },
    });
    t.add({
        o.limit.option("row, cell or bank plan"),
        { { "--no-filter", &o.filter, false }, "skip the FIR filter rows" },
        { { "--fff", &o.real, true },
          "also FIR rows of real input and output (fft_filter_fff's engine), "
          "device-resident" },
        { { "--no-conv", &o.conv, false }, "skip the batched convolution grid" },
        { { "--no-bank", &o.bank, false }, "skip the channel bank" },
        { { "--no-arb", &o.arb, false }, "skip the arbitrary resampler" },
        { { "--no-transfers", &o.transfers, false }, "skip the FIR rows with transfers" },
        { { "--no-copy-out", &o.copy_out, false },
          "with transfers, read the outputs in the pipeline's pinned buffers instead of "
          "copying them out (as a consumer that works in place would)" },
        { { "--no-fftw", &o.fftw, false }, "skip FFTW (the CPU columns)" },
    });
}

const char* const about =
    R"(Throughput of gr-wideband's FIR filter engine (core::fft_filter: overlap-save
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
          CSV). GB/s counts 8 B in + 8/D B out per input sample (--fff rows,
          real in and out: 4 + 4/D, the real stream being the complex
          one's floats in turn); %copy compares
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
          Msamples/s by device count; again from pinned memory (DMA only,
          outputs read in place), in another; and device-resident on the
          first 1..N devices at once (one engine each, the same 2^S-sample
          calls, host time per round; each engine checked as the
          device-resident row's), in a third. lim: the PCIe limit from
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

Arbitrary resampler (core::arb_resampler, gnuradio.filter.pfb_arb_resampler_ccf):
rates 0.6144, 1/3.7 and 2.5, 32 filters of --arb-taps-per-filter taps each,
device-resident calls of the channel bank's sample count on the test stream,
device time (the kernel, the schedule's upload and the window's carry-over);
in and out Gsps; GB/s counts 8 B per input and 8 B per output (the byte floor),
%copy of clEnqueueCopyBuffer's rate. host ns/out: the host's replay of the
phase recurrence per output (run() before it enqueues, apart from the device
time), which bounds a stream at 1/that outputs per second. Checked: the first
call's outputs from zero history against the in-tree loops in float64.

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

Channel bank (core::channel_bank, issue 18: freq_xlating_fir_filter_ccc
channels by one shared forward FFT; the block channel_bank_ccc), one row per
plan (--bank-*): C channels at random centres in +-fs/2, decimation D, T taps
each (a Kaiser-windowed sinc, beta 16, cut-off 0.4/D: its stopband lies below
the bank's omitted response, so that each channel computes a narrow window of
bins), and a mixed plan whose decimations are drawn from A..B. Device-resident
as the FIR rows, with calls of 2^S samples or the blocks' chunk
(core::stream_config: 2^24 or 2^25 on GPUs), the smaller; Gsps = input samples per
second. Beside it, in the same run, core::fft_filter (T taps, decimation 1) at
the bank's forward FFT length (fft_filter_options::fft_size) and the same
samples per call; x fft = bank / fft_filter. bins: the window bins per channel
(smallest..largest), B: the inverse FFT lengths (0: outputs summed over the
window directly).

Checks: outputs are NaN-filled before they are computed. FIR: three calls from
zero history (2^S samples, a shorter call, 2^S again): every output finite, the
output count right, sampled outputs (the start, block edges, spread over the
call) against the direct sum in float64; with transfers the sampled outputs of
the last 3 chunks; FFTW likewise. Batched: every output point of 3 pairs (first,
middle, last of a call) finite, sampled points against the direct sum in
float64. Channel bank: three calls from zero history (as the FIR rows), every
channel's output count each call, every output finite, every output of a few
channels (first, middle, last, smallest and largest D) against GNU Radio's
freq_xlating_fir_filter_ccc in float64 (wideband_reference::freq_xlating).
err = relative L2 error over the sampled points; above 1e-4 fails.
)";

const std::string examples =
    R"(  wideband_filter_bench                          the issue's grid on the GPU
  wideband_filter_bench --no-conv --taps 1024 --decimation 1,4
  wideband_filter_bench --no-filter --pairs 50x50 --conv-sizes 1024..65536
  wideband_filter_bench --device cpu --samples-log2 14 --chunk-log2 12
      --stream-log2 14 --taps 16,100 --pairs 2x3 --conv-sizes 32,100 --reps 2
  wideband_filter_bench --time-limit 240 --csv filter.csv
  wideband_filter_bench --no-filter --no-conv    the channel bank (issue 18)
  wideband_filter_bench --device cpu --no-filter --no-conv --samples-log2 15
      --bank-channels 3,20 --bank-decimation 64 --bank-taps 256 --bank-mixed 5
      --bank-mixed-decimations 16..300 --reps 2
  wideband_filter_bench --device gpu:all --no-conv --no-fftw --taps 64,1024
)" + std::string(have_fftw ? "" : "(built without FFTW: no CPU columns)\n");

const bench_help help = { program_name,
                          about,
                          examples,
                          "err above 1e-4, non-finite values or a wrong output count" };

// ---- taps and the float64 references -------------------------------------------

using wideband_reference::sample_fn;

// Output m of the filter in float64 (lib/core/tests/reference).
std::complex<double>
filter_reference(const sample_fn& x, const std::vector<cfloat>& h, size_t D, uint64_t m)
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

// ---- rows and results ------------------------------------------------------

struct filter_row {
    size_t T = 0, D = 1;
    size_t fft_size = 0; // 0: the engine's choice
    bool real = false;   // real in, real out (fft_filter_fff's engine)
    std::string describe() const
    {
        return std::string(real ? "real, " : "") + std::to_string(T) +
               " taps, decimation " + std::to_string(D);
    }
    double sample_bytes() const { return real ? 4 : 8; }
    double bytes_per_sample() const { return sample_bytes() * (1 + 1.0 / double(D)); }
    // Blackman-windowed sinc of T taps, cut-off 0.4/D cycles per sample, DC gain 1.
    std::vector<cfloat> taps() const
    {
        const std::vector<double> h = windowed_sinc(T, 0.4 / double(D));
        return std::vector<cfloat>(h.begin(), h.end());
    }
    core::fft_filter_options options(size_t max_input) const
    {
        core::fft_filter_options o;
        o.taps = taps();
        o.decimation = D;
        o.fft_size = fft_size;
        o.max_input_samples = max_input;
        if (real) {
            o.input_format = core::sample_format::f32;
            o.real_output = true;
        }
        return o;
    }
};

struct filter_measurement : measurement {
    filter_measurement(size_t row_index,
                       const std::string& what,
                       size_t chunk = 0,
                       size_t device_count = 1)
        : row(row_index), variant(what), chunk_log2(chunk), devices(device_count)
    {
        check = check_stats(max_rel_err);
    }
    size_t row;
    std::string variant; // device, resident, transfers, fftw
    size_t chunk_log2;   // transfers
    size_t devices;      // resident, transfers: over this many
    size_t fft_size = 0;

    double msps() const { return per_second() / 1e6; }
};

// One cell of the batched convolution grid: the GPU's set of pairs and FFTW's.
struct conv_cell {
    pair_shape shape;
    size_t N = 0;
    size_t fft_size = 0;
    std::string describe;
    measurement gpu, cpu; // ms per set; cpu: for cpu_pairs pairs
    size_t per_call = 0;
    bool gpu_estimated = false;
    int gpu_sets = 0;                      // sets timed (0 when estimated)
    size_t cpu_pairs = 0, cpu_threads = 0; // pairs timed, threads used

    size_t pairs() const { return shape.pairs(); }
    size_t out_length() const { return 2 * N - 1; }
    bool cpu_scaled() const { return cpu_pairs < pairs(); }
    double gpu_ms() const { return gpu.time.median_ms; }
    // FFTW's time of the set, scaled from the pairs it timed.
    timing cpu_time() const
    {
        return cpu.time * (double(pairs()) / double(std::max<size_t>(cpu_pairs, 1)));
    }
    double cpu_ms() const { return cpu_time().median_ms; }
    double bytes() const { return 8.0 * double(pairs()) * double(2 * N + out_length()); }
    double gbs(double ms) const { return bytes() / (ms * 1e-3) / 1e9; }
    double gpoints(double ms) const // output Gpoints/s
    {
        return double(pairs()) * double(out_length()) / (ms * 1e-3) / 1e9;
    }
    std::string label() const
    {
        return shape.text() + " N=" + std::to_string(N) + " (" + std::to_string(pairs()) +
               " pairs)";
    }
};

// The smallest and largest of some counts, as "lo..hi" (or "n").
struct span {
    size_t lo = std::numeric_limits<size_t>::max(), hi = 0;
    void widen(size_t n)
    {
        lo = std::min(lo, n);
        hi = std::max(hi, n);
    }
    std::string text() const
    {
        return lo > hi    ? std::string() // none
               : lo == hi ? std::to_string(lo)
                          : std::to_string(lo) + ".." + std::to_string(hi);
    }
};

// A channel bank plan device-resident (the measurement), and core::fft_filter
// at its forward FFT length in the same run.
struct bank_result : measurement {
    explicit bank_result(bank_plan p) : plan(std::move(p))
    {
        check = check_stats(max_rel_err);
        filter.set_status("not run", "the bank did not run");
    }
    bank_plan plan;
    filter_measurement filter{ size_t(-1), "device" };
    size_t fft_size = 0;
    span bins, inverse; // window bins and inverse FFT lengths of the channels

    double gsps() const { return per_second() / 1e9; }
};

// The arbitrary resampler at one rate and taps per filter, device-resident.
struct arb_result : measurement {
    arb_result(float r, size_t t) : rate(r), taps_per_filter(t) {}
    float rate;
    size_t taps_per_filter;
    double outputs = 0;                    // per timed call, on average
    double host_ns_per_output = nan_value; // the host's recurrence

    double in_gsps() const { return per_second() / 1e9; }
    double out_gsps() const { return outputs / (time.median_ms * 1e-3) / 1e9; }
    double gbs() const
    {
        return 8.0 * (double(samples) + outputs) / (time.median_ms * 1e-3) / 1e9;
    }
};

// The rates of the arbitrary resampler rows: 100 to 61.44 Msps, 1/3.7, 2.5.
const float arb_rates[] = { 0.6144f, 1.0f / 3.7f, 2.5f };

// A speed-up in at most 5 characters.
std::string ratio_text(double x)
{
    return fmt(x >= 99.95 ? "%.0f" : x >= 1 ? "%.1f" : "%.2f", x);
}


// ---- the bench ----------------------------------------------------------

class bench : bench_base
{
public:
    bench(const bench_options& options, std::vector<core::device_context::sptr> devices)
        : bench_base(options, std::move(devices)),
          d_opt(with_the_blocks_depth(options, d_ctx->info())),
          d_pool(options.cpu_threads),
          d_start(clock_type::now())
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
                for (size_t D : d_opt.decimations) {
                    d_rows.push_back({ T, D });
                    for (size_t L : d_opt.fft_sizes)
                        if (L + 1 >= T + D)
                            d_rows.push_back({ T, D, L });
                    if (d_opt.real)
                        d_rows.push_back({ T, D, 0, true });
                }
    }

    int run()
    {
        print_header();
        warm_up_device(*d_ctx, d_timer, copy_bytes());
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
        const std::vector<bank_plan> plans =
            d_opt.bank ? d_opt.banks.plans() : std::vector<bank_plan>();
        const size_t arb_rows =
            d_opt.arb ? std::size(arb_rates) * d_opt.arb_taps_per_filter.size() : 0;
        d_progress = progress(d_rows.size() + plans.size() + arb_rows +
                              (d_opt.conv ? d_opt.conv_sizes.size() : 0));
        for (size_t i = 0; i < d_rows.size(); ++i)
            measure_filter_row(i);
        for (const bank_plan& plan : plans)
            measure_bank_plan(plan);
        if (d_opt.arb)
            for (float rate : arb_rates)
                for (size_t T : d_opt.arb_taps_per_filter)
                    measure_arb(rate, T);
        if (d_opt.conv)
            for (size_t N : d_opt.conv_sizes)
                measure_conv_size(N);
        const std::string not_run =
            d_rows_not_run || d_cells_not_run || d_banks_not_run
                ? std::to_string(d_rows_not_run) + " FIR rows, " +
                      std::to_string(d_banks_not_run) + " bank plans and " +
                      std::to_string(d_cells_not_run) + " batched cells"
                : "";
        d_opt.limit.report(not_run);
        std::cout << "\n";
        measure_copies("end");
        if (d_csv.enabled())
            write_csv();
        if (d_opt.filter)
            print_filter_table();
        if (d_opt.filter && d_devices.size() > 1)
            print_device_scaling();
        if (!d_banks.empty())
            print_bank_table();
        if (!d_arbs.empty())
            print_arb_table();
        if (d_opt.conv)
            print_conv_table();

        std::vector<const measurement*> all;
        for (const auto& f : d_filter)
            all.push_back(&f);
        for (const auto& c : d_cells)
            all.insert(all.end(), { &c.gpu, &c.cpu });
        for (const auto& b : d_banks)
            all.insert(all.end(), { &b, &b.filter });
        for (const auto& a : d_arbs)
            all.push_back(&a);
        std::cout << "total " << fmt("%.0f s", ms_since(d_start) / 1e3) << std::endl;
        return verdict(all, not_run);
    }

private:
    std::string fftw_text() const
    {
#ifdef WIDEBAND_HAVE_FFTW
        return std::string(fftwf_version) + ", " + std::to_string(d_pool.size()) +
               " threads, " +
               (d_fftw_flags == FFTW_MEASURE
                    ? "FFTW_MEASURE (" + fmt("%g", d_opt.fftw_plan_seconds) +
                          " s per plan)"
                    : std::string("FFTW_ESTIMATE"));
#else
        return "not built with FFTW";
#endif
    }

    void print_header() const
    {
        print_device_header(program_name, d_ctx->info());
        if (d_opt.filter) {
            std::cout << "# FIR device-resident: 2^" << d_opt.samples_log2
                      << " input samples per call (" << size_text(d_opt.samples() * 8.0)
                      << "), " << d_opt.warmup << " warm-up calls, median of "
                      << d_opt.reps << ", device-side timing\n";
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
        if (d_opt.bank)
            std::cout << "# channel bank: " << bank_samples()
                      << " input samples per device-resident call, " << d_opt.warmup
                      << " warm-up calls, median of " << d_opt.reps
                      << ", device-side timing; fft_filter at the bank's FFT length\n";
        if (d_opt.conv)
            std::cout << "# batched convolution: pairs " << join(d_opt.pairs)
                      << ", N = " << join(d_opt.conv_sizes) << "; up to " << d_opt.reps
                      << " sets within " << fmt("%g", d_opt.conv_budget)
                      << " s per cell, " << size_text(device_memory_budget())
                      << " of buffers per call\n";
        std::cout << "# CPU: " << (d_opt.fftw ? fftw_text() : std::string("FFTW skipped"))
                  << "\n# check: float64 direct sums, err limit "
                  << fmt("%g", max_rel_err) << std::endl;
    }

    // ---- FIR filter ----------------------------------------------------------

    filter_measurement measure_filter_device(size_t index)
    {
        return measure_filter_device(d_rows[index], index, d_opt.samples());
    }

    // The engine for `row` device-resident, calls of `samples` samples; the
    // result of row `index` (of d_rows, or not when beyond).
    filter_measurement
    measure_filter_device(const filter_row& row, size_t index, size_t samples)
    {
        filter_measurement m(index, "device");
        attempt(m, [&] {
            const auto start = clock_type::now();
            core::fft_filter engine(d_ctx, row.options(samples));
            m.setup_ms = ms_since(start);
            m.fft_size = engine.fft_size();
            m.samples = engine.max_input_samples();
            m.note = engine.describe();
            const cl::Buffer out = output_buffer(engine.max_output_elements());
            m.check = check_engine(row, engine, d_compute, out);
            m.time = time_calls(
                engine,
                m.samples,
                d_opt.warmup,
                d_opt.reps,
                [&](const cl::CommandQueue& q, size_t n) { engine.enqueue(q, n, out); });
        });
        print_filter(m);
        return m;
    }

    /*
     * Three calls of `engine` on `queue` from zero history into `out`: every
     * output finite, sampled ones (block edges, spread over the call) against
     * the float64 sum.
     */
    check_stats check_engine(const filter_row& row,
                             core::fft_filter& engine,
                             const cl::CommandQueue& queue,
                             const cl::Buffer& out)
    {
        const size_t T = row.T, b = engine.block_step() / row.D;
        const std::vector<size_t> edges = { T - 2, T - 1, T,     b - 1,
                                            b,     b + 1, 2 * b, 3 * b - 1 };
        const sample_fn x = row.real ? sample_fn([](uint64_t n) {
            return cfloat(real_signal_sample(n), 0.0f);
        })
                                     : sample_fn(signal_sample);
        std::vector<cfloat> y;
        std::vector<float> real_y;
        return check_three_calls(
            queue,
            engine,
            row.D,
            out,
            "outputs",
            [&](size_t n) { return engine.enqueue(queue, n, out).outputs; },
            [&](check_stats& s, size_t got, uint64_t first) {
                y.resize(std::max<size_t>(got, 1));
                if (got && row.real) {
                    real_y.resize(got);
                    queue.enqueueReadBuffer(
                        out, CL_TRUE, 0, got * sizeof(float), real_y.data());
                    std::copy(real_y.begin(), real_y.end(), y.begin());
                } else if (got)
                    queue.enqueueReadBuffer(
                        out, CL_TRUE, 0, got * sizeof(cfloat), y.data());
                s.scan(y.data(), got);
                for (size_t i : sample_indices(got, edges, 16))
                    s.add(filter_reference(x, engine.taps(), row.D, first + i), y[i]);
            });
    }

    /*
     * The engine of `index` device-resident on the first n devices at once (one
     * each, the same calls on the same input), host wall time per round of
     * calls; then each engine checked against float64 as the "device" row's is.
     */
    filter_measurement measure_filter_resident_devices(size_t index, size_t n)
    {
        const filter_row& row = d_rows[index];
        filter_measurement m(index, "resident", 0, n);
        measure_together<core::fft_filter>(
            m,
            n,
            row.options(d_opt.samples()),
            d_opt.warmup,
            d_opt.reps,
            [&](const core::fft_filter& e) {
                m.fft_size = e.fft_size();
                return "calls";
            },
            [](core::fft_filter& e,
               const cl::CommandQueue& q,
               size_t count,
               const cl::Buffer& out) { e.enqueue(q, count, out); },
            [&](core::fft_filter& e, const cl::CommandQueue& q, const cl::Buffer& out) {
                return check_engine(row, e, q, out);
            });
        print_filter(m);
        return m;
    }

    // A device buffer of `elements` outputs (at least one).
    cl::Buffer output_buffer(size_t elements) const
    {
        const size_t bytes = std::max<size_t>(elements, 1) * sizeof(cfloat);
        if (bytes > d_ctx->info().max_alloc_bytes)
            throw std::runtime_error("the output of " + size_text(double(bytes)) +
                                     " exceeds the device's allocation limit: use a "
                                     "smaller --samples-log2");
        return cl::Buffer(d_ctx->context(), CL_MEM_READ_WRITE, bytes);
    }

    /*
     * The engine behind a core::stream_pipeline, as the blocks drive it: chunks of
     * 2^C samples from a ring of host chunks go in; each chunk's output, once on
     * the host, is copied out. Sampled outputs of the last chunks of the last
     * sequence are checked.
     */
    filter_measurement measure_filter_transfers(size_t index,
                                                size_t chunk_log2,
                                                size_t devices,
                                                bool pinned = false)
    {
        const filter_row& row = d_rows[index];
        const size_t chunk = size_t(1) << chunk_log2;
        const size_t calls =
            std::max<size_t>(4, (size_t(1) << d_opt.stream_log2) >> chunk_log2);
        filter_measurement m(
            index, pinned ? "transfers_pinned" : "transfers", chunk_log2, devices);
        const bool copy_out = d_opt.copy_out && !pinned;
        m.samples = chunk * calls;
        m.calls = calls;
        attempt(m, [&] {
            const auto start = clock_type::now();
            // One engine per device; with one, the pipeline is a plain stream_pipeline.
            const device_pipeline<core::fft_filter> p(
                d_devices, devices, row.options(chunk), d_opt.depth);
            const core::fft_filter& engine = p.front();
            m.setup_ms = ms_since(start);
            m.fft_size = engine.fft_size();
            m.note = std::to_string(calls) + " chunks of 2^" +
                     std::to_string(chunk_log2) + ", depth " +
                     std::to_string(d_opt.depth) +
                     (devices > 1 ? " per device, " + std::to_string(devices) + " devices"
                                  : std::string()) +
                     (pinned ? ", from pinned memory" : "") +
                     (copy_out ? ", outputs copied out" : ", outputs read in place");

            struct sample_record {
                uint64_t index;
                cfloat value;
            };
            std::deque<std::vector<sample_record>> records; // the last 3 chunks'
            uint64_t delivered = 0;                         // outputs
            auto take = [&](const cfloat* y, size_t n, int) {
                std::vector<sample_record> r;
                for (size_t i : sample_indices(n, {}, 3))
                    r.push_back({ delivered + i, y[i] });
                records.push_back(std::move(r));
                if (records.size() > 3)
                    records.pop_front();
                delivered += n;
            };
            m.time = stream_signal(
                p, input_ring, chunk, calls, d_opt.transfer_reps, pinned, copy_out, take);
            const uint64_t submitted =
                uint64_t(chunk) * calls * (d_opt.transfer_reps + 1);
            if (delivered != submitted / row.D)
                m.check.fail(std::to_string(delivered) + " outputs after " +
                             std::to_string(submitted) + " samples, expected " +
                             std::to_string(submitted / row.D));
            // The stream is the ring of chunks, repeating.
            auto stream = [&](uint64_t k) { return d_signal[k % (input_ring * chunk)]; };
            for (const auto& r : records)
                for (const auto& s : r)
                    m.check.add(filter_reference(stream, engine.taps(), row.D, s.index),
                                s.value);
        });
        print_filter(m);
        return m;
    }

    filter_measurement measure_filter_fftw(size_t index, size_t gpu_fft_size)
    {
        const filter_row& row = d_rows[index];
        filter_measurement m(index, "fftw");
#ifdef WIDEBAND_HAVE_FFTW
        try {
            const std::vector<cfloat> taps = row.taps();
            const size_t T = taps.size(), D = row.D;
            const size_t L = d_opt.fftw_same_size && gpu_fft_size
                                 ? gpu_fft_size
                                 : fftw_filter_size(T, D);
            const auto start = clock_type::now();
            fftw_filter filter(taps, D, L, d_pool.size(), d_fftw_flags);
            m.setup_ms = ms_since(start);
            m.fft_size = L;
            const size_t B = filter.step();
            const size_t blocks = std::max(
                { ((size_t(1) << d_opt.cpu_log2) + B - 1) / B, 2 * d_pool.size() });
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
            const sample_fn xs = signal_sample;
            const size_t per_block = B / D;
            for (size_t i : sample_indices(
                     outputs,
                     { T - 2, T - 1, T, per_block - 1, per_block, per_block + 1 },
                     16))
                m.check.add(filter_reference(xs, taps, D, i), y[i]);
            const int reps = reps_within(1e3 * d_opt.cpu_budget, first, d_opt.cpu_reps);
            m.time = time_runs(call, reps);
            m.calls = size_t(reps);
            m.note = "overlap-save, FFT " + std::to_string(L) + ", " +
                     std::to_string(blocks) + " blocks of " + std::to_string(B) +
                     " samples, " + std::to_string(std::min(blocks, d_pool.size())) +
                     " threads, median of " + std::to_string(reps);
        } catch (const std::exception&) {
            m.fail();
        }
#else
        (void)row;
        (void)gpu_fft_size;
        m.set_status("skipped", "not built with FFTW");
#endif
        print_filter(m);
        return m;
    }

    void measure_filter_row(size_t index)
    {
        const filter_row& row = d_rows[index];
        if (d_opt.limit.reached()) {
            d_filter.emplace_back(index, "device");
            d_filter.back().set_status("not run", d_opt.limit.note());
            ++d_rows_not_run;
            return;
        }
        std::cout << "\nFIR " << row.describe() << d_progress.step() << std::endl;
        d_filter.push_back(measure_filter_device(index));
        const size_t gpu_fft = d_filter.back().fft_size;
        if (row.real) // the transfers and FFTW stream complex samples
            return;
        if (d_devices.size() > 1)
            for (size_t n = 1; n <= d_devices.size(); ++n)
                d_filter.push_back(measure_filter_resident_devices(index, n));
        if (d_opt.transfers)
            for (size_t n = 1; n <= d_devices.size(); ++n)
                for (size_t c : d_opt.chunk_log2)
                    d_filter.push_back(measure_filter_transfers(index, c, n));
        if (d_opt.transfers && d_devices.size() > 1)
            for (size_t n = 1; n <= d_devices.size(); ++n)
                for (size_t c : d_opt.chunk_log2)
                    d_filter.push_back(measure_filter_transfers(index, c, n, true));
        if (d_opt.fftw)
            d_filter.push_back(measure_filter_fftw(index, gpu_fft));
    }

    // ---- arbitrary resampler ---------------------------------------------------

    /*
     * core::arb_resampler at `rate` with 32 filters of T taps: checked
     * (check_arb), then calls of bank_samples() samples on the test stream in
     * its input windows, device time; the host's recurrence timed apart, over
     * the same calls (the engine's schedule_seconds()).
     */
    void measure_arb(float rate, size_t T)
    {
        arb_result& m = d_arbs.emplace_back(rate, T);
        if (d_opt.limit.reached()) {
            m.set_status("not run", d_opt.limit.note());
            return;
        }
        std::cout << "\narbitrary resampler: rate " << rate << ", 32 filters of " << T
                  << " taps" << d_progress.step() << std::endl;
        const size_t samples = bank_samples();
        attempt(m, [&] {
            core::arb_resampler_options o;
            o.rate = rate;
            o.filter_size = 32;
            o.max_input_samples = samples;
            // A windowed sinc at 32 times the input rate, cut at the lower rate.
            const size_t ntaps = 32 * T;
            const double cut = 0.5 * std::min(1.0, double(rate)) / 32.0;
            for (size_t k = 0; k < ntaps; ++k) {
                const double t = double(k) - double(ntaps - 1) / 2.0;
                const double sinc =
                    t == 0 ? 2 * cut : std::sin(2 * M_PI * cut * t) / (M_PI * t);
                const double w = 0.5 - 0.5 * std::cos(2 * M_PI * (k + 0.5) / ntaps);
                o.taps.push_back(float(32.0 * sinc * w));
            }
            const auto start = clock_type::now();
            auto engine = std::make_unique<core::arb_resampler>(d_ctx, o);
            m.setup_ms = ms_since(start);
            m.samples = samples;
            const cl::Buffer out = output_buffer(engine->max_output_elements());
            m.check = check_arb(*engine, o, out);
            // A fresh engine on the test stream in its input windows.
            engine = std::make_unique<core::arb_resampler>(d_ctx, o);
            prime_inputs(*engine, d_compute, [&](size_t n) {
                cl::Event done;
                engine->run(d_compute, n, out, {}, done);
            });
            d_compute.finish();
            const double host_before = engine->schedule_seconds();
            const uint64_t outputs_before = engine->outputs_scheduled();
            size_t calls = 0;
            m.time = d_timer.measure(
                [&](const cl::CommandQueue& q) {
                    cl::Event done;
                    engine->run(q, samples, out, {}, done);
                    ++calls;
                },
                {},
                d_opt.warmup,
                d_opt.reps);
            const double outputs = double(engine->outputs_scheduled() - outputs_before);
            m.outputs = outputs / double(std::max<size_t>(calls, 1));
            m.host_ns_per_output =
                (engine->schedule_seconds() - host_before) * 1e9 / std::max(outputs, 1.0);
            m.note = fmt("%.0f outputs per call", m.outputs);
        });
        m.print("arb device-resident",
                number(m.in_gsps()) + " Gsps in, " + number(m.out_gsps()) +
                    " Gsps out, host " + fmt("%.2f", m.host_ns_per_output) +
                    " ns per output",
                true);
    }

    /*
     * One call of up to 2^14 samples from zero history into NaN-filled `out`:
     * its output count and every output against the in-tree kernel's loops
     * (wideband_reference::arb_resampler: float recurrence, float64 sums), and
     * the output after them untouched.
     */
    check_stats check_arb(core::arb_resampler& engine,
                          const core::arb_resampler_options& o,
                          const cl::Buffer& out)
    {
        check_stats c;
        const size_t n = std::min<size_t>(engine.max_input_samples(), 1 << 14);
        const cfloat* x = signal(n);
        const std::vector<cfloat> nan(engine.max_output_elements(),
                                      cfloat(std::nanf(""), std::nanf("")));
        d_compute.enqueueWriteBuffer(out, CL_TRUE, 0, nan.size() * 8, nan.data());
        write_region(d_compute, engine.input_region(), x, n);
        cl::Event done;
        const size_t produced = engine.run(d_compute, n, out, {}, done);
        done.wait();
        std::vector<cfloat> y(std::min(produced + 1, nan.size()));
        d_compute.enqueueReadBuffer(out, CL_TRUE, 0, y.size() * 8, y.data());
        const std::vector<std::complex<double>> ref = wideband_reference::arb_resampler(
            std::vector<cfloat>(x, x + n), o.rate, o.taps, o.filter_size);
        for (size_t k = 0; k < std::min(produced, ref.size()); ++k)
            c.add(ref[k], y[k]);
        if (produced != ref.size())
            c.fail(std::to_string(produced) + " outputs, expected " +
                   std::to_string(ref.size()));
        if (y.size() > produced && !std::isnan(y[produced].real()))
            c.fail("an output written past the call's outputs");
        return c;
    }

    void print_arb_table() const
    {
        const double ceiling = copy_ceiling_gbs(d_copies);
        std::cout << "\nArbitrary resampler (core::arb_resampler, 32 filters) on "
                  << d_ctx->info().name << ": device-resident, " << bank_samples()
                  << " input samples per call, device time, median of " << d_opt.reps
                  << ".\nGB/s counts 8 B per input + 8 B per output (the byte floor); "
                     "%copy: of clEnqueueCopyBuffer's "
                  << copy_ceiling_text(ceiling)
                  << ".\nhost ns/out: the host's phase recurrence per output (not in the "
                     "device time); it bounds a stream at 1/that outputs per second.\n";
        std::cout << pad("rate", 8) << pad("T", 5) << pad("in Gsps", 10)
                  << pad("out Gsps", 10) << pad("GB/s", 9) << pad("%copy", 7)
                  << pad("host ns/out", 12) << pad("host Gsps", 11) << "  check\n";
        for (const arb_result& a : d_arbs) {
            std::cout << pad(fmt("%.4f", a.rate), 8)
                      << pad(std::to_string(a.taps_per_filter), 5);
            if (!a.ok()) {
                std::cout << "  " << a.status << ": " << a.note << "\n";
                continue;
            }
            std::cout << pad(number(a.in_gsps()), 10) << pad(number(a.out_gsps()), 10)
                      << pad(number(a.gbs()), 9)
                      << pad(ceiling > 0 ? fmt("%.0f", 100.0 * a.gbs() / ceiling) : "-",
                             7)
                      << pad(fmt("%.3f", a.host_ns_per_output), 12)
                      << pad(number(1.0 / a.host_ns_per_output), 11) << "  "
                      << a.check.text() << "\n";
        }
    }

    // ---- channel bank --------------------------------------------------------

    // Samples per device-resident bank call: 2^S or the blocks' chunk, the smaller.
    size_t bank_samples() const
    {
        return std::min(d_opt.samples(),
                        core::stream_config::for_device(d_ctx->info()).chunk_samples);
    }

    /*
     * The bank of `plan` device-resident: checked (check_bank), then calls of
     * bank_samples() samples on the test stream in its input windows, device
     * time; then core::fft_filter at its FFT length, the same calls.
     */
    void measure_bank_plan(const bank_plan& plan)
    {
        bank_result& m = d_banks.emplace_back(plan);
        if (d_opt.limit.reached()) {
            m.set_status("not run", d_opt.limit.note());
            ++d_banks_not_run;
            return;
        }
        std::cout << "\nchannel bank: " << plan.channels.size() << " channels, D "
                  << plan.decimations() << ", " << plan.channels.front().taps.size()
                  << " taps" << d_progress.step() << std::endl;
        const size_t samples = bank_samples();
        attempt(m, [&] {
            core::channel_bank_options o = bank_plans::options(plan);
            o.max_input_samples = samples;
            const auto start = clock_type::now();
            core::channel_bank bank(d_ctx, o);
            m.setup_ms = ms_since(start);
            m.samples = samples;
            m.note = bank.describe();
            m.fft_size = bank.fft_size();
            for (size_t c = 0; c < bank.channels(); ++c) {
                m.bins.widen(bank.window_bins(c));
                m.inverse.widen(bank.inverse_length(c));
            }
            const cl::Buffer out = output_buffer(bank.max_output_elements());
            m.check = check_bank(bank, plan, out);
            m.time = time_calls(
                bank,
                samples,
                d_opt.warmup,
                d_opt.reps,
                [&](const cl::CommandQueue& q, size_t n) { bank.enqueue(q, n, out); });
        });
        m.print("bank device-resident",
                number(m.gsps()) + " Gsps, FFT " + std::to_string(m.fft_size) +
                    ", window bins " + m.bins.text() + ", inverse lengths " +
                    m.inverse.text(),
                true);
        if (m.fft_size)
            m.filter = measure_filter_device(
                { plan.channels.front().taps.size(), 1, m.fft_size },
                size_t(-1),
                samples);
    }

    /*
     * Three calls from zero history into NaN-filled `out` (the most samples,
     * fewer, the most again, as check_three_calls()): every channel's output
     * count, every output finite, every output of the checked channels
     * against GNU Radio's freq_xlating_fir_filter_ccc in float64 (computed on
     * the CPU threads).
     */
    check_stats
    check_bank(core::channel_bank& bank, const bank_plan& plan, const cl::Buffer& out)
    {
        check_stats s(max_rel_err);
        const size_t max = bank.max_input_samples();
        const size_t sizes[] = { max, max / 3 + 1, max };
        const cfloat* x = signal(sizes[0] + sizes[1] + sizes[2]);
        // first, middle, last, smallest and largest decimation
        const auto& ch = plan.channels;
        auto by_D = [&](size_t a, size_t b) {
            return ch[a].decimation < ch[b].decimation;
        };
        std::vector<size_t> checked(ch.size());
        std::iota(checked.begin(), checked.end(), 0);
        checked = { 0,
                    ch.size() / 2,
                    ch.size() - 1,
                    *std::min_element(checked.begin(), checked.end(), by_D),
                    *std::max_element(checked.begin(), checked.end(), by_D) };
        std::sort(checked.begin(), checked.end());
        checked.erase(std::unique(checked.begin(), checked.end()), checked.end());

        std::vector<std::vector<cfloat>> y(checked.size());
        std::vector<cfloat> got;
        uint64_t pos = 0; // samples before the call
        for (size_t n : sizes) {
            const auto region = bank.input_region();
            if (region.capacity < n) {
                s.fail("input_region() capacity " + std::to_string(region.capacity) +
                       " < " + std::to_string(n));
                return s;
            }
            write_region(d_compute, region, x + pos, n);
            d_compute.enqueueFillBuffer(
                out, quiet_nan_bits, 0, out.getInfo<CL_MEM_SIZE>());
            const auto r = bank.enqueue(d_compute, n, out);
            const size_t outputs = r.offsets.back() + r.counts.back();
            got.resize(std::max<size_t>(outputs, 1));
            if (outputs)
                d_compute.enqueueReadBuffer(
                    out, CL_TRUE, 0, outputs * sizeof(cfloat), got.data());
            d_compute.finish();
            s.scan(got.data(), outputs);
            for (size_t c = 0; c < ch.size(); ++c) {
                const size_t D = ch[c].decimation;
                const size_t expected = size_t((pos + n) / D - pos / D);
                if (r.counts[c] != expected)
                    s.fail("channel " + std::to_string(c) + ": " +
                           std::to_string(r.counts[c]) + " outputs, expected " +
                           std::to_string(expected));
            }
            for (size_t k = 0; k < checked.size(); ++k) {
                const auto first = got.begin() + r.offsets[checked[k]];
                y[k].insert(y[k].end(), first, first + r.counts[checked[k]]);
            }
            pos += n;
        }
        std::vector<std::vector<std::complex<double>>> ref(checked.size());
        d_pool.run(std::min(checked.size(), d_pool.size()),
                   [&](size_t i, size_t threads) {
                       for (size_t k = i; k < checked.size(); k += threads) {
                           const core::bank_channel& c = ch[checked[k]];
                           ref[k] = wideband_reference::freq_xlating(
                               d_signal,
                               c.decimation,
                               { { 0, c.center_freq, c.taps } },
                               std::min<size_t>(y[k].size(), pos / c.decimation));
                       }
                   });
        for (size_t k = 0; k < checked.size(); ++k)
            for (size_t i = 0; i < ref[k].size(); ++i)
                s.add(ref[k][i], y[k][i]);
        return s;
    }

    // ---- batched convolution -------------------------------------------------

    double device_memory_budget() const
    {
        if (d_opt.conv_memory_mib > 0)
            return d_opt.conv_memory_mib * 1048576.0;
        return 0.4 * double(d_ctx->info().global_mem_bytes);
    }

    // Elements [0, elements) of `buffer` := signal_sample(base + i).
    void fill_device(const cl::Buffer& buffer, size_t elements, uint64_t base)
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
    void measure_conv_gpu(conv_cell& c)
    {
        const size_t N = c.N, L = N, S = N, out = c.out_length(), P = c.pairs();
        attempt(c.gpu, [&] {
            const size_t n = core::batched_convolution::default_fft_size(L, S);
            // signals, filters, outputs, the filters' spectra, up to 3 work buffers
            const double per_pair = 8.0 * double(L + S + out + 4 * n);
            const double max_alloc = double(d_ctx->info().max_alloc_bytes);
            const size_t fit = size_t(std::min(
                { device_memory_budget() / per_pair, max_alloc / (8.0 * double(n)) }));
            if (fit == 0)
                throw std::runtime_error(
                    "one pair needs " + size_text(per_pair) +
                    ": more than --conv-memory or the allocation limit");
            c.per_call = std::min(P, fit);
            c.gpu.calls = (P + c.per_call - 1) / c.per_call;
            const size_t last = P - (c.gpu.calls - 1) * c.per_call;

            const auto start = clock_type::now();
            core::batched_convolution_options o;
            o.signal_length = L;
            o.filter_length = S;
            o.max_pairs = c.per_call;
            core::batched_convolution engine(d_ctx, o);
            c.gpu.setup_ms = ms_since(start);
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
                d_compute.enqueueReadBuffer(
                    outputs, CL_TRUE, p * out * 8, out * 8, y.data());
                c.gpu.check.scan(y.data(), out);
                for (size_t i : sample_indices(out, { L - 1, L, S - 1 }, 48))
                    c.gpu.check.add(conv_reference(L, S, p, i), y[i]);
            }

            auto set = [&](const cl::CommandQueue& q) {
                for (size_t k = 0; k < c.gpu.calls; ++k)
                    engine.enqueue(
                        q, signals, filters, outputs, k + 1 < c.gpu.calls ? Q : last);
            };
            const double budget_ms = 1e3 * d_opt.conv_budget;
            // Host time of one set (after the warm-up call above), to plan the reps.
            const auto t0 = clock_type::now();
            set(d_timer.queue());
            d_timer.queue().finish();
            const double probe_ms = ms_since(t0);
            if (probe_ms <= budget_ms || c.gpu.calls == 1) {
                const int reps = reps_within(budget_ms / 2, probe_ms, d_opt.reps);
                c.gpu.time = d_timer.measure(set, {}, reps >= 3 ? 1 : 0, reps);
                c.gpu_sets = reps;
            } else {
                // Calls of Q pairs, as many as the budget allows (at least 1), scaled.
                const double call_ms = probe_ms / double(c.gpu.calls);
                const int reps = reps_within(budget_ms / 2, call_ms, d_opt.reps);
                c.gpu.time = d_timer.measure(
                                 [&](const cl::CommandQueue& q) {
                                     engine.enqueue(q, signals, filters, outputs, Q);
                                 },
                                 {},
                                 0,
                                 reps) *
                             (double(P) / double(Q));
                c.gpu_estimated = true;
                c.gpu.note = "estimated: a set of " + std::to_string(c.gpu.calls) +
                             " calls takes about " + fmt("%.1f s", probe_ms / 1e3) +
                             ", more than --conv-budget; median of " +
                             std::to_string(reps) + " calls of " + std::to_string(Q) +
                             " pairs, times P/" + std::to_string(Q);
            }
        });
    }

    /*
     * One cell with FFTW: a calibration run of one group per thread, then the
     * median of up to --cpu-reps runs of as many pairs as --cpu-budget allows (all
     * P when they fit), scaled to P.
     */
    void measure_conv_fftw(conv_cell& c, const void* plans)
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
                c.cpu.check.scan(y.data() + p * out, out);
                for (size_t i : sample_indices(out, { L - 1, L, S - 1 }, 48))
                    c.cpu.check.add(conv_reference(L, S, p, i), y[p * out + i]);
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
            c.cpu.time = time_runs([&] { return run(pairs); }, d_opt.cpu_reps);
            c.cpu_pairs = pairs;
            c.cpu_threads = threads_for(pairs);
            c.cpu.status = "ok";
            c.cpu.note = std::to_string(c.cpu_threads) + " threads, groups of " +
                         std::to_string(conv.group()) + ", median of " +
                         std::to_string(d_opt.cpu_reps) +
                         (pairs < P ? " runs of " + std::to_string(pairs) + " of the " +
                                          std::to_string(P) + " pairs, scaled"
                                    : " runs");
        } catch (const std::exception&) {
            c.cpu.fail();
        }
#else
        (void)plans;
        c.cpu.set_status("skipped", "not built with FFTW");
#endif
    }

    void measure_conv_size(size_t N)
    {
        std::cout << "\nbatched convolution N = " << N << d_progress.step() << std::endl;
#ifdef WIDEBAND_HAVE_FFTW
        std::unique_ptr<fftw_batched> plans;
        std::string plan_error;
        if (d_opt.fftw)
            try {
                plans.reset(
                    new fftw_batched(N,
                                     N,
                                     core::batched_convolution::default_fft_size(N, N),
                                     d_pool.size(),
                                     d_fftw_flags));
            } catch (const std::exception&) {
                plan_error = current_error_text();
            }
#endif
        for (const pair_shape& shape : d_opt.pairs) {
            conv_cell c;
            c.shape = shape;
            c.N = N;
            if (d_opt.limit.reached()) {
                c.gpu.set_status("not run", d_opt.limit.note());
                c.cpu = c.gpu;
                ++d_cells_not_run;
                d_cells.push_back(c);
                continue;
            }
            measure_conv_gpu(c);
            if (d_opt.fftw) {
                if (!c.fft_size)
                    c.fft_size = core::batched_convolution::default_fft_size(c.N, c.N);
#ifdef WIDEBAND_HAVE_FFTW
                if (plans)
                    measure_conv_fftw(c, plans.get());
                else {
                    c.cpu.set_status("failed", plan_error);
                }
#else
                measure_conv_fftw(c, nullptr);
#endif
            } else {
                c.cpu.set_status("skipped", "");
            }
            print_conv(c);
            d_cells.push_back(c);
        }
    }

    // ---- printing ------------------------------------------------------------

    void print_filter(const filter_measurement& m) const
    {
        const std::string name =
            m.variant == "device"     ? "device-resident"
            : m.variant == "resident" ? "device-resident on " + std::to_string(m.devices)
            : m.variant == "fftw"
                ? "FFTW (CPU)"
                : std::string(m.variant == "transfers_pinned" ? "pinned transfers 2^"
                                                              : "transfers 2^") +
                      std::to_string(m.chunk_log2) +
                      (m.devices > 1 ? ", " + std::to_string(m.devices) + " devices"
                                     : "");
        m.print(name,
                number(m.msps()) + " Msps, FFT " + std::to_string(m.fft_size),
                m.variant == "device");
    }

    void print_conv(const conv_cell& c) const
    {
        std::cout << "  " << c.label() << ":\n";
        std::cout << "    GPU  ";
        if (!c.gpu.ok())
            std::cout << c.gpu.status << ": " << c.gpu.note << "\n";
        else
            std::cout << (c.gpu_estimated ? "~" : "")
                      << fmt("%.4f ms per set", c.gpu_ms())
                      << fmt(" (min %.4f)", c.gpu.time.min_ms) << "  "
                      << number(c.gbs(c.gpu_ms())) << " GB/s  "
                      << number(c.gpoints(c.gpu_ms())) << " Gpoints/s out, "
                      << c.gpu.calls << " call" << (c.gpu.calls > 1 ? "s" : "")
                      << " of <= " << c.per_call << " pairs, "
                      << (c.gpu_estimated ? std::string("estimated")
                                          : std::to_string(c.gpu_sets) + " sets")
                      << "\n         " << c.gpu.check.text()
                      << (std::isnan(c.gpu.setup_ms)
                              ? std::string()
                              : fmt("; setup %.0f ms", c.gpu.setup_ms))
                      << "\n         " << c.describe
                      << (c.gpu.note.empty() ? "" : "\n         " + c.gpu.note) << "\n";
        if (c.cpu.status != "skipped") {
            std::cout << "    FFTW ";
            if (!c.cpu.ok())
                std::cout << c.cpu.status << ": " << c.cpu.note << "\n";
            else
                std::cout << (c.cpu_scaled() ? "~" : "")
                          << fmt("%.4f ms per set", c.cpu_ms()) << "  "
                          << number(c.gbs(c.cpu_ms())) << " GB/s  " << c.cpu.note
                          << "\n         " << c.cpu.check.text() << "\n";
        }
        std::cout << std::flush;
    }

    void print_device_scaling() const
    {
        std::vector<std::string> labels;
        for (const auto& row : d_rows)
            for (size_t c : d_opt.chunk_log2)
                labels.push_back(row.describe() + ", 2^" + std::to_string(c));
        const size_t chunks = d_opt.chunk_log2.size();
        std::vector<std::string> resident_labels;
        for (const auto& row : d_rows)
            resident_labels.push_back(row.describe());
        print_scaling(
            "FIR filter device-resident on several devices at once (2^" +
                std::to_string(d_opt.samples_log2) +
                " samples per call, the same calls on each device, host time): input "
                "Msamples/s of all devices with the first 1, 2, ...",
            d_devices,
            resident_labels,
            [=](size_t line, size_t n) {
                const filter_measurement* t = find(line, "resident", 0, n);
                return t && t->ok() ? t->msps() : nan_value;
            });
        if (!d_opt.transfers)
            return;
        for (const char* variant : { "transfers", "transfers_pinned" })
            print_scaling(
                "FIR filter with transfers over several devices "
                "(core::multi_device_pipeline, depth " +
                    std::to_string(d_opt.depth) + " per device, " +
                    (variant == std::string("transfers")
                         ? "copied from ordinary host memory"
                         : "DMA from pinned memory, outputs read in place") +
                    "): input Msamples/s with the first 1, 2, ... devices, chunks of "
                    "2^C samples",
                d_devices,
                labels,
                [=](size_t line, size_t n) {
                    const filter_measurement* t =
                        find(line / chunks, variant, d_opt.chunk_log2[line % chunks], n);
                    return t && t->ok() ? t->msps() : nan_value;
                });
    }

    const filter_measurement* find(size_t row,
                                   const std::string& variant,
                                   size_t chunk_log2 = 0,
                                   size_t devices = 1) const
    {
        for (const auto& m : d_filter)
            if (m.row == row && m.variant == variant && m.chunk_log2 == chunk_log2 &&
                m.devices == devices)
                return &m;
        return nullptr;
    }

    // Input Msps the bus allows with uploads and downloads overlapped.
    double pcie_limit_msps(size_t D) const
    {
        return pcie_limit(d_pcie, 8.0 / double(D)) / 1e6;
    }

    // The figures of a FIR filter measurement: the CSV's columns, and the table's.
    columns<filter_measurement> filter_columns() const
    {
        using r = const filter_measurement&;
        const double ceiling = copy_ceiling_gbs(d_copies);
        auto row = [this](r m) -> const filter_row& { return d_rows[m.row]; };
        auto gbs = [row](r m) { return m.msps() * 1e-3 * row(m).bytes_per_sample(); };
        auto device = [](r m, value v) { return m.variant == "device" ? v : value(); };
        auto transfers = [](r m, value v) {
            return m.variant == "transfers" ? v : value();
        };
        return columns<filter_measurement>{
            { "table",
              [row](r m) { return row(m).real ? "filter_fff" : "filter"; },
              true },
            { "taps", [row](r m) { return row(m).T; }, true },
            { "D", [row](r m) { return row(m).D; }, true },
            { "fft_size",
              "FFT",
              8,
              [](r m) { return m.fft_size ? value(m.fft_size) : value(); },
              true },
            { "variant", [](r m) { return m.variant; }, true },
            { "chunk",
              [=](r m) { return transfers(m, size_t(1) << m.chunk_log2); },
              true },
            { "devices", [=](r m) { return transfers(m, m.devices); }, true },
        } +
               measured<filter_measurement>(
                   "samples,calls,status,median_ms,min_ms,max_ms,b2b_ms") +
               columns<filter_measurement>{
                   { "Msps", "Msps", 8, [](r m) { return m.msps(); } },
                   { "Msps_b2b",
                     [=](r m) { return device(m, m.per_second_b2b() / 1e6); } },
                   { "GBs", "GB/s", 7, [=](r m) { return device(m, gbs(m)); } },
                   { "pct_copy",
                     "%copy",
                     6,
                     [=](r m) {
                         return device(m, value(100 * gbs(m) / ceiling, "%.0f"));
                     } },
                   { "pcie_limit_Msps",
                     [=](r m) { return transfers(m, pcie_limit_msps(row(m).D)); } },
                   { "speedup",
                     [this](r m) -> value {
                         const filter_measurement* c = find(m.row, "fftw");
                         if (m.variant == "fftw" || !c || !c->ok())
                             return {};
                         return m.msps() / c->msps();
                     } },
               } +
               measured<filter_measurement>(
                   "rel_err,points_checked,nonfinite,setup_ms,note");
    }

    // The figures of a batched convolution cell on the GPU or with FFTW.
    struct conv_side {
        const conv_cell& c;
        bool gpu;
        const measurement& m() const { return gpu ? c.gpu : c.cpu; }
        timing time() const { return gpu ? c.gpu.time : c.cpu_time(); }
        bool estimated() const { return gpu ? c.gpu_estimated : c.cpu_scaled(); }
        bool ok() const { return m().ok(); }
    };
    static columns<conv_side> conv_columns()
    {
        using r = const conv_side&;
        auto gpu = [](r s, value v) { return s.gpu ? v : value(); };
        auto fm = [](const std::string& name, double timing::*t) -> column<conv_side> {
            return { name, "", 0, [t](r s) { return s.time().*t; } };
        };
        return {
            { "table", [](r) { return "conv"; }, true },
            { "M", [](r s) { return s.c.shape.M; }, true },
            { "J", [](r s) { return s.c.shape.J; }, true },
            { "pairs", [](r s) { return s.c.pairs(); }, true },
            { "N", [](r s) { return s.c.N; }, true },
            { "fft_size",
              [](r s) { return s.c.fft_size ? value(s.c.fft_size) : value(); },
              true },
            { "variant", [](r s) { return s.gpu ? "gpu" : "fftw"; }, true },
            { "pairs_per_call", [=](r s) { return gpu(s, s.c.per_call); } },
            { "pairs_timed",
              [](r s) {
                  return !s.gpu              ? s.c.cpu_pairs
                         : s.c.gpu_estimated ? s.c.per_call
                                             : s.c.pairs();
              } },
            { "calls", [=](r s) { return gpu(s, s.c.gpu.calls); } },
            { "status", [](r s) { return s.m().status; }, true },
            { "estimated", [](r s) { return s.estimated(); } },
            fm("median_ms", &timing::median_ms),
            fm("min_ms", &timing::min_ms),
            fm("max_ms", &timing::max_ms),
            fm("b2b_ms", &timing::b2b_ms),
            { "GBs", [](r s) { return s.c.gbs(s.time().median_ms); } },
            { "Gpoints_per_s", [](r s) { return s.c.gpoints(s.time().median_ms); } },
            { "speedup",
              [=](r s) {
                  return gpu(s,
                             s.c.cpu.ok() ? value(s.c.cpu_ms() / s.c.gpu_ms()) : value());
              } },
            { "rel_err", [](r s) { return s.m().check.rel_err(); } },
            { "points_checked", [](r s) { return s.m().check.points; } },
            { "nonfinite", [](r s) { return s.m().check.nonfinite; } },
            { "setup_ms", [=](r s) { return s.m().setup_ms; }, true },
            { "note",
              [](r s) {
                  return s.gpu && s.ok() && s.m().note.empty() ? s.c.describe
                                                               : s.m().note;
              },
              true },
        };
    }

    void print_filter_table() const
    {
        const double ceiling = copy_ceiling_gbs(d_copies);
        std::cout
            << "\nFIR filter (core::fft_filter) on " << d_ctx->info().name
            << ": input Msamples/s; device-resident 2^" << d_opt.samples_log2
            << " samples per call, device time, median of " << d_opt.reps
            << ".\nGB/s counts 8 + 8/D B per input sample (fff: 4 + 4/D); %copy: of "
               "clEnqueueCopyBuffer's "
            << copy_ceiling_text(ceiling);
        if (d_opt.transfers)
            std::cout << ".\nWith transfers (stream_pipeline, depth " << d_opt.depth
                      << (d_opt.copy_out ? "" : ", outputs not copied out")
                      << "): columns 2^C = samples per chunk, host time of 2^"
                      << d_opt.stream_log2 << " samples; lim = pinned PCIe limit ("
                      << pcie_text(d_pcie) << ")";
        if (d_opt.fftw)
            std::cout << ".\nFFTW: overlap-save on the CPU (" << fftw_text()
                      << "); x = GPU / FFTW Msps, dev: device-resident, xfer: the faster "
                         "transfer column";
        std::cout << ".\nerr: the largest relative L2 error of the row's checks against "
                     "float64, ! = check failed\n";

        const columns<filter_measurement> all = filter_columns();
        auto of = [this](const char* variant, size_t chunk_log2 = 0) {
            return [=](size_t i) { return find(i, variant, chunk_log2); };
        };
        auto ran = [](const filter_measurement* m) { return m && m->ok() ? m : nullptr; };
        auto best_transfer = [=](size_t i) {
            double best = 0;
            for (size_t c : d_opt.chunk_log2)
                if (const filter_measurement* t = ran(find(i, "transfers", c)))
                    best = std::max(best, t->msps());
            return best;
        };
        auto row = [this](size_t i) -> const filter_row& { return d_rows[i]; };
        std::vector<table_group> groups = {
            { "",
              { { "",
                  "type",
                  4,
                  [row](size_t i) { return row(i).real ? "fff" : "ccc"; } },
                { "", "taps", 6, [row](size_t i) { return row(i).T; } },
                { "", "D", 3, [row](size_t i) { return row(i).D; } },
                { "",
                  "FFT",
                  8,
                  [=](size_t i) -> value {
                      const filter_measurement* e = find(i, "device");
                      return e && e->fft_size ? value(e->fft_size) : "-";
                  } } } },
            group("GPU device-resident",
                  of("device"),
                  { pick(all, "median_ms", "ms", 8),
                    pick(all, "Msps", "Msps", 9),
                    pick(all, "GBs"),
                    pick(all, "pct_copy") })
        };
        if (d_opt.transfers) {
            table_group g{ "with transfers, Msps", {} };
            for (size_t c : d_opt.chunk_log2)
                g.cells.push_back(cell_of(
                    of("transfers", c), pick(all, "Msps", "2^" + std::to_string(c), 8)));
            g.cells.push_back(
                { "", "lim", 8, [=](size_t i) { return pcie_limit_msps(row(i).D); } });
            groups.push_back(g);
        }
        if (d_opt.fftw)
            groups.push_back(
                group("FFTW (CPU)",
                      of("fftw"),
                      { pick(all, "fft_size", "FFT", 8),
                        pick(all, "Msps"),
                        { "",
                          "x dev",
                          8,
                          [=](const filter_measurement& f) -> value {
                              const filter_measurement* e = ran(find(f.row, "device"));
                              return e ? ratio_text(e->msps() / f.msps()) : "-";
                          } },
                        { "", "xfer", 7, [=](const filter_measurement& f) -> value {
                             const double best = best_transfer(f.row);
                             return best > 0 ? ratio_text(best / f.msps()) : "-";
                         } } }));
        groups.push_back(error_group([this](size_t i) {
            std::vector<const measurement*> all = { find(i, "device"), find(i, "fftw") };
            for (size_t c : d_opt.chunk_log2)
                all.push_back(find(i, "transfers", c));
            return all;
        }));
        harness::print_table(std::cout, groups, d_rows.size());
        print_failures(d_filter, [this](const filter_measurement& m) {
            return d_rows[m.row].describe() + " " + m.variant +
                   (m.chunk_log2 ? " 2^" + std::to_string(m.chunk_log2) : "") +
                   (m.devices > 1 ? " on " + std::to_string(m.devices) + " devices" : "");
        });
    }

    // The figures of a channel bank plan: the CSV's columns, and the table's.
    static columns<bank_result> bank_columns()
    {
        using r = const bank_result&;
        auto filter = [](r b, value v) { return b.filter.ok() ? v : value(); };
        return columns<bank_result>{
            { "table", [](r) { return "bank"; }, true },
            { "plan", "plan", -9, [](r b) { return b.plan.name; }, true },
            { "channels", "C", 6, [](r b) { return b.plan.channels.size(); }, true },
            { "D", "D", 11, [](r b) { return b.plan.decimations(); }, true },
            { "taps",
              "taps",
              5,
              [](r b) { return b.plan.channels.front().taps.size(); },
              true },
            { "fft_size",
              "FFT",
              7,
              [](r b) { return b.fft_size ? value(b.fft_size) : value(); },
              true },
            { "window_bins", "bins", 11, [](r b) { return b.bins.text(); } },
            { "inverse_lengths", "B", 11, [](r b) { return b.inverse.text(); } },
            { "variant", [](r) { return "bank"; }, true },
        } + measured<bank_result>("samples,calls,status,median_ms,min_ms,max_ms,b2b_ms") +
               columns<bank_result>{
                   { "Msps", [](r b) { return b.per_second() / 1e6; } },
                   { "Msps_b2b", [](r b) { return b.per_second_b2b() / 1e6; } },
                   { "Gsps", "Gsps", 8, [](r b) { return b.gsps(); } },
                   { "filter_Msps",
                     [=](r b) { return filter(b, b.filter.per_second() / 1e6); } },
                   { "of_fft_filter",
                     "x fft",
                     6,
                     [=](r b) {
                         return filter(
                             b, value(b.gsps() / b.filter.per_second() * 1e9, "%.2f"));
                     } },
               } +
               measured<bank_result>("rel_err,points_checked,nonfinite,setup_ms,note");
    }

    void print_bank_table() const
    {
        std::cout << "\nChannel bank (core::channel_bank) on " << d_ctx->info().name
                  << ": input Gsamples/s device-resident, " << bank_samples()
                  << " samples per call, device time, median of " << d_opt.reps
                  << ";\nbins: window bins per channel, B: inverse FFT lengths "
                     "(smallest..largest; 0: outputs summed over the window); "
                     "fft_filter: core::fft_filter, the same taps "
                     "count, decimation 1, at the bank's FFT length, the same calls; x "
                     "fft = bank / fft_filter.\nerr: the largest relative L2 error of "
                     "the row's checks against float64, ! = check failed\n";
        const columns<bank_result> all = bank_columns();
        auto bank = [this](size_t i) { return &d_banks[i]; };
        auto filter = [this](size_t i) { return &d_banks[i].filter; };
        auto plan = [&](const char* name) -> column<size_t> {
            const column<bank_result> c = pick(all, name);
            return { "", c.header, c.width, [=](size_t i) { return c.get(d_banks[i]); } };
        };
        harness::print_table(
            std::cout,
            { { "",
                { plan("plan"),
                  plan("channels"),
                  plan("D"),
                  plan("taps"),
                  plan("fft_size"),
                  plan("window_bins"),
                  plan("inverse_lengths") } },
              group("bank, device-resident",
                    bank,
                    { pick(all, "median_ms", "ms", 8), pick(all, "Gsps") }),
              group("fft_filter",
                    filter,
                    { { "",
                        "Gsps",
                        8,
                        [](const filter_measurement& f) {
                            return f.per_second() / 1e9;
                        } } }),
              group("", bank, { pick(all, "of_fft_filter") }),
              error_group([this](size_t i) -> std::vector<const measurement*> {
                  return { &d_banks[i], &d_banks[i].filter };
              }) },
            d_banks.size());
        for (const auto& b : d_banks)
            for (const measurement* m : std::vector<const measurement*>{ &b, &b.filter })
                if (m->status == "failed")
                    std::cout << "  " << (m == &b ? "bank " : "fft_filter beside bank ")
                              << b.plan.name << ": failed: " << m->note << "\n";
    }

    void print_conv_table() const
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
        // A set's time: ~ when estimated, ! when its check failed.
        auto ms = [](const conv_side& s) -> value {
            if (!s.ok())
                return s.m().status;
            return (s.estimated() ? "~" : "") + number(s.time().median_ms) +
                   (s.m().check.passed() ? "" : "!");
        };
        static const measurement ran;
        std::vector<table_group> groups = {
            { "", { { "", "N", 6, [this](size_t i) { return d_opt.conv_sizes[i]; } } } }
        };
        for (const auto& shape : d_opt.pairs) {
            auto cell = [this, shape](size_t i) -> const conv_cell* {
                for (const auto& c : d_cells)
                    if (c.N == d_opt.conv_sizes[i] && c.shape.M == shape.M &&
                        c.shape.J == shape.J)
                        return &c;
                return nullptr;
            };
            auto side = [cell](bool gpu, auto figure) {
                return [=](size_t i) { return figure(conv_side{ *cell(i), gpu }); };
            };
            table_group g{ shape.text() + " (" + std::to_string(shape.pairs()) +
                               " pairs)",
                           { { "", "GPU ms", 11, side(true, ms) },
                             { "",
                               "GB/s",
                               8,
                               side(true,
                                    [](const conv_side& s) -> value {
                                        return s.ok() ? value(s.c.gbs(s.c.gpu_ms())) : "";
                                    }) } },
                           [this, cell](size_t i) -> const measurement* {
                               const conv_cell* c = cell(i);
                               const bool none = c && !c->gpu.ok() &&
                                                 (!d_opt.fftw || !c->cpu.ok()) &&
                                                 c->gpu.status == c->cpu.status;
                               return !c ? nullptr : none ? &c->gpu : &ran;
                           } };
            if (d_opt.fftw)
                g.cells.insert(
                    g.cells.end(),
                    { { "", "FFTW ms", 11, side(false, ms) },
                      { "", "x", 6, side(false, [](const conv_side& s) -> value {
                            return s.ok() && s.c.gpu.ok()
                                       ? ratio_text(s.c.cpu_ms() / s.c.gpu_ms())
                                       : "-";
                        }) } });
            groups.push_back(g);
        }
        harness::print_table(std::cout, groups, d_opt.conv_sizes.size());
        for (const auto& c : d_cells) {
            if (c.gpu.status == "failed")
                std::cout << "  " << c.label() << " GPU: failed: " << c.gpu.note << "\n";
            if (c.cpu.status == "failed")
                std::cout << "  " << c.label() << " FFTW: failed: " << c.cpu.note << "\n";
        }
        std::cout << std::flush;
    }

    void write_csv()
    {
        d_csv.header(
            "table,plan,channels,taps,D,M,J,pairs,N,fft_size,window_bins,"
            "inverse_lengths,variant,chunk,devices,pairs_per_call,pairs_timed,samples,"
            "calls,status,estimated,median_ms,min_ms,max_ms,b2b_ms,Msps,Msps_b2b,GBs,"
            "pct_copy,pcie_limit_Msps,Gpoints_per_s,speedup,filter_Msps,of_fft_filter,"
            "rel_err,points_checked,nonfinite,setup_ms,note");
        add_bandwidth_rows(d_csv, d_copies, d_pcie);
        const columns<filter_measurement> filter = filter_columns();
        for (const auto& m : d_filter)
            d_csv.row(filter, m, m.ok());
        const columns<bank_result> bank = bank_columns();
        for (const auto& b : d_banks)
            d_csv.row(bank, b, b.ok());
        const columns<conv_side> conv = conv_columns();
        for (const auto& c : d_cells) {
            d_csv.row(conv, { c, true }, c.gpu.ok());
            if (c.cpu.status != "skipped")
                d_csv.row(conv, { c, false }, c.cpu.ok());
        }
        d_csv.finish();
    }

    void measure_copies(const std::string& when)
    {
        bench_base::measure_copies(when, copy_bytes(), d_opt.warmup, d_opt.reps);
    }
    // One device-resident call's input bytes, at most half the allocation limit.
    size_t copy_bytes() const
    {
        return std::min<size_t>(d_opt.samples() * sizeof(cfloat),
                                d_ctx->info().max_alloc_bytes / 2);
    }

    bench_options d_opt;
    cl::Kernel d_fill;
    thread_pool d_pool;
    unsigned d_fftw_flags = 0;
    clock_type::time_point d_start;
    std::vector<filter_row> d_rows;
    std::vector<filter_measurement> d_filter;
    std::vector<conv_cell> d_cells;
    std::deque<bank_result> d_banks;
    size_t d_rows_not_run = 0, d_cells_not_run = 0, d_banks_not_run = 0;
    std::deque<arb_result> d_arbs;
};

} // namespace

int main(int argc, char** argv)
{
    return bench_main<bench>(argc, argv, declare_options, help);
}
