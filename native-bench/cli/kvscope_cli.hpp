// The `kvscope` command line, as a function over its arguments so tests can run it in-process.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace kvscope::cli {

// Reads a file; returns false and sets `error` when it cannot.
using FileReader =
    std::function<bool(const std::string& path, std::string& content, std::string& error)>;

// Reads a file from disk (what the kvscope binary uses); refuses directories.
bool read_file_from_disk(const std::string& path, std::string& content, std::string& error);

// Runs `kvscope <args...>` (args exclude the program name). Returns the exit status:
// 0 success, 2 bad input (one line on `err` naming the field).
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
        const FileReader& read_file);

}  // namespace kvscope::cli
