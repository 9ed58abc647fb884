// kvscope.explain/1: what `kvscope explain --json` and the module print for a start-up log.
#include "base/json_text.hpp"
#include "kvscope/request/report_json.hpp"
#include "request/report_writing.hpp"

namespace kvscope {

std::string explain_to_json(const ExplainReport& r) {
  JsonWriter w;
  w.begin_object();
  w.field("schema", "kvscope.explain/1");
  w.field("kvscope_version", kVersion);
  w.field("engine", r.engine);
  w.field("engine_label", r.engine_label);
  w.field_or_null("engine_version", !r.engine_version.empty(), r.engine_version);
  write_version_line(w, "modelled_version", r.modelled_version, r.modelled_version_label);
  w.key("model").begin_object();
  w.field_or_null("printed", !r.model_printed.empty(), r.model_printed);
  w.field("id", r.model_id);
  w.field("name", r.model_name);
  w.end_object();
  w.key("arguments").begin_object();
  for (const auto& [key, value] : r.arguments) w.field(key, value);
  w.end_object();
  w.key("figures").begin_array();
  for (const ExplainedFigure& f : r.figures) {
    w.begin_object();
    w.field("line", uint64_t{f.line});
    w.field("name", f.name);
    w.field("printed", f.printed);
    w.field_or_null("kvscope", !f.kvscope.empty(), f.kvscope);
    w.field("unit", f.unit);
    w.field("match", f.match);
    w.field_or_null("reason", !f.reason.empty(), f.reason);
    w.field_or_null("derivation", !f.derivation.empty(), f.derivation);
    w.end_object();
  }
  w.end_array();
  w.key("inputs").begin_array();
  for (const TakenFigure& f : r.inputs) {
    w.begin_object();
    w.field("line", uint64_t{f.line});
    w.field("name", f.name);
    w.field("printed", f.printed);
    w.field("unit", f.unit);
    w.end_object();
  }
  w.end_array();
  w.field("calibrated", r.calibrated);
  w.field("calibration", r.calibration);
  write_plan_request(w, &r.plan);  // the deployment the log describes
  w.field("notes", r.notes);
  w.field("lines", uint64_t{r.lines});
  w.end_object();
  return w.take();
}

}  // namespace kvscope
