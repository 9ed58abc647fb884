// The AVX512_BF16 path of the CPU kernel: the AVX-512 path with bf16 K scored by vdpbf16ps
// (simd_avx512_bf16.hpp), in a target region with internal linkage as kernel_avx2.cpp explains.
// cpu_kernels.cpp offers it for bf16 KV only.
#include "kernel_prelude.hpp"

#ifdef KVBENCH_X86_KERNELS
KVBENCH_TARGET_BEGIN("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx2,fma,f16c")
#include "decode_kernel.hpp"
#include "simd_avx512_bf16.hpp"

void kvbench::run_units_avx512_bf16(UnitQueue& queue) { run_units<Avx512Bf16Lanes>(queue); }
KVBENCH_TARGET_END
#else
void kvbench::run_units_avx512_bf16(UnitQueue& queue) { run_units_portable(queue); }  // never chosen
#endif
