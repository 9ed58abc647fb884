// config.json import: one test per field variant (fixtures in tests/data/configs/) and one per
// error path. Errors must name the field and never abort.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "test_support.hpp"

namespace kvscope {
namespace {

using test::count_kind;
using test::has_assumption;
using test::import_fixture;
using test::import_ok;
using test::read_fixture;

size_t count_state(const ModelShape& s, StateKind kind) {
  size_t n = 0;
  for (const LayerSpec& l : s.layers) n += l.state == kind ? 1 : 0;
  return n;
}

TEST(ConfigImport, KvHeadsAbsentMeansMha) {
  const ImportedModel m = import_fixture("llama2_mha_no_kv_heads.json");
  ASSERT_EQ(m.shape.layers.size(), 32u);
  EXPECT_EQ(m.shape.layers[0].kv_heads, 32u);
  EXPECT_EQ(m.shape.layers[0].k_head_dim, 128u);
  EXPECT_EQ(m.shape.torch_dtype, "fp16");
  EXPECT_TRUE(has_assumption(m, "num_key_value_heads absent: MHA"));
  EXPECT_TRUE(
      has_assumption(m, "head_dim absent: hidden_size / num_attention_heads = 4096 / 32 = 128"));
}

// A MoE config without the fields only the weights need (Qwen3-Next's, its top-k and expert
// width taken out) still imports: the KV layers are the same, and each stand-in is named.
TEST(ConfigImport, MoeFieldsOnlyTheWeightsNeedAreNotRequired) {
  const std::string full = test::read_data("real-configs/qwen__qwen3-next-80b-a3b-instruct.json");
  const ImportedModel whole = import_ok(full);
  nlohmann::json trimmed = nlohmann::json::parse(full);
  trimmed.erase("num_experts_per_tok");
  trimmed.erase("moe_intermediate_size");
  const ImportedModel m = import_ok(trimmed.dump());
  ASSERT_EQ(m.shape.layers.size(), whole.shape.layers.size());
  for (size_t i = 0; i < m.shape.layers.size(); ++i) {
    EXPECT_EQ(m.shape.layers[i].kv_heads, whole.shape.layers[i].kv_heads);
    EXPECT_EQ(m.shape.layers[i].attention, whole.shape.layers[i].attention);
    EXPECT_EQ(m.shape.layers[i].state_values, whole.shape.layers[i].state_values);
  }
  // Qwen3NextConfig's own defaults, as transformers fills them in (those of the 80B release).
  EXPECT_EQ(m.shape.moe.experts_per_token, 10u);
  EXPECT_EQ(m.shape.moe.expert_intermediate_size, 512u);
  EXPECT_TRUE(has_assumption(m, "num_experts_per_tok absent: Qwen3NextConfig default 10"));
  EXPECT_TRUE(has_assumption(m, "moe_intermediate_size absent: Qwen3NextConfig default 512"));
  // DeepseekV2Config leaves the top-k None: a stand-in, named, for the estimates that read it.
  const Result<ModelEntry> lite = find_model("deepseek-v2-lite");
  ASSERT_TRUE(lite.ok);
  nlohmann::json no_top_k = nlohmann::json::parse(lite.value.config_json);
  no_top_k.erase("num_experts_per_tok");
  const ImportedModel v2 = import_ok(no_top_k.dump());
  EXPECT_EQ(v2.shape.moe.experts_per_token, 8u);
  EXPECT_TRUE(has_assumption(v2, "num_experts_per_tok absent (no moe_top_k, no class default): 8"));
}

// A config that leaves a field to its class takes the class default, listed among the
// assumptions (data/config_defaults.json, read from transformers' configuration classes).
TEST(ConfigImport, FieldsLeftToTheClassTakeItsDefault) {
  const ImportedModel m = import_ok(
      R"({"model_type": "qwen3_moe", "hidden_size": 2048, "num_hidden_layers": 4,
          "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128})");
  EXPECT_EQ(m.shape.vocab_size, 151936u);
  EXPECT_EQ(m.shape.moe.num_experts, 128u);
  EXPECT_EQ(m.shape.moe.experts_per_token, 8u);
  EXPECT_EQ(m.shape.moe.expert_intermediate_size, 768u);
  EXPECT_EQ(m.shape.max_position_embeddings, 32768u);
  EXPECT_TRUE(has_assumption(m, "vocab_size absent: Qwen3MoeConfig default 151936"));
  EXPECT_TRUE(has_assumption(m, "num_experts absent: Qwen3MoeConfig default 128"));
  // Only what the KV cache needs and no class gives is an error, naming the field.
  const Result<ImportedModel> headless =
      import_config(R"({"model_type": "kvscope_unknown", "hidden_size": 64})");
  ASSERT_FALSE(headless.ok);
  EXPECT_EQ(headless.error.field, "num_hidden_layers");
}

TEST(ConfigImport, ExplicitHeadDimWinsOverHiddenOverHeads) {
  const ImportedModel m = import_fixture("gemma2_explicit_head_dim.json");
  EXPECT_EQ(m.shape.head_dim, 256u);  // hidden / heads would be 224
  EXPECT_EQ(m.shape.layers[0].k_head_dim, 256u);
  // Gemma 2 alternates, starting with a sliding layer.
  EXPECT_EQ(m.shape.layers[0].attention, AttentionKind::kSlidingWindow);
  EXPECT_EQ(m.shape.layers[1].attention, AttentionKind::kFull);
  EXPECT_EQ(count_kind(m.shape, AttentionKind::kSlidingWindow), 21u);
  EXPECT_EQ(m.shape.layers[0].window_tokens, 4096u);
  EXPECT_TRUE(m.shape.tie_word_embeddings);  // Gemma2Config default
}

TEST(ConfigImport, SparseTextConfigUsesClassDefaultsAndPattern) {
  const ImportedModel m = import_fixture("gemma3_sparse_text_config.json");
  EXPECT_EQ(m.shape.model_type, "gemma3_text");
  EXPECT_EQ(m.shape.layers.size(), 62u);
  EXPECT_EQ(m.shape.vocab_size, 262208u);
  EXPECT_EQ(m.shape.max_position_embeddings, 131072u);
  EXPECT_EQ(m.shape.torch_dtype, "bf16");                     // from the wrapper's top level
  EXPECT_EQ(count_kind(m.shape, AttentionKind::kFull), 10u);  // layers 5, 11, ..., 59
  EXPECT_EQ(m.shape.layers[5].attention, AttentionKind::kFull);
  EXPECT_EQ(m.shape.layers[4].window_tokens, 1024u);
  EXPECT_TRUE(has_assumption(m, "text_config"));
  EXPECT_TRUE(has_assumption(m, "text_config.vocab_size absent: Gemma3TextConfig default 262208"));
  EXPECT_TRUE(has_assumption(m, "sliding_window_pattern absent: Gemma3TextConfig default 6"));
}

TEST(ConfigImport, LayerTypesList) {
  const ImportedModel m = import_fixture("gpt_oss_layer_types.json");
  ASSERT_EQ(m.shape.layers.size(), 4u);
  EXPECT_EQ(m.shape.layers[0].attention, AttentionKind::kSlidingWindow);
  EXPECT_EQ(m.shape.layers[0].window_tokens, 128u);
  EXPECT_EQ(m.shape.layers[1].attention, AttentionKind::kFull);
  EXPECT_EQ(m.shape.layers[1].k_head_dim, 64u);
  EXPECT_EQ(m.shape.moe.num_experts, 32u);
  EXPECT_EQ(m.shape.moe.experts_per_token, 4u);
}

TEST(ConfigImport, QwenSlidingWindowIgnoredUnlessEnabled) {
  const ImportedModel off = import_fixture("qwen2_sliding_disabled.json");
  EXPECT_EQ(count_kind(off.shape, AttentionKind::kSlidingWindow), 0u);
  EXPECT_TRUE(has_assumption(off, "sliding_window 131072 ignored: use_sliding_window is false"));
  const ImportedModel on = import_fixture("qwen2_sliding_enabled.json");
  // Sliding from layer max_window_layers (6) on.
  EXPECT_EQ(on.shape.layers[5].attention, AttentionKind::kFull);
  EXPECT_EQ(on.shape.layers[6].attention, AttentionKind::kSlidingWindow);
  EXPECT_EQ(count_kind(on.shape, AttentionKind::kSlidingWindow), 2u);
}

TEST(ConfigImport, ChunkedLocalAttentionOnRopeLayers) {
  const ImportedModel m = import_fixture("llama4_chunked.json");
  EXPECT_EQ(count_kind(m.shape, AttentionKind::kChunked), 6u);
  EXPECT_EQ(m.shape.layers[0].window_tokens, 8192u);
  EXPECT_EQ(m.shape.layers[3].attention, AttentionKind::kFull);
  EXPECT_EQ(m.shape.layers[3].window_tokens, 0u);
  EXPECT_EQ(m.shape.intermediate_size, 16384u);  // intermediate_size_mlp for dense layers
  EXPECT_EQ(m.shape.moe.shared_experts, 1u);
}

TEST(ConfigImport, MlaLatentIsOneEntryPerTokenPerLayer) {
  const ImportedModel m = import_fixture("deepseek_mla.json");
  ASSERT_EQ(m.shape.layers.size(), 61u);
  EXPECT_EQ(m.shape.layers[0].attention, AttentionKind::kMla);
  EXPECT_EQ(m.shape.layers[0].kv_heads, 1u);
  EXPECT_EQ(m.shape.layers[0].k_head_dim, 576u);  // kv_lora_rank 512 + qk_rope_head_dim 64
  EXPECT_EQ(m.shape.layers[0].v_head_dim, 0u);
  EXPECT_EQ(m.shape.mla.q_lora_rank, 1536u);
  EXPECT_EQ(m.shape.layers[2].mlp, MlpKind::kDense);  // first_k_dense_replace 3
  EXPECT_EQ(m.shape.layers[3].mlp, MlpKind::kMoe);
  EXPECT_EQ(m.shape.moe.shared_experts, 1u);
  EXPECT_EQ(m.shape.weights.name, "fp8 128x128 blocks");  // quantization_config
  EXPECT_EQ(m.shape.torch_dtype, "bf16");
}

TEST(ConfigImport, JambaAttentionEveryEighthLayer) {
  const ImportedModel m = import_fixture("jamba_hybrid.json");
  EXPECT_EQ(count_kind(m.shape, AttentionKind::kFull), 4u);
  EXPECT_EQ(m.shape.layers[4].attention, AttentionKind::kFull);
  EXPECT_EQ(count_state(m.shape, StateKind::kMamba), 28u);
  // d_inner = 2 x 4096; conv 8192 x 3 + ssm 8192 x 16 values.
  EXPECT_EQ(m.shape.layers[0].state_values, 8192u * 3 + 8192u * 16);
  EXPECT_EQ(m.shape.layers[1].mlp, MlpKind::kMoe);  // expert period 2, offset 1
  EXPECT_EQ(m.shape.layers[0].mlp, MlpKind::kDense);
}

TEST(ConfigImport, NemotronHPatternString) {
  const ImportedModel m = import_fixture("nemotron_h_pattern.json");
  EXPECT_EQ(count_state(m.shape, StateKind::kMamba2), 4u);
  EXPECT_EQ(count_kind(m.shape, AttentionKind::kFull), 1u);
  EXPECT_EQ(m.shape.layers[3].attention, AttentionKind::kFull);
  EXPECT_EQ(m.shape.layers[1].attention, AttentionKind::kNone);  // '-' MLP layer
  EXPECT_EQ(m.shape.layers[1].state, StateKind::kNone);
  // conv (128*64 + 2*8*128) x 3 + ssm 128 x 64 x 128.
  EXPECT_EQ(m.shape.layers[0].state_values, (8192u + 2048u) * 3 + 128u * 64 * 128);
}

TEST(ConfigImport, Qwen3NextLinearAttentionEveryFourth) {
  const ImportedModel m = import_fixture("qwen3_next_linear.json");
  EXPECT_EQ(count_kind(m.shape, AttentionKind::kFull), 2u);
  EXPECT_EQ(m.shape.layers[3].attention, AttentionKind::kFull);
  EXPECT_EQ(count_state(m.shape, StateKind::kGatedDeltaNet), 6u);
  // conv (2*16*128 + 32*128) x 3 + recurrent 32 x 128 x 128.
  EXPECT_EQ(m.shape.layers[0].state_values, (4096u + 4096u) * 3 + 32u * 128 * 128);
  EXPECT_EQ(m.shape.moe.shared_experts, 1u);
  EXPECT_EQ(m.shape.moe.shared_expert_intermediate_size, 512u);
}

TEST(ConfigImport, FalconH1LayersHaveAttentionAndMambaInParallel) {
  const ImportedModel m = import_fixture("falcon_h1_parallel.json");
  for (const LayerSpec& l : m.shape.layers) {
    EXPECT_EQ(l.attention, AttentionKind::kFull);
    EXPECT_EQ(l.state, StateKind::kMamba2);
    EXPECT_EQ(l.state_values, (1536u + 2 * 128) * 3 + 24u * 64 * 128);
  }
  EXPECT_EQ(layer_kind_label(m.shape.layers[0]), "full+recurrent");
}

TEST(ConfigImport, Gpt2Naming) {
  const ImportedModel m = import_fixture("gpt2_naming.json");
  EXPECT_EQ(m.shape.layers.size(), 12u);
  EXPECT_EQ(m.shape.hidden_size, 768u);
  EXPECT_EQ(m.shape.layers[0].kv_heads, 12u);
  EXPECT_EQ(m.shape.layers[0].k_head_dim, 64u);
  EXPECT_EQ(m.shape.max_position_embeddings, 1024u);
  EXPECT_EQ(m.shape.intermediate_size, 3072u);
  EXPECT_TRUE(m.shape.tie_word_embeddings);
  EXPECT_TRUE(has_assumption(m, "torch_dtype absent"));
}

TEST(ConfigImport, FalconMultiQueryWinsOverNumKvHeads) {
  const ImportedModel m = import_fixture("falcon7b_multi_query.json");
  EXPECT_EQ(m.shape.layers[0].kv_heads, 1u);  // not 71: FalconConfig multi_query defaults to true
  EXPECT_EQ(m.shape.layers[0].k_head_dim, 64u);
  EXPECT_EQ(m.shape.max_position_embeddings, 2048u);
  EXPECT_TRUE(has_assumption(m, "multi_query absent: FalconConfig default true"));
}

TEST(ConfigImport, FalconRefinedWebOldNaming) {
  const ImportedModel m = import_fixture("falcon_rw_old_naming.json");
  EXPECT_EQ(m.shape.layers.size(), 60u);
  EXPECT_EQ(m.shape.num_attention_heads, 128u);
  EXPECT_EQ(m.shape.layers[0].kv_heads, 8u);  // n_head_kv (RWConfig: multi_query defaults to false)
}

TEST(ConfigImport, ChatGlmNaming) {
  const ImportedModel m = import_fixture("chatglm_naming.json");
  EXPECT_EQ(m.shape.layers.size(), 28u);
  EXPECT_EQ(m.shape.layers[0].kv_heads, 2u);      // multi_query_group_num
  EXPECT_EQ(m.shape.layers[0].k_head_dim, 128u);  // kv_channels
  EXPECT_EQ(m.shape.vocab_size, 65024u);
  EXPECT_EQ(m.shape.max_position_embeddings, 32768u);
  EXPECT_EQ(m.shape.intermediate_size, 13696u);
}

TEST(ConfigImport, PhiNullKvHeadsMeansMha) {
  const ImportedModel m = import_fixture("phi2_naming.json");
  EXPECT_EQ(m.shape.layers[0].kv_heads, 32u);
  EXPECT_EQ(m.shape.layers[0].k_head_dim, 80u);
}

TEST(ConfigImport, MptAttnConfig) {
  const ImportedModel m = import_fixture("mpt_attn_config.json");
  EXPECT_EQ(m.shape.layers.size(), 32u);
  EXPECT_EQ(m.shape.layers[0].kv_heads, 8u);
  EXPECT_EQ(m.shape.intermediate_size, 4u * 4096);
  EXPECT_EQ(m.shape.max_position_embeddings, 2048u);
}

TEST(ConfigImport, CrossLayerKvSharing) {
  const ImportedModel m = import_fixture("gemma3n_kv_sharing.json");
  EXPECT_EQ(count_kind(m.shape, AttentionKind::kShared), 4u);
  EXPECT_EQ(m.shape.layers[6].attention, AttentionKind::kShared);  // the last 4 of 10
  EXPECT_EQ(m.shape.layers[5].attention, AttentionKind::kSlidingWindow);
  EXPECT_EQ(m.shape.layers[4].attention, AttentionKind::kFull);
}

TEST(ConfigImport, AwqQuantizationConfig) {
  const ImportedModel m = import_fixture("awq_quantized.json");
  EXPECT_EQ(m.shape.weights.name, "awq-int4:g128");
  EXPECT_EQ(m.shape.torch_dtype, "fp16");
}

TEST(ConfigImport, MiniMaxLinearAttentionLayers) {
  const ImportedModel m = import_fixture("minimax_attn_type_list.json");
  EXPECT_EQ(count_state(m.shape, StateKind::kLinearAttention), 3u);
  EXPECT_EQ(m.shape.layers[0].state_values, 64u * 128 * 128);
  EXPECT_EQ(m.shape.layers[3].attention, AttentionKind::kFull);
}

TEST(ConfigImport, PerLayerKvHeadList) {
  const ImportedModel m = import_fixture("openelm_per_layer_kv_heads.json");
  EXPECT_EQ(m.shape.layers[0].kv_heads, 3u);
  EXPECT_EQ(m.shape.layers[2].kv_heads, 5u);
  EXPECT_EQ(m.shape.torch_dtype, "fp32");
}

// --- Errors: code, field and a one-line message that names the field. ---

struct BadConfig {
  const char* name;
  std::string json;
  const char* code;
  const char* field;
};
void PrintTo(const BadConfig& c, std::ostream* os) { *os << c.name; }

std::string llama_with(const std::string& extra) {
  return R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32)" +
         extra + "}";
}

class ConfigImportErrors : public ::testing::TestWithParam<BadConfig> {};

TEST_P(ConfigImportErrors, NamesTheField) {
  const BadConfig& c = GetParam();
  const Result<ImportedModel> r = import_config(c.json);
  ASSERT_FALSE(r.ok) << c.name;
  EXPECT_EQ(r.error.code, c.code) << r.error.message;
  EXPECT_EQ(r.error.field, c.field) << r.error.message;
  EXPECT_EQ(r.error.message.rfind(std::string(c.field) + ": ", 0), 0u) << r.error.message;
  EXPECT_EQ(r.error.message.find('\n'), std::string::npos) << r.error.message;
}

INSTANTIATE_TEST_SUITE_P(
    All, ConfigImportErrors,
    ::testing::Values(
        BadConfig{"not_json", "{\"model_type\": ", kInvalidJson, "config"},
        BadConfig{"empty", "", kInvalidJson, "config"},
        BadConfig{"array", "[1, 2]", kInvalidJson, "config"},
        BadConfig{"no_layers", R"({"hidden_size": 64, "num_attention_heads": 4})", kMissingField,
                  "num_hidden_layers"},
        BadConfig{"zero_heads",
                  R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 0})",
                  kInvalidValue, "num_attention_heads"},
        BadConfig{"negative_layers",
                  R"({"hidden_size": 64, "num_hidden_layers": -2, "num_attention_heads": 4})",
                  kInvalidValue, "num_hidden_layers"},
        BadConfig{"string_layers",
                  R"({"hidden_size": 64, "num_hidden_layers": "32", "num_attention_heads": 4})",
                  kInvalidValue, "num_hidden_layers"},
        BadConfig{"fraction_heads",
                  R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2.5})",
                  kInvalidValue, "num_attention_heads"},
        BadConfig{"million_layers",
                  R"({"hidden_size": 64, "num_hidden_layers": 1000000, "num_attention_heads": 4})",
                  kOutOfRange, "num_hidden_layers"},
        BadConfig{"huge_heads", llama_with(R"(, "num_key_value_heads": 1e300)"), kInvalidValue,
                  "num_key_value_heads"},
        BadConfig{"zero_kv_heads", llama_with(R"(, "num_key_value_heads": 0)"), kInvalidValue,
                  "num_key_value_heads"},
        BadConfig{"indivisible_head_dim",
                  R"({"hidden_size": 100, "num_hidden_layers": 2, "num_attention_heads": 3})",
                  kInvalidValue, "head_dim"},
        BadConfig{"unknown_layer_type",
                  llama_with(
                      R"(, "num_hidden_layers": 2, "layer_types": ["full_attention", "<script>"])"),
                  kUnsupported, "layer_types[1]"},
        BadConfig{"layer_types_length", llama_with(R"(, "layer_types": ["full_attention"])"),
                  kInvalidValue, "layer_types"},
        BadConfig{
            "sliding_without_window",
            R"({"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4, "layer_types": ["sliding_attention"]})",
            kMissingField, "sliding_window"},
        BadConfig{"bad_window", llama_with(R"(, "sliding_window": -4096)"), kInvalidValue,
                  "sliding_window"},
        BadConfig{
            "mla_without_rope",
            llama_with(R"(, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "v_head_dim": 128)"),
            kMissingField, "qk_rope_head_dim"},
        BadConfig{"unknown_torch_dtype", llama_with(R"(, "torch_dtype": "float7")"), kUnsupported,
                  "torch_dtype"},
        BadConfig{
            "text_config_zero_heads",
            R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text", "num_attention_heads": 0}})",
            kInvalidValue, "text_config.num_attention_heads"},
        BadConfig{"hybrid_pattern_length",
                  llama_with(R"(, "model_type": "nemotron_h", "hybrid_override_pattern": "M*")"),
                  kInvalidValue, "hybrid_override_pattern"},
        BadConfig{
            "jamba_missing_mamba",
            R"({"model_type": "x", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "layers_block_type": ["mamba", "attention"]})",
            kMissingField, "mamba_d_state"},
        BadConfig{"block_configs", llama_with(R"(, "block_configs": [{}])"), kUnsupported,
                  "block_configs"},
        BadConfig{"encoder_decoder", llama_with(R"(, "is_encoder_decoder": true)"), kUnsupported,
                  "is_encoder_decoder"}),
    [](const ::testing::TestParamInfo<BadConfig>& info) { return info.param.name; });

TEST(ConfigImport, HostileStringsAreQuotedAndBounded) {
  const Result<ImportedModel> r = import_config(
      llama_with(R"(, "num_hidden_layers": 1, "layer_types": ["<img src=x onerror=alert(1)>\n)" +
                 std::string(5000, 'A') + R"("])"));
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.field, "layer_types[0]");
  EXPECT_LT(r.error.message.size(), 300u);
  EXPECT_EQ(r.error.message.find('<'), std::string::npos);
  EXPECT_EQ(r.error.message.find('\n'), std::string::npos);
}

TEST(ConfigImport, DeeplyNestedJsonIsAnErrorNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const Result<ImportedModel> r = import_config(deep);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.field, "config");
}

TEST(ConfigImport, IntegralFloatsAreAccepted) {
  const ImportedModel m = import_ok(llama_with(R"(, "num_key_value_heads": 8.0)"));
  EXPECT_EQ(m.shape.layers[0].kv_heads, 8u);
}

TEST(ConfigImport, FixtureFilesExist) { EXPECT_FALSE(read_fixture("deepseek_mla.json").empty()); }

}  // namespace
}  // namespace kvscope
