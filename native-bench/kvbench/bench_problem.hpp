// What kvbench measures: the model's attention layers as the core imports them, the sequence
// lengths, and the paged caches built for them; the core's estimate of the bytes they read.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench_args.hpp"
#include "kvscope/kv/estimate.hpp"
#include "paged_kv.hpp"

namespace kvbench {

struct Problem {
  kvscope::EstimateReport report;
  KvType kv_type = KvType::kBf16;
  std::vector<uint64_t> lengths;  // one per sequence
  std::string lengths_description;
  std::vector<kvscope::LayerSpec> layers;  // the first attention layer, or all of them
  uint32_t q_heads = 0;
};

// Refuses what the kernels do not cover (MLA, dtypes) and caches past half the machine's memory.
std::optional<Usage> make_problem(const BenchArgs& args, Problem& out);

// One paged cache per layer, of the tokens each sequence attends to there.
std::vector<PagedKv> build_caches(const Problem& p, const BenchArgs& args);

// The core's count: KV bytes per token per layer x attended tokens, over every layer and sequence.
uint64_t estimated_kv_bytes(const Problem& p);

}  // namespace kvbench
