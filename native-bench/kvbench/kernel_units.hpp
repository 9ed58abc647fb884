// What decode_attention_cpu hands each kernel path (kernel_*.cpp): the work units, their partial
// results, and one entry point per path that a thread calls to take units until none are left.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "paged_kv.hpp"

namespace kvbench {

// One (sequence, chunk of tokens) of `heads` consecutive KV heads from `head`, walked a tile of
// tokens at a time and, within a tile, one KV head after another: each K and V row is read once
// and serves all q_heads / kv_heads query heads of its group.
struct WorkUnit {
  uint64_t seq;
  uint32_t head, heads;
  uint64_t begin, end;
};

struct Partial {
  // Per KV head of the unit, per query head of its group: running max, sum, sum of p.v.
  std::vector<float> m, l, acc;
};

struct UnitQueue {
  const PagedKv& kv;
  const std::vector<WorkUnit>& units;
  std::vector<Partial>& partials;
  std::atomic<uint64_t>& next;  // the first unit no thread has taken
};

// Each runs units from the queue until it is empty; built with its instruction set's target
// (kernel_portable.cpp, kernel_avx2.cpp, kernel_avx512.cpp, kernel_avx512_bf16.cpp,
// kernel_avx512_vnni.cpp).
void run_units_portable(UnitQueue& queue);
void run_units_avx2(UnitQueue& queue);
void run_units_avx512(UnitQueue& queue);
void run_units_avx512_bf16(UnitQueue& queue);
void run_units_avx512_vnni(UnitQueue& queue);

}  // namespace kvbench
