// The AVX512_BF16 lanes of the decode-attention kernel: the AVX-512 lanes (simd_avx512.hpp) plus
// a bf16-only tile. Scores: vdpbf16ps multiplies 32 bf16 pairs of q and k into sixteen fp32 sums
// per instruction, with no conversion of K; sixteen such sums (head x token) are reduced together
// by one shuffle tree. V: a bf16 pair widens to fp32 with one shift (even element) and one mask
// (odd element), so the accumulators hold even and odd dimensions apart until the unit ends; the
// softmax weights stay fp32. Included after decode_kernel.hpp, inside
// kernel_avx512_bf16.cpp's target region; internal linkage.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "simd_avx512.hpp"

namespace kvbench {
namespace {

struct Avx512Bf16Lanes : Avx512Lanes {
  static constexpr bool kBf16Pairs = true;
  static constexpr uint32_t kChunk = 32;  // bf16 values per zmm

  static uint32_t padded(uint32_t d) { return (d + kChunk - 1) / kChunk * kChunk; }

  // The group's queries as bf16 in [g][padded(d)] (zeros past d): q_hi = bf16(q), q_lo =
  // bf16(q - q_hi), so q = q_hi + q_lo to 16 bits. Returns whether any q_lo is non-zero (an
  // engine's queries are bf16 already: then one vdpbf16ps per chunk, else two).
  static bool prepare_queries(const float* q, uint32_t g, uint32_t d, uint16_t* q_hi,
                              uint16_t* q_lo) {
    const uint32_t dp = padded(d);
    bool split = false;
    for (uint32_t h = 0; h < g; ++h) {
      for (uint32_t i = 0; i < dp; ++i) {
        const float x = i < d ? q[uint64_t{h} * d + i] : 0.0f;
        const uint16_t hi = to_bf16(x), lo = to_bf16(x - from_bf16(hi));
        q_hi[uint64_t{h} * dp + i] = hi;
        q_lo[uint64_t{h} * dp + i] = lo;
        split = split || (lo & 0x7fffu) != 0;
      }
    }
    return split;
  }

  // scores[h * kTile + t] = scale * q_h . k_t for HB heads and the tile's n tokens (the frame:
  // Avx512Lanes::score_blocks).
  template <uint32_t HB, bool kSplit>
  static void score_heads(const uint16_t* q_hi, const uint16_t* q_lo, const uint8_t* const* k_rows,
                          uint32_t n, uint32_t d, float scale, const uint8_t* zero_row,
                          float* scores, const NextTile& next) {
    constexpr uint32_t TB = 16 / HB;
    const uint32_t dp = padded(d);
    const __mmask32 tail = d % kChunk ? (1u << (d % kChunk)) - 1 : ~0u;
    score_blocks<HB>(k_rows, n, zero_row, scale, scores, next, [&](const uint8_t* const* rows, __m512* acc) {
      for (uint32_t j = 0; j < 16; ++j) acc[j] = _mm512_setzero_ps();
      for (uint32_t i = 0; i < dp; i += kChunk) {
        const __mmask32 mask = i + kChunk <= d ? ~0u : tail;
        __m512i k[TB];
        for (uint32_t t = 0; t < TB; ++t) k[t] = _mm512_maskz_loadu_epi16(mask, rows[t] + 2 * i);
        for (uint32_t h = 0; h < HB; ++h) {
          const __m512bh qh = bh(_mm512_loadu_si512(q_hi + uint64_t{h} * dp + i));
          for (uint32_t t = 0; t < TB; ++t)
            acc[h * TB + t] = _mm512_dpbf16_ps(acc[h * TB + t], qh, bh(k[t]));
          if constexpr (kSplit) {
            const __m512bh ql = bh(_mm512_loadu_si512(q_lo + uint64_t{h} * dp + i));
            for (uint32_t t = 0; t < TB; ++t)
              acc[h * TB + t] = _mm512_dpbf16_ps(acc[h * TB + t], ql, bh(k[t]));
          }
        }
      }
    });
  }

  // acc (paired layout, unpair() below) = acc * correction[h] + sum over the tile's n tokens of
  // p[h][t] * v_t, for HB heads and CB chunks of 32 dimensions per pass. The weights stay fp32:
  // one vdpbf16ps over two tokens with bf16 weights was no faster here (the FMAs are not the
  // limit) and puts an error of 2^-9 of |v| in the output.
  template <uint32_t HB>
  static void accumulate_heads(const float* p, const float* correction,
                               const uint8_t* const* v_rows, uint32_t n, uint32_t d, float* acc,
                               const NextTile& next) {
    constexpr uint32_t CB = HB == 4 ? 2 : 4;  // 2 x HB x CB accumulators of 32 registers
    const uint32_t chunks = padded(d) / kChunk, passes = (chunks + CB - 1) / CB;
    for (uint32_t c0 = 0, pass = 0; c0 < chunks; c0 += CB, ++pass) {
      next.prefetch(pass * kTile / passes, (pass + 1) * kTile / passes);
      if (chunks - c0 >= CB) {
        accumulate_block<HB, CB>(p, correction, v_rows, n, d, c0, acc);
      } else {
        for (uint32_t c = c0; c < chunks; ++c) accumulate_block<HB, 1>(p, correction, v_rows, n, d, c, acc);
      }
    }
  }

  // The paired accumulators of g heads back in dimension order, into out[g][d]: per chunk of 32,
  // even dimensions 2j at j, odd ones 2j + 1 at 16 + j.
  static void unpair(const float* acc, uint32_t g, uint32_t d, float* out) {
    const uint32_t dp = padded(d);
    for (uint32_t h = 0; h < g; ++h)
      for (uint32_t i = 0; i < d; ++i)
        out[uint64_t{h} * d + i] = acc[uint64_t{h} * dp + i - i % kChunk + (i % 2) * 16 + i % kChunk / 2];
  }

 private:
  static __m512bh bh(__m512i x) { return reinterpret_cast<__m512bh&>(x); }
  static uint16_t to_bf16(float x) {  // round to nearest even (the inputs are finite)
    uint32_t bits;
    std::memcpy(&bits, &x, 4);
    return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  }
  static float from_bf16(uint16_t b) {
    const uint32_t bits = uint32_t{b} << 16;
    float x;
    std::memcpy(&x, &bits, 4);
    return x;
  }

  template <uint32_t HB, uint32_t CB>
  static void accumulate_block(const float* p, const float* correction,
                               const uint8_t* const* v_rows, uint32_t n, uint32_t d, uint32_t c0,
                               float* acc) {
    const uint32_t dp = padded(d);
    const __mmask32 tail = d % kChunk ? (1u << (d % kChunk)) - 1 : ~0u;
    __m512 even[HB][CB], odd[HB][CB];
    for (uint32_t h = 0; h < HB; ++h) {
      const __m512 c_h = _mm512_set1_ps(correction[h]);
      for (uint32_t c = 0; c < CB; ++c) {
        float* a = acc + uint64_t{h} * dp + (c0 + c) * kChunk;
        even[h][c] = _mm512_mul_ps(_mm512_loadu_ps(a), c_h);
        odd[h][c] = _mm512_mul_ps(_mm512_loadu_ps(a + 16), c_h);
      }
    }
    const __m512i high = _mm512_set1_epi32(static_cast<int>(0xffff0000u));
    for (uint32_t t = 0; t < n; ++t) {
      __m512 ve[CB], vo[CB];
      for (uint32_t c = 0; c < CB; ++c) {
        const uint32_t i = (c0 + c) * kChunk;
        const __m512i v = _mm512_maskz_loadu_epi16(i + kChunk <= d ? ~0u : tail, v_rows[t] + 2 * i);
        ve[c] = _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));  // even elements, widened
        vo[c] = _mm512_castsi512_ps(_mm512_and_si512(v, high));  // odd elements, in place
      }
      for (uint32_t h = 0; h < HB; ++h) {
        const __m512 w = _mm512_set1_ps(p[uint64_t{h} * kTile + t]);
        for (uint32_t c = 0; c < CB; ++c) {
          even[h][c] = _mm512_fmadd_ps(w, ve[c], even[h][c]);
          odd[h][c] = _mm512_fmadd_ps(w, vo[c], odd[h][c]);
        }
      }
    }
    for (uint32_t h = 0; h < HB; ++h) {
      for (uint32_t c = 0; c < CB; ++c) {
        float* a = acc + uint64_t{h} * dp + (c0 + c) * kChunk;
        _mm512_storeu_ps(a, even[h][c]);
        _mm512_storeu_ps(a + 16, odd[h][c]);
      }
    }
  }
};

}  // namespace
}  // namespace kvbench
