// The plan types' constructors, out of line: each Result<...>::failure holding one calls one copy.
#include "kvscope/engines/plan_types.hpp"

namespace kvscope {

PlanInput::PlanInput() = default;
PlanReport::PlanReport() = default;

}  // namespace kvscope
