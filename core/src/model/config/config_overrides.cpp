// `--set FIELD=VALUE` what-ifs applied to a config.json before import (the language model's
// fields inside a multimodal wrapper, dotted paths into nested objects).
#include <algorithm>
#include <cctype>

#include "model/config/importer.hpp"

namespace kvscope::config {

using json = nlohmann::ordered_json;  // one JSON type in the core: readers keep document order too

Result<std::string> apply_config_overrides(
    const std::string& config_json,
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  using R = Result<std::string>;
  Result<json> parsed_root = parse_python_json(config_json, "config");
  if (!parsed_root.ok) return R::failure(parsed_root.error);
  json root = std::move(parsed_root.value);
  if (!root.is_object())
    return R::failure(make_error(kInvalidJson, "config", "expected a JSON object"));
  for (const auto& [field, value] : overrides) {
    const bool well_formed =
        !field.empty() && field.size() <= 128 && field.front() != '.' && field.back() != '.' &&
        std::all_of(field.begin(), field.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
        });
    if (!well_formed) {
      return R::failure(make_error(
          kInvalidValue, "set",
          "field name " + quote_user_text(field) + " must be letters, digits, _ and dots"));
    }
    json* target = &root;
    for (const char* wrapper : {"text_config", "llm_config", "language_config"}) {
      if (field.find('.') == std::string::npos && root.contains(wrapper) &&
          root[wrapper].is_object()) {
        target = &root[wrapper];
      }
    }
    std::string key = field;
    for (size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.')) {
      json& next = (*target)[key.substr(0, dot)];
      if (!next.is_object()) {
        return R::failure(
            make_error(kInvalidValue, "set",
                       quote_user_text(field) + " does not name a field inside an object"));
      }
      target = &next;
      key = key.substr(dot + 1);
    }
    Result<json> parsed = parse_python_json(value, "set");
    (*target)[key] = parsed.ok ? std::move(parsed.value) : json(value);
  }
  // A bare word may hold invalid UTF-8 (found by fuzz_cli): replace it rather than throw.
  return R::success(root.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace kvscope::config
