// What the report and catalogue writers share: one way to print a JSON tree and a dtype.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "kvscope/dtype.hpp"

namespace kvscope {

using nlohmann::ordered_json;

// Indented (reports, catalogues) or on one line; invalid UTF-8 (a truncated or hostile string) is
// replaced, never thrown.
inline std::string dump(const ordered_json& j) {
  return j.dump(2, ' ', false, ordered_json::error_handler_t::replace);
}
inline std::string dump_compact(const ordered_json& j) {
  return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

inline ordered_json dtype_json(const Dtype& d) {
  return ordered_json{{"name", d.name},
                      {"bits_per_value", bits_per_value(d)},
                      {"scale_bits_per_row", d.row_scale_bits},
                      {"exact", d.exact},
                      {"description", d.description}};
}

}  // namespace kvscope
