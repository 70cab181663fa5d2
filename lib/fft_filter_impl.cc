/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fft_filter_impl.h"
#include <gnuradio/io_signature.h>
#include <gnuradio/wideband/core/environment.h>
#include <gnuradio/wideband/core/host_copy.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace wideband {

namespace {

std::vector<std::complex<float>> complex_taps(const std::vector<gr_complex>& taps)
{
    return taps;
}

std::vector<std::complex<float>> complex_taps(const std::vector<float>& taps)
{
    return std::vector<std::complex<float>>(taps.begin(), taps.end());
}

int checked_decimation(int decimation)
{
    if (decimation < 1)
        throw std::invalid_argument("fft_filter: decimation must be >= 1 (got " +
                                    std::to_string(decimation) + ")");
    return decimation;
}

} // namespace

template <class TAP_T>
typename fft_filter<TAP_T>::sptr fft_filter<TAP_T>::make(int decimation,
                                                         const std::vector<TAP_T>& taps,
                                                         int /* nthreads */,
                                                         const std::string& device)
{
    core::environment::check();
    return gnuradio::make_block_sptr<fft_filter_impl<TAP_T>>(decimation, taps, device);
}

template <class TAP_T>
fft_filter_impl<TAP_T>::fft_filter_impl(int decimation,
                                        const std::vector<TAP_T>& taps,
                                        const std::string& device)
    : gr::block(
          std::is_same<TAP_T, float>::value ? "fft_filter_ccf" : "fft_filter_ccc",
          gr::io_signature::make(1, 1, sizeof(gr_complex)),
          gr::io_signature::make(1, 1, sizeof(gr_complex), output_buffer_type(device))),
      d_decimation(checked_decimation(decimation)),
      d_contexts(core::device_context::get_all(device)),
      d_taps(taps),
      d_tags(uint64_t(d_decimation))
{
    const core::device_info& info = d_contexts.front()->info();
    core::fft_filter_options options;
    options.taps = complex_taps(taps);
    options.decimation = size_t(decimation);
    options.max_input_samples =
        std::max<size_t>(chunk_samples_for(info), size_t(decimation));
    for (const auto& context : d_contexts)
        d_engines.emplace_back(new core::fft_filter(context, options));
    this->set_relative_rate(1, uint64_t(decimation));
    this->set_tag_propagation_policy(gr::block::TPP_DONT); // decimated_tags does it
    this->set_output_multiple(
        int(std::max<size_t>(1, buffer_hint_samples_for(info) / size_t(decimation))));
}

template <class TAP_T>
bool fft_filter_impl<TAP_T>::check_topology(int, int)
{
    fit_output_multiple(*this);
    return true;
}

template <class TAP_T>
bool fft_filter_impl<TAP_T>::start()
{
    this->guarded_start(*this, device_name(), [this] { start_stream(); });
    return block::start();
}

template <class TAP_T>
bool fft_filter_impl<TAP_T>::start_stream()
{
    d_pipeline = make_pipeline(d_contexts, d_engines);
    d_work.reset(new pipelined_work(*d_pipeline, *this));
    d_stream_begins = true;
    return block::start();
}

template <class TAP_T>
bool fft_filter_impl<TAP_T>::stop()
{
    if (d_pipeline)
        d_pipeline->discard();
    if (d_work && !d_work->profile_report().empty())
        this->d_logger->info("profile: {:s}", d_work->profile_report());
    d_work.reset();
    d_pipeline.reset();
    // A restarted flowgraph starts a new stream.
    for (const auto& engine : d_engines)
        engine->reset();
    return block::stop();
}

template <class TAP_T>
void fft_filter_impl<TAP_T>::set_taps(const std::vector<TAP_T>& taps)
{
    // The engine's checks, made here so that they fail in the caller's thread.
    if (taps.empty())
        throw std::invalid_argument("fft_filter: taps must not be empty");
    for (const auto& t : complex_taps(taps))
        if (!std::isfinite(t.real()) || !std::isfinite(t.imag()))
            throw std::invalid_argument("fft_filter: taps must be finite numbers");
    std::lock_guard<std::mutex> lock(d_mutex);
    d_taps = taps;
    d_taps_changed = true;
}

template <class TAP_T>
std::vector<TAP_T> fft_filter_impl<TAP_T>::taps() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_taps;
}

template <class TAP_T>
int fft_filter_impl<TAP_T>::fft_size() const
{
    return int(d_engines.front()->fft_size());
}

template <class TAP_T>
core::device_context::sptr fft_filter_impl<TAP_T>::opencl_context() const
{
    return single_context(d_contexts);
}

template <class TAP_T>
std::string fft_filter_impl<TAP_T>::device_name() const
{
    return device_names(d_contexts);
}

template <class TAP_T>
unsigned int fft_filter_impl<TAP_T>::latency() const
{
    return unsigned(pipeline_depth() * d_contexts.size() *
                    d_engines.front()->max_input_samples());
}

template <class TAP_T>
void fft_filter_impl<TAP_T>::forecast(int, gr_vector_int& ninput_items_required)
{
    // Output waiting in the pipeline needs no input, which also lets the end of
    // a stream flush it; otherwise any input is worth a call.
    ninput_items_required[0] = (d_work && d_work->pending()) ? 0 : 1;
}

template <class TAP_T>
void fft_filter_impl<TAP_T>::propagate_tags(size_t consumed,
                                            size_t produced,
                                            size_t outputs)
{
    if (d_stream_begins) {
        d_tags.restart(this->nitems_read(0), this->nitems_written(0));
        d_stream_begins = false;
    }
    std::vector<tag_t> tags;
    this->get_tags_in_range(
        tags, 0, this->nitems_read(0), this->nitems_read(0) + consumed);
    d_tags.hold(tags);
    for (const tag_t& tag : d_tags.release(this->nitems_written(0) + produced))
        for (size_t o = 0; o < outputs; ++o)
            this->add_item_tag(unsigned(o), tag);
}

template <class TAP_T>
int fft_filter_impl<TAP_T>::general_work(int noutput_items,
                                         gr_vector_int& ninput_items,
                                         gr_vector_const_void_star& input_items,
                                         gr_vector_void_star& output_items)
{
    return this->guarded_work(*this, device_name(), [&] {
        return stream_work(noutput_items, ninput_items, input_items, output_items);
    });
}

template <class TAP_T>
int fft_filter_impl<TAP_T>::stream_work(int noutput_items,
                                        gr_vector_int& ninput_items,
                                        gr_vector_const_void_star& input_items,
                                        gr_vector_void_star& output_items)
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        if (d_taps_changed) {
            for (const auto& engine : d_engines)
                engine->set_taps(complex_taps(d_taps));
            d_taps_changed = false;
        }
    }
    if (d_stream_begins) { // the buffers are connected now
        const stream_port output = output_port(*this, 0);
        d_work->bind(
            input_port(*this, 0), { output }, output.where != stream_port::kind::host);
    }
    size_t consumed = 0;
    const size_t produced = d_work->step(
        input_items[0],
        ninput_items[0],
        d_pipeline->max_input_samples(),
        noutput_items,
        1,
        consumed,
        [&](const gr_complex* chunk, size_t, size_t first, size_t count, size_t at) {
            d_work->move_out(chunk, first, count, 0, output_items[0], at);
        });
    propagate_tags(consumed, produced, output_items.size());
    this->consume(0, int(consumed));
    return int(produced);
}

template class fft_filter<gr_complex>;
template class fft_filter<float>;
template class fft_filter_impl<gr_complex>;
template class fft_filter_impl<float>;

} // namespace wideband
} // namespace gr
