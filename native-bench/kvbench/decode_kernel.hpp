// The CPU decode-attention kernel, written once against a lanes type S (simd_*.hpp) and compiled
// once per instruction set by kernel_*.cpp. Per tile of 16 tokens it reads each K row once,
// converting S::kWidth values at a time straight into registers and scoring them against up to
// four query heads of the group, then each V row once, accumulating in fp32 registers across the
// tile; an online softmax rescales once per tile, and the rows two tiles on are prefetched during
// this one's work. Internal linkage: every path gets its own copy, built for its own target.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernel_units.hpp"

namespace kvbench {
namespace {

constexpr uint32_t kTile = 16;  // tokens scored before one softmax rescale (one 16-token page)
constexpr uint32_t kAhead = 2;  // tiles between the one scored and the one prefetched

// Software prefetch of rows [from, to) of a tile kAhead tiles on, a few lines at a time between
// the current tile's work: shuffled pages defeat the hardware prefetcher at every page boundary,
// and a burst of hundreds of prefetches would stall on the core's miss buffers. Into every cache
// level (prefetcht0): on this project's EPYC prefetcht2 made the step 1.25-1.5x as long from DRAM,
// and small tiles keep the ring of prefetched rows (3 x 16 tokens of K and V) inside L1.
struct NextTile {
  const uint8_t* const* rows = nullptr;  // null: nothing to prefetch (not the first head block)
  uint32_t count = 0;
  uint32_t row_bytes = 0;
  void prefetch(uint32_t from, uint32_t to) const {
    if (rows == nullptr) return;
    for (uint32_t t = from; t < std::min(to, count); ++t)
      for (uint32_t line = 0; line < row_bytes; line += 64)
        __builtin_prefetch(rows[t] + line, 0, 3);
  }
};

// One value as S::load_raw gives it, for the dimensions past the last multiple of the width.
template <class S, KvType T>
inline float raw_value(const uint8_t* row, uint32_t i) {
  return dequantize(T, row + uint64_t{i} * kv_type_bytes(T), 1.0f) / S::template raw_scale<T>();
}

// scores[h * kTile + t] = q'_h . k_t for HB heads from q (pre-scaled) and TB tokens: each K row
// chunk is converted once and used by HB heads; HB x TB independent accumulators cover the FMA
// latency (HB x TB = S::kAccumulators).
template <class S, KvType T, uint32_t HB, uint32_t TB>
inline void score_block(const float* q, const uint8_t* const* k_rows, uint32_t d, float* scores) {
  constexpr uint32_t W = S::kWidth;
  typename S::V acc[TB][HB];
  for (uint32_t t = 0; t < TB; ++t)
    for (uint32_t h = 0; h < HB; ++h) acc[t][h] = S::zero();
  const uint32_t dw = d / W * W;
  for (uint32_t i = 0; i < dw; i += W) {
    typename S::V qh[HB];
    for (uint32_t h = 0; h < HB; ++h) qh[h] = S::load(q + uint64_t{h} * d + i);
    for (uint32_t t = 0; t < TB; ++t) {
      const typename S::V k = S::template load_raw<T>(k_rows[t], i);
      for (uint32_t h = 0; h < HB; ++h) acc[t][h] = S::fma(qh[h], k, acc[t][h]);
    }
  }
  for (uint32_t t = 0; t < TB; ++t) {
    float sums[HB];
    S::sums(acc[t], HB, sums);
    for (uint32_t i = dw; i < d; ++i) {
      const float k = raw_value<S, T>(k_rows[t], i);
      for (uint32_t h = 0; h < HB; ++h) sums[h] += q[uint64_t{h} * d + i] * k;
    }
    for (uint32_t h = 0; h < HB; ++h) scores[uint64_t{h} * kTile + t] = sums[h];
  }
}

// Scores of the tile's n tokens for HB heads: blocks of kAccumulators / HB tokens, then one at a
// time.
template <class S, KvType T, uint32_t HB>
inline void score_heads(const float* q, const uint8_t* const* k_rows, uint32_t n, uint32_t d,
                        float* scores, const NextTile& next) {
  constexpr uint32_t TB = S::kAccumulators / HB;
  uint32_t t = 0;
  for (; t + TB <= n; t += TB) {
    next.prefetch(t, t + TB);
    score_block<S, T, HB, TB>(q, k_rows + t, d, scores + t);
  }
  for (; t < n; ++t) score_block<S, T, HB, 1>(q, k_rows + t, d, scores + t);
  next.prefetch(n, kTile);
}

// acc[h][0..d) = acc * correction[h] + sum over the tile's n tokens of p[h][t] * v_t for HB
// heads: CB chunks of S::kWidth dimensions at a time, converted once per token and kept in
// registers across the tile (the online softmax's rescale folded into their load).
template <class S, KvType T, uint32_t HB, uint32_t CB>
inline void accumulate_block(const float* p, const float* correction, const uint8_t* const* v_rows,
                             uint32_t n, uint32_t d, uint32_t i, float* acc) {
  constexpr uint32_t W = S::kWidth;
  typename S::V a[HB][CB];
  for (uint32_t h = 0; h < HB; ++h) {
    const typename S::V c_h = S::splat(correction[h]);
    for (uint32_t c = 0; c < CB; ++c)
      a[h][c] = S::mul(S::load(acc + uint64_t{h} * d + i + W * c), c_h);
  }
  for (uint32_t t = 0; t < n; ++t) {
    typename S::V v[CB];
    for (uint32_t c = 0; c < CB; ++c) v[c] = S::template load_raw<T>(v_rows[t], i + W * c);
    for (uint32_t h = 0; h < HB; ++h) {
      const typename S::V w = S::splat(p[uint64_t{h} * kTile + t]);
      for (uint32_t c = 0; c < CB; ++c) a[h][c] = S::fma(w, v[c], a[h][c]);
    }
  }
  for (uint32_t h = 0; h < HB; ++h)
    for (uint32_t c = 0; c < CB; ++c) S::store(acc + uint64_t{h} * d + i + W * c, a[h][c]);
}

template <class S, KvType T, uint32_t HB>
inline void accumulate_heads(const float* p, const float* correction, const uint8_t* const* v_rows,
                             uint32_t n, uint32_t d, float* acc, const NextTile& next) {
  constexpr uint32_t W = S::kWidth, CB = S::kAccumulators / HB;
  const uint32_t dw = d / W * W, passes = std::max(1u, dw / (W * CB));
  uint32_t i = 0;
  for (uint32_t pass = 0; i + W * CB <= dw; i += W * CB, ++pass) {
    next.prefetch(pass * kTile / passes, (pass + 1) * kTile / passes);
    accumulate_block<S, T, HB, CB>(p, correction, v_rows, n, d, i, acc);
  }
  if (dw < W * CB) next.prefetch(0, kTile);
  for (; i < dw; i += W) accumulate_block<S, T, HB, 1>(p, correction, v_rows, n, d, i, acc);
  for (; i < d; ++i) {
    for (uint32_t h = 0; h < HB; ++h) {
      float s = acc[uint64_t{h} * d + i] * correction[h];
      for (uint32_t t = 0; t < n; ++t)
        s += p[uint64_t{h} * kTile + t] * raw_value<S, T>(v_rows[t], i);
      acc[uint64_t{h} * d + i] = s;
    }
  }
}

// e^(x - m) for x - m <= 0 (scores minus their running max), in S's lanes: Cephes' expf, range
// reduction by ln 2 and a degree-5 polynomial; relative error about 2e-7, well inside the check.
template <class S>
inline typename S::V exp_minus(typename S::V x, float m) {
  using V = typename S::V;
  x = S::max(S::sub(x, S::splat(m)), S::splat(-87.3f));
  const V n = S::round(S::mul(x, S::splat(1.44269504088896341f)));  // x / ln 2, to nearest
  x = S::fma(n, S::splat(-0.693359375f), x);
  x = S::fma(n, S::splat(2.12194440e-4f), x);
  V y = S::splat(1.9875691500e-4f);
  for (float c :
       {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f})
    y = S::fma(y, x, S::splat(c));
  y = S::fma(y, S::mul(x, x), S::add(x, S::splat(1.0f)));
  return S::mul(y, S::pow2(n));
}

// p[t] = e^(s[t] - m) for the n scores of a tile, returning their sum; p is then stored times
// `weight` (the V type's raw scale), which the sum does not include.
template <class S>
inline float exp_tile(float* sc, uint32_t n, float m, float weight) {
  constexpr uint32_t W = S::kWidth;
  typename S::V acc = S::zero();
  uint32_t t = 0;
  for (; t + W <= n; t += W) {
    const typename S::V p = exp_minus<S>(S::load(sc + t), m);
    S::store(sc + t, S::mul(p, S::splat(weight)));
    acc = S::add(acc, p);
  }
  float sum = S::sum1(acc);
  for (; t < n; ++t) {
    const float p = std::exp(sc[t] - m);
    sum += p;
    sc[t] = p * weight;
  }
  return sum;
}

// Walks a sequence's rows of one KV head page by page without a division per token.
struct RowCursor {
  const PagedKv& kv;
  uint64_t seq;
  uint32_t head;
  uint64_t page_index, slot;
  RowCursor(const PagedKv& k, uint64_t s, uint32_t h, uint64_t token)
      : kv(k),
        seq(s),
        head(h),
        page_index(token / k.shape.page_size),
        slot(token % k.shape.page_size) {}
  uint64_t offset() const { return kv.row_offset(kv.pages[seq][page_index], head, slot); }
  void next() {
    if (++slot == kv.shape.page_size) {
      slot = 0;
      ++page_index;
    }
  }
};

// Per-thread scratch for a unit's KV heads: each head's group of scaled queries and a tile's
// scores; for a lanes type with a bf16 tile (S::kBf16Pairs), the queries in bf16, its
// accumulators and a row of zeros; for int8 dot products (S::kInt8Dot), the queries in int16 and
// their scales.
struct Scratch {
  std::vector<float> q, scores, correction;
  std::vector<uint16_t> q_hi, q_lo;
  std::vector<uint8_t> split_q;
  std::vector<float> acc_pairs;
  std::vector<uint8_t> zero_row;
  std::vector<int16_t> q16;
  std::vector<float> q16_scale;
};

// Whether S scores and accumulates T with its own bf16 tile instead of the generic blocks.
template <class S, KvType T>
constexpr bool kPairTile = S::kBf16Pairs&& T == KvType::kBf16;

// Whether S scores T by int8 dot products instead of the generic blocks.
template <class S, KvType T>
constexpr bool kInt8Tile = S::kInt8Dot&& T == KvType::kInt8;

// Calls f(std::integral_constant<uint32_t, HB>, h) over the g heads of a group in blocks of four,
// then two, then one.
template <class F>
inline void for_head_blocks(uint32_t g, F&& f) {
  uint32_t h = 0;
  for (; h + 4 <= g; h += 4) f(std::integral_constant<uint32_t, 4>{}, h);
  for (; h + 2 <= g; h += 2) f(std::integral_constant<uint32_t, 2>{}, h);
  for (; h < g; ++h) f(std::integral_constant<uint32_t, 1>{}, h);
}

// Query values per KV head in the prepared (padded) forms of the bf16 and int8 tiles.
template <class S>
inline uint64_t padded_group(uint32_t g, uint32_t d) {
  if constexpr (S::kBf16Pairs || S::kInt8Dot) {
    return uint64_t{g} * S::padded(d);
  } else {
    return 0;
  }
}

template <class S, KvType T>
void run_unit(const PagedKv& kv, const WorkUnit& unit, Partial& part, Scratch& scratch) {
  const AttentionShape& s = kv.shape;
  const uint32_t g = s.q_heads / s.kv_heads, d = s.head_dim;
  const uint64_t gd = uint64_t{g} * d, gp = padded_group<S>(g, d);
  // The softmax scale, K's tensor scale and its raw scale: folded into the queries once, or (bf16
  // tile, whose queries stay as the model gave them) into each block of scores.
  const float q_scale = kv.k_scale * S::template raw_scale<T>() / std::sqrt(static_cast<float>(d));
  for (uint32_t j = 0; j < unit.heads; ++j) {  // each KV head's group of queries, prepared once
    const float* q_in = kv.q.data() + (unit.seq * s.q_heads + uint64_t{unit.head + j} * g) * d;
    float* q = scratch.q.data() + j * gd;
    if constexpr (kPairTile<S, T>) {
      scratch.split_q[j] = S::prepare_queries(q_in, g, d, scratch.q_hi.data() + j * gp,
                                              scratch.q_lo.data() + j * gp);
    } else {
      for (uint64_t i = 0; i < gd; ++i) q[i] = q_in[i] * q_scale;
    }
    if constexpr (kInt8Tile<S, T>) {
      S::prepare_queries(q, g, d, scratch.q16.data() + j * gp,
                         scratch.q16_scale.data() + uint64_t{j} * g);
    }
  }
  if constexpr (kPairTile<S, T>)
    std::fill(scratch.acc_pairs.begin(), scratch.acc_pairs.end(), 0.0f);
  float* scores = scratch.scores.data();
  float* correction = scratch.correction.data();
  part.m.assign(uint64_t{unit.heads} * g, -std::numeric_limits<float>::infinity());
  part.l.assign(uint64_t{unit.heads} * g, 0.0f);
  part.acc.assign(unit.heads * gd, 0.0f);
  // Row addresses of the unit's first KV head for this tile and the kAhead next, so the farthest
  // one's rows are prefetched meanwhile (a ring of kAhead + 1 tiles); head j's rows lie
  // j x head_stride further.
  RowCursor cursor(kv, unit.seq, unit.head, unit.begin);
  const uint8_t* rows[kAhead + 1][2][kTile];  // [tile in the ring][K, V][token]
  uint32_t counts[kAhead + 1];
  auto fill = [&](const uint8_t*(&into)[2][kTile], uint64_t from) {
    const uint32_t count =
        static_cast<uint32_t>(std::min<uint64_t>(kTile, unit.end > from ? unit.end - from : 0));
    for (uint32_t t = 0; t < count; ++t, cursor.next()) {
      into[0][t] = kv.pool.data() + cursor.offset();
      into[1][t] = into[0][t] + kv.v_offset;
    }
    return count;
  };
  for (uint32_t a = 0; a < kAhead; ++a) counts[a] = fill(rows[a], unit.begin + a * kTile);
  const uint32_t row_bytes = static_cast<uint32_t>(kv.row_bytes());
  for (uint64_t t0 = unit.begin, tile = 0; t0 < unit.end; t0 += kTile, ++tile) {
    const uint32_t n = counts[tile % (kAhead + 1)];
    const uint32_t far = (tile + kAhead) % (kAhead + 1);
    counts[far] = fill(rows[far], t0 + kAhead * kTile);
    for (uint32_t j = 0; j < unit.heads; ++j) {  // the tile's tokens, one KV head after another
      const uint64_t shift = j * kv.head_stride;
      // This head's rows, and those it prefetches, as arrays of addresses: an offset added inside
      // NextTile::prefetch made the step 2.6x as long from DRAM (GCC 12, measured).
      const uint8_t *k_rows[kTile], *v_rows[kTile], *k_far[kTile], *v_far[kTile];
      for (uint32_t t = 0; t < n; ++t) {
        k_rows[t] = rows[tile % (kAhead + 1)][0][t] + shift;
        v_rows[t] = rows[tile % (kAhead + 1)][1][t] + shift;
      }
      for (uint32_t t = 0; t < counts[far]; ++t) {
        k_far[t] = rows[far][0][t] + shift;
        v_far[t] = rows[far][1][t] + shift;
      }
      const NextTile next_k{k_far, counts[far], row_bytes};
      const NextTile next_v{v_far, counts[far], row_bytes};
      const NextTile none{};
      const float* q = scratch.q.data() + j * gd;
      float *m = part.m.data() + uint64_t{j} * g, *l = part.l.data() + uint64_t{j} * g;
      float* acc = part.acc.data() + j * gd;
      // Scores: each K row read once for the whole group, four heads at a time.
      for_head_blocks(g, [&](auto hb, uint32_t h) {
        constexpr uint32_t HB = decltype(hb)::value;
        float* sh = scores + uint64_t{h} * kTile;
        const NextTile& next = h == 0 ? next_k : none;
        if constexpr (kPairTile<S, T>) {
          const uint64_t at = j * gp + uint64_t{h} * S::padded(d);
          const uint16_t *hi = scratch.q_hi.data() + at, *lo = scratch.q_lo.data() + at;
          if (scratch.split_q[j]) {
            S::template score_heads<HB, true>(hi, lo, k_rows, n, d, q_scale,
                                              scratch.zero_row.data(), sh, next);
          } else {
            S::template score_heads<HB, false>(hi, lo, k_rows, n, d, q_scale,
                                               scratch.zero_row.data(), sh, next);
          }
        } else if constexpr (kInt8Tile<S, T>) {
          const uint64_t at = j * gp + uint64_t{h} * S::padded(d);
          S::template score_heads<HB>(scratch.q16.data() + at,
                                      scratch.q16_scale.data() + uint64_t{j} * g + h, k_rows, n, d,
                                      scratch.zero_row.data(), sh, next);
        } else {
          score_heads<S, T, HB>(q + uint64_t{h} * d, k_rows, n, d, sh, next);
        }
      });
      for (uint32_t h = 0; h < g; ++h) {  // one rescale per head per tile
        float* sh = scores + uint64_t{h} * kTile;
        const float m_new = std::max(m[h], *std::max_element(sh, sh + n));
        correction[h] = std::exp(m[h] - m_new);
        l[h] = l[h] * correction[h] + exp_tile<S>(sh, n, m_new, S::template raw_scale<T>());
        m[h] = m_new;
      }
      // V: each row read once per block of heads, accumulated in registers across the tile.
      for_head_blocks(g, [&](auto hb, uint32_t h) {
        constexpr uint32_t HB = decltype(hb)::value;
        const float* ph = scores + uint64_t{h} * kTile;
        const NextTile& next = h == 0 ? next_v : none;
        if constexpr (kPairTile<S, T>) {
          S::template accumulate_heads<HB>(
              ph, correction + h, v_rows, n, d,
              scratch.acc_pairs.data() + j * gp + uint64_t{h} * S::padded(d), next);
        } else {
          accumulate_heads<S, T, HB>(ph, correction + h, v_rows, n, d, acc + uint64_t{h} * d, next);
        }
      });
    }
  }
  if constexpr (kPairTile<S, T>) {
    for (uint32_t j = 0; j < unit.heads; ++j)
      S::unpair(scratch.acc_pairs.data() + j * gp, g, d, part.acc.data() + j * gd);
  }
}

// A thread's loop: units from the queue until none is left, each by the kernel for its KV type.
template <class S>
void run_units(UnitQueue& queue) {
  const AttentionShape& s = queue.kv.shape;
  const uint32_t g = s.q_heads / s.kv_heads;
  const uint32_t heads = queue.units.empty() ? 1 : queue.units.front().heads;  // alike in a queue
  Scratch scratch{std::vector<float>(uint64_t{heads} * g * s.head_dim),
                  std::vector<float>(uint64_t{g} * kTile), std::vector<float>(g)};
  const uint64_t gp = padded_group<S>(g, s.head_dim);
  if constexpr (S::kBf16Pairs) {
    scratch.q_hi.resize(heads * gp);
    scratch.q_lo.resize(heads * gp);
    scratch.split_q.resize(heads);
    scratch.acc_pairs.resize(heads * gp);
    scratch.zero_row.assign(2 * gp / g, 0);
  }
  if constexpr (S::kInt8Dot) {
    scratch.q16.resize(heads * gp);
    scratch.q16_scale.resize(uint64_t{heads} * g);
    scratch.zero_row.assign(gp / g, 0);
  }
  auto unit_kernel = [&]() -> void (*)(const PagedKv&, const WorkUnit&, Partial&, Scratch&) {
    switch (s.kv_type) {
      case KvType::kFp32:
        return run_unit<S, KvType::kFp32>;
      case KvType::kFp16:
        return run_unit<S, KvType::kFp16>;
      case KvType::kBf16:
        return run_unit<S, KvType::kBf16>;
      case KvType::kFp8E4m3:
        return run_unit<S, KvType::kFp8E4m3>;
      case KvType::kInt8:
        return run_unit<S, KvType::kInt8>;
    }
    return nullptr;
  }();
  for (uint64_t i = queue.next++; i < queue.units.size(); i = queue.next++)
    unit_kernel(queue.kv, queue.units[i], queue.partials[i], scratch);
}

}  // namespace
}  // namespace kvbench
