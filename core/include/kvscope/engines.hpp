// The serving engines kvscope models, as the page and the CLI list them: id, label, the request
// keys of their knobs, the what-if levers offered for them and what their capacity counts. The
// rest of each engine's row (its budget arithmetic, context policy, launch command) is internal
// to plan() (core/src/engine_table.hpp).
#pragma once

#include <string_view>
#include <vector>

namespace kvscope {

// A what-if for the engine: set `key` to `value`, or add `step` to its value (`from` when the
// knob is at its "engine default" 0).
struct EngineLever {
  std::string_view key;
  std::string_view label;
  std::string_view short_label;  // for a chart's axis
  double value = 0;
  double step = 0;
  double from = 0;
};

struct EngineInfo {
  std::string_view id;                  // the request's "engine"
  std::string_view label;               // "vLLM"
  std::string_view options_key;         // the request key of its options ("vllm"); empty for none
  std::string_view workload;            // what its capacity counts, one sentence
  std::vector<std::string_view> knobs;  // request keys the page shows for it
  std::vector<EngineLever> levers;
  bool launches = false;  // plan reports a launch command for it
  // What `solve` may choose for it: KV dtypes ("auto" = the model's), the formats it quantizes
  // a 16-bit checkpoint to as it loads, and the quantization_config methods of the checkpoints
  // it serves ("*" = any Hugging Face checkpoint; none = its own files, as llama.cpp's GGUF).
  std::vector<std::string_view> kv_dtype_choices;
  std::vector<std::string_view> load_time_weight_dtypes;
  std::vector<std::string_view> checkpoint_methods;
  bool one_server = false;  // a replica is one server over its devices (llama.cpp -sm layer), not TP x PP
};

const std::vector<EngineInfo>& engine_catalog();

}  // namespace kvscope
