// The AVX512_VNNI path of the CPU kernel: the AVX-512 path with int8 K scored by vpdpbusd
// (simd_avx512_vnni.hpp), in a target region with internal linkage as kernel_avx2.cpp explains.
// cpu_kernels.cpp offers it for int8 KV only.
#include "kernel_prelude.hpp"

#ifdef KVBENCH_X86_KERNELS
KVBENCH_TARGET_BEGIN("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,avx2,fma,f16c")
#include "decode_kernel.hpp"
#include "simd_avx512_vnni.hpp"

void kvbench::run_units_avx512_vnni(UnitQueue& queue) { run_units<Avx512VnniLanes>(queue); }
KVBENCH_TARGET_END
#else
void kvbench::run_units_avx512_vnni(UnitQueue& queue) { run_units_portable(queue); }  // never chosen
#endif
