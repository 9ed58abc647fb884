// nlohmann/json's lexer reads each fractional JSON number with strtod; both modules link such
// calls here instead (-Wl,--wrap=strtod), to the core's reader, which rounds them as correctly
// and leaves musl's strtod and its software long-double arithmetic out: 6.9 kB gzipped each.
#include <cstring>
#include <string_view>

#include "kvscope/base/decimal_text.hpp"

extern "C" double __wrap_strtod(const char* text, char** end) {
  double value = 0;
  const size_t read = kvscope::read_decimal(std::string_view(text, std::strlen(text)), value);
  if (end != nullptr) *end = const_cast<char*>(text) + read;
  return value;
}
