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
namespace {

// The best rate of `runs` runs, each timing read(t) on threads t = 0..threads-1 after
// before_run(); every read returns a sum, kept observable so that the reads cannot be dropped.
template <class BeforeRun, class Read>
BandwidthMeasurement best_of_runs(uint32_t threads, uint32_t runs, uint64_t bytes,
                                  BeforeRun&& before_run, Read&& read) {
  std::vector<double> sums(threads);
  double best = 0;
  for (uint32_t r = 0; r < runs; ++r) {
    before_run();
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (uint32_t t = 0; t < threads; ++t) pool.emplace_back([&, t] { sums[t] = read(t); });
    for (auto& th : pool) th.join();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, static_cast<double>(bytes) / seconds);
  }
  volatile double sink = 0;
  for (double s : sums) sink = sink + s;
  return {best, bytes, threads, runs};
}

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
  return best_of_runs(
      threads, runs, n * sizeof(float), [] {},
      [&](uint32_t t) {
        const float* p = buffer.data() + n * t / threads;
        const uint64_t count = n * (t + 1) / threads - n * t / threads;
        float s = 0;
#pragma omp simd reduction(+ : s)
        for (uint64_t i = 0; i < count; ++i) s += p[i];
        return static_cast<double>(s);
      });
}

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
    const uint64_t page = kv.shape.page_size, pages = kv.pages[u.seq].size();
    const uint64_t row = kv.page_bytes() / page;
    for (uint64_t p = 0; p < pages; ++p) {
      const uint64_t used = std::min<uint64_t>(page, kv.lengths[u.seq] - p * page) * row;
      const uint8_t* k = kv.k_row(u.seq, p * page, u.head);
      const uint8_t* v = kv.v_row(u.seq, p * page, u.head);
      const uint8_t* k_ahead = p + 2 < pages ? kv.k_row(u.seq, (p + 2) * page, u.head) : nullptr;
      const uint8_t* v_ahead = p + 2 < pages ? kv.v_row(u.seq, (p + 2) * page, u.head) : nullptr;
      for (uint64_t o = 0; o < used; o += 64) {
        if (k_ahead != nullptr) {
          __builtin_prefetch(k_ahead + o, 0, 2);
          __builtin_prefetch(v_ahead + o, 0, 2);
        }
        const uint64_t n = std::min<uint64_t>(64, used - o);
        sum_into(k + o, n, lane);
        sum_into(v + o, n, lane);
      }
    }
  };
  std::atomic<uint64_t> next{0};
  return best_of_runs(
      threads, runs, bytes, [&] { next = 0; },
      [&](uint32_t) {
        uint64_t lane[4] = {0, 0, 0, 0};
        for (uint64_t i = next++; i < units.size(); i = next++) read_unit(units[i], lane);
        return static_cast<double>(lane[0] + lane[1] + lane[2] + lane[3]);
      });
}

}  // namespace kvbench
