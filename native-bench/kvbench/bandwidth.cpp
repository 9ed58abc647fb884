// Read-only streaming bandwidth: each thread sums its contiguous share of one large buffer.
#include "bandwidth.hpp"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "huge_pages.hpp"

namespace kvbench {

BandwidthMeasurement measure_read_bandwidth(uint32_t threads, uint64_t buffer_bytes,
                                            uint32_t runs) {
  threads = std::max(1u, threads);
  const uint64_t n = buffer_bytes / sizeof(float);
  HugePageVector<float> buffer(n);  // the same pages as the KV pools: a like-for-like ceiling
  // First touch by the threads that will read (NUMA placement), with values that cannot be folded.
  {
    std::vector<std::thread> pool;
    for (uint32_t t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        for (uint64_t i = n * t / threads; i < n * (t + 1) / threads; ++i)
          buffer[i] = static_cast<float>(i & 1023);
      });
    }
    for (auto& th : pool) th.join();
  }
  std::vector<double> sums(threads);
  double best = 0;
  for (uint32_t r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (uint32_t t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        const float* p = buffer.data() + n * t / threads;
        const uint64_t count = n * (t + 1) / threads - n * t / threads;
        float s = 0;
#pragma omp simd reduction(+ : s)
        for (uint64_t i = 0; i < count; ++i) s += p[i];
        sums[t] = s;
      });
    }
    for (auto& th : pool) th.join();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, static_cast<double>(n * sizeof(float)) / seconds);
  }
  volatile double sink = 0;
  for (double s : sums) sink = sink + s;  // keeps the sums observable
  return {best, n * sizeof(float), threads, runs};
}

}  // namespace kvbench
