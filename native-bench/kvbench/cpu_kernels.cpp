// Run-time ISA detection for the kernel paths (cpu_kernels.hpp): cpuid leaf 7 for the extensions,
// and XGETBV for whether the OS saves the YMM / ZMM state (a CPU with AVX-512 under an OS or VM
// that does not enable it must not run the path).
#include "cpu_kernels.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "enum_names.hpp"

namespace kvbench {
namespace {

struct CpuFeatures {
  bool avx2 = false, avx512 = false, avx512_bf16 = false, avx512_vnni = false;
};

CpuFeatures detect() {
  CpuFeatures f;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
  const bool fma = c & (1u << 12), osxsave = c & (1u << 27), avx = c & (1u << 28),
             f16c = c & (1u << 29);
  if (!osxsave || !avx) return f;
  unsigned xcr0_lo, xcr0_hi;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  const bool ymm_state = (xcr0_lo & 0x6u) == 0x6u;     // SSE and AVX state
  const bool zmm_state = (xcr0_lo & 0xe6u) == 0xe6u;   // and opmask, ZMM0-15 upper, ZMM16-31
  if (!ymm_state || !__get_cpuid_count(7, 0, &a, &b, &c, &d)) return f;
  f.avx2 = (b & (1u << 5)) && fma && f16c;
  const bool avx512f = b & (1u << 16), avx512dq = b & (1u << 17), avx512bw = b & (1u << 30),
             avx512vl = b & (1u << 31);
  f.avx512 = f.avx2 && zmm_state && avx512f && avx512dq && avx512bw && avx512vl;
  f.avx512_vnni = f.avx512 && (c & (1u << 11));
  if (f.avx512 && __get_cpuid_count(7, 1, &a, &b, &c, &d)) f.avx512_bf16 = a & (1u << 5);
#endif
  return f;
}

const CpuFeatures& features() {
  static const CpuFeatures f = detect();
  return f;
}

}  // namespace

const char* cpu_kernel_name(CpuKernel k) {
  switch (k) {
    case CpuKernel::kPortable:
      return "portable";
    case CpuKernel::kAvx2:
      return "avx2";
    case CpuKernel::kAvx512:
      return "avx512";
    case CpuKernel::kAvx512Bf16:
      return "avx512-bf16";
    case CpuKernel::kAvx512Vnni:
      return "avx512-vnni";
  }
  return "?";
}

std::optional<CpuKernel> parse_cpu_kernel(const std::string& name) {
  static const CpuKernel kAll[] = {CpuKernel::kPortable, CpuKernel::kAvx2, CpuKernel::kAvx512,
                                   CpuKernel::kAvx512Bf16, CpuKernel::kAvx512Vnni};
  CpuKernel k;
  if (parse_enum_name(name, kAll, cpu_kernel_name, k)) return k;
  return std::nullopt;
}

std::string cpu_kernel_description(CpuKernel k) {
  switch (k) {
    case CpuKernel::kPortable:
      return "portable C++ (eight fp32 lanes, vectorised by the compiler for the x86-64 baseline)";
    case CpuKernel::kAvx2:
      return "AVX2 + FMA + F16C, eight fp32 lanes";
    case CpuKernel::kAvx512:
      return "AVX-512, sixteen fp32 lanes";
    case CpuKernel::kAvx512Bf16:
      return "AVX-512 + AVX512_BF16: K scored by vdpbf16ps (32 bf16 products per instruction, "
             "fp32 sums), V widened as even and odd halves into fp32 FMAs";
    case CpuKernel::kAvx512Vnni:
      return "AVX-512 + AVX512_VNNI: K widened to int16 and scored by vpdpwssd (32 products per "
             "instruction, exact int32 sums) against the query in int16, V by sixteen-lane fp32 FMAs";
  }
  return "?";
}

std::vector<CpuKernel> supported_cpu_kernels(KvType type) {
  std::vector<CpuKernel> out{CpuKernel::kPortable};
  if (features().avx2) out.push_back(CpuKernel::kAvx2);
  if (features().avx512) out.push_back(CpuKernel::kAvx512);
  if (features().avx512_bf16 && type == KvType::kBf16) out.push_back(CpuKernel::kAvx512Bf16);
  if (features().avx512_vnni && type == KvType::kInt8) out.push_back(CpuKernel::kAvx512Vnni);
  return out;
}

std::string cpu_features() {
  std::string out;
#if defined(__x86_64__)
  out = "x86-64";
#else
  out = "not x86-64";
#endif
  if (features().avx2) out += " avx2 fma f16c";
  if (features().avx512) out += " avx512f avx512bw avx512vl avx512dq";
  if (features().avx512_vnni) out += " avx512_vnni";
  if (features().avx512_bf16) out += " avx512_bf16";
  return out + " (detected at run time)";
}

CpuKernel best_cpu_kernel(KvType type) { return supported_cpu_kernels(type).back(); }

}  // namespace kvbench
