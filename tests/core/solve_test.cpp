// The solver, checked by the engine arithmetic it stands on: its best layout, planned again as a
// user would type it, meets the target; every layout with fewer GPUs (for the same weights and KV
// dtype) does not; over random models, GPUs, engines and targets (fixed seed). Also the seed
// article's card, costs and ranking, speed targets, context limits, choices and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kvscope/model/catalog.hpp"
#include "kvscope/plan/plan.hpp"
#include "kvscope/solve/solve.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

SolveReport solved(const PlanInput& base, const SolveOptions& o) {
  const Result<SolveReport> r = solve(base, o);
  EXPECT_TRUE(r.ok) << r.error.message;
  return r.value;
}

PlanInput model(const char* id, const char* engine = "vllm", uint64_t context = 32768) {
  PlanInput in;
  in.model.model_id = id;
  in.engine = engine;
  in.model.context_tokens = context;
  return in;
}

// The plan of an option's layout: its card, GPUs, parallelism, dtypes and max_model_len.
PlanInput layout_of(PlanInput base, const SolveOption& o) {
  base.gpu_id = o.gpu_id;
  base.tensor_parallel = o.tp;
  base.pipeline_parallel = o.pp;
  base.gpus = o.gpus;
  base.model.kv_dtype = o.kv_dtype;
  base.weight_dtype = o.weights_choice;
  base.max_model_len = o.max_model_len;
  return base;
}

SolveOptions target(uint64_t n, std::vector<std::string> gpus) {
  SolveOptions o;
  o.concurrency = n;
  o.gpu_ids = std::move(gpus);
  return o;
}

// The option as a user would plan it: its GPUs, layout, KV dtype and weights, N sequences of C.
PlanInput as_planned(const PlanInput& base, const SolveReport& r, const SolveOption& o,
                     uint32_t tp, uint32_t pp, uint64_t gpus) {
  PlanInput in = base;
  in.gpu_id = o.gpu_id;
  in.tensor_parallel = tp;
  in.pipeline_parallel = pp;
  in.gpus = gpus;
  in.model.kv_dtype = o.kv_dtype;
  if (find_model(o.weights_choice).ok) {
    in.model.model_id = o.weights_choice;
  } else {
    in.weight_dtype = o.weights_choice;
  }
  in.max_model_len = r.context_tokens;
  in.model.context_tokens = r.context_tokens;
  in.model.batch = r.concurrency;
  in.require_concurrency = r.concurrency;
  return in;
}

bool meets(const PlanInput& in) {
  const Result<PlanReport> p = plan(in);
  return p.ok && p.value.target.met;
}

// Every replica layout with fewer GPUs than `o`, replicated as far as stays under it, falls short.
void expect_no_cheaper_layout(const PlanInput& base, const SolveReport& r, const SolveOption& o,
                              const SolveOptions& opts) {
  for (uint32_t tp = 1; tp <= opts.max_tp; tp *= 2) {
    for (uint32_t pp = 1; pp <= opts.max_pp; ++pp) {
      const uint64_t size = uint64_t{tp} * pp;
      if (size >= o.gpus) continue;
      const uint64_t gpus = (o.gpus - 1) / size * size;
      EXPECT_FALSE(meets(as_planned(base, r, o, tp, pp, gpus)))
          << o.gpu_id << " " << o.kv_dtype << " " << o.weights_choice << ": " << tp << "x" << pp
          << " on " << gpus << " GPUs meets the target with fewer than " << o.gpus;
    }
  }
}

TEST(Solve, TheBestLayoutMeetsTheTargetAndNoCheaperOneDoes) {
  std::mt19937_64 rng(20261204);
  const auto draw = [&](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  const char* const engines[] = {"vllm", "sglang", "tensorrt-llm", "plain"};
  const std::vector<ModelEntry>& models = model_catalog();
  const std::vector<GpuEntry>& gpus = gpu_catalog();
  int checked = 0;
  for (int i = 0; i < 24; ++i) {
    PlanInput base = model(models[draw(0, models.size() - 1)].id.c_str(),
                           engines[draw(0, std::size(engines) - 1)], 1024u << draw(0, 6));
    SolveOptions o = target(draw(1, 64), {gpus[draw(0, gpus.size() - 1)].id});
    o.max_pp = 4;
    o.max_gpus = 32;
    const Result<SolveReport> r = solve(base, o);
    if (!r.ok) {  // a model the engine does not serve is refused by name, never mis-sized
      EXPECT_FALSE(r.error.field.empty()) << r.error.message;
      continue;
    }
    for (const SolveOption& option : r.value.options) {
      if (!option.meets_target) {
        EXPECT_FALSE(option.binding_constraint.empty());
        EXPECT_FALSE(option.reason.empty());
        continue;
      }
      ++checked;
      EXPECT_TRUE(meets(as_planned(base, r.value, option, option.tp, option.pp, option.gpus)))
          << base.model.model_id << " " << base.engine << " " << option.command;
      expect_no_cheaper_layout(base, r.value, option, o);
      for (const SolveGpu& g : r.value.gpus) {
        for (const SolveOption& f : g.cheaper_failures) {
          EXPECT_LT(f.gpus, g.best_gpus == 0 ? o.max_gpus + 1 : g.best_gpus);
          EXPECT_FALSE(f.binding_constraint.empty());
        }
      }
    }
  }
  EXPECT_GT(checked, 10);
}

// The seed article's card: Llama-3.1-8B in bf16 on a 24 GB card holds 31,488 tokens, a fifth of
// one 131,072-token sequence; one sequence at full length needs a second card.
// Ollama fits layers to the card and runs the rest on the CPU: the solver keeps looking for the
// formats that hold every layer on the GPU (Qwen3-32B at 40,960 tokens on one RTX 4090: not bf16).
TEST(Solve, OllamaOptionsKeepEveryLayerOnTheGpu) {
  SolveOptions o = target(1, {"rtx-4090"});
  o.max_gpus = 1;
  const SolveReport r = solved(model("qwen3-32b", "ollama", 40960), o);
  ASSERT_TRUE(r.met);
  const SolveOption& best = r.options.front();
  EXPECT_NE(best.weight_dtype, "bf16");
  PlanInput planned = model("qwen3-32b", "ollama", 40960);
  planned.gpu_id = "rtx-4090";
  planned.weight_dtype = best.weights_choice;
  planned.model.kv_dtype = best.kv_dtype == "fp16" ? "auto" : best.kv_dtype;
  planned.ollama.num_ctx = 40960;
  const PlanReport p = test::plan_ok(planned);
  EXPECT_EQ(p.offload.gpu_layers, p.offload.layers);
}

TEST(Solve, TheSeedArticlesCardNeedsASecondGpuForOneFullLengthSequence) {
  PlanInput base = model("llama-3.1-8b", "vllm", 131072);
  base.gpu_memory_bytes = 24'000'000'000;
  SolveOptions o = target(1, {"custom"});
  o.kv_dtypes = {"auto"};
  o.weight_dtypes = {"auto"};
  const SolveReport r = solved(base, o);
  ASSERT_TRUE(r.met);
  EXPECT_EQ(r.options.front().gpus, 2u);
  ASSERT_EQ(r.gpus.size(), 1u);
  ASSERT_FALSE(r.gpus[0].cheaper_failures.empty());
  const SolveOption& one = r.gpus[0].cheaper_failures.front();
  EXPECT_EQ(one.gpus, 1u);
  EXPECT_EQ(one.binding_constraint, "kv_pool");
  EXPECT_NE(one.reason.find("holds 0.2 of one sequence of 131,072 tokens"), std::string::npos)
      << one.reason;
}

TEST(Solve, RanksByDollarsPerHourAndPricesEachOption) {
  SolveOptions o = target(20, {"h100-sxm-80gb", "a100-sxm-80gb", "l40s"});
  o.prices_usd_per_hour = {{"l40s", 0.99}, {"h100-sxm-80gb", 2.5}};
  const SolveReport r = solved(model("qwen3-32b"), o);
  ASSERT_TRUE(r.met);
  double previous = 0;
  for (const SolveOption& x : r.options) {
    ASSERT_TRUE(x.priced);
    EXPECT_GE(x.usd_per_hour, previous);
    previous = x.usd_per_hour;
    const double per_gpu = x.gpu_id == "l40s" ? 0.99 : x.gpu_id == "h100-sxm-80gb" ? 2.5 : 1.79;
    EXPECT_DOUBLE_EQ(x.usd_per_hour, per_gpu * static_cast<double>(x.gpus));
    EXPECT_DOUBLE_EQ(x.usd_per_user_hour, x.usd_per_hour / 20);
    ASSERT_GT(x.decode_tokens_per_s, 0);
    EXPECT_NEAR(x.usd_per_million_output_tokens, x.usd_per_hour / (x.decode_tokens_per_s * 3600) * 1e6,
                1e-9);
    EXPECT_NEAR(x.cost_vs_best, x.usd_per_hour / r.options.front().usd_per_hour, 1e-12);
  }
  EXPECT_DOUBLE_EQ(r.options.front().cost_vs_best, 1.0);
  // The catalogue's price is used where none is given, and cited.
  for (const SolveGpu& g : r.gpus) {
    if (g.gpu_id == "a100-sxm-80gb") {
      EXPECT_DOUBLE_EQ(g.usd_per_hour, 1.79);
      EXPECT_NE(g.price_source.find("2026-11-09"), std::string::npos);
    }
  }
}

TEST(Solve, UnpricedGpusRankAfterPricedOnesAndAreNamed) {
  const SolveReport r = solved(model("qwen3-8b"), target(4, {"l4", "h100-sxm-80gb"}));
  ASSERT_TRUE(r.met);
  EXPECT_EQ(r.options.front().gpu_id, "h100-sxm-80gb");
  bool named = false;
  for (const std::string& n : r.notes) named = named || n.find("no price for l4") == 0;
  EXPECT_TRUE(named);
}

// A decode floor takes replicas (each decodes fewer sequences); one no replica reaches is missed
// and says so.
TEST(Solve, ADecodeFloorAddsReplicasOrIsTheBindingConstraint) {
  SolveOptions o = target(32, {"h100-sxm-80gb"});
  o.kv_dtypes = {"auto"};
  o.weight_dtypes = {"auto"};
  const SolveReport free = solved(model("llama-3.1-8b", "vllm", 8192), o);
  ASSERT_TRUE(free.met);
  const double without = free.options.front().decode_tokens_per_s_per_user;
  o.min_decode_tokens_per_s = without * 1.5;
  const SolveReport floored = solved(model("llama-3.1-8b", "vllm", 8192), o);
  ASSERT_TRUE(floored.met);
  EXPECT_GT(floored.options.front().gpus, free.options.front().gpus);
  EXPECT_GE(floored.options.front().decode_tokens_per_s_per_user, o.min_decode_tokens_per_s);
  o.min_decode_tokens_per_s = 1e6;
  const SolveReport impossible = solved(model("llama-3.1-8b", "vllm", 8192), o);
  EXPECT_FALSE(impossible.met);
  EXPECT_EQ(impossible.options.front().binding_constraint, "decode_speed");
  o.min_decode_tokens_per_s = 0;
  o.max_ttft_s = 1e-6;
  const SolveReport slow_prefill = solved(model("llama-3.1-8b", "vllm", 8192), o);
  EXPECT_FALSE(slow_prefill.met);
  EXPECT_EQ(slow_prefill.options.front().binding_constraint, "ttft");
}

// One capacity (issue 44): the sequences of the context a layout holds is sequences_that_fit in
// its plan (the verdict's target, the roofline's KV-capped batch) and in the solver's option for
// the same layout; max_concurrency is the engine's own figure, at max_model_len.
TEST(Solve, OneCapacityForALayoutWhereverItIsShown) {
  PlanInput base = model("gemma-3-27b", "vllm", 32768);
  SolveOptions o = target(4, {"a100-sxm-80gb"});
  const SolveReport r = solved(base, o);
  ASSERT_TRUE(r.met);
  const SolveOption& best = r.options.front();
  PlanInput layout = layout_of(base, best);
  layout.model.batch = 4;
  const PlanReport p = test::plan_ok(layout);
  EXPECT_DOUBLE_EQ(p.target.sequences_that_fit, best.sequences_that_fit);
  EXPECT_DOUBLE_EQ(p.total_max_concurrency, best.max_concurrency);
  EXPECT_EQ(p.roofline.kv_capped_batch,
            static_cast<uint64_t>(std::floor(p.target.sequences_that_fit_per_replica)));
  EXPECT_NE(p.max_concurrency, p.target.sequences_that_fit_per_replica);  // two figures, two names
}

// The solver offers on each card only what its engine runs there (card_formats.cpp): no fp8 KV
// below sm80, and on a V100 (sm70) no fp8, NVFP4 or AWQ weights either.
TEST(Solve, OnEachCardOnlyWhatItsEngineRunsThere) {
  const SolveReport r =
      solved(model("qwen3-32b"), target(20, {"t4", "v100-sxm2-32gb", "a100-sxm-80gb"}));
  int old_cards = 0;
  for (const SolveOption& option : r.options) {
    if (option.gpu_id != "t4" && option.gpu_id != "v100-sxm2-32gb") continue;
    ++old_cards;
    EXPECT_EQ(option.kv_dtype.rfind("fp8", 0), std::string::npos) << option.gpu_id;
    if (option.gpu_id == "v100-sxm2-32gb") EXPECT_EQ(option.weight_dtype, "bf16");
  }
  EXPECT_GT(old_cards, 0);
}

// Compute time is never free: a card with no dense peak in the catalogue (the A10G) never meets a
// TTFT target and shows no prefill; a V100, without bf16, prefills at its fp16 tensor peak.
TEST(Solve, AnUnknownPeakNeverMeetsATtftTarget) {
  SolveOptions o = target(2, {"a10g"});
  o.kv_dtypes = {"auto"};
  o.weight_dtypes = {"auto"};
  o.max_ttft_s = 10;
  const SolveReport unknown = solved(model("llama-3.1-8b", "vllm", 8192), o);
  EXPECT_FALSE(unknown.met);
  ASSERT_FALSE(unknown.options.empty());
  EXPECT_EQ(unknown.options.front().binding_constraint, "ttft");
  EXPECT_TRUE(std::isnan(unknown.options.front().prefill_s));
  PlanInput v100 = model("llama-3.1-8b", "vllm", 8192);
  v100.gpu_id = "v100-sxm2-32gb";
  const PlanReport r = test::plan_ok(v100);
  EXPECT_EQ(r.roofline.peaks.flops, find_gpu("v100-sxm2-32gb").value.fp16_dense_flops);
  EXPECT_EQ(r.roofline.peaks.flops_dtype, "fp16");
}

// Requests of a length distribution (at most the context) are shorter than the context: the same
// concurrency needs fewer GPUs, and the option's plan sustains it at p99.
TEST(Solve, LengthDistributionsCountRequestsAtTheirLengths) {
  SolveOptions o = target(64, {"h100-sxm-80gb"});
  const SolveReport full = solved(model("qwen3-32b", "vllm", 32768), o);
  PlanInput lengths = model("qwen3-32b", "vllm", 32768);
  lengths.prompt_lengths = "uniform:512-8192";
  lengths.output_lengths = "lognormal:mean=500,p99=4000";
  const SolveReport r = solved(lengths, o);
  ASSERT_TRUE(full.met && r.met);
  EXPECT_LT(r.options.front().gpus, full.options.front().gpus);
  EXPECT_EQ(r.prompt_lengths, "uniform:512-8192");
  const SolveOption& best = r.options.front();
  ASSERT_EQ(best.max_model_len, 32768u);
  const PlanReport p = test::plan_ok(layout_of(lengths, best));
  ASSERT_TRUE(p.has_workload);
  EXPECT_GE(p.workload.p99_concurrency * best.dp, 64u);
}

// vLLM refuses a max_model_len past the derived one (Qwen3-32B: 40,960) until told otherwise.
TEST(Solve, AContextPastTheModelsLimitIsTheBindingConstraint) {
  const SolveOptions o = target(1, {"h200-sxm-141gb"});
  const SolveReport refused = solved(model("qwen3-32b", "vllm", 131072), o);
  EXPECT_FALSE(refused.met);
  EXPECT_EQ(refused.options.front().binding_constraint, "context_limit");
  PlanInput allowed = model("qwen3-32b", "vllm", 131072);
  allowed.allow_long_context = true;
  const SolveReport r = solved(allowed, o);
  ASSERT_TRUE(r.met);
  EXPECT_EQ(r.options.front().command.rfind("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve", 0), 0u);
}

// What the model is available in, per engine: the checkpoint, fp8 made at load (vLLM, SGLang),
// the catalogue's quantized checkpoints of it that the engine reads, GGUF types for llama.cpp.
TEST(Solve, WeightChoicesAreWhatTheEngineCanServe) {
  const auto choices = [](const char* engine) {
    return solved(model("qwen3-32b", engine), target(1, {"h100-sxm-80gb"})).weight_dtypes;
  };
  EXPECT_EQ(choices("vllm"),
            (std::vector<std::string>{"auto", "fp8", "qwen3-32b-nvfp4", "qwen3-32b-awq"}));
  EXPECT_EQ(choices("sglang"), choices("vllm"));
  EXPECT_EQ(choices("tensorrt-llm"), (std::vector<std::string>{"auto", "qwen3-32b-nvfp4"}));
  EXPECT_EQ(choices("llama.cpp"), (std::vector<std::string>{"auto", "q8_0", "q4_k_m"}));
  // A quantized checkpoint is not quantized again; its base checkpoint is a choice.
  EXPECT_EQ(solved(model("qwen3-32b-awq"), target(1, {"h100-sxm-80gb"})).weight_dtypes,
            (std::vector<std::string>{"auto", "qwen3-32b", "qwen3-32b-nvfp4"}));
}

// llama.cpp: a replica is one server; its slots share one cache of -c = slots x context cells.
TEST(Solve, LlamaCppServersHoldTheirSlotsAndTheCommandSaysHow) {
  PlanInput base = model("qwen3-8b", "llama.cpp", 16384);
  SolveOptions o = target(12, {"rtx-4090"});
  o.kv_dtypes = {"auto"};
  o.weight_dtypes = {"q4_k_m"};
  const SolveReport r = solved(base, o);
  ASSERT_TRUE(r.met);
  const SolveOption& best = r.options.front();
  const uint64_t slots = (12 + best.dp - 1) / best.dp;
  PlanInput server = base;
  server.gpu_id = "rtx-4090";
  server.gpus = best.pp;
  server.weight_dtype = "q4_k_m";
  server.llama_cpp.parallel = slots;
  server.model.context_tokens = slots * 16384;
  const Result<PlanReport> p = plan(server);
  ASSERT_TRUE(p.ok) << p.error.message;
  EXPECT_TRUE(p.value.starts);
  EXPECT_NE(best.command.find("-c " + std::to_string(slots * 16384) + " --parallel " +
                              std::to_string(slots)),
            std::string::npos)
      << best.command;
  // What one server holds is the most slots that start: one more does not.
  const uint64_t holds = static_cast<uint64_t>(best.sequences_that_fit) / best.dp;
  server.llama_cpp.parallel = holds + 1;
  server.model.context_tokens = (holds + 1) * 16384;
  if (best.dp > 1) EXPECT_FALSE(plan(server).value.starts) << holds;
}

TEST(Solve, BadInputNamesTheKey) {
  const auto refused = [](PlanInput base, SolveOptions o) {
    const Result<SolveReport> r = solve(base, o);
    EXPECT_FALSE(r.ok);
    return r.error.field;
  };
  EXPECT_EQ(refused(model("qwen3-32b"), target(0, {})), "concurrency");
  EXPECT_EQ(refused(model("qwen3-32b"), target(1, {"h900"})), "gpu");
  SolveOptions price = target(1, {"l4"});
  price.prices_usd_per_hour = {{"l4", -1}};
  EXPECT_EQ(refused(model("qwen3-32b"), price), "prices_usd_per_hour.l4");
  price.prices_usd_per_hour = {{"nope", 1}};
  EXPECT_EQ(refused(model("qwen3-32b"), price), "prices_usd_per_hour.nope");
  SolveOptions kv = target(1, {"l4"});
  kv.kv_dtypes = {"fp7"};
  EXPECT_EQ(refused(model("qwen3-32b"), kv), "kv_dtypes");
  SolveOptions weights = target(1, {"l4"});
  weights.weight_dtypes = {"int3.5"};
  EXPECT_EQ(refused(model("qwen3-32b"), weights), "weight_dtypes");
  SolveOptions floor = target(1, {"l4"});
  floor.min_decode_tokens_per_s = std::nan("");
  EXPECT_EQ(refused(model("qwen3-32b"), floor), "min_decode_tokens_per_s");
  EXPECT_EQ(refused(model("qwen9-99b"), target(1, {"l4"})), "model");
}

}  // namespace
}  // namespace kvscope
