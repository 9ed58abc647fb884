// A calibrated decode estimate: the roofline reads the KV cache at the datasheet bandwidth, which
// no decode-attention kernel reaches; published measurements say how far each device class gets
// at a given batch and context. The catalogue (core/data/gpus.json, "decode_efficiency") holds
// those measurements with their sources; the estimate takes the nearest one of the GPU's class.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kvscope/catalog.hpp"
#include "kvscope/dtype.hpp"

namespace kvscope {

// One published measurement of decode attention: what ran, where, and what it achieved.
struct DecodeEfficiencyAnchor {
  std::string device_class;  // a GpuEntry's device_class: "hopper-hbm", "blackwell-hbm", ...
  std::string kv_dtype;      // "bf16", "fp16", "fp8"
  uint64_t batch = 0;
  uint64_t context = 0;      // tokens per sequence (the mean for a ragged batch)
  double achieved_bytes_per_s = 0;
  double datasheet_bytes_per_s = 0;
  std::string measured_on;   // "H100 SXM"
  std::string kernel;        // the kernel and problem, in words
  std::string source;        // where it was published
  double efficiency() const { return achieved_bytes_per_s / datasheet_bytes_per_s; }
};

const std::vector<DecodeEfficiencyAnchor>& decode_efficiency_anchors();

// The measurement of `gpu`'s class nearest to a decode of `batch` sequences of `context` tokens
// (distance in log2 of batch and of context; one of the same KV width first), or none.
const DecodeEfficiencyAnchor* nearest_decode_anchor(const GpuEntry& gpu, const Dtype& kv,
                                                    uint64_t batch, uint64_t context);

}  // namespace kvscope
