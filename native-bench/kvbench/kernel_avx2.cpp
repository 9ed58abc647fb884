// The AVX2 + FMA + F16C path of the CPU kernel. Only the code defined after KVBENCH_TARGET_BEGIN is
// built for AVX2 (kernel_prelude.hpp keeps the rest at the baseline), and it has internal linkage,
// so a CPU without AVX2 never runs an instruction of it: cpu_kernels.cpp decides.
#include "kernel_prelude.hpp"

#ifdef KVBENCH_X86_KERNELS
KVBENCH_TARGET_BEGIN("avx2,fma,f16c")
#include "decode_kernel.hpp"
#include "simd_avx2.hpp"

void kvbench::run_units_avx2(UnitQueue& queue) { run_units<Avx2Lanes>(queue); }
KVBENCH_TARGET_END
#else
void kvbench::run_units_avx2(UnitQueue& queue) { run_units_portable(queue); }  // never chosen
#endif
