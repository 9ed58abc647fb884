// Decode and prefill roofline estimates: bytes moved and FLOPs per step, and the time a GPU's
// bandwidth and peak allow. Estimates, not measurements: they bound what a kernel can reach.
#pragma once

#include <cstdint>
#include <string>

#include "kvscope/model/dtype.hpp"
#include "kvscope/base/error.hpp"
#include "kvscope/model/model_shape.hpp"
#include "kvscope/model/weights.hpp"

namespace kvscope {

struct HardwarePeaks {
  double bandwidth_bytes_per_s = 0;
  double flops = 0;         // dense peak in the compute dtype
  std::string flops_dtype;  // "bf16", "fp8", "fp16" (cards without bf16) or "given"
};

// What one GPU of one pipeline stage holds, as plan() shards it.
struct GpuLoad {
  ModelShape gpu_shape;         // the stage's layers, heads split over TP
  ParameterCount stage_params;  // the stage's parameters, before the TP split
  WeightBytes gpu_weights;      // the bytes one GPU holds, per module class
  uint32_t tensor_parallel = 1;
  // Tensor-parallel groups whose tokens a decode step routes through this GPU's experts (the
  // data-parallel ranks its experts are flattened over; 1 otherwise).
  uint32_t expert_token_groups = 1;
};

// One GPU of stage `rank` of `stages` at tensor-parallel size `tp`, its weights in `storage`;
// with `with_draft` the last stage also holds the MTP layers (their weights and their caches);
// modules split as `sharding` says.
Result<GpuLoad> gpu_load(const ModelShape& shape, const std::vector<WeightTensor>& tensors,
                         const WeightStorage& storage, uint32_t tp, uint32_t rank,
                         const PipelineStages& stages, bool with_draft = false,
                         ModuleSharding sharding = {});

struct StepEstimate {
  double weight_bytes = 0;  // weights read (MoE: the experts the batch routes to)
  double kv_bytes = 0;      // KV cache read (decode) or written (prefill), state included
  double flops = 0;
  double memory_time_s = 0;               // bytes / bandwidth
  double compute_time_s = 0;              // flops / peak
  double time_s = 0;                      // the larger of the two
  std::string bound;                      // "memory" or "compute"
  double experts_read_per_moe_layer = 0;  // expected distinct routed experts, 0 for dense models
};

// Expected distinct experts read by `tokens` tokens each routed to `top_k` of `experts`
// experts, routing uniform and independent: E x (1 - (1 - k/E)^tokens).
double expected_distinct_experts(uint32_t experts, uint32_t top_k, uint64_t tokens);

// One decode step for `batch` sequences of `context` tokens on one GPU.
Result<StepEstimate> decode_step(const GpuLoad& load, const Dtype& kv, const Dtype& state,
                                 const HardwarePeaks& peaks, uint64_t batch, uint64_t context);

// Prefill of one `prompt`-token sequence on one GPU (causal attention over the prompt).
Result<StepEstimate> prefill(const GpuLoad& load, const Dtype& kv, const Dtype& state,
                             const HardwarePeaks& peaks, uint64_t prompt);

}  // namespace kvscope
