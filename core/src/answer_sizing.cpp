// The sizing commands answered: estimate, plan, sweep and the catalogues, everything the page's
// first module answers (the solver and the log reader answer in their own files).
#include <optional>

#include "answering.hpp"

namespace kvscope {

std::optional<Error> ineffective_override(const Request& r, const PlanReport* planned) {
  if (r.command != Command::kPlan && r.command != Command::kSweep) return std::nullopt;
  if (r.input.overrides.empty()) return std::nullopt;
  if (planned != nullptr) return override_without_effect(r.input, *planned);
  const Result<PlanReport> p = plan(r.input);
  return p.ok ? override_without_effect(r.input, p.value) : std::nullopt;  // else its own error
}

Answer answer_sizing(const Request& r) {
  switch (r.command) {
    case Command::kEstimate:
      return report_answer(estimate(r.input.model),
                           [](const EstimateReport& e) { return report_to_json(e); });
    case Command::kPlan: {
      const Result<PlanReport> p = plan(r.input);
      if (p.ok) {
        if (const std::optional<Error> unused = ineffective_override(r, &p.value))
          return failure_answer(*unused);
      }
      Answer a = report_answer(p, [](const PlanReport& q) { return plan_to_json(q); });
      a.target_missed = p.ok && r.input.require_concurrency != 0 && !p.value.target.met;
      return a;
    }
    case Command::kSweep:
      if (const std::optional<Error> unused = ineffective_override(r)) return failure_answer(*unused);
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
      break;
  }
  return failure_answer(make_error(kInternalError, "command",
                                   std::string(command_name(r.command)) + " is not a sizing command"),
                        70);
}

}  // namespace kvscope
