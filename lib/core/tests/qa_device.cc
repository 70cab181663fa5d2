/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Device selection, the shared device context and its program caches.

#define BOOST_TEST_MODULE qa_device
#include <boost/test/unit_test.hpp>

#include "scoped_env.h"

#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/fft_plan.h>

#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace core = gr::wideband::core;
namespace fs = std::filesystem;

namespace {

std::vector<core::device_info> devices()
{
    const auto all = core::list_devices();
    BOOST_TEST_REQUIRE(
        !all.empty(), "no OpenCL device: install an OpenCL driver, e.g. pocl-opencl-icd");
    return all;
}

bool same_device(const core::device_info& a, const core::device_info& b)
{
    return a.platform_index == b.platform_index && a.device_index == b.device_index &&
           a.name == b.name;
}

std::string lower(std::string s)
{
    for (auto& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string upper(std::string s)
{
    for (auto& c : s)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

const core::device_info* first_of_type(const std::vector<core::device_info>& all,
                                       cl_device_type type)
{
    for (const auto& d : all)
        if (d.type & type)
            return &d;
    return nullptr;
}

// Whether one line of message names both the address and the name of d.
bool lists(const std::string& message, const core::device_info& d)
{
    std::istringstream lines(message);
    std::string line;
    while (std::getline(lines, line))
        if (line.find(d.address()) != std::string::npos &&
            line.find(d.name) != std::string::npos)
            return true;
    return false;
}

// find_device(spec) throws std::invalid_argument naming spec and listing every device.
void check_rejected_with_device_list(const std::string& spec)
{
    BOOST_TEST_CONTEXT("spec \"" << spec << "\"")
    {
        try {
            core::find_device(spec);
            BOOST_ERROR("accepted");
        } catch (const std::invalid_argument& e) {
            const std::string message = e.what();
            BOOST_TEST(message.find("\"" + spec + "\"") != std::string::npos, message);
            for (const auto& d : core::list_devices())
                BOOST_TEST(lists(message, d),
                           "device " << d.address() << " " << d.name
                                     << " not listed in: " << message);
        }
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(list_devices_describes_each_device)
{
    for (const auto& d : devices()) {
        BOOST_TEST_CONTEXT(d.address() << " " << d.name)
        {
            BOOST_TEST(d.address() == std::to_string(d.platform_index) + ":" +
                                          std::to_string(d.device_index));
            BOOST_TEST(!d.name.empty());
            BOOST_TEST(!d.platform_name.empty());
            BOOST_TEST(d.max_work_group_size >= 1u);
            BOOST_TEST(d.local_mem_bytes > 0u);
            BOOST_TEST(d.global_mem_bytes > 0u);
            const std::string type = d.type_name();
            BOOST_TEST((type == "GPU" || type == "CPU" || type == "accelerator" ||
                        type == "other"));
        }
    }
}

BOOST_AUTO_TEST_CASE(empty_spec_prefers_gpu_then_accelerator_then_cpu)
{
    const scoped_env no_override("WIDEBAND_DEVICE", std::nullopt);
    const auto all = devices();
    const core::device_info* expected = first_of_type(all, CL_DEVICE_TYPE_GPU);
    if (!expected)
        expected = first_of_type(all, CL_DEVICE_TYPE_ACCELERATOR);
    if (!expected)
        expected = first_of_type(all, CL_DEVICE_TYPE_CPU);
    if (!expected)
        expected = &all.front();
    BOOST_TEST(same_device(core::find_device(""), *expected));
    BOOST_TEST(core::effective_device_spec("") == "");
}

BOOST_AUTO_TEST_CASE(type_names_select_the_first_device_of_the_type)
{
    const auto all = devices();
    const std::pair<const char*, cl_device_type> types[] = {
        { "gpu", CL_DEVICE_TYPE_GPU },
        { "CPU", CL_DEVICE_TYPE_CPU },
        { "accelerator", CL_DEVICE_TYPE_ACCELERATOR }
    };
    for (const auto& [spec, type] : types) {
        if (const core::device_info* expected = first_of_type(all, type))
            BOOST_TEST(same_device(core::find_device(spec), *expected), spec);
        else
            check_rejected_with_device_list(spec);
    }
}

BOOST_AUTO_TEST_CASE(addresses_select_exactly_their_device)
{
    for (const auto& d : devices())
        BOOST_TEST(same_device(core::find_device(d.address()), d), d.address());
    BOOST_TEST(core::find_device("0:0").platform_index == 0u);
    BOOST_TEST(core::find_device("0:0").device_index == 0u);
}

BOOST_AUTO_TEST_CASE(name_substrings_select_the_first_matching_device)
{
    const auto all = devices();
    for (const auto& d : all) {
        // A piece from the middle of the name, in the other case.
        const std::string piece = upper(d.name.substr(d.name.size() / 3, 4));
        const core::device_info* expected = nullptr;
        for (const auto& e : all)
            if (!expected &&
                (lower(e.name).find(lower(piece)) != std::string::npos ||
                 lower(e.platform_name).find(lower(piece)) != std::string::npos))
                expected = &e;
        BOOST_TEST_REQUIRE(expected);
        BOOST_TEST(same_device(core::find_device(piece), *expected), piece);
    }
}

BOOST_AUTO_TEST_CASE(unknown_devices_are_rejected_with_the_device_list)
{
    devices();
    check_rejected_with_device_list("no such device name");
    check_rejected_with_device_list("99:0");
    check_rejected_with_device_list("0:99");
}

BOOST_AUTO_TEST_CASE(malformed_specs_are_rejected_with_the_device_list)
{
    devices();
    for (const char* spec : { "x:1", "1:", ":1", "1:x", "0:0:0", "-1:0", ":" })
        check_rejected_with_device_list(spec);
}

BOOST_AUTO_TEST_CASE(wideband_device_overrides_the_empty_spec)
{
    const auto all = devices();
    const core::device_info& last = all.back();
    {
        const scoped_env pick("WIDEBAND_DEVICE", last.address());
        BOOST_TEST(core::effective_device_spec("") == last.address());
        BOOST_TEST(same_device(core::find_device(""), last));
        // An explicit spec wins over the variable.
        BOOST_TEST(core::effective_device_spec("0:0") == "0:0");
        BOOST_TEST(same_device(core::find_device("0:0"), all.front()));
    }
    {
        const scoped_env pick("WIDEBAND_DEVICE", "no such device name");
        BOOST_CHECK_THROW(core::find_device(""), std::invalid_argument);
    }
    {
        const scoped_env empty("WIDEBAND_DEVICE", "");
        BOOST_TEST(core::effective_device_spec("") == "");
    }
}

BOOST_AUTO_TEST_CASE(one_context_per_device)
{
    const auto first = core::device_context::get("");
    const core::device_info& info = first->info();
    BOOST_TEST(core::device_context::get(info.address()) == first);
    BOOST_TEST(core::device_context::get(upper(info.name)) == first);
    BOOST_TEST(same_device(info, core::find_device("")));
    BOOST_CHECK_THROW(core::device_context::get("x:1"), std::invalid_argument);

    const cl::CommandQueue profiling = first->create_queue(true);
    BOOST_TEST((profiling.getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_PROFILING_ENABLE) !=
               0u);
}

BOOST_AUTO_TEST_CASE(a_seen_plan_configuration_compiles_nothing)
{
    const auto context = core::device_context::get("");
    core::fft_options options;
    options.batch = 3;
    options.direction = core::fft_direction::inverse;
    // A length no other test of this program uses: its kernels are new here.
    const size_t n = 210;
    const size_t compiled = context->compilations(), loaded = context->disk_cache_loads();
    core::fft_plan first(context, n, options);
    BOOST_TEST(context->compilations() + context->disk_cache_loads() > compiled + loaded);

    const size_t compiled_once = context->compilations(),
                 loaded_once = context->disk_cache_loads();
    core::fft_plan again(context, n, options);
    BOOST_TEST(context->compilations() == compiled_once);
    BOOST_TEST(context->disk_cache_loads() == loaded_once);
}

BOOST_AUTO_TEST_CASE(disk_cache_serves_a_new_context)
{
    const auto shared = core::device_context::get("");
    const char* test_cache = std::getenv("WIDEBAND_KERNEL_CACHE");
    const fs::path dir =
        fs::path(test_cache && *test_cache ? test_cache
                                           : fs::temp_directory_path().string()) /
        ("disk-cache-test-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    const scoped_env cache("WIDEBAND_KERNEL_CACHE", dir.string());
    auto fresh_context = [&] {
        return std::make_shared<core::device_context>(shared->info(), shared->device());
    };
    auto count_files = [&] {
        return fs::exists(dir) ? std::distance(fs::directory_iterator(dir), {}) : 0;
    };
    // One pass: one program.
    const size_t n = 64;

    const auto compiling = fresh_context();
    BOOST_TEST_REQUIRE(core::fft_plan(compiling, n).launches() == 1u);
    BOOST_TEST(compiling->compilations() == 1u);
    BOOST_TEST(compiling->disk_cache_loads() == 0u);
    BOOST_TEST(count_files() == 1);

    const auto loading = fresh_context();
    const core::fft_plan loaded(loading, n);
    BOOST_TEST(loading->compilations() == 0u);
    BOOST_TEST(loading->disk_cache_loads() == 1u);

    {
        const scoped_env off("WIDEBAND_KERNEL_CACHE", "off");
        const auto uncached = fresh_context();
        const core::fft_plan compiled(uncached, n);
        BOOST_TEST(uncached->compilations() == 1u);
        BOOST_TEST(uncached->disk_cache_loads() == 0u);
    }
    fs::remove_all(dir);
}

/*
 * WIDEBAND_FAULT=build (fault_injection.h): a new program fails as one the
 * compiler rejects, with the message of a real failure, even where the disk
 * cache holds it; programs this context built before stay in use; unset, the
 * same program builds. A malformed value names itself.
 */
BOOST_AUTO_TEST_CASE(injected_build_failure)
{
    const auto shared = core::device_context::get("");
    const auto context =
        std::make_shared<core::device_context>(shared->info(), shared->device());
    const size_t n = 96;
    const core::fft_plan built(context, n); // fills the disk cache too
    {
        const scoped_env fault("WIDEBAND_FAULT", "build");
        BOOST_CHECK_NO_THROW(core::fft_plan(context, n));
        const auto fresh =
            std::make_shared<core::device_context>(shared->info(), shared->device());
        try {
            core::fft_plan failing(fresh, n);
            BOOST_ERROR("a build succeeded under WIDEBAND_FAULT=build");
        } catch (const std::runtime_error& e) {
            const std::string message = e.what();
            for (const char* word : { "OpenCL build of kernels/",
                                      "CL_BUILD_PROGRAM_FAILURE",
                                      "WIDEBAND_FAULT=build" })
                BOOST_TEST(message.find(word) != std::string::npos, message);
        }
        BOOST_TEST(fresh->compilations() + fresh->disk_cache_loads() == 0u);
    }
    {
        const scoped_env fault("WIDEBAND_FAULT", "enqueue:0");
        BOOST_CHECK_EXCEPTION(
            core::fft_plan(
                std::make_shared<core::device_context>(shared->info(), shared->device()),
                n),
            std::invalid_argument,
            [](const std::invalid_argument& e) {
                return std::string(e.what()).find("WIDEBAND_FAULT=enqueue:0: wants") == 0;
            });
    }
    const auto later =
        std::make_shared<core::device_context>(shared->info(), shared->device());
    BOOST_CHECK_NO_THROW(core::fft_plan(later, n));
}

/*
 * check_buffer_fits(): up to the device's largest allocation and below 2^32
 * complex samples (the kernels' 32-bit indices), else std::invalid_argument
 * naming the buffer and the limit.
 */
BOOST_AUTO_TEST_CASE(buffers_beyond_the_device)
{
    core::device_info small = core::find_device("");
    small.max_alloc_bytes = 1 << 20;
    BOOST_CHECK_NO_THROW(core::check_buffer_fits(small, "x", 1 << 20));
    BOOST_CHECK_EXCEPTION(
        core::check_buffer_fits(small, "engine: its window", (1 << 20) + 1),
        std::invalid_argument,
        [&](const std::invalid_argument& e) {
            const std::string m = e.what();
            return m.find("engine: its window needs a device buffer "
                          "of 1048577 bytes") == 0 &&
                   m.find(small.name + " allocates at most 1048576") != std::string::npos;
        });
    core::device_info large = small;
    large.max_alloc_bytes = uint64_t(1) << 40;
    BOOST_CHECK_NO_THROW(core::check_buffer_fits(large, "x", (uint64_t(1) << 35) - 8));
    BOOST_CHECK_EXCEPTION(core::check_buffer_fits(large, "x", uint64_t(1) << 35),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              return std::string(e.what()).find("2^32 samples") !=
                                     std::string::npos;
                          });
}

BOOST_AUTO_TEST_CASE(cl_error_names)
{
    BOOST_TEST(core::cl_error_name(CL_OUT_OF_RESOURCES) == "CL_OUT_OF_RESOURCES (-5)");
    BOOST_TEST(core::cl_error_name(-1001) == "CL_PLATFORM_NOT_FOUND_KHR (-1001)");
    BOOST_TEST(core::cl_error_name(-12345).find("-12345") != std::string::npos);
}

// ---- device strings naming several devices (find_devices, get_all) --------

namespace {

std::vector<std::string> addresses(const std::vector<core::device_info>& devices)
{
    std::vector<std::string> a;
    for (const auto& d : devices)
        a.push_back(d.address());
    return a;
}

std::vector<std::string> addresses_of_type(cl_device_type type)
{
    std::vector<std::string> a;
    for (const auto& d : core::list_devices())
        if (d.type & type)
            a.push_back(d.address());
    return a;
}

// find_devices(spec) throws std::invalid_argument naming spec, containing
// `reason` and listing every device.
void check_several_rejected(const std::string& spec, const std::string& reason)
{
    BOOST_TEST_CONTEXT("spec \"" << spec << "\"")
    {
        try {
            core::find_devices(spec);
            BOOST_ERROR("accepted");
        } catch (const std::invalid_argument& e) {
            const std::string message = e.what();
            BOOST_TEST(message.find("\"" + spec + "\"") != std::string::npos, message);
            BOOST_TEST(message.find(reason) != std::string::npos, message);
            for (const auto& d : core::list_devices())
                BOOST_TEST(lists(message, d), d.address() << " not listed: " << message);
        }
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(single_device_strings_name_one_device_in_find_devices)
{
    const scoped_env no_override("WIDEBAND_DEVICE", std::nullopt);
    for (const auto& d : devices()) {
        const auto found = core::find_devices(d.address());
        BOOST_TEST_REQUIRE(found.size() == 1u);
        BOOST_TEST(same_device(found.front(), d));
    }
    const auto automatic = core::find_devices("");
    BOOST_TEST_REQUIRE(automatic.size() == 1u);
    BOOST_TEST(same_device(automatic.front(), core::find_device("")));
}

BOOST_AUTO_TEST_CASE(type_all_names_every_device_of_the_type)
{
    const std::pair<const char*, cl_device_type> types[] = {
        { "gpu:all", CL_DEVICE_TYPE_GPU },
        { "CPU:ALL", CL_DEVICE_TYPE_CPU },
        { "accelerator:all", CL_DEVICE_TYPE_ACCELERATOR }
    };
    for (const auto& [spec, type] : types) {
        const auto expected = addresses_of_type(type);
        if (expected.empty())
            check_several_rejected(spec, "this machine has no");
        else
            BOOST_TEST(addresses(core::find_devices(spec)) == expected, spec);
    }
    // "all": every device of the type the automatic choice prefers.
    std::vector<std::string> expected;
    for (cl_device_type type :
         { CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_CPU })
        if (expected.empty())
            expected = addresses_of_type(type);
    const auto all = core::find_devices("all");
    BOOST_TEST(addresses(all) == expected);
    BOOST_TEST(same_device(all.front(), core::find_device("auto")));
}

BOOST_AUTO_TEST_CASE(lists_name_their_devices_in_order)
{
    const auto all = devices();
    std::string forward, backward;
    for (size_t i = 0; i < all.size(); ++i) {
        forward += (i ? "," : "") + all[i].address();
        backward += (i ? ", " : "") + all[all.size() - 1 - i].address();
    }
    BOOST_TEST(addresses(core::find_devices(forward)) == addresses(all), forward);
    auto reversed = addresses(all);
    std::reverse(reversed.begin(), reversed.end());
    BOOST_TEST(addresses(core::find_devices(backward)) == reversed, backward);

    // One context per device, shared with get().
    const auto contexts = core::device_context::get_all(backward);
    BOOST_TEST_REQUIRE(contexts.size() == all.size());
    for (size_t i = 0; i < all.size(); ++i)
        BOOST_TEST(contexts[i] == core::device_context::get(reversed[i]));
}

BOOST_AUTO_TEST_CASE(bad_lists_are_rejected_saying_why)
{
    const auto all = devices();
    const std::string first = all.front().address();
    check_several_rejected(first + "," + first, "twice");
    check_several_rejected("all," + core::find_device("auto").address(), "twice");
    check_several_rejected(first + ",,", "empty entry");
    check_several_rejected("," + first, "empty entry");
    check_several_rejected(",", "empty entry");
    check_several_rejected("fast:all", "\":all\" follows gpu, cpu or accelerator");
    check_several_rejected(first + ",99:0", "entry \"99:0\": no such platform:device");
    check_several_rejected(first + ",x:1", "entry \"x:1\" is malformed");
    check_several_rejected(first + ",no such device name", "matches no OpenCL device");
}

BOOST_AUTO_TEST_CASE(single_device_functions_reject_several_devices)
{
    const std::string first = devices().front().address();
    const std::vector<std::string> specs = { "all", "cpu:all", first + "," + first };
    for (const std::string& spec : specs) {
        check_rejected_with_device_list(spec);
        try {
            core::device_context::get(spec);
            BOOST_ERROR(spec << ": accepted");
        } catch (const std::invalid_argument& e) {
            BOOST_TEST(std::string(e.what()).find("names several devices") !=
                           std::string::npos,
                       e.what());
        }
    }
}

BOOST_AUTO_TEST_CASE(wideband_device_may_name_several_devices)
{
    const auto all = devices();
    const scoped_env pick("WIDEBAND_DEVICE", all.back().address() + ",0:0");
    if (all.size() == 1) { // the one device twice
        BOOST_CHECK_THROW(core::find_devices(""), std::invalid_argument);
        return;
    }
    const auto found = core::find_devices("");
    BOOST_TEST_REQUIRE(found.size() == 2u);
    BOOST_TEST(same_device(found[0], all.back()));
    BOOST_TEST(same_device(found[1], all.front()));
    // Single-device users name the variable in their message.
    try {
        core::find_device("");
        BOOST_ERROR("accepted");
    } catch (const std::invalid_argument& e) {
        BOOST_TEST(std::string(e.what()).find("WIDEBAND_DEVICE=") != std::string::npos,
                   e.what());
    }
}
