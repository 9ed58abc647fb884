// libFuzzer target: arbitrary command lines for `kvscope estimate|plan|sweep` (one argument per
// line of the input; after a line "--", the rest is the config file's content). Every input must
// end in exit 0 with JSON, or exit 2 with one line naming the field: never a crash or a hang.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "kvscope_cli.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args;
  std::string config;
  size_t start = 0;
  while (start <= input.size()) {
    const size_t end = input.find('\n', start);
    const std::string line =
        input.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (line == "--") {
      config = end == std::string::npos ? "" : input.substr(end + 1);
      break;
    }
    args.push_back(line);
    if (end == std::string::npos || args.size() > 64) break;
    start = end + 1;
  }
  if (args.empty()) return 0;
  static const char* const kCommands[] = {"estimate", "plan", "sweep"};
  args[0] = kCommands[static_cast<unsigned char>(args[0].empty() ? 0 : args[0][0]) % 3];
  args.push_back("--json");
  std::ostringstream out, err;
  const int status = kvscope::cli::run(args, out, err,
                                       [&](const std::string&, std::string& content, std::string&) {
                                         content = config;
                                         return true;
                                       });
  if (status != 0 && status != 2) std::abort();
  if (status == 2 && (err.str().empty() || err.str().find('\n') != err.str().size() - 1))
    std::abort();                                        // one line
  const bool usage = out.str().rfind("usage:", 0) == 0;  // --help anywhere prints the usage
  if (status == 0 && !usage && out.str().find("\"schema\"") == std::string::npos) std::abort();
  return 0;
}
