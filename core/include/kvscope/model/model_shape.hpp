// The normalized model description every calculation starts from, whatever the source
// (catalogue preset, Hugging Face config.json, explicit fields).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kvscope/model/weight_format.hpp"

namespace kvscope {

// How a layer keeps per-token keys and values.
enum class AttentionKind {
  kFull,           // every past token, K and V
  kSlidingWindow,  // the last `window_tokens` tokens
  kChunked,        // tokens of the current chunk of `window_tokens` (Llama 4 local layers)
  kMla,            // one compressed latent per token (DeepSeek MLA), no separate V
  // DeepSeek-V4: the latents of the last `window_tokens` tokens, and one latent per
  // `compress_ratio` tokens of the whole sequence (none when the ratio is 0)
  kCompressed,
  kShared,  // attends over another layer's cache; allocates none (cross-layer sharing)
  kNone,    // no attention (recurrent-only or MLP-only layer)
};

// How a sparse-attention indexer stores its keys (LayerSpec::indexer_key).
enum class IndexKey : uint8_t { kFp8Scaled, kBf16 };

// What recurrent state, if any, a layer keeps per sequence (constant in context).
enum class StateKind {
  kNone,
  kMamba,
  kMamba2,
  kGatedDeltaNet,
  kLinearAttention,
  kShortConv,
  kKimiDelta,
};

enum class MlpKind { kDense, kMoe, kNone };

struct LayerSpec {
  AttentionKind attention = AttentionKind::kFull;
  uint32_t kv_heads = 0;       // KV heads (1 for MLA)
  uint32_t k_head_dim = 0;     // K values per head (the latent width for MLA)
  uint32_t v_head_dim = 0;     // V values per head (0 for MLA: the latent serves both)
  uint64_t window_tokens = 0;  // W for sliding, C for chunked, else 0
  StateKind state = StateKind::kNone;
  uint64_t state_values = 0;      // recurrent state values per sequence (conv + ssm)
  uint64_t ssm_state_values = 0;  // of which the temporal (SSM) state, kept in the ssm dtype
  uint64_t mixer_params = 0;  // weights of the recurrent mixer (attention weights follow from dims)
  // Sparse attention's index-key cache beside the layer's own, indexer_head_dim values a token:
  // DeepSeek's lightning indexer (V3.2, GLM-5) keeps them in fp8 with one fp32 scale per 128;
  // MiniMax-M3's block-sparse layers keep one bf16 key, the same on every tensor-parallel rank.
  uint32_t indexer_head_dim = 0;
  IndexKey indexer_key = IndexKey::kFp8Scaled;
  bool k_eq_v = false;  // V is the K projection (Gemma 4 attention_k_eq_v): no v_proj weights
  // kCompressed: tokens pooled into one compressed latent (DeepSeek-V4 compress_ratios: 4 keeps an
  // indexer and selects top-k of them, 128 attends to all; 0 = the window only).
  uint32_t compress_ratio = 0;
  uint32_t index_topk = 0;  // kCompressed with an indexer: compressed entries a query selects
  MlpKind mlp = MlpKind::kDense;

  bool keeps_tokens() const {
    return attention == AttentionKind::kFull || attention == AttentionKind::kSlidingWindow ||
           attention == AttentionKind::kChunked || attention == AttentionKind::kMla ||
           attention == AttentionKind::kCompressed;
  }
  bool windowed() const {
    return attention == AttentionKind::kSlidingWindow || attention == AttentionKind::kChunked;
  }
  // Layers with the same cache layout (the MLP kind does not change the cache).
  bool same_cache_layout(const LayerSpec& o) const {
    return attention == o.attention && kv_heads == o.kv_heads && k_head_dim == o.k_head_dim &&
           v_head_dim == o.v_head_dim && window_tokens == o.window_tokens && state == o.state &&
           state_values == o.state_values && ssm_state_values == o.ssm_state_values &&
           indexer_head_dim == o.indexer_head_dim && indexer_key == o.indexer_key &&
           compress_ratio == o.compress_ratio && index_topk == o.index_topk;
  }
};

struct MoeShape {
  uint32_t num_experts = 0;        // routed experts per MoE layer (0 = dense model)
  uint32_t experts_per_token = 0;  // top-k
  uint32_t shared_experts = 0;     // always-active experts per MoE layer
  uint64_t expert_intermediate_size = 0;
  uint64_t shared_expert_intermediate_size = 0;  // per shared expert
};

struct MlaShape {
  uint32_t q_lora_rank = 0;  // 0 when queries are not compressed (DeepSeek-V2-Lite)
  uint32_t kv_lora_rank = 0;
  uint32_t qk_rope_head_dim = 0;
  uint32_t qk_nope_head_dim = 0;
  uint32_t v_head_dim = 0;
  uint32_t index_n_heads = 0;  // sparse attention's indexer (0 = dense MLA)
  uint32_t index_head_dim = 0;
  uint32_t index_topk = 0;     // tokens each query attends to
  // DeepSeek-V4's grouped low-rank output projection: o_groups groups of o_lora_rank.
  uint32_t o_lora_rank = 0;
  uint32_t o_groups = 0;
};

// Small tensors a checkpoint stores beside the matrices (the weights to the byte).
struct LayerExtras {
  bool qkv_bias = false;         // q, k and v projections carry biases
  bool o_bias = false;           // the output projection too
  bool qk_norm = false;          // an RMSNorm of q and of k per head (Qwen3, Gemma 3 / 4)
  bool qk_norm_full = false;     // the same over all heads at once (OLMo 2 / 3)
  bool attention_sinks = false;  // a learned sink logit per head (gpt-oss)
  bool moe_biases = false;       // the router's and the routed experts' biases (gpt-oss)
};

// What config.json says about the longest sequence, as the engines read it.
struct PositionLimits {
  // max_position_embeddings and its aliases present in the config, in vLLM's order
  // (vllm/config/model.py _get_and_verify_max_len possible_keys).
  std::vector<std::pair<std::string, uint64_t>> keys;
  uint64_t model_max_length = 0;
  std::string rope_type;  // rope_scaling / rope_parameters type, normalized ("su" -> "longrope")
  double rope_factor = 0;    // 0 = none given
  bool rope_factor_float = false;  // written as a float (Python prints the product as 131072.0)
  uint64_t original_max_position_embeddings = 0;  // in the rope block, or at the top level
};

// A field added to these types goes into the lists of core/src/model/presets/preset_codec.cpp too: the
// page's first module carries the presets' shapes as those bytes.
struct ModelShape {
  ModelShape();  // out of line, as PlanReport()
  std::string model_type;  // config.json model_type of the language model
  bool has_encoder = false;  // a vision or audio tower beside it (vision_config, audio_config)
  // vision_config's num_hidden_layers and hidden_size (24 and 1024 where it leaves them out, as
  // SGLang reads them); 0 without a vision_config.
  uint64_t vision_layers = 0;
  uint64_t vision_hidden_size = 0;
  std::vector<std::string> architectures;  // config.json architectures (the wrapper's)
  uint64_t hidden_size = 0;
  uint64_t intermediate_size = 0;  // dense MLP width
  uint64_t vocab_size = 0;
  uint64_t max_position_embeddings = 0;
  PositionLimits positions;
  uint32_t num_attention_heads = 0;  // query heads
  uint32_t head_dim = 0;             // query/key head width of ordinary attention layers
  bool tie_word_embeddings = false;
  bool gated_mlp = true;  // SwiGLU-style gate, up and down (else up and down)
  bool learned_position_embeddings =
      false;                          // GPT-2-style position table of max_position_embeddings
  std::string torch_dtype = "bf16";  // compute dtype from config.json (what "auto" KV follows)
  // The dtype of the recurrent layers' temporal (SSM) state when it is not the state dtype:
  // config.json's mamba_ssm_dtype, or an engine's default ("fp32"); empty = the state dtype.
  std::string ssm_state_dtype;
  std::string ssm_state_dtype_key;  // the config field it came from (engines read different ones)
  MoeShape moe;
  MlaShape mla;                   // all zero unless the model uses MLA
  LayerExtras extras;
  std::vector<LayerSpec> layers;  // one entry per decoder layer, in order
  // MTP / next-n prediction layers the checkpoint holds after the decoder layers
  // (num_nextn_predict_layers): loaded, with their caches, only for speculative decoding.
  std::vector<LayerSpec> draft_layers;
  // Gemma 3n / Gemma 4 per-layer embeddings (hidden_size_per_layer_input, vocab_size_per_layer_input).
  uint64_t per_layer_input_size = 0;
  uint64_t per_layer_vocab = 0;
  bool draft_embeddings = false;  // each draft layer stores its own embedding and head copy
  WeightStorage weights;          // how the checkpoint stores its weights (quantization_config)
};

// Layers with one cache layout, for per-group reports.
struct LayerGroup {
  LayerSpec spec;
  std::vector<uint32_t> layer_indices;
};

// Groups layers by cache layout, in order of first appearance.
std::vector<LayerGroup> group_layers(const ModelShape& shape);

// Stable names used in JSON and the page: "full", "sliding_window", "chunked", "mla",
// "compressed", "shared", "none".
const char* attention_kind_name(AttentionKind kind);
// "", "mamba", "mamba2", "gated_delta_net", "linear_attention", "short_conv".
const char* state_kind_name(StateKind kind);
// One word for a group: the attention kind, "recurrent" for state-only layers, "<kind>+recurrent"
// for both, "compressed_<ratio>" for compressed attention ("compressed_0": the window only).
std::string layer_kind_label(const LayerSpec& spec);

}  // namespace kvscope
