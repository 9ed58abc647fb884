// `kvscope`: the command line read into a request by the core, answered by the core, printed as
// its JSON (--json) or as text (text_report.cpp). No arithmetic and no flag table here.
#include "kvscope_cli.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "kvscope/request/report_json.hpp"
#include "kvscope/request/request.hpp"
#include "text_report.hpp"

namespace kvscope::cli {
namespace {

int fail(std::ostream& out, std::ostream& err, bool json, const Error& e, int status = 2) {
  err << "kvscope: error: " << e.message << "\n";
  if (json) out << error_to_json(e) << "\n";
  return status;
}

// The text report of a request's typed answer.
template <typename T, typename Print>
int print_text(const Result<T>& result, const Request& request, Print print, std::ostream& out,
               std::ostream& err) {
  if (!result.ok) return fail(out, err, false, error_for_command_line(result.error, request));
  print(result.value, out);
  return 0;
}

int print_text_answer(const Request& r, std::ostream& out, std::ostream& err) {
  switch (r.command) {
    case Command::kEstimate:
      return print_text(estimate(r.input.model), r, print_report, out, err);
    case Command::kPlan: {
      const Result<PlanReport> p = plan(r.input);
      if (p.ok) {
        if (const std::optional<Error> unused = ineffective_override(r, &p.value))
          return fail(out, err, false, error_for_command_line(*unused, r));
      }
      const int status = print_text(p, r, print_plan, out, err);
      return status == 0 && r.input.require_concurrency != 0 && !p.value.target.met ? 1 : status;
    }
    case Command::kSweep:
      if (const std::optional<Error> unused = ineffective_override(r))
        return fail(out, err, false, error_for_command_line(*unused, r));
      return print_text(sweep(r.input, r.sweep), r, print_sweeps, out, err);
    case Command::kExplain:
      return print_text(explain(r.log_text, r.input), r, print_explain, out, err);
    case Command::kSolve: {
      const Result<SolveReport> s = solve(r.input, r.solve);
      const int status = print_text(s, r, print_solve, out, err);
      return status == 0 && !s.value.met ? 1 : status;
    }
    case Command::kCheck: {
      const Result<CheckReport> c = check_request_launch(r);
      const int status = print_text(c, r, print_check, out, err);
      return status == 0 && !c.value.starts ? 1 : status;  // a gate for scripts and CI
    }
    case Command::kModels:
    case Command::kGpus:
    case Command::kDtypes:
    case Command::kEngines:
      print_catalogue(std::string(command_name(r.command)), out);
      return 0;
  }
  return 70;
}

}  // namespace

bool read_file_from_disk(const std::string& path, std::string& content, std::string& error) {
  if (path == "-") {  // explain's log from a pipe; more than 16 MiB is refused by the caller
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    content = buffer.str();
    return true;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error = "is a directory";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open file";
    return false;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    error = "cannot read file";
    return false;
  }
  content = buffer.str();
  return true;
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
        const FileReader& read_file) {
  bool json = false;
  for (const std::string& a : args) json = json || a == "--json";
  const Result<CommandLine> line = parse_command_line(args, read_file);
  if (!line.ok) return fail(out, err, json, line.error);
  if (line.value.help) {
    out << command_line_usage();
    return args.empty() ? 2 : 0;
  }
  if (line.value.request_schema) {
    out << request_schema(line.value.request.command);
    return 0;
  }
  if (line.value.version) {
    out << "kvscope " << kVersion << "\n";
    return 0;
  }
  const Request& request = line.value.request;
  if (!json) return print_text_answer(request, out, err);
  const Answer a = answer(request);
  if (a.status == 0) {
    out << a.json << "\n";
    return a.target_missed ? 1 : 0;  // --require-concurrency, solve: a gate for scripts
  }
  return fail(out, err, true,
              line.value.from_request_file ? a.error : error_for_command_line(a.error, request),
              a.status);
}

}  // namespace kvscope::cli
