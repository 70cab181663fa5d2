/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_KERNEL_ARGS_H
#define INCLUDED_WIDEBAND_CORE_KERNEL_ARGS_H

#include <gnuradio/wideband/core/device.h>

#include <string_view>
#include <string>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

/*!
 * \brief The parameter names of one `__kernel void name(...)`, in declaration
 * order: argument i of the kernel is parameters[i].
 */
struct kernel_signature {
    std::string kernel; //!< "name (file)", for messages
    std::vector<std::string> parameters;

    //! \throws std::logic_error naming the kernel and \p parameter when absent
    cl_uint index(std::string_view parameter) const;
};

/*!
 * \brief The signature of \p kernel_name in OpenCL C \p source (comments
 * ignored); \p source_label names the source in messages.
 *
 * \throws std::logic_error when the kernel is not declared, or a preprocessor
 *         line inside its parameter list makes the argument indices depend on
 *         build options
 */
kernel_signature parse_kernel_signature(const std::string& source,
                                        const std::string& kernel_name,
                                        const std::string& source_label);

/*!
 * \brief The signature of \p kernel_name in the embedded kernels/\p source_name
 * (with its includes), parsed once per process. Programs loaded from the
 * binary cache have no CL_KERNEL_ARG_NAME, so the names come from the source.
 */
const kernel_signature& embedded_kernel_signature(const std::string& source_name,
                                                  const std::string& kernel_name);

/*!
 * \brief A kernel whose arguments are set by the parameter names of its .cl
 * declaration, so that no C++ code keeps argument indices in step by hand.
 *
 * Like cl::Kernel, not thread-safe: the owner serialises set() and enqueues.
 */
class kernel_args
{
public:
    kernel_args() = default;
    //! Kernel \p kernel_name of the embedded kernels/\p source_name built with \p
    //! options.
    kernel_args(device_context& context,
                const std::string& source_name,
                const std::string& options,
                const std::string& kernel_name);
    /*! \p kernel, whose parameters \p signature names (which must outlive this).
     *  \throws std::logic_error when their argument counts differ */
    kernel_args(cl::Kernel kernel, const kernel_signature& signature);

    //! \throws std::logic_error when the kernel has no parameter \p name
    template <typename T>
    void set(std::string_view name, const T& value)
    {
        const cl_uint i = d_signature->index(name);
        d_kernel.setArg(i, value);
        d_set[i] = true;
    }

    //! The kernel to enqueue. \throws std::logic_error naming an argument never set
    const cl::Kernel& ready() const;

private:
    cl::Kernel d_kernel;
    const kernel_signature* d_signature = nullptr;
    std::vector<bool> d_set;
};

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_KERNEL_ARGS_H */
