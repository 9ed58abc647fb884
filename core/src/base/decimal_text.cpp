// Correctly rounded decimal to binary: Clinger's exact path for short inputs, and otherwise the
// decimal's exact value as a big integer (Q * 2^e, plus whether anything was left over),
// rounded once. Slow, but only inputs of over 15 significant digits or with large exponents
// take it, and it is short (the module's bytes count more than such a read's microseconds).
#include "kvscope/base/decimal_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "kvscope/base/elementary_math.hpp"

namespace kvscope {
namespace {

// A halfway point between two doubles has at most 767 significant digits; past this many, the
// digits that follow only say whether the value lies above such a point (one more digit, a 1).
constexpr size_t kMaxDigits = 800;

// A non-negative integer in 32-bit limbs, least significant first: what the slow path needs, in
// fixed room (0.4 kB gzipped less in the module than in a vector).
class BigInteger {
 public:
  void multiply_add(uint32_t factor, uint32_t addend) {
    uint64_t carry = addend;
    for (int i = 0; i < size_; ++i) {
      carry += uint64_t{limbs_[i]} * factor;
      limbs_[i] = static_cast<uint32_t>(carry);
      carry >>= 32;
    }
    if (carry != 0) limbs_[size_++] = static_cast<uint32_t>(carry);
  }
  // Divides by `divisor`; true when the division left a remainder.
  bool divide(uint32_t divisor) {
    uint64_t remainder = 0;
    for (int i = size_ - 1; i >= 0; --i) {
      const uint64_t current = remainder << 32 | limbs_[i];
      limbs_[i] = static_cast<uint32_t>(current / divisor);
      remainder = current % divisor;
    }
    while (size_ > 0 && limbs_[size_ - 1] == 0) --size_;
    return remainder != 0;
  }
  void shift_left(int bits) {
    const int limbs = bits / 32;
    for (int i = size_ - 1; i >= 0; --i) limbs_[i + limbs] = limbs_[i];
    for (int i = 0; i < limbs; ++i) limbs_[i] = 0;
    size_ += limbs;
    multiply_add(uint32_t{1} << (bits % 32), 0);
  }
  int bit_length() const {
    int length = 32 * size_;
    for (uint32_t top = size_ == 0 ? 1u << 31 : limbs_[size_ - 1]; !(top & 1u << 31); top <<= 1)
      --length;
    return length;
  }
  bool bit(int i) const { return i >= 0 && i < 32 * size_ && (limbs_[i / 32] >> (i % 32) & 1u); }
  bool any_bit_below(int i) const {
    for (int j = 0; j < i; ++j)
      if (bit(j)) return true;
    return false;
  }

 private:
  // 801 digits (2,661 bits) shifted to 4 * 1,125 + 65 bits at most (decimal_to_double): 143 limbs.
  uint32_t limbs_[150] = {};
  int size_ = 0;
};

// q * 2^exponent (plus less than one unit of q when `inexact`), q > 0, as the nearest double,
// ties to even; below 2^-1022 the double keeps fewer bits (subnormals), down to none.
double round_to_double(const BigInteger& q, int exponent, bool inexact) {
  const int length = q.bit_length();
  const int top = length - 1 + exponent;  // the leading bit's binary exponent
  if (top > 1023) return HUGE_VAL;
  const int kept = std::min(53, top + 1075);
  const int dropped = length - kept;
  uint64_t mantissa = 0;
  for (int i = length - 1; i >= dropped && i >= 0; --i) mantissa = mantissa << 1 | q.bit(i);
  if (dropped > 0 && q.bit(dropped - 1) &&
      (inexact || q.any_bit_below(dropped - 1) || (mantissa & 1) != 0))
    ++mantissa;
  return std::ldexp(static_cast<double>(mantissa), std::max(dropped, 0) + exponent);
}

uint32_t ten_to(int64_t n) {  // n <= 9
  uint32_t p = 1;
  while (n-- > 0) p *= 10;
  return p;
}

// digits * 10^exponent10, digits a run of decimal digits without leading zeros.
double decimal_to_double(const std::string& digits, int64_t exponent10) {
  const int64_t count = static_cast<int64_t>(digits.size());
  if (count == 0 || count + exponent10 < -324) return 0;  // below half the smallest subnormal
  if (count + exponent10 > 310) return HUGE_VAL;
  if (count <= 15 && exponent10 >= -22 && exponent10 <= 22) {
    // Both operands exact (under 2^53, a power of ten a double holds), so one rounding: exact.
    uint64_t whole = 0;
    for (char c : digits) whole = whole * 10 + static_cast<uint64_t>(c - '0');
    const double scale = power_of_ten(static_cast<int>(exponent10 < 0 ? -exponent10 : exponent10));
    return exponent10 < 0 ? static_cast<double>(whole) / scale : static_cast<double>(whole) * scale;
  }
  // Nine digits at a time: 10^9 < 2^32.
  BigInteger q;
  for (size_t i = 0; i < digits.size(); i += 9) {
    const std::string_view chunk = std::string_view(digits).substr(i, 9);
    uint32_t chunk_value = 0;
    for (char c : chunk) chunk_value = chunk_value * 10 + static_cast<uint32_t>(c - '0');
    q.multiply_add(ten_to(chunk.size()), chunk_value);
  }
  if (exponent10 >= 0) {
    for (int64_t left = exponent10; left > 0; left -= 9) q.multiply_add(ten_to(std::min<int64_t>(left, 9)), 0);
    return round_to_double(q, 0, false);
  }
  // q * 2^shift / 10^-exponent10 keeps at least 64 bits (10 < 2^4), then rounds once.
  const int shift = std::max(0, 4 * static_cast<int>(-exponent10) + 65 - q.bit_length());
  q.shift_left(shift);
  bool inexact = false;
  for (int64_t left = -exponent10; left > 0; left -= 9) inexact |= q.divide(ten_to(std::min<int64_t>(left, 9)));
  return round_to_double(q, -shift, inexact);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

size_t read_decimal(std::string_view text, double& value) {
  value = 0;
  size_t at = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) ++at;
  std::string digits;          // significant digits, the first kMaxDigits of them
  int64_t exponent10 = 0;      // of the last kept digit
  bool any_digit = false, past_point = false, dropped_nonzero = false;
  for (; at < text.size(); ++at) {
    const char c = text[at];
    if (c == '.' && !past_point) {
      past_point = true;
      continue;
    }
    if (!is_digit(c)) break;
    any_digit = true;
    if (digits.size() < kMaxDigits && (c != '0' || !digits.empty())) {
      digits += c;
      exponent10 -= past_point;
    } else if (digits.empty()) {
      exponent10 -= past_point;  // a leading zero
    } else {
      dropped_nonzero |= c != '0';
      exponent10 += !past_point;
    }
  }
  if (!any_digit) return 0;
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    size_t end = at + 1;
    const bool exponent_negative = end < text.size() && text[end] == '-';
    if (end < text.size() && (text[end] == '-' || text[end] == '+')) ++end;
    if (end < text.size() && is_digit(text[end])) {
      int64_t exponent = 0;
      for (; end < text.size() && is_digit(text[end]); ++end)
        exponent = std::min<int64_t>(exponent * 10 + (text[end] - '0'), 1000000000);
      exponent10 += exponent_negative ? -exponent : exponent;
      at = end;
    }
  }
  if (dropped_nonzero) {  // above the kept digits' value, and above any halfway point they reach
    digits += '1';
    --exponent10;
  }
  const double magnitude = decimal_to_double(digits, exponent10);
  value = negative ? -magnitude : magnitude;
  return at;
}

}  // namespace kvscope
