// What plan() checks and settles before and after the engine profile runs (plan_inputs.cpp): the
// input, the model with its --set what-ifs, the engine's state dtypes, the context limit, and the
// model's name in the launch command.
#pragma once

#include <string>
#include <vector>

#include "engines/engine_table.hpp"
#include "kvscope/plan/plan.hpp"

namespace kvscope {

// The model input with --set overrides applied to its config.
Result<EstimateInput> model_with_overrides(const PlanInput& in);

// What a launch command calls the model: a catalogue model's chat checkpoint (its base one with
// serve_base), the folder of its config.json, else a placeholder named in `unexpressed` (a config
// file alone is not something an engine serves).
std::string launch_model_name(const PlanInput& in, std::vector<std::string>& unexpressed);

// The SSM state dtype the engine picks when the user does not (its row's ssm_state_default).
// True when it changed the shape.
bool engine_ssm_state_dtype(const EngineProfile& engine, const PlanInput& in, PlanReport& r);

// DeepSeek sparse attention with an fp8 cache: vLLM's FlashMLA-sparse backend stores the latent
// as fp8_ds_mla (vllm/model_executor/layers/attention/mla_attention.py), SGLang's NSA backend the
// same 656-byte row (model_runner_kv_cache_mixin.py). True when it changed the dtype.
bool engine_sparse_mla_layout(const EngineProfile& engine, const PlanInput& in, PlanReport& r);

// A max_model_len past the engine's derived limit: vLLM and SGLang refuse it at start-up (before
// any memory is sized) unless their override is set; llama.cpp only warns.
void check_context_limit(const EngineProfile& engine, const PlanInput& in, PlanReport& r);

// The report begun from a checked input: the engine, its version line and the layout known.
Result<PlanReport> validate_plan_input(const PlanInput& in);

}  // namespace kvscope
