// Read-only bandwidth: a streaming sum over one large buffer, and the paged KV caches read in
// block-table order.
#include "bandwidth.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
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

namespace {

// Adds [p, p + bytes) into four 8-byte lanes, 32 bytes at a time (one vector load), any tail
// byte by byte: reading, not adding, is what it measures.
void sum_into(const uint8_t* p, uint64_t bytes, uint64_t (&lane)[4]) {
  uint64_t i = 0, w[4];
  for (; i + 32 <= bytes; i += 32) {
    std::memcpy(w, p + i, 32);
    for (int j = 0; j < 4; ++j) lane[j] += w[j];
  }
  for (; i < bytes; ++i) lane[0] += p[i];
}

}  // namespace

BandwidthMeasurement measure_paged_read_bandwidth(const std::vector<PagedKv>& caches,
                                                  uint32_t threads, uint32_t runs) {
  threads = std::max(1u, threads);
  struct Unit {
    const PagedKv* kv;
    uint64_t seq;
    uint32_t head;
  };
  std::vector<Unit> units;
  uint64_t bytes = 0;
  for (const PagedKv& kv : caches) {
    const uint64_t row = kv.page_bytes() / kv.shape.page_size;
    for (uint64_t b = 0; b < kv.lengths.size(); ++b) {
      for (uint32_t h = 0; h < kv.shape.kv_heads; ++h) units.push_back({&kv, b, h});
      bytes += 2 * kv.lengths[b] * row * kv.shape.kv_heads;
    }
  }
  // One (sequence, head): a line of K and of V at a time, each with a prefetch into L2 of the same
  // line two pages on (the kernel's distance: a tile of 32 tokens).
  auto read_unit = [](const Unit& u, uint64_t(&lane)[4]) {
    const PagedKv& kv = *u.kv;
    const std::vector<uint32_t>& pages = kv.pages[u.seq];
    const uint64_t page_bytes = kv.page_bytes(), row = page_bytes / kv.shape.page_size;
    auto run = [&](uint64_t p) {
      return (uint64_t{pages[p]} * kv.shape.kv_heads + u.head) * page_bytes;
    };
    for (uint64_t p = 0; p < pages.size(); ++p) {
      const uint64_t used =
          std::min<uint64_t>(kv.shape.page_size, kv.lengths[u.seq] - p * kv.shape.page_size) * row;
      const bool ahead = p + 2 < pages.size();
      for (uint64_t o = 0; o < used; o += 64) {
        if (ahead) {
          __builtin_prefetch(kv.k.data() + run(p + 2) + o, 0, 2);
          __builtin_prefetch(kv.v.data() + run(p + 2) + o, 0, 2);
        }
        const uint64_t n = std::min<uint64_t>(64, used - o);
        sum_into(kv.k.data() + run(p) + o, n, lane);
        sum_into(kv.v.data() + run(p) + o, n, lane);
      }
    }
  };
  std::vector<uint64_t> sums(threads);
  double best = 0;
  for (uint32_t r = 0; r < runs; ++r) {
    std::atomic<uint64_t> next{0};
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (uint32_t t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        uint64_t lane[4] = {0, 0, 0, 0};
        for (uint64_t i = next++; i < units.size(); i = next++) read_unit(units[i], lane);
        sums[t] = lane[0] + lane[1] + lane[2] + lane[3];
      });
    }
    for (auto& th : pool) th.join();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, static_cast<double>(bytes) / seconds);
  }
  volatile uint64_t sink = 0;
  for (uint64_t s : sums) sink = sink + s;  // keeps the sums observable
  return {best, bytes, threads, runs};
}

}  // namespace kvbench
