// kvbench's correctness check: the kernel's outputs against the fp64 reference on a subset (the
// reference is O(batch x heads x tokens x dim)): the first and last sequence of the first and
// last layer.
#pragma once

#include <cstdint>
#include <vector>

#include "paged_kv.hpp"

namespace kvbench {

struct Correctness {
  bool pass = true;
  double max_abs = 0, max_rel = 0;
  double atol = 2e-3, rtol = 2e-3;
};

// outputs[i]: cache i's outputs, batch x q_heads x head_dim.
Correctness check_outputs(const std::vector<PagedKv>& caches,
                          const std::vector<std::vector<float>>& outputs, uint32_t q_heads);

}  // namespace kvbench
