/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_DEVICE_H
#define INCLUDED_WIDEBAND_CORE_DEVICE_H

#include <gnuradio/wideband/core/api.h>
#include <gnuradio/wideband/core/opencl.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

/*!
 * \brief What the core needs to know about one OpenCL device, read once.
 */
struct WIDEBAND_CORE_API device_info {
    size_t platform_index = 0; //!< position in clGetPlatformIDs
    size_t device_index = 0;   //!< position in clGetDeviceIDs(CL_DEVICE_TYPE_ALL)
    std::string platform_name;
    std::string name;
    std::string vendor;
    std::string version;          //!< CL_DEVICE_VERSION
    std::string driver_version;   //!< CL_DRIVER_VERSION
    std::string opencl_c_version; //!< CL_DEVICE_OPENCL_C_VERSION
    cl_device_type type = 0;
    unsigned compute_units = 0;
    unsigned max_clock_mhz = 0;
    size_t max_work_group_size = 0;
    uint64_t local_mem_bytes = 0;
    bool local_mem_is_dedicated = false; //!< CL_LOCAL: on-chip scratchpad
    uint64_t global_mem_bytes = 0;
    uint64_t max_alloc_bytes = 0;
    uint64_t max_constant_bytes = 0;
    bool host_unified_memory = false;

    //! "GPU", "CPU", "accelerator" or "other"
    std::string type_name() const;
    //! "P:D" form that selects exactly this device
    std::string address() const;
};

/*!
 * \brief Every OpenCL device of every platform, in platform:device order.
 *
 * An empty list when the machine has no OpenCL platform (no ICD installed).
 */
WIDEBAND_CORE_API std::vector<device_info> list_devices();

/*!
 * \brief Resolves a device string to one device of list_devices().
 *
 * Accepted forms (case-insensitive):
 *   ""       automatic: the first GPU, else the first accelerator, else the first CPU;
 *            the environment variable WIDEBAND_DEVICE, when set, replaces "".
 *   "gpu", "cpu", "accelerator"   the first device of that type
 *   "P:D"    platform index P, device index D (as listed by wideband_devices)
 *   text     the first device whose name (or platform name) contains the text
 *
 * \throws std::invalid_argument for a malformed string, one no device matches, or
 *         one that names several devices (see find_devices())
 * \throws std::runtime_error when the machine has no OpenCL platform at all
 */
WIDEBAND_CORE_API device_info find_device(const std::string& spec);

/*!
 * \brief Resolves a device string that may name several devices (for
 * multi_device_pipeline), in the order given.
 *
 * Besides the forms of find_device(), which name one device each:
 *   "all"    every device of the type "" picks: every GPU, else every
 *            accelerator, else every CPU
 *   "gpu:all", "cpu:all", "accelerator:all"   every device of that type
 *   "A,B,..."  the devices of each comma-separated entry, each entry one of the
 *            forms above (e.g. "0:0,0:1"); no device may appear twice
 *
 * \throws std::invalid_argument for a malformed string, an empty entry, an
 *         entry no device matches or a device named twice
 * \throws std::runtime_error when the machine has no OpenCL platform at all
 */
WIDEBAND_CORE_API std::vector<device_info> find_devices(const std::string& spec);

/*!
 * \brief The device string in effect for \p spec: WIDEBAND_DEVICE when \p spec is
 * empty and the variable is set, else \p spec.
 */
WIDEBAND_CORE_API std::string effective_device_spec(const std::string& spec);

/*!
 * \brief One OpenCL device with its context and program cache, shared by all
 * users of the device in a process.
 *
 * Blocks and plans hold a std::shared_ptr to it. get() returns the same object
 * for every string that resolves to the same device, so a kernel is compiled
 * once per device and build options, not once per block. Compiled programs can
 * also be kept on disk (see program()).
 *
 * Thread-safe: program() and get() may be called from any thread.
 */
class WIDEBAND_CORE_API device_context
{
public:
    using sptr = std::shared_ptr<device_context>;

    //! The context of the device that \p spec names (see find_device()).
    static sptr get(const std::string& spec = "");
    //! The contexts of the devices that \p spec names (see find_devices()), one
    //! for a single-device string.
    static std::vector<sptr> get_all(const std::string& spec = "");

    const device_info& info() const { return d_info; }
    const cl::Context& context() const { return d_context; }
    const cl::Device& device() const { return d_device; }

    //! A new in-order command queue on this device.
    cl::CommandQueue create_queue(bool profiling = false) const;

    /*!
     * \brief The program built from the embedded kernel source \p source_name
     * (a file name under kernels/, e.g. "fft.cl") with \p options.
     *
     * Built once per (source, options) and cached in memory; when the on-disk
     * cache is enabled the binary is also stored under
     * $WIDEBAND_KERNEL_CACHE (default $XDG_CACHE_HOME/gr-wideband/kernels,
     * "off" disables it), keyed by device, driver, source and options.
     *
     * \throws std::runtime_error with the compiler log when the build fails
     */
    cl::Program program(const std::string& source_name, const std::string& options);

    //! A new kernel object of \p kernel_name from program(source_name, options).
    cl::Kernel kernel(const std::string& source_name,
                      const std::string& options,
                      const std::string& kernel_name);

    //! Number of programs compiled from source so far (not counting cache hits).
    size_t compilations() const;
    //! Number of programs loaded from the on-disk cache so far.
    size_t disk_cache_loads() const;

    device_context(const device_info& info, const cl::Device& device);
    device_context(const device_context&) = delete;
    device_context& operator=(const device_context&) = delete;

private:
    cl::Program build_program(const std::string& source_name, const std::string& options);

    device_info d_info;
    cl::Device d_device;
    cl::Context d_context;
    mutable std::mutex d_mutex;
    std::map<std::string, cl::Program> d_programs;
    size_t d_compilations = 0;
    size_t d_disk_loads = 0;
};

/*!
 * \brief Throws std::invalid_argument unless one device buffer of \p bytes fits
 * \p device: at most its max_alloc_bytes (CL_DEVICE_MAX_MEM_ALLOC_SIZE), and
 * below 2^32 complex samples, which the kernels' 32-bit indices reach. The
 * message starts with \p what (the owner and the buffer) and names the limit.
 */
WIDEBAND_CORE_API void
check_buffer_fits(const device_info& device, const std::string& what, uint64_t bytes);

/*!
 * \brief Text for an OpenCL error code ("CL_OUT_OF_RESOURCES (-5)").
 */
WIDEBAND_CORE_API std::string cl_error_name(cl_int err);

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_DEVICE_H */
