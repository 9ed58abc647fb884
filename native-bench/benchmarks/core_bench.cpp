// Google Benchmark suite for the core paths a page redraws on every input change: config import,
// the KV estimate, a full plan, a 1,000-point sweep, and that sweep as the page runs it (JSON).
// Run: build/native/native-bench/kvscope_bench
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "kvscope/model/catalog.hpp"
#include "kvscope/model/config_import.hpp"
#include "kvscope/kv/estimate.hpp"
#include "kvscope/plan/plan.hpp"
#include "kvscope/request/request.hpp"
#include "kvscope/plan/sweeps.hpp"

namespace kvscope {
namespace {

PlanInput llama_on_h100() {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.gpu_id = "h100-sxm-80gb";
  in.max_model_len = 131072;
  return in;
}

void BM_ImportConfig(benchmark::State& state) {
  const std::string config = find_model("gemma-3-27b").value.config_json;
  for (auto _ : state) benchmark::DoNotOptimize(import_config(config));
}
BENCHMARK(BM_ImportConfig);

void BM_Estimate(benchmark::State& state) {
  EstimateInput in;
  in.model_id = "llama-3.1-8b";
  in.context_tokens = 131072;
  for (auto _ : state) benchmark::DoNotOptimize(estimate(in));
}
BENCHMARK(BM_Estimate);

void BM_Plan(benchmark::State& state) {
  const PlanInput in = llama_on_h100();
  for (auto _ : state) {
    const Result<PlanReport> r = plan(in);
    if (!r.ok) state.SkipWithError(r.error.message.c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_Plan)->Unit(benchmark::kMicrosecond);

// The slider case: 1,000 contexts x 4 KV dtypes, 1,000 concurrency points, 1,000 batch points.
void BM_Sweep1000(benchmark::State& state) {
  const PlanInput in = llama_on_h100();
  SweepRange range;
  range.points = 1000;
  range.min_context = 1;
  range.max_batch = 100000;
  for (auto _ : state) {
    const Result<Sweeps> r = sweep(in, range);
    if (!r.ok) state.SkipWithError(r.error.message.c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_Sweep1000)->Unit(benchmark::kMillisecond);

// The request the page sends, decoding and JSON included: the browser benchmark
// (scripts/bench-page.mjs) reads the label and times the same request in WebAssembly to report
// the WASM / native ratio.
void BM_SweepRequest1000(benchmark::State& state) {
  const std::string request =
      R"({"model": "llama-3.1-8b", "gpu": "h100-sxm-80gb", "max_model_len": 131072, )"
      R"("sweep": {"points": 1000}})";
  for (auto _ : state) {
    const Answer a = answer_json(Command::kSweep, request);
    if (a.status != 0) state.SkipWithError(a.error.message.c_str());
    benchmark::DoNotOptimize(a.json);
  }
  state.SetLabel(request);
}
BENCHMARK(BM_SweepRequest1000)->Unit(benchmark::kMillisecond);

// The solver over the whole GPU catalogue (issue 15's target: well under 100 ms in WASM), as the
// page's "Which GPUs" asks it: the request is the label, so the browser harness times the same.
void BM_SolveCatalogue(benchmark::State& state) {
  const std::string request =
      R"({"model": "qwen3-32b", "engine": "vllm", "context_tokens": 32768, "concurrency": 20})";
  for (auto _ : state) {
    const Answer a = answer_json(Command::kSolve, request);
    if (a.status != 0) state.SkipWithError(a.error.message.c_str());
    benchmark::DoNotOptimize(a.json);
  }
  state.SetLabel(request);
}
BENCHMARK(BM_SolveCatalogue)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kvscope

BENCHMARK_MAIN();
