// The cache kinds of current models, each from its real config.json (tests/data/real-configs/,
// sources in SOURCES.md): sparse-attention indexers, two head sizes and shared KV, different K and
// V head sizes, linear-attention hybrids with fp32 SSM state, attention-free Mamba.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "kvscope/engines/context_limit.hpp"
#include "kvscope/kv/kv_arithmetic.hpp"
#include "kvscope/model/weights.hpp"
#include "kvscope/request/report_json.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

using test::real_config;

uint64_t per_token(const ModelShape& s, const std::string& kv) {
  const Dtype d = test::kv_dtype(kv);
  const Result<KvEstimate> e = kv_totals(s, d, test::kv_dtype("bf16"), KvWorkload{1, 1, 0, 0});
  EXPECT_TRUE(e.ok) << e.error.message;
  return e.value.kv_bytes_per_token;
}

// A real config (tests/data/real-configs/) planned on a catalogue GPU under vLLM.
PlanInput real_plan(const std::string& name, const char* gpu, uint64_t max_model_len) {
  PlanInput in;
  in.model.config_json = test::read_data("real-configs/" + name);
  in.gpu_id = gpu;
  in.max_model_len = max_model_len;
  return in;
}

// DeepSeek sparse attention: beside each layer's 576-value MLA latent, the indexer keeps 128 fp8
// keys and one fp32 scale per token, whatever the KV dtype (vLLM DeepseekV32IndexerCache).
TEST(CurrentModels, DeepSeekV32IndexerCache) {
  const ModelShape s = real_config("deepseek-ai__deepseek-v3.2.json");
  EXPECT_EQ(test::count_kind(s, AttentionKind::kMla), 61u);
  EXPECT_EQ(s.layers[0].indexer_head_dim, 128u);
  EXPECT_EQ(per_token(s, "bf16"), 61u * (576 * 2 + 132));
  EXPECT_EQ(per_token(s, "fp8"), 61u * (576 + 132));
  ASSERT_EQ(s.draft_layers.size(), 1u);  // the MTP layer, with its own indexer
  EXPECT_EQ(s.draft_layers[0].indexer_head_dim, 128u);
}

TEST(CurrentModels, Glm5SparseAttention) {
  const ModelShape s = real_config("zai-org__glm-5.1.json");
  EXPECT_EQ(s.model_type, "glm_moe_dsa");
  EXPECT_EQ(test::count_kind(s, AttentionKind::kMla), 78u);
  EXPECT_EQ(per_token(s, "bf16"), 78u * (576 * 2 + 132));
}

// GLM-5.2: the indexer runs on the three dense layers and then every fourth layer, shared
// between (indexer_types), so 21 layers keep its keys; NVIDIA's NVFP4 checkpoint names every layer
// deepseek_sparse_attention and keeps the same caches.
TEST(CurrentModels, Glm52SharedIndexersUnderEitherSpelling) {
  const ModelShape bf16 = real_config("zai-org__glm-5.2.json");
  const ModelShape nvfp4 = real_config("nvidia__glm-5.2-nvfp4.json");
  EXPECT_EQ(test::count_kind(nvfp4, AttentionKind::kMla), 78u);
  size_t indexed = 0;
  for (const LayerSpec& l : nvfp4.layers) indexed += l.indexer_head_dim != 0 ? 1 : 0;
  EXPECT_EQ(indexed, 3u + (78 - 6 + 3) / 4);  // layers 0-2, then every fourth from 6
  EXPECT_EQ(per_token(nvfp4, "bf16"), 78u * 576 * 2 + indexed * 132);
  EXPECT_EQ(per_token(nvfp4, "fp8"), per_token(bf16, "fp8"));
}

// Nemotron 3.5 Lightning spells its blocks out (layers_block_type: mamba, moe, attention), one
// mixer or MLP each, as hybrid_override_pattern's M, E and * do.
TEST(CurrentModels, NemotronBlocksSpelledOut) {
  const ModelShape s = real_config("nvidia__nvidia-nemotron-3.5-lightning-30b-a3b-nvfp4.json");
  ASSERT_EQ(s.layers.size(), 52u);
  size_t mamba = 0, moe = 0;
  for (const LayerSpec& l : s.layers) {
    mamba += l.state == StateKind::kMamba2 && l.mlp == MlpKind::kNone ? 1 : 0;
    moe += l.attention == AttentionKind::kNone && l.state == StateKind::kNone &&
           l.mlp == MlpKind::kMoe;
  }
  EXPECT_EQ(mamba, 23u);
  EXPECT_EQ(moe, 23u);
  EXPECT_EQ(test::count_kind(s, AttentionKind::kFull), 6u);
  EXPECT_EQ(per_token(s, "bf16"), 2u * 6 * 2 * 128 * 2);
  std::string text =
      test::read_data("real-configs/nvidia__nvidia-nemotron-3.5-lightning-30b-a3b-nvfp4.json");
  const size_t moe_block = text.find("\"moe\"", text.find("\"layers_block_type\""));
  ASSERT_NE(moe_block, std::string::npos);
  const Result<ImportedModel> broken = import_config(text.replace(moe_block, 5, "\"moa\""));
  ASSERT_FALSE(broken.ok);
  EXPECT_EQ(broken.error.field, "layers_block_type[1]");
  EXPECT_NE(broken.error.message.find("(known: mamba, attention, mlp, moe)"), std::string::npos);
}

// Gemma 4 26B-A4B: 128 experts, top_k_experts of them per token, beside each layer's dense MLP
// (counted as a shared expert): 25.2B parameters and 3.8B active with the embedding, the figures
// published for google/gemma-4-26B-A4B-it ("25.2B total / 3.8B active":
// vast.ai/model/gemma-4-26b-a4b-it, featherless.ai/models/google/gemma-4-26B-A4B-it, "128 experts +
// 1 shared": llmradar.eu).
TEST(CurrentModels, Gemma4MoeKeepsItsDenseMlp) {
  const ImportedModel m =
      test::import_ok(test::read_data("real-configs/google__gemma-4-26b-a4b.json"));
  EXPECT_EQ(m.shape.moe.experts_per_token, 8u);
  EXPECT_FALSE(test::has_assumption(m, "num_experts_per_tok"));
  EXPECT_EQ(m.shape.moe.shared_experts, 1u);
  EXPECT_EQ(m.shape.moe.shared_expert_intermediate_size, 2112u);
  const Result<ParameterCount> n = count_parameters(m.shape);
  ASSERT_TRUE(n.ok);
  EXPECT_NEAR(static_cast<double>(n.value.total) / 1e9, 25.2, 0.05);
  EXPECT_NEAR(static_cast<double>(n.value.active_per_token + n.value.embedding) / 1e9, 3.8, 0.05);
}

// The catalogue's late-2026 entries are subsets of their real configs: the same layers, the same
// KV bytes and the same weights as the whole file.
TEST(CurrentModels, Late2026CatalogueEntriesMatchTheirConfigs) {
  const std::pair<const char*, const char*> entries[] = {
      {"qwen3.6-35b-a3b", "qwen__qwen3.6-35b-a3b.json"},
      {"qwen3.6-27b", "nvidia__qwen3.6-27b-nvfp4.json"},
      {"glm-5.2", "zai-org__glm-5.2.json"},
      {"kimi-k2.6-nvfp4", "nvidia__kimi-k2.6-nvfp4.json"},
      {"kimi-k3", "moonshotai__kimi-k3.json"},
      {"gemma-4-26b-a4b", "google__gemma-4-26b-a4b.json"},
      {"minimax-m3", "minimaxai__minimax-m3.json"}};
  for (const auto& [id, file] : entries) {
    const ModelShape entry = test::catalog_shape(id);
    const ModelShape config = real_config(file);
    EXPECT_EQ(entry.layers.size(), config.layers.size()) << id;
    EXPECT_EQ(per_token(entry, "bf16"), per_token(config, "bf16")) << id;
    EXPECT_EQ(count_parameters(entry).value.total, count_parameters(config).value.total) << id;
  }
}

// Every real config imports, or is refused in one line that names its field.
TEST(CurrentModels, EveryRealConfigImportsOrNamesItsField) {
  size_t refused = 0;
  for (const auto& file :
       std::filesystem::directory_iterator(std::string(KVSCOPE_TEST_DATA_DIR) + "/real-configs")) {
    if (file.path().extension() != ".json") continue;
    const Result<ImportedModel> m =
        import_config(test::read_data("real-configs/" + file.path().filename().string()));
    if (m.ok) continue;
    ++refused;
    EXPECT_FALSE(m.error.field.empty()) << file.path();
    EXPECT_EQ(m.error.message.find('\n'), std::string::npos) << file.path();
  }
  EXPECT_EQ(refused, 0u);
}

// MiniMax-M3: 60 layers of 4 KV heads x 128, of which the 57 block-sparse ones (layers 3-59)
// keep one bf16 index key of 128 values per token beside K and V, on every tensor-parallel rank
// (vLLM MiniMaxM3IndexerCache; SGLang pool_configurator.py's MiniMax cell size).
TEST(CurrentModels, MiniMaxM3KeepsABf16IndexKeyOnItsSparseLayers) {
  const ModelShape m3 = real_config("minimaxai__minimax-m3.json");
  ASSERT_EQ(m3.layers.size(), 60u);
  for (size_t i = 0; i < m3.layers.size(); ++i)
    EXPECT_EQ(m3.layers[i].indexer_head_dim, i < 3 ? 0u : 128u) << i;
  const uint64_t kv_bf16 = 2 * 4 * 128 * 2, kv_fp8 = 2 * 4 * 128, index_key = 128 * 2;
  EXPECT_EQ(per_token(m3, "bf16"), 60 * kv_bf16 + 57 * index_key);  // 137,472
  EXPECT_EQ(per_token(m3, "fp8"), 60 * kv_fp8 + 57 * index_key);    // the key stays bf16
  // Under TP 8 each rank keeps one of the 4 KV heads (replicated) and the whole index key.
  PlanInput in;
  in.model.model_id = "minimax-m3";
  in.gpu_id = "h200-sxm-141gb";
  in.gpus = 8;
  in.tensor_parallel = 8;
  in.max_model_len = 131072;
  for (const char* engine : {"vllm", "sglang"}) {
    in.engine = engine;
    const Result<PlanReport> p = plan(in);
    ASSERT_TRUE(p.ok) << engine << ": " << p.error.message;
    EXPECT_EQ(p.value.kv_bytes_needed, 131072u * (60 * (2 * 128 * 2) + 57 * index_key)) << engine;
  }
  // The dense layers' MLP is dense_intermediate_size wide, not the experts' intermediate_size.
  const ImportedModel imported =
      test::import_ok(test::read_data("real-configs/minimaxai__minimax-m3.json"));
  EXPECT_EQ(imported.shape.intermediate_size, 12288u);
  in.engine = "tensorrt-llm";  // an engine whose layout of it kvscope does not know
  const Result<PlanReport> trt = plan(in);
  ASSERT_FALSE(trt.ok);
  EXPECT_EQ(trt.error.field, "engine");
  EXPECT_NE(trt.error.message.find("MiniMax-M3's index-key cache"), std::string::npos);
  nlohmann::json config =
      nlohmann::json::parse(test::read_data("real-configs/minimaxai__minimax-m3.json"));
  config["sparse_attention_config"]["sparse_disable_index_value"][3] = 0;  // an index V too
  const Result<ImportedModel> with_value = import_config(config.dump());
  ASSERT_FALSE(with_value.ok);
  EXPECT_EQ(with_value.error.field, "sparse_attention_config.sparse_disable_index_value[3]");
}

// A Gemma 4 config saved by transformers 5.15 or later carries its full layers' shapes as
// per_layer_config instead of global_head_dim and num_global_key_value_heads: the same cache.
TEST(CurrentModels, Gemma4PerLayerConfigAsNewTransformersSaveIt) {
  const std::string text =
      test::read_data("real-configs/google__gemma-4-31b-it.transformers-repr.json");
  nlohmann::json saved = nlohmann::json::parse(text);
  nlohmann::json& t = saved["text_config"];
  nlohmann::json per_layer = nlohmann::json::object();
  for (size_t i = 0; i < t["layer_types"].size(); ++i) {
    if (t["layer_types"][i] == "full_attention")
      per_layer[std::to_string(i)] = {{"head_dim", t["global_head_dim"]},
                                      {"num_key_value_heads", t["num_global_key_value_heads"]}};
  }
  t.erase("global_head_dim");
  t.erase("num_global_key_value_heads");
  t["per_layer_config"] = per_layer;
  const ModelShape s = test::import_ok(saved.dump()).shape;
  EXPECT_EQ(per_token(s, "bf16"),
            per_token(real_config("google__gemma-4-31b-it.transformers-repr.json"), "bf16"));
  EXPECT_EQ(s.layers[5].k_head_dim, 512u);
  EXPECT_EQ(s.layers[5].kv_heads, 4u);
  t["per_layer_config"]["5"]["sliding_window"] = 1024;
  const Result<ImportedModel> refused = import_config(saved.dump());
  ASSERT_FALSE(refused.ok);
  EXPECT_EQ(refused.error.field, "text_config.per_layer_config.5.sliding_window");
}

// Gemma 4 31B: sliding layers 16 KV heads x 256, full layers 4 KV heads x 512 (global_head_dim,
// num_global_key_value_heads) with attention_k_eq_v: no v_proj, V still cached.
TEST(CurrentModels, Gemma4TwoHeadSizes) {
  const ModelShape s = real_config("google__gemma-4-31b-it.transformers-repr.json");
  ASSERT_EQ(s.layers.size(), 60u);
  EXPECT_EQ(test::count_kind(s, AttentionKind::kFull), 10u);
  const LayerSpec& full = s.layers[5];
  EXPECT_EQ(full.attention, AttentionKind::kFull);
  EXPECT_EQ(full.kv_heads, 4u);
  EXPECT_EQ(full.k_head_dim, 512u);
  EXPECT_TRUE(full.k_eq_v);
  EXPECT_EQ(s.layers[0].kv_heads, 16u);
  EXPECT_EQ(s.layers[0].k_head_dim, 256u);
  EXPECT_EQ(per_token(s, "bf16"), 10u * 2 * 4 * 512 * 2 + 50u * 2 * 16 * 256 * 2);
  // The full layers' weights have no v_proj.
  for (const WeightTensor& t : weight_tensors(s).value) {
    if (t.name.find("v_proj") != std::string::npos) {
      EXPECT_EQ(s.layers[t.first_layer].attention, AttentionKind::kSlidingWindow) << t.name;
    }
  }
}

// Gemma 4 E4B: the last 18 of 42 layers read earlier layers' caches (num_kv_shared_layers).
TEST(CurrentModels, Gemma4SharedKvLayers) {
  const ModelShape s =
      real_config("derived__gemma-4-e4b-it-w4a16__jackrong-gemopus-autoround.json");
  ASSERT_EQ(s.layers.size(), 42u);
  EXPECT_EQ(test::count_kind(s, AttentionKind::kShared), 18u);
  size_t full = 0, sliding = 0;
  for (size_t i = 0; i < 24; ++i) {
    full += s.layers[i].attention == AttentionKind::kFull ? 1 : 0;
    sliding += s.layers[i].attention == AttentionKind::kSlidingWindow ? 1 : 0;
  }
  EXPECT_EQ(full, 4u);
  EXPECT_EQ(sliding, 20u);
  EXPECT_EQ(per_token(s, "bf16"), 4u * 2 * 2 * 512 * 2 + 20u * 2 * 2 * 256 * 2);
}

// MiMo-V2: full layers 4 KV heads, sliding layers 8 (swa_*), K 192 and V 128 wide.
TEST(CurrentModels, MimoV2DifferentKAndVHeadSizes) {
  const ModelShape s = real_config("xiaomimimo__mimo-v2.5.json");
  EXPECT_EQ(test::count_kind(s, AttentionKind::kFull), 9u);
  EXPECT_EQ(test::count_kind(s, AttentionKind::kSlidingWindow), 39u);
  const LayerSpec& full = s.layers[0];
  EXPECT_EQ(full.kv_heads, 4u);
  EXPECT_EQ(full.k_head_dim, 192u);
  EXPECT_EQ(full.v_head_dim, 128u);
  const LayerSpec& swa = s.layers[1];
  EXPECT_EQ(swa.kv_heads, 8u);
  EXPECT_EQ(swa.window_tokens, 128u);
  EXPECT_EQ(per_token(s, "bf16"), 9u * 4 * (192 + 128) * 2 + 39u * 8 * (192 + 128) * 2);
  EXPECT_EQ(s.layers[0].mlp, MlpKind::kDense);  // moe_layer_freq[0] == 0
  EXPECT_EQ(s.layers[1].mlp, MlpKind::kMoe);
}

// Kimi Linear: 7 MLA layers (1-based 4, 8, ..., 27) among Kimi Delta Attention layers.
TEST(CurrentModels, KimiLinearLayers) {
  const ModelShape s = real_config("moonshotai__kimi-linear-48b-a3b-instruct.json");
  EXPECT_EQ(test::count_kind(s, AttentionKind::kMla), 7u);
  EXPECT_EQ(s.layers[3].attention, AttentionKind::kMla);
  EXPECT_EQ(s.layers[26].attention, AttentionKind::kMla);
  EXPECT_EQ(s.layers[0].state, StateKind::kKimiDelta);
  // q, k, v short convolutions (3 x 4096 x 3) and a 128 x 128 state for each of 32 heads.
  EXPECT_EQ(s.layers[0].state_values, 3u * 4096 * 3 + 32u * 128 * 128);
}

// Qwen3.5 keeps its Gated DeltaNet state in fp32 (mamba_ssm_dtype), the convolution in bf16.
TEST(CurrentModels, Qwen35SsmStateInFp32) {
  const ModelShape s = real_config("qwen__qwen3.5-4b.json");
  EXPECT_EQ(s.ssm_state_dtype, "fp32");
  const LayerSpec& gdn = s.layers[0];
  ASSERT_EQ(gdn.state, StateKind::kGatedDeltaNet);
  const uint64_t conv = (2 * 16 * 128 + 32 * 128) * 3, ssm = 32u * 128 * 128;
  EXPECT_EQ(gdn.state_values, conv + ssm);
  EXPECT_EQ(gdn.ssm_state_values, ssm);
  const Result<KvEstimate> e =
      kv_totals(s, test::kv_dtype("bf16"), test::kv_dtype("bf16"), KvWorkload{1, 1, 0, 0});
  ASSERT_TRUE(e.ok);
  EXPECT_EQ(e.value.state_bytes_per_sequence, 24 * (conv * 2 + ssm * 4));
}

// Under vLLM, Qwen3-Next has no per-model hook: its state stays bf16; NemotronH defaults to fp32.
TEST(CurrentModels, VllmSsmDtypePerModel) {
  PlanInput next;
  next.model.config_json = test::read_data("real-configs/qwen__qwen3-next-80b-a3b-instruct.json");
  next.gpu_id = "h200-sxm-141gb";
  next.max_model_len = 32768;
  EXPECT_TRUE(test::plan_ok(next).estimate.shape.ssm_state_dtype.empty());
  PlanInput nemotron;
  nemotron.model.config_json =
      test::read_data("real-configs/nvidia__nvidia-nemotron-3-nano-30b-a3b.json");
  nemotron.gpu_id = "h200-sxm-141gb";
  nemotron.max_model_len = 32768;
  EXPECT_EQ(test::plan_ok(nemotron).estimate.shape.ssm_state_dtype, "fp32");
}

// GLM-4.7 (the blob view of its config.json): GLM-4.5's shape at 202,752 positions, which vLLM
// derives as its max_model_len; 92 layers x 8 KV heads x 128 x K and V in bf16 per token.
TEST(CurrentModels, Glm47KeepsGlm45sShapeAtLongerContext) {
  const ModelShape s = real_config("zai-org__glm-4.7.hf-blob-view.json");
  EXPECT_EQ(s.model_type, "glm4_moe");
  EXPECT_EQ(s.max_position_embeddings, 202752u);
  EXPECT_EQ(vllm_context_limit(s).tokens, 202752u);
  const Result<KvEstimate> kv =
      kv_totals(s, test::kv_dtype("bf16"), test::kv_dtype("bf16"), KvWorkload{4096, 1, 0, 0});
  ASSERT_TRUE(kv.ok);
  EXPECT_EQ(kv.value.kv_bytes_per_token, 2u * 92 * 8 * 128 * 2);
  const ModelShape catalogue = test::catalog_shape("glm-4.7");
  EXPECT_EQ(catalogue.layers.size(), s.layers.size());
  EXPECT_EQ(catalogue.max_position_embeddings, s.max_position_embeddings);
}

// A Mamba-2 config as transformers writes it, with Python's bare Infinity: attention-free, 64
// layers of (conv 5,376 x 3 + SSM 80 x 64 x 128) state values; vLLM holds one state per request.
TEST(CurrentModels, AttentionFreeMamba2WithInfinity) {
  const ModelShape s = real_config("state-spaces__mamba2-2.7b.mlx-swift-fixture.json");
  ASSERT_EQ(s.layers.size(), 64u);
  EXPECT_EQ(test::count_kind(s, AttentionKind::kNone), 64u);
  EXPECT_EQ(s.layers[0].state_values, 5376u * 3 + 80u * 64 * 128);
  PlanInput in = real_plan("state-spaces__mamba2-2.7b.mlx-swift-fixture.json", "l4", 8192);
  const PlanReport p = test::plan_ok(in);
  EXPECT_TRUE(p.starts);
  EXPECT_EQ(p.num_blocks, p.kv_pool_bytes / (64 * 1342976) * 1);  // states of 64 layers
  // No length exhausts a pool of states: the report says unbounded, never the search's ceiling
  // (2^40 tokens once reached the page), under every engine.
  for (const char* engine : {"vllm", "llama.cpp", "plain"}) {
    in.engine = engine;
    const PlanReport q = test::plan_ok(in);
    EXPECT_TRUE(q.max_context_unbounded) << engine;
    EXPECT_EQ(q.max_context, 0u) << engine;
    EXPECT_LE(q.max_model_len_that_fits, q.max_model_len) << engine;
    const std::string json = plan_to_json(q);
    EXPECT_NE(json.find("\"max_context\": null"), std::string::npos) << engine;
    EXPECT_EQ(json.find("1099511627776"), std::string::npos) << engine;
  }
}

// Speculative decoding with DeepSeek's MTP layer: one more MLA layer in the pool, its decoder
// weights loaded (the embedding and head copies are shared with the target).
TEST(CurrentModels, MtpDraftLayersJoinThePool) {
  PlanInput in;
  in.model.model_id = "deepseek-v3";
  in.gpu_id = "h200-sxm-141gb";
  in.gpus = in.tensor_parallel = 8;
  in.model.kv_dtype = "fp8";
  in.max_model_len = 131072;
  const PlanReport off = test::plan_ok(in);
  in.speculative_config = R"({"method": "mtp", "num_speculative_tokens": 1})";
  const PlanReport on = test::plan_ok(in);
  EXPECT_EQ(on.draft_layers_loaded, 1u);
  EXPECT_EQ(on.estimate.kv.kv_bytes_per_token, off.estimate.kv.kv_bytes_per_token / 61 * 62);
  EXPECT_GT(on.weights_bytes, off.weights_bytes + 1'400'000'000u);  // 11.3 GB of experts / 8
  EXPECT_LT(on.weights_bytes, off.weights_bytes + 2'000'000'000u);  // no 3.7 GB of copies
  in.speculative_config = R"({"method": "mtp", "num_speculative_tokens": 3})";
  EXPECT_TRUE(test::plan_ok(in).starts);  // a multiple of n_predict = 1
  in.speculative_config = R"({"method": "eagle3"})";
  EXPECT_EQ(plan(in).error.field, "speculative_config.method");
  in.model.model_id = "llama-3.1-8b";
  in.gpus = in.tensor_parallel = 1;
  in.speculative_config = R"({"method": "mtp"})";
  EXPECT_EQ(plan(in).error.field, "speculative_config.method");  // no MTP layers
}

// vLLM's Mamba cache modes: states per request none = 1 (+ speculative tokens), align = 2, all =
// one per block of the request; a hybrid's default is align from the 0.29 line (PR #50991), none
// before.
TEST(CurrentModels, VllmMambaCacheModes) {
  PlanInput in;
  in.model.config_json = test::read_data("real-configs/qwen__qwen3-next-80b-a3b-instruct.json");
  in.kv_memory_bytes = uint64_t{40} << 30;
  in.max_model_len = 32768;
  const PlanReport by_default = test::plan_ok(in);
  in.vllm.mamba_cache_mode = "none";
  const PlanReport none = test::plan_ok(in);
  in.vllm.mamba_cache_mode = "align";
  const PlanReport align = test::plan_ok(in);
  in.vllm.mamba_cache_mode = "all";
  const PlanReport all = test::plan_ok(in);
  EXPECT_GT(none.max_concurrency, align.max_concurrency);
  EXPECT_GT(align.max_concurrency, all.max_concurrency);
  EXPECT_EQ(by_default.max_concurrency, align.max_concurrency);
  in.vllm.mamba_cache_mode.clear();
  in.engine_version = "0.28";
  EXPECT_EQ(test::plan_ok(in).max_concurrency, none.max_concurrency);
  in.vllm.mamba_cache_mode = "sometimes";
  EXPECT_EQ(plan(in).error.field, "vllm.mamba_cache_mode");
}

// Gemma 4's sliding pages are half its full-attention pages: vLLM doubles their block to unify.
TEST(CurrentModels, VllmUnifiesGemma4PageSizes) {
  PlanInput in =
      real_plan("derived__gemma-4-e4b-it-w4a16__jackrong-gemopus-autoround.json", "l4", 32768);
  const PlanReport p = test::plan_ok(in);
  EXPECT_TRUE(p.starts);
  bool unified = false;
  for (const std::string& n : p.notes)
    unified = unified || n.find("32-token blocks") != std::string::npos;
  EXPECT_TRUE(unified);
  // Its per-layer embeddings: a 262,144 x (42 x 256) table.
  const ModelShape s =
      real_config("derived__gemma-4-e4b-it-w4a16__jackrong-gemopus-autoround.json");
  EXPECT_EQ(s.per_layer_input_size, 256u);
  EXPECT_GE(count_parameters(s).value.embedding, 262144u * 42 * 256);
}

// Kimi Delta Attention keeps its recurrent state in float32 under vLLM (kda_state_dtype).
TEST(CurrentModels, VllmKimiDeltaStateInFp32) {
  PlanInput in =
      real_plan("moonshotai__kimi-linear-48b-a3b-instruct.json", "h200-sxm-141gb", 32768);
  const PlanReport p = test::plan_ok(in);
  EXPECT_EQ(p.estimate.shape.ssm_state_dtype, "fp32");
  // 20 layers of (3 x 4096 x 3 conv values in bf16 + 32 x 128 x 128 state values in fp32).
  EXPECT_EQ(p.estimate.kv.state_bytes_per_sequence, 20u * (36864 * 2 + 524288 * 4));
}

// Nemotron-H's MLPs and experts are up + down with relu2, no gate (NemotronHMLP in transformers).
TEST(CurrentModels, NemotronHExpertsHaveNoGate) {
  PlanInput in = real_plan("nvidia__nvidia-nemotron-3-nano-30b-a3b.json", "h200-sxm-141gb", 8192);
  const PlanReport p = test::plan_ok(in);
  // 23 MoE layers of the pattern, 128 experts of 2688 -> 1856 -> 2688, one shared of 3712
  // (moe_shared_expert_intermediate_size): 31.6B in all, as NVIDIA publishes (models.json).
  EXPECT_EQ(p.params.routed_experts,
            uint64_t{23} * 128 * (2 * 2688 * 1856 + 2688));  // with the router's rows
  EXPECT_EQ(p.params.shared_experts, uint64_t{23} * 2 * 2688 * 3712);
  EXPECT_NEAR(static_cast<double>(p.params.total) / 1e9, 31.6, 0.05);
}

// EXAONE 4.0 (sliding_window_pattern "LLLG") and OLMo 3.1 (layer_types): three 4096-token sliding
// layers to each global one; OLMo's yarn reaches 8 x 8192 = its max_position_embeddings.
TEST(CurrentModels, ExaoneAndOlmoSlidingLayers) {
  for (const char* name :
       {"lgai-exaone__exaone-4.0-32b.json", "allenai__olmo-3.1-32b-instruct.json"}) {
    const ModelShape s = real_config(name);
    EXPECT_EQ(test::count_kind(s, AttentionKind::kSlidingWindow), 48u) << name;
    EXPECT_EQ(test::count_kind(s, AttentionKind::kFull), 16u) << name;
    EXPECT_EQ(s.layers[0].window_tokens, 4096u) << name;
    EXPECT_EQ(s.layers[3].attention, AttentionKind::kFull) << name;
  }
  PlanInput in;
  in.model.config_json = test::read_data("real-configs/allenai__olmo-3.1-32b-instruct.json");
  in.gpu_id = "h200-sxm-141gb";
  const PlanReport p = test::plan_ok(in);
  EXPECT_EQ(p.context_limit.tokens, 65536u);
  EXPECT_EQ(p.max_model_len, 65536u);
}

// Devstral 2 in fp8 per tensor: the pixtral tower and lm_head stay out (modules_to_not_convert).
TEST(CurrentModels, DevstralFp8PerTensorWithItsExclusions) {
  PlanInput in =
      real_plan("mistralai__devstral-small-2-24b-instruct-2512.json", "h100-sxm-80gb", 32768);
  const PlanReport p = test::plan_ok(in);
  EXPECT_EQ(p.weights.name, "fp8 per tensor");
  EXPECT_EQ(p.params.total, 23572403200u);  // the text model: Devstral-Small-2507's index count
  for (const ModuleBytes& m : p.gpu_weights.modules) {
    if (m.module == ModuleClass::kLmHead || m.module == ModuleClass::kEmbedding) {
      EXPECT_EQ(m.bytes, m.params * 2) << module_class_name(m.module);
    } else if (m.module == ModuleClass::kMlp || m.module == ModuleClass::kAttention) {
      EXPECT_LT(m.bytes, m.params + 1024 * 8) << module_class_name(m.module);  // fp8 + scales
    }
  }
}

// A GPTQ-Int4 Qwen3 MoE as GPTQModel writes it: attention and experts in int4 groups of 128, the
// router and head in the checkpoint's fp16.
TEST(CurrentModels, GptqMoeLeavesTheRouterAndHead) {
  PlanInput in =
      real_plan("derived__qwen3-30b-a3b-gptq-int4__gptqmodel-issue.json", "h100-sxm-80gb", 32768);
  const PlanReport p = test::plan_ok(in);
  EXPECT_EQ(p.weights.name, "gptq-int4:g128");
  for (const ModuleBytes& m : p.gpu_weights.modules) {
    const bool int4 =
        m.module == ModuleClass::kRoutedExperts || m.module == ModuleClass::kAttention;
    EXPECT_EQ(m.format.rfind("gptq int4", 0) == 0, int4) << module_class_name(m.module);
    if (m.module == ModuleClass::kRouter) EXPECT_EQ(m.bytes, 48u * 128 * 2048 * 2);
  }
}

// DeepSeek-V3.1 (scale_fmt ue8m0) and the R1 / V3-0324 config: V3's architecture and fp8 blocks.
TEST(CurrentModels, DeepSeekV31AndR1StoreAsV3) {
  auto weights_of = [](const std::string& config) {
    PlanInput in;
    in.model.config_json = config;
    in.gpu_id = "h200-sxm-141gb";
    in.tensor_parallel = 8;
    in.max_model_len = 32768;
    return test::plan_ok(in).weights_bytes;
  };
  const uint64_t v3 = weights_of(test::read_data("real-configs/deepseek-ai__deepseek-v3.json"));
  EXPECT_EQ(weights_of(test::read_data(
                "real-configs/deepseek-ai__deepseek-v3.1.tt-forge-reindented.json")),
            v3);
  EXPECT_EQ(weights_of(test::read_data(
                "real-configs/deepseek-ai__deepseek-r1-or-v3-0324.tt-metal-reference.json")),
            v3);
}

}  // namespace
}  // namespace kvscope
