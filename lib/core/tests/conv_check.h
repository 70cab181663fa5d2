/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_TESTS_CONV_CHECK_H
#define INCLUDED_WIDEBAND_CORE_TESTS_CONV_CHECK_H

/*
 * Shared by the convolution tests (qa_fft_convolution, qa_fft_filter,
 * qa_batched_convolution): the test device and queue, NaN poison, accuracy
 * against a float64 reference (reference.h) and rejected calls. Header only, so
 * that a test needs no FFTW for it.
 */

#include "reference.h"
#include "test_support.h"

#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/sample_format.h>
#include <gnuradio/wideband/core/stream_engine.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace conv_check {

namespace core = gr::wideband::core;
using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

/*
 * Per-element bound, as fft_check.cc argues: float32 rounding errors of these
 * outputs are sums of many small independent errors, close to complex
 * Gaussian, so P(|e| > t rms(e)) = exp(-t^2) and no honest error reaches 10
 * times its rms, which the L2 bound caps at bound * rms(ref). A wrong sample,
 * tap or phase in one output is an error of the order of rms(ref), which the
 * L2 error dilutes by the square root of the output count but this bound does not.
 */
constexpr double worst_point_factor = 10;

// Elements past the end of every output buffer, so that a write past it shows.
constexpr size_t tail_slack = 3;

using wideband_test::is_poison;
using wideband_test::poison_value;

//! Both parts poison: never written.
inline bool is_poison(const cfloat& v)
{
    return is_poison(v.real()) && is_poison(v.imag());
}
//! Either part poison: not (completely) written.
inline bool has_poison(const cfloat& v)
{
    return is_poison(v.real()) || is_poison(v.imag());
}

inline cfloat poison() { return cfloat(poison_value(), poison_value()); }

using wideband_test::context;
using wideband_test::queue;

using wideband_reference::random_reals;
using wideband_reference::random_signal;

template <class Sample>
cl::Buffer device_buffer(const std::vector<Sample>& host)
{
    cl::Buffer b(context()->context(),
                 CL_MEM_READ_WRITE,
                 std::max<size_t>(1, host.size()) * sizeof(Sample));
    if (!host.empty())
        queue().enqueueWriteBuffer(
            b, CL_TRUE, 0, host.size() * sizeof(Sample), host.data());
    return b;
}

//! A device buffer of \p elements elements, every one poison.
inline cl::Buffer poisoned_buffer(size_t elements)
{
    return device_buffer(std::vector<cfloat>(elements, poison()));
}

template <class Sample = cfloat>
std::vector<Sample> read_back(const cl::Buffer& b, size_t elements)
{
    std::vector<Sample> host(elements);
    if (elements)
        queue().enqueueReadBuffer(b, CL_TRUE, 0, elements * sizeof(Sample), host.data());
    return host;
}

struct accuracy {
    double relative_l2 = 0; //!< ||y - ref|| / ||ref||
    double worst_point = 0; //!< max_k |y_k - ref_k| / rms(ref)

    //! Keeps the worse of each; a NaN is worse than anything.
    void merge(const accuracy& a)
    {
        if (!(a.relative_l2 <= relative_l2))
            relative_l2 = a.relative_l2;
        if (!(a.worst_point <= worst_point))
            worst_point = a.worst_point;
    }
};

inline std::string format(const accuracy& a)
{
    std::ostringstream s;
    s << "relative L2 " << a.relative_l2 << ", worst element " << a.worst_point
      << " * rms";
    return s.str();
}

//! y against ref (same length); a non-finite y makes both figures NaN.
inline accuracy compare(const std::vector<cfloat>& y, const std::vector<cdouble>& ref)
{
    double err = 0, norm = 0, worst = 0;
    const size_t n = std::min(y.size(), ref.size());
    for (size_t k = 0; k < n; ++k) {
        const double e = std::abs(cdouble(y[k]) - ref[k]);
        err += e * e;
        norm += std::norm(ref[k]);
        worst = !(e <= worst) ? e : worst;
    }
    const double rms = std::sqrt(norm / double(std::max<size_t>(1, n)));
    return { std::sqrt(err / norm), worst / rms };
}

/*
 * y against its reference: the same count, relative L2 error <= bound, every
 * element within worst_point_factor * bound * rms(ref). Returns the accuracy.
 */
inline accuracy check_accuracy(const std::vector<cfloat>& y,
                               const std::vector<cdouble>& ref,
                               double bound,
                               const std::string& what)
{
    BOOST_CHECK_MESSAGE(y.size() == ref.size(),
                        what << ": " << y.size() << " outputs, expected " << ref.size());
    if (y.empty() || y.size() != ref.size())
        return {};
    const accuracy a = compare(y, ref);
    size_t non_finite = 0, first_bad = y.size();
    for (size_t k = 0; k < y.size(); ++k)
        if (!std::isfinite(y[k].real()) || !std::isfinite(y[k].imag())) {
            ++non_finite;
            first_bad = std::min(first_bad, k);
        }
    BOOST_CHECK_MESSAGE(non_finite == 0,
                        what << ": " << non_finite << " of " << y.size()
                             << " outputs are not finite, the first at " << first_bad);
    BOOST_CHECK_MESSAGE(a.relative_l2 <= bound,
                        what << ": relative L2 error " << a.relative_l2 << " > "
                             << bound);
    if (!(a.worst_point <= worst_point_factor * bound)) {
        double rms = 0;
        for (const auto& r : ref)
            rms += std::norm(r);
        rms = std::sqrt(rms / double(ref.size()));
        size_t at = 0;
        for (size_t k = 0; k < y.size(); ++k)
            if (!(std::abs(cdouble(y[k]) - ref[k]) <= worst_point_factor * bound * rms)) {
                at = k;
                break;
            }
        BOOST_ERROR(what << ": an element is off by " << a.worst_point
                         << " * rms(reference) > " << worst_point_factor * bound
                         << ", the first at " << at << ": " << y[at] << " vs "
                         << ref[at]);
    }
    return a;
}

//! The first element where a and b differ in their bits, or a.size() when none.
inline size_t first_difference(const std::vector<cfloat>& a, const std::vector<cfloat>& b)
{
    const size_t n = std::min(a.size(), b.size());
    for (size_t k = 0; k < n; ++k)
        if (std::memcmp(&a[k], &b[k], sizeof(cfloat)) != 0)
            return k;
    return a.size() == b.size() ? a.size() : n;
}

//! Bit for bit, with the first difference in the message.
inline void check_identical(const std::vector<cfloat>& a,
                            const std::vector<cfloat>& b,
                            const std::string& what)
{
    BOOST_CHECK_MESSAGE(a.size() == b.size(),
                        what << ": " << a.size() << " vs " << b.size() << " elements");
    const size_t k = first_difference(a, b);
    if (k < std::min(a.size(), b.size()))
        BOOST_ERROR(what << ": not bit-identical, first at element " << k << ": " << a[k]
                         << " vs " << b[k]);
}

//! \p action throws std::invalid_argument whose message contains every one of \p words.
inline void check_rejected(const std::function<void()>& action,
                           const std::vector<std::string>& words,
                           const std::string& what = "")
{
    try {
        action();
        BOOST_ERROR(what << (what.empty() ? "" : ": ")
                         << "accepted; expected std::invalid_argument naming '"
                         << words.front() << "'");
    } catch (const std::invalid_argument& e) {
        const std::string message = e.what();
        for (const auto& word : words)
            BOOST_TEST(message.find(word) != std::string::npos,
                       what << (what.empty() ? "" : ": ") << "'" << word
                            << "' not in: " << message);
    }
}

/*
 * Global fixture (BOOST_TEST_GLOBAL_FIXTURE(conv_check::compile_report)): logs
 * the module's time and the kernels it compiled or loaded from the disk cache,
 * what its run time on PoCL mostly is with empty caches.
 */
struct compile_report {
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    void setup() {}
    void teardown()
    {
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
                .count();
        BOOST_TEST_MESSAGE(
            s << " s; " << context()->compilations() << " kernel programs compiled, "
              << context()->disk_cache_loads() << " loaded from the disk cache, on "
              << context()->info().name);
    }
};

/*
 * \p count complex samples of an integer format (sc16, sc8) as the floats of
 * their values (exact), for the engines' integer inputs and the references:
 * uniform over the type's range, its extremes (-32768 and 32767 for int16)
 * among them, no part zero.
 */
inline std::vector<cfloat>
random_integer_signal(size_t count, core::sample_format format, uint32_t seed)
{
    const bool int16 = format == core::sample_format::sc16;
    const int lowest =
        int16 ? std::numeric_limits<int16_t>::min() : std::numeric_limits<int8_t>::min();
    const int highest =
        int16 ? std::numeric_limits<int16_t>::max() : std::numeric_limits<int8_t>::max();
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> value(lowest, highest);
    const auto part = [&] {
        const int v = value(rng);
        return float(v == 0 ? 1 : v);
    };
    std::vector<cfloat> x(count);
    for (auto& v : x)
        v = cfloat(part(), part());
    if (count > 1) {
        x[count / 3] = cfloat(float(lowest), float(highest));
        x[count / 2] = cfloat(float(highest), float(lowest));
    }
    return x;
}

/*
 * \p n samples as an engine of \p format takes them: complex float as they
 * are, interleaved int16 or int8 for sc16 and sc8 (\p x then holds integers
 * in range, as random_integer_signal() gives).
 */
inline std::vector<char> in_format(const cfloat* x, size_t n, core::sample_format format)
{
    std::vector<char> bytes(n * core::sample_bytes(format));
    if (n == 0) // no memcpy from or to the null data() of empty vectors
        return bytes;
    if (format == core::sample_format::fc32) {
        std::memcpy(bytes.data(), x, bytes.size());
        return bytes;
    }
    if (format == core::sample_format::f32) { // the real parts
        std::vector<float> reals(n);
        for (size_t i = 0; i < n; ++i)
            reals[i] = x[i].real();
        std::memcpy(bytes.data(), reals.data(), bytes.size());
        return bytes;
    }
    const auto pack = [&](auto zero) {
        using T = decltype(zero);
        std::vector<T> parts(2 * n);
        for (size_t i = 0; i < n; ++i) {
            parts[2 * i] = T(x[i].real());
            parts[2 * i + 1] = T(x[i].imag());
        }
        std::memcpy(bytes.data(), parts.data(), bytes.size());
    };
    if (format == core::sample_format::sc16)
        pack(int16_t(0));
    else
        pack(int8_t(0));
    return bytes;
}

/*
 * Writes the \p samples new samples of a call, x[at ..], to \p engine's input
 * region, in the engine's \p format (in_format()). With \p split the call
 * first continues the stream at \p at as several devices split it
 * (multi_device_pipeline): continue_at() and the history it asks for written in
 * front of the samples (zeros before the stream's start), nothing carried over
 * from the engine's last call.
 */
template <class Engine>
void write_call(Engine& engine,
                const std::vector<cfloat>& x,
                size_t at,
                size_t samples,
                bool split,
                core::sample_format format = core::sample_format::fc32)
{
    const cl::CommandQueue& q = queue();
    const size_t lead = split ? engine.continue_at(at) : 0;
    const auto r = engine.input_region();
    std::vector<cfloat> call(lead + samples, cfloat(0));
    for (size_t i = 0; i < call.size(); ++i)
        if (at + i >= lead)
            call[i] = x[at + i - lead];
    const std::vector<char> bytes = in_format(call.data(), call.size(), format);
    if (!bytes.empty())
        q.enqueueWriteBuffer(r.buffer,
                             CL_TRUE,
                             (r.offset - lead) * core::sample_bytes(format),
                             bytes.size(),
                             bytes.data());
}

/*
 * A call's \p n samples in the engine's \p format, written to its input
 * \p region without blocking (the call waits for events()). The bytes live as
 * long as this object, whose destruction waits for the write: a call that
 * throws leaves no write reading freed memory.
 */
class staged_write
{
public:
    staged_write(const cl::CommandQueue& queue,
                 const core::stream_engine::region& region,
                 const cfloat* x,
                 size_t n,
                 core::sample_format format)
        : d_bytes(in_format(x, n, format))
    {
        if (n > 0)
            queue.enqueueWriteBuffer(region.buffer,
                                     CL_FALSE,
                                     region.offset * core::sample_bytes(format),
                                     d_bytes.size(),
                                     d_bytes.data(),
                                     nullptr,
                                     &d_written);
    }
    ~staged_write()
    {
        if (d_written())
            d_written.wait();
    }
    staged_write(const staged_write&) = delete;
    staged_write& operator=(const staged_write&) = delete;

    std::vector<cl::Event> events() const
    {
        return d_written() ? std::vector<cl::Event>{ d_written }
                           : std::vector<cl::Event>{};
    }

private:
    std::vector<char> d_bytes;
    cl::Event d_written;
};

} // namespace conv_check

#endif /* INCLUDED_WIDEBAND_CORE_TESTS_CONV_CHECK_H */
