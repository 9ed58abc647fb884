// The one table of request keys: each key's JSON type, the commands that read it, where it lives
// in Request, and its command-line flag. The JSON codec (request.cpp) and the argv layer
// (command_line.cpp) both read it, so a key, its check and its flag are written once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "kvscope/request/request.hpp"

namespace kvscope::request_fields {

enum class Kind {
  kText,        // a string
  kCount,       // a whole number; on the command line with a k/M suffix (128k = 131072)
  kBytes,       // a whole number of bytes; on the command line 24GB, 80GiB
  kRate,        // whole bytes per second; on the command line 3.35TB/s
  kNumber,      // a decimal number
  kSwitch,      // true / false; a bare flag on the command line
  kFile,        // {"name", "text"}: a file's content; on the command line its path
  kNumberList,  // [3, 1]; on the command line 3,1
  kOverrides,   // {"FIELD": VALUE}; on the command line repeated --set FIELD=VALUE
  kJsonText,    // a JSON object (or its text)
  kTextList,    // ["a", "b"]; on the command line a,b or the flag repeated
  kNumberMap,   // {"ID": 2.5}; on the command line repeated --flag ID=2.5
};

// Which commands read a key.
inline constexpr unsigned kEstimate = 1u << static_cast<int>(Command::kEstimate);
inline constexpr unsigned kPlan = 1u << static_cast<int>(Command::kPlan);
inline constexpr unsigned kSweep = 1u << static_cast<int>(Command::kSweep);
inline constexpr unsigned kSolve = 1u << static_cast<int>(Command::kSolve);
inline constexpr unsigned kExplain = 1u << static_cast<int>(Command::kExplain);
inline constexpr unsigned kCheck = 1u << static_cast<int>(Command::kCheck);
inline constexpr unsigned kPlanning = kPlan | kSweep;
inline constexpr unsigned kModelCommands = kEstimate | kPlanning;
// What solve reads of a plan's input: the model, the engine and its knobs, a custom card.
inline constexpr unsigned kPlanningSolve = kPlanning | kSolve;
inline constexpr unsigned kModelCommandsSolve = kModelCommands | kSolve;

inline bool reads(unsigned commands, Command c) {
  return (commands & (1u << static_cast<int>(c))) != 0;
}

// A file held in a request: its name (shown in messages) and content.
struct FileRef {
  std::string* name;  // null when the request keeps no name
  std::string* text;
};

using Target = std::variant<std::string& (*)(Request&), uint64_t& (*)(Request&),
                            uint32_t& (*)(Request&), double& (*)(Request&), bool& (*)(Request&),
                            std::vector<double>& (*)(Request&), FileRef (*)(Request&),
                            std::vector<std::pair<std::string, std::string>>& (*)(Request&),
                            std::vector<std::string>& (*)(Request&),
                            std::vector<std::pair<std::string, double>>& (*)(Request&)>;

struct Field {
  std::string_view key;   // "context_tokens", "vllm.gpu_memory_utilization"
  std::string_view flag;  // "--context"; empty for keys with no flag
  Kind kind;
  unsigned commands;
  Target target;
  std::string_view metavar;  // "N", "SIZE" in the usage
  std::string_view help;     // one line
  uint64_t min = 0;          // counts: least value (1 where 0 would mean "the default")
  uint64_t max = UINT64_MAX;
  double scale = 1;       // JSON value x scale = the core's unit (TFLOP/s -> FLOP/s)
  bool flag_sets = true;  // switches: the flag sets true (false: --no-kv-unified sets false)
};

const std::vector<Field>& fields();

// The field `key` names for `command`, or null.
const Field* find_field(std::string_view key, Command command);
// The field `key` names for any command (to say "not read by plan" rather than "unknown").
const Field* find_any_field(std::string_view key);

}  // namespace kvscope::request_fields
