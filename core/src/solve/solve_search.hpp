// The solver's search (solve_search.cpp): the choices it may make, checked once (prepare_search),
// and per GPU type the replica layouts planned from the fewest GPUs up (search_card).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engines/engine_table.hpp"
#include "kvscope/solve/solve.hpp"
#include "plan/plan_state.hpp"

namespace kvscope::solve_search {

struct Card {  // a GPU type considered
  std::string id;  // a catalogue id, or "custom" (the base plan's --gpu-memory card)
  std::string name;
  uint64_t memory_bytes = 0;
  bool priced = false;
  double usd_per_hour = 0;
  std::string price_source;
};

struct WeightChoice {
  std::string choice;        // as the request names it: "auto", "fp8", or a catalogue id
  std::string weight_dtype;  // PlanInput.weight_dtype
  std::string model_id;      // a catalogue checkpoint of the same model; empty = the input's
  std::string served;        // what it is served as ("bf16", "awq-int4 (Qwen/Qwen3-32B-AWQ)")
  uint64_t bytes = 0;        // the whole model on one GPU: no GPU of n holds less than 1/n
};

// The plan input serving `w`: another checkpoint's own files, or the weights made at load (an
// index or a fixed size describes the checkpoint as stored, not them).
void serve_weights(PlanInput& in, const WeightChoice& w);

struct KvChoice {
  std::string choice;  // "auto", "fp8", ...
  std::string name;    // as resolved for the model ("bf16")
  uint64_t bytes_per_sequence = 0;  // one sequence of the context, unpaged: a lower bound
};

struct Search {
  PlanInput base;
  SolveOptions options;
  const EngineProfile* engine = nullptr;
  std::string model_name;
  uint64_t context_tokens = 0;  // the target's C: base's, else the engine's max_model_len
  uint64_t prompt_tokens = 0;   // prefill for the time to first token: base's, else C
  std::vector<Card> cards;
  std::vector<WeightChoice> weight_choices;  // the checkpoint as stored first
  std::vector<KvChoice> kv_choices;          // the model's dtype first
  std::vector<std::string> notes;
  // A MoE model under an engine whose data-parallel ranks share its experts (vLLM): a replica
  // holds more the more replicas there are, so replica counts are planned, not multiplied.
  bool experts_over_replicas = false;
};

// An option and how far it strays from the checkpoint as stored (0: its weights, the model's KV
// dtype), to rank equal costs.
struct Ranked {
  SolveOption option;
  size_t changes = 0;
};

struct CardResult {
  SolveGpu gpu;
  std::vector<Ranked> options;  // per weight and KV choice its fewest GPUs; or the closest miss
};

// Trial plans one solve may run (its options' own plans come on top): bounds the work of any
// request, however wide its limits (a catalogue-wide search of a typical model takes about 700).
inline constexpr uint64_t kTrialPlanBudget = 6000;

// Both plan through `memo`, which keeps the model's import and tensors across their plans;
// search_card spends trial plans from `budget`.
Result<Search> prepare_search(const PlanInput& base, const SolveOptions& options, PlanMemo& memo);
Result<CardResult> search_card(const Search& search, const Card& card, PlanMemo& memo,
                               uint64_t& budget);

}  // namespace kvscope::solve_search
