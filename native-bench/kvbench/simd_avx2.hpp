// AVX2 + FMA + F16C lanes of the decode-attention kernel (decode_kernel.hpp): eight fp32 lanes,
// and the loads that turn eight stored K/V values of each KvType into them. Included only inside
// kernel_avx2.cpp's target region; internal linkage, so no other path links this code.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "paged_kv.hpp"

namespace kvbench {
namespace {

struct Avx2Lanes {
  using V = __m256;
  static constexpr uint32_t kWidth = 8;
  static constexpr uint32_t kAccumulators = 8;  // of 16 ymm registers: FMA latency x throughput
  static constexpr bool kBf16Pairs = false;  // no bf16-only tile (simd_avx512_bf16.hpp)
  static constexpr bool kInt8Dot = false;    // no int8 dot products (simd_avx512_vnni.hpp)

  static V zero() { return _mm256_setzero_ps(); }
  static V splat(float x) { return _mm256_set1_ps(x); }
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V x) { _mm256_storeu_ps(p, x); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }

  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static V round(V x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static V pow2(V n) {  // 2^n for whole n in [-126, 127], built in the exponent bits
    return _mm256_castsi256_ps(
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
  }

  static float sum1(V a) {
    __m128 x = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    x = _mm_add_ps(x, _mm_movehl_ps(x, x));
    return _mm_cvtss_f32(_mm_add_ss(x, _mm_movehdup_ps(x)));
  }
  // Horizontal sums of n accumulators: four at a time with two rounds of hadd.
  static void sums(const V* a, uint32_t n, float* out) {
    uint32_t h = 0;
    for (; h + 4 <= n; h += 4) {
      const __m256 s = _mm256_hadd_ps(_mm256_hadd_ps(a[h], a[h + 1]), _mm256_hadd_ps(a[h + 2], a[h + 3]));
      _mm_storeu_ps(out + h, _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1)));
    }
    for (; h < n; ++h) out[h] = sum1(a[h]);
  }

  // What load_raw's values are multiplied by to give the stored value (before the tensor scale).
  template <KvType T>
  static constexpr float raw_scale() {
    return T == KvType::kFp8E4m3 ? 0x1p120f : 1.0f;
  }

  // Eight stored values of a row from value index i, as "raw" floats: the value over raw_scale
  // (and before the per-tensor scale), whichever is cheapest to convert.
  template <KvType T>
  static V load_raw(const uint8_t* row, uint32_t i) {
    if constexpr (T == KvType::kFp32) {
      return _mm256_loadu_ps(reinterpret_cast<const float*>(row) + i);
    } else if constexpr (T == KvType::kFp16) {
      return _mm256_cvtph_ps(load128(row + 2 * i));
    } else if constexpr (T == KvType::kBf16) {
      return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(load128(row + 2 * i)), 16));
    } else if constexpr (T == KvType::kFp8E4m3) {
      // e4m3 bits s eeee mmm placed as fp32 s 0000 eeee mmm...: the same value times 2^-120 (its
      // subnormals land on fp32 subnormals, exactly). Shift the byte to the top, shift back four
      // with the sign copied, and clear the copies: three integer operations per eight values.
      const __m256i x =
          _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + i)));
      const __m256i bits = _mm256_and_si256(_mm256_srai_epi32(_mm256_slli_epi32(x, 24), 4),
                                            _mm256_set1_epi32(static_cast<int>(0x87F00000u)));
      return _mm256_castsi256_ps(bits);
    } else {
      return _mm256_cvtepi32_ps(
          _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + i))));
    }
  }

 private:
  static __m128i load128(const uint8_t* p) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  }
};

}  // namespace
}  // namespace kvbench
