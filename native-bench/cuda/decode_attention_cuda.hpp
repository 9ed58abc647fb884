// Decode attention on a CUDA GPU over the same paged KV cache as the CPU kernel (kvbench
// --device cuda). Built only when CMake finds nvcc; kvbench says so otherwise.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "paged_kv.hpp"

namespace kvbench {

class CudaDecode {
 public:
  // Uploads every layer's cache; null with `why` set when there is no device or no kernel for
  // the shape (head_dim 64/128/256, group size 1/2/4/8/16, bf16/fp16/fp8).
  static std::unique_ptr<CudaDecode> create(const std::vector<PagedKv>& caches, std::string& why);
  ~CudaDecode();

  void run();  // every layer: split-KV kernel, then the merge where a sequence was split
  void synchronize();
  void copy_outputs(std::vector<std::vector<float>>& outputs);
  nlohmann::ordered_json device_json() const;
  // Read-only streaming bandwidth (16-byte loads) and device-to-device copy (read + write bytes),
  // over 2 GiB, best of 10; the read figure is returned, both are described in `detail`.
  static double measure_read_bandwidth(nlohmann::ordered_json& detail);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace kvbench
