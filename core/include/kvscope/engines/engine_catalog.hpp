// The serving engines kvscope models, as the page and the CLI list them: id, label, the request
// keys of their knobs, the what-if levers offered for them and what their capacity counts. The
// rest of each engine's row (its budget arithmetic, context policy, launch command) is internal
// to plan() (core/src/engines/engine_table.hpp).
#pragma once

#include <string_view>
#include <vector>

#include "kvscope/base/error.hpp"

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

// A release line of an engine whose arithmetic differs from the others': the request's
// `engine_version` names it by id or by a release number inside `releases`.
struct EngineVersion {
  std::string_view id;        // "0.16"
  std::string_view label;     // "0.16 and later (current)"
  std::string_view releases;  // the releases it stands for, as ranges: "0.10-0.13, 0.16-"
  std::string_view differs;   // what it does that the next newer line does not, one sentence
};

struct EngineInfo {
  std::string_view id;                  // the request's "engine"
  std::string_view label;               // "vLLM"
  std::string_view options_key;         // the request key of its options ("vllm"); empty for none
  std::string_view workload;            // what its capacity counts, one sentence
  std::vector<std::string_view> knobs;  // request keys the page shows for it
  std::vector<std::string_view> calibration;  // request keys its start-up log gives (explain)
  std::vector<EngineLever> levers;
  bool launches = false;  // plan reports a launch command for it
  // What `solve` may choose for it: KV dtypes ("auto" = the model's), the formats it quantizes
  // a 16-bit checkpoint to as it loads, and the quantization_config methods of the checkpoints
  // it serves ("*" = any Hugging Face checkpoint; none = its own files, as llama.cpp's GGUF).
  std::vector<std::string_view> kv_dtype_choices;
  std::vector<std::string_view> load_time_weight_dtypes;
  std::vector<std::string_view> checkpoint_methods;
  bool one_server = false;  // a replica is one server over its devices (llama.cpp -sm layer), not TP x PP
  std::vector<EngineVersion> versions;  // newest first; the first is the default; empty: one
};

const std::vector<EngineInfo>& engine_catalog();

// The version line of `engine` that `given` names (an id, or a release such as "0.15.2" or
// "b6123"); the default (newest) when `given` is empty. Errors name the field engine_version.
Result<const EngineVersion*> resolve_engine_version(const EngineInfo& engine, std::string_view given);

}  // namespace kvscope
