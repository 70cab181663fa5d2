/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_KERNEL_SOURCES_H
#define INCLUDED_WIDEBAND_CORE_KERNEL_SOURCES_H

#include <string>
#include <vector>

namespace gr {
namespace wideband {
namespace core {

struct embedded_source {
    const char* name; //!< file name under kernels/
    const char* text;
};

//! The kernels/*.cl files, embedded at build time (generated embedded_kernels.cc).
const std::vector<embedded_source>& embedded_kernel_sources();

/*!
 * \brief The complete source of kernels/\p name, with every line
 * `#include "other.cl"` replaced by that file's text (once per file), so the
 * OpenCL compiler needs no include path.
 *
 * \throws std::invalid_argument when \p name or an included file is unknown
 */
std::string kernel_source(const std::string& name);

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_KERNEL_SOURCES_H */
