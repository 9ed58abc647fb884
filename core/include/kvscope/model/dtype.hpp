// Storage formats for KV caches and weights, each with its exact cost including scales.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kvscope/base/error.hpp"

namespace kvscope {

enum class DtypeUse { kKv, kWeight };

// A format stores values in blocks: `block_values` values cost `block_bits` bits (block scales
// included), plus `row_scale_bits` once per row (a per-token-head scale). Rows are one head's
// values for KV and one output channel for weights.
struct Dtype {
  std::string name;  // canonical spelling, as engines spell it ("fp8", "q8_0", "awq-int4:g128")
  uint32_t block_values = 1;
  uint32_t block_bits = 16;
  uint32_t row_scale_bits = 0;
  bool for_kv = true;
  bool for_weights = true;
  bool exact = true;        // false for mixtures quoted at an average bits per weight (GGUF *_k_m)
  bool whole_file = false;  // a GGUF type: embeddings are quantized too
  std::string description;  // one line: what it is and where the cost comes from
};

// Parses a KV or weight dtype spelling (case-insensitive, aliases accepted). `field` names the
// input in errors ("kv_dtype", "weight_dtype").
Result<Dtype> parse_dtype(std::string_view spelling, DtypeUse use, const std::string& field);

// Maps a config.json torch_dtype ("bfloat16", "float16", "float32") to a dtype.
Result<Dtype> dtype_from_torch_dtype(std::string_view torch_dtype, const std::string& field);

// Every dtype usable for `use`, in display order (for --help, `kvscope dtypes` and the page).
std::vector<Dtype> list_dtypes(DtypeUse use);

// Exact bytes of `rows` rows of `row_values` values. Fails when a row is not a whole number of
// blocks (llama.cpp refuses such tensors) or the result overflows. `field` is a literal: this runs
// per layer group per sweep point, so it builds no string unless it fails.
Result<uint64_t> row_bytes(const Dtype& dtype, uint64_t row_values, uint64_t rows,
                           const char* field);

// Bytes of `values` values stored as one stream (weights): total bits rounded up to a byte.
Result<uint64_t> stream_bytes(const Dtype& dtype, uint64_t values, const char* field);

// Average bits per value for display, including block scales (not row scales).
double bits_per_value(const Dtype& dtype);

}  // namespace kvscope
