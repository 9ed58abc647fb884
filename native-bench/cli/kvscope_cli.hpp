// The `kvscope` command line, as a function over its arguments so tests can run it in-process:
// argv into a request (the core's command_line.hpp), the core's answer out as JSON or text.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "kvscope/request/command_line.hpp"

namespace kvscope::cli {

using kvscope::FileReader;

// Reads a file from disk (what the kvscope binary uses); refuses directories.
bool read_file_from_disk(const std::string& path, std::string& content, std::string& error);

// Runs `kvscope <args...>` (args exclude the program name). Returns the exit status:
// 0 success, 2 bad input (one line on `err` naming the field), 70 internal failure.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
        const FileReader& read_file);

}  // namespace kvscope::cli
