// Exact KV-cache bytes: per token per layer group, per sequence at a context, with paged blocks,
// a shared prefix counted once, and recurrent state that does not grow with context.
#pragma once

#include <cstdint>
#include <vector>

#include "kvscope/model/dtype.hpp"
#include "kvscope/base/error.hpp"
#include "kvscope/model/model_shape.hpp"

namespace kvscope {

struct KvWorkload {
  uint64_t context_tokens = 0;        // tokens in each sequence
  uint64_t batch = 1;                 // concurrent sequences
  uint64_t block_size_tokens = 0;     // paged blocks; 0 = unpaged (exact tokens)
  uint64_t shared_prefix_tokens = 0;  // leading tokens common to all sequences, stored once
};

struct GroupKv {
  LayerGroup group;
  uint64_t kv_bytes_per_token_per_layer = 0;  // K + V (or the MLA latent) of one token, one layer
  uint64_t kv_bytes_per_token = 0;            // × layers in the group
  uint64_t kept_tokens_per_sequence = 0;      // tokens held at the context (windows applied)
  uint64_t allocated_tokens_per_sequence =
      0;                                  // whole blocks holding the kept tokens (peak for windows)
  uint64_t state_bytes_per_sequence = 0;  // recurrent (or compressor) state, all layers
  // Compressed attention (DeepSeek-V4): a compressed entry of every layer of the group (latent and
  // indexer key), and the entries a sequence keeps at the context (one per compress_ratio tokens).
  uint64_t compressed_bytes_per_entry = 0;
  uint64_t compressed_entries_per_sequence = 0;
  uint64_t kv_bytes_per_sequence = 0;     // one sequence, unpaged, state included
  uint64_t kv_bytes_total = 0;            // batch, paging and shared prefix applied
  uint64_t shared_prefix_bytes = 0;       // the part of the total stored once
};

struct KvEstimate {
  uint64_t kv_bytes_per_token = 0;  // one more token, all layers that keep tokens, windows not full
  uint64_t kv_bytes_per_sequence = 0;
  uint64_t kv_bytes_total = 0;
  uint64_t state_bytes_per_sequence = 0;
  uint64_t shared_prefix_bytes = 0;
  uint64_t kv_layers = 0;  // layers that keep per-token KV
  // Compressed attention: what each token adds on average to the compressed entries (their bytes
  // over compress_ratio, summed over layers), beyond kv_bytes_per_token's windows.
  double compressed_kv_bytes_per_token = 0;
  std::vector<GroupKv> groups;
};

// Bytes one token adds to a sparse-attention indexer's K cache, whatever the KV dtype: DeepSeek's
// fp8 values and an fp32 scale per 128 (vLLM DeepseekV32IndexerCache: head_size 132 in uint8;
// SGLang get_cell_size_per_token's NSA term), MiniMax-M3's bf16 key (vLLM MiniMaxM3IndexerCache,
// an MLAAttentionSpec of one 128-wide head; SGLang MiniMaxSparseKVPool's index_k_pool in the
// model dtype).
uint64_t indexer_bytes_per_token(const LayerSpec& layer);

// A compressed-attention layer's (DeepSeek-V4) cache entries: one latent in `kv` (the window's
// entry), a compressed entry (a latent and the indexer's key), and the compressors' fp32 state
// one sequence keeps. 0 for other layers.
Result<uint64_t> latent_entry_bytes(const LayerSpec& layer, const Dtype& kv);
Result<uint64_t> compressed_entry_bytes(const LayerSpec& layer, const Dtype& kv);
uint64_t compressor_state_bytes(const LayerSpec& layer);

// Tokens a query at `position` (1-based) attends to in `layer`: all before it, the last window of a
// sliding layer, those of its own chunk in a chunked layer (Llama 4's attention_chunk_size), a
// compressed layer's window and compressed entries; 0 for layers that keep no tokens.
uint64_t attended_tokens(const LayerSpec& layer, uint64_t position);
// Of those, the compressed entries a compressed-attention layer reads (all, or its top-k).
uint64_t compressed_entries_attended(const LayerSpec& layer, uint64_t position);
// The same summed over positions 1..n (a causal prefill), as a double: it passes 2^64 at 2^32.
double attended_tokens_through(const LayerSpec& layer, uint64_t n);

// Bytes one token adds to one layer's cache in `kv` (0 for layers that keep no tokens), the
// indexer's K cache included.
Result<uint64_t> kv_bytes_per_token_per_layer(const LayerSpec& layer, const Dtype& kv);
// The same with K and V stored in different dtypes (llama.cpp's --cache-type-k / -v).
Result<uint64_t> kv_bytes_per_token_per_layer(const LayerSpec& layer, const Dtype& k_dtype,
                                              const Dtype& v_dtype);

// The dtype a shape keeps its SSM state in: its ssm_state_dtype, else `state`.
Result<Dtype> ssm_state_dtype(const ModelShape& shape, const Dtype& state);

// Bytes of one layer's recurrent state for one sequence: the convolution state in `state`, the
// temporal state in `ssm`.
Result<uint64_t> recurrent_state_bytes(const LayerSpec& layer, const Dtype& state,
                                       const Dtype& ssm);

// A workload's KV bytes (kv_totals.cpp): everything above for a model, a KV dtype, a
// recurrent-state dtype and a workload.
Result<KvEstimate> kv_totals(const ModelShape& shape, const Dtype& kv, const Dtype& state,
                             const KvWorkload& workload);

// The same, in two steps for sweeps: the shape checked and grouped with its per-token bytes
// once, then the figures at each workload (without copying the groups unless asked for).
struct KvLayout {
  std::vector<GroupKv> groups;  // per-token fields only: group, bytes per token, state bytes
};
Result<KvLayout> kv_layout(const ModelShape& shape, const Dtype& kv, const Dtype& state);
Result<KvEstimate> kv_totals(const KvLayout& layout, const KvWorkload& workload, bool with_groups);

// K/V projections per layer to produce `output_tokens` after a `prompt_tokens` prompt: without a
// cache each step recomputes the whole prefix; with one each token is projected once.
struct ProjectionCount {
  uint64_t without_cache = 0;
  uint64_t with_cache = 0;
};
Result<ProjectionCount> kv_projection_count(uint64_t prompt_tokens, uint64_t output_tokens);

}  // namespace kvscope
