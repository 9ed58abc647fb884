// Number formatting shared by reports: bytes always say which unit (GB = 10^9, GiB = 2^30).
#pragma once

#include <cstdint>
#include <string>

namespace kvscope {

std::string with_commas(uint64_t n);     // 131072 -> "131,072"
std::string format_gb(uint64_t bytes);   // "2.147 GB"
std::string format_gib(uint64_t bytes);  // "2.000 GiB"
std::string format_binary_size(
    uint64_t bytes);  // "128 KiB", "16 GiB", "1.5 MiB": the largest fitting unit

}  // namespace kvscope
