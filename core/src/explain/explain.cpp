// `kvscope explain`: the log read (log_reading.cpp), the deployment it describes planned with
// kvscope's engine arithmetic (each engine's figures in explain_vllm.cpp and explain_engines.cpp),
// and each printed figure set beside kvscope's at the printed precision. Budgets the engine
// measured are inputs: a figure derived from one is "exact" at the printed budget, "rounding" when
// some budget within the printed rounding gives it.
#include "kvscope/explain/explain.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>

#include "engines/engine_table.hpp"
#include "explain/explain_figures.hpp"
#include "kvscope/model/catalog.hpp"
#include "kvscope/base/elementary_math.hpp"
#include "kvscope/base/units.hpp"

namespace kvscope {
namespace explaining {

int decimals_of(const std::string& text) {
  const size_t dot = text.find('.');
  return dot == std::string::npos ? 0 : static_cast<int>(text.size() - dot - 1);
}

std::string as_printed(double value, const std::string& printed) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals_of(printed), value);
  std::string s = buf;
  if (printed.find(',') == std::string::npos) return s;
  const size_t dot = std::min(s.find('.'), s.size());
  for (size_t i = dot; i > 3 && s[i - 4] != '-'; i -= 3) s.insert(i - 3, ",");
  return s;
}

bool same_digits(double value, const PrintedFigure& f) {
  const double scale = power_of_ten(decimals_of(f.text));
  return std::llround(value * scale) == std::llround(f.value * scale);
}

bool count_of(const std::string* text, uint64_t& out) {
  if (text == nullptr) return false;
  std::string digits;
  for (char c : *text)
    if (c != ',') digits += c;
  if (digits.empty() || digits.size() > 19 || digits[0] < '0' || digits[0] > '9') return false;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(digits.c_str(), &end, 10);
  if (*end != '\0') return false;
  out = v;
  return true;
}

Result<PlanReport> plan_at_kv_budget(const PlanInput& in, uint64_t budget, uint64_t max_model_len) {
  PlanInput b = in;
  b.gpu_id.clear();
  b.gpu_memory_bytes = 0;
  b.kv_memory_bytes = std::max<uint64_t>(1, budget);
  if (max_model_len != 0) b.max_model_len = max_model_len;
  return plan(b);
}

PrintedFigure summed(const LogReading& log, std::string_view key, size_t& lines) {
  PrintedFigure total;
  lines = 0;
  for (const PrintedFigure& f : log.figures) {
    if (f.key != key) continue;
    if (lines++ == 0) total = f;
    else total.value += f.value;
  }
  if (lines > 1) total.text = as_printed(total.value, total.text);
  return total;
}

std::string gib_text(uint64_t bytes) { return shortest_decimal(std::round(gib(bytes) * 100) / 100); }

}  // namespace explaining

namespace {

using R = Result<ExplainReport>;
using namespace explaining;

// Each engine's log read its own way: vLLM prints blocks and tokens, SGLang and TensorRT-LLM a
// pool of tokens and its bytes, llama.cpp its buffers (ids as engine_table.cpp's, which
// log_reading.cpp gives the engine that wrote a log).
using EngineExplainer = void (*)(const LogReading&, PlanInput&, ExplainReport&, Explainer&);
const std::pair<std::string_view, EngineExplainer> kEngineExplainers[] = {
    {"vllm", explain_vllm},
    {"sglang", explain_sglang},
    {"tensorrt-llm", explain_tensorrt_llm},
    {"llama.cpp", explain_llamacpp},
    {"ollama", explain_ollama}};

// The catalogue entry a log's model name stands for, or an error asking for it.
Result<std::string> catalogue_model(const std::string& printed) {
  using RS = Result<std::string>;
  if (printed.empty()) {
    return RS::failure(make_error(kMissingField, "model",
                                  "the log does not name its model: give --model ID or --config FILE"));
  }
  const Result<CheckpointMatch> m = identify_checkpoint(printed);  // "nvidia/Qwen3.6-27B-NVFP4"
  if (!m.ok) {
    return RS::failure(make_error(kMissingField, "model",
                                  "the log names " + quote_user_text(printed) + " (" +
                                      m.error.message + "): give --model ID or --config FILE"));
  }
  return RS::success(m.value.model.id);
}

}  // namespace

Result<ExplainReport> explain(std::string_view text, const PlanInput& base) {
  Result<LogReading> read = read_log(text);
  if (!read.ok) return R::failure(read.error);
  const LogReading& log = read.value;
  ExplainReport r;
  r.lines = log.lines;
  if (log.engine.empty()) {
    return R::failure(
        make_error(kInvalidValue, "log",
                   "no start-up line of vLLM, SGLang, TensorRT-LLM, llama.cpp or Ollama "
                   "was recognised in " +
                       std::to_string(log.lines) + " lines"));
  }
  r.engine = log.engine;
  r.engine_version = log.version;
  r.model_printed = log.model;
  PlanInput in = base;
  in.require_concurrency = 0;
  if (in.model.model_id.empty() && in.model.config_json.empty()) {
    const Result<std::string> id = catalogue_model(log.model);
    if (!id.ok) return R::failure(id.error);
    in.model.model_id = id.value;
  }
  Explainer x(r);
  for (const auto& [engine_id, explain_engine] : kEngineExplainers)
    if (engine_id == log.engine) explain_engine(log, in, r, x);
  // Without a card or a budget there is nothing to plan; the model still names itself.
  const bool sized = !in.gpu_id.empty() || in.gpu_memory_bytes != 0 || in.kv_memory_bytes != 0;
  PlanInput probe = in;
  if (!sized) probe.kv_memory_bytes = uint64_t{1} << 30;
  const Result<PlanReport> described = plan(probe);
  if (!described.ok) return R::failure(described.error);
  if (!sized) {
    r.calibrated = false;
    r.notes.push_back("the log prints no KV budget kvscope can take: give the card (--gpu) to plan it");
  }
  const EngineProfile* engine = find_engine_profile(in.engine);
  r.engine_label = engine != nullptr ? std::string(engine->info.label) : in.engine;
  r.model_id = described.value.estimate.model_id.empty() ? described.value.estimate.model_name
                                                         : described.value.estimate.model_id;
  r.model_name = described.value.estimate.model_name;
  r.modelled_version = described.value.engine_version;
  r.modelled_version_label = described.value.engine_version_label;
  r.plan = in;
  if (r.figures.empty())
    r.notes.push_back("the log prints no figure kvscope reproduces (docs/cli.md lists the lines it "
                      "reads)");
  std::stable_sort(r.figures.begin(), r.figures.end(),
                   [](const ExplainedFigure& a, const ExplainedFigure& b) { return a.line < b.line; });
  for (const std::string& other : log.other_engines)
    r.notes.push_back("the log also has lines " + other + " prints; it was read as " + r.engine_label +
                      "'s (paste one engine's start-up to check the other)");
  if (log.figures_dropped != 0)
    r.notes.push_back(std::to_string(log.figures_dropped) + " figures after the first 200 were not read");
  if (log.lines_cut != 0)
    r.notes.push_back(std::to_string(log.lines_cut) + " lines longer than 64 KiB were read in part");
  return R::success(std::move(r));
}

}  // namespace kvscope
