// The machine's memory read bandwidth, measured the way decode attention uses memory: a
// read-only streaming sum over a buffer far larger than the last-level cache, on the same
// threads as the kernel (shared/docs/research/kernels.md §5.4).
#pragma once

#include <cstdint>
#include <vector>

#include "paged_kv.hpp"

namespace kvbench {

struct BandwidthMeasurement {
  double bytes_per_s = 0;  // best of the runs, as STREAM reports
  uint64_t buffer_bytes = 0;
  uint32_t threads = 0;
  uint32_t runs = 0;
};

BandwidthMeasurement measure_read_bandwidth(uint32_t threads, uint64_t buffer_bytes, uint32_t runs);

// The same threads reading the paged caches themselves, nothing computed: each (sequence, KV
// head)'s K and V runs page by page in block-table order, the next pages prefetched. The most any
// kernel could read this layout at: shuffled small pages cost what a streaming sum does not.
// buffer_bytes is the K and V bytes read per run.
BandwidthMeasurement measure_paged_read_bandwidth(const std::vector<PagedKv>& caches,
                                                  uint32_t threads, uint32_t runs);

}  // namespace kvbench
