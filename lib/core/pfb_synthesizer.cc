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
#include <gnuradio/wideband/core/fft_plan.h>
#include <gnuradio/wideband/core/pfb_synthesizer.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace gr {
namespace wideband {
namespace core {

namespace {

constexpr size_t default_input_samples = size_t(1) << 20;

size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

size_t points_of(const pfb_synthesizer_options& o)
{
    return o.twox ? 2 * o.channels : o.channels;
}

void check_options(const pfb_synthesizer_options& o)
{
    if (o.channels < 1 || o.channels > pfb_synthesizer_options::max_channels)
        throw std::invalid_argument(
            "pfb_synthesizer: channels must be 1.." +
            std::to_string(pfb_synthesizer_options::max_channels) + " (got " +
            std::to_string(o.channels) + ")");
    if (o.twox && o.channels % 2 != 0)
        throw std::invalid_argument("pfb_synthesizer: the number of channels must be "
                                    "even for 2x oversampling (got " +
                                    std::to_string(o.channels) + ")");
    if (o.inputs < 1 || o.inputs > points_of(o))
        throw std::invalid_argument("pfb_synthesizer: inputs must be 1.." +
                                    std::to_string(points_of(o)) + " (got " +
                                    std::to_string(o.inputs) + ")");
}

// The most frames and input samples of one call.
struct call_shape {
    size_t max_frames, max_input;
};

call_shape shape_of(const pfb_synthesizer_options& o)
{
    const size_t N = o.inputs;
    const size_t wanted =
        o.max_input_samples ? o.max_input_samples : std::max(default_input_samples, N);
    const size_t max_frames = std::max<size_t>(1, wanted / N);
    return { max_frames, max_frames * N };
}

// The device buffers of an engine: an input window, the taps, the FFT input and
// output of a call's frames and the K - 1 before them.
void check_sizes(const device_info& device,
                 size_t M,
                 size_t P,
                 size_t N,
                 size_t K,
                 const call_shape& s)
{
    const std::string name = "pfb_synthesizer (" + std::to_string(M) + " channels, " +
                             std::to_string(K) + " taps per branch)";
    const size_t window = stream_window::capacity_for((K - 1) * N, s.max_input, 0);
    const size_t transforms = (s.max_frames + K - 1) * P;
    check_buffer_fits(device, name + ": an input window", window * sizeof(cl_float2));
    check_buffer_fits(device, name + ": the taps", K * M * sizeof(cl_float));
    check_buffer_fits(device,
                      name + ": the frames of a call of " + std::to_string(s.max_input) +
                          " samples",
                      transforms * sizeof(cl_float2));
    // the kernels index with 32 bits
    if (std::max(window, transforms) > std::numeric_limits<cl_uint>::max())
        throw std::invalid_argument(name + ": a call of " + std::to_string(s.max_input) +
                                    " samples needs buffers of 2^32 elements or more");
}

/*
 * The one-pass kernel (pfb_synthesize_sliding in kernels/pfb_synthesizer.cl):
 * the P-point inverse FFT on chip, the K - 1 values of each of the M branches
 * before a step (both halves with twox) and the step's in registers.
 */
std::optional<sliding_shape>
plan_synthesizer_sliding(size_t M, size_t P, size_t K, const fft_device_limits& limits)
{
    if (P < 2 || P > max_on_chip_length(limits, false) || !is_codelet_smooth(P))
        return std::nullopt;
    const fft_pass_io adjacent{ true, false };
    const fft_pass_plan base = plan_pass(P, P, 1, adjacent, adjacent, limits);
    const size_t halves = P / M;
    return plan_sliding(M, K, base, limits, [&](size_t step, bool taps_in_registers) {
        return 2 * halves * (K - 1 + step) + (taps_in_registers ? K : 0);
    });
}

} // namespace

class pfb_synthesizer::impl
{
public:
    device_context::sptr ctx;
    size_t M, P, N;
    size_t max_frames, max_input;
    kernel_args scatter;

    // what the next call uses
    std::vector<float> taps;
    std::vector<size_t> map;
    size_t K = 0;
    cl::Buffer taps_buffer;
    cl::Buffer input_of_bin;
    // every bin an input, in order (N = P, the identity map): the frames are
    // the FFT's input where they are, without the scatter pass
    bool in_order = false;
    // for K, in two passes: the inverse FFT of a call's frames and the K - 1
    // before them
    std::shared_ptr<fft_plan> fft;
    cl::Buffer fft_input, spectra;
    kernel_args fir; // the branch filters over the transformed frames
    // for K, in one pass
    pfb_synthesizer_options::history_mode history_mode;
    std::optional<sliding_shape> sliding;
    kernel_args one_pass;
    cl::Buffer stage_twiddles; // of the P-point FFT

    // streaming state: the input window (history (K - 1) N samples) and the
    // frame count, whose parity twox follows
    std::unique_ptr<stream_window> window;
    uint64_t frames_done = 0;

    /*
     * Uses new_taps and new_map from the next call on. Everything they need is
     * made before anything is replaced, so that a failure (device memory, a
     * kernel build) leaves the engine as it was.
     */
    void configure(std::vector<float> new_taps, std::vector<size_t> new_map);
    /*
     * Enqueues the kernels for \p frames frames from stream frame \p first_frame,
     * the K - 1 frames before the first at \p input[first ...] and the frames
     * following them, written to \p output from element \p out_offset on.
     */
    cl::Event launch(const cl::CommandQueue& queue,
                     const cl::Buffer& input,
                     size_t first,
                     uint64_t first_frame,
                     size_t frames,
                     const cl::Buffer& output,
                     size_t out_offset,
                     const std::vector<cl::Event>& deps);
    //! launch() in one pass.
    cl::Event launch_sliding(const cl::CommandQueue& queue,
                             const cl::Buffer& input,
                             size_t first,
                             uint64_t first_frame,
                             size_t frames,
                             const cl::Buffer& output,
                             size_t out_offset,
                             const std::vector<cl::Event>& deps);
    //! The branch filters of launch() over the transformed frames, after \p after.
    cl::Event filter(const cl::CommandQueue& queue,
                     uint64_t first_frame,
                     size_t frames,
                     const cl::Buffer& output,
                     size_t out_offset,
                     const std::vector<cl::Event>& after);
};

void pfb_synthesizer::impl::configure(std::vector<float> new_taps,
                                      std::vector<size_t> new_map)
{
    const size_t new_k = ceil_div(new_taps.size(), M);
    check_sizes(ctx->info(), M, P, N, new_k, { max_frames, max_input });
    const cl::Context& cl_ctx = ctx->context();

    std::shared_ptr<fft_plan> new_fft = fft;
    cl::Buffer new_fft_input = fft_input, new_spectra = spectra;
    std::optional<sliding_shape> new_sliding = sliding;
    kernel_args new_one_pass = one_pass, new_fir = fir;
    // only the one pass reads them
    cl::Buffer new_stage_twiddles = stage_twiddles;
    if (new_k != K) {
        using mode = pfb_synthesizer_options::history_mode;
        new_sliding.reset();
        if (history_mode == mode::sliding ||
            (history_mode == mode::automatic && ctx->info().local_mem_is_dedicated))
            new_sliding = plan_synthesizer_sliding(
                M, P, new_k, fft_device_limits::for_device(ctx->info()));
        // One pass with several branches per work-item ran slower than the
        // two passes; with one it ran faster (docs/benchmarks.md, "The
        // synthesizer's branch filters with a sliding history").
        if (new_sliding && history_mode == mode::automatic && new_sliding->branches > 1)
            new_sliding.reset();
        if (new_sliding) {
            const sliding_shape& sh = *new_sliding;
            std::ostringstream o;
            o << sh.pass.stage_options() << " -DFFT_G=" << sh.pass.group
              << " -DTHREAD_TRANSFORM_FASTEST=" << sh.pass.thread_transform_fastest
              << " -DCHANNELS=" << M << " -DBRANCHES=" << sh.branches
              << " -DHISTORY=" << sh.history << " -DTWOX=" << (P != M)
              << " -DTAPS_IN_REGISTERS=" << sh.taps_in_registers
              << " -DTWIDDLE_SPACE=__global";
            new_one_pass = kernel_args(
                *ctx, "pfb_synthesizer.cl", o.str(), "pfb_synthesize_sliding");
            if (!new_stage_twiddles()) {
                std::vector<std::complex<float>> twiddles = core::stage_twiddles(P);
                new_stage_twiddles = cl::Buffer(cl_ctx,
                                                CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                                twiddles.size() * sizeof(twiddles[0]),
                                                twiddles.data());
            }
            new_fft.reset();
            new_fft_input = new_spectra = cl::Buffer();
            new_fir = kernel_args();
        } else {
            fft_options fo;
            fo.direction = fft_direction::inverse;
            fo.batch = max_frames + new_k - 1;
            new_fft = std::make_shared<fft_plan>(ctx, P, fo);
            new_fft_input = cl::Buffer(cl_ctx, CL_MEM_READ_WRITE, fo.batch * P * 8);
            new_spectra = cl::Buffer(cl_ctx, CL_MEM_READ_WRITE, fo.batch * P * 8);
            std::ostringstream o;
            o << "-DCHANNELS=" << M << " -DPOINTS=" << P << " -DTAPS_PER_BRANCH=" << new_k
              << " -DTWOX=" << (P != M);
            new_fir = kernel_args(*ctx, "pfb_synthesizer.cl", o.str(), "pfb_synth_fir");
            new_one_pass = kernel_args();
            new_stage_twiddles = cl::Buffer();
        }
    }

    std::vector<float> padded(new_k * M, 0.0f);
    std::copy(new_taps.begin(), new_taps.end(), padded.begin());
    cl::Buffer new_taps_buffer(cl_ctx,
                               CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               padded.size() * 4,
                               padded.data());

    // Later inputs overwrite earlier ones on a bin, as the in-tree block's
    // writes in input order do.
    std::vector<cl_int> input_of(P, -1);
    for (size_t i = 0; i < std::min(N, new_map.size()); ++i)
        input_of[new_map[i]] = static_cast<cl_int>(i);
    bool new_in_order = N == P;
    for (size_t b = 0; b < P; ++b)
        new_in_order = new_in_order && input_of[b] == static_cast<cl_int>(b);
    cl::Buffer new_input_of_bin(cl_ctx,
                                CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                P * sizeof(cl_int),
                                input_of.data());

    if (!window)
        window.reset(
            new stream_window(ctx, "pfb_synthesizer", (new_k - 1) * N, max_input));
    else if (new_k != K)
        window->set_history((new_k - 1) * N);

    // Nothing below throws.
    K = new_k;
    taps = std::move(new_taps);
    map = std::move(new_map);
    fft = std::move(new_fft);
    fft_input = new_fft_input;
    spectra = new_spectra;
    sliding = new_sliding;
    one_pass = new_one_pass;
    fir = new_fir;
    stage_twiddles = new_stage_twiddles;
    taps_buffer = new_taps_buffer;
    input_of_bin = new_input_of_bin;
    in_order = new_in_order;
}

pfb_synthesizer::pfb_synthesizer(device_context::sptr context,
                                 const pfb_synthesizer_options& options)
    : d_impl(new impl)
{
    if (!context)
        throw std::invalid_argument("pfb_synthesizer: no device context");
    check_options(options);
    check_prototype_taps("pfb_synthesizer", options.taps);
    impl& im = *d_impl;
    im.ctx = std::move(context);
    im.M = options.channels;
    im.P = points_of(options);
    im.N = options.inputs;
    const call_shape shape = shape_of(options);
    im.max_frames = shape.max_frames;
    im.max_input = shape.max_input;
    im.history_mode = options.history;
    im.scatter = kernel_args(*im.ctx, "pfb_synthesizer.cl", "", "pfb_synth_scatter");
    im.configure(options.taps,
                 resolved_map("pfb_synthesizer", "bin", options.channel_map, im.P));
}

pfb_synthesizer::~pfb_synthesizer() = default;

void pfb_synthesizer::check_fits(const device_info& device,
                                 const pfb_synthesizer_options& options)
{
    check_options(options);
    check_prototype_taps("pfb_synthesizer", options.taps);
    const size_t P = points_of(options);
    resolved_map("pfb_synthesizer", "bin", options.channel_map, P); // checks its entries
    check_sizes(device,
                options.channels,
                P,
                options.inputs,
                ceil_div(options.taps.size(), options.channels),
                shape_of(options));
}

size_t pfb_synthesizer::channels() const { return d_impl->M; }
size_t pfb_synthesizer::inputs() const { return d_impl->N; }
size_t pfb_synthesizer::fft_points() const { return d_impl->P; }
size_t pfb_synthesizer::taps_per_branch() const { return d_impl->K; }
bool pfb_synthesizer::sliding() const { return d_impl->sliding.has_value(); }
const std::vector<float>& pfb_synthesizer::taps() const { return d_impl->taps; }
const std::vector<size_t>& pfb_synthesizer::channel_map() const { return d_impl->map; }
stream_ratio pfb_synthesizer::step() const { return { d_impl->N, d_impl->M }; }
size_t pfb_synthesizer::max_input_samples() const { return d_impl->max_input; }
size_t pfb_synthesizer::max_output_elements() const
{
    return d_impl->max_frames * d_impl->M;
}

stream_engine::region pfb_synthesizer::input_region() const
{
    return d_impl->window->input_region();
}

cl::Event pfb_synthesizer::impl::launch(const cl::CommandQueue& queue,
                                        const cl::Buffer& input,
                                        size_t first,
                                        uint64_t first_frame,
                                        size_t frames,
                                        const cl::Buffer& output,
                                        size_t out_offset,
                                        const std::vector<cl::Event>& deps)
{
    if (sliding)
        return launch_sliding(
            queue, input, first, first_frame, frames, output, out_offset, deps);
    const size_t transforms = frames + K - 1;
    std::vector<cl::Event> after = deps;
    cl::Event event;
    if (in_order) {
        event = fft->enqueue_at(queue, input, first, spectra, 0, after, transforms);
        after.assign(1, event);
        return filter(queue, first_frame, frames, output, out_offset, after);
    }
    scatter.set("window", input);
    scatter.set("first", static_cast<cl_uint>(first));
    scatter.set("inputs", static_cast<cl_uint>(N));
    scatter.set("points", static_cast<cl_uint>(P));
    scatter.set("frames", static_cast<cl_uint>(transforms));
    scatter.set("input_of_bin", input_of_bin);
    scatter.set("fft_input", fft_input);
    queue.enqueueNDRangeKernel(scatter.ready(),
                               cl::NullRange,
                               cl::NDRange(ceil_div(P, 64) * 64, transforms),
                               cl::NDRange(64, 1),
                               after.empty() ? nullptr : &after,
                               &event);
    after.assign(1, event);
    event = fft->enqueue(queue, fft_input, spectra, after, transforms);
    after.assign(1, event);
    return filter(queue, first_frame, frames, output, out_offset, after);
}

cl::Event pfb_synthesizer::impl::launch_sliding(const cl::CommandQueue& queue,
                                                const cl::Buffer& input,
                                                size_t first,
                                                uint64_t first_frame,
                                                size_t frames,
                                                const cl::Buffer& output,
                                                size_t out_offset,
                                                const std::vector<cl::Event>& deps)
{
    const sliding_shape& sh = *sliding;
    const size_t run = sliding_run_frames(sh, frames, ctx->info().compute_units);
    const size_t work_items = sh.pass.work_group_size();
    one_pass.set("window", input);
    one_pass.set("first", static_cast<cl_uint>(first));
    one_pass.set("inputs", static_cast<cl_uint>(N));
    one_pass.set("frames", static_cast<cl_uint>(frames));
    one_pass.set("run_frames", static_cast<cl_uint>(run));
    one_pass.set("first_parity", static_cast<cl_uint>(first_frame % 2));
    one_pass.set("input_of_bin", input_of_bin);
    one_pass.set("taps", taps_buffer);
    one_pass.set("out", output);
    one_pass.set("out_offset", static_cast<cl_uint>(out_offset));
    one_pass.set("stage_twiddles", stage_twiddles);
    cl::Event event;
    queue.enqueueNDRangeKernel(one_pass.ready(),
                               cl::NullRange,
                               cl::NDRange(ceil_div(frames, run) * work_items),
                               cl::NDRange(work_items),
                               deps.empty() ? nullptr : &deps,
                               &event);
    return event;
}

cl::Event pfb_synthesizer::impl::filter(const cl::CommandQueue& queue,
                                        uint64_t first_frame,
                                        size_t frames,
                                        const cl::Buffer& output,
                                        size_t out_offset,
                                        const std::vector<cl::Event>& after)
{
    cl::Event event;
    const branch_runs b = plan_branch_runs(frames, M, ctx->info().compute_units);
    fir.set("spectra", spectra);
    fir.set("frames", static_cast<cl_uint>(frames));
    fir.set("first_parity", static_cast<cl_uint>(first_frame % 2));
    fir.set("taps", taps_buffer);
    fir.set("out", output);
    fir.set("out_offset", static_cast<cl_uint>(out_offset));
    fir.set("run_frames", static_cast<cl_uint>(b.run_frames));
    queue.enqueueNDRangeKernel(fir.ready(),
                               cl::NullRange,
                               cl::NDRange(b.global[0], b.global[1]),
                               cl::NDRange(b.local[0], b.local[1]),
                               &after,
                               &event);
    return event;
}

size_t pfb_synthesizer::run(const cl::CommandQueue& queue,
                            size_t samples,
                            const cl::Buffer& output,
                            const std::vector<cl::Event>& wait,
                            cl::Event& done)
{
    impl& im = *d_impl;
    if (samples > im.max_input)
        throw std::invalid_argument(
            "pfb_synthesizer: " + std::to_string(samples) +
            " samples exceed max_input_samples() = " + std::to_string(im.max_input));
    const size_t frames = (im.window->leftover() + samples) / im.N;
    if (frames > 0 && output.getInfo<CL_MEM_SIZE>() < frames * im.M * 8)
        throw std::invalid_argument("pfb_synthesizer: output buffer holds " +
                                    std::to_string(output.getInfo<CL_MEM_SIZE>()) +
                                    " bytes; this call writes " +
                                    std::to_string(frames * im.M * 8));

    fault::check_enqueue();
    std::vector<cl::Event> deps = wait;
    im.window->prepare(queue, deps);
    cl::Event event;
    if (frames > 0) {
        event = im.launch(
            queue, im.window->buffer(), 0, im.frames_done, frames, output, 0, deps);
        deps.assign(1, event);
    }
    im.frames_done += frames;
    im.window->advance(queue, samples, frames * im.N, deps, event);
    done = event;
    return frames * im.M;
}

stream_engine::in_place_result
pfb_synthesizer::run_in_place(const cl::CommandQueue& queue,
                              const span& input,
                              const span& output,
                              const std::vector<cl::Event>& wait)
{
    impl& im = *d_impl;
    if (std::max(input.offset + input.count, output.offset + output.count) >
        std::numeric_limits<cl_uint>::max())
        throw std::invalid_argument(
            "pfb_synthesizer: an in-place call on buffers of 2^32 elements or more");
    fault::check_enqueue();
    const in_place_result r =
        im.window->run_in_place(queue,
                                input,
                                output,
                                im.max_frames,
                                im.N,
                                im.K * im.N,
                                im.M,
                                wait,
                                [&](const cl::Buffer& buffer,
                                    size_t read_start,
                                    size_t first,
                                    size_t frames,
                                    size_t output_offset,
                                    const std::vector<cl::Event>& deps) {
                                    return im.launch(queue,
                                                     buffer,
                                                     read_start,
                                                     im.frames_done + first,
                                                     frames,
                                                     output.buffer,
                                                     output_offset,
                                                     deps);
                                });
    im.frames_done += r.produced / im.M;
    return r;
}

void pfb_synthesizer::set_taps(const std::vector<float>& taps)
{
    check_prototype_taps("pfb_synthesizer", taps);
    d_impl->configure(taps, d_impl->map);
}

void pfb_synthesizer::set_channel_map(const std::vector<size_t>& channel_map)
{
    d_impl->configure(d_impl->taps,
                      resolved_map("pfb_synthesizer", "bin", channel_map, d_impl->P));
}

void pfb_synthesizer::reset()
{
    d_impl->frames_done = 0;
    d_impl->window->reset();
}

size_t pfb_synthesizer::history_samples() const { return d_impl->window->history(); }

size_t pfb_synthesizer::continue_at(uint64_t position)
{
    d_impl->frames_done = position / d_impl->N;
    return d_impl->window->continue_with(size_t(position % d_impl->N));
}

} // namespace core
} // namespace wideband
} // namespace gr
