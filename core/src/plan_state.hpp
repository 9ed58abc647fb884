// What plan() works out besides its report, for the sweeps that reuse it.
#pragma once

#include <cstddef>
#include <vector>

#include "kvscope/plan.hpp"
#include "kvscope/roofline.hpp"

namespace kvscope {

struct PlanState {
  PlanReport report;
  std::vector<GpuLoad> loads;  // one GPU of each pipeline stage
  size_t tightest_rank = 0;    // the stage whose pool limits the replica
};

Result<PlanState> plan_state(const PlanInput& input);

}  // namespace kvscope
