/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "harness.h"

#include <gnuradio/wideband/core/host_copy.h>
#include <gnuradio/wideband/core/pinned_buffer.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

namespace harness {

// ---- formatting -----------------------------------------------------------

std::string fmt(const char* format, double value)
{
    if (!std::isfinite(value))
        return std::isnan(value) ? "nan" : "inf";
    char text[64];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

std::string size_text(double bytes)
{
    if (bytes >= 1073741824.0)
        return fmt("%.3g GiB", bytes / 1073741824.0);
    if (bytes >= 1048576.0)
        return fmt("%.3g MiB", bytes / 1048576.0);
    return fmt("%.3g KiB", bytes / 1024.0);
}

// At most four significant figures, so GPU and PoCL figures both read well.
std::string number(double value)
{
    const double a = std::fabs(value);
    return fmt(a >= 1000 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3g", value);
}

std::string pad(const std::string& text, size_t width)
{
    return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

double ms_since(clock_type::time_point start)
{
    return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

std::string progress::step()
{
    ++d_done;
    return "  [" + std::to_string(d_done) + "/" + std::to_string(d_total) + ", " +
           fmt("%.0f s]", ms_since(d_start) / 1e3);
}

std::string current_error_text()
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

size_t parse_count(const std::string& option,
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

double parse_number(const std::string& option, const std::string& text, double lowest)
{
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(value) || !(value >= lowest))
        throw usage_error(option + ": '" + text +
                          "' is not a number >= " + fmt("%g", lowest));
    return value;
}

std::vector<std::string> split(const std::string& option, const std::string& text)
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

using target = option_table::target;

target::target(const char* n, const char* m, size_t* t, size_t lo, size_t hi)
    : target(
          n, m, [=](auto& o, auto& v) { *t = parse_count(o, v, lo, hi); }, "")
{
    shown = std::to_string(*t);
}

target::target(const char* n, const char* m, int* t, size_t lo, size_t hi)
    : target(
          n, m, [=](auto& o, auto& v) { *t = int(parse_count(o, v, lo, hi)); }, "")
{
    shown = std::to_string(*t);
}

target::target(const char* n, const char* m, std::vector<size_t>* t, size_t lo, size_t hi)
    : target(n, m, [=](auto& o, auto& v) {
          t->clear();
          for (const auto& item : split(o, v))
              t->push_back(parse_count(o, item, lo, hi));
      })
{
    shown = join(*t);
}

target::target(const char* n, const char* m, double* t, double lo)
    : target(
          n, m, [=](auto& o, auto& v) { *t = parse_number(o, v, lo); }, fmt("%g", *t))
{
}

target::target(const char* n, const char* m, std::string* t)
    : target(
          n, m, [=](auto&, auto& v) { *t = v; }, *t)
{
}

target::target(const char* n, const char* m, parser p, std::string s)
    : name(n), metavar(m), shown(std::move(s)), parse(std::move(p))
{
}

target::target(const char* n, bool* t, bool given) : name(n), set([=] { *t = given; }) {}

option_table& option_table::add(std::initializer_list<line> lines)
{
    for (line l : lines) {
        if (l.help.size() >= 3 && l.help.compare(l.help.size() - 3, 3, " []") == 0)
            l.help.resize(l.help.size() - 3); // no default to show
        else if (l.to.parse && !l.help.empty() && l.help.back() != ']' &&
                 !l.to.shown.empty())
            l.help += " [" + l.to.shown + "]";
        d_lines.push_back(l);
    }
    return *this;
}

void option_table::parse(int argc, char** argv) const
{
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i], value;
        const size_t equals = arg.find('=');
        const bool inline_value = arg.rfind("--", 0) == 0 && equals != std::string::npos;
        if (inline_value) {
            value = arg.substr(equals + 1);
            arg.resize(equals);
        }
        const auto e = std::find_if(d_lines.begin(), d_lines.end(), [&](const line& l) {
            return l.to.name == arg;
        });
        if (e == d_lines.end())
            throw usage_error("unknown option '" + std::string(argv[i]) + "'");
        if (!e->to.parse) {
            e->to.set();
            continue;
        }
        if (!inline_value && i + 1 >= argc)
            throw usage_error(arg + " needs a value");
        e->to.parse(arg, inline_value ? value : argv[++i]);
    }
}

namespace {

// `text` on lines of at most 80 characters after `line` (indented to `indent`).
void wrap(std::ostream& out, std::string line, const std::string& text, size_t indent)
{
    std::istringstream words(text);
    std::string word;
    bool first = true;
    while (words >> word) {
        if (!first && line.size() + 1 + word.size() > 81) {
            out << line << "\n";
            line.clear();
            first = true;
        }
        line += first ? std::string(indent - std::min(indent, line.size()), ' ') + word
                      : " " + word;
        first = false;
    }
    out << line << "\n";
}

} // namespace

// "  --name METAVAR" in 26 columns, the help wrapped at 80.
void option_table::print(std::ostream& out) const
{
    constexpr size_t indent = 26;
    out << "Options:\n";
    for (const auto& [to, help] : d_lines) {
        if (help.empty())
            continue; // -h: listed with --help
        std::string line = std::string("  ") + (to.name == "--help" ? "-h, " : "") +
                           to.name + (to.metavar.empty() ? "" : " " + to.metavar);
        if (line.size() + 2 > indent) {
            out << line << "\n";
            line.clear();
        }
        wrap(out, line, help, indent);
    }
}

bool option_table::has(const std::string& name) const
{
    return std::any_of(
        d_lines.begin(), d_lines.end(), [&](const line& l) { return l.to.name == name; });
}

option_table::line time_limit::option(const std::string& units)
{
    return { { "--time-limit", "SEC", &seconds, 0 },
             "start no further " + units +
                 " after SEC seconds, print the tables of what was measured, exit "
                 "status 4; 0: no limit" };
}

void time_limit::report(const std::string& what) const
{
    if (!what.empty())
        std::cout << "\n--time-limit " << fmt("%g", seconds) << " s reached: " << what
                  << " not run" << std::endl;
}

bool time_limit::reached() const
{
    return seconds > 0 && ms_since(d_start) > 1e3 * seconds;
}

// ---- timing ---------------------------------------------------------------

double median_of(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

timing summarize(const std::vector<double>& ms)
{
    timing t;
    t.median_ms = median_of(ms);
    t.min_ms = *std::min_element(ms.begin(), ms.end());
    t.max_ms = *std::max_element(ms.begin(), ms.end());
    return t;
}

timing repeat(const std::function<double()>& run, int reps)
{
    run();
    return time_runs(run, reps);
}

timing time_runs(const std::function<double()>& run, int reps)
{
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i)
        ms.push_back(run());
    return summarize(ms);
}

int reps_within(double budget_ms, double run_ms, int most)
{
    return int(
        std::clamp<double>(std::floor(budget_ms / std::max(run_ms, 1e-3)), 1, most));
}

device_timer::device_timer(const core::device_context& ctx)
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

namespace {

double elapsed_ms(const cl::Event& before, const cl::Event& after)
{
    const cl_ulong end = before.getProfilingInfo<CL_PROFILING_COMMAND_END>();
    const cl_ulong start = after.getProfilingInfo<CL_PROFILING_COMMAND_START>();
    return double(int64_t(start - end)) * 1e-6;
}

} // namespace

timing device_timer::measure(const enqueue_fn& run,
                             const enqueue_fn& prepare,
                             int warmup,
                             int reps) const
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

cl::Event device_timer::tick() const
{
    cl::Event event;
    d_queue.enqueueNDRangeKernel(
        d_tick, cl::NullRange, cl::NDRange(1), cl::NDRange(1), nullptr, &event);
    return event;
}

wall_timing
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

void drain(const std::vector<const cl::CommandQueue*>& queues)
{
    for (const cl::CommandQueue* q : queues)
        try {
            q->finish();
        } catch (const cl::Error&) {
        }
}

// ---- the device and its bandwidths -----------------------------------------

void print_device_header(const char* program, const core::device_info& d)
{
    std::cout << "# " << program << "\n"
              << "# device " << d.address() << ": " << d.name << " (" << d.type_name()
              << "), platform " << d.platform_name << "\n"
              << "# driver " << d.driver_version << ", " << d.version << ", "
              << d.compute_units << " compute units at " << d.max_clock_mhz << " MHz, "
              << size_text(double(d.global_mem_bytes)) << " global memory, "
              << size_text(double(d.max_alloc_bytes)) << " max allocation, "
              << size_text(double(d.local_mem_bytes)) << " local memory\n";
}

void warm_up_device(const core::device_context& ctx,
                    const device_timer& timer,
                    size_t bytes)
{
    cl::Buffer a(ctx.context(), CL_MEM_READ_WRITE, bytes);
    cl::Buffer b(ctx.context(), CL_MEM_READ_WRITE, bytes);
    const auto start = clock_type::now();
    while (ms_since(start) < 250) {
        timer.queue().enqueueCopyBuffer(a, b, 0, 0, bytes);
        timer.queue().finish();
    }
}

copy_measurement measure_copy(const core::device_context& ctx,
                              const device_timer& timer,
                              const std::string& when,
                              size_t bytes,
                              int warmup,
                              int reps,
                              const cl::Buffer* from,
                              const cl::Buffer* to)
{
    copy_measurement c;
    c.when = when;
    c.bytes = bytes;
    try {
        const cl::Buffer source =
            from ? *from : cl::Buffer(ctx.context(), CL_MEM_READ_WRITE, bytes);
        const cl::Buffer target =
            to ? *to : cl::Buffer(ctx.context(), CL_MEM_READ_WRITE, bytes);
        c.time = timer.measure(
            [&](const cl::CommandQueue& q) {
                q.enqueueCopyBuffer(source, target, 0, 0, bytes);
            },
            {},
            warmup,
            reps);
    } catch (const std::exception&) {
        c.status = "failed";
        c.note = current_error_text();
        drain({ &timer.queue() });
    }
    std::cout << "copy (" << when << ") " << size_text(double(bytes)) << ": "
              << (c.status == "ok" ? fmt("%.4f ms", c.time.median_ms) +
                                         fmt(" (b2b %.4f)", c.time.b2b_ms) +
                                         fmt("  %.0f GB/s read+write", c.gbs())
                                   : c.status + ": " + c.note)
              << std::endl;
    return c;
}

double copy_ceiling_gbs(const std::vector<copy_measurement>& copies, size_t bytes)
{
    double best = 0;
    for (const auto& c : copies)
        if (c.status == "ok" && (bytes == 0 || c.bytes == bytes))
            best = std::max(best, c.gbs());
    return best;
}

std::vector<pcie_measurement> measure_pcie(const core::device_context::sptr& ctx,
                                           size_t chunk_bytes,
                                           size_t count,
                                           int reps,
                                           bool pageable,
                                           bool quiet)
{
    std::vector<pcie_measurement> results;
    try {
        core::pinned_buffer up(ctx, chunk_bytes), down(ctx, chunk_bytes);
        std::memset(up.data(), 0, chunk_bytes);
        std::vector<char> ordinary(pageable ? chunk_bytes : 0, 1);
        cl::CommandQueue upload = ctx->create_queue(), download = ctx->create_queue();
        cl::Buffer to(ctx->context(), CL_MEM_READ_WRITE, chunk_bytes);
        cl::Buffer from(ctx->context(), CL_MEM_READ_WRITE, chunk_bytes);
        upload.enqueueCopyBuffer(to, from, 0, 0, chunk_bytes);
        upload.finish();
        std::vector<std::string> directions = { "h2d", "d2h", "both" };
        if (pageable)
            directions.push_back("h2d-pageable");
        for (const auto& direction : directions) {
            pcie_measurement p;
            p.direction = direction;
            p.bytes = count * chunk_bytes;
            const bool h2d = direction != "d2h",
                       d2h = direction == "d2h" || direction == "both";
            const void* source =
                direction == "h2d-pageable" ? ordinary.data() : up.data();
            p.time = repeat(
                [&] {
                    const auto start = clock_type::now();
                    for (size_t i = 0; i < count; ++i) {
                        if (h2d)
                            upload.enqueueWriteBuffer(
                                to, CL_FALSE, 0, chunk_bytes, source);
                        if (d2h)
                            download.enqueueReadBuffer(
                                from, CL_FALSE, 0, chunk_bytes, down.data());
                    }
                    upload.finish();
                    download.finish();
                    return ms_since(start);
                },
                reps);
            results.push_back(p);
        }
    } catch (const std::exception&) {
        pcie_measurement p;
        p.direction = "h2d";
        p.status = "failed";
        p.note = current_error_text();
        results.push_back(p);
    }
    if (quiet)
        return results;
    std::cout << "pinned transfers, " << count << " x " << size_text(double(chunk_bytes))
              << ":";
    for (const auto& p : results)
        std::cout << "  " << p.direction << " "
                  << (p.status == "ok" ? fmt("%.1f GB/s", p.gbs())
                                       : p.status + ": " + p.note);
    std::cout << (results.size() >= 3 ? " (both: the sum of the two directions)" : "")
              << std::endl;
    return results;
}

std::vector<link_measurement> measure_device_links(
    const std::vector<core::device_context::sptr>& devices, size_t bytes, int reps)
{
    std::vector<link_measurement> results;
    // run() returns the ms of its timed part.
    auto measure = [&](const std::string& what, double copies, auto&& run) {
        link_measurement m{ what, nan_value, "" };
        try {
            m.gbs = copies * double(bytes) / (repeat(run, reps).median_ms * 1e-3) / 1e9;
        } catch (const std::exception&) {
            m.note = current_error_text();
        }
        results.push_back(m);
    };
    auto timed = [](auto&& work) {
        return [work] {
            const auto start = clock_type::now();
            work();
            return ms_since(start);
        };
    };
    struct device_side {
        std::unique_ptr<core::pinned_buffer> pinned, pinned_out;
        cl::CommandQueue queue, down; // uploads, downloads
        cl::Buffer memory, memory_out;
    };
    std::vector<device_side> sides;
    for (size_t i = 0; i < std::min<size_t>(devices.size(), 2); ++i) {
        const auto& ctx = devices[i];
        sides.push_back({ std::make_unique<core::pinned_buffer>(ctx, bytes),
                          std::make_unique<core::pinned_buffer>(ctx, bytes),
                          ctx->create_queue(),
                          ctx->create_queue(),
                          cl::Buffer(ctx->context(), CL_MEM_READ_WRITE, bytes),
                          cl::Buffer(ctx->context(), CL_MEM_READ_WRITE, bytes) });
        std::memset(sides.back().pinned->data(), int(i + 1), bytes);
    }
    auto upload = [&sides, bytes](size_t device, const void* from) {
        sides[device].queue.enqueueWriteBuffer(
            sides[device].memory, CL_FALSE, 0, bytes, from);
        sides[device].queue.flush();
    };
    if (sides.size() == 2) {
        const std::string first = devices[0]->info().address(),
                          second = devices[1]->info().address();
        measure("both devices host->device at once (sum)", 2, timed([&] {
                    upload(0, sides[0].pinned->data());
                    upload(1, sides[1].pinned->data());
                    sides[0].queue.finish();
                    sides[1].queue.finish();
                }));
        // What streaming over both devices from and to pinned memory asks of
        // the host: four DMAs at once.
        measure("both devices host->device and device->host at once (sum)", 4, timed([&] {
                    for (device_side& side : sides) {
                        side.queue.enqueueWriteBuffer(
                            side.memory, CL_FALSE, 0, bytes, side.pinned->data());
                        side.down.enqueueReadBuffer(
                            side.memory_out, CL_FALSE, 0, bytes, side.pinned_out->data());
                        side.queue.flush();
                        side.down.flush();
                    }
                    for (device_side& side : sides) {
                        side.queue.finish();
                        side.down.finish();
                    }
                }));
        measure(
            second + " host->device from " + first + "'s pinned memory", 1, timed([&] {
                upload(1, sides[0].pinned->data());
                sides[1].queue.finish();
            }));
        measure(
            second + " device->host into " + first + "'s pinned memory", 1, timed([&] {
                sides[1].queue.enqueueReadBuffer(
                    sides[1].memory, CL_FALSE, 0, bytes, sides[0].pinned->data());
                sides[1].queue.finish();
            }));
        // One context over both devices: a buffer last written on the first
        // device, copied on the second device's queue (the runtime moves it).
        const std::string shared_copy =
            "device copy " + first + " -> " + second + " in one shared context";
        try {
            const std::vector<cl::Device> both = { devices[0]->device(),
                                                   devices[1]->device() };
            const cl::Context shared(both);
            const cl::CommandQueue on_first(shared, both[0]), on_second(shared, both[1]);
            const cl::Buffer a(shared, CL_MEM_READ_WRITE, bytes),
                b(shared, CL_MEM_READ_WRITE, bytes);
            const cl_uint pattern = 7;
            measure(shared_copy, 1, [&] {
                on_first.enqueueFillBuffer(a, pattern, 0, bytes);
                on_first.finish();
                const auto start = clock_type::now();
                on_second.enqueueCopyBuffer(a, b, 0, 0, bytes);
                on_second.finish();
                return ms_since(start);
            });
            cl_uint got = 0;
            on_second.enqueueReadBuffer(b, CL_TRUE, bytes / 2, sizeof got, &got);
            if (got != pattern)
                results.back().note = "wrong data after the copy";
        } catch (const std::exception&) {
            results.push_back({ shared_copy, nan_value, current_error_text() });
        }
    }
    std::vector<char> from(bytes, 1), to(bytes, 0);
    measure("host copy (core::host_copy, " + std::to_string(core::host_copy_threads()) +
                " threads)",
            1,
            timed([&] { core::host_copy(to.data(), from.data(), bytes); }));
    return results;
}

std::string copy_ceiling_text(double gbs)
{
    return gbs > 0 ? fmt("%.0f GB/s", gbs) : "(not measured)";
}

std::string pcie_text(const std::vector<pcie_measurement>& pcie)
{
    return fmt("h2d %.1f", pcie_gbs(pcie, "h2d")) +
           fmt(", d2h %.1f", pcie_gbs(pcie, "d2h")) +
           fmt(", both %.1f GB/s", pcie_gbs(pcie, "both"));
}

double pcie_gbs(const std::vector<pcie_measurement>& pcie, const std::string& direction)
{
    for (const auto& p : pcie)
        if (p.direction == direction && p.status == "ok")
            return p.gbs();
    return nan_value;
}

double pcie_limit(const std::vector<pcie_measurement>& pcie, double out_bytes)
{
    const double in = 8;
    return 1e9 * std::min({ pcie_gbs(pcie, "h2d") / in,
                            pcie_gbs(pcie, "d2h") / out_bytes,
                            pcie_gbs(pcie, "both") / (in + out_bytes) });
}

double pcie_serial_limit(const std::vector<pcie_measurement>& pcie, double out_bytes)
{
    return 1e9 / (8 / pcie_gbs(pcie, "h2d") + out_bytes / pcie_gbs(pcie, "d2h"));
}

// ---- signals and checks -----------------------------------------------------

cfloat signal_sample(uint64_t n)
{
    uint64_t z = n * 0x9e3779b97f4a7c15ull + 0x0123456789abcdefull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    const float scale = 1.0f / 8388608.0f; // 2^-23
    return cfloat(float(uint32_t(z) >> 8) * scale - 1.0f,
                  float(uint32_t(z >> 32) >> 8) * scale - 1.0f);
}

float real_signal_sample(uint64_t n)
{
    const cfloat x = signal_sample(n / 2);
    return n % 2 ? x.imag() : x.real();
}

const char* const fill_signal_source = R"(
__kernel void fill_signal(__global float2* out, ulong offset, ulong base)
{
    const ulong i = offset + get_global_id(0);
    ulong z = (base + i) * 0x9e3779b97f4a7c15UL + 0x0123456789abcdefUL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
    z ^= z >> 31;
    const float scale = 1.0f / 8388608.0f;
    out[i] = (float2)((float)((uint)z >> 8) * scale - 1.0f,
                      (float)((uint)(z >> 32) >> 8) * scale - 1.0f);
}
)";

std::vector<double> windowed_sinc(size_t count, double cutoff, double kaiser_beta)
{
    if (count == 1)
        return { 1.0 };
    constexpr double pi = 3.14159265358979323846;
    const double centre = 0.5 * double(count - 1);
    std::vector<double> h(count);
    double sum = 0;
    for (size_t i = 0; i < count; ++i) {
        const double x = double(i) - centre;
        const double sinc =
            x == 0 ? 2 * cutoff : std::sin(2 * pi * cutoff * x) / (pi * x);
        const double a = 2 * pi * double(i) / double(count - 1);
        const double r = 2 * double(i) / double(count - 1) - 1; // -1 .. 1
        h[i] = sinc * (kaiser_beta > 0
                           ? std::cyl_bessel_i(0.0, kaiser_beta * std::sqrt(1 - r * r)) /
                                 std::cyl_bessel_i(0.0, kaiser_beta)
                           : 0.42 - 0.5 * std::cos(a) + 0.08 * std::cos(2 * a));
        sum += h[i];
    }
    for (auto& t : h)
        t /= sum;
    return h;
}

std::string bank_plan::decimations() const
{
    size_t lo = channels.front().decimation, hi = lo;
    for (const auto& c : channels) {
        lo = std::min(lo, c.decimation);
        hi = std::max(hi, c.decimation);
    }
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi);
}

void bank_plans::declare(option_table& t)
{
    auto range = [this](const std::string& arg, const std::string& v) {
        const size_t dots = v.find("..");
        if (dots == std::string::npos)
            throw usage_error(arg + ": '" + v + "' is not A..B");
        mixed_lo = parse_count(arg, v.substr(0, dots), 1, 1 << 20);
        mixed_hi = parse_count(arg, v.substr(dots + 2), mixed_lo, 1 << 20);
    };
    t.add({
        { { "--bank-channels", "LIST", &channels, 1, 65536 },
          "channel bank: channels of the plans of one decimation" },
        { { "--bank-decimation", "D", &decimation, 1, 1 << 20 },
          "channel bank: their decimation" },
        { { "--bank-taps", "T", &taps, 1, 1 << 20 },
          "channel bank: taps per channel (Kaiser-windowed sinc, beta 16, cut-off "
          "0.4/D)" },
        { { "--bank-mixed", "C", &mixed, 0, 65536 },
          "channel bank: channels of the mixed plan (0: none)" },
        { { "--bank-mixed-decimations",
            "A..B",
            range,
            std::to_string(mixed_lo) + ".." + std::to_string(mixed_hi) },
          "channel bank: the mixed plan's decimations, drawn from A..B" },
        { { "--bank-seed", "N", &seed, 0, 1u << 31 },
          "channel bank: seed of the centres and mixed decimations" },
    });
}

std::vector<bank_plan> bank_plans::plans() const
{
    std::map<size_t, std::vector<cfloat>> taps_of; // by decimation
    // A plan's draws depend on the seed, its channels and kind alone, so that a
    // plan is the same whatever other plans a program runs.
    auto plan = [&](size_t C, bool is_mixed) {
        std::seed_seq s{ size_t(seed), C, size_t(is_mixed) };
        std::mt19937_64 rng(s);
        std::uniform_real_distribution<double> centre(-0.5, 0.5);
        std::uniform_int_distribution<size_t> mixed_D(mixed_lo, mixed_hi);
        bank_plan p{ is_mixed ? "mixed " + std::to_string(C) : std::to_string(C), {} };
        for (size_t c = 0; c < C; ++c) {
            const size_t D = is_mixed ? mixed_D(rng) : decimation;
            auto& h = taps_of[D];
            if (h.empty())
                for (double t : windowed_sinc(taps, 0.4 / double(D), bank_kaiser_beta))
                    h.push_back(cfloat(float(t)));
            p.channels.push_back({ centre(rng), D, h });
        }
        return p;
    };
    std::vector<bank_plan> out;
    for (size_t C : channels)
        out.push_back(plan(C, false));
    if (mixed)
        out.push_back(plan(mixed, true));
    return out;
}

core::channel_bank_options bank_plans::options(const bank_plan& plan)
{
    core::channel_bank_options o;
    o.sampling_freq = 1.0;
    o.channels = plan.channels;
    return o;
}

std::vector<size_t>
sample_indices(size_t n, const std::vector<size_t>& extra, size_t spread)
{
    std::vector<size_t> p;
    if (n == 0)
        return p;
    for (size_t i : { size_t(0), size_t(1), n / 2, n - 2, n - 1 })
        if (i < n)
            p.push_back(i);
    for (size_t i : extra)
        if (i < n)
            p.push_back(i);
    for (size_t i = 0; i < spread; ++i)
        p.push_back(size_t((double(i) + 0.37) * double(n) / double(spread)) % n);
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
    return p;
}

void check_stats::add(const std::complex<double>& ref, const cfloat& got)
{
    ++points;
    if (!std::isfinite(got.real()) || !std::isfinite(got.imag())) {
        ++nonfinite;
        return;
    }
    err2 += std::norm(std::complex<double>(got) - ref);
    ref2 += std::norm(ref);
}

void check_stats::scan(const cfloat* y, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (!std::isfinite(y[i].real()) || !std::isfinite(y[i].imag()))
            ++nonfinite;
}

void check_stats::fail(const std::string& what)
{
    if (problem.empty())
        problem = what;
}

double check_stats::rel_err() const
{
    return points ? (ref2 > 0   ? std::sqrt(err2 / ref2)
                     : err2 > 0 ? INFINITY
                                : 0.0)
                  : nan_value;
}

bool check_stats::passed() const
{
    return points > 0 && nonfinite == 0 && problem.empty() && rel_err() <= max_rel_err;
}

std::string check_stats::text() const
{
    std::string t =
        "err " + fmt("%.2e", rel_err()) + " over " + std::to_string(points) + " points";
    if (nonfinite)
        t += ", " + std::to_string(nonfinite) + " non-finite";
    if (!problem.empty())
        t += ", " + problem;
    return t + (passed() ? "" : "  CHECK FAILED");
}

// ---- measurements -----------------------------------------------------------

void measurement::fail() { set_status("failed", current_error_text()); }

void measurement::set_status(const std::string& s, const std::string& why)
{
    status = s;
    note = why;
}

void measurement::print(const std::string& name,
                        const std::string& figures,
                        bool b2b,
                        size_t indent,
                        const std::string& check_line) const
{
    std::cout << "  " << name
              << std::string(name.size() + 2 < indent ? indent - 2 - name.size() : 1,
                             ' ');
    if (!ok()) {
        std::cout << status << ": " << note << std::endl;
        return;
    }
    const std::string margin(indent, ' ');
    std::cout << fmt("%.4f ms", time.median_ms) << fmt(" (min %.4f", time.min_ms)
              << (b2b ? fmt(", b2b %.4f)", time.b2b_ms) : std::string(")")) << "  "
              << figures << "\n"
              << margin << (check_line.empty() ? check.text() : check_line) << "\n"
              << margin << (std::isnan(setup_ms) ? "" : fmt("setup %.0f ms: ", setup_ms))
              << note << std::endl;
}

// ---- results: one description for the table and the CSV ---------------------

std::string value::table() const
{
    if (!d_is_number)
        return d_text;
    if (!std::isfinite(d_number))
        return "-";
    return d_format ? fmt(d_format, d_number) : number(d_number);
}

std::string value::csv() const
{
    return d_is_number ? csv_file::number(d_number) : d_text;
}

columns<measurement> measured_columns(const std::string& names)
{
    using m = const measurement&;
    static const columns<measurement> all = {
        { "samples", [](m r) { return r.samples; } },
        { "calls", [](m r) { return r.calls; } },
        { "status", [](m r) { return r.status; }, true },
        { "median_ms", [](m r) { return r.time.median_ms; } },
        { "min_ms", [](m r) { return r.time.min_ms; } },
        { "max_ms", [](m r) { return r.time.max_ms; } },
        { "b2b_ms", [](m r) { return r.time.b2b_ms; } },
        { "rel_err", [](m r) { return r.check.rel_err(); } },
        { "points_checked", [](m r) { return r.check.points; } },
        { "nonfinite", [](m r) { return r.check.nonfinite; } },
        { "setup_ms", [](m r) { return r.setup_ms; }, true },
        { "note",
          [](m r) {
              return r.note + (!r.ok() || r.check.problem.empty()
                                   ? ""
                                   : (r.note.empty() ? "" : "; ") + r.check.problem);
          },
          true },
    };
    columns<measurement> chosen;
    for (const auto& name : split("", names))
        chosen.push_back(*std::find_if(
            all.begin(), all.end(), [&](const auto& c) { return c.name == name; }));
    return chosen;
}

table_group error_group(std::function<std::vector<const measurement*>(size_t)> checks)
{
    auto err = [checks](size_t row) -> value {
        double worst = 0;
        bool passed = true, any = false;
        for (const measurement* m : checks(row)) {
            if (!m || !m->ok())
                continue;
            any = true;
            passed &= m->passed();
            const double r = m->check.rel_err();
            worst = std::isnan(r) || std::isnan(worst) ? nan_value : std::max(worst, r);
        }
        return any ? fmt("%.1e", worst) + (passed ? " " : "!") : "-";
    };
    return { "", { { "", "err", 9, err } } };
}

void print_table(std::ostream& out, const std::vector<table_group>& groups, size_t rows)
{
    auto cell = [](const std::string& text, int width) {
        const size_t w = size_t(std::abs(width));
        const std::string fill(text.size() < w ? w - text.size() : 0, ' ');
        return width < 0 ? text + fill : fill + text;
    };
    auto width = [](const table_group& g) {
        size_t w = 0;
        for (const auto& c : g.cells)
            w += size_t(std::abs(c.width));
        return w;
    };
    std::string titles, headers;
    for (size_t g = 0; g < groups.size(); ++g) {
        const std::string title = g ? " " + groups[g].title : groups[g].title;
        const size_t w = width(groups[g]) + 1;
        titles += title + std::string(w - std::min(w, title.size()), ' ');
        for (const auto& c : groups[g].cells)
            headers += cell(c.header, c.width);
        if (g + 1 < groups.size()) {
            titles += "|";
            headers += " |";
        }
    }
    if (std::any_of(
            groups.begin(), groups.end(), [](auto& g) { return !g.title.empty(); }))
        out << titles << "\n";
    out << headers << "\n" << std::string(headers.size(), '-') << "\n";
    for (size_t row = 0; row < rows; ++row) {
        std::string line;
        for (size_t g = 0; g < groups.size(); ++g) {
            const table_group& gr = groups[g];
            const measurement* m = gr.source ? gr.source(row) : nullptr;
            if (gr.source && (!m || !m->ok()))
                line += pad(m ? m->status : "", width(gr));
            else
                for (const auto& c : gr.cells)
                    line += cell(c.get(row).table(), c.width);
            if (g + 1 < groups.size())
                line += " |";
        }
        out << line << "\n";
    }
}

csv_file::csv_file(const std::string& path) : d_path(path)
{
    if (path.empty())
        return;
    d_file.open(path);
    if (!d_file)
        throw std::runtime_error("cannot write " + path);
}

void csv_file::header(const std::string& columns)
{
    d_columns = split("", columns);
    d_file << columns << "\n";
}

void csv_file::row(fields values)
{
    std::vector<std::string> line;
    for (const auto& c : d_columns)
        line.push_back(field(values[c]));
    d_file << join(line) << "\n";
}

void csv_file::finish()
{
    d_file.flush();
    if (!d_file)
        throw std::runtime_error("cannot write " + d_path);
}

std::string csv_file::field(const std::string& text)
{
    if (text.find_first_of(",\"") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (char c : text)
        quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string csv_file::number(double value)
{
    return std::isfinite(value) ? fmt("%.6g", value) : std::string();
}

void csv_file::add_timing(fields& f, const timing& t)
{
    f["median_ms"] = number(t.median_ms);
    f["min_ms"] = number(t.min_ms);
    f["max_ms"] = number(t.max_ms);
    f["b2b_ms"] = number(t.b2b_ms);
}

void add_bandwidth_rows(csv_file& csv,
                        const std::vector<copy_measurement>& copies,
                        const std::vector<pcie_measurement>& pcie,
                        const csv_file::fields& pcie_extra)
{
    auto row = [&](csv_file::fields f, const auto& m, double gbs) {
        f["samples"] = f["points"] = std::to_string(m.bytes / sizeof(cfloat));
        f["status"] = m.status;
        f["GBs"] = csv_file::number(m.status == "ok" ? gbs : nan_value);
        f["note"] = m.note;
        csv_file::add_timing(f, m.time);
        csv.row(f);
    };
    // With a lib column (the FFT bench's), the copy is the lib and `when` the variant.
    const bool lib = csv.has("lib");
    for (const auto& c : copies)
        row({ { "table", "copy" },
              { "lib", "clEnqueueCopyBuffer" },
              { "variant", lib ? c.when : "clEnqueueCopyBuffer " + c.when } },
            c,
            c.gbs());
    for (const auto& p : pcie) {
        csv_file::fields f = pcie_extra;
        f["table"] = "pcie";
        f["variant"] = p.direction;
        row(f, p, p.gbs());
    }
}

int verdict(const std::vector<const measurement*>& all, const std::string& not_run)
{
    bool failed = false, check_failed = false;
    for (const measurement* m : all) {
        failed |= m->status == "failed";
        check_failed |= !m->passed();
    }
    if (check_failed) {
        std::cout << "CHECK FAILED: an output was wrong (marked ! above)" << std::endl;
        return 3;
    }
    if (failed)
        return 1;
    if (!not_run.empty()) {
        std::cout << "INCOMPLETE: " << not_run << " not run (--time-limit)" << std::endl;
        return 4;
    }
    return 0;
}

// ---- streaming over several devices ----------------------------------------

void print_scaling(const std::string& heading,
                   const std::vector<core::device_context::sptr>& devices,
                   const std::vector<std::string>& labels,
                   const std::function<double(size_t, size_t)>& rate)
{
    std::cout << "\n" << heading << "\n";
    for (size_t i = 0; i < devices.size(); ++i)
        std::cout << "  device " << i + 1 << ": " << devices[i]->info().address() << " "
                  << devices[i]->info().name << "\n";
    size_t width = 12;
    for (const auto& label : labels)
        width = std::max(width, label.size() + 2);
    std::string head = std::string(width, ' ');
    for (size_t n = 1; n <= devices.size(); ++n)
        head += pad(std::to_string(n) + (n == 1 ? " device" : " devices"), 11);
    head += pad("speed-up", 10);
    std::cout << head << "\n" << std::string(head.size(), '-') << "\n";
    for (size_t i = 0; i < labels.size(); ++i) {
        std::string text = labels[i] + std::string(width - labels[i].size(), ' ');
        for (size_t n = 1; n <= devices.size(); ++n)
            text += pad(number(rate(i, n)), 11);
        const double gain = rate(i, devices.size()) / rate(i, 1);
        text += pad(std::isfinite(gain) ? fmt("%.2fx", gain) : "-", 10);
        std::cout << text << "\n";
    }
    std::cout << std::flush;
}

// ---- the state of a benchmark ------------------------------------------------

bench_base::bench_base(const common_options& o,
                       std::vector<core::device_context::sptr> devices)
    : d_devices(std::move(devices)),
      d_ctx(d_devices.front()),
      d_timer(*d_ctx),
      d_compute(d_ctx->create_queue(false)),
      d_csv(o.csv)
{
}

void bench_base::measure_copies(const std::string& when,
                                size_t bytes,
                                int warmup,
                                int reps)
{
    d_copies.push_back(measure_copy(*d_ctx, d_timer, when, bytes, warmup, reps));
}

void bench_base::drain() const
{
    std::vector<const cl::CommandQueue*> queues = d_other_queues;
    queues.insert(queues.end(), { &d_timer.queue(), &d_compute });
    harness::drain(queues);
}

const cfloat* bench_base::signal(size_t n)
{
    for (size_t i = d_signal.size(); i < n; ++i)
        d_signal.push_back(signal_sample(i));
    return d_signal.data();
}

timing
bench_base::stream_signal(core::multi_device_pipeline& pipeline,
                          const core::stream_engine& engine,
                          size_t ring_chunks,
                          size_t chunk,
                          size_t calls,
                          int reps,
                          bool pinned,
                          bool copy_out,
                          const std::function<void(const cfloat*, size_t, int)>& take)
{
    const size_t ring_bytes = ring_chunks * chunk * sizeof(cfloat);
    const cfloat* x = signal(ring_chunks * chunk);
    std::unique_ptr<core::pinned_buffer> pinned_ring; // what submit_pinned() DMAs from
    if (pinned) {
        pinned_ring = std::make_unique<core::pinned_buffer>(d_ctx, ring_bytes);
        core::host_copy(pinned_ring->data(), x, ring_bytes);
        x = static_cast<const cfloat*>(pinned_ring->data());
    }
    std::vector<cfloat> copy(std::max<size_t>(engine.max_output_elements(), 1));
    auto copy_and_take = [&](const cfloat* y, size_t elements, int sequence) {
        if (copy_out) {
            core::host_copy(copy.data(), y, elements * sizeof(cfloat));
            y = copy.data();
        }
        take(y, elements, sequence);
    };
    return stream_chunks(
        pipeline, x, ring_chunks, chunk, calls, reps, copy_and_take, pinned);
}

// ---- main() ---------------------------------------------------------------

namespace {

/*
 * The "Exit status:" paragraph of a --help: `checked` says what fails a check
 * (none: the program has no status 3); status 4 when the options have
 * --time-limit.
 */
std::string exit_statuses(const std::string& checked, bool time_limit)
{
    std::ostringstream out;
    wrap(out,
         "",
         "Exit status: 0 done" +
             std::string(checked.empty() ? "" : ", every check passed") +
             "; 1 an OpenCL or other run-time error, or a measurement that failed; 2 a "
             "bad command line or a --device that matches no device" +
             (checked.empty() ? "" : "; 3 an output failed its check (" + checked + ")") +
             (time_limit ? "; 4 stopped by --time-limit (every check made passed)" : "") +
             ".",
         0);
    return out.str();
}

} // namespace

int run_bench_main(
    const bench_help& help,
    int argc,
    char** argv,
    common_options& options,
    bool several,
    const std::function<void(option_table&)>& declare,
    const std::function<int(const std::vector<core::device_context::sptr>&)>& run)
{
    const char* const program = help.program;
    option_table table;
    table.add(
        { { { "--device", "STR", &options.device },
            std::string("OpenCL device: \"\" = automatic (first GPU, else CPU; env "
                        "WIDEBAND_DEVICE), gpu, cpu, P:D, or part of its name") +
                (several ? "; several (gpu:all, 0:0,0:1, ...): streaming scaling" : "") +
                " []" } });
    declare(table);
    table.add(
        { { { "--csv", "FILE", &options.csv }, "write every figure to FILE as CSV []" },
          { { "-h", &options.help }, "" },
          { { "--help", &options.help }, "this text" } });
    try {
        table.parse(argc, argv);
    } catch (const usage_error& e) {
        std::cerr << program << ": " << e.what() << " (see --help)" << std::endl;
        return 2;
    }
    if (options.help) {
        std::cout << "Usage: " << program << " [OPTIONS]\n\n" << help.about << "\n";
        table.print(std::cout);
        std::cout << "\nExamples:\n"
                  << help.examples << "\n"
                  << exit_statuses(help.checked, table.has("--time-limit"));
        return 0;
    }
    try {
        std::vector<core::device_context::sptr> devices;
        try {
            devices = core::device_context::get_all(options.device);
        } catch (const std::invalid_argument& e) { // --device matches no device
            std::cerr << program << ": " << one_line(e.what()) << std::endl;
            return 2;
        }
        if (!several && devices.size() > 1) {
            std::cerr << program << ": --device \"" << options.device << "\" names "
                      << devices.size() << " devices; this benchmark runs on one"
                      << std::endl;
            return 2;
        }
        return run(devices);
    } catch (const cl::Error& e) {
        std::cerr << program << ": OpenCL error " << core::cl_error_name(e.err())
                  << " in " << e.what() << std::endl;
    } catch (const std::exception& e) {
        std::cerr << program << ": " << one_line(e.what()) << std::endl;
    }
    return 1;
}

} // namespace harness
