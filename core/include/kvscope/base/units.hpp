// Number formatting shared by reports: bytes always say which unit (GB = 10^9, GiB = 2^30).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kvscope {

std::string with_commas(uint64_t n);     // 131072 -> "131,072"
std::string format_gb(uint64_t bytes);   // "2.147 GB"
std::string format_gib(uint64_t bytes);
std::string format_gb_trimmed(uint64_t bytes);  // "24 GB", "25.319 GB": no trailing zeros  // "2.000 GiB"
std::string format_binary_size(
    uint64_t bytes);  // "128 KiB", "16 GiB", "1.5 MiB": the largest fitting unit
// The shortest decimal that reads back as `value`, without an exponent below 1e16: "0.9", "80".
std::string shortest_decimal(double value);
// Words joined into a shell command line, each quoted when it needs it ('{"a": 1}').
std::string shell_command(const std::vector<std::string>& words);

}  // namespace kvscope
