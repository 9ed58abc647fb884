// The machine beside kvbench's timing of a CPU step: its read bandwidth in the same run (a
// streaming read and an independent cross-check, round by round beside the kernel's steps, and the
// caches' own pages read with nothing computed), the CPU's identity and caches, and the kernel's
// path; each as the kvscope.measured/1 record writes it (bench_record.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

#include "cpu_kernels.hpp"
#include "decode_attention.hpp"
#include "paged_kv.hpp"

namespace kvbench {

struct Machine {
  double bandwidth = 0;  // bytes per second: the estimate's and the efficiency's denominator
  nlohmann::ordered_json bandwidth_json, paged_read_json, paired_efficiency_json, device_json,
      kernel_json;
};

// `step` is the timed kernel call, run (after an untimed one) between the bandwidth's rounds;
// `bytes` is what one step reads and `median` its median seconds.
Machine measure_cpu(const std::vector<PagedKv>& caches, uint64_t threads, uint64_t bytes,
                    double median, CpuKernel kernel, CpuWalk walk,
                    const std::function<void()>& step);

}  // namespace kvbench
