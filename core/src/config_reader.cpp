// Shared helpers of the config readers.
#include "config_reader.hpp"

#include <cmath>

#include "catalog_data.hpp"

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

const json& family_defaults_table() {
  static const json table = json::parse(data::kConfigDefaultsJson, nullptr, false);
  return table;
}

}  // namespace kvscope::config
