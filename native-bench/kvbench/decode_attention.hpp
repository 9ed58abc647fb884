// Decode attention over a paged KV cache: one new query token per sequence attends to all of its
// cached tokens. A plain fp64 reference, and the fast CPU kernel (threads, SIMD, GQA grouping,
// online softmax in fp32).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cpu_kernels.hpp"
#include "paged_kv.hpp"

namespace kvbench {

// out[b][hq][d] in fp64: two-pass softmax, exactly the dequantized inputs the kernel reads.
std::vector<double> decode_attention_reference(const PagedKv& kv);

// The order a work unit reads the cache in:
//   head: a unit is (sequence, KV head, chunk): one head's rows, page after page (a GPU
//         kernel's thread block per KV head);
//   page: a unit is (sequence, chunk) over every KV head: a page's heads one after another
//         before the next page, so with HND pages it reads each page's K (and V) as one run.
enum class CpuWalk { kHead, kPage };
bool parse_cpu_walk(const std::string& name, CpuWalk& out);  // "head" or "page"
const char* cpu_walk_name(CpuWalk walk);

struct CpuPlan {
  uint32_t threads = 1;
  uint64_t chunk_tokens = 0;        // split each sequence into chunks of this many tokens; 0 = auto
  std::optional<CpuKernel> kernel;  // the code path; none = the widest this CPU runs
  CpuWalk walk = CpuWalk::kPage;
};

// The fast kernel. Each unit reads its K and V rows once and serves all q_heads / kv_heads query
// heads of a group from them; chunks of a sequence are merged by their log-sum-exp. `out` must
// hold batch x q_heads x head_dim floats. Throws std::invalid_argument for a path this CPU cannot
// run (supported_cpu_kernels).
void decode_attention_cpu(const PagedKv& kv, const CpuPlan& plan, float* out);

// The plan the kernel uses when chunk_tokens is 0: enough units to keep every thread busy.
uint64_t auto_chunk_tokens(const PagedKv& kv, uint32_t threads, CpuWalk walk);

struct Comparison {
  double max_abs_error = 0;
  double max_rel_error = 0;  // |o - ref| / max(|ref|, 1e-6)
  bool all_finite = true;
  bool pass = false;  // |o - ref| <= atol + rtol |ref| everywhere, and finite
};
Comparison compare(const std::vector<double>& reference, const float* out, double atol,
                   double rtol);

}  // namespace kvbench
