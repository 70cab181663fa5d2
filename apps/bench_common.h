/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * What the benchmarks (wideband_fft_bench, wideband_channelizer_bench,
 * wideband_filter_bench) share:
 * device-side timing with tick kernels, medians, host wall time, number and
 * table formatting, CSV fields and command-line parsing.
 */

#ifndef INCLUDED_WIDEBAND_BENCH_COMMON_H
#define INCLUDED_WIDEBAND_BENCH_COMMON_H

#include "app_common.h"
#include <gnuradio/wideband/core/device.h>

#include <type_traits>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench_common {

namespace core = gr::wideband::core;
using app_common::one_line;
using cfloat = std::complex<float>;
using clock_type = std::chrono::steady_clock;

const double nan_value = std::numeric_limits<double>::quiet_NaN();

// ---- formatting -----------------------------------------------------------

inline std::string fmt(const char* format, double value)
{
    if (!std::isfinite(value))
        return std::isnan(value) ? "nan" : "inf";
    char text[64];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

inline std::string size_text(double bytes)
{
    if (bytes >= 1073741824.0)
        return fmt("%.3g GiB", bytes / 1073741824.0);
    if (bytes >= 1048576.0)
        return fmt("%.3g MiB", bytes / 1048576.0);
    return fmt("%.3g KiB", bytes / 1024.0);
}

inline double ms_since(clock_type::time_point start)
{
    return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

/*
 * How far a run through its rows is: step() gives "  [k/n, T s]" for the
 * heading of the next row, so that a run of many minutes on a GPU shows where
 * it stands.
 */
class progress
{
public:
    explicit progress(size_t total = 0) : d_total(total) {}

    std::string step()
    {
        ++d_done;
        return "  [" + std::to_string(d_done) + "/" + std::to_string(d_total) + ", " +
               fmt("%.0f s]", ms_since(d_start) / 1e3);
    }

private:
    size_t d_total;
    size_t d_done = 0;
    clock_type::time_point d_start = clock_type::now();
};

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

// Right-aligned in `width` characters.
inline std::string pad(const std::string& text, size_t width)
{
    return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

// At most four significant figures, so GPU and PoCL figures both read well.
inline std::string number(double value)
{
    const double a = std::fabs(value);
    return fmt(a >= 1000 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3g", value);
}

inline std::string csv_field(const std::string& text)
{
    if (text.find_first_of(",\"") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (char c : text)
        quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

inline std::string csv_number(double value)
{
    return std::isfinite(value) ? fmt("%.6g", value) : std::string();
}

// The message of the exception being handled (OpenCL errors with their code).
inline std::string current_error_text()
{
    try {
        throw;
    } catch (const cl::Error& e) {
        return std::string(e.what()) + ": " + core::cl_error_name(e.err());
    } catch (const std::exception& e) {
        return e.what();
    } catch (...) {
        return "unknown exception";
    }
}

// ---- command line ---------------------------------------------------------

// A bad command line: the programs print it on one line and exit with status 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

inline size_t parse_count(const std::string& option,
                          const std::string& text,
                          size_t lowest,
                          size_t highest)
{
    size_t used = 0;
    unsigned long long value = 0;
    try {
        value = std::stoull(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || text[0] == '-' || value < lowest ||
        value > highest)
        throw usage_error(option + ": '" + text + "' is not an integer from " +
                          std::to_string(lowest) + " to " + std::to_string(highest));
    return size_t(value);
}

// A finite number >= lowest (seconds, fractions).
inline double
parse_number(const std::string& option, const std::string& text, double lowest)
{
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(value) || !(value >= lowest))
        throw usage_error(option + ": '" + text +
                          "' is not a number >= " + fmt("%g", lowest));
    return value;
}

inline std::vector<std::string> split(const std::string& option, const std::string& text)
{
    std::vector<std::string> items;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty())
            items.push_back(item);
    if (items.empty())
        throw usage_error(option + ": empty list");
    return items;
}

using value_options = std::map<std::string, std::function<void(const std::string&)>>;
using flag_options = std::map<std::string, std::function<void()>>;

/*
 * Runs the handler of every option of argv: "--name value" or "--name=value" for
 * `values`, "--name" for `flags` (-h and --help are flags the caller lists).
 * `arg` holds the option being parsed, for the handlers' error messages.
 * \throws usage_error for an unknown option or a missing value
 */
inline void parse_arguments(int argc,
                            char** argv,
                            std::string& arg,
                            const value_options& values,
                            const flag_options& flags)
{
    for (int i = 1; i < argc; ++i) {
        arg = argv[i];
        std::string value;
        const size_t equals = arg.find('=');
        const bool inline_value = arg.rfind("--", 0) == 0 && equals != std::string::npos;
        if (inline_value) {
            value = arg.substr(equals + 1);
            arg.resize(equals);
        }
        if (flags.count(arg)) {
            flags.at(arg)();
        } else if (values.count(arg)) {
            if (!inline_value && i + 1 >= argc)
                throw usage_error(arg + " needs a value");
            values.at(arg)(inline_value ? value : argv[++i]);
        } else {
            throw usage_error("unknown option '" + std::string(argv[i]) + "'");
        }
    }
}

// ---- timing ---------------------------------------------------------------

struct timing {
    double median_ms = nan_value;
    double min_ms = nan_value;
    double max_ms = nan_value;
    double b2b_ms = nan_value; // mean of runs back to back
};

inline double median_of(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

inline timing summarize(const std::vector<double>& ms)
{
    timing t;
    t.median_ms = median_of(ms);
    t.min_ms = *std::min_element(ms.begin(), ms.end());
    t.max_ms = *std::max_element(ms.begin(), ms.end());
    return t;
}

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
    explicit device_timer(const core::device_context& ctx)
        : d_queue(ctx.create_queue(true)), d_counter(ctx.context(), CL_MEM_READ_WRITE, 64)
    {
        const char* source = R"(
            __kernel void tick(__global uint* counter)
            {
                if (get_global_id(0) == 0)
                    counter[0] += 1u;
            })";
        cl::Program program(ctx.context(), std::string(source));
        program.build(std::vector<cl::Device>{ ctx.device() });
        d_tick = cl::Kernel(program, "tick");
        d_tick.setArg(0, d_counter);
    }

    const cl::CommandQueue& queue() const { return d_queue; }

    // `prepare` (may be empty) runs before each bracketed run, outside the bracket.
    timing
    measure(const enqueue_fn& run, const enqueue_fn& prepare, int warmup, int reps) const
    {
        for (int i = 0; i < warmup; ++i)
            run(d_queue);
        d_queue.finish();
        std::vector<cl::Event> start(reps), stop(reps);
        for (int i = 0; i < reps; ++i) {
            if (prepare)
                prepare(d_queue);
            start[i] = tick();
            run(d_queue);
            stop[i] = tick();
        }
        d_queue.finish();
        std::vector<double> ms;
        for (int i = 0; i < reps; ++i)
            ms.push_back(elapsed_ms(start[i], stop[i]));
        timing t = summarize(ms);

        // Back to back, as a stream of launches runs. Runs in place are not
        // restored here: their values grow and may overflow to inf/NaN, which
        // leaves the time of the arithmetic unchanged.
        const cl::Event first = tick();
        for (int i = 0; i < reps; ++i)
            run(d_queue);
        const cl::Event last = tick();
        d_queue.finish();
        t.b2b_ms = elapsed_ms(first, last) / reps;
        return t;
    }

private:
    cl::Event tick() const
    {
        cl::Event event;
        d_queue.enqueueNDRangeKernel(
            d_tick, cl::NullRange, cl::NDRange(1), cl::NDRange(1), nullptr, &event);
        return event;
    }

    static double elapsed_ms(const cl::Event& before, const cl::Event& after)
    {
        const cl_ulong end = before.getProfilingInfo<CL_PROFILING_COMMAND_END>();
        const cl_ulong start = after.getProfilingInfo<CL_PROFILING_COMMAND_START>();
        return double(int64_t(start - end)) * 1e-6;
    }

    cl::CommandQueue d_queue;
    cl::Buffer d_counter;
    cl::Kernel d_tick;
};

// Host wall time of one execution, launch overhead included (median, min).
struct wall_timing {
    double median_us = nan_value;
    double min_us = nan_value;
};

inline wall_timing
measure_wall(const std::function<void()>& execute_and_wait, int warmup, int reps)
{
    for (int i = 0; i < warmup; ++i)
        execute_and_wait();
    std::vector<double> us;
    for (int i = 0; i < reps; ++i) {
        const auto start = clock_type::now();
        execute_and_wait();
        us.push_back(ms_since(start) * 1e3);
    }
    return { median_of(us), *std::min_element(us.begin(), us.end()) };
}

// ---- streaming over several devices ----------------------------------------

/*
 * One timed sequence through a streaming pipeline (core::stream_pipeline or
 * core::multi_device_pipeline) as the GNU Radio blocks drive it: `calls` chunks
 * of `chunk` samples from host memory, stream chunk c from ring + (c %
 * ring_chunks) * chunk (c counts on in `chunk_index`, so the stream is the ring
 * repeating), each submitted as soon as a slot is free; each chunk's output,
 * once on the host, goes to take(output, elements) before it is released.
 * Returns the host wall time in ms.
 */
template <class Pipeline, class Take>
double stream_sequence(Pipeline& pipeline,
                       const cfloat* ring,
                       size_t ring_chunks,
                       size_t chunk,
                       size_t calls,
                       size_t& chunk_index,
                       Take&& take)
{
    auto take_oldest = [&] {
        pipeline.wait_oldest();
        take(pipeline.oldest(), pipeline.oldest_elements());
        pipeline.pop();
    };
    const auto start = clock_type::now();
    for (size_t k = 0; k < calls; ++k, ++chunk_index) {
        if (!pipeline.can_submit())
            take_oldest();
        pipeline.submit(ring + (chunk_index % ring_chunks) * chunk, chunk);
    }
    while (pipeline.in_flight() > 0)
        take_oldest();
    return ms_since(start);
}

// One line of the device scaling table: a rate with the first 1, 2, ... devices
// (NaN: not measured or failed).
struct scaling_line {
    std::string label;
    std::vector<double> rates;
};

/*
 * The table the benchmarks print when --device names several devices: the
 * streaming rate with the first 1, 2, ... of them and the speed-up of the
 * most over one.
 */
inline void print_scaling(const std::string& heading,
                          const std::vector<core::device_context::sptr>& devices,
                          const std::vector<scaling_line>& lines)
{
    std::cout << "\n" << heading << "\n";
    for (size_t i = 0; i < devices.size(); ++i)
        std::cout << "  device " << i + 1 << ": " << devices[i]->info().address() << " "
                  << devices[i]->info().name << "\n";
    size_t width = 12;
    for (const auto& line : lines)
        width = std::max(width, line.label.size() + 2);
    std::string head = std::string(width, ' ');
    for (size_t n = 1; n <= devices.size(); ++n)
        head += pad(std::to_string(n) + (n == 1 ? " device" : " devices"), 11);
    head += pad("speed-up", 10);
    std::cout << head << "\n" << std::string(head.size(), '-') << "\n";
    for (const auto& line : lines) {
        std::string text = line.label + std::string(width - line.label.size(), ' ');
        for (size_t n = 0; n < devices.size(); ++n)
            text += pad(n < line.rates.size() ? number(line.rates[n]) : "-", 11);
        const double gain = line.rates.size() == devices.size()
                                ? line.rates.back() / line.rates.front()
                                : nan_value;
        text += pad(std::isfinite(gain) ? fmt("%.2fx", gain) : "-", 10);
        std::cout << text << "\n";
    }
    std::cout << std::flush;
}

/*!
 * The main() of a bench app: options (a usage mistake: one line, exit 2), --help,
 * the devices (none matching: exit 2), then Bench(options, contexts).run(), or
 * Bench(options, context).run() for a bench of one device (then a device string
 * naming several is a usage mistake); any other error is one line and exit 1.
 */
template <class Bench, class Options>
int bench_main(const char* program,
               int argc,
               char** argv,
               Options (*parse_command_line)(int, char**),
               void (*print_help)())
{
    Options options;
    try {
        options = parse_command_line(argc, argv);
    } catch (const usage_error& e) {
        std::cerr << program << ": " << e.what() << " (see --help)" << std::endl;
        return 2;
    }
    if (options.help) {
        print_help();
        return 0;
    }
    try {
        using contexts = std::vector<core::device_context::sptr>;
        contexts devices;
        try {
            devices = core::device_context::get_all(options.device);
        } catch (const std::invalid_argument& e) { // --device matches no device
            std::cerr << program << ": " << one_line(e.what()) << std::endl;
            return 2;
        }
        if constexpr (std::is_constructible_v<Bench, const Options&, contexts>) {
            Bench b(options, devices);
            return b.run();
        } else {
            if (devices.size() > 1) {
                std::cerr << program << ": --device \"" << options.device << "\" names "
                          << devices.size() << " devices; this benchmark runs on one"
                          << std::endl;
                return 2;
            }
            Bench b(options, devices.front());
            return b.run();
        }
    } catch (const cl::Error& e) {
        std::cerr << program << ": OpenCL error " << core::cl_error_name(e.err())
                  << " in " << e.what() << std::endl;
    } catch (const std::exception& e) {
        std::cerr << program << ": " << one_line(e.what()) << std::endl;
    }
    return 1;
}

} // namespace bench_common

#endif /* INCLUDED_WIDEBAND_BENCH_COMMON_H */
