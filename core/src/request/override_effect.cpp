// A `--set FIELD=VALUE` that changes nothing kvscope computes is named as an error: a mistyped
// field (num_key_value_head) or one kvscope does not read would otherwise be a silent no-op.
#include <algorithm>

#include "base/json_text.hpp"
#include "kvscope/model/catalog.hpp"
#include "kvscope/plan/plan.hpp"
#include "kvscope/request/report_json.hpp"
#include "kvscope/request/request.hpp"
#include "base/spelling.hpp"

namespace kvscope {
namespace {

using json = nlohmann::ordered_json;

// The plan's figures: its JSON without what names the inputs (an overridden catalogue model
// becomes a config named after its overrides; the launch command carries --hf-overrides) or
// explains them (assumptions, notes).
std::string figures(const PlanReport& p) {
  json j = parse_json(plan_to_json(p));
  for (const char* key : {"input", "assumptions", "notes", "launch_command", "launch_unexpressed"})
    j.erase(key);
  if (j.contains("model")) {
    for (const char* key : {"id", "name", "source"}) j["model"].erase(key);
  }
  return j.dump();
}

// The config's fields (and its language model's, inside a multimodal wrapper) with their values.
std::vector<std::pair<std::string, json>> config_fields(const PlanInput& in) {
  std::string text = in.model.config_json;
  if (!in.model.model_id.empty()) {
    const Result<ModelEntry> entry = find_model(in.model.model_id);
    if (!entry.ok) return {};
    text = entry.value.config_json;
  }
  const Result<json> root = parse_python_json(text, "config");
  std::vector<std::pair<std::string, json>> fields;
  if (!root.ok || !root.value.is_object()) return fields;
  for (const auto& [key, value] : root.value.items()) {
    fields.emplace_back(key, value);
    if (value.is_object() && (key == "text_config" || key == "llm_config" || key == "language_config"))
      for (const auto& [inner, inner_value] : value.items()) fields.emplace_back(inner, inner_value);
  }
  return fields;
}

}  // namespace

std::optional<Error> override_without_effect(const PlanInput& input, const PlanReport& planned) {
  if (input.overrides.empty()) return std::nullopt;
  const std::string all = figures(planned);
  for (size_t i = 0; i < input.overrides.size(); ++i) {
    PlanInput without = input;
    without.overrides.erase(without.overrides.begin() + static_cast<std::ptrdiff_t>(i));
    const Result<PlanReport> p = plan(without);
    if (!p.ok || figures(p.value) != all) continue;
    const std::string& field = input.overrides[i].first;  // not a structured binding: C++17
    const std::string& value = input.overrides[i].second;  // lambdas cannot capture those
    const std::vector<std::pair<std::string, json>> fields = config_fields(input);
    const auto at = std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.first == field; });
    const Result<json> parsed = parse_python_json(value, "set");
    std::string detail = quote_user_text(field + "=" + value) + " changes nothing kvscope computes: ";
    if (at != fields.end() && (parsed.ok ? parsed.value : json(value)) == at->second) {
      detail += "the config already has that value";
    } else if (at != fields.end()) {
      detail += "kvscope does not read " + field;
    } else {
      detail += "the config has no " + field + " and kvscope does not read it";
      std::vector<std::string> names;
      for (const auto& f : fields) names.push_back(f.first);
      const std::string near = closest_names(names, {}, field);
      if (!near.empty()) detail += " (did you mean " + near + "?)";
    }
    return make_error(kInvalidValue, "set", detail);
  }
  return std::nullopt;
}

std::optional<Error> ineffective_override(const Request& r, const PlanReport* planned) {
  if (r.command != Command::kPlan && r.command != Command::kSweep) return std::nullopt;
  if (r.input.overrides.empty()) return std::nullopt;
  if (planned != nullptr) return override_without_effect(r.input, *planned);
  const Result<PlanReport> p = plan(r.input);
  return p.ok ? override_without_effect(r.input, p.value) : std::nullopt;  // else its own error
}

}  // namespace kvscope
