// Engine versions as profile parameters: each version line of the engine table against the
// behaviour its release showed (shared/docs/engine-formulas.md §1.6-1.7, §3; the real logs are
// in tests/data/logs and VALIDATION.md).
#include <gtest/gtest.h>

#include "kvscope/engines/engine_catalog.hpp"
#include "kvscope/plan/plan.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;
constexpr uint64_t kMiB = uint64_t{1} << 20;

using test::plan_ok;

const EngineInfo& engine_named(std::string_view id) {
  for (const EngineInfo& e : engine_catalog())
    if (e.id == id) return e;
  ADD_FAILURE() << "no engine " << id;
  return engine_catalog().front();
}

std::string resolved(std::string_view engine, std::string_view given) {
  const Result<const EngineVersion*> v = resolve_engine_version(engine_named(engine), given);
  if (!v.ok) return "error: " + v.error.field;
  return v.value == nullptr ? "" : std::string(v.value->id);
}

TEST(EngineVersions, ReleasesResolveToTheLineThatCountsThem) {
  EXPECT_EQ(resolved("vllm", ""), "0.16");  // the current line is the default
  EXPECT_EQ(resolved("vllm", "0.22.0"), "0.16");
  EXPECT_EQ(resolved("vllm", "0.12.1"), "0.16");  // 0.10-0.13 count as the current line
  EXPECT_EQ(resolved("vllm", "0.15.2rc1.dev93+g11a4c9d30"), "0.14");
  EXPECT_EQ(resolved("vllm", "v0.8.5.post1"), "0.8");
  EXPECT_EQ(resolved("vllm", "0.7.3"), "0.7");
  EXPECT_EQ(resolved("vllm", "v0"), "v0");
  EXPECT_EQ(resolved("vllm", "banana"), "error: engine_version");
  EXPECT_EQ(resolved("llama.cpp", "2025"), "2025");
  EXPECT_EQ(resolved("llama.cpp", "0.1"), "error: engine_version");
  EXPECT_EQ(resolved("plain", ""), "");
  EXPECT_EQ(resolved("plain", "1.0"), "error: engine_version");
  for (const EngineInfo& e : engine_catalog()) {
    for (const EngineVersion& v : e.versions) {
      EXPECT_FALSE(v.label.empty()) << e.id << " " << v.id;
      EXPECT_FALSE(v.differs.empty()) << e.id << " " << v.id;
    }
  }
}

TEST(EngineVersions, ThePlanNamesTheVersionItModels) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.gpu_id = "h100-sxm-80gb";
  EXPECT_EQ(plan_ok(in).engine_version, "0.16");
  in.engine_version = "0.15.1";
  EXPECT_EQ(plan_ok(in).engine_version, "0.14");
  EXPECT_EQ(plan_ok(in).engine_version_label, "0.14-0.15");
  in.engine_version = "nope-1";
  const Result<PlanReport> bad = plan(in);
  ASSERT_FALSE(bad.ok);
  EXPECT_EQ(bad.error.field, "engine_version");
}

PlanInput deepseek_r1_tp8(const std::string& version) {
  PlanInput in;
  in.model.model_id = "deepseek-r1";
  in.kv_memory_bytes = 22 * kGiB;
  in.tensor_parallel = 8;
  in.max_model_len = 163840;
  in.engine_version = version;
  return in;
}

// vLLM PR #14842's two V0 runs of DeepSeek-R1 on 8 GPUs: "# CPU blocks: 859" with MLA rows padded
// to 256 bytes, 954 without; --swap-space 4 GiB over 64 tokens x 61 layers x (576 x 2 bytes,
// padded to 1280).
TEST(EngineVersions, VllmV0CountsSwapBlocksAndPadsMlaRowsIn07) {
  const PlanReport aligned = plan_ok(deepseek_r1_tp8("0.7"));
  EXPECT_EQ(aligned.block_size_tokens, 64u);
  EXPECT_EQ(aligned.swap_blocks, 4 * kGiB / (64 * 61 * 1280));
  EXPECT_EQ(aligned.swap_blocks, 859u);
  EXPECT_EQ(aligned.num_blocks, 22 * kGiB / (64 * 61 * 1280));
  PlanInput off = deepseek_r1_tp8("0.7");
  off.vllm.mla_cuda_mem_align_kv_cache = false;
  EXPECT_EQ(plan_ok(off).swap_blocks, 954u);
  EXPECT_EQ(plan_ok(deepseek_r1_tp8("v0")).swap_blocks, 954u);  // V0 after 0.7: no padding
  EXPECT_EQ(plan_ok(deepseek_r1_tp8("")).swap_blocks, 0u);       // V1 has no swap space
}

TEST(EngineVersions, VllmV0ConcurrencyIsTokensOverMaxModelLenAndRefusesPastThem) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.kv_memory_bytes = uint64_t{1952} * 16 * 131072;  // 1,952 blocks of 16 tokens x 128 KiB per token
  in.max_model_len = 20000;
  in.engine_version = "v0";
  const PlanReport p = plan_ok(in);
  EXPECT_EQ(p.num_blocks, 1952u);
  EXPECT_DOUBLE_EQ(p.max_concurrency, 1952.0 * 16 / 20000);  // 1.56x, vLLM issue #10517
  EXPECT_TRUE(p.starts);
  in.max_model_len = 32000;  // past 31,232 tokens
  const PlanReport refused = plan_ok(in);
  EXPECT_FALSE(refused.starts);
  EXPECT_NE(refused.startup_error.find("The model's max seq len (32000) is larger than the maximum "
                                       "number of tokens that can be stored in KV cache (31232)"),
            std::string::npos)
      << refused.startup_error;
  EXPECT_EQ(refused.max_model_len_that_fits, 31232u);
}

TEST(EngineVersions, Vllm08HasNoHybridAllocatorAndNoCeilingInConcurrency) {
  PlanInput in;
  in.model.model_id = "gemma-3-27b";
  in.kv_memory_bytes = 20 * kGiB;
  in.max_model_len = 32768;
  const PlanReport current = plan_ok(in);
  in.engine_version = "0.8";
  const PlanReport early = plan_ok(in);
  // Every layer full-length: one group of 62 layers, its tokens the blocks x 16.
  const uint64_t page = 62u * 16 * 2 * 16 * 128 * 2;
  EXPECT_EQ(early.num_blocks, 20 * kGiB / page);
  EXPECT_EQ(early.kv_pool_tokens, early.num_blocks * 16);
  EXPECT_DOUBLE_EQ(early.max_concurrency, static_cast<double>(early.num_blocks * 16) / 32768);
  EXPECT_GT(current.max_concurrency, early.max_concurrency);  // windowed blocks hold more
  EXPECT_EQ(early.startup_error.find("See https"), std::string::npos);
}

// vLLM issue #34076 (0.15.2 pre-release, PP 2): "24.0 GiB KV cache is needed" for 262,144 tokens
// of Qwen3-Coder-30B-A3B: all 48 layers, not the stage's 24.
TEST(EngineVersions, Vllm014ChecksEveryLayerAgainstAStage) {
  PlanInput in;
  in.model.model_id = "qwen3-30b-a3b";
  in.kv_memory_bytes = 3 * kGiB;
  in.pipeline_parallel = 2;
  in.max_model_len = 262144;
  const PlanReport fixed = plan_ok(in);
  EXPECT_EQ(fixed.kv_bytes_needed, uint64_t{262144} * 24 * 2 * 4 * 128 * 2);
  in.engine_version = "0.14";
  const PlanReport regressed = plan_ok(in);
  EXPECT_EQ(regressed.kv_bytes_needed, uint64_t{262144} * 48 * 2 * 4 * 128 * 2);
  EXPECT_EQ(regressed.kv_bytes_needed, 24 * kGiB);
  EXPECT_FALSE(regressed.starts);
  EXPECT_EQ(regressed.num_blocks, fixed.num_blocks);  // the pool itself is the stage's
}

TEST(EngineVersions, VllmNumGpuBlocksOverrideReplacesTheBlocks) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.gpu_id = "h100-sxm-80gb";
  in.vllm.num_gpu_blocks_override = 1000;
  const PlanReport p = plan_ok(in);
  EXPECT_EQ(p.num_blocks, 1000u);
  EXPECT_EQ(p.kv_pool_tokens, 16000u);
  EXPECT_NE(p.launch_command.find("--num-gpu-blocks-override 1000"), std::string::npos);
  in.engine_version = "v0";
  const PlanReport v0 = plan_ok(in);
  EXPECT_EQ(v0.num_blocks, 1000u);
  EXPECT_EQ(v0.launch_command.rfind("VLLM_USE_V1=0 vllm serve", 0), 0u) << v0.launch_command;
}

// llama.cpp build 6182 on Vulkan without flash attention (llama.cpp issue #16188): gpt-oss-20b's
// SWA cache holds 128 + 512 = 640 cells (padded to 32), 111.00 MiB with the 4,096-cell full cache;
// since PR #17046 every cache is padded to 256 (768 cells).
TEST(EngineVersions, LlamaCpp2025PadsTo32CellsWithoutFlashAttention) {
  PlanInput in;
  in.model.model_id = "gpt-oss-20b";
  in.model.context_tokens = 4096;
  in.engine = "llama.cpp";
  in.gpu_id = "rtx-4090";
  const uint64_t per_cell = 2 * 8 * 64 * 2;  // K + V of 8 KV heads x 64, f16
  EXPECT_EQ(plan_ok(in).kv_pool_bytes, uint64_t{12 * 4096 + 12 * 768} * per_cell);
  in.engine_version = "2025";
  in.llama_cpp.flash_attn = false;
  EXPECT_EQ(plan_ok(in).kv_pool_bytes, uint64_t{12 * 4096 + 12 * 640} * per_cell);
  EXPECT_EQ(plan_ok(in).kv_pool_bytes, 111 * kMiB);
  EXPECT_NE(plan_ok(in).launch_command.find("-fa off"), std::string::npos);
  in.llama_cpp.flash_attn = true;  // with flash attention 2025's builds padded to 256 as well
  EXPECT_EQ(plan_ok(in).kv_pool_bytes, uint64_t{12 * 4096 + 12 * 768} * per_cell);
}

// SGLang's is_hybrid_swa_model gained Gemma 4 with its 2026 support: before, one pool.
TEST(EngineVersions, SglangGivesGemma4ASlidingPoolOnlyOnceItListsIt) {
  PlanInput in;
  in.model.model_id = "gemma-4-31b";
  in.engine = "sglang";
  in.gpu_id = "h100-sxm-80gb";
  in.max_model_len = 32768;
  EXPECT_GT(plan_ok(in).swa_pool_tokens, 0u);
  in.engine_version = "2025";
  EXPECT_EQ(plan_ok(in).swa_pool_tokens, 0u);
  in.model.model_id = "gpt-oss-20b";  // listed in both
  EXPECT_GT(plan_ok(in).swa_pool_tokens, 0u);
}

// llm-d-benchmark's profiled vLLM 0.11 runs on an H100 (79.18 GiB; config_explorer/
// empirical-vllm-memory-results.md): with the weights as vLLM loaded them, each measured KV cache
// lies inside the range kvscope gives for its estimated activation peak and non-torch memory.
TEST(EstimatedBudget, TheMeasuredRunsLieInsideTheRange) {
  struct Run {
    const char* model;
    uint32_t tp;
    double utilization, weights_gib, measured_kv_gib;
  };
  const Run runs[] = {
      {"llama-3.1-8b", 1, 0.9, 14.99, 51.38},  {"gpt-oss-20b", 1, 0.9, 13.47, 50.28},
      // The table says 0.9, but its four terms add up to 0.95 x 79.18 GiB (75.22).
      {"gpt-oss-120b", 1, 0.95, 64.38, 3.33},  {"llama-3.3-70b", 2, 0.9, 33.88, 32.00},
      {"qwen3-32b", 1, 0.9, 61.03, 4.45},      {"qwen3-32b", 2, 0.9, 30.59, 34.49},
      {"mistral-small-3.1-24b", 1, 0.95, 44.76, 28.20},  // stands in for 3.2: the same shape
  };
  for (const Run& run : runs) {
    PlanInput in;
    in.model.model_id = run.model;
    in.gpu_memory_bytes = static_cast<uint64_t>(79.18 * kGiB);
    in.tensor_parallel = in.gpus = run.tp;
    in.max_model_len = 16000;
    in.vllm.gpu_memory_utilization = run.utilization;
    in.weights_bytes = static_cast<uint64_t>(run.weights_gib * kGiB) * run.tp;
    const PlanReport p = plan_ok(in);
    ASSERT_TRUE(p.estimated.present) << run.model;
    const double low = static_cast<double>(p.estimated.kv_pool_low) / kGiB - 0.005;
    const double high = static_cast<double>(p.estimated.kv_pool_high) / kGiB + 0.005;
    EXPECT_LE(low, run.measured_kv_gib) << run.model << " tp " << run.tp;
    EXPECT_GE(high, run.measured_kv_gib) << run.model << " tp " << run.tp;
    EXPECT_LE(p.estimated.kv_pool_low, p.kv_pool_bytes);
    EXPECT_GE(p.estimated.kv_pool_high, p.kv_pool_bytes);
  }
}

TEST(EstimatedBudget, MeasuredTermsLeaveNoRangeAndAStartThatDependsOnThemIsSaid) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.gpu_memory_bytes = 24'000'000'000;
  in.max_model_len = 131072;
  const PlanReport seed = plan_ok(in);  // article 2: 31,488 fits
  EXPECT_EQ(seed.max_model_len_that_fits, 31488u);
  EXPECT_LE(seed.estimated.max_model_len_that_fits_low, 31488u);
  EXPECT_GE(seed.estimated.max_model_len_that_fits_high, 31488u);
  EXPECT_EQ(seed.estimated.non_torch_low, static_cast<uint64_t>(0.13 * kGiB));
  in.max_model_len = seed.estimated.max_model_len_that_fits_high;  // starts only if they come out low
  const PlanReport close = plan_ok(in);
  EXPECT_FALSE(close.estimated.starts_low);
  EXPECT_TRUE(close.estimated.starts_high);
  in.engine_version = "v0";  // the V0 engine counts its range ends too
  in.max_model_len = 16384;
  const PlanReport v0 = plan_ok(in);
  EXPECT_LE(v0.estimated.max_concurrency_low, v0.max_concurrency);
  EXPECT_GE(v0.estimated.max_concurrency_high, v0.max_concurrency);
  EXPECT_GT(v0.estimated.max_concurrency_low, 0);
  EXPECT_TRUE(v0.estimated.starts_low);
  in.engine_version.clear();
  in.vllm.activation_bytes = kGiB;
  in.vllm.non_torch_bytes = kGiB / 8;
  EXPECT_FALSE(plan_ok(in).estimated.present);
  in = PlanInput{};
  in.model.model_id = "qwen3-32b";
  in.gpu_id = "h100-sxm-80gb";
  in.tensor_parallel = 2;
  EXPECT_EQ(plan_ok(in).non_torch_bytes, static_cast<uint64_t>(0.55 * kGiB));  // NCCL at TP 2
}

}  // namespace
}  // namespace kvscope
