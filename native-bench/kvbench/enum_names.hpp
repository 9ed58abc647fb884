// Flag values read back into enums by the names their printing functions give them.
#pragma once

#include <cstddef>
#include <string>

namespace kvbench {

// The value of `values` whose name_of(value) is `name`, into `out`; false when none is.
template <class E, size_t N>
bool parse_enum_name(const std::string& name, const E (&values)[N], const char* (*name_of)(E),
                     E& out) {
  for (E v : values) {
    if (name == name_of(v)) {
      out = v;
      return true;
    }
  }
  return false;
}

}  // namespace kvbench
