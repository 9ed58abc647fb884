// Embind face of the page's first module (kvscope_module): the sizing commands, each taking a
// kvscope.request/1 object as JSON text and returning {status, json, message} from the core's
// answer_sizing. No logic here. The full module binds every command (full_bindings.cpp).
#include "bindings.hpp"

EMSCRIPTEN_BINDINGS(kvscope) { kvscope_wasm::bind_sizing_commands<kvscope::answer_sizing>(); }
