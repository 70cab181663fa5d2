/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * gr-wideband's blocks in C++ flowgraphs, the program the sanitizer and leak
 * runs use (scripts/test_sanitizers: AddressSanitizer with LeakSanitizer and
 * UBSan, ThreadSanitizer): blocks made and destroyed over and over, with
 * valid and with rejected arguments; short flowgraphs run to the end and
 * checked against GNU Radio's in-tree blocks or the formula; start/stop
 * cycles; two flowgraphs running at once from two threads; a device failing
 * mid-stream. In the plain build it also checks that the process's OpenCL
 * buffers (cl_alloc_count) come back to where they were once the blocks are
 * gone, and that the resident set does not grow over repeated runs.
 */

#define BOOST_TEST_MODULE qa_block_lifecycle
#include <boost/test/unit_test.hpp>

#include "../core/tests/memory_use.h"
#include "../core/tests/scoped_env.h"

#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/null_source.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/fft/fft_v.h>
#include <gnuradio/top_block.h>
#include <gnuradio/wideband/fft_filter.h>
#include <gnuradio/wideband/fft_v.h>
#include <gnuradio/wideband/pfb_channelizer_ccf.h>
#include <gnuradio/wideband/work_error.h>

#include <chrono>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <stdexcept>
#include <thread>

namespace wb = gr::wideband;
using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

namespace {

std::vector<cfloat> random_signal(size_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.5f, 1.5f), phase(-3.14159f, 3.14159f);
    std::vector<cfloat> x(n);
    for (auto& v : x)
        v = std::polar(u(rng), phase(rng));
    return x;
}

std::vector<float> random_taps(size_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> t(n);
    for (auto& v : t)
        v = u(rng);
    return t;
}

// Every element within tol * max|ref| (the blocks' QA tolerance).
void check_close(const std::vector<cfloat>& got,
                 const std::vector<cdouble>& ref,
                 const std::string& what,
                 double tol = 1e-5)
{
    BOOST_REQUIRE_MESSAGE(got.size() == ref.size(),
                          what << ": " << got.size() << " outputs, expected "
                               << ref.size());
    double scale = 0;
    for (const auto& r : ref)
        scale = std::max(scale, std::abs(r));
    size_t bad = 0;
    for (size_t k = 0; k < got.size(); ++k)
        bad += !(std::abs(cdouble(got[k]) - ref[k]) <= tol * scale);
    BOOST_CHECK_MESSAGE(bad == 0,
                        what << ": " << bad << " of " << got.size() << " differ");
}

std::vector<cdouble> as_double(const std::vector<cfloat>& v)
{
    return std::vector<cdouble>(v.begin(), v.end());
}

// fft_filter's output (blocks.md): y[m] = sum_k h[k] x[m D - k].
std::vector<cdouble>
filter_reference(const std::vector<cfloat>& x, const std::vector<float>& h, size_t D)
{
    std::vector<cdouble> y(x.size() / D);
    for (size_t m = 0; m < y.size(); ++m)
        for (size_t k = 0; k < h.size() && k <= m * D; ++k)
            y[m] += double(h[k]) * cdouble(x[m * D - k]);
    return y;
}

// pfb_channelizer_ccf's output (blocks.md): channel c, frames 0.. of x.
std::vector<cdouble> channel_reference(const std::vector<cfloat>& x,
                                       const std::vector<float>& h,
                                       size_t M,
                                       size_t D,
                                       size_t c)
{
    std::vector<cdouble> y(x.size() / D);
    for (size_t q = 0; q < y.size(); ++q) {
        const size_t t = (q + 1) * D - 1;
        cdouble sum = 0;
        for (size_t n = 0; n < h.size() && n <= t; ++n)
            sum += double(h[n]) * cdouble(x[t - n]) *
                   std::polar(1.0, -2 * M_PI * double(c * ((t - n) % M)) / double(M));
        y[q] = sum * std::polar(1.0, -2 * M_PI * double(c * (D + 1) % M) / double(M));
    }
    return y;
}

/*
 * One flowgraph of every block: the filter and the channelizer (two channels)
 * against their formulas (the in-tree fft_filter keeps its tail from one run
 * to the next; every run here is a new stream), fft_vcc beside the in-tree
 * fft_vcc. Runs it and checks every output.
 */
struct every_block {
    static constexpr size_t M = 8, D = 4, n = 64;
    std::vector<cfloat> x = random_signal(40000, 1);
    std::vector<float> taps = random_taps(29, 2);
    gr::top_block_sptr tb = gr::make_top_block("every_block");
    wb::fft_filter_ccf::sptr filter = wb::fft_filter_ccf::make(3, taps);
    wb::pfb_channelizer_ccf::sptr channelizer =
        wb::pfb_channelizer_ccf::make(M, taps, float(M) / D, { 5, 2 });
    wb::fft_vcc::sptr fft = wb::fft_vcc::make(n, true, {}, false);
    gr::fft::fft_v<gr_complex, true>::sptr in_tree_fft =
        gr::fft::fft_v<gr_complex, true>::make(n, {}, false);
    gr::blocks::vector_source_c::sptr src = gr::blocks::vector_source_c::make(x);
    gr::blocks::vector_source_c::sptr vectors =
        gr::blocks::vector_source_c::make(x, false, n);
    std::vector<gr::blocks::vector_sink_c::sptr> sinks;

    every_block()
    {
        for (size_t i = 0; i < 5; ++i)
            sinks.push_back(gr::blocks::vector_sink_c::make(i >= 3 ? n : 1));
        tb->connect(src, 0, filter, 0);
        tb->connect(filter, 0, sinks[0], 0);
        tb->connect(src, 0, channelizer, 0);
        tb->connect(channelizer, 0, sinks[1], 0);
        tb->connect(channelizer, 1, sinks[2], 0);
        tb->connect(vectors, 0, fft, 0);
        tb->connect(fft, 0, sinks[3], 0);
        tb->connect(vectors, 0, in_tree_fft, 0);
        tb->connect(in_tree_fft, 0, sinks[4], 0);
    }

    void run()
    {
        src->rewind();
        vectors->rewind();
        for (auto& sink : sinks)
            sink->reset();
        tb->run(); // a hang fails the test by ctest's timeout
    }

    // (Boost.Test's checks are not thread-safe: only the test's thread checks)
    void check(const std::string& what)
    {
        for (const auto& block :
             std::vector<gr::basic_block_sptr>{ filter, channelizer, fft })
            BOOST_CHECK_EQUAL(wb::work_error(block), "");
        check_close(sinks[0]->data(), filter_reference(x, taps, 3), what + ", filter");
        check_close(
            sinks[1]->data(), channel_reference(x, taps, M, D, 5), what + ", ch 5");
        check_close(
            sinks[2]->data(), channel_reference(x, taps, M, D, 2), what + ", ch 2");
        check_close(sinks[3]->data(), as_double(sinks[4]->data()), what + ", fft_vcc");
    }

    void run_and_check(const std::string& what)
    {
        run();
        check(what);
    }
};

template <typename Make>
void check_rejected(Make&& make, const std::string& word)
{
    try {
        make();
        BOOST_ERROR("accepted; expected std::invalid_argument naming '" << word << "'");
    } catch (const std::invalid_argument& e) {
        BOOST_CHECK_MESSAGE(std::string(e.what()).find(word) != std::string::npos,
                            "'" << word << "' not in: " << e.what());
    }
}

// Under AddressSanitizer the resident set holds its quarantine of freed memory
// (256 MiB by default) rather than what the program keeps; LeakSanitizer
// checks that run instead.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool resident_set_is_what_is_kept = false;
#else
constexpr bool resident_set_is_what_is_kept = true;
#endif

} // namespace

// Made and destroyed over and over, also with arguments they reject: the
// OpenCL buffers come back to where they were.
BOOST_AUTO_TEST_CASE(blocks_made_and_destroyed)
{
    const std::vector<float> taps = random_taps(40, 3);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const auto make_all = [&] {
        wb::fft_vcc::make(128, true, {}, true);
        wb::fft_filter_ccc::make(2, std::vector<gr_complex>(taps.begin(), taps.end()));
        wb::fft_filter_ccf::make(1, taps);
        wb::pfb_channelizer_ccf::make(16, taps, 2, { 1, 3 });
        wb::pfb_channelizer_ccf::make(8, {}, 1, {}, "", 60, true);
    };
    make_all(); // kernels built and cached once
    const int64_t before = settled_live_buffers();
    for (int i = 0; i < 20; ++i) {
        make_all();
        check_rejected([] { wb::fft_vcc::make(0, true, {}); }, "fft_size");
        check_rejected([] { wb::fft_vcc::make(4, true, { 1, 1, 1 }); }, "window");
        check_rejected([&] { wb::fft_filter_ccf::make(0, taps); }, "decimation");
        check_rejected([] { wb::fft_filter_ccf::make(1, {}); }, "taps");
        check_rejected([&] { wb::fft_filter_ccf::make(1, { 1.0f, nan }); }, "finite");
        check_rejected([&] { wb::pfb_channelizer_ccf::make(0, taps); }, "numchans");
        check_rejected([&] { wb::pfb_channelizer_ccf::make(16, taps, 3); },
                       "oversample_rate");
        check_rejected([&] { wb::pfb_channelizer_ccf::make(16, taps, 1, { 16 }); },
                       "out of range");
        check_rejected([&] { wb::fft_filter_ccf::make(1, taps, 1, "9:9"); }, "9:9");
        auto block = wb::pfb_channelizer_ccf::make(16, taps, 2, { 1, 3 });
        check_rejected([&] { block->set_taps({}); }, "tap");
        check_rejected([&] { block->set_channel_map({ 99 }); }, "out of range");
    }
    BOOST_CHECK_EQUAL(settled_live_buffers(), before);
}

// The same flowgraph run again and again, every output checked each time;
// memory flat over the runs.
BOOST_AUTO_TEST_CASE(flowgraphs_run_again_and_again)
{
    every_block g;
    g.run_and_check("first run");
    const int64_t buffers = settled_live_buffers();
    const uint64_t rss = rss_bytes();
    for (int run = 0; run < 5; ++run)
        g.run_and_check("run " + std::to_string(run));
    BOOST_CHECK_EQUAL(settled_live_buffers(), buffers);
    if (resident_set_is_what_is_kept)
        BOOST_CHECK_MESSAGE(rss_bytes() < rss + (uint64_t(32) << 20),
                            "resident set grew from " << rss << " to " << rss_bytes());
}

// A channel map set between runs applies from the next stream's start, which
// no tag marks (only a change while running is tagged): the outputs carry the
// in-tree block's tags, none here.
BOOST_AUTO_TEST_CASE(channel_map_set_between_runs_is_not_tagged)
{
    every_block g;
    g.run();
    g.channelizer->set_channel_map({ 2, 5 });
    g.run();
    using G = every_block;
    check_close(
        g.sinks[1]->data(), channel_reference(g.x, g.taps, G::M, G::D, 2), "ch 2");
    check_close(
        g.sinks[2]->data(), channel_reference(g.x, g.taps, G::M, G::D, 5), "ch 5");
    BOOST_CHECK(g.sinks[1]->tags().empty());
    BOOST_CHECK(g.sinks[2]->tags().empty());
}

// Stopped while chunks are in flight, and started again.
BOOST_AUTO_TEST_CASE(start_stop_cycles)
{
    auto tb = gr::make_top_block("cycles");
    auto src = gr::blocks::null_source::make(sizeof(gr_complex));
    auto filter = wb::fft_filter_ccf::make(2, random_taps(33, 4));
    auto channelizer = wb::pfb_channelizer_ccf::make(8, random_taps(24, 5), 1, { 0 });
    tb->connect(src, 0, filter, 0);
    tb->connect(filter, 0, channelizer, 0);
    tb->connect(channelizer, 0, gr::blocks::null_sink::make(sizeof(gr_complex)), 0);
    for (int cycle = 0; cycle < 8; ++cycle) {
        tb->start();
        std::this_thread::sleep_for(std::chrono::milliseconds(20 + 30 * (cycle % 3)));
        tb->stop();
        tb->wait();
        BOOST_CHECK_EQUAL(wb::work_error(filter), "");
        BOOST_CHECK_EQUAL(wb::work_error(channelizer), "");
    }
}

// Two flowgraphs at once, started and run from two threads.
BOOST_AUTO_TEST_CASE(two_flowgraphs_at_once)
{
    every_block a, b;
    std::thread other([&] { a.run(); });
    b.run();
    other.join();
    a.check("flowgraph a");
    b.check("flowgraph b");
}

// A device failing mid-stream (WIDEBAND_FAULT, docs/reliability.md): the
// flowgraph stops by itself, work_error() names it, and the failed stream's
// buffers are released.
BOOST_AUTO_TEST_CASE(device_fails_mid_stream)
{
    const int64_t before = settled_live_buffers();
    {
        auto tb = gr::make_top_block("failing");
        auto src = gr::blocks::null_source::make(sizeof(gr_complex));
        auto filter = wb::fft_filter_ccf::make(1, random_taps(16, 6));
        tb->connect(src, 0, filter, 0);
        tb->connect(filter, 0, gr::blocks::null_sink::make(sizeof(gr_complex)), 0);
        const scoped_env fault("WIDEBAND_FAULT", "enqueue:4");
        tb->run();
        BOOST_CHECK(wb::work_error(filter).find("CL_OUT_OF_RESOURCES") !=
                    std::string::npos);
    }
    BOOST_CHECK_EQUAL(settled_live_buffers(), before);
}

// A flowgraph that is gone takes its blocks and their buffers with it (the
// blocks' output buffers used to keep them alive: opencl_buffer.cc).
BOOST_AUTO_TEST_CASE(discarded_flowgraphs_release_everything)
{
    const int64_t before = settled_live_buffers();
    std::vector<std::weak_ptr<gr::basic_block>> blocks;
    for (int i = 0; i < 3; ++i) {
        every_block g;
        g.run_and_check("flowgraph " + std::to_string(i));
        for (const auto& block :
             std::vector<gr::basic_block_sptr>{ g.filter, g.channelizer, g.fft, g.tb })
            blocks.push_back(block);
    }
    for (const auto& block : blocks)
        BOOST_CHECK(block.expired());
    BOOST_CHECK_EQUAL(settled_live_buffers(), before);
}
