// Dtype spellings and exact storage costs, scales included.
#include <gtest/gtest.h>

#include "kvscope/kv/kv_arithmetic.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

using test::catalog_shape;
using test::kv_dtype;

uint64_t head_bytes(const std::string& dtype, uint64_t head_dim) {
  LayerSpec layer;
  layer.kv_heads = 1;
  layer.k_head_dim = head_dim;
  layer.v_head_dim = 0;
  layer.attention = AttentionKind::kMla;  // one row per token: isolates the row cost
  const Result<uint64_t> r = kv_bytes_per_token_per_layer(layer, kv_dtype(dtype));
  EXPECT_TRUE(r.ok) << r.error.message;
  return r.value;
}

TEST(Dtype, ByteCostsPerHeadOf128Values) {
  EXPECT_EQ(head_bytes("fp32", 128), 512u);
  EXPECT_EQ(head_bytes("fp16", 128), 256u);
  EXPECT_EQ(head_bytes("bf16", 128), 256u);
  EXPECT_EQ(head_bytes("fp8", 128), 128u);
  EXPECT_EQ(head_bytes("fp8_e5m2", 128), 128u);
  EXPECT_EQ(head_bytes("int8", 128), 128u);                 // per-tensor scale: nothing per value
  EXPECT_EQ(head_bytes("int8_per_token_head", 128), 132u);  // + fp32 scale per token per head
  EXPECT_EQ(head_bytes("fp8_per_token_head", 128), 132u);
  EXPECT_EQ(head_bytes("int4", 128), 64u);
  EXPECT_EQ(head_bytes("nvfp4", 128), 72u);  // head/2 + head/16 (vLLM nvfp4_kv_cache_full_dim)
  EXPECT_EQ(head_bytes("q8_0", 128), 136u);  // 4 blocks x 34
  EXPECT_EQ(head_bytes("q4_0", 128), 72u);   // 4 blocks x 18
  EXPECT_EQ(head_bytes("q4_1", 128), 80u);
  EXPECT_EQ(head_bytes("q5_0", 128), 88u);
  EXPECT_EQ(head_bytes("q5_1", 128), 96u);
  EXPECT_EQ(head_bytes("iq4_nl", 128), 72u);
}

// llama.cpp's worked example (engine-formulas.md §3): Llama-3.1-8B, -c 8192, q8_0 K and V.
TEST(Dtype, LlamaCppQ8_0CacheIs544MiBNot512) {
  const ModelShape llama31 = catalog_shape("llama-3.1-8b");
  const Result<KvEstimate> f16 =
      kv_totals(llama31, kv_dtype("f16"), kv_dtype("f16"), KvWorkload{8192, 1, 0, 0});
  const Result<KvEstimate> q8 =
      kv_totals(llama31, kv_dtype("q8_0"), kv_dtype("f16"), KvWorkload{8192, 1, 0, 0});
  ASSERT_TRUE(f16.ok && q8.ok);
  EXPECT_EQ(f16.value.kv_bytes_total, 1024u << 20);
  EXPECT_EQ(q8.value.kv_bytes_total, 544u << 20);
}

TEST(Dtype, EngineSpellingsAndAliases) {
  EXPECT_EQ(kv_dtype("fp8_e4m3").name, "fp8");
  EXPECT_EQ(kv_dtype("FP8").name, "fp8");
  EXPECT_EQ(kv_dtype("f16").name, "fp16");
  EXPECT_EQ(kv_dtype("bfloat16").name, "bf16");
  EXPECT_EQ(kv_dtype("Q8_0").name, "q8_0");
}

TEST(Dtype, WeightFormatsWithGroupScales) {
  const Result<Dtype> awq = parse_dtype("awq-int4", DtypeUse::kWeight, "weight_dtype");
  ASSERT_TRUE(awq.ok);
  EXPECT_EQ(awq.value.name, "awq-int4:g128");
  EXPECT_EQ(awq.value.block_bits, 128u * 4 + 16 + 4);  // int4 + fp16 scale + 4-bit zero per group
  const Result<Dtype> gptq = parse_dtype("gptq-int4:g32", DtypeUse::kWeight, "weight_dtype");
  ASSERT_TRUE(gptq.ok);
  EXPECT_EQ(gptq.value.block_values, 32u);
  EXPECT_NEAR(bits_per_value(gptq.value), 4.625, 1e-12);
  const Result<uint64_t> bytes = stream_bytes(awq.value, 1000000, "weight_dtype");
  ASSERT_TRUE(bytes.ok);
  EXPECT_EQ(bytes.value, 519532u);  // ceil(7812.5 groups x 532 bits / 8)
  const Result<Dtype> q4km = parse_dtype("q4_k_m", DtypeUse::kWeight, "weight_dtype");
  ASSERT_TRUE(q4km.ok);
  EXPECT_NEAR(bits_per_value(q4km.value), 4.84, 1e-12);
  EXPECT_FALSE(q4km.value.exact);
  const Result<Dtype> q6k = parse_dtype("q6_k", DtypeUse::kWeight, "weight_dtype");
  ASSERT_TRUE(q6k.ok);
  EXPECT_NEAR(bits_per_value(q6k.value), 6.5625, 1e-12);
}

TEST(Dtype, ErrorsNameTheField) {
  const Result<Dtype> unknown = parse_dtype("fp7", DtypeUse::kKv, "kv_dtype");
  ASSERT_FALSE(unknown.ok);
  EXPECT_EQ(unknown.error.field, "kv_dtype");
  EXPECT_EQ(unknown.error.message.rfind("kv_dtype: unknown KV cache dtype \"fp7\"", 0), 0u);
  const Result<Dtype> weight_only = parse_dtype("awq-int4", DtypeUse::kKv, "kv_dtype");
  EXPECT_FALSE(weight_only.ok);
  const Result<Dtype> kv_only =
      parse_dtype("int8_per_token_head", DtypeUse::kWeight, "weight_dtype");
  EXPECT_FALSE(kv_only.ok);
  EXPECT_EQ(kv_only.error.field, "weight_dtype");
  EXPECT_FALSE(parse_dtype("gptq-int4:g7", DtypeUse::kWeight, "weight_dtype").ok);
  EXPECT_FALSE(parse_dtype("gptq-int4:x", DtypeUse::kWeight, "weight_dtype").ok);
  EXPECT_FALSE(parse_dtype("", DtypeUse::kKv, "kv_dtype").ok);
}

TEST(Dtype, BlockFormatsNeedWholeBlocks) {
  LayerSpec layer;
  layer.kv_heads = 1;
  layer.k_head_dim = 80;
  layer.v_head_dim = 80;
  const Result<uint64_t> r = kv_bytes_per_token_per_layer(layer, kv_dtype("q8_0"));
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.field, "kv_dtype");
  layer.kv_heads = 32;  // llama.cpp quantizes the whole 2560-wide row: 80 blocks
  const Result<uint64_t> whole = kv_bytes_per_token_per_layer(layer, kv_dtype("q8_0"));
  ASSERT_TRUE(whole.ok) << whole.error.message;
  EXPECT_EQ(whole.value, 2u * 80 * 34);
}

TEST(Dtype, ListsCoverBothUses) {
  EXPECT_GE(list_dtypes(DtypeUse::kKv).size(), 14u);
  EXPECT_GE(list_dtypes(DtypeUse::kWeight).size(), 20u);
  for (const Dtype& d : list_dtypes(DtypeUse::kKv)) EXPECT_TRUE(d.for_kv) << d.name;
}

}  // namespace
}  // namespace kvscope
