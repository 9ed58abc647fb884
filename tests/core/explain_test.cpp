// `kvscope explain`: start-up logs read (log_reading.cpp) and their figures reproduced
// (explain.cpp). The logs are the committed verbatim excerpts in tests/data/logs/.
#include "kvscope/explain/explain.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "kvscope/explain/log_reading.hpp"
#include "kvscope/base/units.hpp"
#include "kvscope/request/report_json.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

std::string committed_log(const std::string& name) { return test::read_data("logs/" + name); }

PlanInput with_model(const std::string& id) {
  PlanInput in;
  in.model.model_id = id;
  return in;
}

const ExplainedFigure* figure_named(const ExplainReport& r, const std::string& prefix, size_t nth = 0) {
  for (const ExplainedFigure& f : r.figures)
    if (f.name.rfind(prefix, 0) == 0 && nth-- == 0) return &f;
  return nullptr;
}

TEST(LogReading, ReadsVllmFiguresThroughColourCodesAndCarriageReturns) {
  const std::string text =
      "\x1b[1;36m(EngineCore_DP0 pid=1)\x1b[0;0m INFO 09-12 [gpu_worker.py:276] Available KV cache "
      "memory: 44.59 GiB\r\n"
      "INFO 09-12 [kv_cache_utils.py:849] GPU KV cache size: 973,760 tokens\r\n"
      "INFO 09-12 [kv_cache_utils.py:853] Maximum concurrency for 262,144 tokens per request: "
      "14.77x\r\n";
  const Result<LogReading> r = read_log(text);
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.value.engine, "vllm");
  ASSERT_NE(r.value.figure("available_kv_cache_gib"), nullptr);
  EXPECT_EQ(r.value.figure("available_kv_cache_gib")->text, "44.59");
  EXPECT_EQ(r.value.figure("gpu_kv_cache_tokens")->value, 973760);
  EXPECT_EQ(r.value.figure("max_concurrency")->detail, "262,144");
  EXPECT_EQ(r.value.figure("max_concurrency")->line, 3u);
}

// SGLang's pool line since 2026 names the cache dtype first (club-3090 issue #1261, 2026-09-12);
// early 2026's has no dtype (ktransformers issue #1870, 2026-02-27).
TEST(LogReading, ReadsSglangPoolLinesWithAndWithoutTheirDtype) {
  for (const char* line :
       {"[2026-09-12 00:22:48 TP0] KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: "
        "454112, K size: 3.46 GB, V size: 3.46 GB\n",
        "[2026-02-27 17:10:28 TP0] KV Cache is allocated. #tokens: 454112, K size: 3.46 GB, V size: "
        "3.46 GB\n"}) {
    const Result<LogReading> r = read_log(line);
    ASSERT_TRUE(r.ok) << r.error.message;
    EXPECT_EQ(r.value.engine, "sglang");
    ASSERT_NE(r.value.figure("sglang_tokens"), nullptr) << line;
    EXPECT_EQ(r.value.figure("sglang_tokens")->value, 454112);
    EXPECT_EQ(r.value.figure("sglang_k_size_gb")->text, "3.46");
    EXPECT_EQ(r.value.figure("sglang_v_size_gb")->text, "3.46");
  }
}

TEST(LogReading, ReadsANegativeBudget) {
  const Result<LogReading> r =
      read_log("INFO [gpu_worker.py:1] Available KV cache memory: -2.14 GiB\n");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.value.figure("available_kv_cache_gib")->value, -2.14);
}

TEST(LogReading, RefusesBinaryAndOversizedInputWithTheField) {
  const Result<LogReading> binary = read_log(std::string("GPU KV cache size: 1\0\x01", 23));
  ASSERT_FALSE(binary.ok);
  EXPECT_EQ(binary.error.field, "log");
  EXPECT_NE(binary.error.message.find("NUL"), std::string::npos);
  const Result<LogReading> huge = read_log(std::string((16u << 20) + 1, 'a'));
  ASSERT_FALSE(huge.ok);
  EXPECT_EQ(huge.error.field, "log");
}

TEST(LogReading, CutsOverlongLinesAndKeepsReading) {
  const std::string text = std::string(200000, 'x') + "\nllama_kv_cache: size = 1024.00 MiB (  8192 cells,  32 layers,  1/1 seqs), K (f16):  512.00 MiB, V (f16):  512.00 MiB\n";
  const Result<LogReading> r = read_log(text);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.value.lines_cut, 1u);
  ASSERT_NE(r.value.figure("kv_size_mib"), nullptr);
  EXPECT_EQ(r.value.figure("kv_size_mib")->line, 2u);
  EXPECT_EQ(*r.value.argument("type_k"), "f16");
}

TEST(LogReading, KeepsTheFirst200FiguresAndCountsTheRest) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += "INFO GPU KV cache size: 1,000 tokens\n";
  const Result<LogReading> r = read_log(text);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.value.figures.size(), 200u);
  EXPECT_EQ(r.value.figures_dropped, 100u);
  EXPECT_EQ(r.value.lines, 300u);
}

TEST(LogReading, SkipsKvscopesOwnAnnotationLines) {
  const Result<LogReading> r =
      read_log("# check: llama_kv_cache: size = 999.00 MiB (1 cells, 1 layers)\n# explain: --model x\n");
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(r.value.engine.empty());
  EXPECT_TRUE(r.value.figures.empty());
}

TEST(LogReading, NamesEveryEngineOfAMixedPaste) {
  const Result<LogReading> r = read_log(
      "INFO GPU KV cache size: 1,000 tokens\n"
      "[2025-01-23 19:35:20 TP0] KV Cache is allocated. #tokens: 46611, K size: 1.42 GB, V size: 1.42 GB\n");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.value.engine, "vllm");
  ASSERT_EQ(r.value.other_engines.size(), 1u);
  EXPECT_EQ(r.value.other_engines[0], "sglang");
}

// TensorRT-LLM 1.1's PyTorch backend (gpt-oss-120b on a DGX Spark): one token's K and V, the
// budget its profile left, (total - peak + trial pool) x fraction, and the pool it kept (the
// last "Allocated" line, not the trial pool's).
TEST(Explain, TensorRtLlmProfileAndTheKeptPool) {
  const Result<ExplainReport> r = explain(
      committed_log("trtllm-gpt-oss-120b-dgx-spark-pytorch.log"), with_model("gpt-oss-120b"));
  ASSERT_TRUE(r.ok) << r.error.message;
  std::vector<std::string> seen;
  for (const ExplainedFigure& f : r.value.figures) {
    seen.push_back(f.name + "=" + f.printed + ":" + f.match);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "kv size per token (K and V of every layer on this GPU)=73728:exact",
                      "available KV cache memory=5.95:exact",
                      "max tokens in the paged KV cache=86720:rounding"}));
}

TEST(Explain, NoEngineIsAnErrorNamingTheLog) {
  const Result<ExplainReport> r = explain("hello\nworld\n", with_model("llama-3.1-8b"));
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.field, "log");
  EXPECT_NE(r.error.message.find("2 lines"), std::string::npos);
}

TEST(Explain, AnUnnamedModelAsksForIt) {
  const Result<ExplainReport> r =
      explain(committed_log("vllm-v0-llama31-8b-rtx3090-20k.log"), PlanInput{});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.field, "model");
  EXPECT_NE(r.error.message.find("--model"), std::string::npos);
}

TEST(Explain, IdentifiesTheModelFromThePathTheLogPrints) {
  // "/data/models/Qwen3-Next-80B-A3B-Instruct" -> qwen3-next-80b-a3b; TP 2 from the config line.
  const Result<ExplainReport> r =
      explain(committed_log("vllm-v1-qwen3-next-80b-a3b-h200-tp2-262k.log"), PlanInput{});
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.value.model_id, "qwen3-next-80b-a3b");
  EXPECT_EQ(r.value.plan.tensor_parallel, 2u);
  const ExplainedFigure* tokens = figure_named(r.value, "GPU KV cache size");
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->printed, "973,760");
  EXPECT_EQ(tokens->kvscope, "973,760");
  EXPECT_EQ(tokens->match, "exact");
  // No card given: the budget is an input, and the plan is calibrated with it.
  ASSERT_EQ(r.value.inputs.size(), 1u);
  EXPECT_EQ(r.value.inputs[0].printed, "44.59");
  EXPECT_TRUE(r.value.calibrated);
  EXPECT_EQ(r.value.plan.kv_memory_bytes, static_cast<uint64_t>(std::llround(44.59 * 1073741824.0)));
}

// Qwen3.6 hybrids under vLLM 0.23 and 0.24 with --enable-prefix-caching: the states cached for
// prefixes in align mode (two state blocks a request), the attention block grown to 1568 tokens;
// each printed figure is reproduced from the printed budget.
TEST(Explain, Qwen36HybridsWithPrefixCachingUnderVllm023And024) {
  struct Case {
    const char* log;
    const char* config;
    const char* tokens;
  };
  for (const Case& c : {Case{"vllm-v1-qwen3.6-27b-nvfp4-dgx-spark-262k.log",
                             "nvidia__qwen3.6-27b-nvfp4.json", "1,505,068"},
                        Case{"vllm-v1-qwen3.6-35b-a3b-nvfp4-rtx5090-131k.log",
                             "nvidia__qwen3.6-35b-a3b-nvfp4.json", "567,978"}}) {
    PlanInput in;
    in.model.config_json = test::read_data(std::string("real-configs/") + c.config);
    const Result<ExplainReport> r = explain(committed_log(c.log), in);
    ASSERT_TRUE(r.ok) << r.error.message;
    EXPECT_TRUE(r.value.plan.vllm.enable_prefix_caching) << c.log;
    const ExplainedFigure* tokens = figure_named(r.value, "GPU KV cache size");
    ASSERT_NE(tokens, nullptr) << c.log;
    EXPECT_EQ(tokens->kvscope, c.tokens) << c.log;
    for (const ExplainedFigure& f : r.value.figures)
      EXPECT_EQ(f.match, "exact") << c.log << " " << f.name;
  }
}

// The layout a log's arguments name, in the formats vLLM and SGLang print them (lines made for the
// test in those formats, not copied from a run): data-parallel ranks sharing a MoE model's experts,
// and SGLang's DP attention, planned per rank as each rank prints its figures.
TEST(Explain, ReadsDataParallelLayoutsFromTheArguments) {
  const auto planned_from = [](const char* log) {
    const Result<ExplainReport> r = explain(log, with_model("deepseek-v3"));
    EXPECT_TRUE(r.ok) << r.error.message;
    return r.value.plan;
  };
  const PlanInput vllm = planned_from(
      "INFO 11-06 10:51:40 [utils.py:253] non-default args: {'model': 'deepseek-ai/DeepSeek-V3', "
      "'max_model_len': 131072, 'data_parallel_size': 8, 'enable_expert_parallel': True}\n");
  EXPECT_EQ(vllm.data_parallel, 8u);
  EXPECT_TRUE(vllm.vllm.enable_expert_parallel);
  const PlanInput sglang = planned_from(
      "[2025-06-10 14:09:30] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-R1', "
      "tp_size=8, dp_size=8, enable_dp_attention=True, kv_cache_dtype='auto')\n");
  EXPECT_EQ(sglang.data_parallel, 8u);
  EXPECT_TRUE(sglang.sglang.enable_dp_attention);
  EXPECT_EQ(sglang.tensor_parallel, 8u);
}

TEST(Explain, V0BlocksMatchWithinThePrintedBudgetsRounding) {
  PlanInput in = with_model("llama-3.1-8b");
  in.max_model_len = 20000;
  const Result<ExplainReport> r = explain(committed_log("vllm-v0-llama31-8b-rtx3090-20k.log"), in);
  ASSERT_TRUE(r.ok) << r.error.message;
  const ExplainedFigure* blocks = figure_named(r.value, "GPU blocks");
  ASSERT_NE(blocks, nullptr);
  EXPECT_EQ(blocks->printed, "1952");
  EXPECT_EQ(blocks->match, "rounding");  // 3.81 GiB holds 1950 blocks of 2 MiB; 3.815 GiB 1953
  const ExplainedFigure* concurrency = figure_named(r.value, "Maximum concurrency for 20000");
  ASSERT_NE(concurrency, nullptr);
  EXPECT_EQ(concurrency->kvscope, "1.56");
  EXPECT_EQ(concurrency->match, "exact");
  // 0.6.4's profile: peak_torch_memory 17.06 GiB holds the 14.9888 GiB of weights.
  ASSERT_TRUE(r.value.calibrated);
  EXPECT_EQ(r.value.plan.vllm.activation_bytes, static_cast<uint64_t>(std::llround((17.06 - 14.9888) * 1073741824.0)));
  const ExplainedFigure* budget = figure_named(r.value, "KV cache memory per GPU from the measured profile");
  ASSERT_NE(budget, nullptr);
  EXPECT_EQ(budget->kvscope, "3.81");  // 23.58 x 0.90 - 14.9888 - 2.0712 - 0.35
}

TEST(Explain, EachStartUpOfARetriedLogIsCheckedAgainstItsOwnBudget) {
  // The Jetson log: a first start with -7.83 GiB (0.00x), then a retry with 0.65 GiB.
  const Result<ExplainReport> r = explain(
      committed_log("vllm-v0-qwen25-vl-7b-awq-jetson-orin-gmu04-4k-error-then-ok.log"),
      with_model("qwen2.5-7b"));
  ASSERT_TRUE(r.ok) << r.error.message;
  const ExplainedFigure* first = figure_named(r.value, "Maximum concurrency", 0);
  const ExplainedFigure* second = figure_named(r.value, "Maximum concurrency", 1);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(first->printed, "0.00");
  EXPECT_EQ(first->match, "exact");
  EXPECT_EQ(second->printed, "2.95");
  EXPECT_NE(second->match, "differs");
}

TEST(Explain, TheMeasuredProfileCalibratesThePlan) {
  // Unsloth's vLLM 0.8.2: total x utilization printed as 55.09 GiB (not 79.15 x 0.70).
  const Result<ExplainReport> r =
      explain(committed_log("vllm-v0-phi4-bnb4bit-a100-80gb-gmu07-512.log"), PlanInput{});
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.value.model_id, "phi-4");
  ASSERT_TRUE(r.value.calibrated);
  EXPECT_EQ(r.value.plan.vllm.activation_bytes, static_cast<uint64_t>(std::llround(1.16 * 1073741824.0)));
  const ExplainedFigure* budget = figure_named(r.value, "KV cache memory per GPU from the measured profile");
  ASSERT_NE(budget, nullptr);
  EXPECT_EQ(budget->kvscope, "45.21");
  EXPECT_EQ(budget->match, "exact");
  // The calibrated plan gives the budget back.
  const Result<PlanReport> p = plan(r.value.plan);
  ASSERT_TRUE(p.ok) << p.error.message;
  EXPECT_NEAR(static_cast<double>(p.value.kv_pool_bytes) / 1073741824.0, 45.21, 0.005);
}

TEST(Explain, LlamaCppBuffersAreReproducedExactly) {
  const Result<ExplainReport> r =
      explain(committed_log("llamacpp-phi3-mini-4k-c2048-cpu.log"), with_model("phi-3-mini-4k"));
  ASSERT_TRUE(r.ok) << r.error.message;
  const ExplainedFigure* kv = figure_named(r.value, "K and V cache size");
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->printed, "768.00");
  EXPECT_EQ(kv->kvscope, "768.00");
  EXPECT_EQ(kv->match, "exact");
  EXPECT_EQ(r.value.plan.model.context_tokens, 2048u);
}

TEST(Explain, LlamaCppMlaCacheWithAVPartIsTheOldLayout) {
  // Build 5331 printed K 1098 + V 976 MiB: V kept apart (before PR #19067); ik_llama.cpp's
  // latent-only cache printed 1098 MiB.
  const Result<ExplainReport> old_layout =
      explain(committed_log("llamacpp-deepseek-v3-0324-mla-4gpu-c16384.log"), PlanInput{});
  ASSERT_TRUE(old_layout.ok) << old_layout.error.message;
  EXPECT_TRUE(old_layout.value.plan.llama_cpp.mla_v_cache);
  EXPECT_EQ(figure_named(old_layout.value, "K and V")->match, "exact");
  const Result<ExplainReport> latent =
      explain(committed_log("ikllama-deepseek-v3-0324-q2kxl-mla-4gpu.log"), with_model("deepseek-v3"));
  ASSERT_TRUE(latent.ok) << latent.error.message;
  EXPECT_FALSE(latent.value.plan.llama_cpp.mla_v_cache);
  EXPECT_EQ(figure_named(latent.value, "K and V")->kvscope, "1098.00");
}

// The version line a log is explained as: V0 by its block lines, 0.7 by its release, the
// alignment variable from the pasted command; llama.cpp's pre-rename cache class with -fa off.
TEST(Explain, LogsAreExplainedAsTheVersionLineTheyShow) {
  const std::string v0 =
      "VLLM_MLA_CUDA_MEM_ALIGN_KV_CACHE=0 VLLM_USE_V1=0 vllm serve /m/DeepSeek-R1 --tensor-parallel-size 8\n"
      "INFO 03-14 20:43:52 [executor_base.py:111] # cuda blocks: 5266, # CPU blocks: 954\n"
      "INFO 03-14 20:43:52 [executor_base.py:116] Maximum concurrency for 163840 tokens per request: 2.06x\n";
  const Result<ExplainReport> r = explain(v0, PlanInput{});
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.value.modelled_version, "v0");
  EXPECT_EQ(r.value.model_id, "deepseek-v3");  // DeepSeek-R1 is its alias
  EXPECT_EQ(r.value.plan.tensor_parallel, 8u);  // from the pasted command
  EXPECT_FALSE(r.value.plan.vllm.mla_cuda_mem_align_kv_cache);
  ASSERT_NE(figure_named(r.value, "CPU swap blocks"), nullptr);
  EXPECT_EQ(figure_named(r.value, "CPU swap blocks")->match, "exact");
  EXPECT_EQ(figure_named(r.value, "Maximum concurrency")->kvscope, "2.06");
  const Result<ExplainReport> old = explain(
      "INFO 03-14 [llm_engine.py:241] Initializing an LLM engine (v0.7.3) with config: "
      "model='deepseek-ai/DeepSeek-R1', tensor_parallel_size=8\n" +
          v0.substr(v0.find('\n') + 1),
      PlanInput{});
  ASSERT_TRUE(old.ok) << old.error.message;
  EXPECT_EQ(old.value.modelled_version, "0.7");
  EXPECT_EQ(figure_named(old.value, "CPU swap blocks")->kvscope, "859");  // rows padded to 256 bytes
  const Result<ExplainReport> vulkan = explain(
      committed_log("llamacpp-gpt-oss-20b-mxfp4-vulkan-m2pro-iswa.log"), with_model("gpt-oss-20b"));
  ASSERT_TRUE(vulkan.ok) << vulkan.error.message;
  EXPECT_EQ(vulkan.value.modelled_version, "2025");
  EXPECT_FALSE(vulkan.value.plan.llama_cpp.flash_attn);
  EXPECT_EQ(figure_named(vulkan.value, "K and V")->match, "exact");
  PlanInput current = with_model("gpt-oss-20b");
  current.engine_version = "2026";  // a version given overrides what the log shows
  const Result<ExplainReport> padded =
      explain(committed_log("llamacpp-gpt-oss-20b-mxfp4-vulkan-m2pro-iswa.log"), current);
  ASSERT_TRUE(padded.ok) << padded.error.message;
  EXPECT_EQ(figure_named(padded.value, "K and V")->match, "differs");
}

// Today's vLLM, in its format strings (gpu_worker.py determine_available_memory,
// kv_cache_utils.py update_kv_cache_capacity since PR #50462): the non-default args as a Python
// dict, the CUDA-graph estimate it took out of the budget, and one line for the pool's size and
// concurrency. The figures are kvscope's own plan at that budget, written in vLLM's words.
TEST(Explain, TodaysVllmLinesAreReadAsItsNewestLine) {
  PlanInput in = with_model("llama-3.1-8b");
  in.engine_version = "0.31.0";
  in.gpu_id = "h100-sxm-80gb";
  in.vllm.gpu_memory_utilization = 0.85;
  in.max_model_len = 8192;
  in.vllm.cudagraph_bytes = static_cast<uint64_t>(std::llround(0.62 * (uint64_t{1} << 30)));
  const PlanReport p = test::plan_ok(in);
  char pool[256];
  std::snprintf(pool, sizeof pool,
                "INFO 10-05 [kv_cache_utils.py:1010] GPU KV cache size: %s tokens, Maximum "
                "concurrency for 8,192 tokens per request: %.2fx\n",
                with_commas(p.kv_pool_tokens).c_str(), p.max_concurrency);
  char available[160];
  std::snprintf(available, sizeof available,
                "INFO 10-05 [gpu_worker.py:563] Available KV cache memory: %.2f GiB\n",
                static_cast<double>(p.kv_pool_bytes) / (uint64_t{1} << 30));
  const std::string log =
      "INFO 10-05 [api_server.py:1] vLLM API server version 0.31.0\n"
      "INFO 10-05 [utils.py:278] non-default args: {'model_tag': 'meta-llama/Llama-3.1-8B', "
      "'model': 'meta-llama/Llama-3.1-8B', 'max_model_len': 8192, 'gpu_memory_utilization': 0.85}\n"
      "INFO 10-05 [gpu_model_runner.py:6588] Estimated CUDA graph memory: 0.62 GiB total\n" +
      std::string(available) +
      "INFO 10-05 [gpu_worker.py:578] CUDA graph memory profiling is enabled (default since "
      "v0.21.0). The current --gpu-memory-utilization=0.8500 is equivalent to "
      "--gpu-memory-utilization=0.8422 without CUDA graph memory profiling.\n" +
      std::string(pool);
  const Result<ExplainReport> r = explain(log, PlanInput{});
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.value.modelled_version, "0.29");
  EXPECT_DOUBLE_EQ(r.value.plan.vllm.gpu_memory_utilization, 0.85);  // from the dict
  EXPECT_EQ(r.value.plan.vllm.cudagraph_bytes, in.vllm.cudagraph_bytes);
  ASSERT_NE(figure_named(r.value, "GPU KV cache size"), nullptr);
  EXPECT_NE(figure_named(r.value, "GPU KV cache size")->match, "differs");  // at the printed budget
  ASSERT_NE(figure_named(r.value, "Maximum concurrency"), nullptr);
  EXPECT_NE(figure_named(r.value, "Maximum concurrency")->match, "differs");
  // The same lines without a release: still the newest line, as only 0.20 on reserves graphs.
  const Result<ExplainReport> unnamed = explain(log.substr(log.find('\n') + 1), PlanInput{});
  ASSERT_TRUE(unnamed.ok) << unnamed.error.message;
  EXPECT_EQ(unnamed.value.modelled_version, "0.29");
}

// The scheduler's "Chunked prefill is enabled with max_num_batched_tokens=8192." sets the batched
// tokens a sliding group reaches (Gemma 3 27B on ROCm: 50.05x, not the 2,048-token default's 63.65x).
TEST(Explain, TheSchedulersBatchedTokensCountForSlidingLayers) {
  const Result<ExplainReport> r =
      explain(committed_log("vllm-v1-gemma3-27b-it-rocm-4k.log"), with_model("gemma-3-27b"));
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.value.plan.vllm.max_num_batched_tokens, 8192u);
  EXPECT_EQ(figure_named(r.value, "Maximum concurrency")->match, "exact");
  EXPECT_EQ(figure_named(r.value, "Maximum concurrency")->kvscope, "50.05");
}

TEST(Explain, SglangAndTensorRtPoolsMatchTheirPrintedBytes) {
  PlanInput qwq;
  qwq.model.config_json = test::read_fixture("qwen2_5_32b_shape.json");
  const Result<ExplainReport> sglang = explain(committed_log("sglang-qwq32b-tp4-l4.log"), qwq);
  ASSERT_TRUE(sglang.ok) << sglang.error.message;
  EXPECT_EQ(sglang.value.engine, "sglang");
  EXPECT_EQ(sglang.value.plan.tensor_parallel, 4u);
  const ExplainedFigure* tokens = figure_named(sglang.value, "tokens the K and V buffers hold");
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->printed, "46611");
  EXPECT_EQ(tokens->match, "rounding");

  PlanInput llava = with_model("llama-2-7b");
  llava.tensor_parallel = 2;
  const Result<ExplainReport> trt = explain(committed_log("trtllm-triton-llava15-7b-tp2-h100nvl.log"), llava);
  ASSERT_TRUE(trt.ok) << trt.error.message;
  EXPECT_EQ(trt.value.engine, "tensorrt-llm");
  EXPECT_EQ(figure_named(trt.value, "max tokens in the paged KV cache")->match, "rounding");
}

TEST(Explain, JsonFollowsTheContract) {
  PlanInput in = with_model("llama-3.1-8b");
  in.max_model_len = 20000;
  const Result<ExplainReport> r = explain(committed_log("vllm-v0-llama31-8b-rtx3090-20k.log"), in);
  ASSERT_TRUE(r.ok);
  const nlohmann::json j = nlohmann::json::parse(explain_to_json(r.value));
  EXPECT_EQ(j["schema"], "kvscope.explain/1");
  EXPECT_EQ(j["engine"], "vllm");
  EXPECT_EQ(j["model"]["id"], "llama-3.1-8b");
  EXPECT_TRUE(j["arguments"].is_object());
  ASSERT_FALSE(j["figures"].empty());
  for (const auto& f : j["figures"]) {
    for (const char* key : {"line", "name", "printed", "kvscope", "unit", "match"})
      EXPECT_TRUE(f.contains(key)) << key;
    const std::string match = f["match"];
    EXPECT_TRUE(match == "exact" || match == "rounding" || match == "differs") << match;
    if (match == "differs") EXPECT_TRUE(f["reason"].is_string());
  }
  EXPECT_EQ(j["plan_request"]["schema"], "kvscope.request/1");
}

}  // namespace
}  // namespace kvscope
