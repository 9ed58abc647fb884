// `kvscope estimate`: a model (catalogue id or config.json), dtypes and a workload in; the KV
// report out. One function serves the CLI and the WASM module, so both print the same numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kvscope/model/config_import.hpp"
#include "kvscope/model/dtype.hpp"
#include "kvscope/base/error.hpp"
#include "kvscope/kv/kv_arithmetic.hpp"
#include "kvscope/model/model_shape.hpp"

namespace kvscope {

struct EstimateInput {
  EstimateInput();  // out of line, as PlanReport()
  std::string model_id;           // catalogue id; when empty, config_json is used
  std::string config_json;        // text of a config.json
  std::string config_name;        // where config_json came from (shown, not read)
  std::string kv_dtype = "auto";  // "auto" = the model's dtype, as vLLM's kv_cache_dtype=auto
  std::string state_dtype = "auto";      // recurrent state (and its convolution part)
  std::string ssm_state_dtype = "auto";  // the SSM part: "auto" = the config's mamba_ssm_dtype
                                         // (or, in plan, the engine's per-model default)
  uint64_t context_tokens = 0;  // 0 = the model's max_position_embeddings
  uint64_t batch = 1;
  uint64_t block_size_tokens = 0;  // 0 = unpaged
  uint64_t shared_prefix_tokens = 0;
  uint64_t prompt_tokens = 0;  // both 0 = no projection count
  uint64_t output_tokens = 0;
};

struct EstimateReport {
  EstimateReport();  // out of line, as PlanReport()
  std::string model_id;  // empty for a config file
  std::string model_name;
  std::string source;  // catalogue source URL or the config's name
  ModelShape shape;
  std::vector<std::string> assumptions;
  Dtype kv_dtype;
  Dtype state_dtype;
  KvWorkload workload;
  bool has_projections = false;
  uint64_t prompt_tokens = 0;
  uint64_t output_tokens = 0;
  ProjectionCount projections;
  KvEstimate kv;
};

Result<EstimateReport> estimate(const EstimateInput& input);

// The model an estimate reads, imported once: a catalogue entry's config or the given one.
struct ResolvedModel {
  ResolvedModel();  // out of line, as PlanReport()
  ImportedModel imported;
  std::string model_id;  // empty for a config file
  std::string model_name;
  std::string source;
};
Result<ResolvedModel> resolve_model(const EstimateInput& input);
// estimate() of a model already resolved from `input` (plans of one model share the import).
Result<EstimateReport> estimate(const EstimateInput& input, const ResolvedModel& model);

// The dtype an engine computes in for this checkpoint: its torch_dtype, except that float32
// checkpoints are served in float16 (vLLM's "auto", vllm/config/model.py _get_and_verify_dtype).
std::string serving_dtype(const ModelShape& shape);

// "2 × 32 × 8 × 128 × 2 = 131,072 bytes": one group's bytes per token with its numbers.
std::string kv_bytes_per_token_formula(const GroupKv& group, const Dtype& kv);

}  // namespace kvscope
