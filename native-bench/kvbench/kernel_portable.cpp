// The portable path of the CPU kernel (decode_kernel.hpp over simd_portable.hpp), built for the
// baseline the rest of kvbench is built for.
#include "kernel_prelude.hpp"
#include "decode_kernel.hpp"
#include "simd_portable.hpp"

void kvbench::run_units_portable(UnitQueue& queue) { run_units<PortableLanes>(queue); }
