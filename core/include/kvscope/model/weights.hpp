// The weights a model stores: every tensor of the checkpoint with its module class, and their
// parameter counts and bytes in the formats the checkpoint (or the user) stores them in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kvscope/base/error.hpp"
#include "kvscope/model/model_shape.hpp"
#include "kvscope/model/parallelism.hpp"
#include "kvscope/model/weight_format.hpp"

namespace kvscope {

// One tensor of the checkpoint, or a run of identical tensors (experts, or one per layer).
struct WeightTensor {
  std::string name;  // Hugging Face module path, "{}" standing for the layer index:
                     // "model.layers.{}.self_attn.q_proj", "lm_head"
  ModuleClass module = ModuleClass::kAttention;
  bool linear = true;  // a matmul weight a quantizer converts (not norms, vectors, embeddings)
  uint64_t rows = 0;   // output features (1 for a vector)
  uint64_t cols = 0;   // input features
  uint64_t copies = 1;               // per layer: experts; 1 otherwise
  uint32_t max_tp_shards = 0;        // 0: split over any TP size; 1: replicated; n: at most n ways
  uint32_t first_layer = 0;          // decoder layers first_layer .. first_layer + layer_count - 1
  uint32_t layer_count = 0;          // hold it; 0 outside the layers
  bool before_layers = false;        // the embedding (first pipeline stage)
  bool draft = false;                // an MTP / next-n prediction layer's (speculative decoding)
  bool tied = false;                 // the head tied to the embedding: stored once, beside it
  uint64_t params() const;           // rows x cols x copies x max(1, layer_count); 0 when tied
};

// The checkpoint's tensors in order (embedding, layers, MTP layers, final norm, head). Biases are
// not listed (under 0.1% of the models in the catalogue).
Result<std::vector<WeightTensor>> weight_tensors(const ModelShape& shape);

struct ParameterCount {
  uint64_t total = 0;             // every stored weight of the served model (MoE: all experts)
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
  uint64_t draft = 0;  // MTP layers the checkpoint also holds (not in total: loaded only for
                       // speculative decoding)
};

// Counts parameters of the decoder (no vision tower).
Result<ParameterCount> count_parameters(const ModelShape& shape);
Result<ParameterCount> count_parameters(const std::vector<WeightTensor>& tensors,
                                        uint32_t moe_experts, uint32_t experts_per_token);

// Bytes of one module class in one format.
struct ModuleBytes {
  ModuleClass module = ModuleClass::kAttention;
  std::string format;  // MatrixFormat name
  uint64_t params = 0;
  uint64_t bytes = 0;
  bool draft = false;
};

struct WeightBytes {
  uint64_t total = 0;               // every tensor given
  uint64_t draft = 0;               // of which MTP / next-n layers
  uint64_t quantized_params = 0;    // stored in a quantized format
  uint64_t unquantized_params = 0;  // kept in the checkpoint dtype
  std::vector<ModuleBytes> modules; // per module class and format, in inventory order
};

// The tensors one pipeline stage holds: `rank` of `stages` over `layer_count` decoder layers (vLLM
// get_pp_indices), the embedding on the first stage, the final norm and head on the last (a tied
// head becomes a copy there when the stages differ), draft layers on the last when `with_draft`
// (without their embedding and head copies: vLLM shares the target's).
std::vector<WeightTensor> stage_tensors(const std::vector<WeightTensor>& tensors,
                                        size_t layer_count, uint32_t rank,
                                        const PipelineStages& stages, bool with_draft);

// Modules split over other GPUs than attention's tensor-parallel group, when data-parallel ranks
// share them: vLLM flattens a MoE layer's tensor parallelism across its data-parallel ranks
// (FusedMoEParallelConfig.make, flatten_tp_across_dp), so its experts spread over tp x dp GPUs,
// whole with --enable-expert-parallel; SGLang's DP attention keeps only attention per rank, its
// dense MLPs, shared experts and head over all --tp GPUs and its embedding whole on each.
struct ModuleSharding {
  uint32_t ranks = 0;        // GPUs the routed experts spread over; 0 = the tensor-parallel size
  bool whole = false;        // whole experts per GPU, not a slice of each
  uint32_t dense_ranks = 0;  // GPUs dense MLPs, shared experts and the head split over; 0 = tp
  bool replicated_embedding = false;
};

// Bytes of `tensors` in `storage`'s formats on one GPU of tensor-parallel size `tp`: each tensor
// divided as vLLM shards it (replicated ones whole, KV projections at most once per head), the
// modules data-parallel ranks share as `sharding` says (whole experts: the fullest GPU's share).
Result<WeightBytes> weight_bytes(const std::vector<WeightTensor>& tensors,
                                 const WeightStorage& storage, uint32_t tp = 1,
                                 ModuleSharding sharding = {});

// Bytes of each decoder layer's tensors (draft layers excluded), and of what comes before (the
// embedding) and after them (final norm and head): how llama.cpp places a model over devices.
struct LayerWeightBytes {
  std::vector<uint64_t> per_layer;
  uint64_t embedding = 0;
  uint64_t output = 0;
};
Result<LayerWeightBytes> layer_weight_bytes(const std::vector<WeightTensor>& tensors,
                                            const WeightStorage& storage, size_t layer_count);

}  // namespace kvscope
