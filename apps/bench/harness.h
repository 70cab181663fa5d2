/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The benchmarks' harness (library wideband-bench-harness): what every
 * benchmark does the same way, so that a benchmark's own file holds only what
 * it measures. Command line and main(), timing (tick kernels on the device,
 * wall clock, medians), the device's copy bandwidth and the PCIe bandwidth
 * (pinned through core::pinned_buffer, and pageable), test signals and taps,
 * check statistics against the float64 references (lib/core/tests/reference),
 * the text table and the CSV of the results.
 */

#ifndef INCLUDED_WIDEBAND_BENCH_HARNESS_H
#define INCLUDED_WIDEBAND_BENCH_HARNESS_H

#include "../app_common.h"
#include <gnuradio/wideband/core/channel_bank.h>
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/multi_device_pipeline.h>
#include <gnuradio/wideband/core/sample_format.h>

#include <initializer_list>
#include <type_traits>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace harness {

namespace core = gr::wideband::core;
using app_common::one_line;
using cfloat = std::complex<float>;
using clock_type = std::chrono::steady_clock;

const double nan_value = std::numeric_limits<double>::quiet_NaN();
// A quiet NaN fill: an output element that keeps it was never written.
constexpr cl_uint quiet_nan_bits = 0x7fc00001u;

// ---- formatting -----------------------------------------------------------

std::string fmt(const char* format, double value);      // "nan"/"inf" when not finite
std::string size_text(double bytes);                    // "512 MiB"
std::string number(double value);                       // at most four figures
std::string pad(const std::string& text, size_t width); // right-aligned
double ms_since(clock_type::time_point start);

template <typename T>
std::string join(const std::vector<T>& items, const char* sep = ",")
{
    std::ostringstream s;
    for (size_t i = 0; i < items.size(); ++i)
        s << (i ? sep : "") << items[i];
    return s.str();
}

inline bool contains(const std::vector<std::string>& v, const std::string& item)
{
    return std::find(v.begin(), v.end(), item) != v.end();
}

//! "  [k/n, T s]" for the heading of the next row: where a long run stands.
class progress
{
public:
    explicit progress(size_t total = 0) : d_total(total) {}
    std::string step();

private:
    size_t d_total;
    size_t d_done = 0;
    clock_type::time_point d_start = clock_type::now();
};

// The message of the exception being handled (OpenCL errors with their code).
std::string current_error_text();

// ---- command line ---------------------------------------------------------

// A bad command line: the programs print it on one line and exit with status 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

size_t
parse_count(const std::string& option, const std::string& text, size_t lo, size_t hi);
// A finite number >= lowest (seconds, fractions).
double parse_number(const std::string& option, const std::string& text, double lowest);
std::vector<std::string> split(const std::string& option, const std::string& text);

/*
 * A benchmark's options, declared once as a table of { { name, metavar, target
 * and range }, help }: each sets its target from argv ("--name value",
 * "--name=value", a flag alone) and has its line in --help, the default being
 * the target's value when declared, unless the help text ends in "]" (its own
 * default) or " []" (none shown).
 */
class option_table
{
public:
    //! parse(option, value) checks the value and sets the target.
    using parser = std::function<void(const std::string&, const std::string&)>;
    static constexpr size_t most = std::numeric_limits<int>::max();

    //! Where an option goes: a count (size_t or int), a list of counts, a number,
    //! a text, a flag (set to `given`), or any parser.
    struct target {
        // name, metavar, where and the range
        target(const char* n, const char* m, size_t* t, size_t lo, size_t hi = most);
        target(const char* n, const char* m, int* t, size_t lo, size_t hi = most);
        target(
            const char* n, const char* m, std::vector<size_t>* t, size_t lo, size_t hi);
        target(const char* n, const char* m, double* t, double lowest);
        target(const char* n, const char* m, std::string* t);
        target(const char* n, const char* m, parser p, std::string shown = "");
        target(const char* n, bool* t, bool given = true);
        std::string name, metavar, shown; // shown: the default
        parser parse;                     // empty for a flag
        std::function<void()> set;
    };
    struct line {
        target to;
        std::string help;
    };

    option_table& add(std::initializer_list<line> lines);
    //! \throws usage_error for an unknown option or a missing or bad value
    void parse(int argc, char** argv) const;
    void print(std::ostream& out) const; // "Options:" and a line or more each
    bool has(const std::string& name) const;

private:
    std::vector<line> d_lines;
};

//! What every benchmark's command line has (bench_main declares them).
struct common_options {
    std::string device;
    std::string csv;
    bool help = false;
};

//! --time-limit: once `seconds` (> 0) have passed, no further row starts.
class time_limit
{
public:
    double seconds = 0;
    //! The --time-limit option, naming what it stops.
    option_table::line option(const std::string& units);
    bool reached() const;
    std::string note() const { return "--time-limit reached"; }
    //! "--time-limit S s reached: `what` not run", when `what` is not empty.
    void report(const std::string& what) const;

private:
    clock_type::time_point d_start = clock_type::now();
};

// ---- timing ---------------------------------------------------------------

struct timing {
    double median_ms = nan_value;
    double min_ms = nan_value;
    double max_ms = nan_value;
    double b2b_ms = nan_value; // mean of runs back to back

    //! Every figure times `scale` (a time estimated from part of the work).
    timing operator*(double scale) const
    {
        return { median_ms * scale, min_ms * scale, max_ms * scale, b2b_ms * scale };
    }
};

double median_of(std::vector<double> v);
timing summarize(const std::vector<double>& ms);
//! One untimed run of `run` (returning its ms), then the summary of `reps` runs.
timing repeat(const std::function<double()>& run, int reps);
//! The summary of `reps` runs of `run` (returning its ms), none untimed.
timing time_runs(const std::function<double()>& run, int reps);
//! Runs of `run_ms` that fit `budget_ms`, from 1 to `most`.
int reps_within(double budget_ms, double run_ms, int most);

// Enqueues one transform (or copy) on the given queue.
using enqueue_fn = std::function<void(const cl::CommandQueue&)>;

/*
 * Device-side timing: two 1-work-item "tick" kernels bracket the work on an
 * in-order profiling queue, so the time covers every kernel of a transform and
 * the gaps between them, but not the host's enqueue calls.
 */
class device_timer
{
public:
    explicit device_timer(const core::device_context& ctx);

    const cl::CommandQueue& queue() const { return d_queue; }

    // `prepare` (may be empty) runs before each bracketed run, outside the bracket.
    timing
    measure(const enqueue_fn& run, const enqueue_fn& prepare, int warmup, int reps) const;

private:
    cl::Event tick() const;

    cl::CommandQueue d_queue;
    cl::Buffer d_counter;
    cl::Kernel d_tick;
};

// Host wall time of one execution, launch overhead included (median, min).
struct wall_timing {
    double median_us = nan_value;
    double min_us = nan_value;
};

wall_timing
measure_wall(const std::function<void()>& execute_and_wait, int warmup, int reps);

//! Waits for the queues, ignoring the errors a failed measurement left there.
void drain(const std::vector<const cl::CommandQueue*>& queues);

// ---- the device and its bandwidths -----------------------------------------

//! "# program", then the device, its driver and memory (two lines).
void print_device_header(const char* program, const core::device_info& device);

// Copies back to back for a quarter of a second, so that an idle GPU has raised
// its clocks before the first measurement.
void warm_up_device(const core::device_context& ctx,
                    const device_timer& timer,
                    size_t bytes);

//! clEnqueueCopyBuffer of `bytes`, the memory ceiling of a pass over the data.
struct copy_measurement {
    std::string when; // start, end
    size_t bytes = 0;
    std::string status = "ok";
    std::string note;
    timing time;
    // Bytes read + written per second, as for the engines.
    double gbs() const { return 2.0 * double(bytes) / (time.median_ms * 1e-3) / 1e9; }
};

/*
 * Copies between `from` and `to` (buffers of its own when null), timed on the
 * device, and its line "copy (when) SIZE: ..." printed.
 */
copy_measurement measure_copy(const core::device_context& ctx,
                              const device_timer& timer,
                              const std::string& when,
                              size_t bytes,
                              int warmup,
                              int reps,
                              const cl::Buffer* from = nullptr,
                              const cl::Buffer* to = nullptr);

//! The faster of the copies of `bytes` (any size when 0); 0 when none.
double copy_ceiling_gbs(const std::vector<copy_measurement>& copies, size_t bytes = 0);

//! Host <-> device copies: h2d, d2h, both (two queues at once), h2d-pageable.
struct pcie_measurement {
    std::string direction;
    size_t bytes = 0; // per direction
    std::string status = "ok";
    std::string note;
    timing time; // host wall time
    double gbs() const
    {
        return double(bytes) * (direction == "both" ? 2 : 1) / (time.median_ms * 1e-3) /
               1e9;
    }
};

/*
 * `count` copies of `chunk_bytes` per direction from and to pinned host memory
 * (core::pinned_buffer), one direction at a time, then both at once; with
 * `pageable`, host to device from ordinary memory too. One warm-up sequence,
 * the median of `reps`. Prints "pinned transfers, ..." unless `quiet`.
 */
std::vector<pcie_measurement> measure_pcie(const core::device_context::sptr& ctx,
                                           size_t chunk_bytes,
                                           size_t count,
                                           int reps,
                                           bool pageable = false,
                                           bool quiet = false);

//! One figure of measure_device_links(): GB/s (NaN: failed, see `note`).
struct link_measurement {
    std::string what;
    double gbs = nan_value;
    std::string note;
};

/*
 * How the first two of `devices` move data between them and the host, `bytes`
 * per copy (one warm-up, median of `reps`; measure_pcie() has each device
 * alone): both uploading from their own pinned memory at once (two links),
 * both uploading and downloading at once (four DMAs: what the host's memory
 * takes), the second device's
 * upload from and download into the first's pinned memory (what an edge
 * between blocks on the two devices uses), a device copy between the two
 * devices' buffers of one OpenCL context holding both (the only peer path
 * OpenCL has), and the host's copy rate (core::host_copy, bytes copied per
 * second: the blocks' staging copies).
 */
std::vector<link_measurement> measure_device_links(
    const std::vector<core::device_context::sptr>& devices, size_t bytes, int reps);

//! "%.0f GB/s" of a copy ceiling, "(not measured)" when 0.
std::string copy_ceiling_text(double gbs);
//! "h2d %.1f, d2h %.1f, both %.1f GB/s" of the PCIe measurements.
std::string pcie_text(const std::vector<pcie_measurement>& pcie);

//! GB/s of a direction (NaN: not measured or failed).
double pcie_gbs(const std::vector<pcie_measurement>& pcie, const std::string& direction);

/*
 * Input samples per second the bus allows for 8 bytes in and `out_bytes` out
 * per input sample: with the directions overlapped, min(h2d/8, d2h/o,
 * both/(8+o)), and one after the other.
 */
double pcie_limit(const std::vector<pcie_measurement>& pcie, double out_bytes);
double pcie_serial_limit(const std::vector<pcie_measurement>& pcie, double out_bytes);

//! Writes n samples of `sample_bytes` each from x into an engine's input
//! region (its buffer, at its offset in samples), after `wait`.
template <class Region>
void write_region(const cl::CommandQueue& q,
                  const Region& r,
                  const void* x,
                  size_t n,
                  size_t sample_bytes,
                  bool blocking = false,
                  const std::vector<cl::Event>* wait = nullptr,
                  cl::Event* done = nullptr)
{
    q.enqueueWriteBuffer(
        r.buffer, blocking, r.offset * sample_bytes, n * sample_bytes, x, wait, done);
}

//! write_region() of complex float samples.
template <class Region>
void write_region(const cl::CommandQueue& q,
                  const Region& r,
                  const cfloat* x,
                  size_t n,
                  bool blocking = false,
                  const std::vector<cl::Event>* wait = nullptr,
                  cl::Event* done = nullptr)
{
    write_region(
        q, r, static_cast<const void*>(x), n, sizeof(cfloat), blocking, wait, done);
}

// ---- signals and checks -----------------------------------------------------

//! Sample n of the test stream: both parts uniform in [-1, 1), from n alone,
//! so the stream can grow without changing.
cfloat signal_sample(uint64_t n);
//! Sample n of the real test stream: the complex one's floats in turn (its
//! memory read as floats), for engines of real input.
float real_signal_sample(uint64_t n);
//! The OpenCL twin of signal_sample, bit for bit: fill_signal(out, offset, base).
extern const char* const fill_signal_source;

//! Windowed sinc of `count` taps, cut-off `cutoff` cycles per sample, DC gain 1:
//! Blackman window, or Kaiser of `kaiser_beta` when > 0.
std::vector<double> windowed_sinc(size_t count, double cutoff, double kaiser_beta = 0);

/*
 * The channel-bank plans of issue 18, the same in every benchmark (--bank-*
 * options): `channels` channels at centres uniform in [-fs/2, fs/2] (fs = 1,
 * seeded), each of decimation D or, in the mixed plan, D drawn uniformly from
 * [lo, hi], and the taps of windowed_sinc(taps, 0.4 / D, bank_kaiser_beta): a
 * stopband near -150 dB, below the bank's omitted_response (1e-6), so that
 * each channel's window of bins is about the filter's main lobe (4000 taps,
 * D = 100..5000, FFT 16000: 43..165 bins; Blackman-Harris: 165..6871).
 */
constexpr double bank_kaiser_beta = 16;
struct bank_plan {
    std::string name; // "10", "mixed 100"
    std::vector<core::bank_channel> channels;
    std::string decimations() const; // "1000", "100..5000" (the smallest..largest)
};
struct bank_plans {
    std::vector<size_t> channels = { 10, 100, 1000 };
    size_t decimation = 1000, taps = 4000;
    size_t mixed = 100; // channels of the mixed plan, 0: none
    size_t mixed_lo = 100, mixed_hi = 5000;
    size_t seed = 1;

    void declare(option_table& t); // --bank-channels, --bank-decimation, ...
    std::vector<bank_plan> plans() const;
    //! The bank's options: sampling_freq 1, the plan's channels.
    static core::channel_bank_options options(const bank_plan& plan);
};

/*
 * Indices checked out of n: the first two, the middle, the last two, the
 * `extra` ones below n and `spread` more spread over [0, n).
 */
std::vector<size_t>
sample_indices(size_t n, const std::vector<size_t>& extra = {}, size_t spread = 0);

//! Sampled outputs against their float64 reference.
struct check_stats {
    explicit check_stats(double limit = 1e-4) : max_rel_err(limit) {}

    double max_rel_err; // the largest rel_err() that passes
    double err2 = 0, ref2 = 0;
    size_t points = 0, nonfinite = 0;
    std::string problem; // a wrong output count or region

    void add(const std::complex<double>& ref, const cfloat& got);
    void scan(const cfloat* y, size_t n); // non-finite values anywhere in y[0..n)
    void fail(const std::string& what);   // the first problem is kept
    double rel_err() const;
    bool passed() const;
    std::string text() const; // "err ... over ... points[, problems]"
};

// ---- measurements -----------------------------------------------------------

//! One measurement of a benchmark: how long, how right, or why it did not run.
struct measurement {
    std::string status = "ok"; // ok, failed, skipped, not run (fft: unsupported)
    std::string note;
    size_t samples = 0; // input samples (or points) per timed unit
    size_t calls = 1;   // engine calls in it
    timing time;
    double setup_ms = nan_value;
    check_stats check;

    bool ok() const { return status == "ok"; }
    bool passed() const { return !ok() || check.passed(); }
    double per_second() const { return double(samples) / (time.median_ms * 1e-3); }
    double per_second_b2b() const { return double(samples) / (time.b2b_ms * 1e-3); }
    //! Status "failed", the message of the exception being handled as the note.
    void fail();
    void set_status(const std::string& status, const std::string& why);
    /*!
     * "  name  ms (min[, b2b]) figures", the check (check.text() unless
     * `check_line`) and the setup and note lines; or "  name  status: note".
     */
    void print(const std::string& name,
               const std::string& figures,
               bool b2b,
               size_t indent = 20,
               const std::string& check_line = "") const;
};

// ---- results: one description for the table and the CSV ---------------------

/*
 * A figure of a result: a number (the table shows number() of it, or `format`;
 * the CSV six significant figures, nothing when not finite), a count or a text.
 */
class value
{
public:
    value() = default;
    value(double number, const char* format = nullptr)
        : d_number(number), d_format(format), d_is_number(true)
    {
    }
    template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
    value(I count) : d_text(std::to_string(count))
    {
    }
    value(std::string text) : d_text(std::move(text)) {}
    value(const char* text) : d_text(text) {}
    std::string table() const;
    std::string csv() const; // unquoted

private:
    double d_number = nan_value;
    const char* d_format = nullptr;
    bool d_is_number = false;
    std::string d_text;
};

/*
 * A column of results of type R: its CSV column (`name`), its table column
 * (`header`, in `width` characters, right-aligned, or left-aligned when
 * negative), or both, and the figure of a result. A result that did not run
 * has only its `always` columns in the CSV.
 */
template <class R>
struct column {
    using getter = std::function<value(const R&)>;
    column(std::string n, std::string h, int w, getter g, bool a = false)
        : name(std::move(n)), header(std::move(h)), width(w), get(std::move(g)), always(a)
    {
    }
    //! A CSV column only.
    column(std::string n, getter g, bool a = false) : column(std::move(n), "", 0, g, a) {}

    std::string name;
    std::string header;
    int width = 0;
    getter get;
    bool always = false;
};
template <class R>
using columns = std::vector<column<R>>;

template <class T>
std::vector<T> operator+(std::vector<T> a, const std::vector<T>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

/*
 * The CSV columns every measurement has, by name: samples, calls, status,
 * median_ms, min_ms, max_ms, b2b_ms, rel_err, points_checked, nonfinite,
 * setup_ms and note (a check's problem added to it).
 */
columns<measurement> measured_columns(const std::string& names);
template <class R>
columns<R> measured(const std::string& names)
{
    columns<R> of;
    for (const auto& c : measured_columns(names))
        of.push_back({ c.name, c.header, c.width, c.get, c.always });
    return of;
}

//! The type of the results find(row) gives.
template <class Find>
using found_type =
    std::remove_cv_t<std::remove_pointer_t<std::invoke_result_t<Find, size_t>>>;

/*
 * A group of table columns separated by '|' from the next, over the rows'
 * indices. `source` (may be empty) gives a row's measurement behind the group:
 * none, the group is blank; one that did not run, its status across the group.
 */
struct table_group {
    std::string title;
    columns<size_t> cells;
    std::function<const measurement*(size_t)> source = {};
};

//! The column of `all` named `name`, under `header` in `width` when given.
template <class R>
column<R> pick(const columns<R>& all,
               const std::string& name,
               const std::string& header = "",
               int width = 0)
{
    const auto c = std::find_if(
        all.begin(), all.end(), [&](const column<R>& c) { return c.name == name; });
    if (c == all.end())
        throw std::logic_error("no column " + name);
    column<R> picked = *c;
    if (!header.empty()) {
        picked.header = header;
        picked.width = width;
    }
    return picked;
}

//! The table column of `c` of the result find(row) (a measurement or null): its
//! status when it did not run, blank when there is none.
template <class Find>
column<size_t> cell_of(Find find, const column<found_type<Find>>& c)
{
    return { c.name, c.header, c.width, [find, get = c.get](size_t row) -> value {
                const auto* m = find(row);
                return !m ? value("") : m->ok() ? get(*m) : value(m->status);
            } };
}

//! The group of the columns `of` of the result find(row) (a measurement or null).
template <class Find>
table_group group(std::string title, Find find, const columns<found_type<Find>>& of)
{
    table_group g{ std::move(title), {}, [find](size_t row) -> const measurement* {
                      return find(row);
                  } };
    for (const auto& c : of)
        g.cells.push_back(cell_of(find, c));
    return g;
}

//! The err column: the largest error of a row's checks, ! when one failed.
table_group error_group(std::function<std::vector<const measurement*>(size_t)> checks);

/*
 * A title line, a header line and a rule, then one line for each of `rows`
 * rows. scripts/plot_benchmarks reads these tables from logs.
 */
void print_table(std::ostream& out, const std::vector<table_group>& groups, size_t rows);

/*
 * The CSV of a benchmark: named columns, rows given as name -> text or by
 * columns, absent ones empty. Opened when constructed with a path, so a bad one
 * fails at once.
 */
class csv_file
{
public:
    using fields = std::map<std::string, std::string>;

    csv_file() = default;
    explicit csv_file(const std::string& path);
    bool enabled() const { return d_file.is_open(); }
    void header(const std::string& columns); // comma-separated
    template <class R>
    void header(const columns<R>& of)
    {
        std::vector<std::string> names;
        for (const auto& c : of)
            names.push_back(c.name);
        header(join(names));
    }
    bool has(const std::string& column) const { return contains(d_columns, column); }
    void row(fields values);
    template <class R>
    void row(const columns<R>& of, const R& r, bool ran = true)
    {
        fields f;
        for (const auto& c : of)
            if (ran || c.always)
                f[c.name] = c.get(r).csv();
        row(f);
    }
    void finish(); // \throws std::runtime_error when the file could not be written

    static std::string number(double value);           // empty when not finite
    static std::string field(const std::string& text); // quoted when needed
    static void add_timing(fields& f, const timing& t);

private:
    std::string d_path;
    std::ofstream d_file;
    std::vector<std::string> d_columns;
};

//! The clEnqueueCopyBuffer ("copy") and PCIe ("pcie") rows of a CSV.
void add_bandwidth_rows(csv_file& csv,
                        const std::vector<copy_measurement>& copies,
                        const std::vector<pcie_measurement>& pcie,
                        const csv_file::fields& pcie_extra = {});

//! "  what: status: note" of each failed measurement, below a table.
template <class R, class Name>
void print_failures(const std::vector<R>& all, Name name)
{
    for (const R& m : all)
        if (m.status == "failed")
            std::cout << "  " << name(m) << ": " << m.status << ": " << m.note << "\n";
    std::cout << std::flush;
}

/*
 * The verdict of a run, printed, as the exit status: 3 a check failed, 1 a
 * measurement failed, 4 `not_run` (what --time-limit left out, "" for none),
 * else 0.
 */
int verdict(const std::vector<const measurement*>& all, const std::string& not_run);
template <class R>
int verdict(const std::vector<R>& all, const std::string& not_run)
{
    std::vector<const measurement*> p;
    for (const auto& m : all)
        p.push_back(&m);
    return verdict(p, not_run);
}

// ---- streaming over several devices ----------------------------------------

/*
 * Streaming through a pipeline (core::stream_pipeline or
 * core::multi_device_pipeline) as the GNU Radio blocks drive it: one untimed
 * and `reps` timed sequences of `calls` chunks of `chunk` samples from host
 * memory, chunk c from ring + (c % ring_chunks) * chunk (the stream is the ring
 * repeating), each submitted as soon as a slot is free; each chunk's output,
 * once on the host, goes to take(output, elements, sequence) (0: the untimed
 * one) before it is released. With `pinned` the ring is page-locked memory
 * that the devices read by DMA (submit_pinned(): no host copy in). The host
 * wall time of the sequences.
 */
template <class Pipeline, class Take>
timing stream_chunks(Pipeline& pipeline,
                     const cfloat* ring,
                     size_t ring_chunks,
                     size_t chunk,
                     size_t calls,
                     int reps,
                     Take&& take,
                     bool pinned = false)
{
    size_t chunk_index = 0;
    int sequence = 0;
    auto take_oldest = [&] {
        pipeline.wait_oldest();
        take(pipeline.oldest(), pipeline.oldest_elements(), sequence);
        pipeline.pop();
    };
    return repeat(
        [&] {
            const auto start = clock_type::now();
            for (size_t k = 0; k < calls; ++k, ++chunk_index) {
                if (!pipeline.can_submit())
                    take_oldest();
                const cfloat* input = ring + (chunk_index % ring_chunks) * chunk;
                if (pinned)
                    pipeline.submit_pinned(input, chunk);
                else
                    pipeline.submit(input, chunk);
            }
            while (pipeline.in_flight() > 0)
                take_oldest();
            ++sequence;
            return ms_since(start);
        },
        reps);
}

//! One Engine per device of the first n, and a multi_device_pipeline over them.
template <class Engine>
struct device_pipeline {
    template <class Options>
    device_pipeline(const std::vector<core::device_context::sptr>& devices,
                    size_t n,
                    const Options& options,
                    size_t depth)
    {
        const std::vector<core::device_context::sptr> used(devices.begin(),
                                                           devices.begin() + n);
        std::vector<core::splittable_engine*> split;
        for (const auto& context : used) {
            engines.emplace_back(new Engine(context, options));
            split.push_back(engines.back().get());
        }
        pipeline = std::make_unique<core::multi_device_pipeline>(used, split, depth);
    }
    const Engine& front() const { return *engines.front(); }

    std::vector<std::unique_ptr<Engine>> engines;
    std::unique_ptr<core::multi_device_pipeline> pipeline;
};

/*
 * One Engine on each of the first n devices, each with a queue (no profiling,
 * as a block's) and an output buffer of output_elements(engine) samples: what
 * bench_base::time_calls_together() runs.
 */
template <class Engine>
struct engines_on_devices {
    template <class Options, class Elements>
    engines_on_devices(const std::vector<core::device_context::sptr>& devices,
                       size_t n,
                       const Options& options,
                       Elements&& output_elements)
    {
        for (size_t i = 0; i < n; ++i) {
            engines.emplace_back(new Engine(devices[i], options));
            queues.push_back(devices[i]->create_queue(false));
            outputs.emplace_back(devices[i]->context(),
                                 CL_MEM_READ_WRITE,
                                 std::max<size_t>(output_elements(*engines.back()), 1) *
                                     sizeof(cfloat));
        }
    }
    const Engine& front() const { return *engines.front(); }

    //! check(i) for each engine: the first one's figures, or the first failure.
    template <class Check>
    check_stats check_each(Check&& check) const
    {
        check_stats first;
        for (size_t i = 0; i < engines.size(); ++i) {
            check_stats s = check(i);
            if (!s.passed())
                return s;
            if (i == 0)
                first = s;
        }
        return first;
    }

    std::vector<std::unique_ptr<Engine>> engines;
    std::vector<cl::CommandQueue> queues;
    std::vector<cl::Buffer> outputs;
};

/*
 * The table the benchmarks print when --device names several devices: for each
 * of `labels`, the streaming rate(line, n) with the first n = 1, 2, ... of them
 * (NaN: not measured or failed) and the speed-up of the most over one.
 */
void print_scaling(const std::string& heading,
                   const std::vector<core::device_context::sptr>& devices,
                   const std::vector<std::string>& labels,
                   const std::function<double(size_t, size_t)>& rate);

// ---- the state of a benchmark ------------------------------------------------

//! Whether an engine has reset() (core::channel_bank and core::arb_resampler do not).
template <class Engine, class = void>
struct has_reset : std::false_type {
};
template <class Engine>
struct has_reset<Engine, std::void_t<decltype(std::declval<Engine&>().reset())>>
    : std::true_type {
};

//! Whether an engine says its input's sample format (input_format()).
template <class Engine, class = void>
struct has_input_format : std::false_type {
};
template <class Engine>
struct has_input_format<
    Engine,
    std::void_t<decltype(std::declval<const Engine&>().input_format())>>
    : std::true_type {
};

/*
 * What a benchmark holds: the devices of --device (streaming runs over the first
 * 1, 2, ... of them), the first (everything else), its timer, a queue without
 * profiling (as a block's), the test stream, the copy and PCIe figures, the CSV
 * (opened at the start, so that a bad path fails at once) and the progress of
 * its rows.
 */
struct bench_base {
    bench_base(const common_options& o, std::vector<core::device_context::sptr> devices);
    //! clEnqueueCopyBuffer of `bytes` (measure_copy()).
    void measure_copies(const std::string& when, size_t bytes, int warmup, int reps);
    //! Waits for the timer's queue, d_compute and d_other_queues, ignoring their
    //! errors.
    void drain() const;
    /*
     * body(); an exception from it fails `m` (measurement::fail(): its message
     * as the note) and drains the queues, so that the next measurement starts
     * clean.
     */
    template <class Body>
    void attempt(measurement& m, Body&& body)
    {
        try {
            body();
        } catch (const std::exception&) {
            m.fail();
            drain();
        }
    }
    //! The first n samples of the test stream (signal_sample); the pointer stays
    //! valid until a longer stream is asked for.
    const cfloat* signal(size_t n);

    //! Bytes of one input sample of `engine`: complex float unless it has an
    //! input_format() (real f32 input: the test stream's floats in turn).
    template <class Engine>
    static size_t input_sample_bytes(const Engine& engine)
    {
        if constexpr (has_input_format<Engine>::value)
            return core::sample_bytes(engine.input_format());
        else
            return sizeof(cfloat);
    }

    //! The first n input samples of `engine`'s test stream, as raw memory.
    template <class Engine>
    const char* input_signal(const Engine& engine, size_t n)
    {
        const size_t bytes = n * input_sample_bytes(engine);
        return reinterpret_cast<const char*>(
            signal((bytes + sizeof(cfloat) - 1) / sizeof(cfloat)));
    }

    /*
     * The check of a streaming engine (core::pfb_channelizer, core::fft_filter):
     * three calls from zero history into NaN-filled `out`, of the most samples,
     * of fewer (leaving samples short of an output when D > 1) and of the most
     * again; call(n) enqueues one on `queue` (where the inputs are written)
     * and returns its outputs; then check(stats, outputs, first) compares
     * them, the first being output `first` of the stream.
     */
    template <class Engine, class Call, class Check>
    check_stats check_three_calls(const cl::CommandQueue& queue,
                                  Engine& engine,
                                  size_t D,
                                  const cl::Buffer& out,
                                  const char* unit,
                                  Call&& call,
                                  Check&& check)
    {
        const size_t max = engine.max_input_samples();
        const size_t sizes[] = { max, std::min(max, max / 3 + D / 2 + 1), max };
        const size_t item = input_sample_bytes(engine);
        const char* x = input_signal(engine, sizes[0] + sizes[1] + sizes[2]);
        check_stats s;
        uint64_t pos = 0; // samples before the call
        engine.reset();
        for (size_t n : sizes) {
            const auto region = engine.input_region();
            if (region.capacity < n) {
                s.fail("input_region() capacity " + std::to_string(region.capacity) +
                       " < " + std::to_string(n));
                break;
            }
            write_region(queue, region, x + pos * item, n, item);
            queue.enqueueFillBuffer(out, quiet_nan_bits, 0, out.getInfo<CL_MEM_SIZE>());
            const uint64_t first = pos / D;
            const size_t expected = size_t((pos + n) / D - first);
            const size_t got = call(n);
            queue.finish();
            if (got != expected)
                s.fail(std::to_string(got) + " " + unit + ", expected " +
                       std::to_string(expected));
            check(s, std::min(got, expected), first);
            pos += n;
        }
        return s;
    }

    /*
     * `engine` from zero history (an engine without reset(): its own) with the
     * test stream in the new-sample part of every input region, written on
     * `queue`; call(0) moves to the next region.
     */
    template <class Engine, class Call>
    void prime_inputs(Engine& engine, const cl::CommandQueue& queue, Call&& call)
    {
        if constexpr (has_reset<Engine>::value)
            engine.reset();
        for (size_t w = 0; w < engine.input_regions(); ++w) {
            const auto region = engine.input_region();
            write_region(queue,
                         region,
                         input_signal(engine, region.capacity),
                         region.capacity,
                         input_sample_bytes(engine),
                         true);
            call(0);
        }
    }

    /*
     * Device time of calls of `samples`: from zero history with the test stream in
     * the new-sample part of every input region (a call of no samples moves to
     * the next), so that timed calls read initialised data; call(queue, n)
     * enqueues one.
     */
    template <class Engine, class Call>
    timing time_calls(Engine& engine, size_t samples, int warmup, int reps, Call&& call)
    {
        d_compute.finish();
        prime_inputs(engine, d_compute, [&](size_t n) { call(d_compute, n); });
        d_compute.finish();
        return d_timer.measure(
            [&](const cl::CommandQueue& q) { call(q, samples); }, {}, warmup, reps);
    }

    /*
     * Device-resident calls on several devices at once (an engines_on_devices):
     * each engine primed (prime_inputs()), then `warmup` untimed
     * rounds and sequences of `reps` rounds back to back, a round being
     * call(i, queue i, samples) on every device (enqueued from one thread, all
     * queues flushed, so the devices compute concurrently). Host wall time per
     * round: one untimed sequence, then the median of `sequences`.
     */
    template <class Engines, class Call>
    timing time_calls_together(
        Engines& set, size_t samples, int warmup, int reps, int sequences, Call&& call)
    {
        auto round = [&](size_t n) {
            for (size_t i = 0; i < set.engines.size(); ++i) {
                call(i, set.queues[i], n);
                set.queues[i].flush();
            }
        };
        auto finish = [&] {
            for (const auto& q : set.queues)
                q.finish();
        };
        for (size_t i = 0; i < set.engines.size(); ++i)
            prime_inputs(*set.engines[i], set.queues[i], [&](size_t n) {
                call(i, set.queues[i], n);
            });
        for (int w = 0; w < warmup; ++w)
            round(samples);
        finish();
        return repeat(
                   [&] {
                       const auto start = clock_type::now();
                       for (int r = 0; r < reps; ++r)
                           round(samples);
                       finish();
                       return ms_since(start);
                   },
                   sequences) *
               (1.0 / reps);
    }

    /*
     * An Engine of `options` on each of the first n devices at once, the same
     * calls of its max_input_samples() on each (time_calls_together(), 3
     * sequences), into m: setup_ms, samples (of all n), the note with what
     * describe(first engine) says of a call, time, and the check of every
     * engine, check(engine, its queue, its output). enqueue(engine, queue,
     * samples, output) enqueues a call.
     */
    template <class Engine, class Options, class Describe, class Enqueue, class Check>
    void measure_together(measurement& m,
                          size_t n,
                          const Options& options,
                          int warmup,
                          int reps,
                          Describe&& describe,
                          Enqueue&& enqueue,
                          Check&& check)
    {
        attempt(m, [&] {
            const auto start = clock_type::now();
            engines_on_devices<Engine> set(d_devices, n, options, [](const Engine& e) {
                return e.max_output_elements();
            });
            m.setup_ms = ms_since(start);
            const size_t samples = set.front().max_input_samples(); // per call, device
            m.samples = n * samples;
            m.note = std::to_string(n) + " device" + (n > 1 ? "s" : "") +
                     " at once, the same " + describe(set.front()) +
                     " on each, host time per round";
            m.time = time_calls_together(
                set,
                samples,
                warmup,
                reps,
                3,
                [&](size_t i, const cl::CommandQueue& q, size_t count) {
                    enqueue(*set.engines[i], q, count, set.outputs[i]);
                });
            m.check = set.check_each([&](size_t i) {
                return check(*set.engines[i], set.queues[i], set.outputs[i]);
            });
        });
    }

    /*
     * stream_chunks() through `pipeline` (of engines like `engine`) from a
     * ring of `ring_chunks` chunks of the test stream (page-locked with
     * `pinned`): each chunk's output copied out of the pipeline's memory first
     * with `copy_out` (as a block with host edges does), then take(output,
     * elements, sequence).
     */
    timing stream_signal(core::multi_device_pipeline& pipeline,
                         const core::stream_engine& engine,
                         size_t ring_chunks,
                         size_t chunk,
                         size_t calls,
                         int reps,
                         bool pinned,
                         bool copy_out,
                         const std::function<void(const cfloat*, size_t, int)>& take);
    //! The same through a device_pipeline and its engines.
    template <class Engine, class... Rest>
    timing stream_signal(const device_pipeline<Engine>& p, Rest&&... rest)
    {
        return stream_signal(*p.pipeline, p.front(), std::forward<Rest>(rest)...);
    }

    std::vector<core::device_context::sptr> d_devices;
    core::device_context::sptr d_ctx;
    device_timer d_timer;
    cl::CommandQueue d_compute;
    std::vector<const cl::CommandQueue*> d_other_queues; // a benchmark's own queues
    std::vector<cfloat> d_signal;
    std::vector<copy_measurement> d_copies;
    std::vector<pcie_measurement> d_pcie;
    csv_file d_csv;
    progress d_progress;
};

// ---- main() ---------------------------------------------------------------

//! What --help says of a benchmark, and what fails its check.
struct bench_help {
    const char* program;
    std::string about, examples;
    std::string checked; // what fails a check (exit status 3); "": none
};

/*
 * The work of bench_main() that does not depend on the benchmark: `declare`
 * adds the benchmark's options between --device and --csv; `several`: the
 * benchmark takes every device of --device, else exactly one; run(devices)
 * constructs and runs it.
 */
int run_bench_main(
    const bench_help& help,
    int argc,
    char** argv,
    common_options& options,
    bool several,
    const std::function<void(option_table&)>& declare,
    const std::function<int(const std::vector<core::device_context::sptr>&)>& run);

/*!
 * The main() of a bench app: its options (declared by declare(), with --device,
 * --csv and --help; a usage mistake: one line, exit 2), --help ("Usage: program
 * [OPTIONS]", `about`, the options, `examples`, the exit statuses with what
 * fails a check, `checked`), the devices (none matching: exit 2), then
 * Bench(options, contexts).run(), or Bench(options, context).run() for a bench
 * of one device (then a device string naming several is a usage mistake); any
 * other error is one line and exit 1.
 */
template <class Bench, class Options>
int bench_main(int argc,
               char** argv,
               void (*declare)(Options&, option_table&),
               const bench_help& help)
{
    using contexts = std::vector<core::device_context::sptr>;
    constexpr bool several = std::is_constructible_v<Bench, const Options&, contexts>;
    Options options;
    return run_bench_main(
        help,
        argc,
        argv,
        options,
        several,
        [&](option_table& table) { declare(options, table); },
        [&](const contexts& devices) {
            if constexpr (several) {
                Bench b(options, devices);
                return b.run();
            } else {
                Bench b(options, devices.front());
                return b.run();
            }
        });
}

} // namespace harness

#endif /* INCLUDED_WIDEBAND_BENCH_HARNESS_H */
