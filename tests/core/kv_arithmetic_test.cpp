// KV arithmetic: windows, chunks, MLA, recurrent state, paging, shared prefixes, overflow.
#include "kvscope/kv/kv_arithmetic.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace kvscope {
namespace {

using test::catalog_shape;
using test::import_fixture;
using test::kv_dtype;

Result<KvEstimate> run(const ModelShape& shape, KvWorkload w, const std::string& dtype = "bf16") {
  return kv_totals(shape, kv_dtype(dtype), kv_dtype("bf16"), w);
}

KvEstimate ok(const ModelShape& shape, KvWorkload w, const std::string& dtype = "bf16") {
  const Result<KvEstimate> r = run(shape, w, dtype);
  EXPECT_TRUE(r.ok) << r.error.message;
  return r.value;
}

ModelShape one_layer(AttentionKind kind, uint64_t window) {
  ModelShape s;
  LayerSpec l;
  l.attention = kind;
  l.kv_heads = 1;
  l.k_head_dim = 8;
  l.v_head_dim = 8;
  l.window_tokens = window;
  s.layers = {l};
  return s;  // 32 bytes per token in bf16
}

TEST(KvArithmetic, MlaDeepSeekV3) {
  const KvEstimate kv = ok(catalog_shape("deepseek-v3"), {1000, 1, 0, 0});
  EXPECT_EQ(kv.kv_bytes_per_token, 70272u);  // 61 layers x 576 x 2 bytes
  EXPECT_EQ(kv.groups.size(), 1u);
  EXPECT_EQ(kv.groups[0].kv_bytes_per_token_per_layer, 1152u);
}

TEST(KvArithmetic, MixedSlidingAndFullGemma3) {
  const ModelShape gemma = catalog_shape("gemma-3-27b");
  const KvEstimate kv = ok(gemma, {32768, 1, 0, 0});
  ASSERT_EQ(kv.groups.size(), 2u);
  const uint64_t per_layer = 2 * 16 * 128 * 2;
  EXPECT_EQ(kv.kv_bytes_per_token, 62 * per_layer);  // before any window is full
  EXPECT_EQ(kv.kv_bytes_per_sequence, 52 * per_layer * 1024 + 10 * per_layer * 32768);
}

TEST(KvArithmetic, ChunkedLayersKeepAtMostOneChunk) {
  const ModelShape s = one_layer(AttentionKind::kChunked, 8192);
  EXPECT_EQ(ok(s, {5000, 1, 0, 0}).kv_bytes_per_sequence, 5000u * 32);
  EXPECT_EQ(ok(s, {100000, 1, 0, 0}).kv_bytes_per_sequence, 8192u * 32);
}

TEST(KvArithmetic, RecurrentStateIsConstantInContext) {
  const ModelShape jamba = catalog_shape("jamba-v0.1");
  const KvEstimate short_ctx = ok(jamba, {1000, 1, 0, 0});
  const KvEstimate long_ctx = ok(jamba, {100000, 1, 0, 0});
  EXPECT_EQ(short_ctx.state_bytes_per_sequence, long_ctx.state_bytes_per_sequence);
  EXPECT_EQ(short_ctx.state_bytes_per_sequence, 28u * (8192 * 3 + 8192 * 16) * 2);
  EXPECT_EQ(long_ctx.kv_bytes_per_token, 4u * 2 * 8 * 128 * 2);  // 4 attention layers
  EXPECT_EQ(long_ctx.kv_bytes_per_sequence - short_ctx.kv_bytes_per_sequence,
            99000u * long_ctx.kv_bytes_per_token);
  EXPECT_EQ(ok(jamba, {1000, 3, 0, 0}).kv_bytes_total, 3 * short_ctx.kv_bytes_per_sequence);
}

TEST(KvArithmetic, SharedLayersAllocateNothing) {
  const KvEstimate kv = ok(import_fixture("gemma3n_kv_sharing.json").shape, {1000, 1, 0, 0});
  EXPECT_EQ(kv.kv_layers, 6u);
}

TEST(KvArithmetic, PagingRoundsUpToWholeBlocks) {
  const ModelShape s = one_layer(AttentionKind::kFull, 0);
  EXPECT_EQ(ok(s, {16, 1, 16, 0}).kv_bytes_total, 16u * 32);
  EXPECT_EQ(ok(s, {17, 1, 16, 0}).kv_bytes_total, 32u * 32);
  EXPECT_EQ(ok(s, {17, 1, 16, 0}).groups[0].allocated_tokens_per_sequence, 32u);
  EXPECT_EQ(ok(s, {17, 1, 16, 0}).kv_bytes_per_sequence, 17u * 32);  // unpaged figure kept apart
  EXPECT_EQ(ok(s, {17, 5, 16, 0}).kv_bytes_total, 5u * 32 * 32);
}

TEST(KvArithmetic, MisalignedWindowSpansOneMoreBlock) {
  const ModelShape s = one_layer(AttentionKind::kSlidingWindow, 32);
  EXPECT_EQ(ok(s, {32, 1, 16, 0}).groups[0].allocated_tokens_per_sequence, 32u);  // blocks 0-1
  // From 33 tokens on, the window (e.g. tokens 8..39) can span three blocks of 16.
  EXPECT_EQ(ok(s, {40, 1, 16, 0}).groups[0].allocated_tokens_per_sequence, 48u);
  EXPECT_EQ(ok(s, {48, 1, 16, 0}).groups[0].allocated_tokens_per_sequence, 48u);
  EXPECT_EQ(ok(s, {100000, 1, 16, 0}).groups[0].allocated_tokens_per_sequence, 48u);
}

TEST(KvArithmetic, SharedPrefixCountedOnce) {
  const ModelShape s = one_layer(AttentionKind::kFull, 0);
  const KvEstimate kv = ok(s, {1000, 10, 0, 400});
  EXPECT_EQ(kv.kv_bytes_total, (400u + 10 * 600) * 32);
  EXPECT_EQ(kv.shared_prefix_bytes, 400u * 32);
  // Paged: only whole blocks of the prefix are shared (400 = 25 blocks of 16).
  const KvEstimate paged = ok(s, {1000, 10, 16, 410});
  EXPECT_EQ(paged.kv_bytes_total, (400u + 10 * (1008 - 400)) * 32);
}

TEST(KvArithmetic, SlidingWindowDropsAPrefixThatLeftTheWindow) {
  const ModelShape s = one_layer(AttentionKind::kSlidingWindow, 100);
  EXPECT_EQ(ok(s, {1000, 4, 0, 500}).kv_bytes_total, 4u * 100 * 32);  // prefix outside the window
  EXPECT_EQ(ok(s, {550, 4, 0, 500}).kv_bytes_total, (50u + 4 * 50) * 32);
}

TEST(KvArithmetic, ProjectionCountEdges) {
  EXPECT_EQ(kv_projection_count(1, 1).value.without_cache, 1u);
  EXPECT_EQ(kv_projection_count(1, 1).value.with_cache, 1u);
  EXPECT_EQ(kv_projection_count(7, 0).value.without_cache, 0u);
  EXPECT_FALSE(kv_projection_count(0, 5).ok);
  const Result<ProjectionCount> huge = kv_projection_count(10, uint64_t{1} << 40);
  ASSERT_FALSE(huge.ok);
  EXPECT_EQ(huge.error.code, kOutOfRange);
  EXPECT_EQ(huge.error.field, "output_tokens");
}

TEST(KvArithmetic, HugeContextIsOutOfRangeNotWrapped) {
  const Result<KvEstimate> r = run(catalog_shape("llama-3.1-8b"), {1000000000000000u, 1, 0, 0});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, kOutOfRange);
  EXPECT_EQ(r.error.field, "context_tokens");
  // 10^9 tokens is large but exact.
  EXPECT_EQ(ok(catalog_shape("llama-3.1-8b"), {1000000000u, 1, 0, 0}).kv_bytes_per_sequence,
            131072000000000u);
}

TEST(KvArithmetic, HugeBatchIsOutOfRange) {
  const Result<KvEstimate> r =
      run(catalog_shape("llama-3.1-8b"), {131072, uint64_t{1} << 40, 0, 0});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.field, "batch");
}

TEST(KvArithmetic, BadWorkloads) {
  const ModelShape s = one_layer(AttentionKind::kFull, 0);
  EXPECT_EQ(run(s, {0, 1, 0, 0}).error.field, "context_tokens");
  EXPECT_EQ(run(s, {10, 0, 0, 0}).error.field, "batch");
  EXPECT_EQ(run(s, {10, 1, 0, 11}).error.field, "shared_prefix_tokens");
}

}  // namespace
}  // namespace kvscope
