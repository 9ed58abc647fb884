// What every binding of a command returns to JS: {status, json, message} from the core's Answer
// (bindings.cpp registers the type once per module; full_bindings.cpp adds commands to it).
#pragma once

#include <emscripten/val.h>

#include <string>

#include "kvscope/request.hpp"

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

}  // namespace kvscope_wasm
