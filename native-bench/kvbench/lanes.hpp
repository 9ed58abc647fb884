// Eight fp32 lanes for the CPU decode-attention kernel (decode_attention.cpp): AVX2/FMA/F16C where
// the build targets them, else a plain array; and the loads that turn eight stored K/V values of
// each KvType into lanes. The kernel is written once against these few operations.
#pragma once

#include <algorithm>
#include <cstdint>

#include "paged_kv.hpp"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace kvbench::lanes {

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
using Lanes = __m256;
inline Lanes zero() { return _mm256_setzero_ps(); }
inline Lanes splat(float x) { return _mm256_set1_ps(x); }
inline Lanes load(const float* p) { return _mm256_loadu_ps(p); }
inline void store(float* p, Lanes x) { _mm256_storeu_ps(p, x); }
inline Lanes fma(Lanes a, Lanes b, Lanes c) { return _mm256_fmadd_ps(a, b, c); }
inline Lanes mul(Lanes a, Lanes b) { return _mm256_mul_ps(a, b); }
inline __m128i load128(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// Eight stored values of a row from value index i, as "raw" floats: the value over the type's
// raw_scale (and before the per-tensor scale), whichever is cheapest to convert.
template <KvType T>
inline Lanes load_raw(const uint8_t* row, uint32_t i) {
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

// Four horizontal sums (one per accumulator) into out[0..4).
inline void sum4(Lanes a0, Lanes a1, Lanes a2, Lanes a3, float* out) {
  const __m256 s = _mm256_hadd_ps(_mm256_hadd_ps(a0, a1), _mm256_hadd_ps(a2, a3));
  _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1)));
}
inline float sum1(Lanes a) {
  __m128 x = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  x = _mm_add_ps(x, _mm_movehl_ps(x, x));
  return _mm_cvtss_f32(_mm_add_ss(x, _mm_movehdup_ps(x)));
}
#else
struct Lanes {
  float v[8];
};
inline Lanes zero() { return Lanes{}; }
inline Lanes splat(float x) {
  Lanes r;
  for (float& f : r.v) f = x;
  return r;
}
inline Lanes load(const float* p) {
  Lanes r;
  std::copy(p, p + 8, r.v);
  return r;
}
inline void store(float* p, Lanes x) { std::copy(x.v, x.v + 8, p); }
inline Lanes fma(Lanes a, Lanes b, Lanes c) {
  for (int j = 0; j < 8; ++j) c.v[j] += a.v[j] * b.v[j];
  return c;
}
inline Lanes mul(Lanes a, Lanes b) { return fma(a, b, zero()); }
template <KvType T>
inline Lanes load_raw(const uint8_t* row, uint32_t i) {
  Lanes r;
  for (uint32_t j = 0; j < 8; ++j) r.v[j] = dequantize(T, row + (i + j) * kv_type_bytes(T), 1.0f);
  return r;
}
inline float sum1(Lanes a) {
  float s = 0;
  for (float f : a.v) s += f;
  return s;
}
inline void sum4(Lanes a0, Lanes a1, Lanes a2, Lanes a3, float* out) {
  out[0] = sum1(a0), out[1] = sum1(a1), out[2] = sum1(a2), out[3] = sum1(a3);
}
#endif

// What load_raw's values are multiplied by to give the stored value (before the tensor scale).
template <KvType T>
constexpr float raw_scale() {
#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
  if constexpr (T == KvType::kFp8E4m3) return 0x1p120f;
#endif
  return 1.0f;
}

// One value as load_raw gives it, for the dimensions past the last multiple of eight.
template <KvType T>
inline float raw_value(const uint8_t* row, uint32_t i) {
  return dequantize(T, row + uint64_t{i} * kv_type_bytes(T), 1.0f) / raw_scale<T>();
}

}  // namespace kvbench::lanes
