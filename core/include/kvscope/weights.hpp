// Parameter counts and weight bytes from the model shape: what the card holds before any KV.
#pragma once

#include <cstdint>

#include "kvscope/dtype.hpp"
#include "kvscope/error.hpp"
#include "kvscope/model_shape.hpp"

namespace kvscope {

struct ParameterCount {
  uint64_t total = 0;             // every stored weight (MoE: all experts)
  uint64_t active_per_token = 0;  // weights one token reads: all but the embedding table and
                                  // the routed experts it is not sent to
  uint64_t embedding = 0;         // token (and learned position) embeddings
  uint64_t lm_head = 0;           // 0 when tied to the embedding
  uint64_t attention = 0;         // q, k, v, o (or the MLA projections)
  uint64_t recurrent = 0;         // Mamba / linear-attention mixers
  uint64_t mlp = 0;               // dense MLPs
  uint64_t routed_experts = 0;    // all routed experts, with their routers
  uint64_t shared_experts = 0;
  uint64_t norms = 0;
};

// Counts parameters of the decoder (no vision tower, no MTP head). Biases are not counted
// (under 0.1% for the models in the catalogue).
Result<ParameterCount> count_parameters(const ModelShape& shape);

struct WeightBytes {
  uint64_t total = 0;
  uint64_t quantized_params = 0;    // stored in the weight dtype
  uint64_t unquantized_params = 0;  // embeddings, lm_head and norms kept in the checkpoint dtype
};

// Bytes of the weights in `weights`. Quantized formats (AWQ/GPTQ, fp8, int8, int4, nvfp4) cover
// the linear layers only; embeddings, lm_head and norms stay in `unquantized` (the checkpoint's
// dtype), as those toolkits store them. GGUF types (q8_0, q4_k_m, ...) apply to the whole file.
Result<WeightBytes> weight_bytes(const ParameterCount& params, const Dtype& weights,
                                 const Dtype& unquantized);

}  // namespace kvscope
