// Decode attention on the CPU. The kernel streams each (page, head) run of K once, scoring it
// against the group's query heads held in L1, then V once, accumulating in fp32 with an online
// softmax per tile of tokens (one rescale per tile, not per token).
#include "decode_attention.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <thread>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace kvbench {
namespace {

constexpr uint32_t kTile = 32;  // tokens scored before one softmax rescale

struct Partial {
  std::vector<float> m, l, acc;  // per query head of the group: running max, sum, sum of p.v
};

// q . k over one head's dimension (fp32, two accumulators to hide the FMA latency).
inline float dot(const float* a, const float* b, uint32_t n) {
  uint32_t i = 0;
  float sum = 0.0f;
#if defined(__AVX2__) && defined(__FMA__)
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
  }
  for (; i + 8 <= n; i += 8)
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
  const __m256 v = _mm256_add_ps(s0, s1);
  __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  x = _mm_add_ps(x, _mm_movehl_ps(x, x));
  x = _mm_add_ss(x, _mm_movehdup_ps(x));
  sum = _mm_cvtss_f32(x);
#endif
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// scores[h * stride] = scale * q_h . k for the g heads of a group: the row is loaded once per
// 8 values and used by four heads at a time.
inline void group_dots(const float* q, const float* k, uint32_t g, uint32_t d, float scale,
                       float* scores, uint32_t stride) {
  uint32_t h = 0;
#if defined(__AVX2__) && defined(__FMA__)
  if (d % 8 == 0) {
    for (; h + 4 <= g; h += 4) {
      const float* q0 = q + uint64_t{h} * d;
      __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
      for (uint32_t i = 0; i < d; i += 8) {
        const __m256 kv = _mm256_loadu_ps(k + i);
        a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q0 + i), kv, a0);
        a1 = _mm256_fmadd_ps(_mm256_loadu_ps(q0 + d + i), kv, a1);
        a2 = _mm256_fmadd_ps(_mm256_loadu_ps(q0 + 2 * d + i), kv, a2);
        a3 = _mm256_fmadd_ps(_mm256_loadu_ps(q0 + 3 * d + i), kv, a3);
      }
      // Four horizontal sums at once: hadd pairs, then fold the 128-bit halves.
      const __m256 s01 = _mm256_hadd_ps(a0, a1), s23 = _mm256_hadd_ps(a2, a3);
      const __m256 s = _mm256_hadd_ps(s01, s23);
      const __m128 four = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
      alignas(16) float out[4];
      _mm_store_ps(out, _mm_mul_ps(four, _mm_set1_ps(scale)));
      for (uint32_t j = 0; j < 4; ++j) scores[uint64_t{h + j} * stride] = out[j];
    }
  }
#endif
  for (; h < g; ++h) scores[uint64_t{h} * stride] = dot(q + uint64_t{h} * d, k, d) * scale;
}

// acc[0..d) = acc + sum over the tile's n rows of p[t] * v[t][0..d).
inline void accumulate_tile(const float* p, const float* v, uint32_t n, uint32_t d, float* acc) {
  uint32_t i = 0;
#if defined(__AVX2__) && defined(__FMA__)
  // Eight independent accumulators: enough FMAs in flight to cover their latency.
  for (; i + 64 <= d; i += 64) {
    __m256 a[8];
    for (int j = 0; j < 8; ++j) a[j] = _mm256_loadu_ps(acc + i + 8 * j);
    for (uint32_t t = 0; t < n; ++t) {
      const __m256 w = _mm256_set1_ps(p[t]);
      const float* row = v + uint64_t{t} * d + i;
      for (int j = 0; j < 8; ++j) a[j] = _mm256_fmadd_ps(w, _mm256_loadu_ps(row + 8 * j), a[j]);
    }
    for (int j = 0; j < 8; ++j) _mm256_storeu_ps(acc + i + 8 * j, a[j]);
  }
  for (; i + 8 <= d; i += 8) {
    __m256 a0 = _mm256_loadu_ps(acc + i);
    for (uint32_t t = 0; t < n; ++t) {
      a0 = _mm256_fmadd_ps(_mm256_set1_ps(p[t]), _mm256_loadu_ps(v + uint64_t{t} * d + i), a0);
    }
    _mm256_storeu_ps(acc + i, a0);
  }
#endif
  for (; i < d; ++i) {
    float a = acc[i];
    for (uint32_t t = 0; t < n; ++t) a += p[t] * v[uint64_t{t} * d + i];
    acc[i] = a;
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

// p[t] = e^(s[t] - m) for the n scores of a tile; returns their sum.
inline float exp_tile(float* sc, uint32_t n, float m) {
  uint32_t t = 0;
  float sum = 0.0f;
#if defined(__AVX2__) && defined(__FMA__)
  __m256 acc = _mm256_setzero_ps();
  for (; t + 8 <= n; t += 8) {
    const __m256 p = exp8(_mm256_sub_ps(_mm256_loadu_ps(sc + t), _mm256_set1_ps(m)));
    _mm256_storeu_ps(sc + t, p);
    acc = _mm256_add_ps(acc, p);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc);
  for (float x : lanes) sum += x;
#endif
  for (; t < n; ++t) sum += (sc[t] = std::exp(sc[t] - m));
  return sum;
}

// Walks a sequence's rows page by page without a division per token.
struct RowCursor {
  const PagedKv& kv;
  uint64_t seq;
  uint32_t head;
  uint64_t page_index, slot;
  const uint64_t row_bytes;
  RowCursor(const PagedKv& k, uint64_t s, uint32_t h, uint64_t token)
      : kv(k),
        seq(s),
        head(h),
        page_index(token / k.shape.page_size),
        slot(token % k.shape.page_size),
        row_bytes(uint64_t{k.shape.head_dim} * kv_type_bytes(k.shape.kv_type)) {}
  uint64_t offset() const {
    return (uint64_t{kv.pages[seq][page_index]} * kv.shape.kv_heads + head) * kv.page_bytes() +
           slot * row_bytes;
  }
  void next() {
    if (++slot == kv.shape.page_size) {
      slot = 0;
      ++page_index;
    }
  }
};

void run_unit(const PagedKv& kv, uint64_t seq, uint32_t kv_head, uint64_t begin, uint64_t end,
              Partial& part, std::vector<float>& row, std::vector<float>& scores) {
  const AttentionShape& s = kv.shape;
  const uint32_t g = s.q_heads / s.kv_heads, d = s.head_dim;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const float* q = kv.q.data() + (seq * s.q_heads + uint64_t{kv_head} * g) * d;
  part.m.assign(g, -std::numeric_limits<float>::infinity());
  part.l.assign(g, 0.0f);
  part.acc.assign(uint64_t{g} * d, 0.0f);
  // Rows of this tile and the next: the next tile's K and V lines are prefetched while this one
  // computes, because shuffled pages defeat the hardware prefetcher at every page boundary.
  RowCursor cursor(kv, seq, kv_head, begin);
  uint64_t offsets[kTile], upcoming[kTile];
  const uint64_t row_bytes = cursor.row_bytes;
  auto fill = [&](uint64_t* into, uint64_t from) {
    const uint32_t count =
        static_cast<uint32_t>(std::min<uint64_t>(kTile, end > from ? end - from : 0));
    for (uint32_t t = 0; t < count; ++t, cursor.next()) into[t] = cursor.offset();
    return count;
  };
  uint32_t upcoming_count = fill(upcoming, begin);
  for (uint64_t t0 = begin; t0 < end; t0 += kTile) {
    const uint32_t n = upcoming_count;
    std::copy(upcoming, upcoming + n, offsets);
    upcoming_count = fill(upcoming, t0 + kTile);
    // Prefetches go out a row at a time, spread over the tile's work: a burst of hundreds would
    // overflow the core's miss buffers and be dropped.
    auto prefetch_row = [&](uint32_t t) {
      if (t >= upcoming_count) return;
      for (uint64_t line = 0; line < row_bytes; line += 64) {
        __builtin_prefetch(kv.k.data() + upcoming[t] + line);
        __builtin_prefetch(kv.v.data() + upcoming[t] + line);
      }
    };
    // Scores of the tile: each K row is read once and dotted with the g query heads of its group.
    for (uint32_t t = 0; t < n; ++t) {
      prefetch_row(t);
      float* k_row = row.data() + uint64_t{t} * d;
      dequantize_row(s.kv_type, kv.k.data() + offsets[t], d, kv.k_scale, k_row);
      group_dots(q, k_row, g, d, scale, scores.data() + t, kTile);
    }
    for (uint32_t h = 0; h < g; ++h) {  // one rescale per head per tile
      float* sh = &scores[uint64_t{h} * kTile];
      const float tile_max = *std::max_element(sh, sh + n);
      const float m_new = std::max(part.m[h], tile_max);
      const float correction = std::exp(part.m[h] - m_new);
      float* acc = &part.acc[uint64_t{h} * d];
      for (uint32_t i = 0; i < d; ++i) acc[i] *= correction;
      part.l[h] = part.l[h] * correction + exp_tile(sh, n, m_new);
      part.m[h] = m_new;
    }
    for (uint32_t t = n; t < upcoming_count; ++t) prefetch_row(t);
    // V rows of the tile read once, then accumulated for each head with the running sums kept
    // in registers across the tile (one load and store of the accumulators per tile).
    for (uint32_t t = 0; t < n; ++t) {
      dequantize_row(s.kv_type, kv.v.data() + offsets[t], d, kv.v_scale,
                     row.data() + uint64_t{t} * d);
    }
    for (uint32_t h = 0; h < g; ++h) {
      accumulate_tile(scores.data() + uint64_t{h} * kTile, row.data(), n, d,
                      part.acc.data() + uint64_t{h} * d);
    }
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
    std::vector<float> row(uint64_t{kTile} * d), scores(uint64_t{g} * kTile);  // a tile of rows
    for (uint64_t i = next++; i < units.size(); i = next++) {
      run_unit(kv, units[i].seq, units[i].head, units[i].begin, units[i].end, partials[i], row,
               scores);
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
      for (uint32_t i = 0; i < d; ++i) o[i] /= l;
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
