/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fault_injection.h"
#include "fft_planner.h"
#include "fft_tables.h"
#include "kernel_args.h"
#include "polyphase_checks.h"
#include "sliding_history.h"
#include "stream_window.h"
#include <gnuradio/wideband/core/pfb_channelizer.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace wideband {
namespace core {

namespace {

constexpr size_t default_input_samples = size_t(1) << 20;

size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

void check_options(const pfb_channelizer_options& o)
{
    if (o.channels < 1 || o.channels > pfb_channelizer_options::max_channels)
        throw std::invalid_argument(
            "pfb_channelizer: channels must be 1.." +
            std::to_string(pfb_channelizer_options::max_channels) + " (got " +
            std::to_string(o.channels) + ")");
    // GNU Radio's rule: the rate must be M/i for an integer i in [1, M].
    const double d = o.oversample_rate > 0 ? double(o.channels) / o.oversample_rate : 0.0;
    if (!std::isfinite(d) || std::fabs(d - std::round(d)) > 1e-5 || std::round(d) < 1 ||
        std::round(d) > double(o.channels))
        throw std::invalid_argument(
            "pfb_channelizer: oversample_rate must be channels/i for an integer i in "
            "[1, " +
            std::to_string(o.channels) + "] (e.g. 1 or 2 when that divides " +
            std::to_string(o.channels) + "); got " + std::to_string(o.oversample_rate));
}

// The input samples per frame and the most frames and samples of one call.
struct call_shape {
    size_t D, max_frames, max_input;
};

call_shape shape_of(const pfb_channelizer_options& o)
{
    const size_t D =
        static_cast<size_t>(std::llround(double(o.channels) / o.oversample_rate));
    const size_t wanted =
        o.max_input_samples ? o.max_input_samples : std::max(default_input_samples, D);
    // whole frames, and at least one
    const size_t max_frames = std::max<size_t>(1, wanted / D);
    return { D, max_frames, max_frames * D };
}

// The device buffers of an engine: the input windows, the taps, a call's frames.
void check_sizes(
    const device_info& device, size_t M, size_t K, size_t outputs, const call_shape& s)
{
    const std::string name = "pfb_channelizer (" + std::to_string(M) + " channels, " +
                             std::to_string(K) + " taps per branch)";
    check_buffer_fits(device,
                      name + ": an input window",
                      stream_window::capacity_for(K * M - s.D, s.max_input, 0) *
                          sizeof(cl_float2));
    check_buffer_fits(device, name + ": the taps", K * M * sizeof(cl_float));
    check_buffer_fits(device,
                      name + ": the frames of a call of " + std::to_string(s.max_input) +
                          " samples",
                      s.max_frames * std::max(M, outputs) * sizeof(cl_float2));
}

/*
 * The sliding-history kernel (kernels/pfb_channelizer.cl), for M a multiple of
 * D: its history is (K - 1) r + 1 samples of each branch.
 */
std::optional<sliding_shape> plan_channelizer_sliding(size_t M,
                                                      size_t D,
                                                      size_t K,
                                                      const fft_pass_plan& base,
                                                      const fft_device_limits& limits)
{
    if (M % D != 0)
        return std::nullopt;
    const size_t history = (K - 1) * (M / D) + 1;
    // per branch: the samples of a step and the next step's (2 registers
    // each), an index, the taps
    return plan_sliding(
        M, history, base, limits, [&](size_t step, bool taps_in_registers) {
            return 2 * (history - 1 + step) + 2 * step + 1 + (taps_in_registers ? K : 0);
        });
}

/*
 * The direct kernel (kernels/pfb_direct.cl) for a few mapped channels: runs of
 * `run_frames` frames, `lanes` runs per work-group of lanes * lane_items
 * work-items, the M branches in `blocks` blocks of block_branches (a work-group
 * each, its partial sums added by a second kernel when blocks > 1).
 */
struct direct_shape {
    size_t slots, run_frames, lanes, lane_items, block_branches, blocks;
    size_t work_group_size() const { return lanes * lane_items; }
};

// The unrolled sliding history's loads and sums per branch at most.
constexpr size_t max_direct_history = 32;
constexpr size_t direct_group_items = 256;
constexpr size_t direct_lane_items = 32;
// Work-groups per compute unit below which the direct kernel splits its branches.
constexpr size_t direct_groups_per_unit = 4;

std::optional<direct_shape> plan_direct(size_t M,
                                        size_t D,
                                        size_t K,
                                        size_t slots,
                                        size_t max_slots,
                                        size_t max_frames,
                                        size_t compute_units)
{
    if (slots == 0 || slots > max_slots || slots >= M || M % D != 0 ||
        K * (M / D) > max_direct_history)
        return std::nullopt;
    direct_shape d;
    d.slots = slots;
    d.run_frames = slots <= 2 ? 16 : 8; // rotated sums of every slot in registers
    // Up to a warp's worth of work-items per run, each summing at least four
    // branches in registers before the reduction in local memory (whose
    // levels cost more than the loads at small M).
    d.lane_items = std::min({ M, direct_lane_items, std::max<size_t>(4, M / 4) });
    d.lanes = direct_group_items / d.lane_items;
    // Enough work-groups to fill the device at the most frames of a call: the
    // branches split into blocks where runs are too few. A split costs the
    // partial sums' traffic and a second kernel, so only below
    // direct_groups_per_unit.
    const size_t runs = ceil_div(max_frames, d.run_frames * d.lanes);
    const size_t wanted =
        ceil_div(direct_groups_per_unit * std::max<size_t>(1, compute_units), runs);
    const size_t blocks = std::clamp<size_t>(wanted, 1, ceil_div(M, d.lane_items));
    d.block_branches = ceil_div(ceil_div(M, blocks), d.lane_items) * d.lane_items;
    d.blocks = ceil_div(M, d.block_branches);
    return d;
}

size_t pow2_at_least(size_t n)
{
    size_t p = 1;
    while (p < n)
        p *= 2;
    return p;
}

} // namespace

class pfb_channelizer::impl
{
public:
    device_context::sptr ctx;
    size_t M, D;
    channel_layout layout;
    size_t max_input;
    size_t max_frames;
    size_t max_fused_channels;
    size_t max_direct_channels;
    pfb_channelizer_options::history_mode history_mode;
    sample_format input_format;

    // the kernels for K taps per branch and their device buffers
    struct kernel_set {
        bool fused = false;
        std::optional<sliding_shape> sliding; // when fused with a sliding history
        std::optional<direct_shape> direct;   // the rotated sums, no FFT
        kernel_args channelize, fir, gather, direct_finish;
        cl::Buffer roots, partial; // when direct
        fft_pass_plan pass;
        bool sliding_fir = false;      // when not fused: pfb_fir_sliding
        std::shared_ptr<fft_plan> fft; // when not fused: frame-major spectra
        cl::Buffer stage_twiddles;
        cl::Buffer fft_input, spectra; // when not fused
    };

    // what the next enqueue() uses
    std::vector<float> taps;
    std::vector<size_t> map;
    bool map_is_identity = false; // every channel, in order
    size_t K = 0;
    kernel_set kernels;
    cl::Buffer taps_buffer;
    // channel -> its first output slot and slot -> next slot of the same channel
    // (-1 ends; the fused kernel's store), slot -> channel (the gather's)
    cl::Buffer first_slot, next_slot, channel_of_slot;

    // streaming state: the input window (history K*M - D samples) and the
    // frame count, which the commutator position follows
    std::unique_ptr<stream_window> window;
    uint64_t frames_done = 0;

    /*
     * Uses new_taps and new_map from the next enqueue() on. Everything they
     * need (kernels, tables, a larger window) is made before anything is
     * replaced, so that a failure (a kernel build, device memory) leaves the
     * engine as it was.
     */
    void configure(std::vector<float> new_taps, std::vector<size_t> new_map);
    /*
     * Enqueues the kernels for \p frames frames, from frame \p first_frame of
     * the stream, whose first frame's last sample is \p input[last_of_first],
     * written from element \p out_offset of \p output on.
     */
    cl::Event launch(const cl::CommandQueue& queue,
                     const cl::Buffer& input,
                     size_t last_of_first,
                     uint64_t first_frame,
                     size_t frames,
                     const cl::Buffer& output,
                     size_t out_offset,
                     size_t row_stride,
                     const std::vector<cl::Event>& deps);
    kernel_set build_kernels(size_t taps_per_branch, size_t slots) const;
    //! Whether the FIR and the FFT are one kernel for K taps per branch and S
    //! output slots (not the direct kernel's), with its plan.
    struct fused_choice {
        bool fused = false;
        fft_pass_plan pass;
        std::optional<sliding_shape> sliding;
    };
    fused_choice choose_fused(size_t taps_per_branch, size_t slots) const;
    //! The direct kernel's shape for K taps per branch and S slots, if it applies.
    std::optional<direct_shape> direct_for(size_t taps_per_branch, size_t slots) const
    {
        return plan_direct(M,
                           D,
                           taps_per_branch,
                           slots,
                           max_direct_channels,
                           max_frames,
                           ctx->info().compute_units);
    }
    //! Frames per work-group of the sliding kernel for a call of \p frames frames.
    size_t run_frames(size_t frames) const;
    std::string options(size_t taps_per_branch) const;
};

std::string pfb_channelizer::impl::options(size_t taps_per_branch) const
{
    std::ostringstream o;
    o << " -DCHANNELS=" << M << " -DTAPS_PER_BRANCH=" << taps_per_branch
      << " -DDECIMATION=" << D << " -DIDX=uint"
      << " -DCHANNEL_MAJOR=" << (layout == channel_layout::channel_major)
      << sample_type_option(input_format);
    return o.str();
}

pfb_channelizer::impl::kernel_set
pfb_channelizer::impl::build_kernels(size_t taps_per_branch, size_t slots) const
{
    kernel_set k;
    const cl::Context& cl_ctx = ctx->context();
    const std::string common = options(taps_per_branch);

    k.direct = direct_for(taps_per_branch, slots);
    if (k.direct) {
        const direct_shape& d = *k.direct;
        const bool roots_constant = M * 8 <= ctx->info().max_constant_bytes / 2;
        std::ostringstream o;
        o << common << " -DOVERSAMPLING=" << M / D << " -DSLOTS=" << d.slots
          << " -DRUN_FRAMES=" << d.run_frames << " -DLANES=" << d.lanes
          << " -DLANE_ITEMS=" << d.lane_items
          << " -DLANE_ITEMS_POW2=" << pow2_at_least(d.lane_items)
          << " -DBLOCK_BRANCHES=" << d.block_branches << " -DBLOCKS=" << d.blocks
          << " -DROOTS_SPACE=" << (roots_constant ? "__constant" : "__global");
        k.channelize = kernel_args(*ctx, "pfb_direct.cl", o.str(), "pfb_direct");
        if (d.blocks > 1) {
            k.direct_finish =
                kernel_args(*ctx, "pfb_direct.cl", o.str(), "pfb_direct_finish");
            k.partial = cl::Buffer(
                cl_ctx, CL_MEM_READ_WRITE, max_frames * d.slots * d.blocks * 8);
        } else {
            k.partial = cl::Buffer(cl_ctx, CL_MEM_READ_WRITE, 8); // unused
        }
        k.roots = cl::Buffer(cl_ctx,
                             CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             M * 8,
                             core::stage_twiddles(M).data());
        return k;
    }

    const fused_choice choice = choose_fused(taps_per_branch, slots);
    k.fused = choice.fused;
    k.pass = choice.pass;
    k.sliding = choice.sliding;
    if (k.fused) {
        std::ostringstream o;
        if (k.sliding) {
            const sliding_shape& s = *k.sliding;
            k.pass = s.pass;
            o << k.pass.stage_options() << " -DFFT_G=" << k.pass.group
              << " -DBRANCHES=" << s.branches << " -DHISTORY=" << s.history
              << " -DOVERSAMPLING=" << M / D
              << " -DTAPS_IN_REGISTERS=" << s.taps_in_registers;
        } else {
            o << k.pass.stage_options() << " -DFFT_G=" << k.pass.group
              << " -DTHREAD_TRANSFORM_FASTEST=" << k.pass.thread_transform_fastest
              << " -DLOAD_DIRECT=" << k.pass.load_direct
              << " -DSTORE_DIRECT=" << k.pass.store_direct
              << " -DSTORE_TRANSFORM_FASTEST=" << k.pass.store_transform_fastest;
        }
        o << " -DTWIDDLE_SPACE=__global" << common;
        k.channelize =
            kernel_args(*ctx,
                        "pfb_channelizer.cl",
                        o.str(),
                        k.sliding ? "pfb_channelize_sliding" : "pfb_channelize");
        k.stage_twiddles = M > 1 ? cl::Buffer(cl_ctx,
                                              CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                              M * 8,
                                              core::stage_twiddles(M).data())
                                 : cl::Buffer(cl_ctx, CL_MEM_READ_ONLY, 8);
    } else {
        k.sliding_fir = M % D == 0;
        const std::string o =
            k.sliding_fir ? common + " -DOVERSAMPLING=" + std::to_string(M / D) : common;
        k.fir = kernel_args(
            *ctx, "pfb_fir.cl", o, k.sliding_fir ? "pfb_fir_sliding" : "pfb_fir_frames");
        k.gather = kernel_args(*ctx, "pfb_fir.cl", o, "pfb_gather_channels");
        fft_options fo;
        fo.batch = max_frames;
        k.fft = std::make_shared<fft_plan>(ctx, M, fo);
        k.fft_input = cl::Buffer(cl_ctx, CL_MEM_READ_WRITE, max_frames * M * 8);
        k.spectra = cl::Buffer(cl_ctx, CL_MEM_READ_WRITE, max_frames * M * 8);
    }
    return k;
}

void pfb_channelizer::impl::configure(std::vector<float> new_taps,
                                      std::vector<size_t> new_map)
{
    const size_t new_k = ceil_div(new_taps.size(), M);
    check_sizes(ctx->info(), M, new_k, new_map.size(), { D, max_frames, max_input });
    const auto direct_slots = [](const std::optional<direct_shape>& d) {
        return d ? d->slots : 0;
    };
    // The kernels depend on K and on the number of slots (the direct kernel's;
    // the fused kernel or the passes).
    const bool same_kernels =
        window && new_k == K &&
        direct_slots(direct_for(new_k, new_map.size())) == direct_slots(kernels.direct) &&
        (kernels.direct || choose_fused(new_k, new_map.size()).fused == kernels.fused);
    kernel_set new_kernels =
        same_kernels ? kernels : build_kernels(new_k, new_map.size());

    const cl::Context& cl_ctx = ctx->context();
    std::vector<float> padded(new_k * M, 0.0f);
    std::copy(new_taps.begin(), new_taps.end(), padded.begin());
    cl::Buffer new_taps_buffer(cl_ctx,
                               CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               padded.size() * 4,
                               padded.data());

    std::vector<cl_int> first(M, -1), next(new_map.size(), -1);
    std::vector<cl_uint> channel(new_map.size());
    for (size_t s = new_map.size(); s-- > 0;) {
        next[s] = first[new_map[s]];
        first[new_map[s]] = static_cast<cl_int>(s);
        channel[s] = static_cast<cl_uint>(new_map[s]);
    }
    auto table = [&](const auto& v) {
        return cl::Buffer(cl_ctx,
                          CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          v.size() * sizeof(v[0]),
                          const_cast<void*>(static_cast<const void*>(v.data())));
    };
    cl::Buffer new_first = table(first), new_next = table(next),
               new_channel = table(channel);

    if (!window)
        window.reset(new stream_window(
            ctx, "pfb_channelizer", new_k * M - D, max_input, 0, input_format));
    else
        window->set_history(new_k * M - D);

    // Nothing below throws.
    K = new_k;
    taps = std::move(new_taps);
    map = std::move(new_map);
    map_is_identity = map.size() == M;
    for (size_t s = 0; s < map.size(); ++s)
        map_is_identity = map_is_identity && map[s] == s;
    kernels = std::move(new_kernels);
    taps_buffer = new_taps_buffer;
    first_slot = new_first;
    next_slot = new_next;
    channel_of_slot = new_channel;
}

pfb_channelizer::pfb_channelizer(device_context::sptr context,
                                 const pfb_channelizer_options& options)
    : d_impl(new impl)
{
    if (!context)
        throw std::invalid_argument("pfb_channelizer: no device context");
    check_options(options);
    check_prototype_taps("pfb_channelizer", options.taps);
    impl& im = *d_impl;
    im.ctx = std::move(context);
    im.M = options.channels;
    const call_shape shape = shape_of(options);
    im.D = shape.D;
    im.max_frames = shape.max_frames;
    im.max_input = shape.max_input;
    im.layout = options.layout;
    im.max_fused_channels = options.max_fused_channels;
    im.max_direct_channels = options.max_direct_channels;
    im.history_mode = options.history;
    im.input_format = options.input_format;
    im.configure(options.taps,
                 resolved_map("pfb_channelizer", "channel", options.channel_map, im.M));
}

pfb_channelizer::~pfb_channelizer() = default;

void pfb_channelizer::check_fits(const device_info& device,
                                 const pfb_channelizer_options& options)
{
    check_options(options);
    check_prototype_taps("pfb_channelizer", options.taps);
    const size_t M = options.channels;
    if (!options.channel_map.empty())
        resolved_map(
            "pfb_channelizer", "channel", options.channel_map, M); // checks its entries
    check_sizes_fit(device,
                    options,
                    options.taps.size(),
                    options.channel_map.empty() ? M : options.channel_map.size());
}

void pfb_channelizer::check_sizes_fit(const device_info& device,
                                      const pfb_channelizer_options& options,
                                      size_t taps,
                                      size_t outputs)
{
    check_options(options);
    if (taps == 0)
        throw std::invalid_argument(
            "pfb_channelizer: taps must not be empty (give a prototype low-pass filter)");
    const size_t M = options.channels;
    check_sizes(device, M, ceil_div(taps, M), outputs, shape_of(options));
}

size_t pfb_channelizer::channels() const { return d_impl->M; }
size_t pfb_channelizer::decimation() const { return d_impl->D; }
size_t pfb_channelizer::taps_per_branch() const { return d_impl->K; }
size_t pfb_channelizer::outputs() const { return d_impl->map.size(); }
size_t pfb_channelizer::max_input_samples() const { return d_impl->max_input; }
size_t pfb_channelizer::input_sample_bytes() const
{
    return sample_bytes(d_impl->input_format);
}
bool pfb_channelizer::fused() const { return d_impl->kernels.fused; }
bool pfb_channelizer::sliding() const { return d_impl->kernels.sliding.has_value(); }
bool pfb_channelizer::direct() const { return d_impl->kernels.direct.has_value(); }
const std::vector<size_t>& pfb_channelizer::channel_map() const { return d_impl->map; }
const std::vector<float>& pfb_channelizer::taps() const { return d_impl->taps; }

size_t pfb_channelizer::frames_for(size_t samples) const
{
    return (d_impl->window->leftover() + samples) / d_impl->D;
}

stream_engine::region pfb_channelizer::input_region() const
{
    return d_impl->window->input_region();
}

pfb_channelizer::result pfb_channelizer::enqueue(const cl::CommandQueue& queue,
                                                 size_t samples,
                                                 const cl::Buffer& output,
                                                 size_t row_stride,
                                                 const std::vector<cl::Event>& wait)
{
    impl& im = *d_impl;
    if (samples > im.max_input)
        throw std::invalid_argument(
            "pfb_channelizer: " + std::to_string(samples) +
            " samples exceed max_input_samples() = " + std::to_string(im.max_input));
    const size_t frames = frames_for(samples);
    const size_t slots = im.map.size();
    if (im.layout == channel_layout::channel_major && frames > 0 && row_stride < frames)
        throw std::invalid_argument("pfb_channelizer: row_stride " +
                                    std::to_string(row_stride) + " is below the " +
                                    std::to_string(frames) + " frames of this call");
    const size_t needed = im.layout == channel_layout::channel_major
                              ? (slots - 1) * row_stride + frames
                              : frames * slots;
    if (frames > 0 && output.getInfo<CL_MEM_SIZE>() < needed * 8)
        throw std::invalid_argument("pfb_channelizer: output buffer holds " +
                                    std::to_string(output.getInfo<CL_MEM_SIZE>()) +
                                    " bytes; this call writes " +
                                    std::to_string(needed * 8));

    fault::check_enqueue();
    std::vector<cl::Event> deps = wait;
    im.window->prepare(queue, deps);
    cl::Event event;
    if (frames > 0) {
        event = im.launch(queue,
                          im.window->buffer(),
                          im.K * im.M - 1,
                          im.frames_done,
                          frames,
                          output,
                          0,
                          row_stride,
                          deps);
        deps.assign(1, event);
    }

    // Keep the history and the leftover for the next call.
    im.frames_done += frames;
    im.window->advance(queue, samples, frames * im.D, deps, event);
    return { frames, event };
}

cl::Event pfb_channelizer::impl::launch(const cl::CommandQueue& queue,
                                        const cl::Buffer& input,
                                        size_t last_of_first,
                                        uint64_t first_frame,
                                        size_t frames,
                                        const cl::Buffer& output,
                                        size_t out_offset,
                                        size_t row_stride,
                                        const std::vector<cl::Event>& deps)
{
    const size_t slots = map.size();
    // (q0 + 2) * D mod M without overflow for any frame count
    const cl_uint rotation0 = static_cast<cl_uint>(((first_frame + 2) % M) * D % M);
    kernel_set& ks = kernels;
    cl::Event event;
    std::vector<cl::Event> after = deps;
    // The polyphase FIR's inputs, the same parameters in both kernels that compute it.
    auto set_fir_inputs = [&](kernel_args& k) {
        k.set("window", input);
        k.set("last_of_first", static_cast<cl_uint>(last_of_first));
        k.set("rotation0", rotation0);
        k.set("frames", static_cast<cl_uint>(frames));
        k.set("taps", taps_buffer);
    };
    auto set_outputs = [&](kernel_args& k) {
        k.set("slots", static_cast<cl_uint>(slots));
        k.set("out", output);
        k.set("out_offset", static_cast<cl_uint>(out_offset));
        k.set("out_stride", static_cast<cl_uint>(row_stride));
    };
    if (ks.direct) {
        const direct_shape& d = *ks.direct;
        kernel_args& k = ks.channelize;
        set_fir_inputs(k);
        k.set("channel_of_slot", channel_of_slot);
        k.set("roots", ks.roots);
        k.set("out", output);
        k.set("out_offset", static_cast<cl_uint>(out_offset));
        k.set("out_stride", static_cast<cl_uint>(row_stride));
        k.set("partial", ks.partial);
        const size_t groups = ceil_div(frames, d.run_frames * d.lanes) * d.blocks;
        queue.enqueueNDRangeKernel(k.ready(),
                                   cl::NullRange,
                                   cl::NDRange(groups * d.work_group_size()),
                                   cl::NDRange(d.work_group_size()),
                                   after.empty() ? nullptr : &after,
                                   &event);
        if (d.blocks == 1)
            return event;
        after.assign(1, event);
        kernel_args& finish = ks.direct_finish;
        finish.set("partial", ks.partial);
        finish.set("frames", static_cast<cl_uint>(frames));
        finish.set("rotation0", rotation0);
        finish.set("channel_of_slot", channel_of_slot);
        finish.set("roots", ks.roots);
        finish.set("out", output);
        finish.set("out_offset", static_cast<cl_uint>(out_offset));
        finish.set("out_stride", static_cast<cl_uint>(row_stride));
        queue.enqueueNDRangeKernel(finish.ready(),
                                   cl::NullRange,
                                   cl::NDRange(frames, slots),
                                   cl::NullRange,
                                   &after,
                                   &event);
        return event;
    }
    if (ks.fused) {
        kernel_args& k = ks.channelize;
        set_fir_inputs(k);
        set_outputs(k);
        k.set("stage_twiddles", ks.stage_twiddles);
        // A work-group computes a run of frames (sliding) or a tile of them.
        size_t group_frames = ks.pass.group;
        if (ks.sliding) {
            group_frames = run_frames(frames);
            k.set("run_frames", static_cast<cl_uint>(group_frames));
            k.set("channel_of_slot", channel_of_slot);
        } else {
            k.set("first_slot", first_slot);
            k.set("next_slot", next_slot);
        }
        const size_t groups = ceil_div(frames, group_frames);
        queue.enqueueNDRangeKernel(k.ready(),
                                   cl::NullRange,
                                   cl::NDRange(groups * ks.pass.work_group_size()),
                                   cl::NDRange(ks.pass.work_group_size()),
                                   after.empty() ? nullptr : &after,
                                   &event);
        return event;
    }
    set_fir_inputs(ks.fir);
    ks.fir.set("fft_input", ks.fft_input);
    constexpr size_t fir_group = 64;
    if (ks.sliding_fir) {
        const branch_runs b = plan_branch_runs(frames, M, ctx->info().compute_units);
        ks.fir.set("run_frames", static_cast<cl_uint>(b.run_frames));
        queue.enqueueNDRangeKernel(ks.fir.ready(),
                                   cl::NullRange,
                                   cl::NDRange(b.global[0], b.global[1]),
                                   cl::NDRange(b.local[0], b.local[1]),
                                   after.empty() ? nullptr : &after,
                                   &event);
    } else {
        queue.enqueueNDRangeKernel(
            ks.fir.ready(),
            cl::NullRange,
            cl::NDRange(ceil_div(M * frames, fir_group) * fir_group),
            cl::NDRange(fir_group),
            after.empty() ? nullptr : &after,
            &event);
    }
    after.assign(1, event);
    // Every channel in order, frame after frame, is the FFT's own output.
    if (map_is_identity && layout == channel_layout::frame_major)
        return ks.fft->enqueue_at(
            queue, ks.fft_input, 0, output, out_offset, after, frames);
    event = ks.fft->enqueue(queue, ks.fft_input, ks.spectra, after, frames);
    after.assign(1, event);
    ks.gather.set("spectra", ks.spectra);
    ks.gather.set("frames", static_cast<cl_uint>(frames));
    ks.gather.set("channel_of_slot", channel_of_slot);
    set_outputs(ks.gather);
    constexpr size_t tile = 32, rows = 8; // GATHER_TILE, GATHER_ROWS
    const bool transpose = layout == channel_layout::channel_major;
    queue.enqueueNDRangeKernel(
        ks.gather.ready(),
        cl::NullRange,
        transpose
            ? cl::NDRange(ceil_div(slots, tile) * tile, ceil_div(frames, tile) * rows)
            : cl::NDRange(ceil_div(slots, fir_group) * fir_group, frames),
        transpose ? cl::NDRange(tile, rows) : cl::NDRange(fir_group, 1),
        &after,
        &event);
    return event;
}

pfb_channelizer::impl::fused_choice
pfb_channelizer::impl::choose_fused(size_t taps_per_branch, size_t slots) const
{
    const fft_device_limits limits = fft_device_limits::for_device(ctx->info());
    size_t fused_limit = max_on_chip_length(limits, false);
    if (max_fused_channels)
        fused_limit = std::min(fused_limit, max_fused_channels);
    fused_choice c;
    if (M > fused_limit || !is_codelet_smooth(M))
        return c;
    // FFT inputs come from adjacent branches (adjacent addresses); outputs are
    // rows per channel (adjacent frames) or vectors per frame (adjacent channels).
    const fft_pass_io in{ true, false };
    const fft_pass_io out{ layout == channel_layout::frame_major,
                           layout == channel_layout::channel_major };
    c.pass = plan_pass(M, M, 1, in, out, limits);
    using mode = pfb_channelizer_options::history_mode;
    const bool gpu = ctx->info().local_mem_is_dedicated;
    if (history_mode == mode::sliding || (history_mode == mode::automatic && gpu))
        c.sliding = plan_channelizer_sliding(M, D, taps_per_branch, c.pass, limits);
    // Its barriers and stores per step want 4 frames or more: where local
    // memory holds fewer frames of the FFT it ran slower than the passes
    // below, every shape of 4 or more faster (docs/benchmarks.md, "The
    // channelizer's FIR pass with a sliding history").
    constexpr size_t min_sliding_step = 4;
    if (c.sliding && history_mode == mode::automatic) {
        const fft_pass_plan& p = c.sliding->pass;
        if (p.group < min_sliding_step &&
            p.tile_bytes() / p.group * min_sliding_step > limits.local_bytes)
            c.sliding.reset();
    }
    // Where the branches' histories do not fit a work-group, the FIR pass keeps
    // one branch's in each work-item instead of reading every sample K times as
    // the fused per-frame kernel does; with few mapped channels the fused
    // kernel, which computes only those, stays faster: the passes from M / 16
    // channels on (same section).
    const bool passes = !c.sliding && history_mode == mode::automatic && gpu &&
                        M % D == 0 && 16 * slots >= M;
    c.fused = !passes;
    return c;
}

size_t pfb_channelizer::impl::run_frames(size_t frames) const
{
    return sliding_run_frames(*kernels.sliding, frames, ctx->info().compute_units);
}

bool pfb_channelizer::runs_in_place() const
{
    // Channel-major rows of several channels go to several streams; upstream
    // device buffers hold our blocks' complex float outputs only.
    return (d_impl->layout == channel_layout::frame_major || d_impl->map.size() == 1) &&
           d_impl->input_format == sample_format::fc32;
}

stream_engine::in_place_result
pfb_channelizer::run_in_place(const cl::CommandQueue& queue,
                              const span& input,
                              const span& output,
                              const std::vector<cl::Event>& wait)
{
    impl& im = *d_impl;
    if (!runs_in_place())
        throw std::logic_error("pfb_channelizer: run_in_place() with channel-major "
                               "rows of several channels or integer input");
    if (std::max(input.offset + input.count, output.offset + output.count) >
        std::numeric_limits<cl_uint>::max())
        throw std::invalid_argument(
            "pfb_channelizer: an in-place call on buffers of 2^32 elements or more");
    fault::check_enqueue();
    const in_place_result r =
        im.window->run_in_place(queue,
                                input,
                                output,
                                im.max_frames,
                                im.D,
                                im.K * im.M,
                                im.map.size(),
                                wait,
                                [&](const cl::Buffer& buffer,
                                    size_t read_start,
                                    size_t first,
                                    size_t frames,
                                    size_t output_offset,
                                    const std::vector<cl::Event>& deps) {
                                    // One output stream: channel-major rows are a single
                                    // channel's.
                                    return im.launch(queue,
                                                     buffer,
                                                     read_start + im.K * im.M - 1,
                                                     im.frames_done + first,
                                                     frames,
                                                     output.buffer,
                                                     output_offset,
                                                     frames,
                                                     deps);
                                });
    im.frames_done += r.produced / im.map.size();
    return r;
}

size_t pfb_channelizer::max_output_elements() const
{
    return d_impl->max_frames * d_impl->map.size();
}

size_t pfb_channelizer::run(const cl::CommandQueue& queue,
                            size_t samples,
                            const cl::Buffer& output,
                            const std::vector<cl::Event>& wait,
                            cl::Event& done)
{
    const size_t frames = frames_for(samples);
    const result r = enqueue(queue, samples, output, std::max<size_t>(frames, 1), wait);
    done = r.done;
    return r.frames * outputs();
}

void pfb_channelizer::set_taps(const std::vector<float>& taps)
{
    check_prototype_taps("pfb_channelizer", taps);
    d_impl->configure(taps, d_impl->map);
}

void pfb_channelizer::set_channel_map(const std::vector<size_t>& channel_map)
{
    d_impl->configure(d_impl->taps,
                      resolved_map("pfb_channelizer", "channel", channel_map, d_impl->M));
}

void pfb_channelizer::reset()
{
    d_impl->frames_done = 0;
    d_impl->window->reset();
}

size_t pfb_channelizer::history_samples() const { return d_impl->window->history(); }

size_t pfb_channelizer::continue_at(uint64_t position)
{
    d_impl->frames_done = position / d_impl->D;
    return d_impl->window->continue_with(size_t(position % d_impl->D));
}

} // namespace core
} // namespace wideband
} // namespace gr
