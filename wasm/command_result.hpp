// What every binding of a command returns to JS: {status, json, message} from the core's Answer
// (bindings.cpp registers the type once per module; full_bindings.cpp adds commands to it).
#pragma once

#include <string>

#include "kvscope/request.hpp"

namespace kvscope_wasm {

struct CommandResult {
  int status = 0;       // 0 ok, 2 bad input, 70 internal failure
  std::string json;     // the report (or catalogue), or its error form
  std::string message;  // the one-line error, empty on success
};

inline CommandResult to_result(const kvscope::Answer& a) {
  return {a.status, a.json, a.error.message};
}

// Command C's request (JSON text) answered by the answerer of its group: a module links the
// groups it binds and no others.
template <kvscope::Command C, kvscope::Answerer A>
CommandResult run(const std::string& request_json) {
  return to_result(kvscope::answer_json(C, request_json, A));
}

}  // namespace kvscope_wasm
