// `kvscope solve`: a target ("N sequences of C tokens at once", optionally a per-user decode speed
// and a time to first token) turned into the layouts that serve it: per GPU type the cheapest
// number of GPUs, their TP x PP x DP split, KV dtype and weights, each checked by plan() with the
// engine's own arithmetic, and why the cheaper layouts fail.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kvscope/base/error.hpp"
#include "kvscope/plan/plan.hpp"

namespace kvscope {

// What the solver may choose, beyond the engine knobs of the base plan.
struct SolveOptions {
  uint64_t concurrency = 0;             // sequences at once, over every replica (required)
  double min_decode_tokens_per_s = 0;   // per sequence at the full context; 0 = no floor
  double max_ttft_s = 0;                // prefill of prompt_tokens on one replica; 0 = no ceiling
  std::vector<std::string> gpu_ids;     // empty: the whole catalogue (and a custom card if given)
  std::vector<std::string> kv_dtypes;   // empty: the engine's (the model's dtype and fp8)
  std::vector<std::string> weight_dtypes;  // empty: what the model is served in (see below)
  uint32_t max_tp = 8;                  // tensor parallelism stays within a node
  uint32_t max_pp = 8;
  uint64_t max_gpus = 64;
  std::vector<std::pair<std::string, double>> prices_usd_per_hour;  // GPU id -> $/GPU-hour
};

// One layout: the plan the solver would run, what it reaches, and what it costs.
struct SolveOption {
  std::string gpu_id;  // a catalogue id, or "custom"
  std::string gpu_name;
  uint64_t gpus = 0;
  uint32_t tp = 1;
  uint32_t pp = 1;
  uint64_t dp = 1;  // replicas (llama.cpp: servers, each over tp x pp = its devices)
  std::string kv_dtype;      // as plan() resolved it ("bf16", "fp8")
  std::string weight_dtype;  // as served ("bf16", "fp8", "awq-int4", ...)
  std::string weights_choice;  // the request's weight_dtype ("auto", "fp8") or a checkpoint's id
  std::string checkpoint;      // another catalogue checkpoint it serves (empty: the model's own)
  uint64_t max_model_len = 0;
  double utilization = 0;     // the engine's memory share (vLLM gpu_memory_utilization, ...)
  uint64_t weights_bytes_per_gpu = 0;
  uint64_t kv_pool_bytes_per_gpu = 0;
  double sequences_that_fit = 0;  // sequences of the target's context the layout holds at once
  double max_concurrency = 0;     // the engine's own figure for the layout (its plan's totals)
  bool meets_target = false;
  std::string binding_constraint;  // empty when met: weights, kv_pool, heads, layers,
                                   // context_limit, running_requests, decode_speed, ttft,
                                   // max_gpus, engine
  std::string reason;              // one line: why it does not meet the target
  double margin = 0;               // whole sequences held / concurrency - 1
  bool speed_available = false;    // the roofline had the card's peaks
  double decode_tokens_per_s_per_user = 0;  // at the full context (every sequence at C tokens)
  double decode_tokens_per_s = 0;           // all sequences together
  double prefill_s = 0;                     // one prompt on one replica
  bool priced = false;
  double usd_per_hour = 0;
  double usd_per_user_hour = 0;
  double usd_per_million_output_tokens = 0;
  double cost_vs_best = 0;  // usd_per_hour (or GPUs, unpriced) over the best option's; 0 = n/a
  std::string command;      // the engine's launch command, one shell-quoted string
  std::vector<std::string> unexpressed;  // what of the layout the command cannot set
};

// One GPU type: its price and, for the layouts with fewer GPUs than its best, why each fails.
struct SolveGpu {
  std::string gpu_id;
  std::string gpu_name;
  uint64_t memory_bytes = 0;
  bool priced = false;
  double usd_per_hour = 0;
  std::string price_source;  // "--price", or the catalogue's citation and date
  bool met = false;
  uint64_t best_gpus = 0;  // the fewest GPUs that meet the target (0 = none within max_gpus)
  std::vector<SolveOption> cheaper_failures;  // nearest misses first
  uint64_t plans_run = 0;                     // plans run for this GPU
  bool search_cut = false;  // the solve's plan budget ran out before every layout was tried
};

struct SolveReport {
  std::string model_id;
  std::string model_name;
  std::string engine;
  std::string engine_label;
  std::string engine_version;  // the version line its plans follow; empty for an engine with one
  std::string engine_version_label;
  uint64_t concurrency = 0;
  uint64_t context_tokens = 0;
  uint64_t prompt_tokens = 0;
  std::string prompt_lengths;  // with output_lengths: the target counts requests of these lengths
  std::string output_lengths;  // (sustained at p99) instead of sequences of context_tokens
  double min_decode_tokens_per_s = 0;
  double max_ttft_s = 0;
  std::vector<std::string> kv_dtypes;      // the choices searched
  std::vector<std::string> weight_dtypes;  // the choices searched
  uint32_t max_tp = 8;
  uint32_t max_pp = 8;
  uint64_t max_gpus = 64;
  bool met = false;                  // some option meets the target
  std::vector<SolveOption> options;  // meeting options cheapest first, then the closest misses
  std::vector<SolveGpu> gpus;        // per GPU type considered, in catalogue order
  uint64_t plans_run = 0;
  std::vector<std::string> notes;
};

// Searches, per GPU type, every weight and KV choice and every TP x PP replica for the fewest GPUs
// whose replicas hold `concurrency` sequences of base.model.context_tokens (0: the engine's
// max_model_len for the model) and meet the speed targets; ranks by $/hour where priced, then by
// GPUs. Errors name the request key ("concurrency", "gpu", "kv_dtypes").
Result<SolveReport> solve(const PlanInput& base, const SolveOptions& options);

}  // namespace kvscope
