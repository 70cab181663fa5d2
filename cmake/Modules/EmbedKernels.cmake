# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# embed_kernels(OUTPUT <file.cc> SOURCES <a.cl> ...)
#
# Writes a C++ file that defines gr::wideband::core::embedded_kernel_sources(),
# a table of (file name, text) for every OpenCL source, so the library needs no
# kernel files at run time. The file is regenerated when a source changes.
function(embed_kernels)
    cmake_parse_arguments(EK "" "OUTPUT" "SOURCES" ${ARGN})
    add_custom_command(
        OUTPUT ${EK_OUTPUT}
        COMMAND ${CMAKE_COMMAND} -DOUTPUT=${EK_OUTPUT} "-DSOURCES=${EK_SOURCES}"
                -P ${PROJECT_SOURCE_DIR}/cmake/Modules/EmbedKernelsScript.cmake
        DEPENDS ${EK_SOURCES} ${PROJECT_SOURCE_DIR}/cmake/Modules/EmbedKernelsScript.cmake
        COMMENT "Embedding OpenCL kernel sources"
        VERBATIM)
endfunction()
