// The portable lanes of the decode-attention kernel (decode_kernel.hpp): eight floats in a plain
// array, every operation a loop the compiler may vectorise for whatever the build targets.
// Internal linkage (anonymous namespace): each kernel_*.cpp gets its own copy for its target.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "paged_kv.hpp"

namespace kvbench {
namespace {

struct PortableLanes {
  struct V {
    float v[8];
  };
  static constexpr uint32_t kWidth = 8;
  static constexpr uint32_t kAccumulators = 8;  // independent sums per block
  static constexpr bool kBf16Pairs = false;  // no bf16-only tile (simd_avx512_bf16.hpp)
  static constexpr bool kInt8Dot = false;    // no int8 dot products (simd_avx512_vnni.hpp)

  static V zero() { return V{}; }
  static V splat(float x) {
    V r;
    std::fill(r.v, r.v + 8, x);
    return r;
  }
  static V load(const float* p) {
    V r;
    std::copy(p, p + 8, r.v);
    return r;
  }
  static void store(float* p, V x) { std::copy(x.v, x.v + 8, p); }
  static V fma(V a, V b, V c) {
    for (int j = 0; j < 8; ++j) c.v[j] += a.v[j] * b.v[j];
    return c;
  }
  static V mul(V a, V b) { return fma(a, b, zero()); }
  static V add(V a, V b) {
    for (int j = 0; j < 8; ++j) a.v[j] += b.v[j];
    return a;
  }
  static V sub(V a, V b) {
    for (int j = 0; j < 8; ++j) a.v[j] -= b.v[j];
    return a;
  }
  static V max(V a, V b) {
    for (int j = 0; j < 8; ++j) a.v[j] = std::max(a.v[j], b.v[j]);
    return a;
  }
  static V round(V x) {
    for (float& f : x.v) f = std::nearbyint(f);
    return x;
  }
  static V pow2(V n) {
    for (float& f : n.v) f = std::ldexp(1.0f, static_cast<int>(f));
    return n;
  }

  static float sum1(V a) {
    float s = 0;
    for (float f : a.v) s += f;
    return s;
  }
  static void sums(const V* a, uint32_t n, float* out) {
    for (uint32_t h = 0; h < n; ++h) out[h] = sum1(a[h]);
  }
  template <KvType T>
  static constexpr float raw_scale() {
    return 1.0f;
  }
  // Eight stored values from index i: bit operations the compiler can vectorise where the type
  // allows (fp32, bf16, int8), the shared conversion otherwise (fp16, fp8).
  template <KvType T>
  static V load_raw(const uint8_t* row, uint32_t i) {
    V r;
    if constexpr (T == KvType::kFp32) {
      std::memcpy(r.v, row + 4 * i, sizeof r.v);
    } else if constexpr (T == KvType::kBf16) {
      for (uint32_t j = 0; j < 8; ++j) {
        uint16_t b;
        std::memcpy(&b, row + 2 * (i + j), 2);
        const uint32_t bits = uint32_t{b} << 16;
        std::memcpy(&r.v[j], &bits, 4);
      }
    } else if constexpr (T == KvType::kInt8) {
      for (uint32_t j = 0; j < 8; ++j) r.v[j] = static_cast<int8_t>(row[i + j]);
    } else {
      for (uint32_t j = 0; j < 8; ++j)
        r.v[j] = dequantize(T, row + (i + j) * kv_type_bytes(T), 1.0f);
    }
    return r;
  }
};

}  // namespace
}  // namespace kvbench
