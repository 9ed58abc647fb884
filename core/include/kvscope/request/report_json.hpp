// The versioned JSON every front door prints (kvscope.report/1), serialized in one place.
#pragma once

#include <string>

#include "kvscope/model/catalog.hpp"
#include "kvscope/base/error.hpp"
#include "kvscope/kv/estimate.hpp"
#include "kvscope/explain/explain.hpp"
#include "kvscope/plan/plan.hpp"
#include "kvscope/solve/solve.hpp"
#include "kvscope/plan/sweeps.hpp"

namespace kvscope {

inline constexpr const char* kReportSchema = "kvscope.report/1";
inline constexpr const char* kVersion = "0.1.0";

std::string report_to_json(const EstimateReport& report);
std::string plan_to_json(const PlanReport& report);
// {"schema": "kvscope.sweeps/1", series as [[x, y], ...], memory breakdown in bytes}
std::string sweeps_to_json(const Sweeps& sweeps);  // on one line
// {"schema": "kvscope.solve/1", "target", "options" best first, "gpus" with cheaper_failures}
std::string solve_to_json(const SolveReport& report);
// {"schema": "kvscope.explain/1", "engine", "model", "arguments", "figures", "plan_request", ...}
std::string explain_to_json(const ExplainReport& report);
// {"schema": "kvscope.check/1", "launch" with its flags, "starts", "findings", "fixes", "plan"}
struct CheckReport;
std::string check_to_json(const CheckReport& report);
// {"schema": "kvscope.report/1", "error": {"code", "message", "field"}}
std::string error_to_json(const Error& error);
std::string model_catalog_to_json();
std::string gpu_catalog_to_json();
// {"schema": "kvscope.engines/1", "engines": [{id, label, options_key, workload, knobs, levers}]}
std::string engine_catalog_to_json();
std::string
dtype_catalog_to_json();  // {"schema": "kvscope.dtypes/1", "kv": [...], "weight": [...]}

}  // namespace kvscope
