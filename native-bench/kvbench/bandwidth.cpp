// Read-only bandwidth: two streaming kernels over one large buffer, and the paged KV caches read
// in block-table order.
#include "bandwidth.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "bench_timing.hpp"
#include "huge_pages.hpp"

namespace kvbench {
namespace {

// The best rate of `runs` runs, each timing read(t) on threads t = 0..threads-1 after
// before_run(); every read returns a sum, kept observable so that the reads cannot be dropped.
template <class BeforeRun, class Read>
void time_run(uint32_t threads, uint64_t bytes, BeforeRun&& before_run, Read&& read,
              BandwidthMeasurement& into) {
  std::vector<double> sums(threads);
  before_run();
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (uint32_t t = 0; t < threads; ++t) pool.emplace_back([&, t] { sums[t] = read(t); });
  for (auto& th : pool) th.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  volatile double sink = 0;
  for (double s : sums) sink = sink + s;
  into.runs_per_s.push_back(static_cast<double>(bytes) / seconds);
  into.bytes_per_s = std::max(into.bytes_per_s, into.runs_per_s.back());
  into.buffer_bytes = bytes;
  into.threads = threads;
}

template <class BeforeRun, class Read>
BandwidthMeasurement best_of_runs(uint32_t threads, uint32_t runs, uint64_t bytes,
                                  BeforeRun&& before_run, Read&& read) {
  BandwidthMeasurement m;
  for (uint32_t r = 0; r < runs; ++r) time_run(threads, bytes, before_run, read, m);
  return m;
}

// The fp32 buffer read as 64-bit words (may_alias: the same bytes, two views).
using Word = uint64_t __attribute__((may_alias));

// XOR of the 64-bit words of [p, p + words) (a multiple of 16), a 128-byte block per iteration:
// one-cycle XORs, vectorised at any target, so the loop never limits the read.
uint64_t xor_words(const Word* p, uint64_t words) {
  uint64_t x[16] = {};
  for (uint64_t i = 0; i < words; i += 16)
    for (int j = 0; j < 16; ++j) x[j] ^= p[i + j];
  uint64_t out = 0;
  for (uint64_t w : x) out ^= w;
  return out;
}

// fp32 sum of [p, p + count) in 32 independent sums (count a multiple of 32): enough adds in
// flight to cover their latency at any vector width.
float sum_floats(const float* p, uint64_t count) {
  float acc[32] = {};
  for (uint64_t i = 0; i < count; i += 32)
    for (int j = 0; j < 32; ++j) acc[j] += p[i + j];
  float s = 0;
  for (float a : acc) s += a;
  return s;
}

// The buffer's page size as the kernel backs it: AnonHugePages of its mappings in smaps.
std::string page_description(const void* data, uint64_t bytes) {
  const auto begin = reinterpret_cast<uintptr_t>(data), end = begin + bytes;
  std::ifstream smaps("/proc/self/smaps");
  uint64_t huge_kib = 0;
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo < end && hi > begin;
    } else if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      huge_kib += std::stoull(line.substr(14));
    }
  }
  if (!smaps.is_open()) return "unknown (no /proc/self/smaps)";
  const double share = 100.0 * static_cast<double>(huge_kib) * 1024.0 / static_cast<double>(bytes);
  std::ostringstream out;
  out.precision(3);
  if (share >= 99.5) {
    out << "2 MiB transparent huge pages (all of the buffer)";
  } else if (huge_kib == 0) {
    out << "4 KiB pages (no transparent huge pages: see /sys/kernel/mm/transparent_hugepage)";
  } else {
    out << "2 MiB transparent huge pages for " << share << "% of the buffer, 4 KiB pages for the rest";
  }
  return out.str();
}

}  // namespace

double BandwidthMeasurement::median() const {
  return runs_per_s.empty() ? 0 : quantile(runs_per_s, 0.5);
}

double BandwidthMeasurement::worst() const {
  return runs_per_s.empty() ? 0 : quantile(runs_per_s, 0.0);
}

StreamMeasurement measure_read_bandwidth(uint32_t threads, uint64_t buffer_bytes, uint32_t runs,
                                         const std::function<void()>& between) {
  threads = std::max(1u, threads);
  const uint64_t floats = buffer_bytes / 128 * 32;  // whole 128-byte blocks
  HugePageVector<float> buffer(floats);  // the same pages as the KV pools: a like-for-like ceiling
  const uint64_t bytes = floats * sizeof(float);
  auto part = [&](uint32_t t) { return floats / 32 * t / threads * 32; };  // whole blocks per thread
  // First touch by the threads that will read (NUMA placement), with values that cannot be folded
  // (and no subnormals, which would slow the fp32 sums down).
  {
    std::vector<std::thread> pool;
    for (uint32_t t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        for (uint64_t i = part(t); i < part(t + 1); ++i) buffer[i] = static_cast<float>(1 + (i & 1023));
      });
    }
    for (auto& th : pool) th.join();
  }
  StreamMeasurement m;
  m.pages = page_description(buffer.data(), bytes);
  for (uint32_t r = 0; r < runs; ++r) {
    time_run(threads, bytes, [] {}, [&](uint32_t t) {
      const auto* words = reinterpret_cast<const Word*>(buffer.data() + part(t));
      return static_cast<double>(xor_words(words, (part(t + 1) - part(t)) / 2));
    }, m.stream);
    time_run(threads, bytes, [] {}, [&](uint32_t t) {
      return static_cast<double>(sum_floats(buffer.data() + part(t), part(t + 1) - part(t)));
    }, m.check);
    if (between) between();
  }
  return m;
}

BandwidthMeasurement measure_paged_read_bandwidth(const std::vector<PagedKv>& caches,
                                                  uint32_t threads, uint32_t runs, CpuWalk walk) {
  threads = std::max(1u, threads);
  struct Unit {
    const PagedKv* kv;
    uint64_t seq;
    uint32_t head, heads;
    uint64_t begin, end;  // tokens, whole pages but the last
  };
  std::vector<Unit> units;
  uint64_t bytes = 0;
  for (const PagedKv& kv : caches) {
    const uint32_t heads = walk == CpuWalk::kPage ? kv.shape.kv_heads : 1;
    const uint64_t chunk = auto_chunk_tokens(kv, threads, walk);
    for (uint64_t b = 0; b < kv.lengths.size(); ++b) {
      for (uint32_t h = 0; h < kv.shape.kv_heads; h += heads) {
        for (uint64_t t = 0; t < kv.lengths[b]; t += chunk)
          units.push_back({&kv, b, h, heads, t, std::min(kv.lengths[b], t + chunk)});
      }
      bytes += 2 * kv.lengths[b] * kv.row_bytes() * kv.shape.kv_heads;
    }
  }
  // One unit as the kernel walks it: page after page of its chunk, within a page each of its
  // heads' rows in slot order, every K row with its V row, 128 bytes at a time, each row's lines
  // two pages on prefetched (prefetcht0, as the kernel's, at its distance with 16-token pages),
  // XORed as the stream is (the loop never limits the read).
  auto read_unit = [](const Unit& u) {
    const PagedKv& kv = *u.kv;
    const std::vector<uint32_t>& table = kv.pages[u.seq];
    const uint64_t page = kv.shape.page_size, row = kv.row_bytes(), blocks = row / 128 * 128;
    const uint64_t last = (u.end + page - 1) / page;
    uint64_t x = 0;
    for (uint64_t p = u.begin / page; p < last; ++p) {
      const uint64_t used = std::min<uint64_t>(page, u.end - p * page);
      const uint8_t* k_page = kv.pool.data() + kv.row_offset(table[p], u.head, 0);
      const uint8_t* ahead =
          p + 2 < last ? kv.pool.data() + kv.row_offset(table[p + 2], u.head, 0) : nullptr;
      for (uint32_t j = 0; j < u.heads; ++j) {
        for (uint64_t slot = 0; slot < used; ++slot) {
          const uint64_t at = j * kv.head_stride + slot * kv.slot_stride;
          const uint8_t *k = k_page + at, *v = k + kv.v_offset;
          if (ahead != nullptr) {
            for (uint64_t line = 0; line < row; line += 64) {
              __builtin_prefetch(ahead + at + line, 0, 3);
              __builtin_prefetch(ahead + at + kv.v_offset + line, 0, 3);
            }
          }
          for (uint64_t o = 0; o < blocks; o += 128) {
            x ^= xor_words(reinterpret_cast<const Word*>(k + o), 16);
            x ^= xor_words(reinterpret_cast<const Word*>(v + o), 16);
          }
          for (uint64_t o = blocks; o < row; ++o) x ^= uint64_t{k[o]} ^ (uint64_t{v[o]} << 8);
        }
      }
    }
    return x;
  };
  std::atomic<uint64_t> next{0};
  return best_of_runs(
      threads, runs, bytes, [&] { next = 0; },
      [&](uint32_t) {
        uint64_t x = 0;
        for (uint64_t i = next++; i < units.size(); i = next++) x ^= read_unit(units[i]);
        return static_cast<double>(x);
      });
}

}  // namespace kvbench
