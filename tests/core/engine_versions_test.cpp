// Engine versions as profile parameters: each version line of the engine table against the
// behaviour its release showed (shared/docs/engine-formulas.md §1.6-1.7, §3; the real logs are
// in tests/data/logs and VALIDATION.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "kvscope/engines/engine_catalog.hpp"
#include "kvscope/plan/plan.hpp"
#include "kvscope/request/report_json.hpp"
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
  // {engine, given, the line it resolves to}; "" is the newest line, the default.
  const std::array<std::array<const char*, 3>, 19> cases = {{
      {"vllm", "", "0.29"},
      {"vllm", "0.31.0", "0.29"},
      {"vllm", "0.28.0", "0.28"},
      {"vllm", "v0.27.1", "0.26"},
      {"vllm", "0.25.1", "0.25"},
      {"vllm", "0.22.0", "0.21"},
      {"vllm", "0.20.2", "0.20"},
      {"vllm", "0.19.0", "0.16"},
      {"vllm", "0.12.1", "0.16"},  // 0.10-0.13 count as the 0.16 line
      {"vllm", "0.15.2rc1.dev93+g11a4c9d30", "0.14"},
      {"vllm", "v0.8.5.post1", "0.8"},
      {"vllm", "0.7.3", "0.7"},
      {"vllm", "v0", "v0"},
      {"vllm", "banana", "error: engine_version"},
      {"vllm", "8570.10.1", "error: engine_version"},  // past any int: found by fuzz_explain
      {"llama.cpp", "2025", "2025"},
      {"llama.cpp", "0.1", "error: engine_version"},
      {"plain", "", ""},
      {"plain", "1.0", "error: engine_version"},
  }};
  for (const auto& [engine, given, line] : cases) EXPECT_EQ(resolved(engine, given), line) << given;
  for (const EngineInfo& e : engine_catalog()) {
    for (const EngineVersion& v : e.versions) {
      EXPECT_FALSE(v.label.empty()) << e.id << " " << v.id;
      EXPECT_FALSE(v.differs.empty()) << e.id << " " << v.id;
    }
  }
}

// kvscope engines --json: each engine's lines newest first, the newest marked as the default.
TEST(EngineVersions, TheCatalogueMarksTheNewestLineAsTheDefault) {
  const nlohmann::json j = nlohmann::json::parse(engine_catalog_to_json());
  for (const nlohmann::json& e : j["engines"]) {
    for (size_t i = 0; i < e["versions"].size(); ++i)
      EXPECT_EQ(e["versions"][i]["default"], i == 0) << e["id"] << " " << e["versions"][i]["id"];
  }
  EXPECT_EQ(j["engines"][0]["id"], "vllm");
  EXPECT_EQ(j["engines"][0]["versions"][0]["id"], "0.29");
}

TEST(EngineVersions, ThePlanNamesTheVersionItModels) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.gpu_id = "h100-sxm-80gb";
  EXPECT_EQ(plan_ok(in).engine_version, "0.29");
  in.engine_version = "0.15.1";
  EXPECT_EQ(plan_ok(in).engine_version, "0.14");
  EXPECT_EQ(plan_ok(in).engine_version_label, "0.14-0.15");
  in.engine_version = "nope-1";
  const Result<PlanReport> bad = plan(in);
  ASSERT_FALSE(bad.ok);
  EXPECT_EQ(bad.error.field, "engine_version");
}

// vLLM 0.20-0.31 (docs/engines.md, with each change's PR): what each line
// changes, on inputs where the figure moves.

// 0.29 holds one block back as BlockPool's null block (PR #47272): a pool of exactly the blocks
// max_model_len needs no longer starts, and the estimate comes out one block lower.
TEST(EngineVersions, Vllm029HoldsTheNullBlockBackFromTheStartupCheck) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";  // a 16-token block of 32 layers x 4,096 bytes: 2 MiB
  in.kv_memory_bytes = 256 * 2 * kMiB;
  in.max_model_len = 4096;  // 256 blocks
  in.engine_version = "0.28";
  const PlanReport before = plan_ok(in);
  EXPECT_TRUE(before.starts);
  EXPECT_DOUBLE_EQ(before.max_concurrency, 1.0);
  EXPECT_EQ(before.max_model_len_that_fits, 4096u);
  in.engine_version = "0.29";
  const PlanReport after = plan_ok(in);
  EXPECT_FALSE(after.starts);
  EXPECT_EQ(after.num_blocks, 256u);                // allocated with it
  EXPECT_DOUBLE_EQ(after.max_concurrency, 1.0);     // and printed with it
  EXPECT_EQ(after.max_model_len_that_fits, 4080u);  // 255 blocks
  EXPECT_EQ(after.startup_error,
            "To serve at least one request with the model's max seq len (4096), (0.5 GiB KV cache "
            "is needed, which is larger than the available KV cache memory (0.5 GiB). Based on the "
            "available memory, the estimated maximum model length is 4080. Try increasing "
            "`gpu_memory_utilization` (which also controls CPU memory on the CPU backend) or "
            "decreasing `max_model_len` when initializing the engine. See "
            "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.");
  // The PR's own run: 50 blocks given by --num-gpu-blocks-override (which sizes the check from
  // 0.21, PR #41069), max_model_len 800: "the estimated maximum model length is 784".
  in.vllm.num_gpu_blocks_override = 50;
  in.max_model_len = 800;
  const PlanReport overridden = plan_ok(in);
  EXPECT_FALSE(overridden.starts);
  EXPECT_EQ(overridden.max_model_len_that_fits, 784u);
  in.engine_version = "0.28";
  EXPECT_TRUE(plan_ok(in).starts);
  in.engine_version = "0.20";  // the check still counted the profiled pool
  EXPECT_EQ(plan_ok(in).max_model_len_that_fits, 800u);
  // GiB as Python's round(x, 2) prints them: an exact half goes to even (0.125 -> "0.12").
  in.vllm.num_gpu_blocks_override = 0;
  in.kv_memory_bytes = 64 * 2 * kMiB;
  in.max_model_len = 2048;
  in.engine_version = "0.28";
  EXPECT_NE(plan_ok(in).startup_error.find("(0.25 GiB KV cache is needed, which is larger than the "
                                           "available KV cache memory (0.12 GiB)."),
            std::string::npos);
}

// From 0.21 "GPU KV cache size" is int(concurrency x max_model_len) (get_kv_cache_capacity): a
// hybrid's windows count once per request, not once per group (vLLM issue #43308), and a length
// that is not whole blocks is not rounded up to them.
TEST(EngineVersions, VllmGpuKvCacheSizeIsConcurrencyInTokensFrom021) {
  PlanInput in;
  in.model.model_id = "gemma-3-27b";
  in.kv_memory_bytes = 40 * kGiB;
  in.max_model_len = 131072;
  in.engine_version = "0.20";
  const PlanReport old = plan_ok(in);
  EXPECT_EQ(old.kv_pool_tokens, 74896u);  // blocks / 7 groups x 16, as up to 0.20
  in.engine_version = "0.21";
  const PlanReport now = plan_ok(in);
  EXPECT_EQ(now.num_blocks, old.num_blocks);  // the same pool
  EXPECT_EQ(
      now.kv_pool_tokens,
      static_cast<uint64_t>(static_cast<double>(now.num_blocks) /
                            static_cast<double>(now.kv_cache_groups.blocks_per_request) * 131072));
  EXPECT_GT(now.kv_pool_tokens, 5 * old.kv_pool_tokens);
  in.model.model_id = "llama-3.1-8b";
  in.kv_memory_bytes = 10 * kGiB;                 // 5,120 blocks of 16 tokens
  in.max_model_len = 1000;                        // 63 blocks
  EXPECT_EQ(plan_ok(in).kv_pool_tokens, 81269u);  // int(5120 / 63 x 1000)
  in.engine_version = "0.20";
  EXPECT_EQ(plan_ok(in).kv_pool_tokens, 81920u);  // 5120 x 16
}

// From 0.26 a sliding window holds every batch in flight (max_in_flight_tokens, PR #47728): two
// with async scheduling, a pipeline's stages (+1 under Model Runner V2). vLLM issue #49878:
// Gemma 4 31B at max_num_batched_tokens 32768: "ceil((1023 + 32768) / 16) + 1 = 2113" blocks a
// sliding group on 0.25, "ceil((1023 + 65536) / 16) + 1 = 4161" on 0.26.
TEST(EngineVersions, VllmSlidingWindowsHoldEveryBatchInFlightFrom026) {
  PlanInput in;
  in.model.model_id = "gemma-4-31b";
  in.kv_memory_bytes = 100 * kGiB;
  in.max_model_len = 131072;
  in.vllm.max_num_batched_tokens = 32768;
  const auto sliding_blocks = [&](const char* version, uint32_t pp) {
    in.engine_version = version;
    in.pipeline_parallel = in.gpus = pp;
    const KvCacheGroups& g = plan_ok(in).kv_cache_groups;
    return g.types.empty() ? 0 : g.types[0].blocks_per_request;
  };
  EXPECT_EQ(sliding_blocks("0.25", 1), 2113u);
  EXPECT_EQ(sliding_blocks("0.26", 1), 4161u);
  EXPECT_EQ(sliding_blocks("0.26", 2), (1023u + 3 * 32768 + 15) / 16 + 1);  // dense: V2, pp + 1
  EXPECT_EQ(sliding_blocks("0.29", 2), (1023u + 3 * 32768 + 15) / 16 + 1);
}

// 0.20's budget (PR #38284): gpu_memory_utilization 0.92 and the profiled CUDA-graph memory out of
// the pool; Model Runner V2, the default for dense models from 0.25, reserved none until 0.29.
TEST(EngineVersions, VllmBudgetFrom020) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.gpu_id = "h100-sxm-80gb";
  const auto budget = [&](const char* model, const char* version) {
    in.model.model_id = model;
    in.engine_version = version;
    return plan_ok(in);
  };
  const PlanReport v16 = budget("llama-3.1-8b", "0.16");
  const PlanReport v20 = budget("llama-3.1-8b", "0.20");
  EXPECT_EQ(v16.requested_bytes,
            static_cast<uint64_t>(static_cast<double>(v16.gpu_memory_bytes) * 0.9));
  EXPECT_EQ(v20.requested_bytes,
            static_cast<uint64_t>(static_cast<double>(v20.gpu_memory_bytes) * 0.92));
  EXPECT_EQ(v16.cudagraph_bytes, 0u);
  EXPECT_GT(v20.cudagraph_bytes, 0u);
  EXPECT_EQ(v20.kv_pool_bytes, v20.requested_bytes - v20.weights_bytes - v20.activation_bytes -
                                   v20.non_torch_bytes - v20.cudagraph_bytes);
  EXPECT_GT(budget("llama-3.1-8b", "0.21").cudagraph_bytes, 0u);
  EXPECT_EQ(budget("llama-3.1-8b", "0.25").cudagraph_bytes, 0u);  // dense: Model Runner V2
  EXPECT_EQ(budget("llama-3.1-8b", "0.28").cudagraph_bytes, 0u);
  EXPECT_GT(budget("qwen3-30b-a3b", "0.28").cudagraph_bytes, 0u);  // MoE: still V1
  EXPECT_GT(budget("llama-3.1-8b", "0.29").cudagraph_bytes, 0u);   // V2 reserves them (#53306)
  in.vllm.gpu_memory_utilization = 0.9;  // given: the line's default does not apply
  EXPECT_EQ(budget("llama-3.1-8b", "0.29").requested_bytes, v16.requested_bytes);
}

// 0.28 gives cards of 160 GiB or more 16,384 batched tokens (EngineArgs.get_batch_defaults).
TEST(EngineVersions, VllmLargestCardsBatchMoreTokensFrom028) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.gpu_id = "b200-180gb";
  in.engine_version = "0.26";
  EXPECT_EQ(plan_ok(in).max_num_batched_tokens, 8192u);
  in.engine_version = "0.28";
  EXPECT_EQ(plan_ok(in).max_num_batched_tokens, 16384u);
  in.gpu_id = "h200-sxm-141gb";
  EXPECT_EQ(plan_ok(in).max_num_batched_tokens, 8192u);
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

// Gemma 4 31B with per-token-head fp8 scales: its two layer pages do not divide. vLLM refused
// to unify them; from PR #45181 (the 0.25 line in kvscope) the smaller page is padded to the
// larger, each of its blocks holding 16 tokens at the larger page's cost.
TEST(EngineVersions, VllmPadsLayerPagesThatDoNotDivide) {
  PlanInput in;
  in.model.model_id = "gemma-4-31b";
  in.gpu_id = "h100-sxm-80gb";
  in.model.kv_dtype = "fp8_per_token_head";
  in.max_model_len = 32768;
  in.engine_version = "0.21";
  const Result<PlanReport> refused = plan(in);
  ASSERT_FALSE(refused.ok);
  EXPECT_NE(refused.error.message.find("do not divide"), std::string::npos);
  in.engine_version = "0.25";
  const PlanReport padded = plan_ok(in);
  ASSERT_FALSE(padded.kv_cache_groups.types.empty());
  for (const KvCacheGroupType& t : padded.kv_cache_groups.types) EXPECT_EQ(t.block_tokens, 16u);
  EXPECT_TRUE(std::any_of(padded.notes.begin(), padded.notes.end(),
                          [](const std::string& n) { return n.rfind("page padding:", 0) == 0; }));
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
    in.engine_version = "0.11";
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
  in.engine_version = "0.16";
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
  EXPECT_TRUE(plan_ok(in).estimated.present);  // the CUDA graphs (from 0.20) are still estimated
  in.vllm.cudagraph_bytes = kGiB / 2;
  EXPECT_FALSE(plan_ok(in).estimated.present);
  in = PlanInput{};
  in.model.model_id = "qwen3-32b";
  in.gpu_id = "h100-sxm-80gb";
  in.tensor_parallel = 2;
  EXPECT_EQ(plan_ok(in).non_torch_bytes, static_cast<uint64_t>(0.55 * kGiB));  // NCCL at TP 2
}

}  // namespace
}  // namespace kvscope
