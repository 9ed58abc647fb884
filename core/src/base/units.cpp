#include "kvscope/base/units.hpp"

#include <cmath>
#include <cstdio>
#include <string_view>

#include "kvscope/base/decimal_text.hpp"

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

std::string format_gb_trimmed(uint64_t bytes) {
  std::string gb = format_gb(bytes);
  gb.resize(gb.size() - 3);  // " GB"
  while (gb.find('.') != std::string::npos && (gb.back() == '0' || gb.back() == '.')) gb.pop_back();
  return gb + " GB";
}

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

std::string shortest_decimal(double value) {
  const bool plain = std::fabs(value) < 1e16 && (value == 0 || std::fabs(value) >= 1e-4);
  char buffer[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    double read_back = 0;
    read_decimal(buffer, read_back);
    if (read_back == value &&
        (!plain || std::string_view(buffer).find('e') == std::string_view::npos))
      break;
  }
  return buffer;
}

std::string shell_command(const std::vector<std::string>& words) {
  static const std::string_view kPlain =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-";
  std::string line;
  for (const std::string& w : words) {
    if (!line.empty()) line += ' ';
    if (!w.empty() && w.find_first_not_of(kPlain) == std::string::npos) {
      line += w;
      continue;
    }
    line += '\'';
    for (char c : w) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

}  // namespace kvscope
