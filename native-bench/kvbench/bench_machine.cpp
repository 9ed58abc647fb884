// The machine beside kvbench's timing of a CPU step (bench_machine.hpp).
#include "bench_machine.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "bandwidth.hpp"
#include "bench_timing.hpp"

namespace kvbench {
namespace {

using nlohmann::ordered_json;

// The CPU's name and cpuid identity from /proc/cpuinfo's first processor: a name such as "AMD
// EPYC" covers several generations (and a cloud host's CPU changes between runs), the family,
// model and stepping do not. Fields the file lacks are left out.
ordered_json cpu_identity() {
  ordered_json id = {{"model", "unknown CPU"}};
  ordered_json cpuid = ordered_json::object();
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line) && !line.empty();) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos || colon == 0) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name") id["model"] = value;
    if (key == "vendor_id") cpuid["vendor"] = value;
    if (key == "cpu family" || key == "model" || key == "stepping") {
      char* end = nullptr;
      const unsigned long n = std::strtoul(value.c_str(), &end, 10);
      if (!value.empty() && *end == '\0') cpuid[key == "cpu family" ? "family" : key] = n;
    }
  }
  id["cpuid"] = cpuid;
  return id;
}

// A cache's size in bytes as the C library reports it (sysconf), or null where it does not.
ordered_json cache_bytes(int name) {
  const long bytes = sysconf(name);
  return bytes > 0 ? ordered_json(bytes) : ordered_json(nullptr);
}

// Best, median and worst of a bandwidth's runs, bytes per second.
ordered_json spread_json(const BandwidthMeasurement& b) {
  return {{"best", b.bytes_per_s}, {"median", b.median()}, {"worst", b.worst()}};
}

// The rounds of stream, cross-check and kernel step, and what pairing them says: each step's rate
// over the stream run of its round, and each stream run over the cross-check run beside it.
void pair_rounds(const StreamMeasurement& bw, const std::vector<double>& step_s, uint64_t bytes,
                 Machine& m) {
  ordered_json rounds = ordered_json::array();
  std::vector<double> over_check, efficiency;
  for (size_t r = 0; r < step_s.size(); ++r) {
    const double stream = bw.stream.runs_per_s[r], check = bw.check.runs_per_s[r];
    rounds.push_back({{"stream_bytes_per_s", stream},
                      {"check_bytes_per_s", check},
                      {"kernel_step_s", step_s[r]}});
    over_check.push_back(stream / check);
    efficiency.push_back(static_cast<double>(bytes) / step_s[r] / stream);
  }
  m.bandwidth_json["rounds"] = rounds;
  m.bandwidth_json["cross_check"]["stream_over_check_paired"] = quantile(over_check, 0.5);
  m.paired_efficiency_json = {
      {"method",
       "two kernel steps after each round's stream and cross-check runs: the second "
       "step's rate over the stream run of its round (measured_bandwidth.rounds)"},
      {"median", quantile(efficiency, 0.5)},
      {"best", quantile(efficiency, 1.0)},
      {"worst", quantile(efficiency, 0.0)}};
}

}  // namespace

Machine measure_cpu(const std::vector<PagedKv>& caches, uint64_t threads, uint64_t bytes,
                    double median, CpuKernel kernel, CpuWalk walk,
                    const std::function<void()>& step) {
  Machine m;
  const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  const uint64_t buffer =
      std::max<uint64_t>(1ull << 30, 8ull * static_cast<uint64_t>(std::max(0L, llc)));
  // Each round's timed step follows an untimed one: the first step after a stream run ran about
  // 10% slower here than the timing loop's back-to-back steps (cold state the loop never has).
  std::vector<double> step_s;
  const StreamMeasurement bw =
      measure_read_bandwidth(static_cast<uint32_t>(threads), buffer, 10, [&] {
        step();
        step_s.push_back(seconds_of(step));
      });
  m.bandwidth = bw.stream.bytes_per_s;
  m.bandwidth_json = {
      {"kernel", "read-only stream: XOR of 64-bit words (the kernel's threads)"},
      {"buffer_bytes", bw.stream.buffer_bytes},
      {"threads", bw.stream.threads},
      {"pages", bw.pages},
      {"runs", bw.stream.runs_per_s.size()},
      {"statistic", "best"},
      {"spread", spread_json(bw.stream)},
      {"cross_check",
       {{"kernel", "fp32 sum in 32 independent accumulators, runs interleaved with the stream's"},
        {"bytes_per_s", bw.check.bytes_per_s},
        {"spread", spread_json(bw.check)},
        {"stream_over_check", bw.stream.bytes_per_s / bw.check.bytes_per_s}}}};
  pair_rounds(bw, step_s, bytes, m);
  const BandwidthMeasurement paged =
      measure_paged_read_bandwidth(caches, static_cast<uint32_t>(threads), 10, walk);
  m.paged_read_json = {
      {"bytes_per_s", paged.bytes_per_s},
      {"kernel", "the caches' K and V rows XORed in the kernel's order, nothing computed"},
      {"bytes", paged.buffer_bytes},
      {"runs", paged.runs_per_s.size()},
      {"statistic", "best"},
      {"spread", spread_json(paged)},
      {"efficiency", static_cast<double>(bytes) / median / paged.bytes_per_s}};
  const ordered_json identity = cpu_identity();
  m.device_json = {{"kind", "cpu"},
                   {"model", identity["model"]},
                   {"cpuid", identity["cpuid"]},
                   {"isa", cpu_features()},
                   {"threads", threads},
                   {"hardware_threads", std::thread::hardware_concurrency()},
                   {"l1d_bytes", cache_bytes(_SC_LEVEL1_DCACHE_SIZE)},
                   {"l2_bytes", cache_bytes(_SC_LEVEL2_CACHE_SIZE)},
                   {"llc_bytes", cache_bytes(_SC_LEVEL3_CACHE_SIZE)}};
  const KvType type = caches.front().shape.kv_type;
  ordered_json supported = ordered_json::array();
  for (CpuKernel k : supported_cpu_kernels(type)) supported.push_back(cpu_kernel_name(k));
  m.kernel_json = {{"path", cpu_kernel_name(kernel)},
                   {"description", cpu_kernel_description(kernel)},
                   {"walk", cpu_walk_name(walk)},
                   {"paths_this_cpu_runs", supported}};
  return m;
}

}  // namespace kvbench
