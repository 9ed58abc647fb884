// Sweeps for charts: the plan's figures over a range of one input, computed from one plan so a
// slider can redraw them (the Google Benchmark suite in native-bench/ measures the cost).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kvscope/base/error.hpp"
#include "kvscope/plan/plan.hpp"

namespace kvscope {

struct Series {
  std::string name;                               // "bf16", "concurrency", ...
  std::vector<std::pair<double, double>> points;  // (x, y)
};

struct SweepRange {
  uint64_t min_context = 1024;  // log-spaced contexts
  uint64_t max_context = 0;     // 0 = the plan's max_model_len
  uint64_t max_batch = 0;       // 0 = twice the batch the KV pool caps (at least 64)
  uint32_t points = 64;         // per series
  std::vector<std::string> kv_dtypes = {"fp32", "bf16", "fp8", "q4_0"};
};

struct Sweeps {
  Sweeps();  // out of line, as PlanReport()
  PlanReport plan;
  std::vector<Series> kv_bytes_vs_context;  // one sequence, per KV dtype (bytes)
  Series concurrency_vs_context;            // sequences of that context the pool holds
  Series step_time_vs_batch;                // decode step time (s) at the plan's context
  Series throughput_vs_batch;               // decode tokens/s; flat beyond the KV cap
  uint64_t kv_capped_batch = 0;
  std::vector<std::pair<std::string, uint64_t>> memory_breakdown;  // per GPU: weights, KV pool, ...
};

Result<Sweeps> sweep(const PlanInput& input, const SweepRange& range);

}  // namespace kvscope
