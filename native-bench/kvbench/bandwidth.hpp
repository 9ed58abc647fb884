// The machine's memory read bandwidth, measured the way decode attention uses memory: a
// read-only streaming read over a buffer far larger than the last-level cache, on the same
// threads as the kernel (shared/docs/research/kernels.md §5.4), cross-checked in the same minute
// by a second, independent read kernel; and the paged KV caches read with nothing computed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "decode_attention.hpp"
#include "paged_kv.hpp"

namespace kvbench {

struct BandwidthMeasurement {
  double bytes_per_s = 0;            // best of the runs, as STREAM reports
  std::vector<double> runs_per_s;    // every run, in order: the spread
  uint64_t buffer_bytes = 0;
  uint32_t threads = 0;
  double median() const;
  double worst() const;
};

// Two read kernels over the same buffer, their runs interleaved so both see the same machine:
// `stream` XORs 64-bit words (one-cycle latency: no arithmetic can be the limit, whatever the
// compiler targets), `check` adds fp32 values into 32 independent sums. Their best runs agree
// within a few percent when the memory system, not the code, is what they measure.
struct StreamMeasurement {
  BandwidthMeasurement stream, check;
  std::string pages;  // the buffer's pages: "2 MiB transparent huge pages (N% of the buffer)" ...
};
// `between`, when given, runs after each round's stream and cross-check runs: kvbench times a
// kernel step there (after an untimed one), so that each step has a stream run of the same second
// beside it (a shared host's bandwidth can halve and recover within a second).
StreamMeasurement measure_read_bandwidth(uint32_t threads, uint64_t buffer_bytes, uint32_t runs,
                                         const std::function<void()>& between = {});

// The same threads reading the paged caches themselves, nothing computed: the kernel's units in
// the kernel's order (`walk`), each row's K and V, the rows two pages on prefetched. The most any
// kernel could read this layout at: shuffled small pages cost what a streaming sum does not.
// buffer_bytes is the K and V bytes read per run.
BandwidthMeasurement measure_paged_read_bandwidth(const std::vector<PagedKv>& caches,
                                                  uint32_t threads, uint32_t runs, CpuWalk walk);

}  // namespace kvbench
