// `kvscope plan`: what an engine does with a card. The memory budget it gives the KV pool, the
// tokens and sequences the pool holds, and whether the engine starts at all (engine-formulas.md).
#pragma once

#include "kvscope/base/error.hpp"
#include "kvscope/engines/plan_types.hpp"

namespace kvscope {

Result<PlanReport> plan(const PlanInput& input);

}  // namespace kvscope
