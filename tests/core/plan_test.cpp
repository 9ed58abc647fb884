// Engine budgets and capacity: the seed articles' concurrency and start-up numbers from shapes,
// and vLLM's printed figures from public logs (engine-formulas.md §1.4-1.7) reproduced.
#include "kvscope/plan/plan.hpp"
#include "kvscope/request/request.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace kvscope {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

using test::plan_ok;

PlanInput catalogue(const std::string& id) {
  PlanInput in;
  in.model.model_id = id;
  return in;
}

PlanInput fixture(const std::string& name) {
  PlanInput in;
  in.model.config_json = test::read_fixture(name);
  in.model.config_name = name;
  return in;
}

// Article 1: an 80 GB card, 13.5 GB of weights, 4,096-token sequences, no overhead.
TEST(Plan, PlainConcurrencyOnAn80GBCard) {
  struct Row {
    const char* kv_heads;
    const char* kv_dtype;
    double sequences;
  };
  for (const Row& row : {Row{"32", "fp16", 30}, Row{"8", "fp16", 123}, Row{"8", "int8", 247}}) {
    PlanInput in = catalogue("llama-2-7b");
    in.engine = "plain";
    in.gpu_memory_bytes = 80'000'000'000;
    in.weights_bytes = 13'500'000'000;
    in.max_model_len = 4096;
    in.model.kv_dtype = row.kv_dtype;
    in.overrides = {{"num_key_value_heads", row.kv_heads}};
    const PlanReport p = plan_ok(in);
    EXPECT_EQ(p.kv_pool_bytes, 66'500'000'000u);
    EXPECT_EQ(p.max_concurrency, row.sequences) << row.kv_heads << " " << row.kv_dtype;
    EXPECT_TRUE(p.starts);
  }
}

// Article 2: Llama-3.1-8B in bf16 on a 24 GB card, max_model_len 131072, utilization 0.90.
TEST(Plan, VllmRefusesLlama31At128kOnA24GBCard) {
  PlanInput in = catalogue("llama-3.1-8b");
  in.gpu_memory_bytes = 24'000'000'000;
  in.max_model_len = 131072;
  const PlanReport p = plan_ok(in);
  EXPECT_NEAR(static_cast<double>(p.weights_bytes) / 1e9, 16.06, 0.01);  // "about 16 GB"
  EXPECT_EQ(p.kv_bytes_needed, 16 * kGiB);
  EXPECT_FALSE(p.starts);
  EXPECT_NE(p.startup_error.find("max seq len (131072), (16.0 GiB KV cache is needed"),
            std::string::npos)
      << p.startup_error;
  EXPECT_GT(p.max_model_len_that_fits, 0u);
  EXPECT_LT(p.max_model_len_that_fits, 131072u);
  EXPECT_EQ(p.max_model_len_that_fits % 16, 0u);  // estimates are whole blocks
  in.max_model_len = p.max_model_len_that_fits;   // and that length does start
  EXPECT_TRUE(plan_ok(in).starts);
  in.model.context_tokens = 1000;  // the workload line is paged in vLLM's 16-token blocks
  EXPECT_EQ(plan_ok(in).estimate.kv.kv_bytes_total, 1008u * 131072);
}

TEST(Plan, HigherUtilizationFrees1Point2GBAbout9155Bf16Tokens) {
  PlanInput in = catalogue("llama-3.1-8b");
  in.engine_version = "0.16";  // article 2's vLLM: 0.9 by default
  in.gpu_memory_bytes = 24'000'000'000;
  in.max_model_len = 8192;
  const PlanReport at_90 = plan_ok(in);
  in.vllm.gpu_memory_utilization = 0.95;
  const PlanReport at_95 = plan_ok(in);
  EXPECT_EQ(at_95.kv_pool_bytes - at_90.kv_pool_bytes, 1'200'000'000u);
  const int64_t tokens =
      static_cast<int64_t>(at_95.kv_pool_tokens) - static_cast<int64_t>(at_90.kv_pool_tokens);
  EXPECT_NEAR(static_cast<double>(tokens), 9155, 16);  // 1.2e9 / 131,072, in whole blocks of 16
}

// From 0.20 vLLM keeps its CUDA-graph estimate out of the pool (PR #38284): kvscope's when none is
// given, a log's when it is; --enforce-eager captures none. Before 0.20 only a given one counts.
TEST(Plan, CudaGraphMemoryComesOutOfThePool) {
  PlanInput in = catalogue("llama-3.1-8b");
  in.gpu_id = "h100-sxm-80gb";
  in.vllm.enforce_eager = true;
  const PlanReport eager = plan_ok(in);
  EXPECT_EQ(eager.cudagraph_bytes, 0u);
  in.vllm.enforce_eager = false;
  const PlanReport estimated = plan_ok(in);
  EXPECT_EQ(estimated.cudagraph_bytes, static_cast<uint64_t>(0.84 * kGiB));
  EXPECT_EQ(eager.kv_pool_bytes - estimated.kv_pool_bytes, estimated.cudagraph_bytes);
  EXPECT_EQ(estimated.estimated.cudagraph_low, static_cast<uint64_t>(0.49 * kGiB));
  EXPECT_EQ(estimated.estimated.cudagraph_high, static_cast<uint64_t>(1.92 * kGiB));
  in.vllm.cudagraph_bytes = kGiB;
  const PlanReport given = plan_ok(in);
  EXPECT_EQ(eager.kv_pool_bytes - given.kv_pool_bytes, kGiB);
  EXPECT_EQ(given.estimated.cudagraph_low, kGiB);  // measured: no range
  in.engine_version = "0.19.1";
  EXPECT_EQ(plan_ok(in).cudagraph_bytes, kGiB);
  in.vllm.cudagraph_bytes = 0;
  EXPECT_EQ(plan_ok(in).cudagraph_bytes, 0u);  // VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0 then
}

TEST(Plan, Fp8KvAndFourBitWeightsAreTheArticlesRemedies) {
  PlanInput in = catalogue("llama-3.1-8b");
  in.gpu_memory_bytes = 24'000'000'000;
  in.max_model_len = 131072;
  const PlanReport base = plan_ok(in);
  in.model.kv_dtype = "fp8";
  const PlanReport fp8 = plan_ok(in);
  EXPECT_NEAR(static_cast<double>(fp8.kv_pool_tokens) / static_cast<double>(base.kv_pool_tokens),
              2.0, 0.002);
  in.model.kv_dtype = "auto";
  in.weight_dtype = "awq-int4";
  const PlanReport awq = plan_ok(in);
  EXPECT_GT(awq.kv_pool_bytes - base.kv_pool_bytes,
            10'000'000'000u);  // every GB saved goes to the pool
  EXPECT_LT(awq.max_model_len_that_fits, 131072u);
  in.model.kv_dtype = "fp8";
  EXPECT_TRUE(plan_ok(in).starts);  // both remedies together start at 128K
}

// vLLM logs round the available memory to 0.01 GiB; any budget that prints as `printed_gib` must
// give an estimate within the estimates of the two ends of that rounding interval.
void expect_estimate_for_logged_budget(PlanInput in, double printed_gib, uint64_t logged_estimate,
                                       const std::string& logged_needed) {
  in.kv_memory_bytes = static_cast<uint64_t>((printed_gib - 0.005) * kGiB) + 1;
  const PlanReport low = plan_ok(in);
  in.kv_memory_bytes = static_cast<uint64_t>((printed_gib + 0.005) * kGiB) - 1;
  const PlanReport high = plan_ok(in);
  EXPECT_LE(low.max_model_len_that_fits, logged_estimate) << printed_gib;
  EXPECT_GE(high.max_model_len_that_fits, logged_estimate) << printed_gib;
  for (const PlanReport& p : {low, high}) {
    EXPECT_FALSE(p.starts);
    EXPECT_NE(p.startup_error.find("(" + logged_needed + " GiB KV cache is needed"),
              std::string::npos)
        << p.startup_error;
  }
}

// vLLM issue #25350: 48 layers x 4 KV heads x 128, fp8: "10.12 GiB KV cache is needed" for
// 221000 and "the estimated maximum model length is 122080" with 5.59 GiB available.
TEST(Plan, VllmIssue25350StartupError) {
  PlanInput in = fixture("vllm_issue_25350_shape.json");
  in.engine_version = "0.10";
  in.model.kv_dtype = "fp8";
  in.max_model_len = 221000;
  expect_estimate_for_logged_budget(in, 5.59, 122080, "10.12");
  in.kv_memory_bytes = uint64_t{7630} * 48 * 16384 + 8192;  // 7,630 blocks: prints as 5.59 GiB
  const PlanReport p = plan_ok(in);
  EXPECT_EQ(p.max_model_len_that_fits, 122080u);
  EXPECT_NE(p.startup_error.find(
                "available KV cache memory (5.59 GiB). Based on the available memory, the "
                "estimated maximum model length is 122080."),
            std::string::npos)
      << p.startup_error;
}

// vllm-project/recipes PR #12: Qwen3-Coder-480B (62 layers, 8 KV heads of 128), 262144 tokens:
// "62.0 GiB KV cache is needed"; 48.66 GiB available -> 205728; 55.65 GiB -> 235296.
TEST(Plan, VllmRecipesQwen3Coder480B) {
  PlanInput in = fixture("qwen3_coder_480b.json");
  in.engine_version = "0.10";  // the recipe's vLLM (2025)
  in.max_model_len = 262144;
  expect_estimate_for_logged_budget(in, 48.66, 205728, "62.0");
  expect_estimate_for_logged_budget(in, 55.65, 235296, "62.0");
}

// engine-formulas.md §1.6: Gemma 3 27B with 40 GiB of KV memory: the hybrid manager reports
// 74,896 tokens (7 groups of 10 layers), the unified layout 84,560.
TEST(Plan, VllmHybridGroupsGemma3) {
  PlanInput in = catalogue("gemma-3-27b");
  in.engine_version = "0.16";
  in.kv_memory_bytes = 40 * kGiB;
  in.max_model_len = 131072;
  const PlanReport hybrid = plan_ok(in);
  EXPECT_EQ(hybrid.kv_pool_tokens, 74896u);
  in.vllm.disable_hybrid_kv_cache_manager = true;
  const PlanReport unified = plan_ok(in);
  EXPECT_EQ(unified.kv_pool_tokens, 84560u);
  // Sliding groups need only their window per request, so concurrency exceeds tokens /
  // max_model_len.
  EXPECT_GT(hybrid.max_concurrency, static_cast<double>(hybrid.kv_pool_tokens) / 131072);
  // The groups the report explains: 52 sliding and 10 full layers in groups of 10 (8 padding
  // slots); a request takes 131,072 / 16 blocks in the full group and, in each sliding group,
  // its 1,024-token window plus the 2,048 tokens one step may add (+1 block), in blocks of 16.
  const KvCacheGroups& g = hybrid.kv_cache_groups;
  EXPECT_EQ(g.group_size_layers, 10u);
  ASSERT_EQ(g.types.size(), 2u);
  EXPECT_EQ(g.types[0].attention, "sliding_window");
  EXPECT_EQ(g.types[0].layers, 52u);
  EXPECT_EQ(g.types[0].groups, 6u);
  EXPECT_EQ(g.types[0].padding_layers, 8u);
  EXPECT_EQ(g.types[0].blocks_per_request, (1023u + 2048 + 15) / 16 + 1);
  EXPECT_EQ(g.types[1].attention, "full");
  EXPECT_EQ(g.types[1].blocks_per_request, 131072u / 16);
  EXPECT_EQ(g.blocks_per_request, 6 * g.types[0].blocks_per_request + g.types[1].blocks_per_request);
  EXPECT_DOUBLE_EQ(hybrid.max_concurrency, static_cast<double>(hybrid.num_blocks) / g.blocks_per_request);
  EXPECT_EQ(hybrid.kv_pool_tokens, hybrid.num_blocks / 7 * 16);  // the log's every-group count
  EXPECT_TRUE(unified.kv_cache_groups.types.empty());             // one group: nothing to explain
}

// A --set that changes no figure is named, with why: a typo (with the near field), a field
// kvscope does not read, the config's own value; one that changes something passes.
TEST(Plan, OverridesThatChangeNothingAreNamed) {
  PlanInput in = catalogue("llama-3.1-8b");
  in.gpu_id = "h100-sxm-80gb";
  const auto message = [&](std::vector<std::pair<std::string, std::string>> set) {
    in.overrides = std::move(set);
    const std::optional<Error> e = override_without_effect(in, plan_ok(in));
    if (e) EXPECT_EQ(e->field, "set");
    return e ? e->message : std::string();
  };
  EXPECT_EQ(message({{"num_key_value_head", "4"}}),
            "set: \"num_key_value_head=4\" changes nothing kvscope computes: the config has no "
            "num_key_value_head and kvscope does not read it (did you mean num_key_value_heads?)");
  EXPECT_EQ(message({{"rope_theta", "1"}}),
            "set: \"rope_theta=1\" changes nothing kvscope computes: kvscope does not read rope_theta");
  EXPECT_EQ(message({{"num_key_value_heads", "8"}}),
            "set: \"num_key_value_heads=8\" changes nothing kvscope computes: the config already "
            "has that value");
  EXPECT_EQ(message({{"num_key_value_heads", "4"}, {"sliding_window", "4096"}}), "");
  EXPECT_EQ(message({{"num_key_value_heads", "4"}, {"foo", "1"}}),
            "set: \"foo=1\" changes nothing kvscope computes: the config has no foo and kvscope "
            "does not read it");
}

// llm-d config_explorer: H100 (79.18 GiB), utilization 0.9, Llama-3.1-8B: "Available KV cache
// memory: 51.38 GiB" after 14.99 GiB weights, 4.76 GiB activation peak, 0.13 GiB non-torch.
TEST(Plan, VllmBudgetMatchesALoggedH100Run) {
  PlanInput in = catalogue("llama-3.1-8b");
  in.engine_version = "0.11";
  in.gpu_memory_bytes = static_cast<uint64_t>(79.18 * kGiB);
  in.vllm.max_num_batched_tokens = 8192;
  const PlanReport p = plan_ok(in);
  EXPECT_NEAR(static_cast<double>(p.activation_bytes) / kGiB, 4.76, 0.05);
  EXPECT_NEAR(static_cast<double>(p.kv_pool_bytes) / kGiB, 51.38, 0.26);  // within 0.5%
}

TEST(Plan, Float32CheckpointsLoadInFloat16) {
  PlanInput in = fixture("openelm_per_layer_kv_heads.json");  // torch_dtype float32
  in.gpu_id = "l4";
  const PlanReport p = plan_ok(in);
  EXPECT_EQ(p.weights.name, "fp16");
  EXPECT_EQ(p.weights_bytes, 2 * p.params.total);
  EXPECT_EQ(p.estimate.kv_dtype.name, "fp16");
  // Per-layer KV heads 3, 4, 5 of 64: one uniform-type group whose 16-token page sums the layers.
  const uint64_t summed_page = 16u * 2 * (3 + 4 + 5) * 64 * 2;
  EXPECT_EQ(p.num_blocks, p.kv_pool_bytes / summed_page);
  EXPECT_EQ(p.kv_pool_tokens, p.num_blocks * 16);
}

// Hybrid attention + Mamba-2 (Nemotron-H 8B's mixer dims): the attention block grows to
// 16 x cdiv(mamba page, 16 x attention bytes per token) = 528 tokens, 1,056 with fp8 KV; both
// figures appear in vLLM's "Setting attention block size to N tokens" logs (engine-formulas §1.3).
TEST(Plan, VllmRaisesTheBlockForMambaHybrids) {
  PlanInput in = fixture("nemotron_h_pattern.json");
  in.engine_version = "0.16";  // the size every group counts (blocks / groups x block) until 0.21
  in.gpu_id = "h100-sxm-80gb";
  // vLLM keeps NemotronH's SSM state in float32 (its per-model default): a Mamba-2 state of
  // 10,240 x 3 convolution values in bf16 and 128 x 64 x 128 SSM values in fp32 is 4,255,744
  // bytes; an attention page of 16 tokens is 65,536 bytes, so the block grows to 16 x 65.
  const PlanReport p = plan_ok(in);
  EXPECT_EQ(p.estimate.shape.ssm_state_dtype, "fp32");
  EXPECT_EQ(p.block_size_tokens, 1040u);
  EXPECT_TRUE(p.starts);
  // 4 Mamba layers and 1 attention layer: groups of 1 layer, 5 groups; one state per request.
  const uint64_t page = 1040u * 4096;
  EXPECT_EQ(p.num_blocks, p.kv_pool_bytes / page);
  EXPECT_EQ(p.kv_pool_tokens, p.num_blocks / 5 * 1040);
  in.model.ssm_state_dtype = "bf16";  // --mamba-ssm-cache-dtype bfloat16: 2,158,592 bytes
  EXPECT_EQ(plan_ok(in).block_size_tokens, 528u);
  in.model.kv_dtype = "fp8";
  EXPECT_EQ(plan_ok(in).block_size_tokens, 1056u);
  PlanInput jamba = catalogue("jamba-v0.1");
  jamba.kv_memory_bytes = 10 * kGiB;
  EXPECT_EQ(plan_ok(jamba).block_size_tokens, 80u);  // 311,296-byte state / 4,096 bytes per token
}

TEST(Plan, BadInput) {
  PlanInput in = catalogue("llama-3.1-8b");
  in.gpu_memory_bytes = 24'000'000'000;
  in.vllm.gpu_memory_utilization = -0.1;  // (0 is the release line's default)
  EXPECT_EQ(plan(in).error.field, "vllm.gpu_memory_utilization");
  in.vllm.gpu_memory_utilization = 1.5;
  EXPECT_EQ(plan(in).error.field, "vllm.gpu_memory_utilization");
  in.vllm.gpu_memory_utilization = 0.9;
  in.engine = "tgi";
  EXPECT_EQ(plan(in).error.field, "engine");
  in.engine = "vllm";
  in.gpu_id = "h100-sxm-80gb";
  EXPECT_EQ(plan(in).error.field, "gpu");  // two memory sources
  in.gpu_id.clear();
  in.overrides = {{"bad field!", "1"}};
  EXPECT_EQ(plan(in).error.field, "set");
  in.overrides = {{"num_key_value_heads", "0"}};
  EXPECT_EQ(plan(in).error.field, "num_key_value_heads");
  in.overrides.clear();
  in.max_model_len = uint64_t{1} << 62;
  EXPECT_EQ(plan(in).error.code, kOutOfRange);
}

TEST(Plan, WeightsThatDoNotFitLeaveNoPool) {
  PlanInput in = catalogue("llama-3.1-70b");
  in.gpu_id = "rtx-4090";
  const PlanReport p = plan_ok(in);
  EXPECT_FALSE(p.starts);
  EXPECT_EQ(p.kv_pool_bytes, 0u);
  EXPECT_NE(p.startup_error.find("No available memory for the cache blocks"), std::string::npos);
}

PlanInput on_h100(const std::string& id) {
  PlanInput in = catalogue(id);
  in.gpu_id = "h100-sxm-80gb";
  return in;
}

void expect_out_of_range(const PlanInput& in, const std::string& field) {
  const Result<PlanReport> r = plan(in);
  ASSERT_FALSE(r.ok) << "planned where " << field << " is out of range";
  EXPECT_EQ(r.error.code, kOutOfRange) << r.error.message;
  EXPECT_EQ(r.error.field, field) << r.error.message;
}

// Found by fuzz_plan: the KV pools and weights over every GPU wrapped past 2^64 silently.
TEST(Plan, TotalsOverAllGpusAreExactOrOutOfRange) {
  PlanInput in = catalogue("llama-3.1-8b");
  in.engine = "plain";
  in.kv_memory_bytes = uint64_t{1} << 62;
  in.gpus = 2;
  EXPECT_EQ(plan_ok(in).total_kv_pool_bytes, uint64_t{1} << 63);
  in.gpus = 8;  // 2^65 bytes of pools
  expect_out_of_range(in, "gpus");
}

// vLLM's activation estimate (batched tokens x vocabulary x 4.84 bytes) past 2^64 was converted
// to an integer, which is undefined (UBSan aborts).
TEST(Plan, VllmActivationEstimatePastTwoToThe64IsOutOfRange) {
  PlanInput in = on_h100("llama-3.1-8b");
  in.vllm.max_num_batched_tokens = uint64_t{1} << 50;
  expect_out_of_range(in, "vllm.max_num_batched_tokens");
  in.vllm.activation_bytes = 5 * kGiB;  // a measured peak needs no estimate
  EXPECT_TRUE(plan(in).ok);
}

// A block of 2^63 tokens made a page of 2^80 bytes, which wrapped to 0 and divided by zero.
TEST(Plan, VllmBlockBytesPastTwoToThe64AreOutOfRange) {
  PlanInput in = on_h100("llama-3.1-8b");
  in.block_size_tokens = uint64_t{1} << 63;
  expect_out_of_range(in, "block_size_tokens");
}

// A sliding window's reach (window - 1 + batched tokens) wrapped past 2^64 to a few tokens, so a
// request seemed to need fewer blocks than with a smaller batched-token budget.
TEST(Plan, VllmSlidingReachDoesNotWrap) {
  PlanInput in = on_h100("gemma-2-9b");
  in.vllm.activation_bytes = 5 * kGiB;
  in.vllm.max_num_batched_tokens = uint64_t{1} << 40;  // reach past any request: the whole request
  const PlanReport whole = plan_ok(in);
  in.vllm.max_num_batched_tokens = UINT64_MAX - 100;
  EXPECT_EQ(plan_ok(in).kv_bytes_needed, whole.kv_bytes_needed);
}

// "20 users at 32K": a started engine that holds fewer sequences has not met the target.
TEST(Plan, TheVerdictKnowsTheTarget) {
  PlanInput in;
  in.model.model_id = "qwen3-32b";
  in.gpu_id = "h200-sxm-141gb";
  in.gpus = 2;  // two replicas
  in.model.batch = 20;
  in.model.context_tokens = 32768;
  in.max_model_len = 32768;
  const PlanReport two = plan_ok(in);
  ASSERT_TRUE(two.starts);
  ASSERT_TRUE(two.target.present);
  EXPECT_FALSE(two.target.met);
  // At max_model_len the fit is vLLM's own maximum concurrency, over both replicas.
  EXPECT_NEAR(two.target.sequences_that_fit, two.total_max_concurrency, 0.01);
  EXPECT_GT(two.target.sequences_that_fit, 10);
  EXPECT_LT(two.target.sequences_that_fit, 20);
  EXPECT_EQ(two.target.reason.rfind("fits ", 0), 0u) << two.target.reason;
  EXPECT_NE(two.target.reason.find(" of 20 sequences at 32,768 tokens"), std::string::npos);
  in.gpus = 4;
  const PlanReport four = plan_ok(in);
  EXPECT_TRUE(four.target.met) << four.target.reason;
  EXPECT_NEAR(four.target.sequences_that_fit, 2 * two.target.sequences_that_fit, 1e-9);
  // A sequence past max_model_len is not served however large the pool.
  in.model.batch = 1;
  in.model.context_tokens = 65536;
  const PlanReport past = plan_ok(in);
  EXPECT_FALSE(past.target.met);
  EXPECT_NE(past.target.reason.find("past max_model_len 32,768"), std::string::npos);
  // llama.cpp allocates for the request itself: no pool to hold a target against.
  in.engine = "llama.cpp";
  in.gpus = 1;
  in.max_model_len = 0;
  in.model.context_tokens = 8192;
  EXPECT_FALSE(plan_ok(in).target.present);
}

// A hybrid under SGLang: the state slots cap the running requests below what the KV pool holds.
TEST(Plan, ATargetPastSglangsRunningRequestCapIsNotMet) {
  PlanInput in;
  in.model.model_id = "qwen3-next-80b-a3b";
  in.gpu_id = "h200-sxm-141gb";
  in.gpus = 2;
  in.tensor_parallel = 2;
  in.engine = "sglang";
  in.model.context_tokens = 4096;
  in.require_concurrency = 250;
  const PlanReport p = plan_ok(in);
  ASSERT_TRUE(p.starts);
  ASSERT_GT(p.max_running_requests, 0u);
  ASSERT_LT(p.max_running_requests, 250u);
  EXPECT_GT(p.target.sequences_that_fit, 250);  // the pool is not the limit
  EXPECT_FALSE(p.target.met);
  EXPECT_NE(p.target.reason.find("runs at most " + std::to_string(p.max_running_requests) +
                                 " requests at once"),
            std::string::npos)
      << p.target.reason;
  in.require_concurrency = p.max_running_requests;
  EXPECT_TRUE(plan_ok(in).target.met);
}

}  // namespace
}  // namespace kvscope
