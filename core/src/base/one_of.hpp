// Whether a name (a model_type, an architecture) is in a fixed list: the importer's, the weight
// inventory's and the engines' family tables all ask it.
#pragma once

#include <initializer_list>
#include <string>

namespace kvscope {

inline bool is_one_of(const std::string& s, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (s == n) return true;
  }
  return false;
}

}  // namespace kvscope
