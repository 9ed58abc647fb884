// `kvscope check`: a launch command as pasted (`vllm serve`, `python -m
// vllm.entrypoints.openai.api_server`, `python -m sglang.launch_server`, `trtllm-serve`,
// `llama-server`, Ollama's environment with `ollama run` or a Modelfile, each also inside
// `docker run`) read into the plan request it stands for, planned, and reported: does it start
// and why not, the changes that make it start (as the engine's own flags), the flags kvscope does
// not model and the values the engine would refuse. Pure: text in, a report out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kvscope/base/error.hpp"
#include "kvscope/plan/plan.hpp"

namespace kvscope {

// What kvscope makes of one flag (or environment variable, or Modelfile PARAMETER).
enum class FlagEffect {
  kModelled,        // read into the plan (`key`)
  kNoMemoryEffect,  // the engine's, changes nothing kvscope sizes (--port, --served-model-name)
  kNotModelled,     // changes memory in ways kvscope does not model (--cpu-offload-gb, LoRA)
  kUnknown,         // not a flag of this engine that kvscope knows
};

struct LaunchFlag {
  std::string flag;   // as written, without its value: "--max-model-len", "OLLAMA_NUM_PARALLEL"
  std::string value;  // as written; empty for a switch
  std::string key;    // the request key it sets ("max_model_len"), for kModelled
  FlagEffect effect = FlagEffect::kUnknown;
  std::string note;       // what kvscope did with it or why not, one line
  std::string plan_flag;  // the `kvscope plan` flag it became ("--max-model-len"), for kModelled
};

struct ParsedLaunch {
  std::string engine;          // vllm | sglang | tensorrt-llm | llama.cpp | ollama
  std::string program;         // "vllm serve", "python -m sglang.launch_server", "llama-server"
  std::string model;           // the model as the command names it
  std::string model_id;        // the catalogue model it stands for (as written when none)
  std::string engine_version;  // a container image's release tag ("vllm/vllm-openai:v0.11.0")
  std::vector<LaunchFlag> flags;
  // `kvscope plan` flags (no command word) that stand for the command: --engine, --model, ...
  std::vector<std::string> plan_arguments;
  std::vector<std::string> words;  // the command as shell words (for the fixed commands)
};

// Reads a launch command; an error (field "launch") when it names no engine kvscope knows.
Result<ParsedLaunch> read_launch_command(std::string_view text);

// The spellings of an engine's flag (Ollama: its variable and PARAMETER) for a request key, the
// one a fix writes first ("--tensor-parallel-size", "-tp"); empty when kvscope reads none.
std::vector<std::string> engine_flag_spellings(std::string_view engine, std::string_view key);

// One change that makes a refused command start, with the command as it would then read.
struct CheckFix {
  std::string change;          // in the engine's words: "--max-model-len 40960"
  std::string why;             // "the model's limit", "the largest that fits"
  std::string launch_command;  // the user's command with the change made
  bool has_capacity = false;   // false under llama.cpp and Ollama: they size buffers to order
  double sequences_that_fit = 0;  // of max_model_len, in the KV pool
  uint64_t max_model_len = 0;
};

struct CheckFinding {
  std::string severity;  // error | warning | note
  std::string flag;      // the flag it concerns, as written; empty for the whole command
  std::string message;   // one line
};

struct CheckReport {
  ParsedLaunch launch;
  std::vector<std::string> assumptions;     // what check chose where the command is silent
  std::vector<std::string> plan_arguments;  // the `kvscope plan` line that gives `plan`
  bool planned = false;  // false when a value is refused before planning (then no plan)
  bool starts = false;
  PlanInput plan_input;  // what plan_arguments read into (the JSON's plan_request)
  PlanReport plan;
  std::vector<CheckFinding> findings;  // the verdict first, then fixes, refusals, the unmodelled
  std::vector<CheckFix> fixes;
};

// The launch's plan under `base` (a `kvscope plan` argument list without its command word: the
// card, --config, --engine-version, what the caller gives), `base` winning over the launch where
// both set a flag. `read_file` serves base's files by name.
struct CheckInput {
  std::string launch_text;
  std::vector<std::string> base_arguments;
  bool card_given = false;               // base names a GPU or a memory size
  std::string config_name, config_text;  // a --config in base, served to the planner by name
};

Result<CheckReport> check_launch(const CheckInput& input);

// A check request (kvscope.request/1: launch, and the card, model or what-ifs to plan it with)
// checked: its other keys as `kvscope plan` flags under the launch's.
struct Request;
Result<CheckReport> check_request_launch(const Request& request);

std::string_view flag_effect_name(FlagEffect effect);

}  // namespace kvscope
