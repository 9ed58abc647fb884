// AVX-512 (F/BW/VL/DQ) lanes of the decode-attention kernel (decode_kernel.hpp): sixteen fp32
// lanes, 32 registers, and the loads that turn sixteen stored K/V values of each KvType into them.
// Included only inside kernel_avx512*.cpp's target regions; internal linkage.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "paged_kv.hpp"
#include "simd_avx2.hpp"

namespace kvbench {
namespace {

struct Avx512Lanes {
  using V = __m512;
  static constexpr uint32_t kWidth = 16;
  static constexpr uint32_t kAccumulators = 16;  // of 32 zmm registers
  static constexpr bool kBf16Pairs = false;  // no bf16-only tile (simd_avx512_bf16.hpp)
  static constexpr bool kInt8Dot = false;    // no int8 dot products (simd_avx512_vnni.hpp)

  static V zero() { return _mm512_setzero_ps(); }
  static V splat(float x) { return _mm512_set1_ps(x); }
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, V x) { _mm512_storeu_ps(p, x); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }

  static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V max(V a, V b) { return _mm512_max_ps(a, b); }
  static V round(V x) {
    return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  static V pow2(V n) {  // 2^n for whole n in [-126, 127], built in the exponent bits
    return _mm512_castsi512_ps(
        _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23));
  }

  static float sum1(V a) { return _mm512_reduce_add_ps(a); }
  // Horizontal sums of n accumulators: each folded to eight lanes, then the AVX2 lanes' sums.
  static void sums(const V* a, uint32_t n, float* out) {
    __m256 halves[kAccumulators];
    for (uint32_t h = 0; h < n; ++h)
      halves[h] = _mm256_add_ps(_mm512_castps512_ps256(a[h]), _mm512_extractf32x8_ps(a[h], 1));
    Avx2Lanes::sums(halves, n, out);
  }

  // One vector of the sixteen accumulators' horizontal sums, lane j = sum of acc[j]: halves,
  // quarters, then a 4 x 4 transpose within the 128-bit lanes (45 operations for 16 sums).
  static __m512 reduce16(const __m512 (&acc)[16]) {
    __m512 r1[8], r2[4], r3[2];
    // The tree's last step leaves lane 4k + m holding input 4m + k: feed it transposed.
    auto in = [&](uint32_t j) { return acc[4 * (j % 4) + j / 4]; };
    for (uint32_t i = 0; i < 8; ++i) {
      const __m512 x = in(2 * i), y = in(2 * i + 1);
      r1[i] = _mm512_add_ps(_mm512_shuffle_f32x4(x, y, _MM_SHUFFLE(1, 0, 1, 0)),
                            _mm512_shuffle_f32x4(x, y, _MM_SHUFFLE(3, 2, 3, 2)));
    }
    for (uint32_t i = 0; i < 4; ++i) {
      const __m512 x = r1[2 * i], y = r1[2 * i + 1];
      r2[i] = _mm512_add_ps(_mm512_shuffle_f32x4(x, y, _MM_SHUFFLE(2, 0, 2, 0)),
                            _mm512_shuffle_f32x4(x, y, _MM_SHUFFLE(3, 1, 3, 1)));
    }
    for (uint32_t i = 0; i < 2; ++i) {
      const __m512 x = r2[2 * i], y = r2[2 * i + 1];
      r3[i] = _mm512_add_ps(_mm512_unpacklo_ps(x, y), _mm512_unpackhi_ps(x, y));
    }
    return _mm512_add_ps(_mm512_shuffle_ps(r3[0], r3[1], _MM_SHUFFLE(1, 0, 1, 0)),
                         _mm512_shuffle_ps(r3[0], r3[1], _MM_SHUFFLE(3, 2, 3, 2)));
  }

  // The frame of a tile's dot-product scoring (simd_avx512_bf16.hpp, simd_avx512_vnni.hpp):
  // blocks of 16 / HB tokens (a missing token reads `zero_row`, its score dropped), each scored by
  // dots(rows, sums) into sixteen (head x token) lanes sums[h * TB + t], reduced together, times
  // `scale`, into scores[h * kTile + t].
  template <uint32_t HB, class Dots>
  static void score_blocks(const uint8_t* const* k_rows, uint32_t n, const uint8_t* zero_row,
                           float scale, float* scores, const NextTile& next, Dots&& dots) {
    constexpr uint32_t TB = 16 / HB;
    for (uint32_t t0 = 0; t0 < n; t0 += TB) {
      next.prefetch(t0, t0 + TB);
      const uint8_t* rows[TB];
      for (uint32_t t = 0; t < TB; ++t) rows[t] = t0 + t < n ? k_rows[t0 + t] : zero_row;
      __m512 sums[16];
      dots(rows, sums);
      alignas(64) float out[16];
      _mm512_store_ps(out, _mm512_mul_ps(reduce16(sums), _mm512_set1_ps(scale)));
      const uint32_t count = n - t0 < TB ? n - t0 : TB;
      for (uint32_t h = 0; h < HB; ++h)
        std::memcpy(scores + uint64_t{h} * kTile + t0, out + h * TB, count * sizeof(float));
    }
    next.prefetch(n, kTile);
  }

  // What load_raw's values are multiplied by to give the stored value: the AVX2 lanes' bit tricks.
  template <KvType T>
  static constexpr float raw_scale() { return Avx2Lanes::raw_scale<T>(); }

  // Sixteen stored values of a row from value index i, as raw floats (simd_avx2.hpp explains the
  // fp8 bit placement; here over sixteen lanes).
  template <KvType T>
  static V load_raw(const uint8_t* row, uint32_t i) {
    if constexpr (T == KvType::kFp32) {
      return _mm512_loadu_ps(reinterpret_cast<const float*>(row) + i);
    } else if constexpr (T == KvType::kFp16) {
      return _mm512_cvtph_ps(load256(row + 2 * i));
    } else if constexpr (T == KvType::kBf16) {
      return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(load256(row + 2 * i)), 16));
    } else if constexpr (T == KvType::kFp8E4m3) {
      const __m512i x = _mm512_cvtepu8_epi32(load128(row + i));
      return _mm512_castsi512_ps(_mm512_and_si512(_mm512_srai_epi32(_mm512_slli_epi32(x, 24), 4),
                                                  _mm512_set1_epi32(static_cast<int>(0x87F00000u))));
    } else {
      return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(load128(row + i)));
    }
  }

 private:
  static __m128i load128(const uint8_t* p) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  }
  static __m256i load256(const uint8_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
};

}  // namespace
}  // namespace kvbench
