// The core's own e^x, ln x and powers against the C library's, and at their edges.
#include "kvscope/base/elementary_math.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

namespace kvscope {
namespace {

// Distance in units in the last place between two finite doubles of the same sign.
int64_t ulps_apart(double a, double b) {
  int64_t x = 0, y = 0;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x > y ? x - y : y - x;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(ElementaryMath, ExpWithinOneUlpOfTheLibrary) {
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> wide(-745.0, 709.7), near_zero(-2.0, 2.0);
  int64_t worst = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x = i % 2 ? wide(gen) : near_zero(gen);
    worst = std::max(worst, ulps_apart(natural_exp(x), std::exp(x)));
  }
  EXPECT_LE(worst, 1);
}

TEST(ElementaryMath, LogWithinOneUlpOfTheLibrary) {
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> exponent(-1074.0, 1023.9), near_one(0.5, 2.0);
  int64_t worst = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x = i % 2 ? std::exp2(exponent(gen)) : near_one(gen);  // subnormals included
    const double ours = natural_log(x), theirs = std::log(x);
    ASSERT_EQ(std::signbit(ours), std::signbit(theirs)) << x;  // ulps_apart needs one sign
    worst = std::max(worst, ulps_apart(ours, theirs));
  }
  EXPECT_LE(worst, 1);
}

TEST(ElementaryMath, ExactAndSpecialValues) {
  EXPECT_EQ(natural_exp(0.0), 1.0);
  EXPECT_EQ(natural_log(1.0), 0.0);
  EXPECT_EQ(natural_exp(710.0), kInf);
  EXPECT_EQ(natural_exp(-746.0), 0.0);
  EXPECT_EQ(natural_exp(-kInf), 0.0);
  EXPECT_EQ(natural_exp(kInf), kInf);
  EXPECT_TRUE(std::isfinite(natural_exp(709.78)));
  EXPECT_GT(natural_exp(-745.0), 0.0);  // the smallest subnormal, not zero
  EXPECT_TRUE(std::isnan(natural_exp(std::nan(""))));
  EXPECT_EQ(natural_log(0.0), -kInf);
  EXPECT_EQ(natural_log(kInf), kInf);
  EXPECT_TRUE(std::isnan(natural_log(-1.0)));
  EXPECT_TRUE(std::isnan(natural_log(-kInf)));
  EXPECT_TRUE(std::isnan(natural_log(std::nan(""))));
  EXPECT_DOUBLE_EQ(natural_log(std::numeric_limits<double>::denorm_min()), -744.44007192138126);
  EXPECT_DOUBLE_EQ(natural_log(2.0), 0.69314718055994531);
}

TEST(ElementaryMath, PowersOfTenAreTheNearestDoubles) {
  for (int n = -22; n <= 22; ++n) EXPECT_EQ(power_of_ten(n), std::pow(10.0, n)) << n;
  EXPECT_EQ(power_of_ten(-3), 1e-3);
  EXPECT_EQ(power_of_ten(22), 1e22);
}

TEST(ElementaryMath, PowersOfACount) {
  EXPECT_EQ(power_uint(0.75, 0), 1.0);
  EXPECT_EQ(power_uint(0.0, 0), 1.0);
  EXPECT_EQ(power_uint(0.0, 3), 0.0);
  EXPECT_EQ(power_uint(1.0, 1u << 30), 1.0);
  EXPECT_EQ(power_uint(0.5, 1100), 0.0);  // underflows, as pow does
  EXPECT_TRUE(std::isnan(power_uint(-0.5, 2)));
  // An expert's miss rate over a batch (top-8 of 256 experts), as roofline.cpp uses it: within
  // |n ln base| + 4 units in the last place of pow.
  const double miss = 1.0 - 8.0 / 256.0;
  for (uint64_t n : {1ull, 7ull, 9ull, 64ull, 1000ull, 4096ull, 20000ull}) {
    const double exact = std::pow(miss, static_cast<double>(n));
    const double ulps = static_cast<double>(n) * -std::log(miss) + 4;
    EXPECT_NEAR(power_uint(miss, n), exact, ulps * exact * 0x1p-52) << n;
  }
}

}  // namespace
}  // namespace kvscope
