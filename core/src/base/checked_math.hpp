// Overflow-checked unsigned 64-bit arithmetic: byte counts are exact or the call fails.
#pragma once

#include <cstdint>

namespace kvscope {

// Accumulates an overflow flag instead of wrapping, so a chain of operations is checked once.
class CheckedU64 {
 public:
  constexpr CheckedU64() = default;
  constexpr CheckedU64(uint64_t v) : value_(v) {}  // NOLINT: implicit by design

  static constexpr CheckedU64 overflow() {
    CheckedU64 r;
    r.overflowed_ = true;
    return r;
  }
  constexpr uint64_t value() const { return value_; }
  constexpr bool overflowed() const { return overflowed_; }

  friend CheckedU64 operator*(CheckedU64 a, CheckedU64 b) {
    CheckedU64 r;
    r.overflowed_ =
        a.overflowed_ || b.overflowed_ || __builtin_mul_overflow(a.value_, b.value_, &r.value_);
    return r;
  }
  friend CheckedU64 operator+(CheckedU64 a, CheckedU64 b) {
    CheckedU64 r;
    r.overflowed_ =
        a.overflowed_ || b.overflowed_ || __builtin_add_overflow(a.value_, b.value_, &r.value_);
    return r;
  }
  CheckedU64& operator+=(CheckedU64 b) { return *this = *this + b; }

 private:
  uint64_t value_ = 0;
  bool overflowed_ = false;
};

constexpr uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

}  // namespace kvscope
