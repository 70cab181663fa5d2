/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "wideband_pydoc.h"
#include <gnuradio/wideband/core/pfb_channelizer.h>
#include <gnuradio/wideband/pfb_channelizer_ccf.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace {

/*
 * numchans as the block takes it, with the exceptions of
 * gnuradio.filter.pfb.channelizer_ccf in one line: ValueError for an integer out
 * of range (-4), TypeError for anything else (3.5), where pybind11's unsigned
 * int would raise its many-line TypeError for both.
 */
unsigned int checked_numchans(const py::object& numchans)
{
    constexpr size_t most = gr::wideband::core::pfb_channelizer_options::max_channels;
    const std::string allowed = "1.." + std::to_string(most) + " (got " +
                                py::repr(numchans).cast<std::string>() + ")";
    if (!PyIndex_Check(numchans.ptr())) // an integer of any kind (numpy's too)
        throw py::type_error("pfb_channelizer_ccf: numchans must be an integer, " +
                             allowed);
    const auto value = py::reinterpret_steal<py::int_>(PyNumber_Index(numchans.ptr()));
    if (!value)
        throw py::error_already_set();
    if (value < py::int_(1) || value > py::int_(most))
        throw py::value_error("pfb_channelizer_ccf: numchans must be " + allowed);
    return value.cast<unsigned int>();
}

// taps as the in-tree hier block takes them: None (designed) or a sequence.
std::vector<float> taps_or_designed(const py::object& taps)
{
    if (taps.is_none())
        return {};
    py::detail::make_caster<std::vector<float>> numbers;
    if (!numbers.load(taps, true))
        throw py::type_error("pfb_channelizer_ccf: taps must be a sequence of numbers or "
                             "None (got " +
                             py::repr(taps).cast<std::string>() + ")");
    return py::detail::cast_op<std::vector<float>>(std::move(numbers));
}

} // namespace

void bind_pfb_channelizer_ccf(py::module& m)
{
    using gr::wideband::pfb_channelizer_ccf;
    namespace doc = wideband_pydoc::pfb_channelizer_ccf;
    const std::string class_doc = std::string(doc::doc) + "\n\n" + doc::make;

    py::class_<pfb_channelizer_ccf,
               gr::block,
               gr::basic_block,
               std::shared_ptr<pfb_channelizer_ccf>>(
        m, "pfb_channelizer_ccf", class_doc.c_str())
        .def(py::init([](const py::object& numchans,
                         const py::object& taps,
                         float oversample_rate,
                         const std::vector<int>& channel_map,
                         const std::string& device,
                         float atten,
                         bool vector_output,
                         const std::string& input_type) {
                 return pfb_channelizer_ccf::make(checked_numchans(numchans),
                                                  taps_or_designed(taps),
                                                  oversample_rate,
                                                  channel_map,
                                                  device,
                                                  atten,
                                                  vector_output,
                                                  input_type);
             }),
             py::arg("numchans"),
             py::arg("taps") = py::none(),
             py::arg("oversample_rate") = 1.0f,
             py::arg("channel_map") = std::vector<int>(),
             py::arg("device") = "",
             py::arg("atten") = 100.0f,
             py::arg("vector_output") = false,
             py::arg("input_type") = "fc32")
        // filter.pfb.channelizer_ccf(numchans, taps, oversample_rate, atten): a
        // number where the channel map goes is the in-tree block's atten.
        .def(py::init([](const py::object& numchans,
                         const py::object& taps,
                         float oversample_rate,
                         float atten) {
                 return pfb_channelizer_ccf::make(checked_numchans(numchans),
                                                  taps_or_designed(taps),
                                                  oversample_rate,
                                                  {},
                                                  "",
                                                  atten);
             }),
             py::arg("numchans"),
             py::arg("taps"),
             py::arg("oversample_rate"),
             py::arg("atten"))
        .def_static("create_taps",
                    &pfb_channelizer_ccf::create_taps,
                    py::arg("numchans"),
                    py::arg("atten") = 100.0f,
                    doc::create_taps)
        .def("set_taps", &pfb_channelizer_ccf::set_taps, py::arg("taps"), doc::set_taps)
        .def("taps", &pfb_channelizer_ccf::taps, doc::taps)
        .def("set_channel_map",
             &pfb_channelizer_ccf::set_channel_map,
             py::arg("map"),
             doc::set_channel_map)
        .def("channel_map", &pfb_channelizer_ccf::channel_map, doc::channel_map)
        .def("numchans", &pfb_channelizer_ccf::numchans, doc::numchans)
        .def("decimation", &pfb_channelizer_ccf::decimation, doc::decimation)
        .def("device_name", &pfb_channelizer_ccf::device_name, doc::device_name)
        .def("latency", &pfb_channelizer_ccf::latency, doc::latency);
}
