/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_CORE_SAMPLE_FORMAT_H
#define INCLUDED_WIDEBAND_CORE_SAMPLE_FORMAT_H

#include <gnuradio/wideband/core/api.h>

#include <cstddef>
#include <string>

namespace gr {
namespace wideband {
namespace core {

/*!
 * \brief The input samples an engine takes: complex float, or the complex
 * integers SDR front ends deliver (UHD's sc16 and sc8, SigMF's ci16_le and
 * ci8), converted to float in the engine's first kernel with the integers taken
 * as their values (no scaling, as GNU Radio's interleaved_short_to_complex and
 * interleaved_char_to_complex with their default scale).
 */
enum class sample_format {
    fc32, //!< complex float32, 8 bytes
    sc16, //!< complex int16 (interleaved I, Q), 4 bytes
    sc8,  //!< complex int8 (interleaved I, Q), 2 bytes
    f32   //!< real float32, 4 bytes: read as complex samples with imaginary part 0
};

//! Bytes of one sample.
WIDEBAND_CORE_API size_t sample_bytes(sample_format format);

//! Whether a sample has a real and an imaginary part (all but f32).
WIDEBAND_CORE_API bool is_complex(sample_format format);

//! "fc32", "sc16", "sc8" or "f32".
WIDEBAND_CORE_API const char* sample_format_name(sample_format format);

/*!
 * \brief The complex format named \p name ("fc32", "sc16" or "sc8"): the
 * input types of the complex blocks.
 * \throws std::invalid_argument for any other name, saying the names allowed
 */
WIDEBAND_CORE_API sample_format parse_sample_format(const std::string& name);

/*!
 * \brief The OpenCL build option that sets a kernel's input sample type
 * (SAMPLE_T of kernels/samples.cl): empty for fc32, whose float2 is the default.
 */
WIDEBAND_CORE_API std::string sample_type_option(sample_format format);

} // namespace core
} // namespace wideband
} // namespace gr

#endif /* INCLUDED_WIDEBAND_CORE_SAMPLE_FORMAT_H */
