// Every number in shared/docs/seed-numbers.md that the sizing core covers, derived from the
// model shape and dtype (catalogue configs), never typed in as the answer.
#include <gtest/gtest.h>

#include <cmath>

#include "kvscope/kv/kv_arithmetic.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

using test::catalog_shape;
using test::kv_dtype;

constexpr uint64_t kGiB = uint64_t{1} << 30;
constexpr uint64_t kKiB = 1024;

KvEstimate kv_at(const ModelShape& shape, const std::string& dtype, uint64_t context,
                 uint64_t batch = 1) {
  const Result<KvEstimate> r =
      kv_totals(shape, kv_dtype(dtype), kv_dtype("bf16"), KvWorkload{context, batch, 0, 0});
  EXPECT_TRUE(r.ok) << r.error.message;
  return r.value;
}

// Llama-2-7B's layout with fewer KV heads: the article's "8 KV heads" lever.
ModelShape with_kv_heads(ModelShape shape, uint32_t heads) {
  for (LayerSpec& l : shape.layers) l.kv_heads = heads;
  return shape;
}

TEST(SeedNumbers, BytesPerTokenLlama2MhaFp16) {
  const ModelShape llama2 = catalog_shape("llama-2-7b");
  EXPECT_EQ(kv_at(llama2, "fp16", 1).kv_bytes_per_token, 524288u);
  EXPECT_EQ(kv_at(llama2, "fp16", 1).kv_bytes_per_token, 512 * kKiB);  // "512 KiB, about 0.5 MiB"
}

TEST(SeedNumbers, BytesPerTokenLlama31GqaBf16AndFp8) {
  const ModelShape llama31 = catalog_shape("llama-3.1-8b");
  EXPECT_EQ(llama31.num_attention_heads, 32u);
  EXPECT_EQ(kv_at(llama31, "bf16", 1).kv_bytes_per_token, 131072u);  // 128 KiB
  EXPECT_EQ(kv_at(llama31, "fp8", 1).kv_bytes_per_token, 65536u);    // 64 KiB
}

TEST(SeedNumbers, PerSequenceLinearInContext) {
  const ModelShape llama31 = catalog_shape("llama-3.1-8b");
  // context -> GiB (x2 to keep 0.5 exact)
  const std::pair<uint64_t, uint64_t> table[] = {{4096, 1}, {8192, 2}, {32768, 8}, {131072, 32}};
  for (const auto& [context, half_gib] : table) {
    EXPECT_EQ(kv_at(llama31, "bf16", context).kv_bytes_per_sequence * 2, half_gib * kGiB)
        << context;
  }
}

TEST(SeedNumbers, MhaAt128kNeeds64GiB) {
  const ModelShape mha = with_kv_heads(catalog_shape("llama-3.1-8b"), 32);  // the Llama-2-7B layout
  EXPECT_EQ(kv_at(mha, "bf16", 131072).kv_bytes_per_sequence, 64 * kGiB);
}

TEST(SeedNumbers, Llama2At4kIs2GiBAnd32kExceedsWeights) {
  const ModelShape llama2 = catalog_shape("llama-2-7b");
  const uint64_t at_4k = kv_at(llama2, "fp16", 4096).kv_bytes_per_sequence;
  EXPECT_EQ(at_4k, 2 * kGiB);
  EXPECT_NEAR(static_cast<double>(at_4k) / 1e9, 2.147, 0.0005);  // "about 2.1 GB"
  const double article_weights_bytes = 13.5e9;                   // the article's fp16 weights
  EXPECT_GT(static_cast<double>(kv_at(llama2, "fp16", 32768).kv_bytes_per_sequence),
            article_weights_bytes);
}

TEST(SeedNumbers, ConcurrencyOnAn80GBCardPlainArithmetic) {
  const double left = 80e9 - 13.5e9;  // 66.5 GB after the article's weights, no overhead
  const ModelShape llama2 = catalog_shape("llama-2-7b");
  const ModelShape gqa = with_kv_heads(llama2, 8);
  struct Row {
    ModelShape shape;
    const char* dtype;
    double per_sequence_gb;
    uint64_t sequences;
  };
  const Row rows[] = {
      {llama2, "fp16", 2.147, 30}, {gqa, "fp16", 0.537, 123}, {gqa, "int8", 0.268, 247}};
  for (const Row& row : rows) {
    const uint64_t per_sequence = kv_at(row.shape, row.dtype, 4096).kv_bytes_per_sequence;
    EXPECT_NEAR(static_cast<double>(per_sequence) / 1e9, row.per_sequence_gb, 0.0005) << row.dtype;
    EXPECT_EQ(static_cast<uint64_t>(std::floor(left / static_cast<double>(per_sequence))),
              row.sequences);
  }
}

TEST(SeedNumbers, Llama31At128kNeeds16GiBMoreThanA24GBCardLeaves) {
  const uint64_t need = kv_at(catalog_shape("llama-3.1-8b"), "bf16", 131072).kv_bytes_per_sequence;
  EXPECT_EQ(need, 16 * kGiB);
  // 0.90 x 24 GB minus about 16 GB of weights leaves far less than one sequence needs.
  EXPECT_LT(0.90 * 24e9 - 16e9, static_cast<double>(need));
}

TEST(SeedNumbers, UtilizationRaiseBuysAbout9600Tokens) {
  const uint64_t per_token = kv_at(catalog_shape("llama-3.1-8b"), "bf16", 1).kv_bytes_per_token;
  const double freed_gb = (0.95 - 0.90) * 24e9;  // "about 1.2 GB"
  EXPECT_NEAR(freed_gb, 1.2e9, 1);
  EXPECT_EQ(static_cast<uint64_t>(1.2e9 / static_cast<double>(per_token)), 9155u);
  EXPECT_EQ(static_cast<uint64_t>(1.2 * static_cast<double>(kGiB) / static_cast<double>(per_token)),
            9830u);
}

TEST(SeedNumbers, Fp8HalvesBytesPerToken) {
  const ModelShape llama31 = catalog_shape("llama-3.1-8b");
  EXPECT_EQ(kv_at(llama31, "fp8", 32768).kv_bytes_per_sequence * 2,
            kv_at(llama31, "bf16", 32768).kv_bytes_per_sequence);
}

TEST(SeedNumbers, ProjectionsWithAndWithoutCache) {
  const Result<ProjectionCount> p = kv_projection_count(5, 64);
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.value.without_cache, 2336u);
  EXPECT_EQ(p.value.with_cache, 68u);
  EXPECT_EQ(p.value.without_cache / p.value.with_cache, 34u);  // "about 34x fewer"
}

TEST(SeedNumbers, MistralWindowCapsKeptTokens) {
  const ModelShape mistral = catalog_shape("mistral-7b-v0.1");
  const KvEstimate at_32k = kv_at(mistral, "bf16", 32768);
  EXPECT_EQ(mistral.layers[0].window_tokens, 4096u);
  EXPECT_EQ(at_32k.kv_bytes_per_sequence, at_32k.kv_bytes_per_token * 4096);
  EXPECT_EQ(kv_at(mistral, "bf16", 4096).kv_bytes_per_sequence, at_32k.kv_bytes_per_sequence);
}

TEST(SeedNumbers, PagingReducesWasteNotBytesPerLiveToken) {
  const ModelShape llama31 = catalog_shape("llama-3.1-8b");
  const Result<KvEstimate> paged =
      kv_totals(llama31, kv_dtype("bf16"), kv_dtype("bf16"), KvWorkload{4097, 1, 16, 0});
  ASSERT_TRUE(paged.ok);
  EXPECT_EQ(paged.value.kv_bytes_per_token, 131072u);
  EXPECT_EQ(paged.value.kv_bytes_total, 131072u * 4112);  // 257 blocks of 16
}

}  // namespace
}  // namespace kvscope
