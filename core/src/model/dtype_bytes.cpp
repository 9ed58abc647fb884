// A dtype's byte arithmetic: rows and streams of values in whole blocks (the table is dtype.cpp).
// Apart from the table: these run for every layer of every plan, the table once per answer, so
// the WebAssembly build compiles this file for speed and that one for size (core/CMakeLists.txt).
#include "kvscope/model/dtype.hpp"

#include "base/checked_math.hpp"

namespace kvscope {

Result<uint64_t> row_bytes(const Dtype& dtype, uint64_t row_values, uint64_t rows,
                           const char* field) {
  if (row_values % dtype.block_values != 0) {
    return Result<uint64_t>::failure(
        make_error(kInvalidValue, field,
                   dtype.name + " stores blocks of " + std::to_string(dtype.block_values) +
                       " values; a row of " + std::to_string(row_values) +
                       " values is not a whole number of blocks"));
  }
  const CheckedU64 bits_per_row =
      CheckedU64(row_values / dtype.block_values) * dtype.block_bits + dtype.row_scale_bits;
  if (!bits_per_row.overflowed() && bits_per_row.value() % 8 != 0) {
    return Result<uint64_t>::failure(make_error(kInvalidValue, field,
                                                dtype.name + " rows of " +
                                                    std::to_string(row_values) +
                                                    " values are not a whole number of bytes"));
  }
  const CheckedU64 total = CheckedU64(bits_per_row.value() / 8) * rows;
  if (bits_per_row.overflowed() || total.overflowed()) {
    return Result<uint64_t>::failure(make_error(kOutOfRange, field, "byte count exceeds 2^64-1"));
  }
  return Result<uint64_t>::success(total.value());
}

Result<uint64_t> stream_bytes(const Dtype& dtype, uint64_t values, const char* field) {
  // Whole blocks, then the partial block at its proportional cost, rounded up to a byte.
  const CheckedU64 whole_bits = CheckedU64(values / dtype.block_values) * dtype.block_bits;
  const CheckedU64 tail_bits =
      CheckedU64(ceil_div((values % dtype.block_values) * dtype.block_bits, dtype.block_values));
  const CheckedU64 bits = whole_bits + tail_bits;
  if (bits.overflowed()) {
    return Result<uint64_t>::failure(make_error(kOutOfRange, field, "byte count exceeds 2^64-1"));
  }
  return Result<uint64_t>::success(ceil_div(bits.value(), 8));
}

double bits_per_value(const Dtype& dtype) {
  return static_cast<double>(dtype.block_bits) / static_cast<double>(dtype.block_values);
}

}  // namespace kvscope
