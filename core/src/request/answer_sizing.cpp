// The sizing commands answered: estimate, plan, sweep and the catalogues, everything the page's
// first module answers (the solver and the log reader answer in their own files; a what-if that
// changes nothing is refused by answer(), the first module reading no what-ifs).
#include "request/answering.hpp"

namespace kvscope {

Answer answer_sizing(const Request& r) {
  switch (r.command) {
    case Command::kEstimate:
      return report_answer(estimate(r.input.model),
                           [](const EstimateReport& e) { return report_to_json(e); });
    case Command::kPlan: {
      const Result<PlanReport> p = plan(r.input);
      Answer a = report_answer(p, [](const PlanReport& q) { return plan_to_json(q); });
      a.target_missed = p.ok && r.input.require_concurrency != 0 && !p.value.target.met;
      return a;
    }
    case Command::kSweep:
      return report_answer(sweep(r.input, r.sweep),
                           [](const Sweeps& s) { return sweeps_to_json(s); });
    case Command::kModels:
      return Answer{0, model_catalog_to_json(), {}};
    case Command::kGpus:
      return Answer{0, gpu_catalog_to_json(), {}};
    case Command::kDtypes:
      return Answer{0, dtype_catalog_to_json(), {}};
    case Command::kEngines:
      return Answer{0, engine_catalog_to_json(), {}};
    case Command::kSolve:
    case Command::kExplain:
    case Command::kCheck:
      break;
  }
  return failure_answer(make_error(kInternalError, "command",
                                   std::string(command_name(r.command)) + " is not a sizing command"),
                        70);
}

}  // namespace kvscope
