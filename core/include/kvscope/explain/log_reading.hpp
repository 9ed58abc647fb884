// A serving engine's start-up log, read line by line (log_reading.cpp): which engine and version
// wrote it, the model it names, the arguments it echoes and the figures it prints, each with its
// line. Pure and bounded: one pass over at most 16 MiB, lines longer than 64 KiB cut, the first 200
// figures kept, terminal colour codes dropped; anything it does not know is skipped.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kvscope/base/error.hpp"

namespace kvscope {

struct PrintedFigure {
  std::string key;   // "available_kv_cache_gib", "gpu_kv_cache_tokens", "kv_buffer_mib", ...
  std::string text;  // as printed ("54.86", "449,424")
  double value = 0;
  std::string detail;  // what the line adds: the device ("CUDA0"), the context of a concurrency
  size_t line = 0;     // 1-based
};

struct LogReading {
  std::string engine;   // "vllm", "llama.cpp", "sglang", "tensorrt-llm"; empty: none recognised
  std::vector<std::string> other_engines;  // engines whose lines also appear (a mixed paste)
  std::string version;  // "0.10.1" where the log says
  std::string model;    // as the log names it: a Hugging Face id, a path, a GGUF general.name
  std::vector<std::pair<std::string, std::string>> arguments;  // as echoed, first value kept
  std::vector<PrintedFigure> figures;
  size_t lines = 0;
  size_t lines_cut = 0;  // longer than the line limit
  size_t figures_dropped = 0;  // past the first 200 figures

  const std::string* argument(std::string_view key) const;
  const PrintedFigure* figure(std::string_view key) const;  // the first printed
};

// Reads a log's text; fails only on input that is not a text log at all (binary, over 16 MiB).
Result<LogReading> read_log(std::string_view text);

}  // namespace kvscope
