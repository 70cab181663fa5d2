/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The WIDEBAND_* environment variables (environment.h): every bad value
// refused with one line naming the variable and what it takes, good values and
// defaults as documented.

#define BOOST_TEST_MODULE qa_environment
#include <boost/test/unit_test.hpp>

#include "scoped_env.h"
#include <gnuradio/wideband/core/environment.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace env = gr::wideband::core::environment;

namespace {

// \p read throws std::invalid_argument starting "NAME=value: wants <wanted>",
// on one line, and so does check().
void check_refused(const char* name,
                   const std::string& value,
                   const std::string& wanted,
                   const std::function<void()>& read)
{
    const scoped_env bad(name, value);
    const std::string expected = std::string(name) + "=" + value + ": wants " + wanted;
    for (const auto& call : { read, std::function<void()>(env::check) }) {
        try {
            call();
            BOOST_ERROR(name << "=" << value << " was taken");
        } catch (const std::invalid_argument& e) {
            const std::string message = e.what();
            BOOST_TEST(message.rfind(expected, 0) == 0u, message);
            BOOST_TEST(message.find('\n') == std::string::npos, message);
        }
    }
}

const std::vector<std::string> bad_integers = {
    "-1", "0", "abc", "", " 5", "5 ", "+5", "1e3", "0x10", "3.0", "18446744073709551616"
};

// \p read gives the variable's value when it is set.
void check_integer(const env::integer_variable& variable,
                   const std::function<size_t()>& read)
{
    const std::string wanted = "an integer from " + std::to_string(variable.lowest) +
                               " to " + std::to_string(variable.highest);
    std::vector<std::string> bad = { "-1", "0",   "abc",  " 5",  "5 ",
                                     "+5", "1e3", "0x10", "3.0", "18446744073709551616" };
    bad.push_back(std::to_string(variable.lowest - 1));
    bad.push_back(std::to_string(variable.highest + 1));
    for (const std::string& value : bad)
        check_refused(variable.name, value, wanted, [&] { read(); });
    for (const uint64_t good : { variable.lowest, variable.highest }) {
        const scoped_env set(variable.name, std::to_string(good));
        BOOST_TEST(read() == good);
        BOOST_CHECK_NO_THROW(env::check());
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(integers)
{
    check_integer(env::chunk_samples_variable,
                  [] { return env::chunk_samples().value(); });
    check_integer(env::copy_threads_variable, [] { return env::copy_threads().value(); });
    check_integer(env::pipeline_depth_variable, env::pipeline_depth);
    // unset or empty: the defaults
    for (const auto& unset :
         { std::optional<std::string>(), std::optional<std::string>("") }) {
        const scoped_env chunk("WIDEBAND_CHUNK_SAMPLES", unset);
        const scoped_env threads("WIDEBAND_COPY_THREADS", unset);
        const scoped_env depth("WIDEBAND_PIPELINE_DEPTH", unset);
        BOOST_TEST(!env::chunk_samples().has_value());
        BOOST_TEST(!env::copy_threads().has_value());
        BOOST_TEST(env::pipeline_depth() == env::default_pipeline_depth);
    }
}

BOOST_AUTO_TEST_CASE(flags)
{
    for (const char* name : { "WIDEBAND_PROFILE", "WIDEBAND_BUILD_LOG" }) {
        const auto read = [name] {
            return std::string(name) == "WIDEBAND_PROFILE" ? env::profile()
                                                           : env::build_log();
        };
        for (const char* value : { "-1", "2", "yes", "on", "true", " 1", "01" })
            check_refused(name, value, "0 or 1", read);
        for (const auto& [value, on] : std::vector<std::pair<std::string, bool>>{
                 { "1", true }, { "0", false }, { "", false } }) {
            const scoped_env set(name, value);
            BOOST_TEST(read() == on);
        }
        const scoped_env clear(name, std::nullopt);
        BOOST_TEST(!read());
    }
}

BOOST_AUTO_TEST_CASE(fault)
{
    using kind = env::fault_setting::kind;
    const std::string wanted =
        "build, build:TEXT or enqueue:N with N an integer from 1 to " +
        std::to_string(env::max_fault_call);
    for (const char* value : { "enqueue:0",
                               "enqueue:-1",
                               "enqueue:abc",
                               "enqueue:",
                               "enqueue:1000000001",
                               "enqueue:18446744073709551616",
                               "enqueue",
                               "builds",
                               "build:",
                               "BUILD" })
        check_refused("WIDEBAND_FAULT", value, wanted, [] { env::fault(); });
    {
        const scoped_env set("WIDEBAND_FAULT", "enqueue:7");
        BOOST_TEST((env::fault() == env::fault_setting{ kind::enqueue, 7, "" }));
    }
    {
        const scoped_env set("WIDEBAND_FAULT", "build");
        BOOST_TEST((env::fault() == env::fault_setting{ kind::build, 0, "" }));
    }
    {
        const scoped_env set("WIDEBAND_FAULT", "build:-DEXCHANGE_PARTS=1");
        BOOST_TEST(
            (env::fault() == env::fault_setting{ kind::build, 0, "-DEXCHANGE_PARTS=1" }));
    }
    const scoped_env clear("WIDEBAND_FAULT", std::nullopt);
    BOOST_TEST((env::fault().what == kind::none));
}

BOOST_AUTO_TEST_CASE(fft_tune)
{
    const std::string wanted = "key=value entries separated by commas";
    for (const char* value : { "wg=0",
                               "wg=4097",
                               "wg=abc",
                               "local=1023",
                               "pad=17",
                               "min_group=0",
                               "threads=0",
                               "twiddles=x",
                               "direct=2",
                               "powers=yes",
                               "resident=on",
                               "bluestein=2",
                               "handoff=yes",
                               "unknown=1",
                               "wg",
                               "wg=64,,pad=2",
                               "wg=64;pad=2" })
        check_refused("WIDEBAND_FFT_TUNE", value, wanted, [] { env::fft_tune(); });
    const scoped_env set("WIDEBAND_FFT_TUNE",
                         "local=32768,wg=64,pad=0,min_group=2,threads=512,"
                         "twiddles=global,direct=0,powers=1,registers=131072,resident=0,"
                         "bluestein=pow2,handoff=0");
    const env::fft_tuning tuning = env::fft_tune();
    BOOST_TEST(tuning.local_bytes.value() == 32768u);
    BOOST_TEST(tuning.group_size.value() == 64u);
    BOOST_TEST(tuning.pad_shift.value() == 0u);
    BOOST_TEST(tuning.min_strided_group.value() == 2u);
    BOOST_TEST(tuning.max_transform_threads.value() == 512u);
    BOOST_TEST(!tuning.constant_twiddles.value());
    BOOST_TEST(!tuning.allow_direct.value());
    BOOST_TEST(tuning.twiddle_powers.value());
    BOOST_TEST(tuning.register_file.value() == 131072u);
    BOOST_TEST(!tuning.register_resident.value());
    BOOST_TEST(!tuning.bluestein_smooth.value());
    BOOST_TEST(!tuning.register_handoff.value());
    const scoped_env one("WIDEBAND_FFT_TUNE", "wg=128");
    BOOST_TEST(!env::fft_tune().local_bytes.has_value());
}

BOOST_AUTO_TEST_CASE(text)
{
    {
        const scoped_env set("WIDEBAND_KERNEL_CACHE", "/tmp/some cache");
        BOOST_TEST(env::kernel_cache().value() == "/tmp/some cache");
    }
    for (const char* off : { "off", "OFF", "none", "0" }) {
        const scoped_env set("WIDEBAND_KERNEL_CACHE", off);
        BOOST_TEST(env::kernel_cache().value() == "");
    }
    {
        const scoped_env clear("WIDEBAND_KERNEL_CACHE", std::nullopt);
        BOOST_TEST(!env::kernel_cache().has_value());
    }
    const scoped_env device("WIDEBAND_DEVICE", "cpu");
    BOOST_TEST(env::device() == "cpu");
    const scoped_env options("WIDEBAND_BUILD_OPTIONS", "-cl-fast-relaxed-math");
    BOOST_TEST(env::build_options() == "-cl-fast-relaxed-math");
}
