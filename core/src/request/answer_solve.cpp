// The solve command answered (in the solver's library, core/CMakeLists.txt): a target no option
// meets is an answer, marked target_missed (the CLI's exit status 1).
#include "request/answering.hpp"

namespace kvscope {

Answer answer_solve(const Request& r) {
  const Result<SolveReport> s = solve(r.input, r.solve);
  Answer a = report_answer(s, [](const SolveReport& q) { return solve_to_json(q); });
  a.target_missed = s.ok && !s.value.met;
  return a;
}

}  // namespace kvscope
