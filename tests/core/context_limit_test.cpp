// Context limits as engines derive them from real config.json files, and the deployments the
// issue names: what vLLM refuses, what it starts, and with which text.
#include "kvscope/engines/context_limit.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace kvscope {
namespace {

using test::plan_ok;
using test::real_config;

PlanInput real(const std::string& name) {
  PlanInput in;
  in.model.config_json = test::read_data("real-configs/" + name);
  in.model.config_name = name;
  return in;
}

// vLLM with --disable-sliding-window (a vLLM 0.22 log in tests/data/logs): Mistral-7B-v0.1's
// window becomes its limit ("sliding_window=4096") and every layer caches the whole sequence.
TEST(ContextLimit, DisablingTheSlidingWindowMakesItTheLimit) {
  PlanInput in;
  in.model.model_id = "mistral-7b-v0.1";
  in.gpu_id = "h100-sxm-80gb";
  in.max_model_len = 4096;
  const PlanReport windowed = plan_ok(in);
  in.vllm.disable_sliding_window = true;
  const PlanReport full = plan_ok(in);
  EXPECT_EQ(full.context_limit.tokens, 4096u);
  EXPECT_EQ(full.context_limit.derived_from.rfind("sliding_window=4096", 0), 0u);
  EXPECT_TRUE(full.starts);
  EXPECT_NE(full.launch_command.find("--disable-sliding-window"), std::string::npos);
  EXPECT_EQ(windowed.context_limit.tokens, 32768u);
  in.max_model_len = 12288;
  const PlanReport refused = plan_ok(in);
  EXPECT_FALSE(refused.starts);
  EXPECT_NE(refused.startup_error.find("derived max_model_len (sliding_window=4096"), std::string::npos)
      << refused.startup_error;
  in.max_model_len = 32768;
  in.allow_long_context = true;  // past the window: the sliding layers now cache all 32,768 tokens
  EXPECT_EQ(plan_ok(in).kv_bytes_needed, uint64_t{32768} * 32 * 2 * 8 * 128 * 2);
}

TEST(ContextLimit, PlainMaxPositionEmbeddings) {
  const ContextLimit l = vllm_context_limit(test::catalog_shape("qwen3-32b"));
  EXPECT_EQ(l.tokens, 40960u);
  EXPECT_EQ(l.derived_from, "max_position_embeddings=40960");
}

TEST(ContextLimit, YarnMultipliesTheOriginalLengthAsPythonPrintsIt) {
  // gpt-oss-20b: rope_scaling yarn, factor 32.0 (a float) over original 4096.
  const ContextLimit oss = vllm_context_limit(real_config("openai__gpt-oss-20b.json"));
  EXPECT_EQ(oss.tokens, 131072u);
  EXPECT_EQ(oss.derived_from, "max_position_embeddings=131072.0");
  // DeepSeek-V3.2: yarn factor 40 (an int) over 4096.
  const ContextLimit ds = vllm_context_limit(real_config("deepseek-ai__deepseek-v3.2.json"));
  EXPECT_EQ(ds.tokens, 163840u);
  EXPECT_EQ(ds.derived_from, "max_position_embeddings=163840");
}

TEST(ContextLimit, Llama3AndLongropeAreNotMultiplied) {
  EXPECT_EQ(vllm_context_limit(real_config("meta-llama__llama-3.3-70b-instruct.json")).tokens,
            131072u);
  // Phi-4-mini: longrope; with no max_model_len vLLM starts at the original 4096.
  const ContextLimit phi = vllm_context_limit(real_config("microsoft__phi-4-mini-instruct.json"));
  EXPECT_EQ(phi.tokens, 131072u);
  EXPECT_EQ(phi.default_tokens, 4096u);
}

TEST(ContextLimit, TransformersV5RopeParameters) {
  // GLM-5.1 writes rope_parameters {"rope_type": "default"}: nothing to multiply.
  EXPECT_EQ(vllm_context_limit(real_config("zai-org__glm-5.1.json")).tokens, 202752u);
}

TEST(ContextLimit, Gemma3IsAlreadyScaled) {
  const ModelShape g = test::catalog_shape("gemma-3-27b");
  EXPECT_EQ(vllm_context_limit(g).tokens, g.max_position_embeddings);
}

// The issue's third deployment: Qwen3-32B on an H200 at max_model_len 131072.
TEST(ContextLimit, VllmRefusesQwen3At128kWithItsOwnText) {
  PlanInput in;
  in.model.model_id = "qwen3-32b";
  in.gpu_id = "h200-sxm-141gb";
  in.max_model_len = 131072;
  const PlanReport p = plan_ok(in);
  EXPECT_FALSE(p.starts);
  EXPECT_TRUE(p.context_limit_exceeded);
  EXPECT_EQ(p.startup_error.find("User-specified max_model_len (131072) is greater than the "
                                 "derived max_model_len (max_position_embeddings=40960 or "
                                 "model_max_length=None in model's config.json). To allow "
                                 "overriding this maximum, set the env var "
                                 "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1."),
            0u)
      << p.startup_error;
  EXPECT_EQ(p.max_model_len_that_fits, 40960u);
  // The override it names starts it; so does the model's own YaRN extension.
  in.allow_long_context = true;
  EXPECT_TRUE(plan_ok(in).starts);
  in.allow_long_context = false;
  in.overrides = {{"rope_scaling",
                   R"({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768})"}};
  const PlanReport yarn = plan_ok(in);
  EXPECT_TRUE(yarn.starts) << yarn.startup_error;
  EXPECT_EQ(yarn.context_limit.tokens, 131072u);
}

TEST(ContextLimit, SglangRefusesWithItsText) {
  PlanInput in;
  in.model.model_id = "qwen3-32b";
  in.gpu_id = "h200-sxm-141gb";
  in.engine = "sglang";
  in.max_model_len = 65536;
  const PlanReport p = plan_ok(in);
  EXPECT_FALSE(p.starts);
  EXPECT_EQ(p.startup_error.find("User-specified context_length (65536) is greater than the "
                                 "derived context_length (40960)."),
            0u)
      << p.startup_error;
  EXPECT_NE(p.startup_error.find("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"), std::string::npos);
}

TEST(ContextLimit, LlamaCppOnlyWarns) {
  PlanInput in;
  in.model.model_id = "qwen3-32b";
  in.gpu_id = "h200-sxm-141gb";
  in.engine = "llama.cpp";
  in.model.context_tokens = 65536;
  const PlanReport p = plan_ok(in);
  EXPECT_TRUE(p.starts);
  bool warned = false;
  for (const std::string& n : p.notes) {
    warned = warned || n.find("n_ctx_seq (65536) > n_ctx_train (40960) -- possible training "
                              "context overflow") != std::string::npos;
  }
  EXPECT_TRUE(warned);
  // Its limit is n_ctx_train, the GGUF's context_length: a YaRN rope_scaling that raises vLLM's
  // derived length leaves it where the warning is.
  EXPECT_EQ(p.context_limit.tokens, 40960u);
  EXPECT_EQ(p.context_limit.derived_from, "n_ctx_train=40960");
  in.overrides = {{"rope_scaling",
                   R"({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768})"}};
  EXPECT_EQ(plan_ok(in).context_limit.tokens, 40960u);
  in.engine = "vllm";
  EXPECT_EQ(plan_ok(in).context_limit.tokens, 131072u);
}

TEST(ContextLimit, VllmDefaultsToTheDerivedLength) {
  PlanInput in = real("microsoft__phi-4-mini-instruct.json");
  in.gpu_id = "l4";
  const PlanReport p = plan_ok(in);
  EXPECT_EQ(p.max_model_len, 4096u);  // longrope default
  EXPECT_EQ(p.estimate.workload.context_tokens, 4096u);
}

// The issue's first two deployments, with the checkpoints' own weights.
TEST(Deployments, DeepSeekV3Fp8OnOneH200NodeStarts) {
  PlanInput in;
  in.model.model_id = "deepseek-v3";
  in.gpu_id = "h200-sxm-141gb";
  in.gpus = 8;
  in.tensor_parallel = 8;
  in.model.kv_dtype = "fp8";
  in.max_model_len = 131072;
  const PlanReport p = plan_ok(in);
  EXPECT_TRUE(p.starts) << p.startup_error;
  EXPECT_EQ(p.weights.name, "fp8 128x128 blocks");
  // 671B parameters in fp8 plus replicated MLA down-projections, less the MTP layer.
  EXPECT_NEAR(static_cast<double>(p.weights_bytes) / 1e9, 85.1, 0.2);
  EXPECT_GT(p.max_concurrency, 5);
}

TEST(Deployments, GptOss120bWeightsAreMxfp4) {
  PlanInput in;
  in.model.model_id = "gpt-oss-120b";
  in.gpu_id = "h100-sxm-80gb";
  const PlanReport p = plan_ok(in);
  EXPECT_EQ(p.weights.name, "mxfp4 experts");
  // 65.2 GB (60.8 GiB, biases and sinks included) on the card, not 233.6 GB; the KV left at
  // gpu_memory_utilization 0.9 holds no full 131072-token request, as vLLM issue #23278 reports.
  EXPECT_NEAR(static_cast<double>(p.weights_bytes) / 1e9, 65.25, 0.01);
  EXPECT_GT(p.kv_pool_bytes, 0u);
  EXPECT_GT(p.max_model_len_that_fits, 32768u);
}

}  // namespace
}  // namespace kvscope
