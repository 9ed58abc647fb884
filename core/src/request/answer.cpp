// Every command answered, for the front ends that link the whole core (the CLI, the full module):
// each command group's answerer lives with its code, so that the page's first module can link the
// sizing commands alone; a plan's or sweep's what-if that changes nothing is refused here, with the
// config reader that reads what-ifs.
#include "request/answering.hpp"

namespace kvscope {

Answer answer(const Request& r) {
  switch (r.command) {
    case Command::kSolve:
      return answer_solve(r);
    case Command::kExplain:
      return answer_explain(r);
    case Command::kCheck:
      return answer_check(r);
    default:
      if (const std::optional<Error> unused = ineffective_override(r)) return failure_answer(*unused);
      return answer_sizing(r);
  }
}

Answer answer_json(Command command, std::string_view request_json) {
  return answer_json(command, request_json, answer);
}

}  // namespace kvscope
