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
// A kernel_<isa>.cpp's region built for its instruction set, in the form each compiler honours:
// GCC's target pragma; clang ignores that pragma, and takes the target attribute on every function
// defined inside instead.
#define KVBENCH_PRAGMA(text) _Pragma(#text)
#if defined(__clang__)
#define KVBENCH_TARGET_BEGIN(isa) \
  KVBENCH_PRAGMA(clang attribute push(__attribute__((target(isa))), apply_to = function))
#define KVBENCH_TARGET_END KVBENCH_PRAGMA(clang attribute pop)
#else
#define KVBENCH_TARGET_BEGIN(isa) KVBENCH_PRAGMA(GCC push_options) KVBENCH_PRAGMA(GCC target(isa))
#define KVBENCH_TARGET_END KVBENCH_PRAGMA(GCC pop_options)
#endif
#endif
