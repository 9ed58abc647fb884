// Decode attention on the CPU. Per tile of 32 tokens the kernel reads each K row once, converting
// eight values at a time straight into registers and scoring them against up to four query heads
// of the group, then each V row once, accumulating in fp32 registers across the tile; an online
// softmax rescales once per tile, and the next tile's rows are prefetched during this one's work.
#include "decode_attention.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <thread>
#include <type_traits>

#include "lanes.hpp"

namespace kvbench {
namespace {

constexpr uint32_t kTile = 32;  // tokens scored before one softmax rescale

struct Partial {
  std::vector<float> m, l, acc;  // per query head of the group: running max, sum, sum of p.v
};

using namespace lanes;  // the kernel's eight-lane operations (lanes.hpp)

// Software prefetch of rows [from, to) of the next tile, a few lines at a time between the
// current tile's work: shuffled pages defeat the hardware prefetcher at every page boundary,
// and a burst of hundreds of prefetches would stall on the core's miss buffers. Into L2, not
// L1: the current tile's rows, re-read by every V pass, stay in L1 (10-15% faster here).
struct NextTile {
  const uint8_t* const* rows = nullptr;  // null: nothing to prefetch (not the first head block)
  uint32_t count = 0;
  uint32_t row_bytes = 0;
  void prefetch(uint32_t from, uint32_t to) const {
    if (rows == nullptr) return;
    for (uint32_t t = from; t < std::min(to, count); ++t)
      for (uint32_t line = 0; line < row_bytes; line += 64)
        __builtin_prefetch(rows[t] + line, 0, 2);
  }
};

// scores[h * kTile + t] = q'_h . k_t for HB heads from q (pre-scaled) and TB tokens: each K row
// chunk is converted once and used by HB heads; HB x TB independent accumulators cover the FMA
// latency (HB x TB = 8).
template <KvType T, uint32_t HB, uint32_t TB>
inline void score_block(const float* q, const uint8_t* const* k_rows, uint32_t d, float* scores) {
  Lanes acc[HB][TB];
  for (uint32_t h = 0; h < HB; ++h)
    for (uint32_t t = 0; t < TB; ++t) acc[h][t] = zero();
  const uint32_t d8 = d / 8 * 8;
  for (uint32_t i = 0; i < d8; i += 8) {
    Lanes qh[HB];
    for (uint32_t h = 0; h < HB; ++h) qh[h] = load(q + uint64_t{h} * d + i);
    for (uint32_t t = 0; t < TB; ++t) {
      const Lanes k = load_raw<T>(k_rows[t], i);
      for (uint32_t h = 0; h < HB; ++h) acc[h][t] = fma(qh[h], k, acc[h][t]);
    }
  }
  for (uint32_t t = 0; t < TB; ++t) {
    float sums[HB];
    if constexpr (HB == 4) {
      sum4(acc[0][t], acc[1][t], acc[2][t], acc[3][t], sums);
    } else {
      for (uint32_t h = 0; h < HB; ++h) sums[h] = sum1(acc[h][t]);
    }
    for (uint32_t i = d8; i < d; ++i) {
      const float k = raw_value<T>(k_rows[t], i);
      for (uint32_t h = 0; h < HB; ++h) sums[h] += q[uint64_t{h} * d + i] * k;
    }
    for (uint32_t h = 0; h < HB; ++h) scores[uint64_t{h} * kTile + t] = sums[h];
  }
}

// Scores of the tile's n tokens for HB heads: blocks of 8 / HB tokens, then one at a time.
template <KvType T, uint32_t HB>
inline void score_heads(const float* q, const uint8_t* const* k_rows, uint32_t n, uint32_t d,
                        float* scores, const NextTile& next) {
  constexpr uint32_t TB = 8 / HB;
  uint32_t t = 0;
  for (; t + TB <= n; t += TB) {
    next.prefetch(t, t + TB);
    score_block<T, HB, TB>(q, k_rows + t, d, scores + t);
  }
  for (; t < n; ++t) score_block<T, HB, 1>(q, k_rows + t, d, scores + t);
  next.prefetch(n, kTile);
}

// acc[h][0..d) = acc * correction[h] + sum over the tile's n tokens of p[h][t] * v_t for HB
// heads: 8 / HB chunks of eight dimensions at a time, converted once per token and kept in
// registers across the tile (the online softmax's rescale folded into their load).
template <KvType T, uint32_t HB, uint32_t CB>
inline void accumulate_block(const float* p, const float* correction, const uint8_t* const* v_rows,
                             uint32_t n, uint32_t d, uint32_t i, float* acc) {
  Lanes a[HB][CB];
  for (uint32_t h = 0; h < HB; ++h) {
    const Lanes c_h = splat(correction[h]);
    for (uint32_t c = 0; c < CB; ++c) a[h][c] = mul(load(acc + uint64_t{h} * d + i + 8 * c), c_h);
  }
  for (uint32_t t = 0; t < n; ++t) {
    Lanes v[CB];
    for (uint32_t c = 0; c < CB; ++c) v[c] = load_raw<T>(v_rows[t], i + 8 * c);
    for (uint32_t h = 0; h < HB; ++h) {
      const Lanes w = splat(p[uint64_t{h} * kTile + t]);
      for (uint32_t c = 0; c < CB; ++c) a[h][c] = fma(w, v[c], a[h][c]);
    }
  }
  for (uint32_t h = 0; h < HB; ++h)
    for (uint32_t c = 0; c < CB; ++c) store(acc + uint64_t{h} * d + i + 8 * c, a[h][c]);
}

template <KvType T, uint32_t HB>
inline void accumulate_heads(const float* p, const float* correction, const uint8_t* const* v_rows,
                             uint32_t n, uint32_t d, float* acc, const NextTile& next) {
  constexpr uint32_t CB = 8 / HB;
  const uint32_t d8 = d / 8 * 8, passes = std::max(1u, d8 / (8 * CB));
  uint32_t i = 0;
  for (uint32_t pass = 0; i + 8 * CB <= d8; i += 8 * CB, ++pass) {
    next.prefetch(pass * kTile / passes, (pass + 1) * kTile / passes);
    accumulate_block<T, HB, CB>(p, correction, v_rows, n, d, i, acc);
  }
  if (d8 < 8 * CB) next.prefetch(0, kTile);
  for (; i < d8; i += 8) accumulate_block<T, HB, 1>(p, correction, v_rows, n, d, i, acc);
  for (; i < d; ++i) {
    for (uint32_t h = 0; h < HB; ++h) {
      float s = acc[uint64_t{h} * d + i] * correction[h];
      for (uint32_t t = 0; t < n; ++t) s += p[uint64_t{h} * kTile + t] * raw_value<T>(v_rows[t], i);
      acc[uint64_t{h} * d + i] = s;
    }
  }
}

// e^x for 8 lanes (Cephes' expf: range reduction by ln 2, degree-5 polynomial; relative error
// about 2e-7, well inside the check's tolerance). x <= 0 here: scores minus their running max.
#if defined(__AVX2__) && defined(__FMA__)
inline __m256 exp8(__m256 x) {
  x = _mm256_max_ps(x, _mm256_set1_ps(-87.3f));
  const __m256 fx = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), x);
  x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), x);
  __m256 y = _mm256_set1_ps(1.9875691500e-4f);
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.3981999507e-3f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(8.3334519073e-3f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(4.1665795894e-2f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.6666665459e-1f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(5.0000001201e-1f));
  y = _mm256_fmadd_ps(y, _mm256_mul_ps(x, x), _mm256_add_ps(x, _mm256_set1_ps(1.0f)));
  const __m256i e =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fx), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(y, _mm256_castsi256_ps(e));
}
#endif

// p[t] = e^(s[t] - m) for the n scores of a tile, returning their sum; p is then stored times
// `weight` (the V type's raw scale), which the sum does not include.
inline float exp_tile(float* sc, uint32_t n, float m, float weight) {
  uint32_t t = 0;
  float sum = 0.0f;
#if defined(__AVX2__) && defined(__FMA__)
  __m256 acc = _mm256_setzero_ps();
  for (; t + 8 <= n; t += 8) {
    const __m256 p = exp8(_mm256_sub_ps(_mm256_loadu_ps(sc + t), _mm256_set1_ps(m)));
    _mm256_storeu_ps(sc + t, _mm256_mul_ps(p, _mm256_set1_ps(weight)));
    acc = _mm256_add_ps(acc, p);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc);
  for (float x : lanes) sum += x;
#endif
  for (; t < n; ++t) {
    const float p = std::exp(sc[t] - m);
    sum += p;
    sc[t] = p * weight;
  }
  return sum;
}

// Walks a sequence's rows page by page without a division per token.
struct RowCursor {
  const PagedKv& kv;
  uint64_t seq;
  uint32_t head;
  uint64_t page_index, slot;
  const uint64_t row_bytes, page_bytes;
  RowCursor(const PagedKv& k, uint64_t s, uint32_t h, uint64_t token)
      : kv(k),
        seq(s),
        head(h),
        page_index(token / k.shape.page_size),
        slot(token % k.shape.page_size),
        row_bytes(uint64_t{k.shape.head_dim} * kv_type_bytes(k.shape.kv_type)),
        page_bytes(k.page_bytes()) {}
  uint64_t offset() const {
    return (uint64_t{kv.pages[seq][page_index]} * kv.shape.kv_heads + head) * page_bytes +
           slot * row_bytes;
  }
  void next() {
    if (++slot == kv.shape.page_size) {
      slot = 0;
      ++page_index;
    }
  }
};

// Per-thread scratch: the group's scaled queries and a tile's scores.
struct Scratch {
  std::vector<float> q, scores, correction;
};

// Calls f(std::integral_constant<uint32_t, HB>, h) over the g heads of a group in blocks of four,
// then two, then one.
template <class F>
inline void for_head_blocks(uint32_t g, F&& f) {
  uint32_t h = 0;
  for (; h + 4 <= g; h += 4) f(std::integral_constant<uint32_t, 4>{}, h);
  for (; h + 2 <= g; h += 2) f(std::integral_constant<uint32_t, 2>{}, h);
  for (; h < g; ++h) f(std::integral_constant<uint32_t, 1>{}, h);
}

template <KvType T>
void run_unit(const PagedKv& kv, uint64_t seq, uint32_t kv_head, uint64_t begin, uint64_t end,
              Partial& part, Scratch& scratch) {
  const AttentionShape& s = kv.shape;
  const uint32_t g = s.q_heads / s.kv_heads, d = s.head_dim;
  // The softmax scale, K's tensor scale and its raw scale folded into the queries once.
  const float q_scale = kv.k_scale * raw_scale<T>() / std::sqrt(static_cast<float>(d));
  const float* q_in = kv.q.data() + (seq * s.q_heads + uint64_t{kv_head} * g) * d;
  float* q = scratch.q.data();
  for (uint64_t i = 0; i < uint64_t{g} * d; ++i) q[i] = q_in[i] * q_scale;
  float* scores = scratch.scores.data();
  float* correction = scratch.correction.data();
  part.m.assign(g, -std::numeric_limits<float>::infinity());
  part.l.assign(g, 0.0f);
  part.acc.assign(uint64_t{g} * d, 0.0f);
  // Row addresses of this tile and the next, so the next one's rows are prefetched meanwhile.
  RowCursor cursor(kv, seq, kv_head, begin);
  const uint8_t* rows[2][2][kTile];  // [tile parity][K, V][token]
  auto fill = [&](const uint8_t*(&into)[2][kTile], uint64_t from) {
    const uint32_t count =
        static_cast<uint32_t>(std::min<uint64_t>(kTile, end > from ? end - from : 0));
    for (uint32_t t = 0; t < count; ++t, cursor.next()) {
      const uint64_t offset = cursor.offset();
      into[0][t] = kv.k.data() + offset;
      into[1][t] = kv.v.data() + offset;
    }
    return count;
  };
  uint32_t n = fill(rows[0], begin);
  for (uint64_t t0 = begin, tile = 0; t0 < end; t0 += kTile, ++tile) {
    const uint8_t* const* k_rows = rows[tile % 2][0];
    const uint8_t* const* v_rows = rows[tile % 2][1];
    const uint32_t upcoming = fill(rows[(tile + 1) % 2], t0 + kTile);
    const uint32_t row_bytes = static_cast<uint32_t>(cursor.row_bytes);
    const NextTile next_k{rows[(tile + 1) % 2][0], upcoming, row_bytes};
    const NextTile next_v{rows[(tile + 1) % 2][1], upcoming, row_bytes};
    const NextTile none{};
    // Scores: each K row read once for the whole group, four heads at a time.
    for_head_blocks(g, [&](auto hb, uint32_t h) {
      score_heads<T, decltype(hb)::value>(q + uint64_t{h} * d, k_rows, n, d,
                                          scores + uint64_t{h} * kTile, h == 0 ? next_k : none);
    });
    for (uint32_t h = 0; h < g; ++h) {  // one rescale per head per tile
      float* sh = scores + uint64_t{h} * kTile;
      const float m_new = std::max(part.m[h], *std::max_element(sh, sh + n));
      correction[h] = std::exp(part.m[h] - m_new);
      part.l[h] = part.l[h] * correction[h] + exp_tile(sh, n, m_new, raw_scale<T>());
      part.m[h] = m_new;
    }
    // V: each row read once per block of heads, accumulated in registers across the tile.
    for_head_blocks(g, [&](auto hb, uint32_t h) {
      accumulate_heads<T, decltype(hb)::value>(scores + uint64_t{h} * kTile, correction + h, v_rows,
                                               n, d, &part.acc[uint64_t{h} * d],
                                               h == 0 ? next_v : none);
    });
    n = upcoming;
  }
}

void run_unit(const PagedKv& kv, uint64_t seq, uint32_t kv_head, uint64_t begin, uint64_t end,
              Partial& part, Scratch& scratch) {
  switch (kv.shape.kv_type) {
    case KvType::kFp32:
      return run_unit<KvType::kFp32>(kv, seq, kv_head, begin, end, part, scratch);
    case KvType::kFp16:
      return run_unit<KvType::kFp16>(kv, seq, kv_head, begin, end, part, scratch);
    case KvType::kBf16:
      return run_unit<KvType::kBf16>(kv, seq, kv_head, begin, end, part, scratch);
    case KvType::kFp8E4m3:
      return run_unit<KvType::kFp8E4m3>(kv, seq, kv_head, begin, end, part, scratch);
    case KvType::kInt8:
      return run_unit<KvType::kInt8>(kv, seq, kv_head, begin, end, part, scratch);
  }
}

}  // namespace

std::vector<double> decode_attention_reference(const PagedKv& kv) {
  const AttentionShape& s = kv.shape;
  const uint32_t g = s.q_heads / s.kv_heads, d = s.head_dim;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  std::vector<double> out(kv.lengths.size() * s.q_heads * d, 0.0);
  for (uint64_t b = 0; b < kv.lengths.size(); ++b) {
    const uint64_t len = kv.lengths[b];
    for (uint32_t hq = 0; hq < s.q_heads; ++hq) {
      const uint32_t hk = hq / g;
      const float* q = kv.q.data() + (b * s.q_heads + hq) * d;
      std::vector<double> score(len);
      for (uint64_t t = 0; t < len; ++t) {
        double dot = 0;
        for (uint32_t i = 0; i < d; ++i) {
          dot +=
              double{q[i]} *
              dequantize(s.kv_type, kv.k_row(b, t, hk) + i * kv_type_bytes(s.kv_type), kv.k_scale);
        }
        score[t] = dot * scale;
      }
      const double m = *std::max_element(score.begin(), score.end());
      double sum = 0;
      for (double& x : score) sum += (x = std::exp(x - m));
      double* o = &out[(b * s.q_heads + hq) * d];
      for (uint64_t t = 0; t < len; ++t) {
        for (uint32_t i = 0; i < d; ++i) {
          o[i] +=
              score[t] *
              dequantize(s.kv_type, kv.v_row(b, t, hk) + i * kv_type_bytes(s.kv_type), kv.v_scale);
        }
      }
      for (uint32_t i = 0; i < d; ++i) o[i] /= sum;
    }
  }
  return out;
}

uint64_t auto_chunk_tokens(const PagedKv& kv, uint32_t threads) {
  uint64_t longest = 1;
  for (uint64_t len : kv.lengths) longest = std::max(longest, len);
  const uint64_t heads = kv.lengths.size() * kv.shape.kv_heads;
  const uint64_t want = uint64_t{threads} * 4;  // units per thread, for balance with ragged lengths
  if (heads >= want) return longest;
  const uint64_t chunks = (want + heads - 1) / heads;
  // At least 512 tokens, a whole number of pages: a chunk streams contiguous runs.
  const uint64_t page = kv.shape.page_size;
  const uint64_t chunk = std::max<uint64_t>(512, (longest + chunks - 1) / chunks);
  return (chunk + page - 1) / page * page;
}

void decode_attention_cpu(const PagedKv& kv, const CpuPlan& plan, float* out) {
  const AttentionShape& s = kv.shape;
  const uint32_t g = s.q_heads / s.kv_heads, d = s.head_dim;
  const uint32_t threads = std::max(1u, plan.threads);
  const uint64_t chunk = plan.chunk_tokens ? plan.chunk_tokens : auto_chunk_tokens(kv, threads);
  struct Unit {
    uint64_t seq;
    uint32_t head;
    uint64_t begin, end;
  };
  std::vector<Unit> units;
  std::vector<uint64_t> first_unit;  // per (seq, head): index of its first chunk
  for (uint64_t b = 0; b < kv.lengths.size(); ++b) {
    for (uint32_t h = 0; h < s.kv_heads; ++h) {
      first_unit.push_back(units.size());
      for (uint64_t t = 0; t < kv.lengths[b]; t += chunk) {
        units.push_back({b, h, t, std::min(kv.lengths[b], t + chunk)});
      }
    }
  }
  first_unit.push_back(units.size());
  std::vector<Partial> partials(units.size());
  std::atomic<uint64_t> next{0};
  auto worker = [&] {
    Scratch scratch{std::vector<float>(uint64_t{g} * d), std::vector<float>(uint64_t{g} * kTile),
                    std::vector<float>(g)};
    for (uint64_t i = next++; i < units.size(); i = next++) {
      run_unit(kv, units[i].seq, units[i].head, units[i].begin, units[i].end, partials[i], scratch);
    }
  };
  std::vector<std::thread> pool;
  for (uint32_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  // Merge the chunks of each (sequence, head) by their log-sum-exp, then normalize.
  for (uint64_t sh = 0; sh + 1 < first_unit.size(); ++sh) {
    const uint64_t b = sh / s.kv_heads;
    const uint32_t h = static_cast<uint32_t>(sh % s.kv_heads);
    for (uint32_t j = 0; j < g; ++j) {
      float m = -std::numeric_limits<float>::infinity();
      for (uint64_t u = first_unit[sh]; u < first_unit[sh + 1]; ++u)
        m = std::max(m, partials[u].m[j]);
      float* o = out + (b * s.q_heads + uint64_t{h} * g + j) * d;
      std::fill(o, o + d, 0.0f);
      float l = 0;
      for (uint64_t u = first_unit[sh]; u < first_unit[sh + 1]; ++u) {
        const float w = std::exp(partials[u].m[j] - m);
        l += partials[u].l[j] * w;
        const float* acc = &partials[u].acc[uint64_t{j} * d];
        for (uint32_t i = 0; i < d; ++i) o[i] += acc[i] * w;
      }
      const float normalize = kv.v_scale / l;  // V's tensor scale, applied once
      for (uint32_t i = 0; i < d; ++i) o[i] *= normalize;
    }
  }
}

Comparison compare(const std::vector<double>& reference, const float* out, double atol,
                   double rtol) {
  Comparison c;
  c.pass = true;
  for (uint64_t i = 0; i < reference.size(); ++i) {
    const double o = out[i], r = reference[i];
    if (!std::isfinite(o)) {
      c.all_finite = false;
      c.pass = false;
      continue;
    }
    const double err = std::fabs(o - r);
    c.max_abs_error = std::max(c.max_abs_error, err);
    c.max_rel_error = std::max(c.max_rel_error, err / std::max(std::fabs(r), 1e-6));
    if (err > atol + rtol * std::fabs(r)) c.pass = false;
  }
  return c;
}

}  // namespace kvbench
