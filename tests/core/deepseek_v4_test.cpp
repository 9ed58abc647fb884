// DeepSeek-V4 from its real config.json files (tests/data/real-configs/, sources in SOURCES.md):
// the caches compressed attention keeps, and vLLM's layout of them (engine_vllm_dsv4.cpp) against
// a published start-up refusal.
#include <gtest/gtest.h>

#include "kvscope/explain/explain.hpp"
#include "kvscope/kv/kv_arithmetic.hpp"
#include "kvscope/solve/solve.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

using test::real_config;

constexpr const char* kFlash = "deepseek-ai__deepseek-v4-flash.json";

size_t count_ratio(const ModelShape& s, uint32_t ratio) {
  return static_cast<size_t>(
      std::count_if(s.layers.begin(), s.layers.end(),
                    [ratio](const LayerSpec& l) { return l.compress_ratio == ratio; }));
}

uint64_t aligned_576(uint64_t bytes) { return (bytes + 575) / 576 * 576; }

TEST(DeepSeekV4, LayersFollowCompressRatios) {
  const ModelShape flash = real_config(kFlash);
  ASSERT_EQ(flash.layers.size(), 43u);
  EXPECT_EQ(test::count_kind(flash, AttentionKind::kCompressed), 43u);
  EXPECT_EQ(count_ratio(flash, 0), 2u);
  EXPECT_EQ(count_ratio(flash, 4), 21u);
  EXPECT_EQ(count_ratio(flash, 128), 20u);
  for (const LayerSpec& l : flash.layers) {
    EXPECT_EQ(l.window_tokens, 128u);
    EXPECT_EQ(l.k_head_dim, 512u);
    EXPECT_EQ(l.indexer_head_dim, l.compress_ratio == 4 ? 128u : 0u);  // ratio 4 only
    EXPECT_EQ(l.index_topk, l.compress_ratio == 4 ? 512u : 0u);
  }
  ASSERT_EQ(flash.draft_layers.size(), 1u);
  EXPECT_EQ(flash.draft_layers[0].compress_ratio, 0u);  // compress_ratios[43], the MTP layer's
  const ModelShape pro = real_config("deepseek-ai__deepseek-v4-pro.json");
  EXPECT_EQ(count_ratio(pro, 0), 0u);
  EXPECT_EQ(count_ratio(pro, 4), 30u);
  EXPECT_EQ(count_ratio(pro, 128), 31u);
}

// fp8_ds_mla: 448 fp8 values, a ue8m0 scale byte per 64 and a pad byte, 64 bf16 rope values; an
// indexer key: 128 fp8 values and an fp32 scale; the compressors' fp32 state of coff x ratio
// positions of 2 x coff x width values (coff 2 at ratio 4).
TEST(DeepSeekV4, CachesOfOneSequence) {
  const uint64_t latent = 448 + 448 / 64 + 1 + 64 * 2, key = 128 + 4;
  const uint64_t context = 1048576;
  const Result<KvEstimate> e = kv_totals(real_config(kFlash), test::kv_dtype("fp8_ds_mla"),
                                         test::kv_dtype("bf16"), KvWorkload{context, 1, 0, 0});
  ASSERT_TRUE(e.ok) << e.error.message;
  EXPECT_EQ(e.value.kv_bytes_per_token, 43 * latent);  // while the windows fill
  EXPECT_DOUBLE_EQ(
      e.value.compressed_kv_bytes_per_token,
      21 * static_cast<double>(latent + key) / 4 + 20 * static_cast<double>(latent) / 128);
  const uint64_t state = 21 * (4 * 2) * 2 * 2 * (512 + 128) * 4 + 20 * 128 * 2 * 512 * 4;
  EXPECT_EQ(e.value.state_bytes_per_sequence, state);
  EXPECT_EQ(e.value.kv_bytes_per_sequence, 43 * 128 * latent + 21 * (context / 4) * (latent + key) +
                                               20 * (context / 128) * latent + state);
}

// Unpaged, a batch holds its sequences' whole entries and no more: a context 3 tokens past a
// multiple of 128 keeps its last partial entries in the compressors' state, not as entries.
TEST(DeepSeekV4, UnpagedBatchHoldsWholeEntriesOnly) {
  const KvWorkload four_of_131075{131075, 4, 0, 0};
  const Result<KvEstimate> e = kv_totals(real_config(kFlash), test::kv_dtype("fp8_ds_mla"),
                                         test::kv_dtype("bf16"), four_of_131075);
  ASSERT_TRUE(e.ok) << e.error.message;
  EXPECT_EQ(e.value.kv_bytes_total, 4 * e.value.kv_bytes_per_sequence);
}

// vLLM issue #44376: DeepSeek-V4-Flash on two GH200s (TP 2, block 256, fp8 cache, max_model_len
// 30,000) was refused with "6.66 GiB KV cache is needed ... the estimated maximum model length is
// 13528" against 5.44 GiB. Its LLM class batches 16,384 tokens on a card of 70 GiB or more
// (get_batch_defaults), one batch in flight beside a window on the 0.22 line.
PlanInput flash_on_two_gh200s() {
  PlanInput in;
  in.model.config_json = test::read_data(std::string("real-configs/") + kFlash);
  in.model.kv_dtype = "fp8";
  in.engine_version = "0.22";
  in.tensor_parallel = 2;
  in.max_model_len = 30000;
  in.block_size_tokens = 256;
  in.kv_memory_bytes = 5842766315;  // 5.4415 GiB: "5.44" as printed, 13528 as estimated
  in.vllm.max_num_batched_tokens = 16384;
  return in;
}

TEST(DeepSeekV4, VllmLayoutReproducesAPublishedRefusal) {
  const PlanReport r = test::plan_ok(flash_on_two_gh200s());
  const uint64_t latent = 584, key = 132;
  // A layer tuple: one page of each compressed size (ratio-4 latents, ratio-4 keys, ratio-128
  // latents), 256 tokens a block.
  const uint64_t tuple =
      aligned_576(256 / 4 * latent) + aligned_576(256 / 4 * key) + aligned_576(256 / 128 * latent);
  const KvCacheGroups& g = r.kv_cache_groups;
  EXPECT_EQ(g.page_bytes, tuple);
  EXPECT_EQ(g.group_size_layers, 22u);  // padding 21, 43, 21, 20 specs least, at least 21
  ASSERT_EQ(g.types.size(), 4u);
  EXPECT_EQ(g.types[0].attention, "compressed");
  const auto blocks = [](uint64_t reach, uint64_t block) { return (reach + block - 1) / block; };
  const uint64_t in_flight = 16384, len = 30000;
  const uint64_t per_request = blocks(len, 256) + 2 * (blocks(127 + in_flight, 64) + 1) +
                               (blocks(7 + in_flight, 4) + 1) + (blocks(127 + in_flight, 8) + 1);
  EXPECT_EQ(g.blocks_per_request, per_request);
  EXPECT_EQ(r.kv_bytes_needed, per_request * 22 * tuple);
  EXPECT_FALSE(r.starts);
  EXPECT_EQ(r.max_model_len_that_fits, 13528u);
  const std::string log =
      test::read_data("logs/vllm-v1-deepseek-v4-flash-2xgh200-tp2-30k-error.log");
  const size_t at = log.find("ValueError: ") + 12;
  EXPECT_EQ(r.startup_error, log.substr(at, log.find('\n', at) - at));
}

TEST(DeepSeekV4, VllmCommandCarriesTheRecipeFlags) {
  PlanInput in;
  in.model.model_id = "deepseek-v4-flash";
  in.gpu_id = "h200-sxm-141gb";
  in.tensor_parallel = 4;
  in.max_model_len = 262144;
  const PlanReport r = test::plan_ok(in);
  EXPECT_EQ(r.estimate.kv_dtype.name, "fp8_ds_mla");  // "auto" cannot start
  EXPECT_EQ(r.block_size_tokens, 256u);
  for (const char* flag : {"--kv-cache-dtype fp8_ds_mla", "--tokenizer-mode deepseek_v4",
                           "--block-size 256", "--tensor-parallel-size 4"}) {
    EXPECT_NE(r.launch_command.find(flag), std::string::npos) << flag << ": " << r.launch_command;
  }
  EXPECT_TRUE(r.starts);
}

// SGLang's DSV4PoolConfigurator: the bytes of a full token at swa_full_tokens_ratio 0.1 (windows
// at a tenth of the full tokens, ratio-4 entries and keys, ratio-128 entries, the ratio-4
// compressors' fp32 state rings of 8 rows per 128-token window page), less the ratio-128 state
// of max_running_requests + 1 slots first; its log lines from a real run (4 Ascend NPUs, whose
// page of 128 tokens gives the same pools here as a GPU's 256).
TEST(DeepSeekV4, SglangPoolsMatchAPublishedLog) {
  PlanInput in;
  in.model.model_id = "deepseek-v4-flash";
  in.engine = "sglang";
  in.tensor_parallel = 4;
  in.sglang.max_running_requests = 8;
  in.kv_memory_bytes = 12763843320;  // 11.8872 GiB: the log's "11.89 GB" (GiB)
  const PlanReport r = test::plan_ok(in);
  const double latent = 584, key = 132, state_row = 2 * 2 * (512 + 128) * 4;
  const double per_full_token = 0.1 * latent * 43 + (latent + key) / 4 * 21 + latent / 128 * 20 +
                                0.1 * 8.0 / 128 * state_row * 21;
  EXPECT_DOUBLE_EQ(per_full_token, 7705.45);
  const uint64_t c128_state = (9 * 128 + 129 + 127) / 128 * 128 * (2 * 512 * 4) * 20;
  const uint64_t full =
      static_cast<uint64_t>((in.kv_memory_bytes - c128_state) / per_full_token) / 256 * 256;
  EXPECT_EQ(r.kv_pool_tokens, full);
  EXPECT_EQ(r.max_running_requests, 8u);
  const std::string log =
      test::read_data("logs/sglang-deepseek-v4-flash-0731-w4a8-tp4-npu-dsv4-pools.log");
  for (const char* marker : {"DSV4 memory calculation: ", "DSV4 pool sizes: "}) {
    const size_t at = log.find(marker);
    const std::string line = log.substr(at, log.find('\n', at) - at);
    const bool printed = std::any_of(r.notes.begin(), r.notes.end(),
                                     [&](const std::string& n) { return n.rfind(line, 0) == 0; });
    EXPECT_TRUE(printed) << line;
  }
}

// explain reads the same lines: each figure reproduced, the pool within the printed budget's
// rounding, and the vLLM refusal's figures too.
TEST(DeepSeekV4, ExplainReadsBothEnginesLogs) {
  PlanInput in;
  in.model.model_id = "deepseek-v4-flash";
  const Result<ExplainReport> sglang = explain(
      test::read_data("logs/sglang-deepseek-v4-flash-0731-w4a8-tp4-npu-dsv4-pools.log"), in);
  ASSERT_TRUE(sglang.ok) << sglang.error.message;
  std::vector<std::string> matches;
  for (const ExplainedFigure& f : sglang.value.figures) matches.push_back(f.match);
  EXPECT_EQ(matches, (std::vector<std::string>{"exact", "exact", "rounding"}));
  in.tensor_parallel = 2;
  in.block_size_tokens = 256;
  in.vllm.max_num_batched_tokens = 16384;
  const Result<ExplainReport> vllm =
      explain(test::read_data("logs/vllm-v1-deepseek-v4-flash-2xgh200-tp2-30k-error.log"), in);
  ASSERT_TRUE(vllm.ok) << vllm.error.message;
  ASSERT_EQ(vllm.value.figures.size(), 2u);
  EXPECT_EQ(vllm.value.figures[0].match, "exact");     // 6.66 GiB needed
  EXPECT_EQ(vllm.value.figures[1].match, "rounding");  // 13528 within 5.44's rounding
}

TEST(DeepSeekV4, SglangDefaults) {
  PlanInput in;
  in.model.model_id = "deepseek-v4-flash";
  in.engine = "sglang";
  in.gpu_id = "h200-sxm-141gb";
  in.tensor_parallel = 4;
  const PlanReport r = test::plan_ok(in);
  EXPECT_EQ(r.estimate.kv_dtype.name, "fp8_ds_mla");  // "auto" is fp8_e4m3 for DeepSeek-V4
  EXPECT_EQ(r.block_size_tokens, 256u);
  EXPECT_EQ(r.max_running_requests, 256u);
  EXPECT_EQ(r.swa_pool_tokens, r.kv_pool_tokens / 10 / 256 * 256);
  EXPECT_TRUE(r.starts);
  EXPECT_GT(r.max_concurrency, 1.0);
}

// The engines' releases run DeepSeek-V4 on Hopper, Blackwell and MI350s (vLLM on MI300s too):
// plans on other cards are refused naming the card, and the solver leaves them out and says so.
TEST(DeepSeekV4, OnlyCardsTheEngineRunsItOn) {
  PlanInput in;
  in.model.model_id = "deepseek-v4-flash";
  in.gpu_id = "a100-sxm-80gb";
  in.tensor_parallel = 4;
  Result<PlanReport> r = plan(in);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.field, "gpu");
  in.gpu_id = "mi300x";
  in.tensor_parallel = 1;
  EXPECT_TRUE(plan(in).ok);
  in.engine = "sglang";
  EXPECT_EQ(plan(in).error.field, "gpu");
  in.gpu_id = "mi355x";
  EXPECT_TRUE(plan(in).ok);
  in.engine = "vllm";
  EXPECT_TRUE(plan(in).ok);
  SolveOptions o;
  o.concurrency = 4;
  o.gpu_ids = {"a100-sxm-80gb", "l40s", "h200-sxm-141gb"};
  in.engine = "vllm";
  in.gpu_id.clear();
  in.model.context_tokens = 131072;
  const Result<SolveReport> solved = solve(in, o);
  ASSERT_TRUE(solved.ok) << solved.error.message;
  ASSERT_FALSE(solved.value.options.empty());
  for (const SolveOption& option : solved.value.options) EXPECT_EQ(option.gpu_id, "h200-sxm-141gb");
  const bool said =
      std::any_of(solved.value.notes.begin(), solved.value.notes.end(),
                  [](const std::string& n) { return n.find("A100") != std::string::npos; });
  EXPECT_TRUE(said);
}

TEST(DeepSeekV4, RefusalsNameTheirField) {
  const auto refused = [](PlanInput in) {
    const Result<PlanReport> r = plan(in);
    EXPECT_FALSE(r.ok);
    return r.error.field;
  };
  PlanInput in = flash_on_two_gh200s();
  in.model.kv_dtype = "bf16";
  EXPECT_EQ(refused(in), "kv_dtype");
  in = flash_on_two_gh200s();
  in.block_size_tokens = 64;  // the window page outgrows every compressed page
  EXPECT_EQ(refused(in), "block_size_tokens");
  in = flash_on_two_gh200s();
  in.engine_version = "0.16";
  EXPECT_EQ(refused(in), "engine_version");
  for (const char* engine : {"tensorrt-llm", "llama.cpp", "ollama"}) {
    in = flash_on_two_gh200s();
    in.engine = engine;
    in.engine_version.clear();
    in.tensor_parallel = 1;  // one-server engines take none
    in.model.kv_dtype = "auto";
    EXPECT_EQ(refused(in), "engine") << engine;
  }
}

}  // namespace
}  // namespace kvscope
