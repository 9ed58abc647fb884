// `kvscope explain`: a serving engine's start-up log read (which engine, model, arguments and
// figures it printed), each figure reproduced with kvscope's arithmetic and named exact, within
// the printed rounding, or different (with the reason), and the plan the log describes, calibrated
// with what the engine measured (its KV budget, weights, activation peak), so what-ifs and the
// solver can start from the user's machine.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kvscope/base/error.hpp"
#include "kvscope/plan/plan.hpp"

namespace kvscope {

struct ExplainedFigure {
  size_t line = 0;      // 1-based, in the log
  std::string name;     // "GPU KV cache size"
  std::string printed;  // as the engine printed it
  std::string kvscope;  // kvscope's figure at the printed precision; empty when it has none
  std::string unit;     // "tokens", "GiB", "MiB", "x", "blocks"
  std::string match;    // "exact", "rounding" (within the rounding of an input the log printed),
                        // "differs"
  std::string reason;   // why, when it differs; how, when it matches through rounding
  std::string derivation;  // the arithmetic, one line: "1,952 blocks x 16 tokens = 31,232 tokens"
};

// A figure of the log kvscope takes as given (a budget the engine measured) rather than checks.
struct TakenFigure {
  size_t line = 0;
  std::string name;
  std::string printed;
  std::string unit;
};

struct ExplainReport {
  std::string engine;   // "vllm", "llama.cpp", "sglang", "tensorrt-llm"
  std::string engine_label;
  std::string engine_version;  // as the log says; empty when it does not
  std::string modelled_version;        // the engine's version line kvscope follows for it
  std::string modelled_version_label;  // "V0 engine (VLLM_USE_V1=0, 0.8-0.10)"
  std::string model_printed;   // how the log names the model
  std::string model_id;        // the catalogue entry (or config) kvscope used
  std::string model_name;
  std::vector<std::pair<std::string, std::string>> arguments;  // what kvscope took from the log
  std::vector<ExplainedFigure> figures;
  std::vector<TakenFigure> inputs;  // measured figures the checks start from
  bool calibrated = false;  // `plan` is the log's deployment with its measured budget
  PlanInput plan;           // the deployment as kvscope plans it (calibrated where it could be)
  std::vector<std::string> calibration;  // what was taken from the log, one line each
  std::vector<std::string> notes;
  size_t lines = 0;
};

// `base` gives what a log may not say: the model (model_id or config_json), the card (gpu_id or
// gpu_memory_bytes), and an engine to read it as. Errors name "log" or what is missing ("model").
Result<ExplainReport> explain(std::string_view log, const PlanInput& base);

}  // namespace kvscope
