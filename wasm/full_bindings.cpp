// The commands the full module (kvscope_full_module) adds to bindings.cpp's: the solver and the
// start-up log reader, loaded by the page only when it solves or reads a log.
#include <emscripten/bind.h>

#include "command_result.hpp"

EMSCRIPTEN_BINDINGS(kvscope_full) {
  using kvscope::Command;
  using kvscope_wasm::run;
  emscripten::function("solve", &run<Command::kSolve, kvscope::answer_solve>);
  emscripten::function("explain", &run<Command::kExplain, kvscope::answer_explain>);
}
