// kvbench's command line: the flags of `kvbench attention`, checked, into one value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cpu_kernels.hpp"
#include "decode_attention.hpp"
#include "paged_kv.hpp"

namespace kvbench {

extern const char* const kUsage;

// A bad flag: its name and a one-line message.
struct Usage {
  std::string field, message;
};

struct BenchArgs {
  std::string model_id, config_path;  // exactly one is set
  std::string kv_dtype = "auto";
  uint64_t batch = 1, page_size = 16, seed = 1, threads = 1;
  uint64_t context = 4096;
  std::string lengths;  // a length distribution; empty = every sequence `context` tokens
  std::string device = "cpu";
  std::optional<CpuKernel> cpu_kernel;  // --cpu-kernel; none = the widest this CPU runs
  KvLayout kv_layout = KvLayout::kHnd;  // --kv-layout
  CpuWalk cpu_walk = CpuWalk::kPage;    // --cpu-walk
  bool all_layers = false;  // --layers all
  std::string out_path;     // --out FILE; empty = none
  bool json = false;
  bool help = false;
};

// `args` without the program name; nullopt on success.
std::optional<Usage> parse_bench_args(const std::vector<std::string>& args, BenchArgs& out);

// The command as it was typed, quoted for a shell (the record's provenance).
std::string command_line(const std::vector<std::string>& args);

}  // namespace kvbench
