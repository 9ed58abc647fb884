// `kvscope.request/1`: the inputs of every command as one value, its JSON codec, and the answer
// to a request as the JSON every front end prints. The CLI (argv), the WebAssembly modules and
// the page all build a Request and call answer() (or the answerer of the command's group); keys
// carry their units ("context_tokens", "gpu_memory_bytes") and errors name the key.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "kvscope/base/error.hpp"
#include "kvscope/plan/plan.hpp"
#include "kvscope/explain/explain.hpp"
#include "kvscope/solve/solve.hpp"
#include "kvscope/plan/sweeps.hpp"

namespace kvscope {

enum class Command {
  kEstimate,
  kPlan,
  kSweep,
  kModels,
  kGpus,
  kDtypes,
  kEngines,
  kSolve,
  kExplain,
  kCheck
};

std::string_view command_name(Command command);
// "estimate", "plan", ...; false when `name` is none of them.
bool command_named(std::string_view name, Command& out);

struct Request {
  Request();  // out of line, as PlanReport()
  Command command = Command::kPlan;
  PlanInput input;  // estimate reads input.model only
  SweepRange sweep;
  SolveOptions solve;  // solve: the target and what it may choose (input is its base plan)
  std::string log_name;  // explain: the start-up log (a file's name, or "-")
  std::string log_text;
  std::string launch_text;  // check: the launch command as pasted
};

inline constexpr const char* kRequestSchema = "kvscope.request/1";

// A kvscope.request/1 object for `command`. Its "command" key, when present, must agree.
// Unknown keys, keys the command does not read, wrong types and out-of-range values are errors
// naming the key ("vllm.gpu_memory_utilization").
Result<Request> request_from_json(std::string_view json, Command command);

// The request as kvscope.request/1: what differs from the defaults, in the field table's order.
std::string request_to_json(const Request& request);

// A command's answer: status 0 with the report (kvscope.report/1, kvscope.sweeps/1 or a
// catalogue), 2 with an input error, 70 with an internal failure; json is then the error form.
struct Answer {
  int status = 0;
  std::string json;
  Error error;
  bool target_missed = false;  // a plan with require_concurrency whose target does not fit, or
                               // a solve that no option meets
};

// The first of `input.overrides` whose removal leaves the figures of `planned` (plan(input)) as
// they are (a field kvscope does not read, a typo, or the config's own value), as an error on
// `set`; nullopt when each changes something.
std::optional<Error> override_without_effect(const PlanInput& input, const PlanReport& planned);

// A plan or sweep whose `set` has an override that changes nothing (override_without_effect);
// `planned`: the request's plan when the caller has made it, else it is made here.
std::optional<Error> ineffective_override(const Request& request,
                                          const PlanReport* planned = nullptr);

// Each command group's answer, linked with its code (core/CMakeLists.txt): the sizing commands
// (estimate, plan, sweep and the catalogues), the solver, the log reader. A front end links the
// groups it answers: the page's first module answers the sizing commands only (wasm/).
Answer answer_sizing(const Request& request);
Answer answer_solve(const Request& request);
Answer answer_explain(const Request& request);
Answer answer_check(const Request& request);
using Answerer = Answer (*)(const Request&);

// Every command (links every group: the CLI, the tests, the full module).
Answer answer(const Request& request);

// A kvscope.request/1 for `command` answered by `answerer` (without one: by answer()); a request
// that does not read is its error answer, an exception an internal failure.
Answer answer_json(Command command, std::string_view request_json, Answerer answerer);
Answer answer_json(Command command, std::string_view request_json);

}  // namespace kvscope
