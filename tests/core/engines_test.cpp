// SGLang, TensorRT-LLM and llama.cpp profiles against the figures their own sources and logs give
// (shared/docs/engine-formulas.md §2-4).
#include <gtest/gtest.h>

#include "kvscope/plan/plan.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

using test::plan_ok;

PlanInput llamacpp(const std::string& id, uint64_t context, const std::string& kv = "f16") {
  PlanInput in;
  in.model.model_id = id;
  in.model.kv_dtype = kv;
  in.model.context_tokens = context;
  in.engine = "llama.cpp";
  in.gpu_id = "rtx-4090";
  return in;
}

// llama.cpp, Llama-3.1-8B, -c 8192 -np 1: "KV self size = 1024.00 MiB" in f16 and 544.00 MiB in
// q8_0 (34 bytes per 32 values), not 512.
TEST(Engines, LlamaCppBuffersForLlama31) {
  EXPECT_EQ(plan_ok(llamacpp("llama-3.1-8b", 8192)).kv_pool_bytes, 1024 * kMiB);
  EXPECT_EQ(plan_ok(llamacpp("llama-3.1-8b", 8192, "q8_0")).kv_pool_bytes, 544 * kMiB);
  PlanInput split = llamacpp("llama-3.1-8b", 8192, "q8_0");
  split.llama_cpp.v_dtype = "f16";  // -ctk q8_0 -ctv f16
  EXPECT_EQ(plan_ok(split).kv_pool_bytes, (272 + 512) * kMiB);
}

TEST(Engines, LlamaCppPadsTheContextTo256Cells) {
  const PlanReport p = plan_ok(llamacpp("llama-3.1-8b", 8000));
  EXPECT_EQ(p.kv_pool_tokens, 8192u);
  EXPECT_EQ(p.estimate.kv.kv_bytes_total, 1024 * kMiB);  // kv_bytes_total is its K + V buffers
}

TEST(Engines, LlamaCppSlidingLayersGetWindowPlusUbatchCells) {
  // Gemma 3 27B, -c 32768 -np 4, unified: SWA cache min(32768, 1024 x 4 + 512) = 4608 cells.
  PlanInput in = llamacpp("gemma-3-27b", 32768);
  in.llama_cpp.parallel = 4;
  const uint64_t per_cell = 2 * 16 * 128 * 2;
  EXPECT_EQ(plan_ok(in).kv_pool_bytes, (10 * 32768 + 52 * 4608) * per_cell);
  in.llama_cpp.kv_unified =
      false;  // one stream per sequence of 8192 cells; SWA min(8192, 1024 + 512)
  EXPECT_EQ(plan_ok(in).kv_pool_bytes, 4 * (10 * 8192 + 52 * 1536) * per_cell);
}

TEST(Engines, LlamaCppRecurrentStateIsF32PerSequence) {
  PlanInput in = llamacpp("jamba-v0.1", 4096);
  in.llama_cpp.parallel = 2;
  const PlanReport p = plan_ok(in);
  const uint64_t state = 28u * (8192 * 3 + 8192 * 16) * 4;  // 28 Mamba layers, f32
  const uint64_t attention = 4u * 4096 * 2 * 8 * 128 * 2;
  EXPECT_EQ(p.kv_pool_bytes, attention + 2 * state);
}

TEST(Engines, LlamaCppSaysWhenTheBuffersDoNotFit) {
  const PlanReport p = plan_ok(llamacpp("llama-3.1-8b", 131072));
  EXPECT_FALSE(p.starts);
  EXPECT_GT(p.max_context, 8192u);
  EXPECT_LT(p.max_context, 131072u);
}

// A context near 2^64 padded to 256 cells wrapped to 0 cells. Only all-sliding models reach it:
// their KV stops growing at the window, so the estimate does not refuse the context first.
TEST(Engines, LlamaCppContextPastTwoToThe64CellsIsOutOfRange) {
  const Result<PlanReport> r = plan(llamacpp("mistral-7b-v0.1", UINT64_MAX - 10));
  ASSERT_FALSE(r.ok) << r.value.max_model_len;
  EXPECT_EQ(r.error.code, kOutOfRange);
  EXPECT_EQ(r.error.field, "context_tokens");
}

// Found by fuzz_plan: more sequences than cells leave each stream 0 cells, and 0 bytes of
// buffers "fit" beside weights larger than the card.
TEST(Engines, LlamaCppWeightsPastTheCardDoNotStartWithEmptyBuffers) {
  PlanInput in = llamacpp("llama-3.1-8b", 256);
  in.llama_cpp.parallel = 512;
  in.llama_cpp.kv_unified = false;
  in.weights_bytes = 100 * kGiB;  // an RTX 4090 has 24 GiB
  const PlanReport p = plan_ok(in);
  EXPECT_EQ(p.kv_pool_bytes, 0u);
  EXPECT_FALSE(p.starts);
}

// n_swa x n_seq + n_ubatch past 2^64 wrapped to a handful of cells; it caps nothing then.
TEST(Engines, LlamaCppSlidingCellsDoNotWrapWithHugeParallel) {
  PlanInput in = llamacpp("gemma-3-27b", 32768);
  in.llama_cpp.parallel = uint64_t{1} << 20;  // window x sequences far past the context
  const uint64_t uncapped = plan_ok(in).kv_pool_bytes;
  in.llama_cpp.parallel = uint64_t{1} << 62;  // 1024 x 2^62 wraps to 0
  EXPECT_EQ(plan_ok(in).kv_pool_bytes, uncapped);
}

// SGLang log: "KV Cache is allocated. #tokens: 46611, K size: 1.42 GB" for a Qwen2.5-32B-class
// model at TP 4 (2 KV heads of 128 per rank, 64 layers, bf16; SGLang's GB are GiB).
TEST(Engines, SglangCellSizeAndTokens) {
  PlanInput in;
  in.model.config_json = test::read_fixture("qwen2_5_32b_shape.json");
  in.engine = "sglang";
  in.tensor_parallel = 4;
  const uint64_t cell = 64 * 2 * (128 + 128) * 2;  // K + V, all local layers
  in.kv_memory_bytes = 46611 * cell + cell / 2;
  const PlanReport p = plan_ok(in);
  EXPECT_EQ(p.kv_pool_tokens, 46611u);
  const double k_size_gib = static_cast<double>(p.kv_pool_tokens * cell / 2) / kGiB;
  EXPECT_NEAR(k_size_gib, 1.42, 0.005);
}

TEST(Engines, SglangBudgetIsFreeAfterWeightsLessTheReserve) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.engine = "sglang";
  in.gpu_memory_bytes = 80 * kGiB;
  in.sglang.mem_fraction_static = 0.8;
  in.max_model_len = 8192;
  const PlanReport p = plan_ok(in);
  EXPECT_EQ(p.kv_pool_bytes, 64 * kGiB - p.weights_bytes);  // 80 - 16 (reserve) - weights
  EXPECT_EQ(p.kv_pool_tokens, p.kv_pool_bytes / 131072);
  in.sglang.mem_fraction_static = 0.15;  // reserve 68 GiB: nothing left
  const PlanReport none = plan_ok(in);
  EXPECT_FALSE(none.starts);
  EXPECT_NE(none.startup_error.find("increase --mem-fraction-static. Current value: 0.15"),
            std::string::npos);
  in.sglang.mem_fraction_static = 1.5;
  EXPECT_EQ(plan(in).error.field, "sglang.mem_fraction_static");
}

// SGLang's default mem_fraction_static from the card (arg_groups/memory_hook.py, late 2026), in
// MiB: 512 + 1.5 x the chunked-prefill tokens + 128 per rank (NCCL) + 2 per decode graph batch + 8
// per prefill graph bucket, at least 10 GiB on cards over 60 GiB, out of the card's.
TEST(Engines, SglangDefaultFractionIsReservedOutOfTheCard) {
  PlanInput in;
  in.model.model_id = "qwen3-8b";
  in.engine = "sglang";
  const auto fraction = [&](const char* gpu) {
    in.gpu_id = gpu;
    const PlanReport p = plan_ok(in);
    return static_cast<double>(p.requested_bytes) / static_cast<double>(p.gpu_memory_bytes);
  };
  // H100 (81,559 MiB): chunks of 8,192, 256 decode batch sizes, 58 prefill buckets:
  // 512 + 12,288 + 128 + 512 + 464 = 13,904 MiB, 0.830 of the card.
  EXPECT_NEAR(fraction("h100-sxm-80gb"), 0.830, 1e-9);
  // RTX 4090 (24,564 MiB): chunks of 4,096, 48 batch sizes, 50 buckets: 7,280 MiB, 0.704.
  EXPECT_NEAR(fraction("rtx-4090"), 0.704, 1e-9);
  in.pipeline_parallel = in.gpus = 2;  // no prefill graphs under PP: 13,568 MiB, 0.834
  EXPECT_NEAR(fraction("h100-sxm-80gb"), 0.834, 1e-9);
  in.pipeline_parallel = in.gpus = 1;
  in.model.model_id = "deepseek-v2-lite";  // MLA: a flat 1.5 GiB of prefill graphs, 14,976 MiB
  EXPECT_NEAR(fraction("h100-sxm-80gb"), 0.816, 1e-9);
  in.engine_version = "2026";  // kvscope's early-2026 line keeps SGLang's fallback
  EXPECT_NEAR(fraction("h100-sxm-80gb"), 0.88, 1e-9);
}

// SGLang's request cap (init_memory): 512 requests per context_len of pool tokens, clamped to
// [2048, 4096].
TEST(Engines, SglangMaxRunningRequestsFromThePool) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.engine = "sglang";
  in.max_model_len = 32768;
  in.kv_memory_bytes = 40 * kGiB;  // 327,680 tokens of 131,072 bytes: 5,120 -> 4,096
  EXPECT_EQ(plan_ok(in).max_running_requests, 4096u);
  in.kv_memory_bytes = 24 * kGiB;  // 196,608 tokens: 3,072
  EXPECT_EQ(plan_ok(in).max_running_requests, 3072u);
  in.kv_memory_bytes = 2 * kGiB;  // 16,384 tokens: 256 -> 2,048
  const PlanReport small = plan_ok(in);
  EXPECT_EQ(small.max_running_requests, 2048u);
  EXPECT_EQ(small.state_pool.slots, 0u);
  in.sglang.max_running_requests = 10;
  EXPECT_EQ(plan_ok(in).max_running_requests, 10u);
}

// Qwen3.5 (24 gated-delta-net layers, 8 attention layers) at TP 2: handle_max_mamba_cache gives
// the states 0.9 / 1.9 of the rest, whole slots, and the KV pool what is left; a running request
// may hold three slots (radix cache on).
TEST(Engines, SglangHybridSplitsTheRestBetweenStatesAndKv) {
  PlanInput in;
  in.model.config_json = test::read_data("real-configs/qwen__qwen3.5-4b.json");
  in.engine = "sglang";
  in.tensor_parallel = 2;
  in.max_model_len = 262144;
  in.kv_memory_bytes = 10 * kGiB;
  const PlanReport p = plan_ok(in);
  // Per rank: conv (4096 values + 2 x 2048 keys) / 2 x (kernel 4 - 1) in bf16; SSM 32 / 2 value
  // heads x 128 x 128 in fp32 (the config's mamba_ssm_dtype).
  const uint64_t conv = (32 * 128 + 2 * 16 * 128) / 2 * 3 * 2, ssm = 32 / 2 * 128 * 128 * 4;
  EXPECT_EQ(p.state_pool.conv_bytes_per_slot, 24 * conv);
  EXPECT_EQ(p.state_pool.ssm_bytes_per_slot, 24 * ssm);
  EXPECT_EQ(p.state_pool.ssm_dtype, "fp32");
  const uint64_t slot = 24 * (conv + ssm);
  const uint64_t slots = static_cast<uint64_t>(10.0 * kGiB * 0.9 / 1.9 / slot);
  EXPECT_EQ(p.state_pool.slots, slots);
  EXPECT_EQ(p.state_pool.bytes, (slots + 1) * slot);
  EXPECT_EQ(p.kv_pool_bytes, 10 * kGiB - slots * slot);
  const uint64_t cell = 8 * (4 / 2) * (256 + 256) * 2;  // attention layers only
  EXPECT_EQ(p.kv_pool_tokens, p.kv_pool_bytes / cell);
  EXPECT_EQ(p.max_running_requests, slots / 3);
  EXPECT_DOUBLE_EQ(p.max_concurrency,
                   static_cast<double>(p.kv_pool_tokens) / 262144);  // below the cap

  in.sglang.max_mamba_cache_size = 186;  // --max-mamba-cache-size
  const PlanReport fixed = plan_ok(in);
  EXPECT_EQ(fixed.state_pool.slots, 186u);
  EXPECT_EQ(fixed.kv_pool_bytes, 10 * kGiB - 186 * slot);
  EXPECT_EQ(fixed.max_running_requests, 62u);

  in.sglang.max_mamba_cache_size = 0;
  in.sglang.disable_radix_cache = true;  // one slot per request; the cap sizes the pool
  in.sglang.max_running_requests = 40;
  const PlanReport no_radix = plan_ok(in);
  EXPECT_EQ(no_radix.state_pool.slots, 40u);
  EXPECT_EQ(no_radix.max_running_requests, 40u);

  // MTP drafting: the cap resets to 48 and 48 x (3 + 1) intermediate states come off first.
  in.sglang.disable_radix_cache = false;
  in.sglang.max_running_requests = 0;
  in.speculative_config = R"({"method": "mtp", "num_speculative_tokens": 3})";
  in.kv_memory_bytes = 40 * kGiB;
  const PlanReport spec = plan_ok(in);
  EXPECT_EQ(spec.max_running_requests, 48u);
  EXPECT_EQ(spec.state_pool.ssm_bytes_per_slot, 24 * ssm);  // the MTP layer is attention
  const uint64_t rest = 40 * kGiB - 48 * 4 * slot;
  EXPECT_EQ(spec.state_pool.slots, static_cast<uint64_t>(rest * 0.9 / 1.9 / slot));
  in.speculative_config.clear();
  in.sglang.mamba_full_memory_ratio = 0;
  EXPECT_EQ(plan(in).error.field, "sglang.mamba_full_memory_ratio");
}

// SGLang's hybrid SWA pool (set_num_tokens_hybrid_swa) for the architectures it lists: the profiled
// tokens' bytes split so that sliding layers hold 0.8 as many tokens as the full ones.
TEST(Engines, SglangHybridSwaPoolForGptOss) {
  PlanInput in;
  in.model.model_id = "gpt-oss-20b";
  in.engine = "sglang";
  in.kv_memory_bytes = 20 * kGiB;
  in.max_model_len = 65536;
  const uint64_t layer = 2 * 8 * 64 * 2;                   // K + V of one layer, bf16
  const uint64_t full = 12 * layer, sliding = 12 * layer;  // alternating layers, window 128
  const uint64_t profiled = 20 * kGiB / (full + sliding);
  const PlanReport p = plan_ok(in);
  const uint64_t full_tokens = static_cast<uint64_t>(static_cast<double>(profiled) *
                                                     (full + sliding) / (full + 0.8 * sliding));
  EXPECT_EQ(p.kv_pool_tokens, full_tokens);
  EXPECT_EQ(p.swa_pool_tokens, static_cast<uint64_t>(full_tokens * 0.8));
  EXPECT_EQ(p.kv_bytes_needed, full * 65536 + sliding * 128);  // a request keeps its window
  EXPECT_DOUBLE_EQ(p.max_concurrency, static_cast<double>(full_tokens) / 65536);
  in.sglang.disable_hybrid_swa_memory = true;
  const PlanReport one = plan_ok(in);
  EXPECT_EQ(one.kv_pool_tokens, profiled);
  EXPECT_EQ(one.swa_pool_tokens, 0u);
  in.sglang.disable_hybrid_swa_memory = false;
  in.sglang.swa_full_tokens_ratio = 0;
  EXPECT_EQ(plan(in).error.field, "sglang.swa_full_tokens_ratio");
  in.sglang.swa_full_tokens_ratio = 0.8;
  in.model.model_id = "gemma-3-27b";  // Gemma 3 is not on SGLang's list: one pool
  EXPECT_EQ(plan_ok(in).swa_pool_tokens, 0u);
}

// SGLang keeps the SSM state in float32 unless the config's mamba_ssm_dtype (or --mamba-ssm-dtype)
// says otherwise (mamba2_state_dtype); vLLM keeps Qwen3-Next's in the state dtype.
TEST(Engines, SglangSsmStateDtype) {
  PlanInput in;
  in.model.model_id = "qwen3-next-80b-a3b";
  in.engine = "sglang";
  in.tensor_parallel = 4;
  in.gpu_id = "h100-sxm-80gb";
  in.max_model_len = 32768;
  EXPECT_EQ(plan_ok(in).state_pool.ssm_dtype, "fp32");
  in.engine = "vllm";
  EXPECT_EQ(plan_ok(in).estimate.shape.ssm_state_dtype, "");  // the state dtype, bf16
  in.engine = "sglang";
  in.overrides = {{"mamba_ssm_dtype", "\"bfloat16\""}};
  EXPECT_EQ(plan_ok(in).state_pool.ssm_dtype, "bf16");
  in.overrides = {{"mamba_ssm_cache_dtype", "\"bfloat16\""}};  // vLLM's field, not SGLang's
  EXPECT_EQ(plan_ok(in).state_pool.ssm_dtype, "fp32");
  in.overrides.clear();
  in.model.ssm_state_dtype = "bf16";
  EXPECT_EQ(plan_ok(in).state_pool.ssm_dtype, "bf16");
}

TEST(Engines, SglangRefusesStatePoolsItDoesNotModel) {
  PlanInput in;
  in.engine = "sglang";
  in.gpu_id = "h100-sxm-80gb";
  in.max_model_len = 8192;
  in.model.model_id = "jamba-v0.1";  // Mamba-1 layers
  EXPECT_EQ(plan(in).error.field, "engine");
  in.model.model_id.clear();
  in.model.config_json =
      test::read_data("real-configs/state-spaces__mamba2-2.7b.mlx-swift-fixture.json");
  const Result<PlanReport> free = plan(in);
  ASSERT_FALSE(free.ok);
  EXPECT_NE(free.error.message.find("attention-free"), std::string::npos);
}

// TensorRT-LLM rounds the token budget UP to blocks of 32 (calculateMaxNumBlocks) and counts
// capacity in whole blocks per sequence (getMaxCapacityBatchSize).
TEST(Engines, TensorRtLlmCeilsToBlocksOf32) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.engine = "tensorrt-llm";
  in.kv_memory_bytes = 100 * 131072;  // 100 tokens
  in.max_model_len = 64;
  const PlanReport p = plan_ok(in);
  EXPECT_EQ(p.kv_pool_tokens, 100u);
  EXPECT_EQ(p.num_blocks, 4u);
  EXPECT_EQ(p.max_concurrency, 2.0);
  in.max_model_len = 200;
  EXPECT_FALSE(plan_ok(in).starts);
  in.tensorrt_llm.free_gpu_memory_fraction = 0;
  EXPECT_EQ(plan(in).error.field, "tensorrt_llm.free_gpu_memory_fraction");
}

TEST(Engines, TensorRtLlmFractionOfFreeMemory) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.engine = "tensorrt-llm";
  in.gpu_memory_bytes = 40 * kGiB;
  in.tensorrt_llm.free_gpu_memory_fraction = 0.5;
  const PlanReport p = plan_ok(in);
  EXPECT_EQ(p.kv_pool_bytes, (40 * kGiB - p.weights_bytes) / 2);
}

// SGLang and TensorRT-LLM multiplied one request's bytes without a check: 2^60 tokens of
// 131,072 bytes wrapped to a small number.
TEST(Engines, SglangAndTensorRtHugeMaxModelLenIsOutOfRange) {
  for (const char* engine : {"sglang", "tensorrt-llm"}) {
    PlanInput in;
    in.model.model_id = "llama-3.1-8b";
    in.engine = engine;
    in.gpu_id = "h100-sxm-80gb";
    in.max_model_len = in.model.context_tokens = uint64_t{1} << 40;
    ASSERT_TRUE(plan(in).ok) << engine;  // 2^57 bytes: large, but exact
    in.max_model_len = uint64_t{1} << 60;
    const Result<PlanReport> r = plan(in);
    ASSERT_FALSE(r.ok) << engine << " " << r.value.kv_bytes_needed;
    EXPECT_EQ(r.error.code, kOutOfRange) << engine;
    EXPECT_EQ(r.error.field, "max_model_len") << engine;
  }
}

// llama.cpp windows only the architectures its load_hparams gives sliding-window layers: Phi-3
// reads n_swa and disables SWA, Mistral-7B-v0.1 converts to a llama GGUF without it. The issue's
// figure: Phi-3-mini at -c 8192 is 3,072 MiB, not the 960 MiB a 2047-token window would give.
TEST(Engines, LlamaCppWindowsOnlyItsSwaArchitectures) {
  EXPECT_EQ(plan_ok(llamacpp("phi-3-mini-4k", 8192)).kv_pool_bytes, 3072 * kMiB);
  EXPECT_EQ(plan_ok(llamacpp("mistral-7b-v0.1", 8192)).kv_pool_bytes, 1024 * kMiB);
  // gpt-oss keeps its windows: 12 full layers at 8192 cells, 12 sliding at PAD(128 + 512, 256).
  const uint64_t per_cell = 2 * 8 * 64 * 2;
  EXPECT_EQ(plan_ok(llamacpp("gpt-oss-20b", 8192)).kv_pool_bytes,
            (12 * 8192 + 12 * 768) * per_cell);
  PlanInput full = llamacpp("gpt-oss-20b", 8192);
  full.llama_cpp.swa_full = true;
  EXPECT_EQ(plan_ok(full).kv_pool_bytes, 24 * 8192 * per_cell);
}

// DeepSeek MLA under llama.cpp: the 576-wide latent as K and, in current builds, no V; builds
// before PR #19067 kept a 512-wide V; GGUFs converted before PR #12801 keep per-head K and V.
TEST(Engines, LlamaCppMlaLayouts) {
  const uint64_t cells = 4096, layers = 61;
  EXPECT_EQ(plan_ok(llamacpp("deepseek-v3", cells)).kv_pool_bytes, layers * cells * 576 * 2);
  PlanInput with_v = llamacpp("deepseek-v3", cells);
  with_v.llama_cpp.mla_v_cache = true;
  EXPECT_EQ(plan_ok(with_v).kv_pool_bytes, layers * cells * (576 + 512) * 2);
  PlanInput legacy = llamacpp("deepseek-v3", cells);
  legacy.llama_cpp.legacy_mla_gguf = true;
  EXPECT_EQ(plan_ok(legacy).kv_pool_bytes, 19520 * kMiB);  // the log's "KV self size"
}

// Layers split over devices as load_tensors does: cumulative -ts fractions, -ngl from the end,
// the output layer offloaded first (PR #18148) or last (builds before it).
TEST(Engines, LlamaCppKvBuffersPerDevice) {
  PlanInput in = llamacpp("mistral-7b-v0.1", 768);
  in.llama_cpp.n_gpu_layers = 20;
  in.llama_cpp.output_layer_last = true;
  const PlanReport old_rule = plan_ok(in);
  ASSERT_EQ(old_rule.devices.size(), 2u);
  EXPECT_EQ(old_rule.devices[0].first_layer, 12u);
  EXPECT_EQ(old_rule.devices[0].kv_bytes, 60 * kMiB);
  EXPECT_EQ(old_rule.devices[1].device, "CPU");
  EXPECT_EQ(old_rule.devices[1].kv_bytes, 36 * kMiB);
  EXPECT_TRUE(old_rule.devices[1].output_layer);
  in.llama_cpp.output_layer_last = false;  // now: the output layer and the last 19 layers
  const PlanReport new_rule = plan_ok(in);
  EXPECT_EQ(new_rule.devices[0].first_layer, 13u);
  EXPECT_TRUE(new_rule.devices[0].output_layer);
  EXPECT_EQ(new_rule.devices[0].kv_bytes, 57 * kMiB);
  // Four devices split by free memory (the DeepSeek-V3-0324 log): 15, 12, 12 and 22 layers.
  PlanInput split = llamacpp("deepseek-v3", 16384);
  split.gpu_id = "rtx-a6000";
  split.gpus = 4;
  split.llama_cpp.tensor_split = {29249, 23633, 23698, 48280};
  split.llama_cpp.mla_v_cache = true;
  split.llama_cpp.output_layer_last = true;
  const PlanReport four = plan_ok(split);
  ASSERT_EQ(four.devices.size(), 5u);
  EXPECT_EQ(four.devices[0].layer_count, 15u);
  EXPECT_EQ(four.devices[3].layer_count, 22u);
  EXPECT_EQ(four.devices[3].kv_bytes, 748 * kMiB);
  split.llama_cpp.tensor_split = {1, 2};
  EXPECT_EQ(plan(split).error.field, "llama_cpp.tensor_split");
  split.llama_cpp.tensor_split.clear();
  split.tensor_parallel = 2;
  EXPECT_EQ(plan(split).error.field, "tensor_parallel");
}

// No -c: builds of 2026 start from n_ctx_train and --fit cuts it to what the GPU holds with 1 GiB
// free (common/fit.cpp); Qwen3-32B in Q4_K_M on a 24 GB card keeps every layer there at a shorter
// context, and the command leaves -c and -ngl to --fit.
TEST(Engines, LlamaCppFitsTheContextWhenNoneIsAsked) {
  PlanInput in = llamacpp("qwen3-32b", 0);
  in.weight_dtype = "q4_k_m";
  const PlanReport p = plan_ok(in);
  ASSERT_TRUE(p.offload.present);
  EXPECT_EQ(p.offload.gpu_layers, p.offload.layers);
  EXPECT_LT(p.max_model_len, 40960u);
  EXPECT_GE(p.max_model_len, 4096u);
  EXPECT_EQ(p.max_model_len % 256, 0u);
  EXPECT_TRUE(p.starts);
  EXPECT_EQ(p.launch_command.find(" -c "), std::string::npos);
  EXPECT_EQ(p.launch_command.find("-ngl"), std::string::npos);
  in.model.context_tokens = 40960;  // asked for: planned as asked, every layer as -ngl 999 puts it
  const PlanReport asked = plan_ok(in);
  EXPECT_FALSE(asked.offload.present);
  EXPECT_EQ(asked.max_model_len, 40960u);
}

// --fit's 1 GiB margin is free memory beside what it places, not an allocation: a card others
// fill to within the margin keeps nothing of the model, and llama-server still starts on the CPU
// with that GPU holding nothing. Others holding the whole card is an error naming the field.
TEST(Engines, LlamaCppFitOnACardOthersFill) {
  PlanInput in = llamacpp("qwen3-32b", 0);
  in.weight_dtype = "q4_k_m";
  const uint64_t card = find_gpu(in.gpu_id).value.memory_bytes;
  in.overhead_bytes = card - kGiB / 2;
  const PlanReport p = plan_ok(in);
  EXPECT_TRUE(p.starts);
  EXPECT_EQ(p.offload.gpu_layers, 0u);
  for (const DeviceBuffers& d : p.devices) EXPECT_TRUE(d.fits) << d.device;
  in.overhead_bytes = card;
  EXPECT_EQ(plan(in).error.field, "overhead_bytes");
}

// --fit plans n_ctx_train per stream: streams past 2^64 cells are out of range, named (a fuzzed
// --parallel once divided by a step that had wrapped to zero).
TEST(Engines, LlamaCppFitStreamsPastTheCellRange) {
  PlanInput in = llamacpp("qwen3-32b", 0);
  in.weight_dtype = "q4_k_m";
  in.llama_cpp.kv_unified = false;
  in.llama_cpp.parallel = uint64_t{1} << 60;
  const Result<PlanReport> r = plan(in);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, kOutOfRange);
  EXPECT_EQ(r.error.field, "llama_cpp.parallel");
}

// SGLang's own mem_fraction_static reserves NCCL memory per rank: on a 16 GB card 104 ranks leave
// it below zero, which is SGLang's failure to start, named, not the user's value refused.
TEST(Engines, SglangDefaultFractionBelowZeroIsNamed) {
  PlanInput in;
  in.model.model_id = "qwen3-8b";
  in.engine = "sglang";
  in.gpu_id = "t4";
  in.tensor_parallel = 8;
  in.pipeline_parallel = 13;
  const Result<PlanReport> r = plan(in);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, kOutOfRange);
  EXPECT_EQ(r.error.field, "sglang.mem_fraction_static");
  EXPECT_NE(r.error.message.find("tp x pp = 104 ranks"), std::string::npos);
}

// TensorRT-LLM's KV cache is the smallest of free_gpu_memory_fraction's share, max_tokens'
// bytes and max_gpu_total_bytes (KvCacheConfig; _util.py configure_kv_cache_capacity), written
// to the --config YAML of the command.
TEST(Engines, TensorRtLlmTakesTheSmallestOfItsCaps) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.gpu_id = "h100-sxm-80gb";
  in.engine = "tensorrt-llm";
  const PlanReport free_share = plan_ok(in);
  in.tensorrt_llm.max_tokens = 100000;
  const PlanReport tokens = plan_ok(in);
  EXPECT_EQ(tokens.kv_pool_bytes, uint64_t{100000} * 131072);
  EXPECT_EQ(tokens.kv_pool_tokens, 100000u);
  EXPECT_LT(tokens.kv_pool_bytes, free_share.kv_pool_bytes);
  in.tensorrt_llm.max_gpu_total_bytes = 4 * kGiB;
  EXPECT_EQ(plan_ok(in).kv_pool_bytes, 4 * kGiB);
  EXPECT_EQ(
      plan_ok(in).launch_command.rfind("printf 'kv_cache_config:\\n  max_tokens: 100000\\n"
                                       "  max_gpu_total_bytes: 4294967296\\n' > kv_cache.yaml "
                                       "&& trtllm-serve ",
                                       0),
      0u);
}

// SGLang takes a share of its default mem_fraction_static for a vision tower
// (adjust_mem_fraction_for_vlm): 0.95 for ViT-L/14's 24 x 1024 (Devstral Small 2), and 0.95 x
// (1 - 0.1 x (27 x 1152^2 / (24 x 1024^2) - 1)) = 0.9098 for Gemma 4's 27 x 1152; a fraction given
// is taken as it is.
TEST(Engines, SglangLeavesRoomForTheVisionTower) {
  PlanInput in;
  in.engine = "sglang";
  in.gpu_id = "h100-sxm-80gb";
  in.max_model_len = 32768;
  in.model.config_json =
      test::read_data("real-configs/mistralai__devstral-small-2-24b-instruct-2512.json");
  const PlanReport devstral = plan_ok(in);
  const double card = static_cast<double>(devstral.gpu_memory_bytes);
  EXPECT_NEAR(static_cast<double>(devstral.requested_bytes) / card, 0.830 * 0.95, 1e-9);
  in.model.config_json =
      test::read_data("real-configs/google__gemma-4-31b-it.transformers-repr.json");
  const PlanReport gemma = plan_ok(in);
  const double share = 0.95 * (1 - 0.1 * (27.0 * 1152 * 1152 / (24.0 * 1024 * 1024) - 1));
  EXPECT_NEAR(static_cast<double>(gemma.requested_bytes) / card, 0.830 * share, 1e-9);
  in.sglang.mem_fraction_static = 0.8;
  EXPECT_NEAR(static_cast<double>(plan_ok(in).requested_bytes) / card, 0.8, 1e-9);
}

// SGLang's late-2026 line gives Gemma 4's MoE checkpoints a window pool of 0.15 full tokens (not
// 0.8) unless --swa-full-tokens-ratio is given; the dense ones keep 0.8.
TEST(Engines, SglangGemma4MoeWindowRatio) {
  PlanInput in;
  in.engine = "sglang";
  in.model.model_id = "gemma-4-31b";
  in.max_model_len = 32768;
  in.kv_memory_bytes = 40 * kGiB;
  const auto ratio = [](const PlanReport& r) {
    return static_cast<double>(r.swa_pool_tokens) / static_cast<double>(r.kv_pool_tokens);
  };
  EXPECT_NEAR(ratio(plan_ok(in)), 0.8, 1e-3);
  in.overrides = {{"num_experts", "128"}, {"num_experts_per_tok", "8"},
                  {"moe_intermediate_size", "704"}};
  EXPECT_NEAR(ratio(plan_ok(in)), 0.15, 1e-3);
  in.sglang.swa_full_tokens_ratio = 0.5;
  EXPECT_NEAR(ratio(plan_ok(in)), 0.5, 1e-3);
  in.sglang.swa_full_tokens_ratio = SglangOptions{}.swa_full_tokens_ratio;
  in.engine_version = "2026";
  EXPECT_NEAR(ratio(plan_ok(in)), 0.8, 1e-3);
}

}  // namespace
}  // namespace kvscope
