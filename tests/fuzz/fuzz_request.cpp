// libFuzzer target: arbitrary kvscope.request/1 text for every command, as the page and the
// WebAssembly module send it (the first byte picks the command). Every input must answer status 0
// with a report, or 2 with one line naming a key: never an internal failure, a crash or a hang;
// and the flags a valid request writes read back into a valid request.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "kvscope/request/command_line.hpp"
#include "kvscope/request/request.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const kvscope::Command kCommands[] = {kvscope::Command::kEstimate, kvscope::Command::kPlan,
                                               kvscope::Command::kSweep, kvscope::Command::kSolve};
  const kvscope::Command command = kCommands[data[0] % 4];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const kvscope::Answer a = kvscope::answer_json(command, text);
  if (a.status != 0 && a.status != 2) std::abort();
  if (a.status == 2 && (a.error.message.empty() || a.error.message.find('\n') != std::string::npos))
    std::abort();
  if (a.json.find("\"schema\"") == std::string::npos) std::abort();
  const kvscope::Result<kvscope::Request> request = kvscope::request_from_json(text, command);
  if (!request.ok) return 0;
  // The flags of a request read back into it (files by name: the reader hands back their text).
  const kvscope::Request& r = request.value;
  const kvscope::FileReader files = [&](const std::string& name, std::string& content,
                                        std::string& error) {
    if (name == r.input.model.config_name && !r.input.model.config_json.empty()) {
      content = r.input.model.config_json;
    } else if (name == "weights_index.json") {
      content = r.input.weights_index_json;
    } else if (name == "quantization_config.json") {
      content = r.input.quantization_config_json;
    } else {
      error = "no such file";
      return false;
    }
    return true;
  };
  const kvscope::Result<kvscope::CommandLine> line =
      kvscope::parse_command_line(kvscope::command_line_arguments(r), files);
  if (line.ok &&
      !kvscope::request_from_json(kvscope::request_to_json(line.value.request), command).ok)
    std::abort();
  return 0;
}
