// What decode_kernel.hpp and the lanes headers use from outside, for kernel_*.cpp to include
// before their target pragma: code defined here keeps the baseline target, so the standard
// library's templates are never built for AVX-512 and then shared with a path that runs without it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernel_units.hpp"
#include "paged_kv.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define KVBENCH_X86_KERNELS 1  // the AVX2 / AVX-512 paths are built (else they fall back)
#endif
