// config.json as Python writes it: json.dump emits NaN, Infinity and -Infinity (allow_nan=True by
// default) and json.load reads them back, so real configs contain them (Nemotron-H's
// "time_step_limit": [0.0, Infinity]). Strict JSON parsers reject them; this one keeps each as a
// marked string that only number readers interpret.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "kvscope/base/error.hpp"

namespace kvscope {

// Parses strict JSON; a discarded value (is_discarded()) where `text` is not JSON. Every parse in
// the core goes through here or parse_python_json: each other way of calling nlohmann's parser
// (input type, callback, exceptions) compiles another copy of it into the WebAssembly module.
nlohmann::ordered_json parse_json(std::string_view text);

// Parses `text` as JSON plus Python's three bare non-finite literals. A syntax error names `field`
// and the line and column in `text` itself.
Result<nlohmann::ordered_json> parse_python_json(std::string_view text, const std::string& field);

// The number a bare NaN / Infinity / -Infinity stood for, or nullopt for any other value.
std::optional<double> non_finite_number(const nlohmann::ordered_json& value);

}  // namespace kvscope
