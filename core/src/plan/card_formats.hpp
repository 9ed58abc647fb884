// What each engine runs on a card: the model (DeepSeek-V4's kernels), the weights' quantization
// method and the KV dtype, by the card's architecture and compute capability. Each returns the
// engine's refusal as an error naming the field, or success when the card runs it (or is not in
// the catalogue).
#pragma once

#include "engines/engine_table.hpp"
#include "kvscope/engines/plan_types.hpp"

namespace kvscope {

Result<bool> card_runs_model(const EngineProfile& engine, const ModelShape& shape,
                             const PlanReport& r);
Result<bool> card_runs_formats(const EngineProfile& engine, const ModelShape& shape,
                               const PlanReport& r);

}  // namespace kvscope
