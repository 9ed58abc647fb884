// What the fuzz targets do when an invariant breaks: say which, with the value, and abort, so
// libFuzzer keeps the input (scripts/fuzz.sh prints the line and the input).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

[[noreturn]] inline void violated(const char* what, const std::string& detail) {
  std::fprintf(stderr, "violated: %s: %s\n", what, detail.c_str());
  std::abort();
}
