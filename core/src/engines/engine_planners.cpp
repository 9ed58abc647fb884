// kvscope::sizing's kEnginePlanners (the seam: engines/engine_planners.hpp): every engine planned.
#include "engines/engine_planners.hpp"

#include "engines/engine_profiles.hpp"

namespace kvscope::engines {

const EnginePlanners kEnginePlanners = {{plan_sglang, launch_sglang},
                                        {plan_tensorrt_llm, launch_tensorrt_llm},
                                        {plan_llamacpp, launch_llamacpp},
                                        {plan_ollama, launch_ollama},
                                        vllm_deepseek_v4_layout};

}  // namespace kvscope::engines
