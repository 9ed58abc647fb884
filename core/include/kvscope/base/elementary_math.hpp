// e^x, ln x and powers computed by the core itself, not by the C library: the same digits in the
// native CLI and the WebAssembly module on any platform, and no libm lookup tables in the module
// (musl's exp, log, log2 and pow carry about 12 kB of them, incompressible, docs/figures.md).
#pragma once

#include <cstdint>

namespace kvscope {

// e^x within about one unit in the last place; +inf past 709.78, 0 below -745.13, NaN for NaN.
double natural_exp(double x);

// ln x within about one unit in the last place; -inf at 0, NaN below 0 or for NaN, +inf at +inf.
double natural_log(double x);

// base^n for base >= 0 (a probability to the power of a count) as e^(n ln base): its relative
// error is about |n ln base| units in the last place. 1 for n = 0; NaN for a negative base.
double power_uint(double base, uint64_t n);

// 10^n as the nearest double, exactly as the literal 1e<n> would be, for |n| <= 22 (the powers
// of ten a double holds exactly); outside that range, repeated multiplication or division.
double power_of_ten(int n);

}  // namespace kvscope
