// The config.json importer: one class whose stages are split over files by concept (shape fields,
// layer layout, recurrent mixers); import.cpp runs it over the language model's config.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/config/config_reader.hpp"
#include "kvscope/base/error.hpp"
#include "kvscope/model/config_import.hpp"
#include "kvscope/model/model_shape.hpp"

namespace kvscope::config {

// The config.json reader's entry points, kvscope::sizing's kConfigReader (import.cpp; the
// what-ifs in config_overrides.cpp, the side files in side_files.cpp).
Result<ImportedModel> import_config(std::string_view json_text);
Result<ImportedModel> import_preset(const ModelEntry& entry);
Result<std::string> apply_config_overrides(
    const std::string& config_json,
    const std::vector<std::pair<std::string, std::string>>& overrides);
Result<uint64_t> read_weights_index(std::string_view json_text);
Result<SpeculativeDecoding> read_speculative_config(std::string_view json_text);

// Builds a ModelShape from a config in stages; each stage may fail through the reader.
class Importer {
 public:
  Importer(const json& text_config, std::string prefix, std::string model_type, const json& root,
           std::vector<std::string>& assumptions)
      : r_(text_config, std::move(prefix), model_type, assumptions), root_(root) {
    shape_.model_type = std::move(model_type);
  }

  Result<ModelShape> run();

 private:
  const std::string& type() const { return shape_.model_type; }

  struct MixerSize {
    uint64_t conv_values = 0;  // per sequence: the convolution's last kernel-1 inputs
    uint64_t ssm_values = 0;   // per sequence: the temporal (SSM / delta-rule) state
    uint64_t params = 0;       // weights of the mixer's projections, convolution and gates
  };

  // Shape fields: dimensions, heads, context limits, experts, dtypes (shape_fields.cpp).
  void reject_unsupported();
  // The wrapper's class names: engines pick pools by them (SGLang's is_hybrid_swa_model).
  void read_architectures();
  void read_dimensions();
  // The context-length fields engines derive their limit from (context_limit.cpp).
  void read_position_limits();
  void read_intermediate();
  void read_head_dims();
  // DeepSeek-V4's compressed attention: the latent, query and output projection widths.
  void read_compressed_attention_dims();
  // KV heads in vLLM's order (ModelConfig.get_total_num_kv_heads), one value per layer.
  void read_kv_heads();
  // Which layers route to experts (for weight counting in the capacity planner).
  void read_moe();
  // Biases, q/k norms and sinks the family's modules carry (the weights to the byte).
  void read_layer_extras();
  bool is_moe_layer(size_t i);
  // The SSM state dtype a hybrid's config asks for (Qwen3.5 mamba_ssm_dtype, Nemotron-3
  // mamba_ssm_cache_dtype); the convolution state stays in the state dtype.
  void read_ssm_state_dtype();
  // Checkpoint dtype from torch_dtype (or transformers' newer `dtype`), in the language-model
  // config or else at the top level of a multimodal wrapper.
  void read_dtype();

  // Layer layout: which layers attend how, from the many ways configs say it
  // (layer_layout.cpp).
  LayerSpec attention_layer(size_t i, AttentionKind kind, uint64_t window) const;
  // GLM-5 may skip the indexer on some layers (index_topk_freq, index_skip_topk_offset: layer i
  // keeps it iff max(i - offset + 1, 0) % freq == 0; vllm/model_executor/models/deepseek_v2.py).
  bool has_indexer(size_t i) const;
  std::optional<uint64_t> sliding_window(const char* reason_key);
  // Assigns each layer its attention kind / recurrent state, most specific source first.
  void read_layer_types();
  // MiMo-V2: hybrid_layer_pattern[i] == 1 marks a sliding-window layer with its own KV heads and
  // K / V head sizes (swa_*), 0 a full-attention layer
  // (vllm/model_executor/models/mimo_v2_flash.py).
  void read_hybrid_layer_pattern();
  // Kimi Linear: linear_attn_config lists the (1-based) full-attention MLA layers and the Kimi
  // Delta Attention layers, whose state is a gated-delta-rule state per head.
  void read_linear_attn_config();
  // Gemma 4: full-attention layers have their own head size (global_head_dim) and, with
  // attention_k_eq_v, their own KV heads (num_global_key_value_heads) and no v_proj: V is the K
  // projection, still cached twice by vLLM (vllm/model_executor/models/gemma4.py).
  void read_global_attention_dims();
  void read_per_layer_config();
  void read_layer_types_list();
  // Nemotron-H: one character per layer, M = Mamba-2, * = attention, - = MLP, E = MoE.
  void read_hybrid_pattern();
  bool set_nemotron_block(size_t i, char c);
  void read_layers_block_type();
  // MiniMax: 1 = softmax attention, 0 = lightning (linear) attention with a per-head state.
  void read_attn_type_list();
  // Llama 4: chunked local attention on RoPE layers (no_rope_layers[i] == 1), full on NoPE layers.
  void read_chunked();
  void read_sliding_pattern();
  // Gemma 3n: the last num_kv_shared_layers layers read earlier layers' caches.
  void read_shared_kv_layers();
  void read_block_sparse_attention();
  // DeepSeek-V4: every layer keeps a sliding window of latents and, by compress_ratios[i], one
  // compressed latent per 4 (with an indexer) or 128 tokens, or none; entries past the decoder
  // layers are the MTP layers'.
  LayerSpec compressed_layer(size_t i, uint64_t window) const;
  void read_compress_ratios();
  // MTP / next-n prediction layers after the decoder layers (DeepSeek, GLM, MiMo:
  // num_nextn_predict_layers; Qwen3-Next / Qwen3.5: mtp_num_hidden_layers). Each is one more
  // decoder layer like the model's last attention layer; engines load it only to draft tokens.
  void read_draft_layers();

  // Recurrent mixers: state sizes and parameters (recurrent_mixers.cpp).
  LayerSpec recurrent_layer(StateKind kind, ConfigReader* fields = nullptr);
  // A layer with attention and a recurrent mixer side by side (Falcon-H1, Zamba "hybrid").
  LayerSpec attention_and_recurrent_layer(size_t i, StateKind kind);
  // State shapes follow vLLM's MambaStateShapeCalculator (vllm/model_executor/layers/mamba/
  // mamba_utils.py); parameter counts follow the transformers modules (MambaMixer, Mamba2Mixer,
  // Qwen3NextGatedDeltaNet, MiniMaxLightningAttention, Lfm2ShortConv), biases of projections
  // omitted.
  MixerSize recurrent_mixer(StateKind kind, ConfigReader* fields);
  StateKind mamba_kind() const;

  ConfigReader r_;
  const json& root_;
  ModelShape shape_;
  uint64_t index_freq_ = 1;
  int64_t index_offset_ = 2;
  size_t layers_ = 0;  // bounded by kMaxLayers
  uint64_t heads_ = 0;
  bool mla_ = false;
  bool compressed_ = false;                // DeepSeek-V4: compress_ratios
  std::vector<uint32_t> compress_ratios_;  // the decoder layers', then the MTP layers'
  uint32_t v_head_dim_ = 0;
  std::vector<uint32_t> kv_heads_;
};

}  // namespace kvscope::config
