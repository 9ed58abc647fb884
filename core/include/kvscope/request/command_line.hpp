// The command-line syntax of a request: `kvscope <command> --flag value ...` read into a Request
// through the request field table (one flag per key, usage generated from it), and written back
// as the flags that reproduce a request. Pure: files are read through the caller's reader.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kvscope/base/error.hpp"
#include "kvscope/request/request.hpp"

namespace kvscope {

// Reads a file; returns false and sets `error` when it cannot.
using FileReader =
    std::function<bool(const std::string& path, std::string& content, std::string& error)>;

struct CommandLine {
  Request request;
  bool json = false;
  bool help = false;
  bool version = false;
  bool request_schema = false;     // <command> --request-schema: print request_schema(command)
  bool from_request_file = false;  // --request FILE: errors name its keys, not flags
};

// `args` without the program name. Errors name the flag ("--context").
Result<CommandLine> parse_command_line(const std::vector<std::string>& args,
                                       const FileReader& read_file);

// `kvscope --help`, generated from the field table.
std::string command_line_usage();

// The JSON Schema (2020-12) of a kvscope.request/1 for `command`: each key it reads (dotted keys
// as nested objects), its type, the bounds the codec checks, and its usage line and flag.
std::string request_schema(Command command);

// The arguments (command first) that give `request`; a file is named by its name.
std::vector<std::string> command_line_arguments(const Request& request);

// command_line_arguments of a kvscope.request/1 for `command`, as a JSON array of strings (the
// WebAssembly module's commandLine); an unknown command or a bad request is the error answer.
Answer command_line_answer(std::string_view command, std::string_view request_json);

// A core error as the command line says it: the flag for a request key, and the file a
// config.json field came from.
Error error_for_command_line(Error error, const Request& request);

// Text syntax, shared with kvbench: a count with an optional k/M suffix (x1024, "128k" = 131072)
// and a byte size with an optional unit (24GB, 80GiB, 13.5GB; GB = 10^9, GiB = 2^30). On failure
// `why` says what was expected.
bool parse_count_text(std::string_view text, uint64_t& out, std::string& why);
bool parse_size_text(std::string_view text, uint64_t& out, std::string& why);

}  // namespace kvscope
