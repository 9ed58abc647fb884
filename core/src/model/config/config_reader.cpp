// Shared helpers of the config readers.
#include "model/config/config_reader.hpp"

#include <cmath>

#include "model/catalog_data.hpp"
#include "base/json_text.hpp"

namespace kvscope::config {

// A bounded description of a config value for an error message (never dumps a whole subtree).
std::string describe(const json& value) {
  if (const auto number = non_finite_number(value)) {
    return std::isnan(*number) ? "NaN" : *number > 0 ? "Infinity" : "-Infinity";
  }
  if (value.is_string()) return "string " + quote_user_text(value.get_ref<const std::string&>());
  if (value.is_array()) return "a list of " + std::to_string(value.size()) + " entries";
  if (value.is_object()) return "an object";
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return value.dump();  // a number or null: short and safe
}

std::vector<std::string> ConfigReader::string_list(const std::string& key) {
  std::vector<std::string> out;
  if (!has(key)) return out;
  const json& v = config_[key];
  if (!v.is_array()) {
    fail(kInvalidValue, key, "expected a list of module names, got " + describe(v));
    return out;
  }
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string() || non_finite_number(v[i])) {
      fail(kInvalidValue, key + "[" + std::to_string(i) + "]",
           "expected a module name, got " + describe(v[i]));
      return out;
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

const json& family_defaults_table() {
  static const json table = parse_json(data::kConfigDefaultsJson);
  return table;
}

}  // namespace kvscope::config
