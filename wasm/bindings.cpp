// Embind translation of the kvscope command language: each function runs the same command as the
// CLI (same flags, same kvscope.report/1 JSON) and returns {status, json, message}. No logic here.
#include <emscripten/bind.h>

#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "kvscope/error.hpp"
#include "kvscope/report_json.hpp"
#include "kvscope_cli.hpp"

namespace {

struct CommandResult {
  int status = 0;       // the CLI's exit status: 0 ok, 2 bad input, 70 internal failure
  std::string json;     // kvscope.report/1 (or the catalogue schema), or its error form
  std::string message;  // the CLI's one-line error, empty on success
};

// File flags (--config NAME, --weights-index NAME, ...) read `files[NAME]`: the page holds the
// pasted, dropped or fetched files in memory.
CommandResult run_command(const std::string& command, const emscripten::val& args,
                          const emscripten::val& files) {
  CommandResult result;
  try {
    std::vector<std::string> argv{command};
    for (const std::string& a : emscripten::vecFromJSArray<std::string>(args)) argv.push_back(a);
    argv.push_back("--json");
    const kvscope::cli::FileReader in_memory = [&](const std::string& name, std::string& content,
                                                   std::string& error) {
      const emscripten::val file = files[name];
      if (!file.isString()) {
        error = "no such file";
        return false;
      }
      content = file.as<std::string>();
      return true;
    };
    std::ostringstream out, err;
    result.status = kvscope::cli::run(argv, out, err, in_memory);
    result.json = out.str();
    result.message = err.str();
  } catch (const std::exception& e) {
    result = {70,
              kvscope::error_to_json(kvscope::make_error(kvscope::kInternalError, "", e.what())),
              e.what()};
  } catch (...) {
    result = {70,
              kvscope::error_to_json(
                  kvscope::make_error(kvscope::kInternalError, "", "unknown internal failure")),
              "unknown internal failure"};
  }
  return result;
}

}  // namespace

EMSCRIPTEN_BINDINGS(kvscope) {
  emscripten::value_object<CommandResult>("CommandResult")
      .field("status", &CommandResult::status)
      .field("json", &CommandResult::json)
      .field("message", &CommandResult::message);
  emscripten::function("runCommand", &run_command);
  emscripten::constant("version", std::string(kvscope::kVersion));
}
