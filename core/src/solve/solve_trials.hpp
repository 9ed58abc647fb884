// One trial of the solver's search (solve_trials.cpp): a replica layout for one weight and KV
// choice, planned with the engine's arithmetic and sized in replicas for the target; the search
// over layouts and GPU types is solve_search.cpp.
#pragma once

#include <cstdint>
#include <string>

#include "plan/plan_state.hpp"
#include "solve/solve_search.hpp"

namespace kvscope::solve_search {

// One replica layout for one weight and KV choice, as planned.
struct Trial {
  uint32_t tp = 1;
  uint32_t pp = 1;  // llama.cpp: the devices of one server (-sm layer)
  size_t weight = 0;
  size_t kv = 0;
  bool planned = false;   // false: skipped on the weights' lower bound
  bool works = false;     // one replica starts, and meets the time to first token
  uint64_t capacity = 0;  // sequences of the context one replica holds at once
  double fit = 0;         // the same, fractional
  uint64_t dp_for_pool = 0;  // replicas the sequences need
  uint64_t dp_planned = 0;   // experts over replicas: the fewest that hold them, as planned
  uint64_t dp = 0;           // replicas the sequences and the decode floor need
  std::string constraint;    // why not, when !works or when dp replicas exceed max_gpus
  std::string reason;
  std::string kv_name;
  std::string weight_name;
  uint64_t max_model_len = 0;
  double utilization = 0;
  uint64_t weights_bytes = 0;
  uint64_t pool_bytes = 0;
  bool speed = false;
  double per_user_tokens_per_s = 0;  // at ceil(N / dp) sequences per replica
  double prefill_s = 0;

  uint64_t replica_gpus() const { return uint64_t{tp} * pp; }
  uint64_t gpus() const { return replica_gpus() * dp; }
};

// Runs the search's plans through the memo, and counts them.
struct Planner {
  PlanMemo& memo;
  uint64_t plans = 0;
  Result<PlanState> operator()(const PlanInput& in) {
    ++plans;
    return plan_state(in, &memo);
  }
};

// `value` with `digits` decimals.
std::string decimal(double value, int digits);

// The plan input for one replica layout (dp replicas of it); llama.cpp: one server of `tp x pp`
// devices with `slots` sequences.
PlanInput trial_input(const Search& s, const Card& card, const Trial& t, uint64_t dp, uint64_t slots);

// The figures every trial reports from its plan.
void record(const PlanReport& r, Trial& t);

// Whether the target asks for a decode speed or a time to first token.
bool speed_targets(const SolveOptions& o);

// Decode tokens/s of each of `batch` sequences at the target's context on one replica (llama.cpp:
// one server, whose plan's context is all its slots' cells), from a plan with its roofline.
Result<double> per_user_tokens_per_s(const Search& s, const PlanState& state, uint64_t batch);

// The prefill of the target's prompt on one replica.
Result<double> prefill_seconds(const Search& s, const PlanState& state);

// Replicas for the sequences, then for the decode floor, then the per-user speed at what each
// replica runs.
Result<bool> size_replicas(const Search& s, const PlanState& state, Trial& t);

// Plans one replica layout (vLLM, SGLang, TensorRT-LLM, plain): what one replica holds.
Result<PlanState> plan_replica(const Search& s, const Card& card, Trial& t, Planner& plan);

// llama.cpp: the most slots one server of `tp x pp` devices holds at the context.
Result<PlanState> plan_server(const Search& s, const Card& card, Trial& t, Planner& plan);

}  // namespace kvscope::solve_search
