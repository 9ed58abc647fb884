// Embind face of the core's sizing commands, the page's first module (kvscope_module): one
// function per command, each taking a kvscope.request/1 object as JSON text and returning
// {status, json, message} from the core's answer. No logic here. The full module adds the solver
// and the log reader (full_bindings.cpp).
#include <emscripten/bind.h>

#include <string>

#include "command_result.hpp"
#include "kvscope/command_line.hpp"
#include "kvscope/report_json.hpp"

namespace {

using kvscope_wasm::CommandResult;

// The `kvscope` arguments that reproduce a request (the page's command line), as a JSON array.
CommandResult command_line(const std::string& command, const std::string& request_json) {
  return kvscope_wasm::to_result(kvscope::command_line_answer(command, request_json));
}

}  // namespace

EMSCRIPTEN_BINDINGS(kvscope) {
  using kvscope::Command;
  using kvscope_wasm::run;
  constexpr kvscope::Answerer sizing = kvscope::answer_sizing;
  emscripten::value_object<CommandResult>("CommandResult")
      .field("status", &CommandResult::status)
      .field("json", &CommandResult::json)
      .field("message", &CommandResult::message);
  emscripten::function("estimate", &run<Command::kEstimate, sizing>);
  emscripten::function("plan", &run<Command::kPlan, sizing>);
  emscripten::function("sweep", &run<Command::kSweep, sizing>);
  emscripten::function("models", &run<Command::kModels, sizing>);
  emscripten::function("gpus", &run<Command::kGpus, sizing>);
  emscripten::function("dtypes", &run<Command::kDtypes, sizing>);
  emscripten::function("engines", &run<Command::kEngines, sizing>);
  emscripten::function("commandLine", &command_line);
  emscripten::constant("version", std::string(kvscope::kVersion));
}
