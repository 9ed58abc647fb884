// Argument reduction and polynomials of the textbook kind: e^x = 2^k e^r with |r| <= ln2 / 2, and
// ln x = k ln2 + ln(1 + f) with ln(1 + f) = 2 atanh(f / (2 + f)), both series in double precision.
#include "kvscope/base/elementary_math.hpp"

#include <array>
#include <cmath>
#include <limits>

namespace kvscope {
namespace {

// ln 2 split so that k * kLn2High is exact for |k| < 2^21 (its low 21 bits are zero).
constexpr double kLn2High = 0x1.62e42fee00000p-1;
constexpr double kLn2Low = 0x1.a39ef35793c76p-33;
constexpr double kLog2E = 0x1.71547652b82fep+0;  // 1 / ln 2
constexpr double kSqrtHalf = 0x1.6a09e667f3bcdp-1;

// 1/n! for n <= 13, each from the one before: a last-digit error in 1/n! for n >= 5 is below
// 2^-60 of e^r.
constexpr std::array<double, 14> kInverseFactorial = [] {
  std::array<double, 14> c{1.0};
  for (size_t n = 1; n < c.size(); ++n) c[n] = c[n - 1] / static_cast<double>(n);
  return c;
}();

// 2 / (2k + 1) for k <= 11: the series of 2 atanh(s) / s - 2 in powers of s^2.
constexpr std::array<double, 12> kAtanhTerms = [] {
  std::array<double, 12> c{};
  for (size_t k = 1; k < c.size(); ++k) c[k] = 2.0 / static_cast<double>(2 * k + 1);
  return c;
}();

}  // namespace

double natural_exp(double x) {
  if (std::isnan(x)) return x;
  if (x > 709.782712893384) return std::numeric_limits<double>::infinity();
  if (x < -745.1332191019412) return 0.0;
  const double k = std::floor(x * kLog2E + 0.5);  // |k| <= 1075
  const double r = (x - k * kLn2High) - k * kLn2Low;  // |r| <= 0.35; the first difference is exact
  // e^r - 1 = r + r^2 (1/2! + r (1/3! + ... + r 1/13!)): the next term is below 2^-60 of it.
  double tail = kInverseFactorial[13];
  for (size_t n = 12; n >= 2; --n) tail = tail * r + kInverseFactorial[n];
  return std::ldexp(1.0 + (r + r * r * tail), static_cast<int>(k));
}

double natural_log(double x) {
  if (!(x > 0)) return x == 0 ? -std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(x)) return x;
  int e = 0;
  double m = std::frexp(x, &e);  // x = m 2^e, m in [1/2, 1), subnormal x included
  if (m < kSqrtHalf) {
    m *= 2;
    --e;
  }
  const double f = m - 1;  // exact; f in [-0.293, 0.415)
  const double s = f / (2 + f), z = s * s;  // |s| <= 0.172
  // 2 atanh(s) = 2s + s R, R = sum over k >= 1 of 2 z^k / (2k + 1); z^12 is below 2^-60.
  double r = kAtanhTerms[11];
  for (size_t k = 10; k >= 1; --k) r = r * z + kAtanhTerms[k];
  r *= z;
  // ln(1 + f) = f - (f^2/2 - s (f^2/2 + R)), since 2s = f - s f: f is exact and carries the most.
  const double half_f2 = 0.5 * f * f;
  const double k = e;
  return k * kLn2High - ((half_f2 - (s * (half_f2 + r) + k * kLn2Low)) - f);
}

double power_uint(double base, uint64_t n) {
  if (n == 0) return 1.0;
  if (base == 0) return 0.0;
  return natural_exp(static_cast<double>(n) * natural_log(base));
}

double power_of_ten(int n) {
  double p = 1.0;
  for (int i = 0; i < (n < 0 ? -n : n); ++i) p *= 10.0;  // exact up to 10^22
  return n < 0 ? 1.0 / p : p;  // one rounding of an exact quotient: the nearest double
}

}  // namespace kvscope
