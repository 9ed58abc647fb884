// Reading numbers and words out of an engine's log line (log_reading.cpp reads each engine's
// lines with these): plain string search for a marker, the text after it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kvscope::log_text {

// The line without terminal colour codes (ESC [ ... letter) and carriage returns, in `out`.
std::string_view clean(std::string_view line, std::string& out);

// The number printed after `marker` (spaces, then digits with commas and one point), or false.
bool number_after(std::string_view line, std::string_view marker, std::string& text,
                  double& value, size_t from = 0);

// A word after `marker` (up to a space, comma, quote or bracket).
std::string word_after(std::string_view line, std::string_view marker);

// A pasted launch command's model and flags after `marker` ("vllm serve MODEL --tp 8 ..."):
// "--tensor-parallel-size 8" gives ("tensor_parallel_size", "8"), a bare flag "True".
std::vector<std::pair<std::string, std::string>> command_flags(std::string_view line,
                                                               std::string_view marker);

// key=value (or 'key': value) pairs of a Python repr after `marker`, split at depth-0 commas.
std::vector<std::pair<std::string, std::string>> pairs_after(std::string_view line,
                                                            std::string_view marker);

// kvscope's own annotation of a committed log (tests/data/logs: "# source: ...", "# explain: ..."):
// not the engine's output, so never read as a figure.
bool annotation(std::string_view line);

}  // namespace kvscope::log_text
