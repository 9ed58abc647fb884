// Decimal text to double, read by the core itself, not by the C library's strtod: the same value
// in the native CLI and the WebAssembly module, and no long-double arithmetic in the module
// (musl's strtod computes in 128-bit long double, which WebAssembly emulates in software: 6.9 kB
// gzipped; the modules send nlohmann/json's strtod calls here too, wasm/decimal_strtod.cpp).
#pragma once

#include <cstddef>
#include <string_view>

namespace kvscope {

// Reads a decimal number at the start of `text`: an optional sign, digits with an optional
// decimal point (at least one digit), and an optional exponent (e or E, an optional sign,
// digits). Sets `value` to the nearest double, ties to even, as a correct strtod does: +-inf past
// the largest double, +-0 or a subnormal below the smallest normal one. Returns how many
// characters it read; 0, with `value` 0, when `text` does not start with a number. Reads no
// leading space, no hexadecimal, no inf and no nan.
size_t read_decimal(std::string_view text, double& value);

}  // namespace kvscope
