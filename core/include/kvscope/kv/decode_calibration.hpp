// A calibrated decode estimate: the roofline reads the KV cache at the datasheet bandwidth, which
// no decode-attention kernel reaches; published measurements say how far each device class gets
// at a given batch and context. The catalogue (core/data/gpus.json, "decode_efficiency") holds
// those measurements with their sources (DecodeEfficiencyAnchor, catalog.hpp); the estimate takes
// the nearest one of the GPU's class.
#pragma once

#include <cstdint>

#include "kvscope/model/catalog.hpp"
#include "kvscope/model/dtype.hpp"

namespace kvscope {

// The measurement of `gpu`'s class nearest to a decode of `batch` sequences of `context` tokens
// (distance in log2 of batch and of context; one of the same KV width first), or none.
const DecodeEfficiencyAnchor* nearest_decode_anchor(const GpuEntry& gpu, const Dtype& kv,
                                                    uint64_t batch, uint64_t context);

}  // namespace kvscope
