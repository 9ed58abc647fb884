// The CPU decode-attention kernel's code paths, one per instruction set, and which of them this
// machine runs: one kvbench binary, built for the x86-64 baseline, picks the widest path at run
// time (cpuid and the OS's saved register state), and any supported path can be forced.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "paged_kv.hpp"

namespace kvbench {

enum class CpuKernel {
  kPortable,    // plain C++, eight fp32 lanes the compiler may vectorise for the baseline
  kAvx2,        // AVX2 + FMA + F16C: eight fp32 lanes
  kAvx512,      // AVX-512 F/BW/VL/DQ: sixteen fp32 lanes
  kAvx512Bf16,  // AVX-512 + AVX512_BF16: bf16 K dot products by vdpbf16ps (bf16 KV only)
  kAvx512Vnni,  // AVX-512 + AVX512_VNNI: int8 K dot products by vpdpwssd (int8 KV only)
};

// "portable", "avx2", "avx512", "avx512-bf16", "avx512-vnni"
const char* cpu_kernel_name(CpuKernel k);
std::optional<CpuKernel> parse_cpu_kernel(const std::string& name);

// What the path does differently, for the record: "sixteen fp32 lanes (AVX-512) ...".
std::string cpu_kernel_description(CpuKernel k);

// The paths this CPU (and OS) can run for a KV type, narrowest first; never empty.
std::vector<CpuKernel> supported_cpu_kernels(KvType type);

// What the CPU reports that the paths use, for the record: "x86-64 avx2 fma f16c avx512 ...".
std::string cpu_features();

// The widest of them: what kvbench runs unless told otherwise.
CpuKernel best_cpu_kernel(KvType type);

}  // namespace kvbench
