// Tensor and pipeline parallelism: what one GPU holds of a model (vLLM's sharding rules).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "kvscope/base/error.hpp"
#include "kvscope/model/model_shape.hpp"

namespace kvscope {

// How a replica's layers are cut into pipeline stages: evenly, or as VLLM_PP_LAYER_PARTITION
// (SGLANG_PP_LAYER_PARTITION) lists them, one count per stage.
struct PipelineStages {
  PipelineStages(uint32_t stages = 1, std::vector<uint32_t> layers = {})  // NOLINT: a count is a split
      : count(stages), partition(std::move(layers)) {}
  uint32_t count;
  std::vector<uint32_t> partition;  // layers of each stage; empty = even
};

// Layers [first, end) of pipeline stage `rank`: the partition's, else an even split whose
// remainder goes to the stages before the last (vllm/distributed/utils.py get_pp_indices).
std::pair<size_t, size_t> pipeline_layers(size_t layers, uint32_t rank, const PipelineStages& stages);

// A partition for `layers` layers over `stages` stages, checked as vLLM's get_pp_indices does
// (one count per stage, summing to the layers); errors name pp_layer_partition.
Result<PipelineStages> pipeline_stages(uint32_t stages, const std::vector<double>& partition,
                                       size_t layers);

// The shape one GPU of tensor-parallel size `tp` holds for pipeline stage `rank`: its stage's
// layers; query heads, KV heads and recurrent state split over TP. KV heads are replicated when
// TP exceeds them and the MLA latent is never split (vllm/config/model.py get_num_kv_heads).
// Errors (field "tp" or "pp") follow vLLM's divisibility checks.
Result<ModelShape> shard_shape(const ModelShape& shape, uint32_t tp, uint32_t rank,
                               const PipelineStages& stages);

}  // namespace kvscope
