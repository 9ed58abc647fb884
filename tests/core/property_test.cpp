// Invariants over thousands of random valid scenarios (fixed seed, so failures reproduce).
#include <gtest/gtest.h>

#include <random>

#include "kvscope/kv/kv_arithmetic.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

using test::kv_dtype;

constexpr int kScenarios = 3000;

struct Scenario {
  ModelShape shape;
  KvWorkload workload;
  std::string dtype;
};

const char* const kDtypes[] = {"fp32", "bf16",  "fp8",  "int8", "int8_per_token_head",
                               "int4", "nvfp4", "q8_0", "q4_0"};

Scenario random_scenario(std::mt19937_64& rng) {
  auto pick = [&rng](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  Scenario s;
  const uint64_t layers = pick(1, 96);
  for (uint64_t i = 0; i < layers; ++i) {
    LayerSpec l;
    const uint64_t kind = pick(0, 9);
    l.attention = kind < 5   ? AttentionKind::kFull
                  : kind < 7 ? AttentionKind::kSlidingWindow
                  : kind < 8 ? AttentionKind::kChunked
                  : kind < 9 ? AttentionKind::kMla
                             : AttentionKind::kNone;
    l.kv_heads = l.attention == AttentionKind::kMla ? 1 : static_cast<uint32_t>(pick(1, 64));
    l.k_head_dim = static_cast<uint32_t>(32 * pick(1, 8));
    l.v_head_dim = l.attention == AttentionKind::kMla ? 0 : static_cast<uint32_t>(32 * pick(1, 8));
    l.window_tokens = l.windowed() ? pick(1, 16384) : 0;
    if (l.attention == AttentionKind::kNone) {
      l.state = StateKind::kMamba;
      l.state_values = pick(1, 1 << 20);
    }
    s.shape.layers.push_back(l);
  }
  s.workload.context_tokens = pick(1, 1 << 20);
  s.workload.batch = pick(1, 256);
  s.workload.block_size_tokens = pick(0, 3) == 0 ? 0 : pick(1, 1024);
  s.workload.shared_prefix_tokens = pick(0, 1) == 0 ? 0 : pick(0, s.workload.context_tokens);
  s.dtype = kDtypes[pick(0, std::size(kDtypes) - 1)];
  return s;
}

KvEstimate ok(const ModelShape& shape, const KvWorkload& w, const std::string& dtype) {
  const Result<KvEstimate> r = kv_totals(shape, kv_dtype(dtype), kv_dtype("bf16"), w);
  EXPECT_TRUE(r.ok) << r.error.message;
  return r.value;
}

TEST(Properties, BytesGrowWithContextUntilTheWindowsAreFull) {
  std::mt19937_64 rng(20261202);
  for (int i = 0; i < kScenarios; ++i) {
    Scenario s = random_scenario(rng);
    KvWorkload shorter = s.workload;
    shorter.shared_prefix_tokens = 0;
    KvWorkload longer = shorter;
    longer.context_tokens += 1 + rng() % 5000;
    const KvEstimate a = ok(s.shape, shorter, s.dtype);
    const KvEstimate b = ok(s.shape, longer, s.dtype);
    ASSERT_LE(a.kv_bytes_per_sequence, b.kv_bytes_per_sequence) << i;
    ASSERT_LE(a.kv_bytes_total, b.kv_bytes_total) << i;
    ASSERT_EQ(a.kv_bytes_per_token, b.kv_bytes_per_token) << i;
    // Strictly more when any layer keeps every token.
    bool has_full = false;
    for (const LayerSpec& l : s.shape.layers)
      has_full = has_full || (l.keeps_tokens() && !l.windowed());
    if (has_full) ASSERT_LT(a.kv_bytes_per_sequence, b.kv_bytes_per_sequence) << i;
  }
}

TEST(Properties, BytesGrowWithHeadsDimsAndBytesPerValue) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < kScenarios; ++i) {
    Scenario s = random_scenario(rng);
    const KvEstimate base = ok(s.shape, s.workload, s.dtype);
    ModelShape more_heads = s.shape, wider = s.shape;
    for (LayerSpec& l : more_heads.layers) l.kv_heads += l.attention == AttentionKind::kMla ? 0 : 1;
    for (LayerSpec& l : wider.layers) l.k_head_dim += 32;
    ASSERT_LE(base.kv_bytes_total, ok(more_heads, s.workload, s.dtype).kv_bytes_total) << i;
    ASSERT_LE(base.kv_bytes_per_token, ok(wider, s.workload, s.dtype).kv_bytes_per_token) << i;
    if (base.kv_layers > 0)
      ASSERT_LT(base.kv_bytes_per_token, ok(wider, s.workload, s.dtype).kv_bytes_per_token);
    ASSERT_LE(ok(s.shape, s.workload, "fp8").kv_bytes_total,
              ok(s.shape, s.workload, "bf16").kv_bytes_total)
        << i;
    ASSERT_LE(ok(s.shape, s.workload, "bf16").kv_bytes_total,
              ok(s.shape, s.workload, "fp32").kv_bytes_total)
        << i;
  }
}

TEST(Properties, PagingNeverBelowUnpagedAndPrefixNeverAddsMemory) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < kScenarios; ++i) {
    Scenario s = random_scenario(rng);
    KvWorkload unpaged = s.workload;
    unpaged.block_size_tokens = 0;
    KvWorkload no_prefix = s.workload;
    no_prefix.shared_prefix_tokens = 0;
    KvWorkload plain = no_prefix;
    plain.block_size_tokens = 0;
    const KvEstimate paged_no_prefix = ok(s.shape, no_prefix, s.dtype);
    const KvEstimate plain_kv = ok(s.shape, plain, s.dtype);
    ASSERT_GE(paged_no_prefix.kv_bytes_total, plain_kv.kv_bytes_total) << i;
    ASSERT_EQ(plain_kv.kv_bytes_total, plain_kv.kv_bytes_per_sequence * s.workload.batch) << i;
    ASSERT_LE(ok(s.shape, s.workload, s.dtype).kv_bytes_total, paged_no_prefix.kv_bytes_total) << i;
    ASSERT_LE(ok(s.shape, unpaged, s.dtype).kv_bytes_total, plain_kv.kv_bytes_total) << i;
  }
}

TEST(Properties, CatalogueModelsAreMonotonicInContextAndDtype) {
  for (const ModelEntry& m : model_catalog()) {
    const ModelShape shape = test::catalog_shape(m.id);
    uint64_t previous = 0;
    for (uint64_t context = 1; context <= (uint64_t{1} << 20); context *= 4) {
      const uint64_t bytes = ok(shape, {context, 1, 16, 0}, "bf16").kv_bytes_total;
      ASSERT_GE(bytes, previous) << m.id << " at " << context;
      previous = bytes;
    }
  }
}

}  // namespace
}  // namespace kvscope
