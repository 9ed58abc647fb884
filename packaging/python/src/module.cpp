// pybind11 face of the core for the Python package: the same narrow boundary as the WebAssembly
// binding (wasm/bindings.hpp): a command's name and a kvscope.request/1 as JSON text in, the
// status and the report (or its error form) as JSON text out; kvscope/__init__.py parses it. No
// logic here. The core runs without the GIL, so threads can answer in parallel.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "kvscope/request/command_line.hpp"
#include "kvscope/request/report_json.hpp"
#include "kvscope/request/request.hpp"
#include "kvscope_cli.hpp"

namespace py = pybind11;

namespace {

// (status, json, message): 0 with the report, 2 with an input error, 70 an internal failure.
std::tuple<int, std::string, std::string> answer_command(const std::string& command,
                                                         const std::string& request_json) {
  kvscope::Command c = kvscope::Command::kPlan;
  kvscope::Answer a;
  if (!kvscope::command_named(command, c)) {
    a = kvscope::command_line_answer(command, request_json);  // the unknown-command error form
  } else {
    a = kvscope::answer_json(c, request_json);
  }
  return {a.status, a.json, a.error.message};
}

std::string schema_of(const std::string& command) {
  kvscope::Command c = kvscope::Command::kPlan;
  if (!kvscope::command_named(command, c)) throw py::value_error("unknown command: " + command);
  return kvscope::request_schema(c);
}

// `kvscope ARGS...` as the native binary runs it: (status, stdout, stderr).
std::tuple<int, std::string, std::string> run_cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int status = kvscope::cli::run(args, out, err, kvscope::cli::read_file_from_disk);
  return {status, out.str(), err.str()};
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "The kvscope sizing core (C++): use the kvscope package's functions.";
  m.def("answer", &answer_command, py::arg("command"), py::arg("request_json"),
        py::call_guard<py::gil_scoped_release>());
  m.def("request_schema", &schema_of, py::arg("command"));
  m.def("run_cli", &run_cli, py::arg("args"), py::call_guard<py::gil_scoped_release>());
  m.attr("version") = kvscope::kVersion;
}
