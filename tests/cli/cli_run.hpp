// The kvscope CLI run in-process for its tests: its arguments in, its status, stdout and stderr
// out, with the files it may read served from memory (no disk access).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kvscope::cli {

struct CliRun {
  int status = -1;
  std::string out;
  std::string err;
};

// `kvscope <args...>`; the files it can open: good.json, broken.json, empty.json, zero_heads.json,
// vllm-20k.log, binary.log (cli_run.cpp).
CliRun kvscope(std::vector<std::string> args);

// The run's stdout as JSON (a test failure when it is not).
nlohmann::json json_of(const CliRun& r);

}  // namespace kvscope::cli
