/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * wideband_flowgraph_bench: gr-wideband blocks inside real GNU Radio flowgraphs
 * (C++, GNU Radio's runtime, no Python), beside the machine's PCIe bandwidth
 * measured in the same run. Its help text states the method.
 */

#include "bench/harness.h"

#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/null_source.h>
#include <gnuradio/blocks/stream_to_streams.h>
#include <gnuradio/blocks/streams_to_vector.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/fft/fft_v.h>
#include <gnuradio/filter/fft_filter_ccc.h>
#include <gnuradio/filter/fft_filter_fff.h>
#include <gnuradio/filter/firdes.h>
#include <gnuradio/filter/freq_xlating_fir_filter.h>
#include <gnuradio/filter/pfb_arb_resampler_ccf.h>
#include <gnuradio/filter/pfb_channelizer_ccf.h>
#include <gnuradio/filter/pfb_decimator_ccf.h>
#include <gnuradio/filter/pfb_synthesizer_ccf.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <gnuradio/wideband/channel_bank_ccc.h>
#include <gnuradio/wideband/core/host_copy.h>
#include <gnuradio/wideband/core/pinned_buffer.h>
#include <gnuradio/wideband/core/sample_format.h>
#include <gnuradio/wideband/core/stream_config.h>
#include <gnuradio/wideband/edge_memory.h>
#include <gnuradio/wideband/fft_filter.h>
#include <gnuradio/wideband/fft_filter_fff.h>
#include <gnuradio/wideband/fft_v.h>
#include <gnuradio/wideband/opencl_buffer.h>
#include <gnuradio/wideband/pfb_arb_resampler_ccf.h>
#include <gnuradio/wideband/pfb_channelizer_ccf.h>
#include <gnuradio/wideband/pfb_decimator_ccf.h>
#include <gnuradio/wideband/pfb_synthesizer_ccf.h>

#include <pthread.h>
#include <sched.h>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <random>
#include <thread>

using namespace harness;
namespace wb = gr::wideband;

namespace {

const char* const program = "wideband_flowgraph_bench";

const std::vector<std::string> row_groups = { "verify",  "pcie",          "source",
                                              "host-in", "chain",         "in-tree",
                                              "bank",    "decimator",     "synthesizer",
                                              "fff",     "arb_resampler", "devices",
                                              "cross",   "realtime" };

struct bench_options : common_options {
    double seconds = 3.0;
    std::vector<size_t> channels{ 64, 256, 1024 };
    std::vector<core::sample_format> input_types{ core::sample_format::fc32 };
    size_t taps_per_channel = 8;
    size_t chain_taps = 256;
    size_t chain_channels = 64;
    size_t feed_buffer_log2 = 21;
    std::string source = "vector";
    bool pcie = true;
    bool baseline = false;
    double realtime_msps = 200;   // the paced source's nominal rate
    double realtime_fifo_ms = 20; // the receiver's buffer before it overflows
    bool realtime_search = false;
    bool realtime_priority = true; // the receiver's thread SCHED_FIFO
    bool realtime_vector = false;  // one sink of vectors instead of C sinks
    int realtime_cpu = -1;         // the receiver's own CPU; -1: not pinned
    std::vector<std::string> only; // row groups to run; empty: all
    bank_plans banks = [] {        // the --bank-* options: 10 and 100 channels
        bank_plans b;
        b.channels = { 10, 100 };
        return b;
    }();

    bool runs(const std::string& group) const
    {
        return only.empty() || std::find(only.begin(), only.end(), group) != only.end();
    }
};

void declare_options(bench_options& o, option_table& t)
{
    auto source = [&o](const std::string& arg, const std::string& v) {
        if (v != "vector" && v != "null")
            throw usage_error(arg + ": '" + v + "' is not vector or null");
        o.source = v;
    };
    auto input_types = [&o](const std::string& arg, const std::string& v) {
        o.input_types.clear();
        for (const auto& type : split(arg, v))
            try {
                o.input_types.push_back(core::parse_sample_format(type));
            } catch (const std::invalid_argument& e) {
                throw usage_error(arg + ": " + e.what());
            }
    };
    auto realtime_cpu = [&o](const std::string& arg, const std::string& v) {
        const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
        char* end = nullptr;
        const long cpu = std::strtol(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || cpu < 0 || cpu >= long(cpus) || cpus < 2)
            throw usage_error(arg + ": '" + v + "' is not a CPU of this host (0.." +
                              std::to_string(cpus - 1) +
                              ", and another left for the flowgraph)");
        o.realtime_cpu = int(cpu);
    };
    auto only = [&o](const std::string& arg, const std::string& v) {
        o.only = split(arg, v);
        for (const auto& group : o.only)
            if (!contains(row_groups, group))
                throw usage_error(arg + ": '" + group + "' is not one of " +
                                  join(row_groups, ", "));
    };
    t.add({
        { { "--seconds", "S", &o.seconds, 0.05 }, "time per flowgraph after warm-up" },
        { { "--channels", "LIST", &o.channels, 2, 65536 }, "M of the host-in rows" },
        { { "--input-types", "LIST", input_types },
          "sample types of the host-in rows' source and channelizer (fc32, sc16, sc8) "
          "[fc32]" },
        { { "--taps-per-channel", "K", &o.taps_per_channel, 1, 256 },
          "channelizer taps per channel" },
        { { "--chain-taps", "T", &o.chain_taps, 1, 1 << 20 },
          "fft_filter_ccc taps in the chain" },
        { { "--chain-channels", "M", &o.chain_channels, 2, 65536 },
          "channelizer and fft_vcc size in the chain" },
        { { "--feed-buffer-log2", "F", &o.feed_buffer_log2, 10, 30 },
          "the device feed's output buffer of the rows of a block alone: at least 2^F "
          "samples (GNU Radio's min_output_buffer) [21: GNU Radio sizes it]" },
        { { "--source", "vector|null", source, o.source },
          "host source: vector_source_c repeating 2^20 random samples, or null_source "
          "(zeros, memset)" },
        { { "--baseline", &o.baseline }, "also run GNU Radio's in-tree channelizer" },
        { { "--no-pcie", &o.pcie, false }, "skip the PCIe measurement" },
        { { "--realtime-rate", "MSPS", &o.realtime_msps, 0.001 },
          "realtime: the receiver's sample rate, Msamples/s" },
        { { "--realtime-fifo", "MS", &o.realtime_fifo_ms, 0.1 },
          "realtime: the receiver's buffer, milliseconds of samples" },
        { { "--realtime-normal-priority", &o.realtime_priority, false },
          "realtime: the receiver's thread at normal priority (default: SCHED_FIFO "
          "where allowed, as radio drivers run theirs)" },
        { { "--realtime-vector", &o.realtime_vector },
          "realtime: the channels as one output of vectors into one sink (one "
          "decimation for all) instead of C outputs and sinks" },
        { { "--realtime-search", &o.realtime_search },
          "realtime: also search the highest rate without an overflow" },
        { { "--realtime-cpu", "N", realtime_cpu },
          "realtime: the receiver's thread alone on CPU N, every other block of the "
          "flowgraph on the other CPUs (GNU Radio's processor affinity) [not pinned]" },
    });
    o.banks.declare(t);
    t.add({
        { { "--only", "GROUPS", only },
          "run only these row groups (comma-separated: " + join(row_groups, ", ") +
              "; chain includes the blocks alone) [all]" },
    });
}

const char* const about =
    R"(gr-wideband blocks in GNU Radio flowgraphs run by GNU Radio's own scheduler
(C++, no Python), each flowgraph for a fixed time:

  verify    the chain below from a host source to a host sink against the
            same chain of GNU Radio's in-tree blocks (fft_filter_ccc,
            stream_to_streams + pfb_channelizer_ccf + streams_to_vector,
            fft_vcc) on random input of several chunks: every output sample
            compared (exit status 1 beyond 1e-4 of the largest output).
  pcie      the machine's host<->device bandwidth through OpenCL: pinned
            (CL_MEM_ALLOC_HOST_PTR, mapped) host->device, device->host and
            both at once, and host->device from ordinary (pageable) memory.
            256 MiB per copy, 1 warm-up, median of 5. With several devices,
            for each, and the links between the first two (rows "links"):
            both uploading at once, both uploading and downloading at once,
            the second's upload from and download into the first's pinned
            memory, a copy between them in one shared OpenCL context, and the
            host's copy rate (core::host_copy).
  source    the host source alone into a null sink: what the host side can
            feed at most.
  host-in   source -> pfb_channelizer_ccf (M channels, r = 1, K*M taps, every
            channel an output) -> M null sinks: the block copies its input
            from GNU Radio's buffer into pinned staging memory (uploading each
            piece as it is copied) and DMAs its output straight into the
            sinks' pinned buffers. Again with a
            feed (a host source that produces items without writing them, as
            a receiver's driver that DMAs them would: the block's edge without
            the source's cost), and with the channels as one vector output
            into one sink (without GNU Radio's M sink threads). For each of
            --input-types (sc16, sc8: a source of complex integers, converted
            on the device), and the host copy of one chunk of that type into
            pinned memory (rows "staging": what the block's staging costs per
            chunk, core::host_copy, median of 5).
  alone     each block of the chain between a device-resident feed and drain
            (test blocks of this program that produce and consume device
            memory without touching it): the block's throughput inside GNU
            Radio with its data on the device.
  chain     feed -> fft_filter_ccc (T taps) -> pfb_channelizer_ccf (M, vector
            output) -> fft_vcc (M) -> drain, device buffers on every edge; and
            the same chain from the host source to a null sink.
  in-tree   (--baseline) GNU Radio's own stream_to_streams +
            filter.pfb_channelizer_ccf at the first M, same source and sinks.
  decimator for each --channels M as decim: source -> pfb_decimator_ccf
            (channel 1, K taps per branch) -> null sink, and between a device
            feed and drain; with --baseline GNU Radio's stream_to_streams +
            filter.pfb_decimator_ccf from the same source.
  synthesizer for each --channels M: a host source of M-vectors ->
            pfb_synthesizer_ccf (vector input, K taps per branch) -> null
            sink; M host sources -> the block's M inputs -> null sink; the
            vector block between a device feed and drain; with --baseline M
            host sources -> GNU Radio's filter.pfb_synthesizer_ccf -> null
            sink. Rate: channel samples in (= samples out) per second.
  fff       fft_filter_fff (--chain-taps random real taps, decimation 1 and
            4) from a vector source of floats -> null sink, from a host feed
            (the source's cost left out), and between a device feed and
            drain; with --baseline GNU Radio's fft_filter_fff from the vector
            source on 1 thread and on one per core.
  arb_resampler  for the rates 0.6144, 1/3.7, 2.5: source ->
            pfb_arb_resampler_ccf (32 filters of K taps) -> null sink, and
            between a device feed and drain (input Msps); with --baseline GNU
            Radio's filter.pfb_arb_resampler_ccf from the same source.
  bank      for each channel-bank plan (--bank-*, as wideband_filter_bench's:
            C channels at random centres, decimation D or a mixed plan, T
            Kaiser-windowed sinc taps each): the CPU bank, source -> C of GNU
            Radio's freq_xlating_fir_filter_ccc (one thread each) -> C null
            sinks; then channel_bank_ccc from the same source, from a feed
            (ratio: of pinned host->device), and between a device feed and C
            device drains (ratio: x the CPU bank), each -> C sinks.
  cross     (--device naming several) the chain from a device feed to a
            device drain with the filter on the first device and the
            channelizer and fft_vcc on the second: the edge between them
            crosses devices (pinned host memory of the first).
  devices   (--device naming several) the blocks with device strings naming
            the first 1, 2, ..., N devices, chunks spread over them in turn
            (pinned host memory on their output edges): host source ->
            channelizer -> M sinks and feed -> channelizer -> 1 sink of
            vectors (each --channels M), feed -> channel bank -> C sinks (each
            --bank-* plan), and host source -> chain -> null sink; a table of
            Msamples/s by device count.
  realtime  for each --bank-* plan and --input-types type: a receiver of
            samples of that type at --realtime-rate (a source
            that delivers samples by the wall clock into GNU Radio's buffer,
            losing and counting those its FIFO of --realtime-fifo cannot hold
            when the flowgraph falls behind, as a radio overflows) ->
            channel_bank_ccc -> C null sinks (or one sink of vectors,
            --realtime-vector) (the receiver's thread SCHED_FIFO
            where allowed; with --realtime-cpu, alone on its CPU): the
            samples lost in the window (and before it:
            kernel builds, warm-up), each overflow told apart by GNU Radio's
            buffer being full (the flowgraph behind) or not (the receiver's
            thread not run in time), and how far the slowest
            channel's output trails the input against the bank's latency. With
            --realtime-search, the highest rate losing nothing in a window
            of --seconds, within 3 % (doubling, then bisection). A long
            window (--seconds 600) prints a line a minute.

Every other row runs on the first device of --device; pcie is measured for
each device.

Throughput: input samples of the flowgraph's first gr-wideband block per
second (nitems_read), counted over --seconds after a 1 s warm-up. Every
flowgraph prints where the data of its edges lives (device / pinned host /
host, see wideband.input_memory()).
)";

const char* const examples = R"(  wideband_flowgraph_bench --device gpu
  wideband_flowgraph_bench --device gpu --channels 64,1024 --baseline --csv fg.csv
  wideband_flowgraph_bench --device cpu --seconds 0.5 --channels 16 --chain-taps 32
  wideband_flowgraph_bench --device gpu --only pcie,bank --bank-channels 10,100
  wideband_flowgraph_bench --device gpu --only realtime --bank-channels 100
      --bank-decimation 100 --bank-mixed 0 --seconds 10 --realtime-search
)";

const bench_help help = { program, about, examples, "" };

// ---- test blocks ------------------------------------------------------------

//! Complex normal noise, the same for the same seed.
std::vector<gr_complex> normal_noise(size_t count, unsigned seed)
{
    std::vector<gr_complex> noise(count);
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    for (auto& x : noise)
        x = gr_complex(normal(rng), normal(rng));
    return noise;
}

//! Connects output 0 of each block to input 0 of the next.
void connect_in_series(const gr::top_block_sptr& tb,
                       const std::vector<gr::basic_block_sptr>& blocks)
{
    for (size_t i = 1; i < blocks.size(); ++i)
        tb->connect(blocks[i - 1], 0, blocks[i], 0);
}

// Buffer of the feeds: large batches, as a real wideband source would deliver.
constexpr size_t feed_buffer_samples = size_t(1) << 21;

/*
 * A host source that costs nothing: produces items without writing them. What
 * a gr-wideband block's host edges sustain when the source is not the limit.
 */
class host_feed : public gr::sync_block
{
public:
    explicit host_feed(size_t item_bytes = sizeof(gr_complex))
        : gr::sync_block("host_feed",
                         gr::io_signature::make(0, 0, 0),
                         gr::io_signature::make(1, 1, int(item_bytes)))
    {
        set_min_output_buffer(long(feed_buffer_samples));
    }
    int work(int noutput_items, gr_vector_const_void_star&, gr_vector_void_star&) override
    {
        return noutput_items;
    }
};

/*
 * A receiver at a fixed sample rate, as a radio's driver delivers samples: by
 * wall-clock time, from a buffer (the FIFO) that overflows when the flowgraph
 * does not take them in time. The samples overflowing are lost and counted,
 * as a radio's "O". Each delivered sample is copied into GNU Radio's buffer
 * (the driver's copy out of its receive frames) from a cycle of noise.
 */
class paced_source : public gr::sync_block
{
public:
    //! Samples of \p type; \p realtime: the receiving thread at a real-time
    //! priority, as radio drivers run theirs.
    paced_source(double rate,
                 size_t fifo_samples,
                 bool realtime,
                 core::sample_format type)
        : gr::sync_block("paced_source",
                         gr::io_signature::make(0, 0, 0),
                         gr::io_signature::make(1, 1, int(core::sample_bytes(type)))),
          d_rate(rate),
          d_fifo(fifo_samples),
          d_realtime(realtime),
          d_sample_bytes(core::sample_bytes(type)),
          d_noise(noise_bytes(type))
    {
        set_min_output_buffer(long(feed_buffer_samples));
    }

    struct counts {
        uint64_t delivered = 0, lost = 0;
        // Overflows with GNU Radio's buffer full at the last call (the
        // flowgraph behind), and with room left in it (the thread not run).
        uint64_t full = 0, late = 0;
        // At an overflow, the longest time since the receiver last delivered
        // (since the last snapshot()).
        double longest_stall_ms = 0;
        std::string priority; // of the receiving thread
    };
    //! The counts now: samples due that the FIFO cannot hold are lost also
    //! while the flowgraph does not call work().
    counts snapshot()
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        take_due(clock_type::now());
        const counts now = d_counts;
        d_counts.longest_stall_ms = 0;
        return now;
    }

    bool start() override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_start = d_last_delivery = clock_type::now(); // the receiver streams from here
        return true;
    }

    int
    work(int noutput_items, gr_vector_const_void_star&, gr_vector_void_star& out) override
    {
        // Waits for a packet's worth (a driver's receive frame, at most 10 ms
        // of samples): a source that returned nothing would not be called
        // again before its output is read.
        const uint64_t packet = std::max<uint64_t>(
            1,
            std::min<uint64_t>(
                { uint64_t(noutput_items), 16384, uint64_t(d_rate / 100) }));
        std::unique_lock<std::mutex> lock(d_mutex); // snapshot() reads d_counts
        if (d_counts.priority.empty())
            d_counts.priority = raise_priority();
        uint64_t waiting;
        while ((waiting = take_due(clock_type::now())) < packet) {
            lock.unlock();
            std::this_thread::sleep_for(
                std::chrono::duration<double>(double(packet - waiting) / d_rate));
            lock.lock();
        }
        lock.unlock();
        const size_t n = std::min<uint64_t>(waiting, uint64_t(noutput_items));
        auto* y = static_cast<char*>(out[0]);
        for (size_t done = 0, bytes = n * d_sample_bytes; done < bytes;) {
            const size_t piece = std::min(bytes - done, d_noise.size() - d_next);
            std::memcpy(y + done, d_noise.data() + d_next, piece);
            done += piece;
            d_next = (d_next + piece) % d_noise.size();
        }
        lock.lock();
        d_counts.delivered += n;
        d_buffer_full = n == size_t(noutput_items);
        d_last_delivery = clock_type::now();
        return int(n);
    }

private:
    //! The samples due by \p now and not yet delivered, after losing those the
    //! FIFO cannot hold (d_mutex held).
    uint64_t take_due(clock_type::time_point now)
    {
        const auto due =
            uint64_t(d_rate * std::chrono::duration<double>(now - d_start).count());
        const uint64_t waiting = due - d_counts.delivered - d_counts.lost;
        if (waiting <= d_fifo)
            return waiting;
        d_counts.lost += waiting - d_fifo;
        ++(d_buffer_full ? d_counts.full : d_counts.late);
        d_counts.longest_stall_ms = std::max(
            d_counts.longest_stall_ms,
            std::chrono::duration<double, std::milli>(now - d_last_delivery).count());
        return d_fifo;
    }

    //! 2^20 samples of \p type: complex normal noise, or integers uniform over
    //! their range.
    static std::vector<char> noise_bytes(core::sample_format type)
    {
        std::vector<char> bytes(core::sample_bytes(type) << 20);
        if (type == core::sample_format::fc32) {
            const auto noise = normal_noise(size_t(1) << 20, 4);
            std::memcpy(bytes.data(), noise.data(), bytes.size());
        } else {
            std::mt19937 rng(4);
            for (auto& b : bytes)
                b = char(rng());
        }
        return bytes;
    }

    //! SCHED_FIFO for the calling thread if asked and allowed; says which.
    std::string raise_priority() const
    {
        if (!d_realtime)
            return "normal priority";
        sched_param param{};
        param.sched_priority = sched_get_priority_max(SCHED_FIFO) / 2;
        if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) != 0)
            return "normal priority (SCHED_FIFO refused)";
        return "SCHED_FIFO " + std::to_string(param.sched_priority);
    }

    const double d_rate;
    const uint64_t d_fifo;
    const bool d_realtime;
    const size_t d_sample_bytes;
    const std::vector<char> d_noise; // 2^20 samples, delivered in turn
    size_t d_next = 0;               // the byte of d_noise delivered next
    std::mutex d_mutex;
    clock_type::time_point d_start, d_last_delivery;
    bool d_buffer_full = false; // the last call filled GNU Radio's buffer
    counts d_counts;
};

/*
 * A test block at one end of a device-resident chain: a feed produces items in
 * device memory without computing them (the buffer is filled with random
 * samples once), as fast as the buffer allows; a drain consumes them without
 * reading them.
 */
class device_end : public gr::sync_block, public wb::opencl_block
{
public:
    device_end(bool feed,
               core::device_context::sptr context,
               size_t vlen,
               size_t sample_bytes,
               size_t buffer_samples = feed_buffer_samples)
        : gr::sync_block(
              feed ? "device_feed" : "device_drain",
              feed ? gr::io_signature::make(0, 0, 0) : port(vlen, sample_bytes),
              feed ? port(vlen, sample_bytes) : gr::io_signature::make(0, 0, 0)),
          d_context(std::move(context)),
          d_feed(feed)
    {
        if (feed)
            set_min_output_buffer(long(std::max<size_t>(1, buffer_samples / vlen)));
    }
    core::device_context::sptr opencl_context() const override { return d_context; }
    bool reads_any_amount() const override { return !d_feed; }

    int work(int noutput_items, gr_vector_const_void_star&, gr_vector_void_star&) override
    {
        if (d_feed && !d_filled) {
            wb::stream_port port = wb::output_port(*this, 0);
            if (port.where == wb::stream_port::kind::device) {
                const cl::Buffer& memory = port.buffer->device_memory();
                const size_t bytes = memory.getInfo<CL_MEM_SIZE>();
                const auto noise = normal_noise(bytes / sizeof(cfloat), 1);
                cl::CommandQueue queue = d_context->create_queue();
                queue.enqueueWriteBuffer(memory, CL_TRUE, 0, bytes, noise.data());
            }
            d_filled = true;
        }
        return noutput_items;
    }

private:
    static gr::io_signature::sptr port(size_t vlen, size_t sample_bytes)
    {
        return gr::io_signature::make(
            1, 1, int(vlen * sample_bytes), wb::opencl_buffer::type);
    }

    core::device_context::sptr d_context;
    const bool d_feed;
    bool d_filled = false;
};

//! \p buffer_samples: the least size of its output buffer (GNU Radio's
//! min_output_buffer; it sizes it for the reader otherwise).
gr::block_sptr device_feed(core::device_context::sptr context,
                           size_t vlen,
                           size_t sample_bytes = sizeof(gr_complex),
                           size_t buffer_samples = feed_buffer_samples)
{
    return gnuradio::make_block_sptr<device_end>(
        true, std::move(context), vlen, sample_bytes, buffer_samples);
}

gr::block_sptr device_drain(core::device_context::sptr context,
                            size_t vlen,
                            size_t sample_bytes = sizeof(gr_complex))
{
    return gnuradio::make_block_sptr<device_end>(
        false, std::move(context), vlen, sample_bytes);
}

// ---- measurements ----------------------------------------------------------

struct row : measurement {
    row(std::string flowgraph,
        std::string what,
        std::string edges,
        double msps,
        double gbs = nan_value)
        : flowgraph(std::move(flowgraph)),
          what(std::move(what)),
          edges(std::move(edges)),
          msps(msps),
          gbs(gbs)
    {
    }
    std::string flowgraph;
    std::string what;
    std::string edges; // where the data of the edges lives
    double msps;
    double gbs;               // PCIe rows: the bus's; else input samples'
    size_t sample_bytes = 8;  // of the input samples
    size_t devices = 1;       // of the gr-wideband blocks (devices rows)
    double ratio = nan_value; // of `ratio_of`
    std::string ratio_of;
};

class bench
{
public:
    bench(const bench_options& options, std::vector<core::device_context::sptr> devices)
        : d_opt(options),
          d_devices(std::move(devices)),
          d_ctx(d_devices.front()),
          d_csv(options.csv)
    {
    }

    int run()
    {
        std::cout << program << ": ";
        for (const auto& device : d_devices)
            std::cout << (device == d_ctx ? "" : ", ") << device->info().address() << " "
                      << device->info().name << " (" << device->info().platform_name
                      << ")";
        std::cout << "; " << d_opt.seconds << " s per flowgraph, source " << d_opt.source
                  << std::endl;
        if (d_opt.runs("verify") && !verify_chain())
            return 1;
        if (d_opt.pcie && d_opt.runs("pcie"))
            measure_pcie();
        if (d_opt.runs("source"))
            measure_source();
        if (d_opt.runs("host-in")) {
            for (core::sample_format type : d_opt.input_types)
                measure_staging_copy(type);
            for (size_t m : d_opt.channels)
                for (core::sample_format type : d_opt.input_types) {
                    measure_host_channelizer(m, false, false, "host-in", 1, type);
                    measure_host_channelizer(m, true, false, "host-in", 1, type);
                    measure_host_channelizer(m, true, true, "host-in", 1, type);
                }
        }
        if (d_opt.runs("chain"))
            measure_chain();
        if (d_opt.baseline && d_opt.runs("in-tree"))
            measure_in_tree(d_opt.channels.front());
        if (d_opt.runs("decimator"))
            for (size_t m : d_opt.channels)
                measure_decimator(m);
        if (d_opt.runs("synthesizer"))
            for (size_t m : d_opt.channels)
                measure_synthesizer(m);
        if (d_opt.runs("fff"))
            for (int decimation : { 1, 4 })
                measure_filter_fff(decimation);
        if (d_opt.runs("arb_resampler"))
            for (float rate : { 0.6144f, 1.0f / 3.7f, 2.5f })
                measure_arb_resampler(rate);
        const bool several = d_devices.size() > 1;
        if (several && d_opt.runs("cross"))
            measure_cross_device();
        if (several && d_opt.runs("devices"))
            measure_devices();
        bool failed = false; // a bank plan's flowgraph: the others still run
        if (d_opt.runs("bank"))
            for (const bank_plan& plan : d_opt.banks.plans())
                try {
                    measure_bank(plan);
                } catch (const std::exception& e) {
                    std::cout << "bank " << plan.name
                              << ": failed: " << one_line(e.what()) << std::endl;
                    failed = true;
                }
        if (d_opt.runs("realtime"))
            for (const bank_plan& plan : d_opt.banks.plans())
                for (core::sample_format type : d_opt.input_types)
                    measure_realtime(plan, type);
        print_table();
        if (d_csv.enabled())
            d_csv.finish();
        return failed ? 1 : 0;
    }

private:
    void add(const row& r)
    {
        d_rows.push_back(r);
        std::cout << "  " << std::left << std::setw(10) << r.flowgraph << std::setw(58)
                  << r.what << std::right
                  << (std::isnan(r.msps) ? harness::fmt("%8.1f GB/s", r.gbs)
                                         : harness::fmt("%8.0f Msps", r.msps))
                  << "  " << r.edges << std::endl;
    }

    // 256 MiB per copy, 1 warm-up, median of 5 (bench/harness.h).
    void measure_pcie()
    {
        for (const auto& device : d_devices) {
            const auto pcie =
                harness::measure_pcie(device, size_t(256) << 20, 1, 5, true, true);
            // The first device's rows are the ratios' reference (measured_gbs()).
            const std::string on =
                device == d_ctx ? "" : " (" + device->info().address() + ")";
            for (const auto& [what, direction, ways] :
                 { std::tuple("host->device, pinned", "h2d", 1),
                   std::tuple("device->host, pinned", "d2h", 1),
                   std::tuple("both at once, pinned (each way)", "both", 2),
                   std::tuple("host->device, pageable", "h2d-pageable", 1) })
                add(row(
                    "pcie", what + on, "", nan_value, pcie_gbs(pcie, direction) / ways));
        }
        if (d_devices.size() > 1)
            for (const auto& link :
                 harness::measure_device_links(d_devices, 256 << 20, 5))
                add(row("links",
                        link.what + (link.note.empty() ? "" : " (" + link.note + ")"),
                        "",
                        nan_value,
                        link.gbs));
    }

    //! d_opt.source of samples of \p type (integers: uniform over their range).
    gr::basic_block_sptr
    make_source(core::sample_format type = core::sample_format::fc32) const
    {
        if (d_opt.source == "null")
            return gr::blocks::null_source::make(core::sample_bytes(type));
        if (type == core::sample_format::fc32)
            return gr::blocks::vector_source_c::make(normal_noise(size_t(1) << 20, 2),
                                                     true);
        std::mt19937 rng(2);
        std::vector<short> parts(size_t(2) << 20);
        for (auto& p : parts)
            p = short(rng());
        if (type == core::sample_format::sc16)
            return gr::blocks::vector_source_s::make(parts, true, 2);
        return gr::blocks::vector_source_b::make(
            std::vector<unsigned char>(parts.begin(), parts.end()), true, 2);
    }

    //! The host copy of one chunk of \p type into pinned memory: the block's
    //! staging of a chunk from a host source (median of 5).
    void measure_staging_copy(core::sample_format type)
    {
        const size_t samples =
            core::stream_config::for_device(d_ctx->info()).chunk_samples;
        const size_t bytes = samples * core::sample_bytes(type);
        const std::vector<char> source(bytes, 1);
        core::pinned_buffer staging(d_ctx, bytes);
        std::vector<double> ms;
        for (int i = 0; i < 6; ++i) { // the first one warms up
            const auto start = clock_type::now();
            core::host_copy(staging.data(), source.data(), bytes);
            if (i > 0)
                ms.push_back(ms_since(start));
        }
        const double median = median_of(ms);
        add(row("staging",
                "host copy of a chunk: " + std::to_string(samples) + " " +
                    core::sample_format_name(type) + " samples" +
                    harness::fmt(" (%.0f MiB), ", double(bytes) / (1 << 20)) +
                    harness::fmt("%.2f ms", median),
                "",
                nan_value,
                double(bytes) / (median * 1e6)));
    }

    //! Runs \p tb until \p tail has seen output (kernels are built at first
    //! launch), a 1 s warm-up and d_opt.seconds; adds the row of the input samples
    //! per second of \p counted (its input 0, times \p scale) with where its
    //! edges are (describe(), or "host").
    void run_for(const gr::top_block_sptr& tb,
                 const gr::block_sptr& counted,
                 const gr::block_sptr& tail,
                 const std::string& what,
                 const std::function<std::string()>& describe = {},
                 double scale = 1)
    {
        tb->start();
        const auto started = clock_type::now();
        while (tail->nitems_read(0) == 0 && ms_since(started) < 120e3)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        std::this_thread::sleep_for(std::chrono::seconds(1));
        const std::string edges = describe ? describe() : "host";
        const uint64_t first = counted->nitems_read(0);
        const auto start = clock_type::now();
        std::this_thread::sleep_for(std::chrono::duration<double>(d_opt.seconds));
        const uint64_t last = counted->nitems_read(0);
        const double seconds = ms_since(start) * 1e-3;
        tb->stop();
        tb->wait();
        if (last == first)
            throw std::runtime_error("flowgraph '" + tb->name() +
                                     "' made no progress in the timed window");
        add(row(tb->name(), what, edges, double(last - first) / seconds / 1e6 * scale));
    }

    void measure_source()
    {
        auto tb = gr::make_top_block("source");
        auto src = make_source();
        auto sink = gr::blocks::null_sink::make(sizeof(gr_complex));
        tb->connect(src, 0, sink, 0);
        run_for(tb, sink, sink, d_opt.source + " source -> null sink");
    }

    std::vector<float> channel_taps(size_t m) const
    {
        return gr::filter::firdes::low_pass_2(
            1.0, double(m), 0.45, 0.1, 80, gr::fft::window::WIN_BLACKMAN_hARRIS);
    }

    std::vector<float> exact_taps(size_t m) const
    {
        std::vector<float> taps = channel_taps(m);
        taps.resize(m * d_opt.taps_per_channel, 0.0f);
        return taps;
    }

    //! Host source of samples of \p type -> channelizer (M, r = 1) -> M null
    //! sinks, or one sink of M-vectors; the source is d_opt.source, or a host_feed.
    void measure_host_channelizer(size_t m,
                                  bool feed,
                                  bool vector_output,
                                  const std::string& flowgraph = "host-in",
                                  size_t devices = 1,
                                  core::sample_format type = core::sample_format::fc32)
    {
        auto tb = gr::make_top_block(flowgraph);
        gr::basic_block_sptr src =
            feed ? gnuradio::make_block_sptr<host_feed>(core::sample_bytes(type))
                 : make_source(type);
        auto ch = wb::pfb_channelizer_ccf::make(unsigned(m),
                                                exact_taps(m),
                                                1.0f,
                                                {},
                                                first_devices(devices),
                                                100.0f,
                                                vector_output,
                                                core::sample_format_name(type));
        tb->connect(src, 0, ch, 0);
        gr::block_sptr sink;
        const size_t sinks = vector_output ? 1 : m;
        for (size_t c = 0; c < sinks; ++c) {
            sink =
                gr::blocks::null_sink::make((vector_output ? m : 1) * sizeof(gr_complex));
            tb->connect(ch, int(c), sink, 0);
        }
        run_for(tb,
                ch,
                sink,
                std::string(feed ? "feed" : d_opt.source) +
                    (type == core::sample_format::fc32
                         ? ""
                         : std::string(" ") + core::sample_format_name(type)) +
                    " -> channelizer M=" + std::to_string(m) +
                    " K=" + std::to_string(d_opt.taps_per_channel) + " -> " +
                    (vector_output ? std::string("1 sink of vectors")
                                   : std::to_string(m) + " sinks"),
                edges_of(ch));
        d_rows.back().devices = devices;
        d_rows.back().sample_bytes = core::sample_bytes(type);
    }

    struct chain_blocks {
        gr::block_sptr filter, channelizer, fft;
    };

    //! The chain's blocks: the filter on \p filter_device, the channelizer and
    //! fft_vcc on \p channelizer_device (device strings; "": the first device).
    chain_blocks make_chain(std::string filter_device = "",
                            std::string channelizer_device = "") const
    {
        const std::string first = first_devices(1);
        filter_device = filter_device.empty() ? first : filter_device;
        channelizer_device = channelizer_device.empty() ? first : channelizer_device;
        const size_t m = d_opt.chain_channels;
        std::vector<gr_complex> taps(d_opt.chain_taps);
        std::mt19937 rng(3);
        std::uniform_real_distribution<float> uniform(-1, 1);
        for (auto& t : taps)
            t = gr_complex(uniform(rng), uniform(rng)) / float(taps.size());
        return {
            wb::fft_filter_ccc::make(1, taps, 1, filter_device),
            wb::pfb_channelizer_ccf::make(
                unsigned(m), exact_taps(m), 1.0f, {}, channelizer_device, 100.0f, true),
            wb::fft_vcc::make(int(m), true, {}, false, 1, channelizer_device)
        };
    }

    //! The device string of the first n devices of --device ("P:D,P:D,...").
    std::string first_devices(size_t n) const
    {
        std::vector<std::string> addresses;
        for (size_t i = 0; i < n; ++i)
            addresses.push_back(d_devices[i]->info().address());
        return join(addresses, ",");
    }

    //! Where the data of a gr-wideband block's edges lives, for run_for().
    static std::function<std::string()> edges_of(const gr::block_sptr& block)
    {
        return [block] {
            return "in: " + wb::input_memory(block) +
                   ", out: " + wb::output_memory(block);
        };
    }

    //! One block between a device feed and drain.
    void measure_alone(const std::string& name,
                       const gr::block_sptr& block,
                       size_t in_vlen,
                       size_t out_vlen,
                       size_t sample_bytes = sizeof(gr_complex))
    {
        auto tb = gr::make_top_block("alone");
        auto feed = device_feed(
            d_ctx, in_vlen, sample_bytes, size_t(1) << d_opt.feed_buffer_log2);
        auto drain = device_drain(d_ctx, out_vlen, sample_bytes);
        connect_in_series(tb, { feed, block, drain });
        run_for(tb, block, drain, name, edges_of(block), double(in_vlen));
        d_rows.back().sample_bytes = sample_bytes;
    }

    //! \p head -> \p block -> a null sink, samples of \p sample_bytes in and
    //! out, in the flowgraph \p flowgraph: the row of \p block (run_for()).
    void run_through(const std::string& flowgraph,
                     const gr::basic_block_sptr& head,
                     const gr::block_sptr& block,
                     const std::string& what,
                     const std::function<std::string()>& describe = {},
                     size_t sample_bytes = sizeof(gr_complex),
                     double scale = 1)
    {
        auto tb = gr::make_top_block(flowgraph);
        auto sink = gr::blocks::null_sink::make(sample_bytes);
        connect_in_series(tb, { head, block, sink });
        run_for(tb, block, sink, what, describe, scale);
        d_rows.back().sample_bytes = sample_bytes;
    }

    //! A gr-wideband block of make() from the host source into a null sink, in
    //! the flowgraph \p flowgraph, then alone between a device feed and drain.
    void measure_from_source(const std::string& flowgraph,
                             const std::string& name,
                             const std::function<gr::block_sptr()>& make)
    {
        const gr::block_sptr block = make();
        run_through(flowgraph,
                    make_source(),
                    block,
                    d_opt.source + " -> " + name + " -> sink",
                    edges_of(block));
        measure_alone(name, make(), 1, 1);
    }

    void measure_chain()
    {
        const size_t m = d_opt.chain_channels;
        const std::string filter_name =
            "fft_filter_ccc " + std::to_string(d_opt.chain_taps) + " taps";
        const std::string channelizer_name =
            "channelizer M=" + std::to_string(m) + " vector out";
        const std::string fft_name = "fft_vcc " + std::to_string(m);
        {
            chain_blocks c = make_chain();
            measure_alone(filter_name, c.filter, 1, 1);
            measure_alone(channelizer_name, c.channelizer, 1, m);
            measure_alone(fft_name, c.fft, m, m);
        }
        for (bool from_host : { false, true }) {
            const auto device = from_host ? nullptr : d_ctx;
            run_chain("chain", make_chain(), device, device);
        }
    }

    /*
     * head -> filter -> channelizer -> fft_vcc -> tail, the head a device feed on
     * \p feed_device and the tail a device drain on \p drain_device, or (null)
     * the host source and a null sink.
     */
    void run_chain(const std::string& flowgraph,
                   const chain_blocks& c,
                   const core::device_context::sptr& feed_device,
                   const core::device_context::sptr& drain_device,
                   size_t devices = 1)
    {
        const size_t m = d_opt.chain_channels;
        auto tb = gr::make_top_block(flowgraph);
        gr::basic_block_sptr head = make_source();
        gr::block_sptr tail = gr::blocks::null_sink::make(m * sizeof(gr_complex));
        if (feed_device)
            head = device_feed(feed_device, 1);
        if (drain_device)
            tail = device_drain(drain_device, m);
        connect_in_series(tb, { head, c.filter, c.channelizer, c.fft, tail });
        auto edges = [&] {
            return wb::input_memory(c.filter) + " | " + wb::output_memory(c.filter) +
                   " | " + wb::output_memory(c.channelizer) + " | " +
                   wb::output_memory(c.fft);
        };
        const std::string what =
            chain_text(feed_device != nullptr, drain_device != nullptr, c);
        run_for(tb, c.filter, tail, what, edges);
        d_rows.back().devices = devices;
    }

    /*
     * "feed -> filter -> channelizer -> fft_vcc -> drain" (or from and to the
     * host), a block's device named where it is one device other than the first.
     */
    std::string chain_text(bool feed, bool drain, const chain_blocks& c) const
    {
        const std::string first = first_devices(1);
        auto on = [&](const gr::block_sptr& block) {
            const auto context =
                dynamic_cast<const wb::opencl_block&>(*block).opencl_context();
            return context && context->info().address() != first
                       ? " on " + context->info().address()
                       : std::string();
        };
        return std::string(feed ? "feed" : "host") + " -> filter" + on(c.filter) +
               " -> channelizer" + on(c.channelizer) + " -> fft_vcc" + on(c.fft) +
               (drain ? " -> drain" : " -> host");
    }

    /*
     * Blocks spread over the first 1, 2, ..., N devices of --device (chunks in
     * turn; pinned host memory on their output edges): the channelizer from the
     * host source into M sinks and from a feed into one sink of vectors, the
     * channel bank from a feed, and the chain from the host source to a null
     * sink; then a table of Msamples/s by device count.
     */
    void measure_devices()
    {
        for (size_t n = 1; n <= d_devices.size(); ++n) {
            for (size_t m : d_opt.channels) {
                measure_host_channelizer(m, false, false, "devices", n);
                measure_host_channelizer(m, true, true, "devices", n);
            }
            for (const bank_plan& plan : d_opt.banks.plans())
                run_bank(plan, "feed", "devices", n);
            const std::string all = first_devices(n);
            run_chain("devices", make_chain(all, all), nullptr, nullptr, n);
        }
        std::vector<std::string> labels;
        for (const auto& r : d_rows)
            if (r.flowgraph == "devices" && r.devices == 1)
                labels.push_back(r.what);
        std::cout << std::endl;
        harness::print_scaling(
            "gr-wideband blocks on several devices (device strings naming the first 1, "
            "2, ... of --device): input Msamples/s",
            d_devices,
            labels,
            [this, labels](size_t line, size_t n) {
                return rate_of("devices", labels[line], n);
            });
    }

    /*
     * An edge between blocks on different devices: device feed -> filter on the
     * first device -> channelizer -> fft_vcc on the second -> device drain there;
     * beside the same chain on the first device alone (device edges), from the
     * chain group.
     */
    void measure_cross_device()
    {
        const std::string first = d_devices[0]->info().address();
        const std::string second = d_devices[1]->info().address();
        run_chain("cross", make_chain(first, second), d_devices[0], d_devices[1]);
    }

    /*!
     * The chain from a host source to a host sink, and GNU Radio's in-tree
     * blocks doing the same, on the same random input: true when every
     * output sample agrees (float32 rounding of different algorithms only).
     */
    bool verify_chain()
    {
        const size_t m = d_opt.chain_channels;
        chain_blocks ours = make_chain();
        const auto* filter = dynamic_cast<wb::fft_filter_ccc*>(ours.filter.get());
        // latency(): two chunks in flight; five chunks in all, random samples
        const size_t samples = size_t(filter->latency()) * 5 / 2 / m * m;
        const std::vector<gr_complex> x = normal_noise(samples, 4);
        auto tb = gr::make_top_block("verify");
        auto sink = gr::blocks::vector_sink_c::make(int(m));
        connect_in_series(tb,
                          { gr::blocks::vector_source_c::make(x),
                            ours.filter,
                            ours.channelizer,
                            ours.fft,
                            sink });
        tb->run();
        const auto got = sink->data();

        auto split = gr::blocks::stream_to_streams::make(sizeof(gr_complex), m);
        auto channelizer =
            gr::filter::pfb_channelizer_ccf::make(unsigned(m), exact_taps(m), 1.0f);
        auto join = gr::blocks::streams_to_vector::make(sizeof(gr_complex), m);
        tb = gr::make_top_block("verify in-tree");
        sink = gr::blocks::vector_sink_c::make(int(m));
        connect_in_series(tb,
                          { gr::blocks::vector_source_c::make(x),
                            gr::filter::fft_filter_ccc::make(1, filter->taps()),
                            split });
        for (size_t c = 0; c < m; ++c) {
            tb->connect(split, int(c), channelizer, int(c));
            tb->connect(channelizer, int(c), join, int(c));
        }
        connect_in_series(
            tb,
            { join, gr::fft::fft_v<gr_complex, true>::make(int(m), {}, false), sink });
        tb->run();
        const auto& expected = sink->data();

        // The in-tree filter drops its last partial FFT block: compare what
        // both have; ours must have every frame.
        const size_t n = std::min(got.size(), expected.size());
        double largest = 0, worst = 0, diff2 = 0, ref2 = 0;
        for (size_t i = 0; i < n; ++i) {
            largest = std::max(largest, double(std::abs(expected[i])));
            worst = std::max(worst, double(std::abs(got[i] - expected[i])));
            diff2 += std::norm(got[i] - expected[i]);
            ref2 += std::norm(expected[i]);
        }
        const double relative = largest > 0 ? worst / largest : 1.0;
        const bool complete = got.size() == samples;
        const bool ok = complete && n > samples / 2 && relative <= 1e-4;
        std::cout << "verify: " << samples << " samples through the chain, "
                  << got.size() / m << " output vectors (expected " << samples / m
                  << "), " << n / m << " compared with the in-tree chain: largest error "
                  << harness::fmt("%.2g", relative) << " of the largest output, L2 "
                  << harness::fmt("%.2g", ref2 > 0 ? std::sqrt(diff2 / ref2) : 1.0)
                  << (ok ? " (pass)" : " (FAIL)") << std::endl;
        return ok;
    }

    void measure_in_tree(size_t m)
    {
        auto tb = gr::make_top_block("in-tree");
        auto src = make_source();
        auto split = gr::blocks::stream_to_streams::make(sizeof(gr_complex), m);
        auto ch = gr::filter::pfb_channelizer_ccf::make(unsigned(m), exact_taps(m), 1.0f);
        tb->connect(src, 0, split, 0);
        gr::block_sptr sink;
        for (size_t c = 0; c < m; ++c) {
            sink = gr::blocks::null_sink::make(sizeof(gr_complex));
            tb->connect(split, int(c), ch, int(c));
            tb->connect(ch, int(c), sink, 0);
        }
        run_for(tb,
                split,
                sink,
                "stream_to_streams + pfb_channelizer_ccf M=" + std::to_string(m));
    }

    /*
     * pfb_decimator_ccf (decim m, channel 1) from the source into a sink and
     * between a device feed and drain; with --baseline GNU Radio's
     * stream_to_streams + pfb_decimator_ccf on the host's cores.
     */
    void measure_decimator(size_t m)
    {
        const std::string name = "pfb_decimator_ccf decim=" + std::to_string(m) +
                                 " K=" + std::to_string(d_opt.taps_per_channel);
        measure_from_source("decimator", name, [&] {
            return wb::pfb_decimator_ccf::make(
                unsigned(m), exact_taps(m), 1, true, true, first_devices(1));
        });
        if (!d_opt.baseline)
            return;
        auto tb = gr::make_top_block("in-tree");
        auto src = make_source();
        auto split = gr::blocks::stream_to_streams::make(sizeof(gr_complex), m);
        auto dec = gr::filter::pfb_decimator_ccf::make(unsigned(m), exact_taps(m), 1);
        auto sink = gr::blocks::null_sink::make(sizeof(gr_complex));
        tb->connect(src, 0, split, 0);
        for (size_t c = 0; c < m; ++c)
            tb->connect(split, int(c), dec, int(c));
        tb->connect(dec, 0, sink, 0);
        run_for(tb,
                split,
                sink,
                d_opt.source + " -> stream_to_streams + in-tree " + name + " -> sink");
    }

    /*
     * pfb_synthesizer_ccf (numchans m, all m inputs) from a source of m-vectors
     * and from m sources into a sink, and between a device feed and drain;
     * with --baseline GNU Radio's pfb_synthesizer_ccf from the m sources. The
     * rate counts channel samples in, which with m inputs are the samples out.
     */
    void measure_synthesizer(size_t m)
    {
        const std::string name = "pfb_synthesizer_ccf M=" + std::to_string(m) +
                                 " K=" + std::to_string(d_opt.taps_per_channel);
        auto make = [&](bool vector_input) {
            return wb::pfb_synthesizer_ccf::make(
                unsigned(m), exact_taps(m), false, first_devices(1), vector_input);
        };
        // m host sources -> the block's m inputs -> a sink.
        auto from_sources = [&](const std::string& flowgraph,
                                const gr::block_sptr& block,
                                const std::string& what) {
            auto tb = gr::make_top_block(flowgraph);
            const std::vector<gr_complex> x = normal_noise(size_t(1) << 16, 3);
            for (size_t c = 0; c < m; ++c)
                tb->connect(gr::blocks::vector_source_c::make(x, true), 0, block, int(c));
            auto sink = gr::blocks::null_sink::make(sizeof(gr_complex));
            tb->connect(block, 0, sink, 0);
            run_for(tb,
                    block,
                    sink,
                    std::to_string(m) + " sources -> " + what + " -> sink",
                    {},
                    double(m));
        };
        const gr::block_sptr vector_in = make(true);
        run_through(
            "synth",
            gr::blocks::vector_source_c::make(
                normal_noise(std::max<size_t>(size_t(1) << 20, m), 2), true, unsigned(m)),
            vector_in,
            "vector source -> " + name + " vector in -> sink",
            edges_of(vector_in),
            sizeof(gr_complex),
            double(m));
        from_sources("synth", make(false), name);
        measure_alone(name + " vector in", make(true), m, 1);
        if (d_opt.baseline)
            from_sources(
                "in-tree",
                gr::filter::pfb_synthesizer_ccf::make(unsigned(m), exact_taps(m), false),
                "in-tree " + name);
    }

    /*
     * fft_filter_fff (--chain-taps real taps, decimation D) from a host source
     * of random floats into a sink and between a device feed and drain; with
     * --baseline GNU Radio's fft_filter_fff from the same source, on one
     * thread and on one per core (its nthreads).
     */
    void measure_filter_fff(int decimation)
    {
        const std::string name = "fft_filter_fff " + std::to_string(d_opt.chain_taps) +
                                 " taps D=" + std::to_string(decimation);
        std::vector<float> taps(d_opt.chain_taps);
        std::mt19937 rng(5);
        std::normal_distribution<float> normal;
        for (float& t : taps)
            t = normal(rng) / float(taps.size());
        auto source = [] {
            std::vector<float> x(size_t(1) << 20);
            std::mt19937 rng(6);
            std::normal_distribution<float> normal;
            for (float& v : x)
                v = normal(rng);
            return gr::blocks::vector_source_f::make(x, true);
        };
        auto run_host = [&](const gr::block_sptr& filter, const std::string& what) {
            run_through("fff",
                        source(),
                        filter,
                        "vector -> " + what + " -> sink",
                        {},
                        sizeof(float));
        };
        auto ours = [&] {
            return wb::fft_filter_fff::make(decimation, taps, 1, first_devices(1));
        };
        run_host(ours(), name);
        const double mine = d_rows.back().msps;
        run_through("fff",
                    gnuradio::make_block_sptr<host_feed>(sizeof(float)),
                    ours(),
                    "feed -> " + name + " -> sink",
                    {},
                    sizeof(float));
        measure_alone(name, ours(), 1, 1, sizeof(float));
        if (!d_opt.baseline)
            return;
        const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
        for (int threads : { 1, cores }) {
            run_host(gr::filter::fft_filter_fff::make(decimation, taps, threads),
                     "in-tree " + name + " nthreads=" + std::to_string(threads));
            d_rows.back().ratio = mine / d_rows.back().msps;
            d_rows.back().ratio_of = "ours (host) / this";
        }
    }

    /*
     * pfb_arb_resampler_ccf (32 filters of --taps-per-channel taps) at `rate`
     * from the source into a sink and between a device feed and drain; with
     * --baseline the in-tree pfb_arb_resampler_ccf on the host's core.
     */
    void measure_arb_resampler(float rate)
    {
        const std::string name =
            "pfb_arb_resampler_ccf rate=" + harness::fmt("%.4f", rate) +
            " T=" + std::to_string(d_opt.taps_per_channel);
        // A low-pass at 32 times the input rate, cut at the lower rate's band.
        const std::vector<float> taps = [&] {
            std::vector<float> t =
                gr::filter::firdes::low_pass_2(32.0,
                                               32.0,
                                               0.4 * std::min(1.0f, rate),
                                               0.1 * std::min(1.0f, rate),
                                               80,
                                               gr::fft::window::WIN_BLACKMAN_hARRIS);
            t.resize(32 * d_opt.taps_per_channel, 0.0f);
            return t;
        }();
        measure_from_source("resampler", name, [&] {
            return wb::pfb_arb_resampler_ccf::make(rate, taps, 32, first_devices(1));
        });
        if (d_opt.baseline)
            run_through("in-tree",
                        make_source(),
                        gr::filter::pfb_arb_resampler_ccf::make(rate, taps, 32),
                        d_opt.source + " -> in-tree " + name + " -> sink");
    }

    /*
     * The plan's channels as GNU Radio's freq_xlating_fir_filter_ccc blocks
     * (the CPU bank), then as one channel_bank_ccc from the host source, from a
     * feed and between a device feed and drains; each into C sinks.
     */
    void measure_bank(const bank_plan& plan)
    {
        const size_t C = plan.channels.size();
        std::cout << "bank: " << C << " channels, D " << plan.decimations() << ", "
                  << plan.channels.front().taps.size() << " taps" << std::endl;
        {
            auto tb = gr::make_top_block("bank-cpu");
            auto src = make_source();
            gr::block_sptr first, sink;
            for (const auto& c : plan.channels) {
                auto filter = gr::filter::freq_xlating_fir_filter_ccc::make(
                    int(c.decimation), c.taps, c.center_freq, 1.0);
                sink = gr::blocks::null_sink::make(sizeof(gr_complex));
                connect_in_series(tb, { src, filter, sink });
                first = first ? first : filter;
            }
            run_for(tb,
                    first,
                    sink,
                    d_opt.source + " -> " + std::to_string(C) +
                        " freq_xlating_fir_filter_ccc D=" + plan.decimations());
        }
        const double cpu = d_rows.back().msps;
        run_bank(plan, d_opt.source, "bank-in");
        run_bank(plan, "feed", "bank-in");
        run_bank(plan, "device", "bank-dev");
        d_rows.back().ratio = d_rows.back().msps / cpu;
        d_rows.back().ratio_of = "x the CPU bank";
    }

    //! channel_bank_ccc of the plan's channels (centres as fractions of
    //! \p samp_rate) on the first \p devices devices, input samples of \p type;
    //! \p vector_output: one output of vectors of all channels.
    wb::channel_bank_ccc::sptr
    make_bank(const bank_plan& plan,
              double samp_rate,
              size_t devices,
              core::sample_format type = core::sample_format::fc32,
              bool vector_output = false) const
    {
        std::vector<double> centres;
        std::vector<int> decimations;
        std::vector<std::vector<gr_complex>> taps;
        for (const auto& c : plan.channels) {
            centres.push_back(c.center_freq * samp_rate);
            decimations.push_back(int(c.decimation));
            taps.push_back(c.taps);
        }
        return wb::channel_bank_ccc::make(samp_rate,
                                          centres,
                                          decimations,
                                          taps,
                                          first_devices(devices),
                                          vector_output,
                                          core::sample_format_name(type));
    }

    /*
     * channel_bank_ccc on the first n devices for the plan's channels, from
     * `from` (the host source, "feed" or "device": a device feed, and device
     * drains for its outputs) into one sink per channel.
     */
    void run_bank(const bank_plan& plan,
                  const std::string& from,
                  const std::string& flowgraph,
                  size_t devices = 1)
    {
        const size_t C = plan.channels.size();
        const bool device = from == "device";
        auto bank = make_bank(plan, 1.0, devices);
        auto tb = gr::make_top_block(flowgraph);
        gr::basic_block_sptr src = device ? device_feed(d_ctx, 1)
                                   : from == "feed"
                                       ? gnuradio::make_block_sptr<host_feed>()
                                       : make_source();
        tb->connect(src, 0, bank, 0);
        gr::block_sptr sink;
        for (size_t c = 0; c < C; ++c) {
            sink = device ? device_drain(d_ctx, 1)
                          : gr::blocks::null_sink::make(sizeof(gr_complex));
            tb->connect(bank, int(c), sink, 0);
        }
        run_for(tb,
                bank,
                sink,
                (device ? "feed" : from) + " -> channel_bank_ccc C=" + std::to_string(C) +
                    " D=" + plan.decimations() + " -> " + std::to_string(C) +
                    (device ? " drains" : " sinks"),
                edges_of(bank));
        d_rows.back().devices = devices;
    }

    struct realtime_run {
        double msps;                        // delivered in the window
        paced_source::counts start, window; // before it (kernel builds), in it
        double lag_ms;     // the most a channel's output trails the receiver
        double latency_ms; // what the bank says it may (latency())
    };

    /*
     * A receiver at \p msps (paced_source) -> channel_bank_ccc (the plan) -> C
     * sinks, for d_opt.seconds after the outputs start and a 1 s warm-up; a
     * line every minute of a long window.
     */
    realtime_run
    run_realtime(const bank_plan& plan, core::sample_format type, double msps)
    {
        const size_t C = plan.channels.size();
        const bool vector = d_opt.realtime_vector;
        auto bank = make_bank(plan, msps * 1e6, 1, type, vector);
        auto src = gnuradio::make_block_sptr<paced_source>(
            msps * 1e6,
            size_t(msps * 1e3 * d_opt.realtime_fifo_ms),
            d_opt.realtime_priority,
            type);
        auto tb = gr::make_top_block("realtime");
        tb->connect(src, 0, bank, 0);
        // Sink s takes channel s, or every channel's sample in one vector (all
        // of channel 0's decimation).
        std::vector<gr::block_sptr> sinks;
        for (size_t s = 0; s < (vector ? 1 : C); ++s) {
            sinks.push_back(
                gr::blocks::null_sink::make((vector ? C : 1) * sizeof(gr_complex)));
            tb->connect(bank, int(s), sinks.back(), 0);
        }
        if (d_opt.realtime_cpu >= 0) {
            // The receiver's CPU for it alone, as a station reserves one for its
            // radio's driver thread.
            std::vector<int> others;
            for (int cpu = 0; cpu < int(std::thread::hardware_concurrency()); ++cpu)
                if (cpu != d_opt.realtime_cpu)
                    others.push_back(cpu);
            src->set_processor_affinity({ d_opt.realtime_cpu });
            bank->set_processor_affinity(others);
            for (const auto& sink : sinks)
                sink->set_processor_affinity(others);
        }
        tb->start();
        const auto started = clock_type::now();
        while (sinks.back()->nitems_read(0) == 0 && ms_since(started) < 120e3)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        std::this_thread::sleep_for(std::chrono::seconds(1));
        realtime_run r;
        r.start = src->snapshot();
        const auto start = clock_type::now();
        for (double left = d_opt.seconds; left > 0; left -= 60) {
            std::this_thread::sleep_for(
                std::chrono::duration<double>(std::min(left, 60.0)));
            if (d_opt.seconds > 60) {
                const auto now = src->snapshot();
                r.window.longest_stall_ms =
                    std::max(r.window.longest_stall_ms, now.longest_stall_ms);
                std::cout << std::fixed << std::setprecision(0) << "  realtime " << msps
                          << " Msps: " << ms_since(start) * 1e-3 << " s, "
                          << now.delivered - r.start.delivered << " samples, "
                          << now.lost - r.start.lost << " lost" << std::defaultfloat
                          << std::endl;
            }
        }
        const auto end = src->snapshot();
        std::vector<uint64_t> last_out;
        for (const auto& sink : sinks)
            last_out.push_back(sink->nitems_read(0));
        const double seconds = ms_since(start) * 1e-3;
        tb->stop();
        tb->wait();
        r.window.delivered = end.delivered - r.start.delivered;
        r.window.lost = end.lost - r.start.lost;
        r.window.full = end.full - r.start.full;
        r.window.late = end.late - r.start.late;
        r.window.longest_stall_ms =
            std::max(r.window.longest_stall_ms, end.longest_stall_ms);
        r.window.priority = end.priority;
        r.msps = double(r.window.delivered) / seconds / 1e6;
        uint64_t lag = 0;
        for (size_t s = 0; s < sinks.size(); ++s)
            lag = std::max(
                lag,
                end.delivered -
                    std::min(end.delivered, last_out[s] * plan.channels[s].decimation));
        r.lag_ms = double(lag) / (msps * 1e3);
        r.latency_ms = double(bank->latency()) / (msps * 1e3);
        return r;
    }

    /*
     * The plan's channel bank fed by a receiver at --realtime-rate: samples
     * lost and the rate achieved; with --realtime-search, the highest rate
     * (within 3 %) at which a window of d_opt.seconds loses nothing.
     */
    void measure_realtime(const bank_plan& plan, core::sample_format type)
    {
        const std::string what =
            std::string("receiver ") + core::sample_format_name(type) +
            " -> channel_bank_ccc C=" + std::to_string(plan.channels.size()) +
            " D=" + plan.decimations() +
            (d_opt.realtime_vector ? " -> 1 sink of vectors" : " -> sinks");
        const auto trial = [&](double msps) {
            const realtime_run r = run_realtime(plan, type, msps);
            std::cout << std::fixed << std::setprecision(0) << "  realtime " << msps
                      << " Msps, FIFO " << d_opt.realtime_fifo_ms << " ms, "
                      << std::defaultfloat << d_opt.seconds << std::fixed
                      << " s: delivered " << std::setprecision(1) << r.msps << " Msps, "
                      << r.window.lost << " samples lost (" << r.start.lost
                      << " before the window: kernel builds, warm-up) in "
                      << r.window.full << " overflows with the buffer full and "
                      << r.window.late << " with room (receiver " << r.window.priority
                      << (d_opt.realtime_cpu >= 0
                              ? ", alone on CPU " + std::to_string(d_opt.realtime_cpu)
                              : std::string())
                      << ", longest stall " << std::setprecision(1)
                      << r.window.longest_stall_ms << " ms); outputs trail the input by "
                      << std::setprecision(2) << r.lag_ms << " ms at most (latency "
                      << r.latency_ms << " ms)" << std::defaultfloat << std::endl;
            return r;
        };
        const realtime_run nominal = trial(d_opt.realtime_msps);
        add(row("realtime",
                what + " at " + harness::fmt("%.0f Msps: ", d_opt.realtime_msps) +
                    std::to_string(nominal.window.lost) + " lost",
                "host",
                nominal.msps));
        d_rows.back().sample_bytes = core::sample_bytes(type);
        if (!d_opt.realtime_search)
            return;
        // Doubling (or halving), then bisecting the gap between a rate that
        // loses nothing (good) and one that loses samples (bad).
        double good = 0, bad = 0;
        const auto probe = [&](double msps, const realtime_run& r) {
            (r.window.lost == 0 ? good : bad) = msps;
        };
        probe(d_opt.realtime_msps, nominal);
        while (bad == 0 && good < 1e5)
            probe(good * 2, trial(good * 2));
        while (good == 0 && bad > 1)
            probe(bad / 2, trial(bad / 2));
        while (good > 0 && bad > 0 && bad / good > 1.03) {
            const double mid = std::sqrt(good * bad);
            probe(mid, trial(mid));
        }
        add(row("realtime",
                what + ": highest rate without loss" +
                    (bad > 0 ? harness::fmt(" (below %.0f)", bad) : ""),
                "host",
                good));
        d_rows.back().sample_bytes = core::sample_bytes(type);
    }

    //! Msps of the row of \p flowgraph and \p what on \p devices devices (NaN: none).
    double
    rate_of(const std::string& flowgraph, const std::string& what, size_t devices) const
    {
        for (const auto& r : d_rows)
            if (r.flowgraph == flowgraph && r.what == what && r.devices == devices)
                return r.msps;
        return nan_value;
    }

    double measured_gbs(const std::string& what) const
    {
        for (const auto& r : d_rows)
            if (r.flowgraph == "pcie" && r.what == what)
                return r.gbs;
        return nan_value;
    }

    void print_table()
    {
        const double h2d = measured_gbs("host->device, pinned");
        double slowest_alone = nan_value;
        for (const auto& r : d_rows)
            if (r.flowgraph == "alone" &&
                (std::isnan(slowest_alone) || r.msps < slowest_alone))
                slowest_alone = r.msps;
        for (auto& r : d_rows) {
            if (!std::isnan(r.msps))
                r.gbs = r.msps * double(r.sample_bytes) * 1e-3;
            if (r.flowgraph == "host-in" || r.flowgraph == "bank-in") {
                r.ratio = r.gbs / h2d;
                r.ratio_of = "of pinned host->device";
            } else if (r.flowgraph == "chain" && r.what.rfind("feed", 0) == 0) {
                r.ratio = r.msps / slowest_alone;
                r.ratio_of = "of the slowest block alone";
            } else if (r.flowgraph == "cross") {
                r.ratio = r.msps / rate_of("chain",
                                           "feed -> filter -> channelizer -> "
                                           "fft_vcc -> drain",
                                           1);
                r.ratio_of = "of the chain on one device";
            } else if (r.flowgraph == "devices" && r.devices > 1) {
                r.ratio = r.msps / rate_of("devices", r.what, 1);
                r.ratio_of = "x on one device";
            }
        }
        using r = const row&;
        const columns<row> all = {
            { "flowgraph", "flowgraph", -10, [](r x) { return x.flowgraph; } },
            { "what", "what", -58, [](r x) { return x.what; } },
            { "edges", [](r x) { return x.edges; } },
            { "msps",
              "Msps",
              8,
              [](r x) {
                  return std::isnan(x.msps) ? value("") : value(x.msps, "%.0f");
              } },
            { "gbs", "GB/s in", 9, [](r x) { return value(x.gbs, "%.1f"); } },
            { "ratio", [](r x) { return x.ratio; } },
            { "ratio_of", [](r x) { return x.ratio_of; } },
        };
        const column<row> ratio = { "", "  ratio", 0, [](r x) {
                                       return std::isnan(x.ratio)
                                                  ? value("")
                                                  : "  " +
                                                        harness::fmt("%.2f ", x.ratio) +
                                                        x.ratio_of;
                                   } };
        std::cout << "\n";
        harness::print_table(std::cout,
                             { group("",
                                     [this](size_t i) { return &d_rows[i]; },
                                     { pick(all, "flowgraph"),
                                       pick(all, "what"),
                                       pick(all, "msps"),
                                       pick(all, "gbs"),
                                       ratio }) },
                             d_rows.size());
        if (!d_csv.enabled())
            return;
        d_csv.header(all);
        for (const auto& x : d_rows)
            d_csv.row(all, x);
    }

    bench_options d_opt;
    std::vector<core::device_context::sptr> d_devices; // --device's; the first:
    core::device_context::sptr d_ctx;                  // every single-device row
    std::vector<row> d_rows;
    csv_file d_csv;
};

} // namespace

int main(int argc, char** argv)
{
    return bench_main<bench>(argc, argv, declare_options, help);
}
