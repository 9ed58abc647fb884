// The sweeps' writer: thousands of points on the page's hot path (each redraw), so it is compiled
// for speed where the other writers are compiled for size, and on one line (indenting the [x, y]
// pairs tripled the bytes and the page's time per redraw).
#include "base/json_writer.hpp"
#include "kvscope/request/report_json.hpp"

namespace kvscope {

namespace {

void write_series(JsonWriter& w, const Series& series) {
  w.begin_object();
  w.field("name", series.name);
  w.key("points").begin_array();
  for (const auto& [x, y] : series.points) w.number_pair(x, y);
  w.end_array();
  w.end_object();
}

}  // namespace

std::string sweeps_to_json(const Sweeps& s) {
  JsonWriter w(false);
  w.reserve(64 * 1024);
  w.begin_object();
  w.field("schema", "kvscope.sweeps/1");
  w.field("kvscope_version", kVersion);
  w.field("model",
          s.plan.estimate.model_id.empty() ? s.plan.estimate.model_name : s.plan.estimate.model_id);
  w.field("engine", s.plan.engine);
  w.key("kv_bytes_vs_context").begin_array();
  for (const Series& series : s.kv_bytes_vs_context) write_series(w, series);
  w.end_array();
  write_series(w.key("concurrency_vs_context"), s.concurrency_vs_context);
  write_series(w.key("step_time_s_vs_batch"), s.step_time_vs_batch);
  write_series(w.key("tokens_per_s_vs_batch"), s.throughput_vs_batch);
  w.field("kv_capped_batch", s.kv_capped_batch);
  w.key("memory_breakdown_per_gpu").begin_object();
  for (const auto& [part, bytes] : s.memory_breakdown) w.field(part + "_bytes", bytes);
  w.end_object();
  w.end_object();
  return w.take();
}

}  // namespace kvscope
