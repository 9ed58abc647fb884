// The readable reports of `kvscope estimate`, `plan`, `sweep` and `solve` (the JSON comes from
// the core).
#pragma once

#include <ostream>
#include <string>

#include "kvscope/explain/explain.hpp"
#include "kvscope/kv/estimate.hpp"
#include "kvscope/plan/plan.hpp"
#include "kvscope/plan/sweeps.hpp"
#include "kvscope/request/check.hpp"
#include "kvscope/solve/solve.hpp"

namespace kvscope::cli {

void print_report(const EstimateReport& r, std::ostream& out);
void print_plan(const PlanReport& p, std::ostream& out);
void print_sweeps(const Sweeps& s, std::ostream& out);
void print_solve(const SolveReport& r, std::ostream& out);      // text_solve.cpp
void print_explain(const ExplainReport& r, std::ostream& out);  // text_explain.cpp
void print_check(const CheckReport& r, std::ostream& out);      // text_check.cpp
// `kvscope models`, `gpus` or `dtypes` as a table.
void print_catalogue(const std::string& which, std::ostream& out);

}  // namespace kvscope::cli
