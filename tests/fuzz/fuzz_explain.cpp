// libFuzzer target: arbitrary bytes as a pasted start-up log, read and explained for a catalogue
// model (the first byte picks it). read_log and explain must return an error naming "log" or
// "model" in one line, or a report whose figures say exact, rounding or differs, with a reason
// when they differ, and valid JSON; anything else aborts. Seeds: tests/data/logs/.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "fuzz_invariant.hpp"
#include "kvscope/explain/explain.hpp"
#include "kvscope/model/catalog.hpp"
#include "kvscope/request/report_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kvscope;
  if (size == 0) return 0;
  const std::vector<ModelEntry>& models = model_catalog();
  PlanInput base;
  // Byte 0: a catalogue model, or none (the log must name it).
  if (data[0] % 4 != 0) base.model.model_id = models[data[0] % models.size()].id;
  const std::string_view log(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Result<ExplainReport> r = explain(log, base);
  if (!r.ok) {
    if (r.error.message.empty() || r.error.message.find('\n') != std::string::npos)
      violated("one-line error", r.error.message);
    if (r.error.field.empty()) violated("error names its field", r.error.message);
    return 0;
  }
  for (const ExplainedFigure& f : r.value.figures) {
    if (f.match != "exact" && f.match != "rounding" && f.match != "differs") violated("match", f.match);
    if (f.match == "differs" && f.reason.empty()) violated("a difference has its reason", f.name);
    if (f.line == 0 || f.line > r.value.lines) violated("line in the log", std::to_string(f.line));
  }
  const nlohmann::json j = nlohmann::json::parse(explain_to_json(r.value), nullptr, false);
  if (j.is_discarded() || j["schema"] != "kvscope.explain/1") violated("valid JSON", "explain_to_json");
  return 0;
}
