// The engines' half of the first module's seam (the config reader's is kConfigReader,
// kvscope/model/config_import.hpp): which engines a build plans. kvscope::sizing (the CLI, the
// tests, the full module) links every engine's planner (engine_planners.cpp); the page's first
// module plans vLLM and the plain arithmetic and answers SGLang, TensorRT-LLM, llama.cpp and Ollama
// with needs_full_module (first_module_planners.cpp), the page then fetching the full module. So
// the first module links none of their planners: 9.7 kB gzipped less (docs/architecture.md), the
// room vLLM's release lines and the engines still to come need under its 150 kB budget. vLLM's
// DeepSeek-V4 layout goes the same way (2.2 kB): the first module answers every other model.
#pragma once

#include <string_view>

#include "engines/vllm/engine_vllm.hpp"
#include "kvscope/engines/plan_types.hpp"

namespace kvscope::engines {

// An engine's budget and capacity on one GPU, and the command that launches its plan (the
// EngineProfile fields of the same names, engine_table.hpp).
struct EnginePlanner {
  Result<PlanReport> (*plan_gpu)(PlanReport r, const ModelShape& gpu_shape, const PlanInput& in);
  LaunchCommand (*launch_command)(const PlanInput& in, const PlanReport& r, std::string_view model);
};

struct EnginePlanners {
  EnginePlanner sglang, tensorrt_llm, llamacpp, ollama;
  decltype(&vllm_deepseek_v4_layout) vllm_deepseek_v4;  // vLLM's compressed-attention groups
};

extern const EnginePlanners kEnginePlanners;

}  // namespace kvscope::engines
