# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Sourced by the scripts/gpu/run_* scripts: makes NVIDIA's OpenCL the only
# platform the ICD loader sees (not the PoCL that /etc/OpenCL/vendors may also
# list) by writing an ICD file under /tmp/icd and exporting OCL_ICD_VENDORS.
# Returns 1, with a message naming the caller ($1), when the driver's
# libnvidia-opencl.so.1 is nowhere.
use_nvidia_opencl() {
    local icd_lib="" candidate
    for candidate in /usr/lib/libnvidia-opencl.so.1 \
        /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1; do
        if [ -e "$candidate" ]; then
            icd_lib=$candidate
            break
        fi
    done
    # Elsewhere on the loader's search path: the bare name is found by dlopen.
    if [ -z "$icd_lib" ] && ldconfig -p 2>/dev/null | grep -q 'libnvidia-opencl\.so\.1'; then
        icd_lib=libnvidia-opencl.so.1
    fi
    if [ -z "$icd_lib" ]; then
        echo "$1: libnvidia-opencl.so.1 not found (is the NVIDIA driver installed?);" \
            "--pocl runs on the CPU instead" >&2
        return 1
    fi
    mkdir -p /tmp/icd
    echo "$icd_lib" >/tmp/icd/nvidia.icd
    export OCL_ICD_VENDORS=/tmp/icd
}
