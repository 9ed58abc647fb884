// Embind face of the core: one function per command, each taking a kvscope.request/1 object as
// JSON text and returning {status, json, message} from the core's answer(). No logic here.
#include <emscripten/bind.h>

#include <string>

#include "kvscope/command_line.hpp"
#include "kvscope/report_json.hpp"
#include "kvscope/request.hpp"

namespace {

struct CommandResult {
  int status = 0;       // 0 ok, 2 bad input, 70 internal failure
  std::string json;     // the report (or catalogue), or its error form
  std::string message;  // the one-line error, empty on success
};

CommandResult to_result(const kvscope::Answer& a) { return {a.status, a.json, a.error.message}; }

template <kvscope::Command C>
CommandResult run(const std::string& request_json) {
  return to_result(kvscope::answer_json(C, request_json));
}

// The `kvscope` arguments that reproduce a request (the page's command line), as a JSON array.
CommandResult command_line(const std::string& command, const std::string& request_json) {
  return to_result(kvscope::command_line_answer(command, request_json));
}

}  // namespace

EMSCRIPTEN_BINDINGS(kvscope) {
  using kvscope::Command;
  emscripten::value_object<CommandResult>("CommandResult")
      .field("status", &CommandResult::status)
      .field("json", &CommandResult::json)
      .field("message", &CommandResult::message);
  emscripten::function("estimate", &run<Command::kEstimate>);
  emscripten::function("plan", &run<Command::kPlan>);
  emscripten::function("sweep", &run<Command::kSweep>);
  emscripten::function("models", &run<Command::kModels>);
  emscripten::function("gpus", &run<Command::kGpus>);
  emscripten::function("dtypes", &run<Command::kDtypes>);
  emscripten::function("engines", &run<Command::kEngines>);
  emscripten::function("solve", &run<Command::kSolve>);
  emscripten::function("explain", &run<Command::kExplain>);
  emscripten::function("commandLine", &command_line);
  emscripten::constant("version", std::string(kvscope::kVersion));
}
