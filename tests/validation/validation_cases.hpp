// The rows of VALIDATION.md's first table (validation_cases.cpp): a figure a serving engine
// printed in a public log, and the kvscope command that gives the same figure.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace validation {

using nlohmann::json;

struct Case {
  const char* engine;
  const char* source;                               // where the engine's figure was printed
  const char* what;                                 // the log line or figure
  std::vector<std::string> args;                    // kvscope arguments (run with --json)
  std::string printed;                              // the engine's figure as it printed it
  std::function<std::string(const json&)> kvscope;  // kvscope's figure, formatted the same way
  double tolerance = 0;                             // relative; 0 = the text must be equal
  const char* differs = nullptr;  // why kvscope's figure is not the engine's (the row is kept)
};

// Every row, with its source.
std::vector<Case> cases();

// A command line written as one string (no argument in it has a space; paths go in apart).
std::vector<std::string> words(const std::string& line);

}  // namespace validation
