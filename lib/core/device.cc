/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fault_injection.h"
#include "kernel_sources.h"
#include "program_cache.h"
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/environment.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace wideband {
namespace core {

namespace {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    return s;
}

std::string trim(const std::string& s)
{
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos)
        return "";
    const auto e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

std::string clean(std::string s)
{
    while (!s.empty() && (s.back() == '\0' || s.back() == ' '))
        s.pop_back();
    return trim(s);
}

const char* no_platform_help =
    "no OpenCL platform found. Install an OpenCL driver (ICD): for the CPU, "
    "'apt-get install pocl-opencl-icd'; for a GPU, the vendor's OpenCL runtime "
    "(NVIDIA: the driver's libnvidia-opencl.so.1 listed in "
    "/etc/OpenCL/vendors/nvidia.icd; "
    "in containers without that file: mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 "
    "> /tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd). "
    "Check with 'clinfo' or 'wideband_devices'.";

struct enumerated {
    device_info info;
    cl::Device device;
};

std::vector<enumerated> enumerate()
{
    // One at a time: the ICD loader's first clGetPlatformIDs is not thread-safe
    // (ocl-icd 2.3: concurrent first calls found no platform, or crashed).
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<enumerated> all;
    std::vector<cl::Platform> platforms;
    try {
        cl::Platform::get(&platforms);
    } catch (const cl::Error&) {
        return all; // CL_PLATFORM_NOT_FOUND_KHR: no ICD installed
    }
    for (size_t p = 0; p < platforms.size(); ++p) {
        std::vector<cl::Device> devices;
        try {
            platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices);
        } catch (const cl::Error&) {
            continue; // a platform without devices
        }
        const std::string platform_name = clean(platforms[p].getInfo<CL_PLATFORM_NAME>());
        for (size_t d = 0; d < devices.size(); ++d) {
            const cl::Device& dev = devices[d];
            device_info i;
            i.platform_index = p;
            i.device_index = d;
            i.platform_name = platform_name;
            i.name = clean(dev.getInfo<CL_DEVICE_NAME>());
            i.vendor = clean(dev.getInfo<CL_DEVICE_VENDOR>());
            i.version = clean(dev.getInfo<CL_DEVICE_VERSION>());
            i.driver_version = clean(dev.getInfo<CL_DRIVER_VERSION>());
            i.opencl_c_version = clean(dev.getInfo<CL_DEVICE_OPENCL_C_VERSION>());
            i.type = dev.getInfo<CL_DEVICE_TYPE>();
            i.compute_units = dev.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
            i.max_clock_mhz = dev.getInfo<CL_DEVICE_MAX_CLOCK_FREQUENCY>();
            i.max_work_group_size = dev.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
            i.local_mem_bytes = dev.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
            i.local_mem_is_dedicated =
                dev.getInfo<CL_DEVICE_LOCAL_MEM_TYPE>() == CL_LOCAL;
            i.global_mem_bytes = dev.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
            i.max_alloc_bytes = dev.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
            i.max_constant_bytes = dev.getInfo<CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE>();
            i.host_unified_memory = dev.getInfo<CL_DEVICE_HOST_UNIFIED_MEMORY>();
            all.push_back({ i, dev });
        }
    }
    return all;
}

bool parse_index_pair(const std::string& s, size_t& p, size_t& d)
{
    const auto colon = s.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == s.size())
        return false;
    const std::string a = s.substr(0, colon), b = s.substr(colon + 1);
    auto digits = [](const std::string& t) {
        return !t.empty() && t.size() < 6 &&
               std::all_of(
                   t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c); });
    };
    if (!digits(a) || !digits(b))
        return false;
    p = std::stoul(a);
    d = std::stoul(b);
    return true;
}

std::string available_list(const std::vector<enumerated>& all)
{
    std::ostringstream s;
    for (const auto& e : all)
        s << "\n  " << e.info.address() << "  " << e.info.type_name() << "  "
          << e.info.name << " (" << e.info.platform_name << ")";
    return s.str();
}

const char* const single_forms =
    "\"\" (automatic), \"gpu\", \"cpu\", \"accelerator\", \"P:D\" (platform and "
    "device index, e.g. \"0:1\") or part of a device name";
const char* const several_forms =
    "\"all\", \"gpu:all\", \"cpu:all\", \"accelerator:all\" or a comma-separated "
    "list of device strings (e.g. \"0:0,0:1\")";

bool parse_type(const std::string& s, cl_device_type& type)
{
    if (s == "gpu")
        type = CL_DEVICE_TYPE_GPU;
    else if (s == "cpu")
        type = CL_DEVICE_TYPE_CPU;
    else if (s == "accelerator")
        type = CL_DEVICE_TYPE_ACCELERATOR;
    else
        return false;
    return true;
}

std::vector<const enumerated*> of_type(const std::vector<enumerated>& all,
                                       cl_device_type type)
{
    std::vector<const enumerated*> found;
    for (const auto& e : all)
        if (e.info.type & type)
            found.push_back(&e);
    return found;
}

// The devices of the type "" prefers: GPUs, else accelerators, else CPUs, else all.
std::vector<const enumerated*> automatic_choice(const std::vector<enumerated>& all)
{
    for (cl_device_type type :
         { CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_CPU }) {
        auto found = of_type(all, type);
        if (!found.empty())
            return found;
    }
    std::vector<const enumerated*> every;
    for (const auto& e : all)
        every.push_back(&e);
    return every;
}

// Whether a (trimmed, lower-case) device string uses a several-device form.
bool names_several(const std::string& spec)
{
    const std::string suffix = ":all";
    return spec.find(',') != std::string::npos || spec == "all" ||
           (spec.size() > suffix.size() &&
            spec.compare(spec.size() - suffix.size(), suffix.size(), suffix) == 0);
}

/*
 * Resolves one device string of find_device()'s forms (trimmed, lower-case);
 * `named` says where it came from and `allowed` what the forms are, for messages.
 */
const enumerated& resolve_one(const std::vector<enumerated>& all,
                              const std::string& spec,
                              const std::string& named,
                              const std::string& allowed)
{
    cl_device_type type = 0;
    size_t p = 0, d = 0;
    if (spec.empty() || spec == "auto" || spec == "default")
        return *automatic_choice(all).front();
    if (parse_type(spec, type)) {
        const auto found = of_type(all, type);
        if (found.empty())
            throw std::invalid_argument(
                named + ": this machine has no " + spec +
                " OpenCL device; available:" + available_list(all));
        return *found.front();
    }
    if (spec.find(':') != std::string::npos) {
        if (!parse_index_pair(spec, p, d))
            throw std::invalid_argument(named + " is malformed: use " + allowed +
                                        "; available:" + available_list(all));
        for (const auto& e : all)
            if (e.info.platform_index == p && e.info.device_index == d)
                return e;
        throw std::invalid_argument(
            named + ": no such platform:device; available:" + available_list(all));
    }
    for (const auto& e : all)
        if (lower(e.info.name).find(spec) != std::string::npos ||
            lower(e.info.platform_name).find(spec) != std::string::npos)
            return e;
    throw std::invalid_argument(
        named + " matches no OpenCL device name; available:" + available_list(all));
}

// One entry of a several-device string: "all", "TYPE:all" or a single device.
std::vector<const enumerated*> resolve_entry(const std::vector<enumerated>& all,
                                             const std::string& entry,
                                             const std::string& named,
                                             const std::string& allowed)
{
    if (entry == "all")
        return automatic_choice(all);
    const size_t colon = entry.rfind(':');
    if (colon != std::string::npos && entry.substr(colon + 1) == "all") {
        const std::string type_name = entry.substr(0, colon);
        cl_device_type type = 0;
        if (!parse_type(type_name, type))
            throw std::invalid_argument(named +
                                        " is malformed: \":all\" follows gpu, "
                                        "cpu or accelerator; use " +
                                        allowed + "; available:" + available_list(all));
        auto found = of_type(all, type);
        if (found.empty())
            throw std::invalid_argument(
                named + ": this machine has no " + type_name +
                " OpenCL device; available:" + available_list(all));
        return found;
    }
    return { &resolve_one(all, entry, named, allowed) };
}

// Where a device string came from, so that a bad WIDEBAND_DEVICE is recognisable.
std::string origin(const std::string& requested, const std::string& effective)
{
    return effective == requested ? "device \"" + requested + "\""
                                  : "WIDEBAND_DEVICE=\"" + effective + "\"";
}

// Resolves a device string naming one device; throws as documented in device.h.
const enumerated& resolve(const std::vector<enumerated>& all,
                          const std::string& requested)
{
    const std::string effective = effective_device_spec(requested);
    const std::string spec = lower(trim(effective));
    const std::string named = origin(requested, effective);
    if (all.empty())
        throw std::runtime_error(std::string("gr-wideband: ") + no_platform_help);
    if (names_several(spec))
        throw std::invalid_argument(named +
                                    " names several devices, but one is needed here: "
                                    "use " +
                                    std::string(single_forms) +
                                    "; available:" + available_list(all));
    return resolve_one(all, spec, named, single_forms);
}

// Resolves a device string naming one or more devices (find_devices()).
std::vector<const enumerated*> resolve_several(const std::vector<enumerated>& all,
                                               const std::string& requested)
{
    const std::string effective = effective_device_spec(requested);
    const std::string spec = lower(trim(effective));
    const std::string named = origin(requested, effective);
    if (all.empty())
        throw std::runtime_error(std::string("gr-wideband: ") + no_platform_help);
    const std::string allowed =
        std::string(single_forms) + ", or for several devices " + several_forms;
    if (!names_several(spec))
        return { &resolve_one(all, spec, named, allowed) };

    std::vector<std::string> entries;
    std::stringstream list(spec);
    for (std::string entry; std::getline(list, entry, ',');)
        entries.push_back(trim(entry));
    if (spec.back() == ',') // getline drops a trailing empty entry
        entries.push_back("");
    std::vector<const enumerated*> devices;
    std::vector<std::string> named_by; // the entry of each device
    for (const std::string& entry : entries) {
        if (entry.empty())
            throw std::invalid_argument(named + " has an empty entry: use " + allowed +
                                        "; available:" + available_list(all));
        const std::string entry_named =
            entries.size() > 1 ? named + ", entry \"" + entry + "\"" : named;
        for (const enumerated* e : resolve_entry(all, entry, entry_named, allowed)) {
            const auto seen = std::find(devices.begin(), devices.end(), e);
            if (seen != devices.end())
                throw std::invalid_argument(
                    named + " names " + e->info.address() + " (" + e->info.name +
                    ") twice, as \"" + named_by[size_t(seen - devices.begin())] +
                    "\" and as \"" + entry +
                    "\": name each device once; available:" + available_list(all));
            devices.push_back(e);
            named_by.push_back(entry);
        }
    }
    return devices;
}

} // namespace

std::string device_info::type_name() const
{
    if (type & CL_DEVICE_TYPE_GPU)
        return "GPU";
    if (type & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
    if (type & CL_DEVICE_TYPE_CPU)
        return "CPU";
    return "other";
}

std::string device_info::address() const
{
    return std::to_string(platform_index) + ":" + std::to_string(device_index);
}

std::string effective_device_spec(const std::string& spec)
{
    if (trim(spec).empty()) {
        const std::string chosen = environment::device();
        if (!chosen.empty())
            return chosen;
    }
    return spec;
}

std::vector<device_info> list_devices()
{
    std::vector<device_info> out;
    for (const auto& e : enumerate())
        out.push_back(e.info);
    return out;
}

device_info find_device(const std::string& spec)
{
    const auto all = enumerate();
    return resolve(all, spec).info;
}

std::vector<device_info> find_devices(const std::string& spec)
{
    const auto all = enumerate();
    std::vector<device_info> found;
    for (const enumerated* e : resolve_several(all, spec))
        found.push_back(e->info);
    return found;
}

namespace {

// The one context of a device for the life of the process. Deliberately never
// destroyed: releasing OpenCL objects during static destruction, after some
// ICDs have unloaded, crashes at exit.
device_context::sptr context_of(const enumerated& e)
{
    static std::mutex registry_mutex;
    static auto* registry = new std::map<std::string, device_context::sptr>();
    // Indices can shift when ICDs change between runs, never within one.
    const std::string key = e.info.address() + "|" + e.info.name;
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = registry->find(key);
    if (it != registry->end())
        return it->second;
    auto ctx = std::make_shared<device_context>(e.info, e.device);
    registry->emplace(key, ctx);
    return ctx;
}

} // namespace

device_context::sptr device_context::get(const std::string& spec)
{
    const auto all = enumerate();
    return context_of(resolve(all, spec));
}

std::vector<device_context::sptr> device_context::get_all(const std::string& spec)
{
    const auto all = enumerate();
    std::vector<sptr> contexts;
    for (const enumerated* e : resolve_several(all, spec))
        contexts.push_back(context_of(*e));
    return contexts;
}

device_context::device_context(const device_info& info, const cl::Device& device)
    : d_info(info), d_device(device)
{
    try {
        d_context = cl::Context(d_device);
    } catch (const cl::Error& err) {
        throw std::runtime_error("gr-wideband: cannot create an OpenCL context on " +
                                 d_info.name + ": " + cl_error_name(err.err()));
    }
}

cl::CommandQueue device_context::create_queue(bool profiling) const
{
    return cl::CommandQueue(d_context,
                            d_device,
                            profiling ? CL_QUEUE_PROFILING_ENABLE
                                      : cl_command_queue_properties(0));
}

cl::Program device_context::program(const std::string& source_name,
                                    const std::string& options)
{
    const std::string key = source_name + '\n' + options;
    std::lock_guard<std::mutex> lock(d_mutex);
    auto it = d_programs.find(key);
    if (it != d_programs.end())
        return it->second;
    cl::Program prog = build_program(source_name, options);
    d_programs.emplace(key, prog);
    return prog;
}

cl::Program device_context::build_program(const std::string& source_name,
                                          const std::string& plan_options)
{
    // Developers' knobs: extra compiler options (e.g. -cl-nv-verbose) and the
    // compiler's log of every build on stderr (register use, spills).
    const std::string extra = environment::build_options();
    const std::string options = plan_options + (extra.empty() ? "" : " " + extra);
    const bool show_log = environment::build_log();

    const std::string source = kernel_source(source_name);
    program_cache disk(d_info, source, options);
    const bool injected_failure = fault::build_fails(options);

    if (auto binary = injected_failure ? std::nullopt : disk.load()) {
        try {
            cl::Program prog(d_context, { d_device }, { *binary });
            prog.build({ d_device }, options.c_str());
            ++d_disk_loads;
            return prog;
        } catch (const cl::Error&) {
            // stale or foreign binary: fall through and compile from source
        }
    }

    cl::Program prog(d_context, source);
    try {
        if (injected_failure)
            throw cl::Error(CL_BUILD_PROGRAM_FAILURE, "clBuildProgram");
        prog.build({ d_device }, options.c_str());
    } catch (const cl::Error& err) {
        std::string log =
            injected_failure ? "(none: failure injected by WIDEBAND_FAULT=build)" : "";
        try {
            if (!injected_failure)
                log = prog.getBuildInfo<CL_PROGRAM_BUILD_LOG>(d_device);
        } catch (const cl::Error&) {
        }
        throw std::runtime_error("gr-wideband: OpenCL build of kernels/" + source_name +
                                 " failed on " + d_info.name + " (" +
                                 cl_error_name(err.err()) + ") with options [" + options +
                                 "]. Compiler log:\n" + log);
    }
    ++d_compilations;
    if (show_log)
        std::cerr << "gr-wideband: build log of kernels/" << source_name << " ["
                  << options << "]:\n"
                  << prog.getBuildInfo<CL_PROGRAM_BUILD_LOG>(d_device) << std::endl;
    try {
        const auto binaries = prog.getInfo<CL_PROGRAM_BINARIES>();
        if (!binaries.empty())
            disk.store(binaries.front());
    } catch (const cl::Error&) {
        // a driver that cannot return binaries only costs start-up time
    }
    return prog;
}

cl::Kernel device_context::kernel(const std::string& source_name,
                                  const std::string& options,
                                  const std::string& kernel_name)
{
    cl::Program prog = program(source_name, options);
    std::lock_guard<std::mutex> lock(d_mutex);
    return cl::Kernel(prog, kernel_name.c_str());
}

size_t device_context::compilations() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_compilations;
}

size_t device_context::disk_cache_loads() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_disk_loads;
}

void check_buffer_fits(const device_info& device, const std::string& what, uint64_t bytes)
{
    constexpr uint64_t index_limit = (uint64_t(1) << 32) * 8; // complex samples
    const bool too_large = bytes > device.max_alloc_bytes;
    if (!too_large && bytes < index_limit)
        return;
    throw std::invalid_argument(
        what + " needs a device buffer of " + std::to_string(bytes) + " bytes; " +
        (too_large ? device.name + " allocates at most " +
                         std::to_string(device.max_alloc_bytes) + " bytes per buffer"
                   : std::string("the kernels index fewer than 2^32 samples (") +
                         std::to_string(index_limit) + " bytes) per buffer"));
}

std::string cl_error_name(cl_int err)
{
    const char* name = "unknown OpenCL error";
    switch (err) {
#define WB_CL_ERR(e) \
    case e:          \
        name = #e;   \
        break;
        WB_CL_ERR(CL_DEVICE_NOT_FOUND)
        WB_CL_ERR(CL_DEVICE_NOT_AVAILABLE)
        WB_CL_ERR(CL_COMPILER_NOT_AVAILABLE)
        WB_CL_ERR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        WB_CL_ERR(CL_OUT_OF_RESOURCES)
        WB_CL_ERR(CL_OUT_OF_HOST_MEMORY)
        WB_CL_ERR(CL_PROFILING_INFO_NOT_AVAILABLE)
        WB_CL_ERR(CL_BUILD_PROGRAM_FAILURE)
        WB_CL_ERR(CL_INVALID_VALUE)
        WB_CL_ERR(CL_INVALID_DEVICE)
        WB_CL_ERR(CL_INVALID_CONTEXT)
        WB_CL_ERR(CL_INVALID_COMMAND_QUEUE)
        WB_CL_ERR(CL_INVALID_MEM_OBJECT)
        WB_CL_ERR(CL_INVALID_BINARY)
        WB_CL_ERR(CL_INVALID_BUILD_OPTIONS)
        WB_CL_ERR(CL_INVALID_PROGRAM)
        WB_CL_ERR(CL_INVALID_KERNEL_NAME)
        WB_CL_ERR(CL_INVALID_KERNEL)
        WB_CL_ERR(CL_INVALID_ARG_INDEX)
        WB_CL_ERR(CL_INVALID_ARG_VALUE)
        WB_CL_ERR(CL_INVALID_ARG_SIZE)
        WB_CL_ERR(CL_INVALID_KERNEL_ARGS)
        WB_CL_ERR(CL_INVALID_WORK_GROUP_SIZE)
        WB_CL_ERR(CL_INVALID_WORK_ITEM_SIZE)
        WB_CL_ERR(CL_INVALID_GLOBAL_OFFSET)
        WB_CL_ERR(CL_INVALID_EVENT_WAIT_LIST)
        WB_CL_ERR(CL_INVALID_EVENT)
        WB_CL_ERR(CL_INVALID_BUFFER_SIZE)
        WB_CL_ERR(CL_INVALID_GLOBAL_WORK_SIZE)
        WB_CL_ERR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        WB_CL_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
#undef WB_CL_ERR
    case -1001:
        name = "CL_PLATFORM_NOT_FOUND_KHR";
        break;
    default:
        break;
    }
    return std::string(name) + " (" + std::to_string(err) + ")";
}

} // namespace core
} // namespace wideband
} // namespace gr
