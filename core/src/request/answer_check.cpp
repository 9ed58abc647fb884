// The check command answered (in the check library, core/CMakeLists.txt): the request's card,
// model and what-ifs as `kvscope plan` flags under the launch's own.
#include "kvscope/request/check.hpp"
#include "kvscope/request/command_line.hpp"
#include "request/answering.hpp"

namespace kvscope {

Result<CheckReport> check_request_launch(const Request& r) {
  Request base = r;
  base.command = Command::kPlan;
  base.launch_text.clear();
  CheckInput in;
  in.launch_text = r.launch_text;
  const std::vector<std::string> words = command_line_arguments(base);
  in.base_arguments.assign(words.begin() + 1, words.end());  // without "plan"
  in.card_given = !r.input.gpu_id.empty() || r.input.gpu_memory_bytes != 0;
  in.config_name = r.input.model.config_name.empty() ? "config.json" : r.input.model.config_name;
  in.config_text = r.input.model.config_json;
  return check_launch(in);
}

Answer answer_check(const Request& r) {
  const Result<CheckReport> c = check_request_launch(r);
  Answer a = report_answer(c, [](const CheckReport& report) { return check_to_json(report); });
  a.target_missed = c.ok && !c.value.starts;  // exit 1: it will not start
  return a;
}

}  // namespace kvscope
