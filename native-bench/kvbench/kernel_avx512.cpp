// The AVX-512 path of the CPU kernel: sixteen fp32 lanes, under a target pragma with internal
// linkage as kernel_avx2.cpp explains.
#include "kernel_prelude.hpp"

#ifdef KVBENCH_X86_KERNELS
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c")
#include "decode_kernel.hpp"
#include "simd_avx512.hpp"

void kvbench::run_units_avx512(UnitQueue& queue) { run_units<Avx512Lanes>(queue); }
#pragma GCC pop_options
#else
void kvbench::run_units_avx512(UnitQueue& queue) { run_units_portable(queue); }  // never chosen
#endif
