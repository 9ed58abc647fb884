// What the explainers of each engine share (explain.cpp; explain_vllm.cpp; explain_engines.cpp for
// llama.cpp, SGLang and TensorRT-LLM): figures as the engine printed them, and the Explainer that
// sets each beside kvscope's at the printed precision.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "kvscope/base/elementary_math.hpp"
#include "kvscope/explain/explain.hpp"
#include "kvscope/explain/log_reading.hpp"
#include "kvscope/plan/plan.hpp"

namespace kvscope::explaining {

constexpr double kGiB = 1073741824.0;
constexpr double kMiB = 1048576.0;

inline double gib(uint64_t bytes) { return static_cast<double>(bytes) / kGiB; }
inline double mib(double bytes) { return bytes / kMiB; }

int decimals_of(const std::string& text);

// `value` as the engine printed its figure: the same decimals, thousands separators if it had them.
std::string as_printed(double value, const std::string& printed);

bool same_digits(double value, const PrintedFigure& f);

// A count from the log's text ("2", "262,144"; "None" is none).
bool count_of(const std::string* text, uint64_t& out);

// The deployment at a KV budget of `budget` bytes per GPU (and max_model_len, when not 0).
Result<PlanReport> plan_at_kv_budget(const PlanInput& in, uint64_t budget, uint64_t max_model_len);

// A figure printed on several lines (per device, per cache), added up at the first's precision;
// `lines` says how many.
PrintedFigure summed(const LogReading& log, std::string_view key, size_t& lines);

// Bytes in GiB as vLLM rounds them for its messages (two decimals, shortest form).
std::string gib_text(uint64_t bytes);

class Explainer {
 public:
  explicit Explainer(ExplainReport& r) : r_(r) {}

  // A figure kvscope computes directly (a budget, a weight, a shape).
  void direct(const PrintedFigure& f, const std::string& name, const std::string& unit,
              double kvscope, const std::string& differs, const std::string& derivation = {}) {
    const bool match = same_digits(kvscope, f);
    add(f, name, unit, as_printed(kvscope, f.text), match ? "exact" : "differs",
        match ? "" : differs, derivation);
  }

  // A figure derived from a budget the log printed with `budget`'s precision (GiB or GB): exact
  // at the printed budget, else "rounding" when the figure lies between kvscope's figures at the
  // two ends of the budget's rounding interval.
  void from_budget(const PrintedFigure& f, const std::string& name, const std::string& unit,
                   const PrintedFigure& budget, double unit_bytes,
                   const std::function<Result<double>(uint64_t)>& figure,
                   const std::string& differs, double half_width = 0) {
    const auto bytes = [&](double units) {
      return units <= 0 ? uint64_t{0} : static_cast<uint64_t>(std::llround(units * unit_bytes));
    };
    const Result<double> at = figure(bytes(budget.value));
    if (!at.ok) {
      add(f, name, unit, "", "differs", at.error.message, {});
      return;
    }
    const std::string derivation = "at the printed " + budget.text + " " +
                                   (unit_bytes == kGiB ? "GiB" : "GB") + " per GPU";
    if (same_digits(at.value, f)) {
      add(f, name, unit, as_printed(at.value, f.text), "exact", "", derivation);
      return;
    }
    const double half = half_width > 0 ? half_width : 0.5 * power_of_ten(-decimals_of(budget.text));
    const Result<double> lo = figure(bytes(budget.value - half));
    const Result<double> hi = figure(bytes(budget.value + half));
    const double scale = power_of_ten(decimals_of(f.text));
    const bool within = lo.ok && hi.ok &&
                        std::llround(std::min(lo.value, hi.value) * scale) <=
                            std::llround(f.value * scale) &&
                        std::llround(f.value * scale) <=
                            std::llround(std::max(lo.value, hi.value) * scale);
    add(f, name, unit, as_printed(at.value, f.text), within ? "rounding" : "differs",
        within ? "a budget inside the printed " + budget.text + "'s rounding gives it" : differs,
        derivation);
  }

  void add(const PrintedFigure& f, const std::string& name, const std::string& unit,
           const std::string& kvscope, const std::string& match, const std::string& reason,
           const std::string& derivation) {
    r_.figures.push_back(ExplainedFigure{f.line, name, f.text, kvscope, unit, match, reason,
                                         derivation});
  }

  ExplainReport& r_;
};

// Each engine's figures: the deployment its lines describe goes into `in`, each figure into `r`.
void explain_vllm(const LogReading& log, PlanInput& in, ExplainReport& r, Explainer& x);
void explain_sglang(const LogReading& log, PlanInput& in, ExplainReport& r, Explainer& x);
void explain_tensorrt_llm(const LogReading& log, PlanInput& in, ExplainReport& r, Explainer& x);
void explain_llamacpp(const LogReading& log, PlanInput& in, ExplainReport& r, Explainer& x);
void explain_ollama(const LogReading& log, PlanInput& in, ExplainReport& r, Explainer& x);

}  // namespace kvscope::explaining
