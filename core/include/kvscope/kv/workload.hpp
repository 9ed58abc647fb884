// Request lengths as distributions, and how many sequences a KV pool sustains for them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kvscope/model/dtype.hpp"
#include "kvscope/base/error.hpp"
#include "kvscope/model/model_shape.hpp"

namespace kvscope {

enum class LengthKind { kFixed, kUniform, kLogNormal };

// Token counts: "4096", "uniform:512-8192", "lognormal:mean=2000,p99=16000" (a k suffix
// multiplies by 1024 as elsewhere).
struct LengthDistribution {
  LengthKind kind = LengthKind::kFixed;
  uint64_t fixed = 0;
  uint64_t min = 0, max = 0;  // uniform, inclusive
  double mean = 0, p99 = 0;   // log-normal
  double mu = 0, sigma = 0;   // of ln(length), derived from mean and p99

  // Points and weights (summing to 1) whose weighted sums approximate expectations.
  std::vector<std::pair<double, double>> quadrature() const;
  std::string describe() const;
};

Result<LengthDistribution> parse_length_distribution(std::string_view spec,
                                                     const std::string& field);

struct WorkloadInput {
  LengthDistribution prompt;
  LengthDistribution output;
  uint64_t shared_prefix_tokens = 0;  // common to every request, stored once, before its prompt
  uint64_t max_model_len = 0;         // lengths are clipped to it, as an engine truncates
  uint64_t block_size_tokens = 0;
};

struct WorkloadCapacity {
  double mean_prompt_tokens = 0;
  double mean_output_tokens = 0;
  double mean_tokens_held = 0;         // per sequence, sampled at a random decode step
  double mean_bytes_per_sequence = 0;  // KV held (private part), state included
  double stddev_bytes_per_sequence = 0;
  double expected_concurrency = 0;  // pool / mean
  uint64_t p99_concurrency = 0;     // sequences whose total fits the pool with 99% probability
  std::vector<std::string> assumptions;
};

// Concurrency a pool of `pool_bytes` sustains for the workload on `shape` (one GPU's share).
Result<WorkloadCapacity> workload_capacity(const ModelShape& shape, const Dtype& kv,
                                           const Dtype& state, uint64_t pool_bytes,
                                           const WorkloadInput& workload);

}  // namespace kvscope
