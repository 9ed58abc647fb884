#include "kvscope/units.hpp"

#include <cstdio>

namespace kvscope {

std::string with_commas(uint64_t n) {
  std::string digits = std::to_string(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<size_t>(i), ",");
  return digits;
}

namespace {
std::string fixed(double value, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f %s", value, unit);
  return buf;
}
}  // namespace

std::string format_gb(uint64_t bytes) { return fixed(static_cast<double>(bytes) / 1e9, "GB"); }

std::string format_gib(uint64_t bytes) {
  return fixed(static_cast<double>(bytes) / static_cast<double>(uint64_t{1} << 30), "GiB");
}

std::string format_binary_size(uint64_t bytes) {
  static const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024 && unit < 6) {
    value /= 1024;
    ++unit;
  }
  char buf[64];
  if (unit == 0) return with_commas(bytes) + " bytes";
  if (value == static_cast<double>(static_cast<uint64_t>(value))) {
    std::snprintf(buf, sizeof buf, "%.0f %s", value, kUnits[unit]);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f %s", value, kUnits[unit]);
  }
  return buf;
}

}  // namespace kvscope
