// The page's first module's kEnginePlanners (the seam: engines/engine_planners.hpp): SGLang,
// TensorRT-LLM, llama.cpp and Ollama, and DeepSeek-V4 under vLLM, answered with
// needs_full_module, the full module planning them.
#include "engines/engine_planners.hpp"

namespace kvscope::engines {
namespace {

Result<PlanReport> in_the_full_module(PlanReport r, const ModelShape&, const PlanInput&) {
  return Result<PlanReport>::failure(
      make_error(kNeedsFullModule, "engine",
                 "planning " + r.engine + " needs kvscope's full module (this one plans vLLM "
                 "and the plain arithmetic)"));
}

LaunchCommand no_launch(const PlanInput&, const PlanReport&, std::string_view) { return {}; }

Result<VllmLayout> compressed_in_the_full_module(const std::vector<LayerSpec>&,
                                                 const VllmLayoutRules&,
                                                 std::vector<std::string>*) {
  return Result<VllmLayout>::failure(make_error(
      kNeedsFullModule, "model",
      "DeepSeek-V4's caches under vLLM need kvscope's full module (this one plans the others)"));
}

}  // namespace

const EnginePlanners kEnginePlanners = {{in_the_full_module, no_launch},
                                        {in_the_full_module, no_launch},
                                        {in_the_full_module, no_launch},
                                        {in_the_full_module, no_launch},
                                        compressed_in_the_full_module};

}  // namespace kvscope::engines
