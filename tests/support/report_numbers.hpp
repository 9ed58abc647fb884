// Walks a kvscope JSON report for numbers no report may hold: the core's figures are counts,
// bytes, times and rates, so none is negative (no report field is signed) and none is infinite.
// NaN prints as null, so callers also check the doubles they hold before serializing.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace kvscope::test {

// The JSON path of the first negative or infinite number in `node`, or "" when there is none.
inline std::string first_bad_number(const nlohmann::ordered_json& node, const std::string& path) {
  if (node.is_number_float()) {
    const double v = node.get<double>();
    return std::isfinite(v) && v >= 0 ? "" : path;
  }
  if (node.is_number_integer() && !node.is_number_unsigned()) {
    return node.get<int64_t>() >= 0 ? "" : path;
  }
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      std::string bad = first_bad_number(value, path + "." + key);
      if (!bad.empty()) return bad;
    }
  }
  if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i) {
      std::string bad = first_bad_number(node[i], path + "[" + std::to_string(i) + "]");
      if (!bad.empty()) return bad;
    }
  }
  return "";
}

// The same over report text; "<not json>" when the text does not parse.
inline std::string first_bad_number(const std::string& json_text) {
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(json_text, nullptr, false);
  if (j.is_discarded()) return "<not json>";
  return first_bad_number(j, "$");
}

}  // namespace kvscope::test
