// kvscope.check/1: what `kvscope check --json` and the full module print for a launch command.
#include "base/json_text.hpp"
#include "kvscope/request/check.hpp"
#include "kvscope/request/report_json.hpp"
#include "request/report_writing.hpp"

namespace kvscope {

std::string check_to_json(const CheckReport& r) {
  JsonWriter w;
  w.begin_object();
  w.field("schema", "kvscope.check/1");
  w.field("kvscope_version", kVersion);
  w.key("launch").begin_object();
  w.field("engine", r.launch.engine);
  w.field("program", r.launch.program);
  w.field("model", r.launch.model);
  w.field("model_id", r.launch.model_id);
  w.field_or_null("engine_version", !r.launch.engine_version.empty(), r.launch.engine_version);
  w.key("flags").begin_array();
  for (const LaunchFlag& f : r.launch.flags) {
    w.begin_object();
    w.field("flag", f.flag);
    w.field_or_null("value", !f.value.empty(), f.value);
    w.field("effect", flag_effect_name(f.effect));
    w.field_or_null("key", !f.key.empty(), f.key);
    w.field_or_null("plan_flag", !f.plan_flag.empty(), f.plan_flag);
    w.field("note", f.note);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  w.field("assumptions", r.assumptions);
  std::vector<std::string> plan_command{"plan"};
  plan_command.insert(plan_command.end(), r.plan_arguments.begin(), r.plan_arguments.end());
  w.field_or_null("plan_command", r.planned, plan_command);
  write_plan_request(w, r.planned ? &r.plan_input : nullptr);
  w.field("starts", r.starts);
  w.field_or_null("startup_error", r.planned && !r.starts, r.plan.startup_error);
  w.key("findings").begin_array();
  for (const CheckFinding& f : r.findings) {
    w.begin_object();
    w.field("severity", f.severity);
    w.field_or_null("flag", !f.flag.empty(), f.flag);
    w.field("message", f.message);
    w.end_object();
  }
  w.end_array();
  w.key("fixes").begin_array();
  for (const CheckFix& f : r.fixes) {
    w.begin_object();
    w.field("change", f.change);
    w.field("why", f.why);
    w.field("launch_command", f.launch_command);
    w.field("max_model_len", f.max_model_len);
    w.field_or_null("sequences_that_fit", f.has_capacity, f.sequences_that_fit);
    w.end_object();
  }
  w.end_array();
  w.key("plan");
  if (r.planned) {
    w.tree(parse_json(plan_to_json(r.plan)));
  } else {
    w.null();
  }
  w.end_object();
  return w.take();
}

}  // namespace kvscope
