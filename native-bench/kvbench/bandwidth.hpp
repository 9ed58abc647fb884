// The machine's memory read bandwidth, measured the way decode attention uses memory: a
// read-only streaming sum over a buffer far larger than the last-level cache, on the same
// threads as the kernel (shared/docs/research/kernels.md §5.4).
#pragma once

#include <cstdint>

namespace kvbench {

struct BandwidthMeasurement {
  double bytes_per_s = 0;  // best of the runs, as STREAM reports
  uint64_t buffer_bytes = 0;
  uint32_t threads = 0;
  uint32_t runs = 0;
};

BandwidthMeasurement measure_read_bandwidth(uint32_t threads, uint64_t buffer_bytes, uint32_t runs);

}  // namespace kvbench
