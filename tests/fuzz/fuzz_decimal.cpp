// libFuzzer target: the core's decimal reader against glibc's strtod, which rounds correctly, on
// the input's leading run of the characters a decimal is made of (so strtod reads no space,
// hexadecimal, inf or nan either): the same double, bit for bit, and the same characters read.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "kvscope/base/decimal_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::string text = input.substr(0, input.find_first_not_of("0123456789+-.eE"));
  char* end = nullptr;
  const double expected = std::strtod(text.c_str(), &end);
  double value = 0;
  const size_t read = kvscope::read_decimal(text, value);
  if (std::memcmp(&value, &expected, sizeof value) != 0 ||
      read != static_cast<size_t>(end - text.c_str())) {
    std::fprintf(stderr, "violated: \"%s\": read_decimal %.17g (%zu characters), strtod %.17g (%zu)\n",
                 text.c_str(), value, read, expected, static_cast<size_t>(end - text.c_str()));
    std::abort();
  }
  return 0;
}
