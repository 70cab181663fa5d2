/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * wideband_channelizer_bench: throughput of the core's polyphase channelizer
 * engine (core::pfb_channelizer) on one OpenCL device, with the data on the
 * device and with host <-> device transfers (serial and overlapped), measured in
 * one run beside the same channelization done as separate FIR + FFT passes, a
 * device-side buffer copy (the memory ceiling) and pinned host <-> device copies
 * (the PCIe ceiling), and over several devices through
 * core::multi_device_pipeline. The help text (about) states the method.
 */

#include "bench/harness.h"
#include "reference.h"
#include <gnuradio/wideband/core/stream_config.h>

#include <gnuradio/wideband/core/pfb_channelizer.h>
#include <gnuradio/wideband/core/pfb_synthesizer.h>
#include <gnuradio/wideband/core/pinned_buffer.h>

#include <iostream>
#include <memory>

using namespace harness;

namespace {

const char* const program_name = "wideband_channelizer_bench";
constexpr double bytes_per_sample = 16; // the issue's measure: 8 in + 8 out (r = 1)
constexpr double max_rel_err = 1e-4;
// The engine ping-pongs two input windows: the upload for call k may start once
// call k - 2 is done (pfb_channelizer::enqueue keeps the history of call k - 1 at
// the front of the window call k + 1 uses).
constexpr size_t engine_windows = 2;
constexpr size_t output_slots = 3; // output buffers in flight with transfers
constexpr size_t input_ring = 4;   // pinned input chunks, cycled
// What is measured on each row, in the order of the table's column groups.
const char* const variants[] = { "engine", "per_frame", "unfused",
                                 "fft",    "serial",    "overlap" };

// ---- command line -------------------------------------------------------

struct bench_options : common_options {
    std::vector<size_t> channels = { 16, 64, 256, 1024, 4096 };
    std::vector<size_t> taps_per_branch = { 8, 16 };
    std::vector<double> oversample = { 1, 2 };
    size_t samples_log2 = 26;
    size_t chunk_log2 = 0;        // 0: the blocks' (core::stream_config for the device)
    size_t depth = 0;             // chunks in flight per device: the blocks'
    size_t extra_channels = 4096; // frame-major and subset rows (0: none)
    size_t subset = 20;
    int reps = 15;
    int warmup = 3;
    int transfer_reps = 5;
    time_limit limit;
    bool per_frame = true;
    bool unfused = true;
    bool transfers = true;
    bool synthesizer = false;

    size_t samples() const { return size_t(1) << samples_log2; }
    // Samples per call with transfers: 2^C, at least 4 calls per sequence.
    size_t chunk() const
    {
        return size_t(1) << std::min(chunk_log2, samples_log2 > 2 ? samples_log2 - 2 : 0);
    }
    size_t chunk_log2_used() const { return size_t(std::log2(double(chunk()))); }
    size_t calls() const { return std::max<size_t>(4, samples() / chunk()); }
};

// The transfers are measured as the blocks stream: their chunk size (unless
// --chunk-log2) and chunks in flight, from core::stream_config.
bench_options as_the_blocks_stream(bench_options o, const core::device_info& device)
{
    const core::stream_config blocks = core::stream_config::for_device(device);
    if (o.chunk_log2 == 0)
        o.chunk_log2 = size_t(std::log2(double(blocks.chunk_samples)));
    o.depth = blocks.pipeline_depth;
    return o;
}

std::string rate_text(double r) { return fmt("%g", r); }

void declare_options(bench_options& o, option_table& t)
{
    auto rates = [&o](const std::string& arg, const std::string& v) {
        o.oversample.clear();
        for (const auto& item : split(arg, v))
            o.oversample.push_back(parse_number(arg, item, 1));
    };
    t.add({
        { { "--channels", "LIST", &o.channels, 1, size_t(1) << 24 },
          "M, comma-separated" },
        { { "--taps-per-branch", "LIST", &o.taps_per_branch, 1, 1024 }, "K" },
        { { "--oversample", "LIST", rates, "1,2" }, "r, with M/r an integer" },
        { { "--samples-log2", "S", &o.samples_log2, 4, 31 },
          "input samples per device-resident call and per transfer sequence, 2^S [26: "
          "512 MiB in]" },
        { { "--chunk-log2", "C", &o.chunk_log2, 1, 30 },
          "input samples per call with transfers, 2^C [the blocks': 22 on GPUs, 19 "
          "on other devices]" },
        { { "--extras", "M", &o.extra_channels, 0, 1 << 24 },
          "M of the frame-major and subset rows; 0: none" },
        { { "--subset", "N", &o.subset, 1, 1 << 24 }, "channels of the subset row" },
        { { "--reps", "R", &o.reps, 1 }, "timed calls, median" },
        { { "--warmup", "W", &o.warmup, 0 }, "untimed calls first" },
        { { "--transfer-reps", "T", &o.transfer_reps, 1 },
          "timed sequences with transfers, median" },
        o.limit.option("row"),
        { { "--no-per-frame", &o.per_frame, false },
          "skip the fused kernel without a sliding history" },
        { { "--no-unfused", &o.unfused, false }, "skip the FIR + FFT passes" },
        { { "--no-transfers", &o.transfers, false },
          "skip the host<->device measurements" },
        { { "--synthesizer", &o.synthesizer, true },
          "measure core::pfb_synthesizer instead (see below)" },
    });
}

const char* const about =
    R"(Throughput of gr-wideband's polyphase filterbank channelizer engine
(core::pfb_channelizer: GNU Radio's pfb.channelizer_ccf on an OpenCL device) for
M channels, K taps per branch and oversampling r (D = M/r input samples per
output frame), measured in one run beside the same channelization done as
separate FIR, FFT and gather passes (max_fused_channels = 1) and, where the
engine keeps a sliding history, beside the fused kernel that reads every
frame's K*M samples (history = per_frame), where a few channels are rotated
sums without the FFT (max_direct_channels, the subset and decimator rows)
beside the FFT path (max_direct_channels = 0), a device copy
(clEnqueueCopyBuffer, the memory ceiling) and pinned host<->device copies (the
PCIe ceiling). Taps: a Blackman-windowed sinc low-pass of K*M taps, cut-off at
half the channel spacing, DC gain 1.

Method, device-resident: each call brings 2^S new input samples (S =
--samples-log2), written once into both of the engine's input windows; the
engine keeps its history, so repeated calls stream. Each timed call (enqueue():
its kernels and the copy of the filter history) sits between two 1-work-item
kernels on a profiling queue; its time is the second one's START minus the first
one's END. W warm-up calls, then the median of R calls (and the mean of R back to
back in the CSV). Gsps = input samples per second / 1e9; GB/s counts 16 bytes
per input sample whatever the passes and r; %copy compares with
clEnqueueCopyBuffer of 2^S samples (bytes read + written per second, the faster
of the run's start and end).

With transfers (the default engine, 2^C samples per call, C = --chunk-log2, at
most S-2): a sequence of calls streams 2^S samples (at least 4 calls) from pinned
host memory (CL_MEM_ALLOC_HOST_PTR buffers, mapped): per call the upload of the
new samples to input_region(), enqueue(), the download of the outputs.
  serial   one in-order queue, nothing overlaps
  overlap  three queues (uploads, kernels, downloads) chained by events and 3
           output buffers: the upload of call k+1 runs during the kernels of
           call k and the download of call k-1
Host wall time of a whole sequence, one warm-up sequence, median of T. The PCIe
ceiling: the same chunks copied host->device, device->host, and both at once on
two queues; limit = min(h2d/8, d2h/o, both/(8+o)) Gsps, o = 8*outputs/D bytes
out per input sample; %lim = overlap / limit.

Over several devices (a --device naming N of them, e.g. gpu:all), with the
first 1, 2, ..., N devices: device-resident, one engine per device running the
same 2^S-sample calls at once (host time per round of calls; each engine
checked as the engine row's); and the same sequences as
with transfers (2^C samples per chunk, from host memory) through
core::multi_device_pipeline, as the GNU Radio blocks would run them (one
engine each, chunks in turn, 2 chunks in flight per device, each chunk's
output copied out), then from pinned memory (DMA only: submit_pinned(), each
chunk's output read where the pipeline downloaded it). Tables of Gsps by
device count follow the main one.
Everything else runs on the first device.

Checks: every engine first runs three calls from zero history (2^S samples; a
shorter call that leaves samples short of a frame; 2^S again) into NaN-filled
output; sampled frames (first two, middle, last two) of sampled channels are
compared with GNU Radio's formula in float64 (kernels/pfb_fir.cl). With
transfers, the last calls of each variant's last sequence likewise. err =
relative L2 error over those points; above 1e-4, a non-finite value or a wrong
frame count fails.

Rows: every M x K x r, all channels, channel-major; then for M = --extras (with
the first K and r): all channels frame-major, and --subset channels spread over
the band, channel-major.

--synthesizer: the polyphase synthesizer engine (core::pfb_synthesizer: GNU
Radio's pfb_synthesizer_ccf) instead, device-resident only, for every M x K
twice: the one-pass kernel (sliding history, where it fits the registers) and
the two passes (--oversample, --extras and the transfer options do not apply): M inputs
(all bins, twox off), each call 2^S input samples (2^S / M frames) making as
many output samples, timed as the channelizer's engine row. Gsps = output
samples per second / 1e9; the byte floor is 8 B per input sample + 8 B per
output sample (16 B per output sample here), %copy compares it with
clEnqueueCopyBuffer as above. Taps: the same windowed sinc of K*M taps. Check:
three calls from zero history as above, sampled outputs of sampled frames
against the float64 frame formula (core/pfb_synthesizer.h: direct inverse DFT,
then the branch sums).
)";

const char* const examples =
    R"(  wideband_channelizer_bench                     the issue's grid on the GPU
  wideband_channelizer_bench --channels 1024 --taps-per-branch 16 --oversample 2
  wideband_channelizer_bench --device cpu --samples-log2 14 --channels 16,64 --reps 2
  wideband_channelizer_bench --no-transfers --csv channelizer.csv
  wideband_channelizer_bench --device gpu:all --channels 1024 --taps-per-branch 16
  wideband_channelizer_bench --synthesizer                       M x K grid, synthesizer
  wideband_channelizer_bench --synthesizer --device cpu --samples-log2 12 --channels 16,64 --reps 2
)";

const bench_help help = { program_name,
                          about,
                          examples,
                          "err above 1e-4, non-finite values or a wrong frame count" };

// ---- taps and the float64 reference ------------------------------------------

// Frame q of output `slot` of an engine of M channels, from the stream x, in
// float64 (lib/core/tests/reference).
std::complex<double> reference_output(const wideband_reference::sample_fn& x,
                                      const core::pfb_channelizer& e,
                                      size_t M,
                                      size_t slot,
                                      uint64_t q)
{
    const std::vector<size_t> c = { e.channel_map()[slot] };
    return wideband_reference::pfb_channelizer(
        x, e.taps(), M, e.decimation(), c, q, 1)[0][0];
}

// The channels checked out of n: those sample_indices() picks and a scattered one.
std::vector<size_t> checked_channels(size_t n)
{
    return sample_indices(n, { n * 7 / 11 });
}

/*
 * Output i of frame q of a synthesizer of M channels (all M inputs, identity
 * map, twox off) from the stream x of frames, in float64: the frame formula of
 * core/pfb_synthesizer.h with direct inverse DFTs.
 */
std::complex<double> synthesizer_output(const std::function<cfloat(uint64_t)>& x,
                                        const std::vector<float>& taps,
                                        size_t M,
                                        uint64_t q,
                                        size_t i)
{
    const double pi = std::acos(-1.0);
    std::complex<double> sum = 0;
    for (size_t j = 0; j * M + i < taps.size() && j <= q; ++j) {
        std::complex<double> y = 0;
        for (size_t b = 0; b < M; ++b)
            y += std::complex<double>(x((q - j) * M + b)) *
                 std::polar(1.0, 2 * pi * double(b * i % M) / double(M));
        sum += double(taps[j * M + i]) * y;
    }
    return sum;
}

// ---- rows and results ------------------------------------------------------

struct row_config {
    size_t M = 0, K = 0;
    double r = 1;
    bool frame_major = false;
    std::vector<size_t> map; // empty: all channels

    size_t outputs() const { return map.empty() ? M : map.size(); }
    std::string describe() const
    {
        return "M=" + std::to_string(M) + " K=" + std::to_string(K) +
               " r=" + rate_text(r) + ", " +
               (map.empty() ? std::string("all channels")
                            : std::to_string(map.size()) + " channels") +
               (frame_major ? ", frame-major" : ", channel-major");
    }
    // D = M/r when that is an integer in [1, M], else 0.
    size_t decimation() const
    {
        const double d = double(M) / r;
        return std::fabs(d - std::round(d)) < 1e-9 && d >= 1 ? size_t(std::round(d)) : 0;
    }
    // Output bytes per input sample.
    double out_bytes() const { return 8.0 * double(outputs()) / double(decimation()); }
    // The engine's options; taps: a Blackman-windowed sinc, K*M taps, cut-off 1/(2M)
    // cycles per sample, DC gain 1.
    core::pfb_channelizer_options options(size_t max_input,
                                          size_t max_fused = 0,
                                          bool sliding = true,
                                          bool direct = true) const
    {
        const std::vector<double> h = windowed_sinc(K * M, 0.5 / double(M));
        core::pfb_channelizer_options o;
        o.channels = M;
        o.taps.assign(h.begin(), h.end());
        o.oversample_rate = r;
        o.channel_map = map;
        o.layout = frame_major ? core::channel_layout::frame_major
                               : core::channel_layout::channel_major;
        o.max_input_samples = max_input;
        o.max_fused_channels = max_fused;
        using mode = core::pfb_channelizer_options::history_mode;
        o.history = sliding ? mode::automatic : mode::per_frame;
        if (!direct)
            o.max_direct_channels = 0;
        return o;
    }
};

struct result : measurement {
    result(size_t row_index, const std::string& what, size_t device_count = 1)
        : row(row_index), variant(what), devices(device_count)
    {
        check = check_stats(max_rel_err);
    }
    size_t row;
    // engine, per_frame, unfused, fft, serial, overlap, resident, devices
    std::string variant;
    size_t devices; // resident, devices: over this many
    bool fused = false, sliding = false, direct = false;

    bool device_resident() const
    {
        return variant == "engine" || variant == "per_frame" || variant == "unfused" ||
               variant == "fft";
    }
    double gsps() const { return per_second() / 1e9; }
    double gbs() const { return gsps() * bytes_per_sample; }
};

// ---- the bench ----------------------------------------------------------

class bench : bench_base
{
public:
    bench(const bench_options& options, std::vector<core::device_context::sptr> devices)
        : bench_base(options, std::move(devices)),
          d_opt(as_the_blocks_stream(options, d_ctx->info())),
          d_upload(d_ctx->create_queue(false)),
          d_download(d_ctx->create_queue(false))
    {
        d_other_queues = { &d_upload, &d_download };
        for (size_t M : d_opt.channels)
            for (size_t K : d_opt.taps_per_branch)
                for (double r : d_opt.oversample)
                    d_rows.push_back({ M, K, r, false, {} });
        if (d_opt.extra_channels) {
            const size_t M = d_opt.extra_channels, K = d_opt.taps_per_branch.front();
            row_config row{ M, K, d_opt.oversample.front(), true, {} };
            d_rows.push_back(row);
            row.frame_major = false;
            const size_t n = std::min(d_opt.subset, row.M);
            for (size_t i = 0; i < n; ++i) // spread over the band, from DC up
                row.map.push_back(i * row.M / n);
            d_rows.push_back(row);
        }
    }

    int run()
    {
        if (d_opt.synthesizer)
            return run_synthesizer();
        print_header();
        warm_up_device(*d_ctx, d_timer, d_opt.samples() * sizeof(cfloat));
        measure_copies(
            "start", d_opt.samples() * sizeof(cfloat), d_opt.warmup, d_opt.reps);
        if (d_opt.transfers)
            d_pcie = measure_pcie(d_ctx,
                                  d_opt.chunk() * sizeof(cfloat),
                                  d_opt.calls(),
                                  d_opt.transfer_reps);
        d_progress = progress(d_rows.size());
        for (size_t i = 0; i < d_rows.size(); ++i)
            measure_row(i);
        const size_t not_run =
            size_t(std::count_if(d_results.begin(),
                                 d_results.end(),
                                 [](const result& m) { return m.status == "not run"; })) /
            std::size(variants);
        d_opt.limit.report(not_run ? std::to_string(not_run) + " of " +
                                         std::to_string(d_rows.size()) + " rows"
                                   : "");
        std::cout << "\n";
        measure_copies("end", d_opt.samples() * sizeof(cfloat), d_opt.warmup, d_opt.reps);
        if (d_csv.enabled())
            write_csv();
        print_table();
        if (d_devices.size() > 1)
            print_device_scaling();
        return verdict(d_results, not_run ? std::to_string(not_run) + " rows" : "");
    }

private:
    void print_header() const
    {
        print_device_header(program_name, d_ctx->info());
        std::cout << "# device-resident: 2^" << d_opt.samples_log2
                  << " input samples per call (" << size_text(d_opt.samples() * 8.0)
                  << "); " << d_opt.warmup << " warm-up calls, median of " << d_opt.reps
                  << ", device-side timing";
        if (d_opt.transfers)
            std::cout << "\n# with transfers: 2^" << d_opt.chunk_log2_used()
                      << " samples per call, " << d_opt.calls()
                      << " calls per sequence, median of " << d_opt.transfer_reps
                      << " sequences, host timing";
        std::cout << "\n# taps: Blackman-windowed sinc, K*M taps; check: float64 direct "
                     "formula, err limit "
                  << fmt("%g", max_rel_err) << std::endl;
    }

    result measure_device_resident(size_t index,
                                   const std::string& variant,
                                   const cl::Buffer& out,
                                   size_t stride)
    {
        const row_config& row = d_rows[index];
        result m(index, variant);
        attempt(m, [&] {
            const auto start = clock_type::now();
            core::pfb_channelizer engine(d_ctx,
                                         row.options(d_opt.samples(),
                                                     variant == "unfused" ? 1 : 0,
                                                     variant != "per_frame",
                                                     variant != "fft"));
            m.setup_ms = ms_since(start);
            m.fused = engine.fused();
            m.sliding = engine.sliding();
            m.direct = engine.direct();
            m.samples = engine.max_input_samples();
            m.note = std::string(m.direct    ? "rotated sums, no FFT"
                                 : m.sliding ? "fused kernel, sliding history"
                                 : m.fused   ? "fused FIR + FFT kernel"
                                             : "FIR passes, FFT plan, gather") +
                     ", D=" + std::to_string(engine.decimation()) + ", " +
                     std::to_string(engine.frames_for(m.samples)) + " frames per call";
            m.check = check_engine(row, engine, d_compute, out, stride);
            m.time = time_calls(engine,
                                m.samples,
                                d_opt.warmup,
                                d_opt.reps,
                                [&](const cl::CommandQueue& q, size_t n) {
                                    engine.enqueue(q, n, out, stride);
                                });
        });
        print(m);
        return m;
    }

    /*
     * Three calls of `engine` on `queue` from zero history into `out` (rows of
     * `stride` frames, or frame-major), sampled frames of sampled channels
     * against the float64 formula.
     */
    check_stats check_engine(const row_config& row,
                             core::pfb_channelizer& engine,
                             const cl::CommandQueue& queue,
                             const cl::Buffer& out,
                             size_t stride)
    {
        const size_t outputs = engine.outputs();
        auto x = [this](uint64_t k) { return d_signal[k]; };
        return check_three_calls(
            queue,
            engine,
            engine.decimation(),
            out,
            "frames",
            [&](size_t n) { return engine.enqueue(queue, n, out, stride).frames; },
            [&](check_stats& s, size_t frames, uint64_t first) {
                for (size_t f : sample_indices(frames))
                    for (size_t slot : checked_channels(outputs)) {
                        const size_t i =
                            row.frame_major ? f * outputs + slot : slot * stride + f;
                        cfloat got;
                        queue.enqueueReadBuffer(
                            out, CL_TRUE, i * sizeof(cfloat), sizeof got, &got);
                        s.add(reference_output(x, engine, row.M, slot, first + f), got);
                    }
            });
    }

    /*
     * The default engine fed from pinned host memory, 2^C samples per call; sequences
     * of calls serial (one queue) and overlapped (three queues). The outputs of the
     * last calls of each variant are checked.
     */
    void measure_transfers(size_t index)
    {
        const row_config& row = d_rows[index];
        const size_t chunk = d_opt.chunk(), calls = d_opt.calls();
        result ser(index, "serial"), ovl(index, "overlap");
        ser.samples = ovl.samples = chunk * calls;
        ser.calls = ovl.calls = calls;
        try {
            const auto start = clock_type::now();
            // max_input_samples is rounded down to whole frames: room for any chunk.
            core::pfb_channelizer engine(d_ctx,
                                         row.options(chunk + row.decimation() - 1));
            ser.setup_ms = ovl.setup_ms = ms_since(start);
            ser.fused = ovl.fused = engine.fused();
            const size_t D = engine.decimation(), outputs = engine.outputs();
            const size_t stride = (chunk + D - 1) / D; // the most frames of a call
            const size_t out_elements = std::max<size_t>(1, stride * outputs);
            std::vector<cl::Buffer> device_out;
            for (size_t i = 0; i < output_slots; ++i)
                device_out.emplace_back(
                    d_ctx->context(), CL_MEM_READ_WRITE, out_elements * sizeof(cfloat));
            const size_t ring = input_ring * chunk;
            const cfloat* const signal_ring = signal(ring);
            const core::pinned_buffer host_in(d_ctx, ring * sizeof(cfloat));
            const core::pinned_buffer host_out(
                d_ctx, output_slots * out_elements * sizeof(cfloat));
            cfloat* const in_ring = static_cast<cfloat*>(host_in.data());
            cfloat* const out_slots = static_cast<cfloat*>(host_out.data());
            std::copy(signal_ring, signal_ring + ring, in_ring);

            struct call_record {
                uint64_t first = 0;
                size_t frames = 0, expected = 0;
            };
            std::vector<call_record> records(output_slots);
            uint64_t calls_done =
                0; // since the engine started: input chunk calls_done % 4
            auto download_elements = [&](size_t frames) {
                return row.frame_major ? frames * outputs
                                       : (outputs - 1) * stride + frames;
            };
            // One sequence; host wall time from its first enqueue to the end of all.
            auto sequence = [&](bool overlap) {
                std::vector<cl::Event> done(calls), downloaded(calls);
                const auto t0 = clock_type::now();
                for (size_t k = 0; k < calls; ++k) {
                    const auto region = engine.input_region();
                    const cfloat* source = in_ring + (calls_done % input_ring) * chunk;
                    const size_t slot = k % output_slots;
                    cfloat* target = out_slots + slot * out_elements;
                    const uint64_t samples_before = calls_done * chunk;
                    call_record& rec = records[slot];
                    rec.first = samples_before / D;
                    rec.expected = size_t((samples_before + chunk) / D - rec.first);
                    // Overlapped: the window this upload fills was read by call k - 2,
                    // the output buffer last downloaded by call k - 3.
                    const cl::CommandQueue& up = overlap ? d_upload : d_compute;
                    const cl::CommandQueue& down = overlap ? d_download : d_compute;
                    std::vector<cl::Event> free_window, ready(overlap ? 1 : 0);
                    if (overlap && k >= engine_windows)
                        free_window.push_back(done[k - engine_windows]);
                    const auto* wait = free_window.empty() ? nullptr : &free_window;
                    write_region(
                        up, region, source, chunk, false, wait, overlap ? &ready[0] : 0);
                    if (overlap && k >= output_slots)
                        ready.push_back(downloaded[k - output_slots]);
                    const auto r =
                        engine.enqueue(d_compute, chunk, device_out[slot], stride, ready);
                    rec.frames = r.frames;
                    if (overlap)
                        done[k] = downloaded[k] = r.done;
                    ready.assign(overlap ? 1 : 0, r.done); // the download's wait list
                    if (r.frames)
                        down.enqueueReadBuffer(device_out[slot],
                                               CL_FALSE,
                                               0,
                                               download_elements(r.frames) *
                                                   sizeof(cfloat),
                                               target,
                                               overlap ? &ready : nullptr,
                                               overlap ? &downloaded[k] : nullptr);
                    if (overlap)
                        for (const cl::CommandQueue* q :
                             { &d_upload, &d_compute, &d_download })
                            q->flush();
                    ++calls_done;
                }
                d_upload.finish();
                d_compute.finish();
                d_download.finish();
                return ms_since(t0);
            };
            // The last calls' outputs, on the host, against the formula; the input is
            // the pinned ring, repeating.
            auto x = [&](uint64_t k) { return in_ring[k % ring]; };
            auto check = [&] {
                check_stats s;
                for (size_t slot = 0; slot < std::min(output_slots, calls); ++slot) {
                    const call_record& rec = records[slot];
                    if (rec.frames != rec.expected && s.problem.empty())
                        s.problem = std::to_string(rec.frames) + " frames, expected " +
                                    std::to_string(rec.expected);
                    const cfloat* y = out_slots + slot * out_elements;
                    for (size_t f : sample_indices(std::min(rec.frames, rec.expected)))
                        for (size_t o : checked_channels(outputs))
                            s.add(reference_output(x, engine, row.M, o, rec.first + f),
                                  y[row.frame_major ? f * outputs + o : o * stride + f]);
                }
                return s;
            };

            for (result* m : { &ser, &ovl }) {
                const bool overlap = m == &ovl;
                m->note = std::string(m->fused ? "fused" : "FIR, FFT plan, gather") +
                          ", D=" + std::to_string(D) + ", " + std::to_string(calls) +
                          " calls of " + std::to_string(chunk) + " samples, " +
                          (overlap ? "3 queues" : "1 queue");
                attempt(*m, [&] {
                    m->time =
                        repeat([&] { return sequence(overlap); }, d_opt.transfer_reps);
                    m->check = check();
                });
            }
        } catch (const std::exception&) {
            for (result* m : { &ser, &ovl })
                if (m->ok())
                    m->fail();
            drain();
        }
        for (result* m : { &ser, &ovl }) {
            print(*m);
            d_results.push_back(*m);
        }
    }

    /*
     * Chunks of 2^C samples from host memory through a multi_device_pipeline over
     * the first n devices, each chunk's output copied out as a block would; or
     * with `pinned` DMA'd from page-locked memory and read in place (no host
     * copy: what the devices' links carry). Sampled frames of the warm-up
     * sequence's chunks are checked.
     */
    result measure_devices(size_t index, size_t n, bool pinned)
    {
        const row_config& row = d_rows[index];
        const size_t chunk = d_opt.chunk(), calls = d_opt.calls();
        result m(index, pinned ? "devices_pinned" : "devices", n);
        m.samples = chunk * calls;
        m.calls = calls;
        attempt(m, [&] {
            const auto start = clock_type::now();
            const device_pipeline<core::pfb_channelizer> p(
                d_devices, n, row.options(chunk + row.decimation() - 1), d_opt.depth);
            const core::pfb_channelizer& engine = p.front();
            m.setup_ms = ms_since(start);
            m.fused = engine.fused();
            const size_t outputs = engine.outputs();
            m.note = std::to_string(calls) + " chunks of " + std::to_string(chunk) +
                     " samples over " + std::to_string(n) + " device" +
                     (n > 1 ? "s" : "") + ", " + std::to_string(d_opt.depth) +
                     " in flight per device" +
                     (pinned ? ", from and to pinned memory" : ", copied in and out");
            struct point {
                uint64_t frame;
                size_t slot;
                cfloat value;
            };
            std::vector<point> points; // sampled outputs of the untimed sequence
            uint64_t frames_out = 0;
            auto take = [&](const cfloat* y, size_t elements, int sequence) {
                const size_t frames = elements / outputs;
                for (size_t f : sequence ? std::vector<size_t>() : sample_indices(frames))
                    for (size_t slot : checked_channels(outputs))
                        points.push_back({ frames_out + f,
                                           slot,
                                           y[row.frame_major ? f * outputs + slot
                                                             : slot * frames + f] });
                frames_out += frames;
            };
            m.time = stream_signal(
                p, input_ring, chunk, calls, d_opt.transfer_reps, pinned, !pinned, take);
            const uint64_t expected =
                uint64_t(calls) * (d_opt.transfer_reps + 1) * chunk / engine.decimation();
            if (frames_out != expected)
                m.check.fail(std::to_string(frames_out) + " frames, expected " +
                             std::to_string(expected));
            // The stream is the ring of chunks, repeating.
            auto stream = [&](uint64_t k) { return d_signal[k % (input_ring * chunk)]; };
            for (const point& p : points)
                m.check.add(reference_output(stream, engine, row.M, p.slot, p.frame),
                            p.value);
        });
        print(m);
        return m;
    }

    /*
     * The default engine device-resident on the first n devices at once (one
     * engine each, the same calls of 2^S samples on the same input), host wall
     * time per round of calls; then each engine checked against float64 as the
     * "engine" row's is.
     */
    result measure_resident_devices(size_t index, size_t n)
    {
        const row_config& row = d_rows[index];
        result m(index, "resident", n);
        size_t frames = 0; // per call, channel-major rows
        measure_together<core::pfb_channelizer>(
            m,
            n,
            row.options(d_opt.samples()),
            d_opt.warmup,
            d_opt.reps,
            [&](const core::pfb_channelizer& e) {
                m.fused = e.fused();
                frames = e.frames_for(e.max_input_samples());
                return std::to_string(frames) + "-frame calls";
            },
            [&](core::pfb_channelizer& e,
                const cl::CommandQueue& q,
                size_t count,
                const cl::Buffer& out) { e.enqueue(q, count, out, frames); },
            [&](core::pfb_channelizer& e,
                const cl::CommandQueue& q,
                const cl::Buffer& out) { return check_engine(row, e, q, out, frames); });
        print(m);
        return m;
    }

    void set_row_status(size_t index, const std::string& status, const std::string& why)
    {
        for (const char* variant : variants) {
            result m(index, variant);
            m.set_status(status, why);
            d_results.push_back(m);
        }
    }

    void measure_row(size_t index)
    {
        const row_config& row = d_rows[index];
        if (d_opt.limit.reached())
            return set_row_status(index, "not run", d_opt.limit.note());
        std::cout << "\n" << row.describe() << d_progress.step() << std::endl;
        const size_t D = row.decimation();
        if (D == 0 || D > row.M) {
            set_row_status(index,
                           "skipped",
                           "M/r = " + fmt("%g", double(row.M) / row.r) +
                               " is not an integer from 1 to M");
            std::cout << "  skipped: M/r is not an integer from 1 to M" << std::endl;
            return;
        }
        try {
            // The output of a device-resident call: all frames, channel-major rows of
            // `stride` frames or frame-major vectors.
            const size_t frames = std::max<size_t>(1, d_opt.samples() / D);
            const size_t bytes = frames * row.outputs() * sizeof(cfloat);
            if (bytes > d_ctx->info().max_alloc_bytes)
                throw std::runtime_error(
                    "the output of " + size_text(double(bytes)) +
                    " exceeds the device's allocation limit of " +
                    size_text(double(d_ctx->info().max_alloc_bytes)) +
                    ": use a smaller --samples-log2");
            cl::Buffer out(d_ctx->context(), CL_MEM_READ_WRITE, bytes);
            d_results.push_back(measure_device_resident(index, "engine", out, frames));
            const bool direct = d_results.back().direct,
                       sliding = d_results.back().sliding,
                       passes = !d_results.back().fused && !direct;
            // The fused per-frame kernel where the engine takes another: the
            // sliding history, or the passes where that does not fit.
            if (d_opt.per_frame && (sliding || passes))
                d_results.push_back(
                    measure_device_resident(index, "per_frame", out, frames));
            if (d_opt.unfused && !passes)
                d_results.push_back(
                    measure_device_resident(index, "unfused", out, frames));
            if (direct) // beside the FFT path it replaces
                d_results.push_back(measure_device_resident(index, "fft", out, frames));
        } catch (const std::exception&) {
            result m(index, "engine");
            m.fail();
            drain();
            print(m);
            d_results.push_back(m);
        }
        if (d_opt.transfers)
            measure_transfers(index);
        if (d_devices.size() > 1)
            for (size_t n = 1; n <= d_devices.size(); ++n)
                d_results.push_back(measure_resident_devices(index, n));
        if (d_opt.transfers && d_devices.size() > 1)
            for (bool pinned : { false, true })
                for (size_t n = 1; n <= d_devices.size(); ++n)
                    d_results.push_back(measure_devices(index, n, pinned));
    }

    void print(const result& m) const
    {
        static const std::map<std::string, std::string> names = {
            { "engine", "engine" },
            { "per_frame", "fused, per frame" },
            { "unfused", "FIR+FFT passes" },
            { "fft", "FFT, not direct" },
            { "serial", "transfers serial" },
            { "overlap", "transfers overlap" },
            { "devices", "multi-device" },
            { "resident", "device-resident on" },
            { "devices_pinned", "multi-device pinned" },
        };
        std::string name = names.at(m.variant);
        if (m.variant == "resident" || m.variant == "devices" ||
            m.variant == "devices_pinned")
            name += ", " + std::to_string(m.devices);
        if (m.variant == "engine" && m.ok())
            name += m.sliding ? " (sliding)" : m.fused ? " (fused)" : " (passes)";
        m.print(name,
                number(m.gsps()) + " Gsps" +
                    (m.device_resident() ? "  " + number(m.gbs()) + " GB/s" : ""),
                m.device_resident(),
                22);
    }

    const result* find(size_t row, const std::string& variant, size_t devices = 1) const
    {
        for (const auto& m : d_results)
            if (m.row == row && m.variant == variant && m.devices == devices)
                return &m;
        return nullptr;
    }

    void print_device_scaling() const
    {
        std::vector<std::string> labels;
        for (const auto& row : d_rows)
            labels.push_back(row.describe());
        auto table = [&](const std::string& heading, const char* variant) {
            print_scaling(heading + ": input Gsamples/s with the first 1, 2, ... devices",
                          d_devices,
                          labels,
                          [this, variant](size_t line, size_t n) {
                              const result* m = find(line, variant, n);
                              return m && m->ok() ? m->gsps() : nan_value;
                          });
        };
        table("Channelizer device-resident on several devices at once (2^" +
                  std::to_string(d_opt.samples_log2) +
                  " samples per call, the same calls on each device, host time)",
              "resident");
        if (!d_opt.transfers)
            return;
        const std::string streamed =
            "(core::multi_device_pipeline, " + std::to_string(d_opt.depth) +
            " chunks in flight per device, 2^" + std::to_string(d_opt.chunk_log2_used()) +
            " samples per chunk, ";
        table("Channelizer with transfers over several devices " + streamed +
                  "copied from and to ordinary host memory, as a block with host edges)",
              "devices");
        table("Channelizer with transfers over several devices " + streamed +
                  "DMA from and to pinned memory, no host copy)",
              "devices_pinned");
    }

    // Input Gsps the bus allows: uploads and downloads one after the other for
    // "serial", else overlapped.
    double pcie_limit_gsps(const row_config& row, const std::string& variant) const
    {
        return (variant == "serial" ? pcie_serial_limit(d_pcie, row.out_bytes())
                                    : pcie_limit(d_pcie, row.out_bytes())) /
               1e9;
    }

    // The figures of a result: the CSV's columns, and the table's.
    columns<result> result_columns() const
    {
        using r = const result&;
        const double ceiling = copy_ceiling_gbs(d_copies);
        auto row = [this](r m) -> const row_config& { return d_rows[m.row]; };
        // Device-resident rows have a copy ceiling, the first device's transfers a bus.
        auto resident = [](r m, value v) { return m.device_resident() ? v : value(); };
        auto bus = [](r m, double v) {
            return m.device_resident() || m.devices > 1 || m.variant == "resident"
                       ? value()
                       : value(v);
        };
        return columns<result>{
            { "table", [](r) { return "channelizer"; }, true },
            { "M", [row](r m) { return row(m).M; }, true },
            { "K", [row](r m) { return row(m).K; }, true },
            { "r", [row](r m) { return rate_text(row(m).r); }, true },
            { "D", [row](r m) { return row(m).decimation(); }, true },
            { "output",
              [row](r m) {
                  return row(m).map.empty() ? (row(m).frame_major ? "all frame-major"
                                                                  : "all channel-major")
                                            : "subset channel-major";
              },
              true },
            { "outputs", [row](r m) { return row(m).outputs(); }, true },
            { "variant", [](r m) { return m.variant; }, true },
            { "devices", [](r m) { return m.devices; }, true },
            { "fused", [](r m) { return m.fused; } },
            { "sliding", [](r m) { return m.sliding; } },
            { "direct", [](r m) { return m.direct; } },
        } + measured<result>("samples,calls,status,median_ms,min_ms,max_ms,b2b_ms") +
               columns<result>{
                   { "Gsps", "Gsps", 8, [](r m) { return m.gsps(); } },
                   { "Gsps_b2b",
                     [=](r m) { return resident(m, m.per_second_b2b() / 1e9); } },
                   { "GBs", "GB/s", 8, [=](r m) { return resident(m, m.gbs()); } },
                   { "pct_copy",
                     "%copy",
                     6,
                     [=](r m) {
                         return resident(m, value(100 * m.gbs() / ceiling, "%.0f"));
                     } },
                   { "pcie_limit_Gsps",
                     [=](r m) { return bus(m, pcie_limit_gsps(row(m), "overlap")); } },
                   { "pcie_serial_limit_Gsps",
                     [=](r m) { return bus(m, pcie_limit_gsps(row(m), "serial")); } },
                   { "pct_limit",
                     [=](r m) {
                         return bus(m,
                                    100 * m.gsps() / pcie_limit_gsps(row(m), m.variant));
                     } },
               } +
               measured<result>("rel_err,points_checked,nonfinite,setup_ms,note");
    }

    void print_table() const
    {
        const double ceiling = copy_ceiling_gbs(d_copies);
        std::cout
            << "\nPolyphase channelizer on " << d_ctx->info().name
            << ": input Gsamples/s; device-resident 2^" << d_opt.samples_log2
            << " samples per call, device time, median of " << d_opt.reps
            << ".\nGB/s counts 16 B per input sample; %copy: of clEnqueueCopyBuffer's "
            << copy_ceiling_text(ceiling);
        if (d_opt.per_frame)
            std::cout << "; per frame: the fused kernel without the sliding history";
        if (d_opt.unfused)
            std::cout << "; FIR+FFT: max_fused_channels = 1";
        if (d_opt.per_frame || d_opt.unfused)
            std::cout << "; x = its time / the engine's (the engine's speed-up)";
        if (d_opt.transfers)
            std::cout << ".\nWith transfers: 2^" << d_opt.chunk_log2_used()
                      << " samples per call, pinned host memory, host time of "
                      << d_opt.calls() << " calls; pinned " << pcie_text(d_pcie)
                      << "; lim = PCIe limit (Gsps), %lim = overlap / lim";
        std::cout
            << ".\nerr: relative L2 error against float64 over sampled outputs, ! = "
               "check failed\n";

        const columns<result> all = result_columns();
        auto of = [this](const char* variant) {
            return [this, variant](size_t i) { return find(i, variant); };
        };
        auto row = [this](size_t i) -> const row_config& { return d_rows[i]; };
        auto engine_ran = [of](size_t i) {
            const result* e = of("engine")(i);
            return e && e->ok() ? e : nullptr;
        };
        std::vector<table_group> groups = {
            { "",
              { { "", "M", 6, [row](size_t i) { return row(i).M; } },
                { "", "K", 4, [row](size_t i) { return row(i).K; } },
                { "", "r", 4, [row](size_t i) { return rate_text(row(i).r); } },
                { "",
                  "output",
                  10,
                  [row](size_t i) -> value {
                      return !row(i).map.empty()
                                 ? std::to_string(row(i).map.size()) + " ch"
                             : row(i).frame_major ? "frame-maj"
                                                  : "all";
                  } },
                { "",
                  "path",
                  8,
                  [=](size_t i) -> value {
                      const result* e = engine_ran(i);
                      return !e           ? "-"
                             : e->direct  ? "direct"
                             : e->sliding ? "sliding"
                             : e->fused   ? "fused"
                                          : "passes";
                  } } } },
            group("engine, device-resident",
                  of("engine"),
                  { pick(all, "median_ms", "ms", 9),
                    pick(all, "Gsps"),
                    pick(all, "GBs"),
                    pick(all, "pct_copy") })
        };
        // Another variant's rate and the engine's speed-up over it.
        auto against_engine = [&](const char* title, const char* variant) {
            groups.push_back(group(
                title,
                of(variant),
                { pick(all, "Gsps"),
                  { "", "x", 6, [=](const result& u) -> value {
                       const result* e = engine_ran(u.row);
                       return e ? value(u.time.median_ms / e->time.median_ms, "%.2f")
                                : "-";
                   } } }));
        };
        if (d_opt.per_frame)
            against_engine("per frame", "per_frame");
        if (d_opt.unfused)
            against_engine("FIR+FFT", "unfused");
        against_engine("FFT path", "fft");
        if (d_opt.transfers) {
            auto limit = [=](size_t i) {
                return row(i).decimation() ? value(pcie_limit_gsps(row(i), "overlap"))
                                           : value("-");
            };
            auto percent = [=](size_t i) -> value {
                const result* o = of("overlap")(i);
                const double lim = pcie_limit_gsps(row(i), "overlap");
                return o && o->ok() && lim > 0 ? value(100 * o->gsps() / lim, "%.0f")
                                               : "-";
            };
            groups.push_back({ "with transfers (Gsps)",
                               { cell_of(of("serial"), pick(all, "Gsps", "serial", 8)),
                                 cell_of(of("overlap"), pick(all, "Gsps", "overlap", 8)),
                                 { "", "lim", 8, limit },
                                 { "", "%lim", 6, percent } } });
        }
        groups.push_back(error_group([=](size_t i) {
            return std::vector<const measurement*>{ of("engine")(i),  of("per_frame")(i),
                                                    of("unfused")(i), of("fft")(i),
                                                    of("serial")(i),  of("overlap")(i) };
        }));
        harness::print_table(std::cout, groups, d_rows.size());
        print_failures(d_results, [this](const result& m) {
            return d_rows[m.row].describe() + " " + m.variant;
        });
    }

    void write_csv()
    {
        const columns<result> all = result_columns();
        d_csv.header(all);
        add_bandwidth_rows(
            d_csv, d_copies, d_pcie, { { "calls", std::to_string(d_opt.calls()) } });
        for (const auto& m : d_results)
            d_csv.row(all, m, m.ok());
        d_csv.finish();
    }

    // ---- --synthesizer ------------------------------------------------------

    int run_synthesizer()
    {
        print_device_header(program_name, d_ctx->info());
        std::cout << "# pfb_synthesizer, device-resident: 2^" << d_opt.samples_log2
                  << " input samples per call (M inputs, as many output samples); "
                  << d_opt.warmup << " warm-up calls, median of " << d_opt.reps
                  << ", device-side timing\n# taps: Blackman-windowed sinc, K*M taps; "
                     "check: float64 frame formula, err limit "
                  << fmt("%g", max_rel_err) << std::endl;
        warm_up_device(*d_ctx, d_timer, d_opt.samples() * sizeof(cfloat));
        measure_copies(
            "start", d_opt.samples() * sizeof(cfloat), d_opt.warmup, d_opt.reps);
        // Each M x K with the one-pass kernel (where its history fits) and the
        // two passes, in the same run.
        using mode = core::pfb_synthesizer_options::history_mode;
        struct synthesizer_row {
            row_config config;
            bool one_pass;
            result measured;
        };
        std::vector<synthesizer_row> rows;
        for (size_t M : d_opt.channels)
            for (size_t K : d_opt.taps_per_branch)
                for (mode history : { mode::sliding, mode::two_passes }) {
                    const row_config row{ M, K, 1, false, {} };
                    std::cout << "\nsynthesizer M=" << M << " K=" << K
                              << (history == mode::sliding ? " one pass" : " two passes")
                              << std::endl;
                    bool one_pass = false;
                    result m = measure_synthesizer(row, rows.size(), history, one_pass);
                    rows.push_back({ row, one_pass, m });
                }
        measure_copies("end", d_opt.samples() * sizeof(cfloat), d_opt.warmup, d_opt.reps);
        const double ceiling = copy_ceiling_gbs(d_copies);
        std::cout << "\nPolyphase synthesizer on " << d_ctx->info().name
                  << ": output Gsamples/s, device-resident, 2^" << d_opt.samples_log2
                  << " samples per call, device time, median of " << d_opt.reps
                  << ".\nGB/s: the byte floor, 8 B in + 8 B out per output sample; "
                     "%copy: of clEnqueueCopyBuffer's "
                  << copy_ceiling_text(ceiling) << "\n"
                  << "kernel: one pass (sliding history) or two (inverse FFT, then "
                     "FIR); xtwo: the one pass's rate over the two passes' of the same "
                     "M and K\n"
                  << pad("M", 6) << pad("K", 4) << pad("kernel", 12) << pad("ms", 10)
                  << pad("Gsps", 9) << pad("GB/s", 9) << pad("%copy", 7) << pad("err", 10)
                  << pad("xtwo", 7) << "\n";
        std::vector<result> results;
        for (size_t r = 0; r < rows.size(); ++r) {
            const row_config& row = rows[r].config;
            const result& m = rows[r].measured;
            std::cout << pad(std::to_string(row.M), 6) << pad(std::to_string(row.K), 4)
                      << pad(rows[r].one_pass ? "one pass" : "two passes", 12);
            if (m.ok()) {
                std::cout << pad(number(m.time.median_ms), 10) << pad(number(m.gsps()), 9)
                          << pad(number(m.gbs()), 9)
                          << pad(fmt("%.0f", 100 * m.gbs() / ceiling), 7)
                          << pad(fmt("%.2g", m.check.rel_err()) +
                                     (m.check.passed() ? "" : "!"),
                                 10);
                // rows come in pairs: the one-pass request, then the two passes
                const result& two = rows[r + 1 - r % 2].measured;
                if (r % 2 == 0 && rows[r].one_pass && two.ok())
                    std::cout << pad(fmt("%.2f", m.gsps() / two.gsps()), 7);
            } else {
                std::cout << "  " << m.status << ": " << m.note;
            }
            std::cout << "\n";
            results.push_back(m);
        }
        std::cout << std::flush;
        print_failures(results, [&](const result& m) {
            return "synthesizer " + rows[m.row].config.describe();
        });
        return verdict(results, "");
    }

    result measure_synthesizer(const row_config& row,
                               size_t index,
                               core::pfb_synthesizer_options::history_mode history,
                               bool& one_pass)
    {
        result m(index, "engine");
        attempt(m, [&] {
            const size_t M = row.M;
            const std::vector<double> h = windowed_sinc(row.K * M, 0.5 / double(M));
            core::pfb_synthesizer_options o;
            o.channels = M;
            o.inputs = M;
            o.taps.assign(h.begin(), h.end());
            o.max_input_samples = d_opt.samples();
            o.history = history;
            const auto start = clock_type::now();
            core::pfb_synthesizer engine(d_ctx, o);
            m.setup_ms = ms_since(start);
            m.samples = engine.max_input_samples();
            one_pass = engine.sliding();
            m.note = (one_pass ? std::string("one pass, the history in registers; ")
                      : history == core::pfb_synthesizer_options::history_mode::sliding
                          ? std::string("the history does not fit the registers: ") +
                                "inverse FFT plan, branch FIR; "
                          : std::string("inverse FFT plan on the frames where they are, "
                                        "branch FIR; ")) +
                     std::to_string(m.samples / M) + " frames per call";
            const cl::Buffer out(d_ctx->context(),
                                 CL_MEM_READ_WRITE,
                                 engine.max_output_elements() * sizeof(cfloat));
            auto x = [this](uint64_t k) { return d_signal[k]; };
            m.check = check_three_calls(
                d_compute,
                engine,
                M,
                out,
                "frames",
                [&](size_t n) {
                    cl::Event done;
                    return engine.run(d_compute, n, out, {}, done) / M;
                },
                [&](check_stats& s, size_t frames, uint64_t first) {
                    for (size_t f : sample_indices(frames))
                        for (size_t i : checked_channels(M)) {
                            cfloat got;
                            d_compute.enqueueReadBuffer(out,
                                                        CL_TRUE,
                                                        (f * M + i) * sizeof(cfloat),
                                                        sizeof got,
                                                        &got);
                            s.add(synthesizer_output(x, o.taps, M, first + f, i), got);
                        }
                });
            m.time = time_calls(engine,
                                m.samples,
                                d_opt.warmup,
                                d_opt.reps,
                                [&](const cl::CommandQueue& q, size_t n) {
                                    cl::Event done;
                                    engine.run(q, n, out, {}, done);
                                });
        });
        print(m);
        return m;
    }

    bench_options d_opt;
    cl::CommandQueue d_upload, d_download; // no profiling
    std::vector<row_config> d_rows;
    std::vector<result> d_results;
};


} // namespace

int main(int argc, char** argv)
{
    return bench_main<bench>(argc, argv, declare_options, help);
}
