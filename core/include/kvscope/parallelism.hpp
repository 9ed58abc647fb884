// Tensor and pipeline parallelism: what one GPU holds of a model (vLLM's sharding rules).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "kvscope/error.hpp"
#include "kvscope/model_shape.hpp"

namespace kvscope {

// Layers [first, end) of pipeline stage `rank` of `pp`: an even split whose remainder goes to
// the stages before the last (vllm/distributed/utils.py get_pp_indices).
std::pair<size_t, size_t> pipeline_layers(size_t layers, uint32_t rank, uint32_t pp);

// The shape one GPU of tensor-parallel size `tp` holds for pipeline stage `rank` of `pp`: its
// stage's layers; query heads, KV heads and recurrent state split over TP. KV heads are
// replicated when TP exceeds them and the MLA latent is never split (vllm/config/model.py
// get_num_kv_heads). Errors (field "tp" or "pp") follow vLLM's divisibility checks.
Result<ModelShape> shard_shape(const ModelShape& shape, uint32_t tp, uint32_t rank, uint32_t pp);

}  // namespace kvscope
