// What both modules' bindings share: each command returns {status, json, message} to JS from the
// core's Answer, and the sizing commands are bound alike in both, each module with its answerer
// (bindings.cpp: the first module's; full_bindings.cpp: the full module's, which adds commands).
#pragma once

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "kvscope/request/command_line.hpp"
#include "kvscope/request/report_json.hpp"
#include "kvscope/request/request.hpp"

namespace kvscope_wasm {

struct CommandResult {
  int status = 0;       // 0 ok, 2 bad input, 70 internal failure
  emscripten::val json = emscripten::val::undefined();  // the report or its error form, as a JS string
  std::string message;  // the one-line error, empty on success
};

// UTF-8 bytes as a JS string by one TextDecoder pass over a view of the module's memory: Embind's
// std::string crosses by two byte-at-a-time JS loops (its NUL scan, then UTF8ToString's), 15% of
// a 1,000-point sweep's time (about 107 kB of JSON) in a node profile.
inline emscripten::val js_string(const std::string& utf8) {
  static const emscripten::val decoder = emscripten::val::global("TextDecoder").new_();
  return decoder.call<emscripten::val>(
      "decode", emscripten::val(emscripten::typed_memory_view(utf8.size(), utf8.data())));
}

inline CommandResult to_result(const kvscope::Answer& a) {
  return {a.status, js_string(a.json), a.error.message};
}

// Command C's request (JSON text) answered by the answerer of its group: a module links the
// groups it binds and no others.
template <kvscope::Command C, kvscope::Answerer A>
CommandResult run(const std::string& request_json) {
  return to_result(kvscope::answer_json(C, request_json, A));
}

// The `kvscope` arguments that reproduce a request (the page's command line), as a JSON array.
inline CommandResult command_line(const std::string& command, const std::string& request_json) {
  return to_result(kvscope::command_line_answer(command, request_json));
}

// The result type, the sizing commands answered by `Sizing`, the command line and the version.
template <kvscope::Answerer Sizing>
void bind_sizing_commands() {
  using kvscope::Command;
  emscripten::value_object<CommandResult>("CommandResult")
      .field("status", &CommandResult::status)
      .field("json", &CommandResult::json)
      .field("message", &CommandResult::message);
  emscripten::function("estimate", &run<Command::kEstimate, Sizing>);
  emscripten::function("plan", &run<Command::kPlan, Sizing>);
  emscripten::function("sweep", &run<Command::kSweep, Sizing>);
  emscripten::function("models", &run<Command::kModels, Sizing>);
  emscripten::function("gpus", &run<Command::kGpus, Sizing>);
  emscripten::function("dtypes", &run<Command::kDtypes, Sizing>);
  emscripten::function("engines", &run<Command::kEngines, Sizing>);
  emscripten::function("commandLine", &command_line);
  emscripten::constant("version", std::string(kvscope::kVersion));
}

}  // namespace kvscope_wasm
