// The AVX512_VNNI lanes of the decode-attention kernel: the AVX-512 lanes (simd_avx512.hpp) with
// int8 K scored by vpdpwssd, 32 int16 products summed pairwise into sixteen int32 lanes per
// instruction: each K chunk widened once (int8 to int16, one instruction for 32 values, shared by
// the group's heads) against the query rounded to int16 (15 bits per head's largest value: an
// engine's q8 x q8 dot keeps 7), the sums exact in int32. V stays on the AVX-512 lanes' fp32 path.
// Included after decode_kernel.hpp, inside kernel_avx512_vnni.cpp's target region; internal
// linkage.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "simd_avx512.hpp"

namespace kvbench {
namespace {

struct Avx512VnniLanes : Avx512Lanes {
  static constexpr bool kInt8Dot = true;
  static constexpr uint32_t kChunk = 32;  // int16 values per zmm

  static uint32_t padded(uint32_t d) { return (d + kChunk - 1) / kChunk * kChunk; }

  // The group's queries (already scaled) as int16 in [g][padded(d)] (zeros past d), and per head
  // the scale that turns an int32 dot product back into the score.
  static void prepare_queries(const float* q, uint32_t g, uint32_t d, int16_t* q16,
                              float* scale) {
    const uint32_t dp = padded(d);
    for (uint32_t h = 0; h < g; ++h) {
      const float* qh = q + uint64_t{h} * d;
      float top = 0;
      for (uint32_t i = 0; i < d; ++i) top = std::max(top, std::fabs(qh[i]));
      scale[h] = top > 0 ? top / 32767.0f : 1.0f;
      for (uint32_t i = 0; i < dp; ++i)
        q16[uint64_t{h} * dp + i] = static_cast<int16_t>(i < d ? std::nearbyint(qh[i] / scale[h]) : 0);
    }
  }

  // scores[h * kTile + t] = q_h . k_t for HB heads and the tile's n tokens (the frame:
  // Avx512Lanes::score_blocks), each head's int32 sums scaled back to fp32 before the reduction.
  template <uint32_t HB>
  static void score_heads(const int16_t* q16, const float* scale, const uint8_t* const* k_rows,
                          uint32_t n, uint32_t d, const uint8_t* zero_row, float* scores,
                          const NextTile& next) {
    constexpr uint32_t TB = 16 / HB;
    const uint32_t dp = padded(d);
    const __mmask32 tail = d % kChunk ? (1u << (d % kChunk)) - 1 : ~0u;
    score_blocks<HB>(k_rows, n, zero_row, 1.0f, scores, next, [&](const uint8_t* const* rows, __m512* sums) {
      __m512i acc[16];  // [h * TB + t]
      for (__m512i& a : acc) a = _mm512_setzero_si512();
      for (uint32_t i = 0; i < dp; i += kChunk) {
        const __mmask32 mask = i + kChunk <= d ? ~0u : tail;
        __m512i k[TB];
        for (uint32_t t = 0; t < TB; ++t)
          k[t] = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(mask, rows[t] + i));
        for (uint32_t h = 0; h < HB; ++h) {
          const __m512i qh = _mm512_loadu_si512(q16 + uint64_t{h} * dp + i);
          for (uint32_t t = 0; t < TB; ++t) acc[h * TB + t] = _mm512_dpwssd_epi32(acc[h * TB + t], qh, k[t]);
        }
      }
      for (uint32_t h = 0; h < HB; ++h)
        for (uint32_t t = 0; t < TB; ++t)
          sums[h * TB + t] = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[h * TB + t]), _mm512_set1_ps(scale[h]));
    });
  }
};

}  // namespace
}  // namespace kvbench
