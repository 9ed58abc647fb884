// Embind face of the full module (kvscope_full_module): every command answered by the whole core's
// answer(), the sizing commands as in the first module (with a what-if's check that it changes
// something, which needs the config reader) plus the solver and the start-up log reader, loaded by
// the page when it first reads a config, solves or reads a log, and the launch-command check.
#include "bindings.hpp"

EMSCRIPTEN_BINDINGS(kvscope) {
  using kvscope::Command;
  using kvscope_wasm::run;
  kvscope_wasm::bind_sizing_commands<kvscope::answer>();
  emscripten::function("solve", &run<Command::kSolve, kvscope::answer>);
  emscripten::function("explain", &run<Command::kExplain, kvscope::answer>);
  emscripten::function("check", &run<Command::kCheck, kvscope::answer>);
}
