// The sweeps' writer: thousands of points written as text directly, on the page's hot path (each
// redraw), so it is compiled for speed where the other writers are compiled for size.
#include "json_writing.hpp"
#include "kvscope/report_json.hpp"

namespace kvscope {

namespace {

// ",[x,y]" (or "[x,y]" first) with one append: the string's own calls dominated the time.
void append_point(std::string& out, const std::pair<double, double>& point, bool first) {
  char buffer[72];
  char* at = buffer;
  if (!first) *at++ = ',';
  *at++ = '[';
  at = write_json_number(at, point.first);
  *at++ = ',';
  at = write_json_number(at, point.second);
  *at++ = ']';
  out.append(buffer, at);
}

}  // namespace

// Sweeps are thousands of points: written as text directly, not built as a JSON tree first, and on
// one line (indenting the [x, y] pairs tripled the bytes and the page's time per redraw).
std::string sweeps_to_json(const Sweeps& s) {
  const auto text = [](const std::string& v) { return dump_compact(ordered_json(v)); };
  std::string out;
  out.reserve(64 * 1024);
  auto series = [&](const Series& x) {
    out += "{\"name\":" + text(x.name) + ",\"points\":[";
    for (size_t i = 0; i < x.points.size(); ++i) append_point(out, x.points[i], i == 0);
    out += "]}";
  };
  const std::string& model =
      s.plan.estimate.model_id.empty() ? s.plan.estimate.model_name : s.plan.estimate.model_id;
  out += "{\"schema\":\"kvscope.sweeps/1\",\"kvscope_version\":" + text(kVersion) +
         ",\"model\":" + text(model) + ",\"engine\":" + text(s.plan.engine) +
         ",\"kv_bytes_vs_context\":[";
  for (size_t i = 0; i < s.kv_bytes_vs_context.size(); ++i) {
    if (i != 0) out += ',';
    series(s.kv_bytes_vs_context[i]);
  }
  out += "],\"concurrency_vs_context\":";
  series(s.concurrency_vs_context);
  out += ",\"step_time_s_vs_batch\":";
  series(s.step_time_vs_batch);
  out += ",\"tokens_per_s_vs_batch\":";
  series(s.throughput_vs_batch);
  out += ",\"kv_capped_batch\":" + std::to_string(s.kv_capped_batch) +
         ",\"memory_breakdown_per_gpu\":{";
  for (size_t i = 0; i < s.memory_breakdown.size(); ++i) {
    out += (i == 0 ? "" : ",") + text(s.memory_breakdown[i].first + "_bytes") + ":" +
           std::to_string(s.memory_breakdown[i].second);
  }
  out += "}}";
  return out;
}

}  // namespace kvscope
