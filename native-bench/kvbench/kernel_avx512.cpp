// The AVX-512 path of the CPU kernel: sixteen fp32 lanes, in a target region with internal
// linkage as kernel_avx2.cpp explains.
#include "kernel_prelude.hpp"

#ifdef KVBENCH_X86_KERNELS
KVBENCH_TARGET_BEGIN("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c")
#include "decode_kernel.hpp"
#include "simd_avx512.hpp"

void kvbench::run_units_avx512(UnitQueue& queue) { run_units<Avx512Lanes>(queue); }
KVBENCH_TARGET_END
#else
void kvbench::run_units_avx512(UnitQueue& queue) { run_units_portable(queue); }  // never chosen
#endif
