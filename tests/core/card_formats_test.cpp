// What each engine runs on a card (core/src/plan/card_formats.cpp): a plan asking for a format
// the card cannot run fails as the engine would, and the solver never offers one.
#include <gtest/gtest.h>

#include "kvscope/plan/plan.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

PlanInput on(const char* model, const char* gpu, const char* engine = "vllm") {
  PlanInput in;
  in.model.model_id = model;
  in.gpu_id = gpu;
  in.engine = engine;
  in.model.context_tokens = 4096;
  return in;
}

Error refusal(const PlanInput& in) {
  const Result<PlanReport> r = plan(in);
  EXPECT_FALSE(r.ok);
  return r.error;
}

// vLLM's fp8 KV cache needs FlashInfer (8.0 on) or, for MLA, 8.9; its Triton backends refuse it.
TEST(CardFormats, VllmFp8KvCacheByCapability) {
  PlanInput t4 = on("qwen3-8b", "t4");
  t4.model.kv_dtype = "fp8";
  const Error e = refusal(t4);
  EXPECT_EQ(e.field, "kv_dtype");
  EXPECT_EQ(e.message,
            "kv_dtype: FP8 KV cache is not supported by the Triton attention backend on NVIDIA "
            "T4 16GB "
            "(compute capability 7.5); native FP8 (fp8e4nv) requires SM89+. Re-run with "
            "--kv-cache-dtype auto.");
  PlanInput a100 = on("qwen3-8b", "a100-sxm-80gb");
  a100.model.kv_dtype = "fp8";
  EXPECT_TRUE(plan(a100).ok);
  PlanInput mla = on("deepseek-v2-lite", "a100-sxm-80gb");
  mla.model.kv_dtype = "fp8";
  EXPECT_EQ(refusal(mla).field, "kv_dtype");
  mla.gpu_id = "l40s";
  EXPECT_TRUE(plan(mla).ok);
}

// Each quantization config's get_min_capability(), in vLLM's own words.
TEST(CardFormats, VllmWeightFormatsByCapability) {
  const Error mxfp4 = refusal(on("gpt-oss-20b", "t4"));
  EXPECT_EQ(mxfp4.field, "weight_dtype");
  EXPECT_EQ(
      mxfp4.message,
      "weight_dtype: The quantization method mxfp4 is not supported for the current GPU. Minimum "
      "capability: 80. Current capability: 75.");
  EXPECT_TRUE(plan(on("gpt-oss-20b", "a10")).ok);
  EXPECT_EQ(refusal(on("qwen3-8b-fp8", "v100-sxm2-32gb")).field, "weight_dtype");
  EXPECT_TRUE(plan(on("qwen3-8b-fp8", "t4")).ok);  // Marlin's weight-only FP8 from sm75
  PlanInput online = on("qwen3-8b", "v100-sxm2-32gb");
  online.weight_dtype = "fp8";  // --quantization fp8
  EXPECT_EQ(refusal(online).field, "weight_dtype");
  EXPECT_TRUE(plan(on("qwen3-8b", "mi300x")).ok);  // AMD's gfx targets pass every floor
}

// SGLang refuses cards below sm75 whole, and its fp8 (80) and ModelOpt FP8 (89) floors are higher.
TEST(CardFormats, SglangCardsAndFloors) {
  const Error v100 = refusal(on("qwen3-8b", "v100-sxm2-32gb", "sglang"));
  EXPECT_EQ(v100.field, "gpu");
  EXPECT_EQ(v100.message, "gpu: SGLang only supports sm75 and above.");
  EXPECT_EQ(refusal(on("qwen3-8b-fp8", "t4", "sglang")).field, "weight_dtype");
  EXPECT_TRUE(plan(on("qwen3-8b-fp8", "a100-sxm-80gb", "sglang")).ok);
}

// TensorRT-LLM 1.x builds for Ampere and newer only.
TEST(CardFormats, TensorRtLlmFromAmpere) {
  for (const char* gpu : {"t4", "v100-sxm2-32gb"}) {
    const Error e = refusal(on("qwen3-8b", gpu, "tensorrt-llm"));
    EXPECT_EQ(e.field, "gpu") << gpu;
    EXPECT_NE(e.message.find("TensorRT-LLM 1.x supports Ampere and newer GPUs"), std::string::npos);
  }
  EXPECT_TRUE(plan(on("qwen3-8b", "a100-sxm-80gb", "tensorrt-llm")).ok);
}

// A bf16 checkpoint on a card without bf16 runs in fp16 under vLLM and SGLang, and says so.
TEST(CardFormats, Bf16CheckpointsRunInFp16BelowAmpere) {
  const auto says_fp16 = [](const PlanInput& in) {
    const Result<PlanReport> r = plan(in);
    EXPECT_TRUE(r.ok) << r.error.message;
    for (const std::string& n : r.value.notes)
      if (n.find("has no bf16") != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(says_fp16(on("qwen3-8b", "t4")));  // Qwen3's torch_dtype is bfloat16
  EXPECT_TRUE(says_fp16(on("qwen3-8b", "t4", "sglang")));
  EXPECT_FALSE(says_fp16(on("qwen3-8b", "a100-sxm-80gb")));
  EXPECT_FALSE(says_fp16(on("llama-2-7b", "t4")));  // float16 as stored
}

}  // namespace
}  // namespace kvscope
