// Parameter counts from shapes against the makers' published totals, and weight bytes per dtype.
#include "kvscope/model/weights.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "test_support.hpp"

namespace kvscope {
namespace {

using test::catalog_shape;
using test::weight_dtype;

ParameterCount params_of(const std::string& id) {
  const Result<ParameterCount> p = count_parameters(catalog_shape(id));
  EXPECT_TRUE(p.ok) << p.error.message;
  return p.value;
}

std::vector<WeightTensor> tensors_of(const std::string& id) {
  const Result<std::vector<WeightTensor>> t = weight_tensors(catalog_shape(id));
  EXPECT_TRUE(t.ok) << t.error.message;
  return t.value;
}

// Every catalogue model with a published total (core/data/models.json: params_published) is
// counted within 1% of it.
TEST(Weights, WithinOnePercentOfEveryPublishedTotal) {
  size_t checked = 0;
  for (const ModelEntry& m : model_catalog()) {
    if (m.params_published == 0) continue;
    ++checked;
    const ParameterCount p = params_of(m.id);
    const double error =
        std::abs(static_cast<double>(p.total) / static_cast<double>(m.params_published) - 1);
    EXPECT_LT(error, 0.01) << m.id << ": counted " << p.total << ", published "
                           << m.params_published;
    if (m.active_params_published != 0) {
      // Published "activated" figures are rounded and differ on whether embeddings count.
      const double active_error = std::abs(static_cast<double>(p.active_per_token) /
                                               static_cast<double>(m.active_params_published) -
                                           1);
      EXPECT_LT(active_error, 0.2) << m.id << ": active " << p.active_per_token;
      EXPECT_LT(p.active_per_token, p.total) << m.id;
    }
  }
  EXPECT_GE(checked, 20u);
}

TEST(Weights, ExactCountsOfWellKnownCheckpoints) {
  EXPECT_EQ(params_of("llama-2-7b").total, 6738415616u);     // safetensors total of Llama-2-7b-hf
  EXPECT_EQ(params_of("llama-3.1-8b").total, 8030261248u);   // Meta-Llama-3.1-8B
  EXPECT_EQ(params_of("mixtral-8x7b").total, 46702792704u);  // Mixtral-8x7B-v0.1
}

TEST(Weights, DenseModelsReadEverythingButTheEmbeddingTable) {
  const ParameterCount p = params_of("llama-3.1-8b");
  EXPECT_EQ(p.active_per_token, p.total - p.embedding);
  EXPECT_EQ(p.routed_experts, 0u);
  const ParameterCount tied = params_of("llama-3.2-1b");
  EXPECT_EQ(tied.lm_head, 0u);
}

TEST(Weights, Fp16WeightsOfLlama2AreAbout13Point5GB) {
  const Result<WeightBytes> w =
      weight_bytes(tensors_of("llama-2-7b"), plain_storage(weight_dtype("fp16")));
  ASSERT_TRUE(w.ok);
  EXPECT_EQ(w.value.total, 2u * 6738415616u);
  EXPECT_NEAR(static_cast<double>(w.value.total) / 1e9, 13.5, 0.05);  // article 1's "13.5 GB"
}

TEST(Weights, FourBitWeightsAreAboutAThirdOfBf16) {
  const ParameterCount p = params_of("llama-3.1-8b");
  const std::vector<WeightTensor> t = tensors_of("llama-3.1-8b");
  const Result<WeightBytes> bf16 = weight_bytes(t, plain_storage(weight_dtype("bf16")));
  const Result<WeightBytes> awq =
      weight_bytes(t, storage_from_dtype(weight_dtype("awq-int4"), weight_dtype("bf16")));
  ASSERT_TRUE(bf16.ok && awq.ok);
  EXPECT_NEAR(static_cast<double>(bf16.value.total) / 1e9, 16.06,
              0.01);  // article 2's "about 16 GB"
  const double ratio = static_cast<double>(awq.value.total) / static_cast<double>(bf16.value.total);
  EXPECT_GT(ratio, 0.30);  // "about a third": embeddings and lm_head stay 16-bit
  EXPECT_LT(ratio, 0.40);
  EXPECT_EQ(awq.value.unquantized_params, p.embedding + p.lm_head + p.norms);
}

TEST(Weights, GgufBlockTypesQuantizeEmbeddingsToo) {
  const ParameterCount p = params_of("llama-2-7b");
  const Result<WeightBytes> q8 = weight_bytes(
      tensors_of("llama-2-7b"), storage_from_dtype(weight_dtype("q8_0"), weight_dtype("fp16")));
  ASSERT_TRUE(q8.ok);
  EXPECT_EQ(q8.value.unquantized_params, 0u);
  EXPECT_EQ(q8.value.total, p.total / 32 * 34);  // 6,738,415,616 is a multiple of 32
}

TEST(Weights, GgufMixturesApplyToTheWholeFile) {
  const ParameterCount p = params_of("llama-2-7b");
  const Result<WeightBytes> q4 = weight_bytes(
      tensors_of("llama-2-7b"), storage_from_dtype(weight_dtype("q4_k_m"), weight_dtype("fp16")));
  ASSERT_TRUE(q4.ok);
  EXPECT_EQ(q4.value.unquantized_params, 0u);
  EXPECT_NEAR(static_cast<double>(q4.value.total) * 8 / static_cast<double>(p.total), 4.84, 0.001);
}


// Found by fuzz_plan: a hand-built recurrent layer with hidden_size 0 divided by it; dimensions
// whose product passes 2^64 are refused rather than wrapped.
TEST(Weights, HandBuiltShapesNeverDivideByZeroOrWrap) {
  ModelShape s;
  s.layers.resize(2);
  s.layers[0].attention = AttentionKind::kNone;
  s.layers[0].state = StateKind::kMamba2;
  s.layers[0].mixer_params = 1000;
  EXPECT_TRUE(weight_tensors(s).ok);
  ModelShape mla = test::catalog_shape("deepseek-v3");
  mla.num_attention_heads = 0xffffffffu;
  mla.mla.qk_nope_head_dim = mla.mla.qk_rope_head_dim = 0xffffffffu;
  const Result<std::vector<WeightTensor>> wrapped = weight_tensors(mla);
  ASSERT_FALSE(wrapped.ok);
  EXPECT_EQ(wrapped.error.code, kOutOfRange);
}


// Found by fuzz_config_import: a glob of many stars took exponential time. Patterns that name
// layers are matched per layer, and more of that work than real configs need is refused.
TEST(Weights, ModulePatternsStayCheap) {
  EXPECT_TRUE(module_pattern_matches("model.layers.*.self_attn", "model.layers.3.self_attn.q_proj"));
  EXPECT_TRUE(module_pattern_matches("*proj", "model.layers.3.mlp.down_proj"));
  EXPECT_FALSE(module_pattern_matches("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b",
                                      std::string(200, 'a')));
  EXPECT_TRUE(module_pattern_matches("re:.*mlp\\.(gate|up)_proj.*", "model.layers.0.mlp.up_proj"));
  EXPECT_FALSE(module_pattern_matches("re:.*mlp\\.(gate|up)_proj.*", "model.layers.0.mlp.gate"));
  EXPECT_TRUE(module_pattern_matches("gate", "model.layers.7.mlp.gate"));
  EXPECT_FALSE(module_pattern_matches("gate", "model.layers.7.mlp.gate_proj"));
  std::string patterns;
  for (int i = 0; i < 1000; ++i) patterns += (i ? ", " : "") + std::string("\"model.layers.") + std::to_string(i) + ".mlp\"";
  const std::string config = R"({"num_hidden_layers": 4096, "hidden_size": 64, "num_attention_heads": 4,
      "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 1024,
      "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128],
      "modules_to_not_convert": [)" + patterns + "]}}";
  const ModelShape shape = test::import_ok(config).shape;
  const Result<WeightBytes> refused = weight_bytes(weight_tensors(shape).value, shape.weights);
  ASSERT_FALSE(refused.ok);
  EXPECT_EQ(refused.error.field, "quantization_config");
}

}  // namespace
}  // namespace kvscope
