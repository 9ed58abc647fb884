// Every command answered, for the front ends that link the whole core (the CLI, the full module):
// each command group's answerer lives with its code, so that the page's first module can link the
// sizing commands alone.
#include "kvscope/request.hpp"

namespace kvscope {

Answer answer(const Request& r) {
  switch (r.command) {
    case Command::kSolve:
      return answer_solve(r);
    case Command::kExplain:
      return answer_explain(r);
    default:
      return answer_sizing(r);
  }
}

Answer answer_json(Command command, std::string_view request_json) {
  return answer_json(command, request_json, answer);
}

}  // namespace kvscope
