// The core's decimal reader against glibc's strtod, which rounds correctly: the same double, bit
// for bit, and the same characters read, on chosen edges, random decimals and exact halfway points.
#include "kvscope/base/decimal_text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

namespace kvscope {
namespace {

uint64_t bits_of(double x) {
  uint64_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// read_decimal and strtod agree on `text`'s value (bit for bit) and on the characters read.
void expect_as_strtod(const std::string& text) {
  char* end = nullptr;
  const double expected = std::strtod(text.c_str(), &end);
  double value = 1;
  const size_t read = read_decimal(text, value);
  EXPECT_EQ(bits_of(value), bits_of(expected)) << text << ": " << value << " vs " << expected;
  EXPECT_EQ(read, static_cast<size_t>(end - text.c_str())) << text;
}

double read(const std::string& text) {
  double value = 0;
  EXPECT_EQ(read_decimal(text, value), text.size()) << text;
  return value;
}

TEST(DecimalText, ReadsTheEdgesAsStrtod) {
  for (const char* text : {
           "0", "-0", "+0", "0.0", "1", "-1", "0.1", ".5", "5.", "-.5e-3", "1e23", "8.5e-1",
           "9007199254740993",                  // 2^53 + 1: a tie, to the even 2^53
           "9007199254740995",                  // a tie, to the even 2^53 + 4
           "123456789012345678901234567890",    // over 2^64
           "2.2250738585072011e-308",           // the largest subnormal's neighbourhood
           "2.2250738585072012e-308", "2.2250738585072014e-308",
           "4.9406564584124654e-324",           // the smallest subnormal
           "2.4703282292062327e-324",           // just under half of it: 0
           "2.4703282292062328e-324",           // just over: the smallest subnormal
           "1e-324", "3e-324", "7e-324", "1e-400",
           "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
           "1e309", "-1e400", "1e22", "1e-22", "123456789012345e-22", "1234567890123456e22",
           "1e99999999999999999999", "1e-99999999999999999999", "0e99999999999999999999",
           "7.038531e-26", "3.141592653589793238462643383279", "1e-05", "0.02", "500000.0",
           "12abc", "1e", "1e+", "1e-x", "-", "+", ".", "-.", "", "e5", "1.2.3", "0.5E+2z"})
    expect_as_strtod(text);
}

TEST(DecimalText, ReadsNoSpaceHexadecimalInfinityOrNan) {
  double value = 1;
  EXPECT_EQ(read_decimal(" 5", value), 0u);
  EXPECT_EQ(value, 0.0);
  EXPECT_EQ(read_decimal("inf", value), 0u);
  EXPECT_EQ(read_decimal("nan", value), 0u);
  EXPECT_EQ(read_decimal("0x10", value), 1u);  // the 0, as strtod would read "0x" alone
  EXPECT_EQ(value, 0.0);
}

TEST(DecimalText, CountsLeadingAndTrailingZerosPastItsDigitLimit) {
  const std::string zeros(10000, '0');
  EXPECT_EQ(read("0." + zeros + "1e10001"), 1.0);
  EXPECT_EQ(read("1" + zeros + "e-10000"), 1.0);
  EXPECT_EQ(read(zeros + "2.5"), 2.5);
  EXPECT_EQ(read("0.1" + zeros), 0.1);
  EXPECT_EQ(std::signbit(read("-0." + zeros)), true);
  for (int leading : {322, 323, 324})  // the slow path's widest integers: 801 digits at 10^-1125
    expect_as_strtod("0." + std::string(static_cast<size_t>(leading), '0') + std::string(1000, '9'));
}

TEST(DecimalText, AgreesWithStrtodOnRandomDecimals) {
  std::mt19937_64 gen(11);
  std::uniform_int_distribution<int> digit(0, 9), coin(0, 1), exponent(-345, 330);
  for (int i = 0; i < 40000; ++i) {
    // Mostly short decimals near the fast path's edges; some long enough to be truncated.
    const int count = i % 50 == 0 ? 700 + static_cast<int>(gen() % 300) : 1 + static_cast<int>(gen() % 25);
    std::string text = coin(gen) ? "-" : "";
    const int point = static_cast<int>(gen() % static_cast<uint64_t>(count + 1));
    for (int d = 0; d < count; ++d) {
      if (d == point) text += '.';
      text += static_cast<char>('0' + digit(gen));
    }
    if (i % 4 != 0) text += "e" + std::to_string(i % 8 < 4 ? exponent(gen) : exponent(gen) % 25);
    expect_as_strtod(text);
  }
}

// The exact decimal of the midpoint between a double and the next one up (a long double holds
// it: 54 bits), and that midpoint nudged up and down by far less than a unit in the last place.
TEST(DecimalText, RoundsExactHalfwayPointsToEvenAndNudgedOnesAway) {
  ASSERT_GE(std::numeric_limits<long double>::digits, 54) << "exact midpoints need a wider long double";
  std::mt19937_64 gen(5);
  int checked = 0;
  for (int i = 0; i < 3000; ++i) {
    double low = 0;
    const uint64_t bits = i % 3 == 0 ? gen() % (uint64_t{1} << 52)      // subnormal
                                     : gen() % 0x7fe0000000000000ull;  // finite, below the largest
    std::memcpy(&low, &bits, sizeof low);
    const double high = std::nextafter(low, HUGE_VAL);
    const long double middle = (static_cast<long double>(low) + high) / 2;
    char buffer[1200];
    std::snprintf(buffer, sizeof buffer, "%.800Le", middle);
    std::string exact = buffer;
    const size_t e = exact.find('e');
    std::string mantissa = exact.substr(0, e), power = exact.substr(e);
    while (mantissa.back() == '0') mantissa.pop_back();
    const double even = (bits & 1) == 0 ? low : high;
    EXPECT_EQ(bits_of(read(mantissa + power)), bits_of(even)) << mantissa << power;
    EXPECT_EQ(bits_of(read(mantissa + "0001" + power)), bits_of(high)) << mantissa << power;
    const std::string far_above = mantissa + std::string(900, '0') + "1";  // past 800 digits
    EXPECT_EQ(bits_of(read(far_above + power)), bits_of(high)) << mantissa << power;
    std::string below = mantissa;
    --below.back();  // the last digit of an exact midpoint is 5
    EXPECT_EQ(bits_of(read(below + "9999" + power)), bits_of(low)) << mantissa << power;
    expect_as_strtod(mantissa + power);
    ++checked;
  }
  EXPECT_EQ(checked, 3000);
}

}  // namespace
}  // namespace kvscope
