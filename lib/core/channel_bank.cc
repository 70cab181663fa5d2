/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fault_injection.h"
#include "fft_planner.h"
#include "kernel_args.h"
#include "stream_window.h"
#include <gnuradio/wideband/core/channel_bank.h>
#include <gnuradio/wideband/core/fft_plan.h>
#include <gnuradio/wideband/core/freq_xlating_filter.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace wideband {
namespace core {

namespace {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

constexpr size_t default_input_samples = size_t(1) << 20;

[[noreturn]] void fail(const std::string& what)
{
    throw std::invalid_argument("channel_bank: " + what);
}

std::string channel_owner(size_t c)
{
    return "channel_bank: channel " + std::to_string(c);
}

cdouble turn(double cycles) { return std::polar(1.0, 6.283185307179586476925 * cycles); }

size_t longest_taps(const channel_bank_options& options)
{
    size_t n = 0;
    for (const auto& c : options.channels)
        n = std::max(n, c.taps.size());
    return n;
}

/*
 * What a channel costs per block (complex multiply-adds, roughly) with a
 * window of W bins: folded to B = L / gcd(D, L) bins and inverse-transformed,
 * or each of its outputs in the block summed over the window directly (for
 * decimations that share few factors with L, whose inverse FFT would be long).
 */
double folded_cost(size_t W, size_t B)
{
    return double(W) + 5.0 * double(B) * std::max(1.0, std::log2(double(B)));
}
double direct_cost(size_t W, size_t H, size_t D) { return double(W) * double(H / D + 1); }

/*
 * The forward length for the longest taps N: the cost per input sample of the
 * forward FFT and of the channels (windows of about eight bins per output
 * bandwidth, as a low-pass of that bandwidth needs), over the lengths with
 * prime factors 2, 3 and 5 from 2N on.
 */
size_t choose_length(const channel_bank_options& options, size_t N)
{
    const size_t smallest = std::max<size_t>(2 * N, 64);
    const size_t largest = std::min<size_t>(std::max<size_t>(16 * N, 8192), 1 << 22);
    size_t best = 0;
    double best_cost = std::numeric_limits<double>::infinity();
    for (size_t p2 = 1; p2 <= largest; p2 *= 2)
        for (size_t p3 = p2; p3 <= largest; p3 *= 3)
            for (size_t L = p3; L <= largest; L *= 5) {
                if (L < smallest)
                    continue;
                const size_t H = L - N + 1;
                double cost = 5.0 * double(L) * std::log2(double(L));
                for (const auto& c : options.channels) {
                    const size_t W = std::min(L, 8 * L / c.decimation + 16);
                    cost += std::min(folded_cost(W, L / std::gcd(c.decimation, L)),
                                     direct_cost(W, H, c.decimation));
                }
                cost /= double(H);
                if (cost < best_cost) {
                    best_cost = cost;
                    best = L;
                }
            }
    return best;
}

struct channel_state {
    double center = 0;
    size_t D = 1;
    std::vector<cfloat> taps;
    double nu = 0;     // centre, cycles per sample
    int64_t bin = 0;   // the nearest bin, in [0, L)
    double rho = 0;    // nu - bin / L: the residual rotation, cycles per sample
    cdouble phase = 1; // A: the rotation's phase at output `reference`
    uint64_t reference = 0;
    uint64_t next = 0; // the next output
    size_t B = 0;      // inverse length (0: its outputs are summed directly)
    int64_t window_start = 0;
    std::vector<cfloat> response; // the window's bins, scaled by 1 / L
    size_t group = 0, group_index = 0;

    //! K = A e^{2 pi i nu D r}: y[n] = K * (the shifted, filtered stream at n D).
    cdouble scale() const { return phase * turn(cycles_after(nu, D * reference)); }
};

struct inverse_group {
    size_t B = 0;
    std::vector<size_t> channels;
    size_t offset = 0; // elements, in the fold and inverse buffers
    std::unique_ptr<fft_plan> plan;
};

// A call's per-channel parameters, on the host and the device (two alternate,
// so that a call's upload never meets the previous call's kernels).
struct call_slot {
    std::vector<cl_ulong> output_starts, next_outputs;
    std::vector<cl_double> residual_starts;
    cl::Buffer output_starts_buffer, next_outputs_buffer, residual_starts_buffer;
    cl::Event done;
};

} // namespace

void channel_bank::check(const device_info& device, const channel_bank_options& options)
{
    if (options.channels.empty())
        fail("channels must not be empty (give at least one channel)");
    if (!std::isfinite(options.sampling_freq) || options.sampling_freq <= 0)
        fail("sampling_freq must be a finite number > 0");
    if (!(options.omitted_response >= 0 && options.omitted_response < 1))
        fail("omitted_response must be in [0, 1)");
    if (options.frame_major)
        for (const auto& ch : options.channels)
            if (ch.decimation != options.channels.front().decimation)
                fail("frame_major (vector output) needs one decimation for all channels");
    for (size_t c = 0; c < options.channels.size(); ++c) {
        const bank_channel& ch = options.channels[c];
        if (ch.decimation < 1)
            throw std::invalid_argument(channel_owner(c) + ": decimation must be >= 1 (got 0)");
        freq_xlating_filter::check_retune(
            ch.center_freq, options.sampling_freq, ch.taps, channel_owner(c));
    }
    const size_t N = longest_taps(options);
    const size_t L = options.fft_size ? options.fft_size : choose_length(options, N);
    if (L < N + 1 || !is_codelet_smooth(L))
        fail("fft_size " + std::to_string(L) + " must be at least the longest taps + 1 = " +
             std::to_string(N + 1) + " and have no prime factor above " +
             std::to_string(largest_codelet_prime));
    const size_t max_input = std::max(
        options.max_input_samples ? options.max_input_samples : default_input_samples,
        size_t(1));
    size_t max_D = 1, bins = 0;
    for (const auto& ch : options.channels) {
        max_D = std::max(max_D, ch.decimation);
        bins += L / std::gcd(ch.decimation, L);
    }
    const size_t H = L - N + 1;
    const size_t blocks = (max_input + H + max_D) / H + 2;
    check_buffer_fits(device,
                      "channel_bank: the forward spectra of a call (" +
                          std::to_string(blocks) + " blocks of " + std::to_string(L) +
                          " points)",
                      uint64_t(blocks) * L * 8);
    check_buffer_fits(device,
                      "channel_bank: the channels' folded spectra of a call (" +
                          std::to_string(blocks) + " blocks of " + std::to_string(bins) +
                          " bins; decimations that share more factors with the FFT "
                          "length make fewer)",
                      uint64_t(blocks) * bins * 8);
}

class channel_bank::impl
{
public:
    device_context::sptr ctx;
    cl::CommandQueue setup_queue;
    double fs, omitted;
    bool frame_major;
    sample_format input_format;
    // L: forward length, N: longest taps, H: block step, O = L - H: the
    // history a block needs; the window keeps `history` >= O samples before
    // its position (a block and a decimation more, so that a split stream's
    // call can start anywhere).
    size_t L, N, H, O, history, max_input, window_input, max_blocks, max_outputs;
    std::vector<channel_state> channels;
    std::vector<inverse_group> groups;
    size_t bins = 0; // sum of B
    std::unique_ptr<stream_window> window;
    std::unique_ptr<fft_plan> forward, response_plan;
    cl::Buffer spectrum, folded, inverse;
    cl::Buffer twiddles; // e^{2 pi i k / L}, k < L, for the fold
    uint64_t received = 0; // samples in all
    uint64_t position = 0; // where block 0's new samples start (a multiple of H)
    uint64_t window_position = 0; // the stream position of the window's new samples
    kernel_args fold, extract;
    call_slot slots[2];
    int slot = 0;
    // The channels' descriptions (upload_channels())
    cl::Buffer bin_starts, inverse_lengths, decimations, centre_bins, window_starts,
        window_lengths, response_offsets, fold_offsets, group_sizes, group_indices,
        residual_rates, scales, responses;

    //! Centre, bin, residual and window of \p s for \p center and \p taps.
    void translate(channel_state& s, double center, const std::vector<cfloat>& taps) const;
    void upload_channels();
    template <typename T>
    cl::Buffer table(const std::vector<T>& values) const
    {
        return cl::Buffer(ctx->context(),
                          CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          std::max<size_t>(1, values.size()) * sizeof(T),
                          const_cast<T*>(values.data()));
    }
};

void channel_bank::impl::translate(channel_state& s,
                                   double center,
                                   const std::vector<cfloat>& taps) const
{
    s.center = center;
    s.taps = taps;
    s.nu = center / fs;
    const double bins_off = s.nu * double(L);
    const double nearest = std::round(bins_off);
    s.bin = ((int64_t(nearest) % int64_t(L)) + int64_t(L)) % int64_t(L);
    s.rho = (bins_off - nearest) / double(L);
    // The response of the taps modulated by the residual, p[k] e^{2 pi i rho k}.
    std::vector<cfloat> modulated(N, cfloat(0));
    for (size_t k = 0; k < taps.size(); ++k)
        modulated[k] = cfloat(cdouble(taps[k]) * turn(cycles_after(s.rho, k)));
    cl::Buffer in = table(modulated);
    cl::Buffer out(ctx->context(), CL_MEM_READ_WRITE, L * 8);
    response_plan->enqueue(setup_queue, in, out).wait();
    std::vector<cfloat> P(L);
    setup_queue.enqueueReadBuffer(out, CL_TRUE, 0, L * 8, P.data());

    // The narrowest window [-h, h] of bins outside which the response's
    // energy is at most omitted^2 of all of it.
    const auto energy = [&](int64_t q) {
        return std::norm(cdouble(P[size_t((q % int64_t(L) + int64_t(L)) % int64_t(L))]));
    };
    const int64_t low = -int64_t(L / 2), high = int64_t(L) - int64_t(L / 2) - 1;
    double total = 0;
    for (const cfloat& v : P)
        total += std::norm(cdouble(v));
    const double allowed = omitted * omitted * total;
    double outside = total - energy(0);
    int64_t h = 0;
    while (h < std::max(-low, high) && (omitted == 0 || outside > allowed)) {
        ++h;
        if (h <= high)
            outside -= energy(h);
        if (-h >= low)
            outside -= energy(-h);
    }
    const int64_t start = std::max(-h, low), end = std::min(h, high) + 1;
    s.window_start = start;
    s.response.resize(size_t(end - start));
    for (int64_t q = start; q < end; ++q)
        s.response[size_t(q - start)] =
            P[size_t((q % int64_t(L) + int64_t(L)) % int64_t(L))] / float(L);
}

void channel_bank::impl::upload_channels()
{
    const size_t C = channels.size();
    std::vector<cl_ulong> bin_start(C + 1, 0), response_offset(C), fold_offset(C);
    std::vector<cl_uint> B(C), D(C), bin(C), window_length(C), group_size(C), group_index(C);
    std::vector<cl_int> window_start(C);
    std::vector<cl_double> rate(C);
    std::vector<cl_float2> scale(C);
    std::vector<cfloat> all_responses;
    for (size_t c = 0; c < C; ++c) {
        const channel_state& s = channels[c];
        bin_start[c + 1] = bin_start[c] + s.B;
        response_offset[c] = all_responses.size();
        all_responses.insert(all_responses.end(), s.response.begin(), s.response.end());
        fold_offset[c] = s.B ? groups[s.group].offset : 0;
        B[c] = cl_uint(s.B);
        D[c] = cl_uint(s.D);
        bin[c] = cl_uint(s.bin);
        window_start[c] = cl_int(s.window_start);
        window_length[c] = cl_uint(s.response.size());
        group_size[c] = s.B ? cl_uint(groups[s.group].channels.size()) : 0;
        group_index[c] = cl_uint(s.group_index);
        rate[c] = s.rho;
        const cfloat k(s.scale());
        scale[c] = cl_float2{ { k.real(), k.imag() } };
    }
    // New buffers: kernels in flight still read the old ones.
    bin_starts = table(bin_start);
    inverse_lengths = table(B);
    decimations = table(D);
    centre_bins = table(bin);
    window_starts = table(window_start);
    window_lengths = table(window_length);
    response_offsets = table(response_offset);
    fold_offsets = table(fold_offset);
    group_sizes = table(group_size);
    group_indices = table(group_index);
    residual_rates = table(rate);
    scales = table(scale);
    responses = table(all_responses);
}

channel_bank::channel_bank(device_context::sptr context, const channel_bank_options& options)
    : d_impl(new impl)
{
    if (!context)
        fail("no device context");
    check(context->info(), options);
    impl& im = *d_impl;
    im.ctx = std::move(context);
    im.setup_queue = im.ctx->create_queue();
    im.fs = options.sampling_freq;
    im.omitted = options.omitted_response;
    im.frame_major = options.frame_major;
    im.input_format = options.input_format;
    im.N = longest_taps(options);
    im.L = options.fft_size ? options.fft_size : choose_length(options, im.N);
    im.H = im.L - im.N + 1;
    im.O = im.L - im.H;
    im.max_input =
        options.max_input_samples ? options.max_input_samples : default_input_samples;
    size_t max_D = 1;
    for (const auto& ch : options.channels)
        max_D = std::max(max_D, ch.decimation);
    // Kept past the position: the block short of its end and up to a
    // decimation of samples whose output is still to come.
    im.window_input = im.max_input + im.H + max_D;
    im.history = im.O + im.H + max_D;
    im.max_blocks = (im.max_input + im.H + max_D) / im.H + 2;

    fft_options response;
    response.input_points = im.N;
    im.response_plan.reset(new fft_plan(im.ctx, im.L, response));
    fft_options forward;
    forward.batch = im.max_blocks;
    forward.input.distance = im.H;
    forward.input_format = im.input_format; // the integers converted as it reads them
    im.forward.reset(new fft_plan(im.ctx, im.L, forward));

    std::map<size_t, size_t> group_of_length;
    im.max_outputs = 0;
    for (size_t c = 0; c < options.channels.size(); ++c) {
        const bank_channel& ch = options.channels[c];
        channel_state s;
        s.D = ch.decimation;
        im.translate(s, ch.center_freq, ch.taps);
        s.phase = turn(-s.nu * double(ch.taps.size() - 1) / 2);
        // Folded or direct for good: a retune keeps the channel's way.
        const size_t B = im.L / std::gcd(s.D, im.L);
        const size_t W = s.response.size();
        s.B = folded_cost(W, B) <= direct_cost(W, im.H, s.D) ? B : 0;
        im.max_outputs += im.window_input / s.D + 1;
        if (s.B == 0) {
            im.channels.push_back(std::move(s));
            continue;
        }
        auto found = group_of_length.find(s.B);
        if (found == group_of_length.end()) {
            found = group_of_length.emplace(s.B, im.groups.size()).first;
            im.groups.emplace_back();
            im.groups.back().B = s.B;
        }
        s.group = found->second;
        s.group_index = im.groups[s.group].channels.size();
        im.groups[s.group].channels.push_back(c);
        im.channels.push_back(std::move(s));
    }
    for (inverse_group& g : im.groups) {
        g.offset = im.bins * im.max_blocks;
        im.bins += g.B * g.channels.size();
        fft_options inverse;
        inverse.direction = fft_direction::inverse;
        inverse.batch = g.channels.size() * im.max_blocks;
        g.plan.reset(new fft_plan(im.ctx, g.B, inverse));
    }
    const cl::Context& cl_ctx = im.ctx->context();
    std::vector<cfloat> twiddles(im.L);
    for (size_t k = 0; k < im.L; ++k)
        twiddles[k] = cfloat(turn(double(k) / double(im.L)));
    im.twiddles = im.table(twiddles);
    im.spectrum = cl::Buffer(cl_ctx, CL_MEM_READ_WRITE, im.max_blocks * im.L * 8);
    // (At least one element: a bank of direct channels folds nothing.)
    const size_t folded_bytes = std::max<size_t>(1, im.max_blocks * im.bins) * 8;
    im.folded = cl::Buffer(cl_ctx, CL_MEM_READ_WRITE, folded_bytes);
    im.inverse = cl::Buffer(cl_ctx, CL_MEM_READ_WRITE, folded_bytes);
    im.window.reset(new stream_window(
        im.ctx, "channel_bank", im.history, im.window_input, im.L, im.input_format));
    im.fold = kernel_args(*im.ctx, "channel_bank.cl", "", "bank_fold");
    im.extract = kernel_args(*im.ctx, "channel_bank.cl", "", "bank_extract");
    const size_t C = im.channels.size();
    for (call_slot& slot : im.slots) {
        slot.output_starts.resize(C + 1);
        slot.next_outputs.resize(C);
        slot.residual_starts.resize(C);
        slot.output_starts_buffer = cl::Buffer(cl_ctx, CL_MEM_READ_ONLY, (C + 1) * 8);
        slot.next_outputs_buffer = cl::Buffer(cl_ctx, CL_MEM_READ_ONLY, C * 8);
        slot.residual_starts_buffer = cl::Buffer(cl_ctx, CL_MEM_READ_ONLY, C * 8);
    }
    im.upload_channels();
}

channel_bank::~channel_bank() = default;

size_t channel_bank::channels() const { return d_impl->channels.size(); }
size_t channel_bank::fft_size() const { return d_impl->L; }
sample_format channel_bank::input_format() const { return d_impl->input_format; }
size_t channel_bank::block_step() const { return d_impl->H; }
size_t channel_bank::window_bins(size_t c) const
{
    return d_impl->channels.at(c).response.size();
}
size_t channel_bank::inverse_length(size_t c) const { return d_impl->channels.at(c).B; }
size_t channel_bank::max_input_samples() const { return d_impl->max_input; }
size_t channel_bank::max_output_elements() const { return d_impl->max_outputs; }
stream_engine::region channel_bank::input_region() const
{
    return d_impl->window->input_region();
}

std::string channel_bank::describe() const
{
    const impl& im = *d_impl;
    size_t window = 0;
    for (const auto& s : im.channels)
        window += s.response.size();
    std::ostringstream o;
    o << im.channels.size() << " channels: forward FFT " << im.L << ", " << im.H
      << " new samples per block; " << im.groups.size() << " inverse lengths, "
      << im.bins << " folded bins and " << window << " window bins per block";
    return o.str();
}

channel_bank::result channel_bank::enqueue(const cl::CommandQueue& queue,
                                           size_t samples,
                                           const cl::Buffer& output,
                                           const std::vector<cl::Event>& wait)
{
    impl& im = *d_impl;
    if (samples > im.max_input)
        fail(std::to_string(samples) + " samples exceed max_input_samples() = " +
             std::to_string(im.max_input));
    fault::check_enqueue();
    const size_t C = im.channels.size();
    call_slot& slot = im.slots[im.slot];
    if (slot.done())
        slot.done.wait(); // its host arrays are about to change
    im.received += samples;

    result r;
    r.offsets.resize(C);
    r.counts.resize(C);
    uint64_t last = 0, earliest_next = im.received; // positions
    bool any = false;
    slot.output_starts[0] = 0;
    for (size_t c = 0; c < C; ++c) {
        const channel_state& s = im.channels[c];
        const uint64_t total = im.received / s.D;
        r.counts[c] = size_t(total - s.next);
        r.offsets[c] = im.frame_major ? c : slot.output_starts[c];
        slot.output_starts[c + 1] = slot.output_starts[c] + r.counts[c];
        slot.next_outputs[c] = s.next;
        slot.residual_starts[c] = cycles_after(s.rho, im.position);
        if (r.counts[c] > 0) {
            last = std::max(last, (total - 1) * s.D);
            any = true;
        }
        earliest_next = std::min(earliest_next, total * s.D);
    }
    const size_t outputs = slot.output_starts[C];
    if (outputs > 0 && output.getInfo<CL_MEM_SIZE>() < outputs * 8)
        fail("output buffer holds " + std::to_string(output.getInfo<CL_MEM_SIZE>()) +
             " bytes; this call needs " + std::to_string(outputs * 8) +
             " (max_output_elements() suffice)");

    std::vector<cl::Event> deps = wait;
    im.window->prepare(queue, deps);
    cl::Event event;
    if (any) {
        const size_t blocks = size_t((last - im.position) / im.H) + 1;
        // Window element 0 is stream position window_position - history.
        const size_t read_start =
            size_t(im.position - im.O + im.history - im.window_position);
        // The last block reads past the samples.
        im.window->zero_past_samples(
            queue, samples, read_start + (blocks - 1) * im.H + im.L, deps);
        deps.assign(1,
                    im.forward->enqueue_at(
                        queue, im.window->buffer(), read_start, im.spectrum, 0, deps, blocks));

        kernel_args& f = im.fold;
        f.set("spectrum", im.spectrum);
        f.set("folded", im.folded);
        f.set("responses", im.responses);
        f.set("twiddles", im.twiddles);
        f.set("bin_starts", im.bin_starts);
        f.set("inverse_lengths", im.inverse_lengths);
        f.set("decimations", im.decimations);
        f.set("centre_bins", im.centre_bins);
        f.set("window_starts", im.window_starts);
        f.set("window_lengths", im.window_lengths);
        f.set("response_offsets", im.response_offsets);
        f.set("fold_offsets", im.fold_offsets);
        f.set("group_sizes", im.group_sizes);
        f.set("group_indices", im.group_indices);
        f.set("channels", cl_uint(C));
        f.set("length", cl_uint(im.L));
        f.set("step", cl_uint(im.H));
        f.set("history", cl_uint(im.O));
        f.set("position", cl_ulong(im.position));
        std::vector<cl::Event> inverses = deps; // what the extraction waits for
        if (im.bins > 0) {
            queue.enqueueNDRangeKernel(f.ready(),
                                       cl::NullRange,
                                       cl::NDRange((im.bins + 63) / 64 * 64, blocks),
                                       cl::NullRange,
                                       &deps,
                                       &event);
            inverses.clear();
        }
        const cl::Event folded = event;
        for (const inverse_group& g : im.groups)
            inverses.push_back(g.plan->enqueue_at(queue,
                                                  im.folded,
                                                  g.offset,
                                                  im.inverse,
                                                  g.offset,
                                                  { folded },
                                                  g.channels.size() * blocks));

        std::vector<cl::Event> uploads;
        const auto upload = [&](const cl::Buffer& b, const void* data, size_t bytes) {
            uploads.emplace_back();
            queue.enqueueWriteBuffer(
                b, CL_FALSE, 0, bytes, data, nullptr, &uploads.back());
        };
        upload(slot.output_starts_buffer, slot.output_starts.data(), (C + 1) * 8);
        upload(slot.next_outputs_buffer, slot.next_outputs.data(), C * 8);
        upload(slot.residual_starts_buffer, slot.residual_starts.data(), C * 8);
        inverses.insert(inverses.end(), uploads.begin(), uploads.end());

        kernel_args& x = im.extract;
        x.set("folded", im.inverse);
        x.set("spectrum", im.spectrum);
        x.set("responses", im.responses);
        x.set("twiddles", im.twiddles);
        x.set("window_starts", im.window_starts);
        x.set("window_lengths", im.window_lengths);
        x.set("response_offsets", im.response_offsets);
        x.set("output", output);
        x.set("output_offset", cl_ulong(0));
        x.set("output_starts", slot.output_starts_buffer);
        x.set("next_outputs", slot.next_outputs_buffer);
        x.set("inverse_lengths", im.inverse_lengths);
        x.set("decimations", im.decimations);
        x.set("centre_bins", im.centre_bins);
        x.set("fold_offsets", im.fold_offsets);
        x.set("group_sizes", im.group_sizes);
        x.set("group_indices", im.group_indices);
        x.set("residual_rates", im.residual_rates);
        x.set("residual_starts", slot.residual_starts_buffer);
        x.set("scales", im.scales);
        x.set("frame_major", cl_uint(im.frame_major));
        x.set("channels", cl_uint(C));
        x.set("length", cl_uint(im.L));
        x.set("step", cl_uint(im.H));
        x.set("history", cl_uint(im.O));
        x.set("position", cl_ulong(im.position));
        queue.enqueueNDRangeKernel(x.ready(),
                                   cl::NullRange,
                                   cl::NDRange((outputs + 63) / 64 * 64),
                                   cl::NullRange,
                                   &inverses,
                                   &event);
        deps.assign(1, event);
    }
    // The window keeps the blocks that outputs still to come fall in.
    const uint64_t next_position = std::min(im.received, earliest_next) / im.H * im.H;
    im.window->advance(
        queue, samples, size_t(next_position - im.window_position), deps, event);
    im.position = im.window_position = next_position;
    for (size_t c = 0; c < C; ++c)
        im.channels[c].next += r.counts[c];
    slot.done = event;
    im.slot = 1 - im.slot;
    r.done = event;
    return r;
}

size_t channel_bank::run(const cl::CommandQueue& queue,
                         size_t samples,
                         const cl::Buffer& output,
                         const std::vector<cl::Event>& wait,
                         cl::Event& done)
{
    const result r = enqueue(queue, samples, output, wait);
    done = r.done;
    return std::accumulate(r.counts.begin(), r.counts.end(), size_t(0));
}

size_t channel_bank::history_samples() const { return d_impl->history; }

size_t channel_bank::continue_at(uint64_t position)
{
    impl& im = *d_impl;
    im.window->continue_with(0);
    im.received = im.window_position = position;
    uint64_t earliest = position;
    for (channel_state& s : im.channels) {
        s.next = position / s.D;
        earliest = std::min(earliest, s.next * s.D);
    }
    im.position = earliest / im.H * im.H;
    return im.history;
}

void channel_bank::retune(size_t c,
                          double center_freq,
                          const std::vector<std::complex<float>>& taps,
                          uint64_t at_output)
{
    impl& im = *d_impl;
    if (c >= im.channels.size())
        fail("no channel " + std::to_string(c) + " (the bank has " +
             std::to_string(im.channels.size()) + ")");
    freq_xlating_filter::check_retune(center_freq, im.fs, taps, channel_owner(c));
    if (taps.size() > im.N)
        throw std::invalid_argument(channel_owner(c) + ": " + std::to_string(taps.size()) +
                                    " taps exceed the " + std::to_string(im.N) +
                                    " the bank was made for (make a new bank)");
    channel_state next = im.channels[c];
    im.translate(next, center_freq, taps);
    const channel_state& was = im.channels[c];
    const cdouble at = was.phase * turn(-cycles_after(was.nu, was.D * (at_output - was.reference)));
    next.phase = at * turn(-(next.nu - was.nu) * double(taps.size() - 1) / 2);
    next.reference = at_output;
    im.channels[c] = std::move(next);
    im.upload_channels();
}

} // namespace core
} // namespace wideband
} // namespace gr
