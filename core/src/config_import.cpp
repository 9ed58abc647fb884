// config.json import. Field precedence follows vLLM's ModelConfig (vllm/config/model.py:
// get_head_size, get_total_num_kv_heads, get_num_layers_by_block_type) and the transformers
// configuration classes; family defaults live in data/config_defaults.json.
#include "kvscope/config_import.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

#include "config_reader.hpp"
#include "quantization_config.hpp"
#include "kvscope/checked_math.hpp"
#include "kvscope/dtype.hpp"

namespace kvscope {
namespace {

using config::ConfigReader;
using config::describe;
using config::is_one_of;
using config::kMaxExperts;
using config::kMaxHeadDim;
using config::kMaxHeads;
using config::kMaxLayers;
using config::kMaxTokens;
using config::kMaxVocab;
using config::kMaxWidth;
using nlohmann::json;

// Builds a ModelShape from a config in stages; each stage may fail through the reader.
class Importer {
 public:
  Importer(const json& text_config, std::string prefix, std::string model_type, const json& root,
           std::vector<std::string>& assumptions)
      : r_(text_config, std::move(prefix), model_type, assumptions), root_(root) {
    shape_.model_type = std::move(model_type);
    // The wrapper's class names: engines pick pools by them (SGLang's is_hybrid_swa_model).
    const auto names = root.find("architectures");
    if (names != root.end() && names->is_array()) {
      for (const json& n : *names) {
        if (n.is_string() && shape_.architectures.size() < 8 && n.get_ref<const std::string&>().size() < 200)
          shape_.architectures.push_back(n.get<std::string>());
      }
    }
  }

  Result<ModelShape> run() {
    reject_unsupported();
    read_dimensions();
    if (auto f = r_.count("index_topk_freq", 1, kMaxLayers)) index_freq_ = *f;
    if (auto o = r_.count("index_skip_topk_offset", 0, kMaxLayers))
      index_offset_ = static_cast<int64_t>(*o);
    read_layer_types();
    read_moe();
    read_draft_layers();
    read_ssm_state_dtype();
    read_dtype();
    if (r_.failed()) return Result<ModelShape>::failure(r_.error());
    return Result<ModelShape>::success(std::move(shape_));
  }

 private:
  const std::string& type() const { return shape_.model_type; }

  void reject_unsupported() {
    if (r_.has("block_configs")) {
      r_.fail(kUnsupported, "block_configs",
              "per-block layouts (DeciLM / Nemotron-NAS) are not supported; describe the layers "
              "with layer_types instead");
    }
    if (r_.has("compress_ratios")) {
      r_.fail(kUnsupported, "compress_ratios",
              "DeepSeek-V4's compressed KV caches (a sliding window, compressed rows per ratio, "
              "indexer keys and fp32 compressor state per layer) are not modelled yet");
    }
    if (r_.has("cross_attention_layers")) {
      r_.fail(kUnsupported, "cross_attention_layers",
              "cross-attention layers over image tokens (Llama 3.2 Vision) are not supported");
    }
    if (auto enc_dec = r_.flag("is_encoder_decoder"); enc_dec && *enc_dec) {
      r_.fail(kUnsupported, "is_encoder_decoder", "encoder-decoder models are not supported");
    }
  }

  void read_dimensions() {
    layers_ = static_cast<size_t>(r_.require_count(
        {"num_hidden_layers", "n_layer", "num_layers", "n_layers"}, 1, kMaxLayers));
    shape_.hidden_size =
        r_.require_count({"hidden_size", "n_embd", "d_model", "model_dim"}, 1, kMaxWidth);
    heads_ =
        r_.require_count({"num_attention_heads", "n_head", "n_heads", "num_heads"}, 1, kMaxHeads);
    if (r_.failed()) return;
    shape_.num_attention_heads = static_cast<uint32_t>(heads_);

    if (auto v = r_.first_count({"vocab_size", "padded_vocab_size"}, 1, kMaxVocab)) {
      shape_.vocab_size = *v;
    } else if (!r_.failed()) {
      r_.assume(r_.path("vocab_size") + " absent: weights of the embedding are not counted");
    }
    read_intermediate();
    read_position_limits();
    if (auto p = r_.count("hidden_size_per_layer_input", 0, kMaxWidth); p && *p > 0) {
      shape_.per_layer_input_size = *p;
      shape_.per_layer_vocab =
          r_.count("vocab_size_per_layer_input", 1, kMaxVocab).value_or(shape_.vocab_size);
    }
    if (auto tie = r_.flag("tie_word_embeddings")) {
      shape_.tie_word_embeddings = *tie;
    } else if (!r_.failed()) {
      r_.assume(r_.path("tie_word_embeddings") +
                " absent: assuming untied input and output embeddings");
    }
    // Families whose MLP is up + down without a gate, and those with a learned position table.
    shape_.gated_mlp = !is_one_of(
        type(), {"gpt2", "gpt_bigcode", "falcon", "RefinedWeb", "RefinedWebModel", "phi", "mpt",
                 "bloom", "gptj", "gpt_neox", "opt", "starcoder2", "nemotron_h", "nemotron"});
    shape_.learned_position_embeddings = is_one_of(type(), {"gpt2", "gpt_bigcode", "opt"});
    read_head_dims();
    read_kv_heads();
  }

  // The context-length fields engines derive their limit from (context_limit.cpp).
  void read_position_limits() {
    PositionLimits& p = shape_.positions;
    for (const char* key : {"max_position_embeddings", "n_positions", "max_seq_len", "seq_length",
                            "max_target_positions", "max_sequence_length", "max_seq_length",
                            "seq_len"}) {
      if (!r_.has(key) && !(std::string(key) == "max_position_embeddings" && !r_.present(key)))
        continue;
      if (auto v = r_.count(key, 1, kMaxTokens)) p.keys.emplace_back(key, *v);
    }
    if (r_.has("model_max_length"))
      p.model_max_length = r_.count("model_max_length", 1, kMaxTokens).value_or(0);
    if (auto v = r_.count("original_max_position_embeddings", 1, kMaxTokens))
      p.original_max_position_embeddings = *v;
    for (const char* block : {"rope_scaling", "rope_parameters"}) {
      if (!r_.has(block) || !r_.config()[block].is_object()) continue;
      ConfigReader rope(r_.config()[block], r_.path(block) + ".", "", r_.assumptions());
      p.rope_type = rope.text("rope_type").value_or(rope.text("type").value_or("default"));
      if (p.rope_type == "su") p.rope_type = "longrope";
      if (p.rope_type == "mrope") p.rope_type = "default";
      if (rope.has("factor")) {
        const json& f = rope.config()["factor"];
        if (!f.is_number() || !(f.get<double>() > 0 && f.get<double>() < 1e6)) {
          r_.fail(kInvalidValue, std::string(block) + ".factor",
                  "expected a positive number, got " + describe(f));
          return;
        }
        p.rope_factor = f.get<double>();
        p.rope_factor_float = f.is_number_float();
      }
      if (auto v = rope.count("original_max_position_embeddings", 1, kMaxTokens))
        p.original_max_position_embeddings = *v;
      if (rope.failed()) {
        const Error& e = rope.error();
        r_.fail_at(e.code.c_str(), e.field, e.message.substr(e.field.size() + 2));
      }
      break;
    }
    if (!p.keys.empty()) {
      shape_.max_position_embeddings = p.keys.front().second;
    } else if (!r_.failed()) {
      r_.assume(r_.path("max_position_embeddings") +
                " absent: no default context; pass one explicitly");
    }
  }

  void read_intermediate() {
    std::string used;
    if (auto v = r_.first_count(
            {"intermediate_size_mlp", "intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim"},
            1, kMaxWidth, &used)) {
      shape_.intermediate_size = *v;
    } else if (!r_.failed() && is_one_of(type(), {"gpt2", "gpt_bigcode", "falcon", "RefinedWeb",
                                                  "RefinedWebModel", "bloom"})) {
      shape_.intermediate_size = 4 * shape_.hidden_size;
      r_.assume(r_.path("intermediate_size") + " absent: " + type() +
                " uses 4 x hidden_size = " + std::to_string(shape_.intermediate_size));
    } else if (auto ratio = r_.count("expansion_ratio", 1, 64)) {
      shape_.intermediate_size = *ratio * shape_.hidden_size;
    } else if (!r_.failed()) {
      r_.assume(r_.path("intermediate_size") + " absent: MLP weights are not counted");
    }
  }

  void read_head_dims() {
    // MLA: one latent of kv_lora_rank + qk_rope_head_dim per token (vLLM get_head_size).
    if (r_.has("kv_lora_rank")) {
      shape_.mla.kv_lora_rank =
          static_cast<uint32_t>(r_.require_count({"kv_lora_rank"}, 1, kMaxHeadDim));
      shape_.mla.qk_rope_head_dim =
          static_cast<uint32_t>(r_.require_count({"qk_rope_head_dim"}, 0, kMaxHeadDim));
      shape_.mla.qk_nope_head_dim =
          static_cast<uint32_t>(r_.require_count({"qk_nope_head_dim"}, 0, kMaxHeadDim));
      shape_.mla.v_head_dim =
          static_cast<uint32_t>(r_.require_count({"v_head_dim"}, 1, kMaxHeadDim));
      if (auto q = r_.count("q_lora_rank", 1, kMaxHeadDim))
        shape_.mla.q_lora_rank = static_cast<uint32_t>(*q);
      if (r_.has("index_head_dim")) {  // DeepSeek sparse attention's lightning indexer
        shape_.mla.index_head_dim =
            static_cast<uint32_t>(r_.require_count({"index_head_dim"}, 1, kMaxHeadDim));
        shape_.mla.index_n_heads =
            static_cast<uint32_t>(r_.require_count({"index_n_heads"}, 1, kMaxHeads));
        shape_.mla.index_topk =
            static_cast<uint32_t>(r_.count("index_topk", 1, kMaxTokens).value_or(0));
      }
      shape_.head_dim = shape_.mla.qk_rope_head_dim + shape_.mla.qk_nope_head_dim;
      mla_ = true;
      return;
    }
    std::string used;
    if (auto d = r_.first_count(
            {"head_dim", "hidden_size_per_head", "kv_channels", "attention_head_dim"}, 1,
            kMaxHeadDim, &used)) {
      shape_.head_dim = static_cast<uint32_t>(*d);
    } else if (!r_.failed()) {
      if (shape_.hidden_size % heads_ != 0) {
        r_.fail(kInvalidValue, "head_dim",
                "absent, and hidden_size " + std::to_string(shape_.hidden_size) +
                    " is not divisible by num_attention_heads " + std::to_string(heads_));
        return;
      }
      shape_.head_dim = static_cast<uint32_t>(shape_.hidden_size / heads_);
      r_.assume(r_.path("head_dim") + " absent: hidden_size / num_attention_heads = " +
                std::to_string(shape_.hidden_size) + " / " + std::to_string(heads_) + " = " +
                std::to_string(shape_.head_dim));
    }
    v_head_dim_ = shape_.head_dim;
    if (auto v = r_.count("v_head_dim", 1, kMaxHeadDim)) v_head_dim_ = static_cast<uint32_t>(*v);
  }

  // KV heads in vLLM's order (ModelConfig.get_total_num_kv_heads), one value per layer.
  void read_kv_heads() {
    if (r_.failed()) return;
    kv_heads_.assign(layers_, 0);
    if (mla_) {
      kv_heads_.assign(layers_, 1);
      return;
    }
    const bool new_arch = is_one_of(type(), {"falcon", "RefinedWeb", "RefinedWebModel"}) &&
                          r_.flag("new_decoder_architecture").value_or(false);
    if (!new_arch && r_.flag("multi_query").value_or(false)) {
      kv_heads_.assign(layers_, 1);
      r_.assume(r_.path("multi_query") + " true: one KV head shared by all query heads (MQA)");
      return;
    }
    if (is_one_of(type(), {"mpt", "dbrx"}) && r_.has("attn_config")) {
      const json& attn = r_.config()["attn_config"];
      if (attn.is_object() && attn.contains("kv_n_heads") && !attn["kv_n_heads"].is_null()) {
        if (auto n = r_.to_count(attn["kv_n_heads"], "attn_config.kv_n_heads", 1, kMaxHeads)) {
          kv_heads_.assign(layers_, static_cast<uint32_t>(*n));
        }
        return;
      }
    }
    if (type() == "chatglm" && !r_.flag("multi_query_attention").value_or(false)) {
      kv_heads_.assign(layers_, static_cast<uint32_t>(heads_));
      r_.assume(r_.path("multi_query_attention") +
                " false: MHA, KV heads = num_attention_heads = " + std::to_string(heads_));
      return;
    }
    for (const char* key :
         {"n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num"}) {
      if (!r_.has(key)) continue;
      const json& v = r_.config()[key];
      if (v.is_array()) {  // per-layer counts (OpenELM)
        const json* list = r_.layer_list(key, layers_);
        for (size_t i = 0; list != nullptr && i < layers_; ++i) {
          if (auto n = r_.to_count((*list)[i], std::string(key) + "[" + std::to_string(i) + "]", 1,
                                   kMaxHeads)) {
            kv_heads_[i] = static_cast<uint32_t>(*n);
          }
        }
        return;
      }
      if (auto n = r_.count(key, 1, kMaxHeads))
        kv_heads_.assign(layers_, static_cast<uint32_t>(*n));
      return;
    }
    if (auto n = r_.first_count({"num_key_value_heads"}, 1, kMaxHeads)) {  // a family default
      kv_heads_.assign(layers_, static_cast<uint32_t>(*n));
      return;
    }
    if (r_.failed()) return;
    kv_heads_.assign(layers_, static_cast<uint32_t>(heads_));
    r_.assume(r_.path("num_key_value_heads") +
              " absent: MHA, KV heads = num_attention_heads = " + std::to_string(heads_));
  }

  LayerSpec attention_layer(size_t i, AttentionKind kind, uint64_t window) const {
    LayerSpec s;
    s.attention = kind;
    s.window_tokens = window;
    if (mla_) {
      s.attention = kind == AttentionKind::kFull ? AttentionKind::kMla : kind;
      s.kv_heads = 1;
      s.k_head_dim = shape_.mla.kv_lora_rank + shape_.mla.qk_rope_head_dim;
      s.v_head_dim = 0;
      if (has_indexer(i)) s.indexer_head_dim = shape_.mla.index_head_dim;
    } else {
      s.kv_heads = kv_heads_[i];
      s.k_head_dim = shape_.head_dim;
      s.v_head_dim = v_head_dim_;
    }
    return s;
  }

  // GLM-5 may skip the indexer on some layers (index_topk_freq, index_skip_topk_offset: layer i
  // keeps it iff max(i - offset + 1, 0) % freq == 0; vllm/model_executor/models/deepseek_v2.py).
  bool has_indexer(size_t i) const {
    if (shape_.mla.index_head_dim == 0) return false;
    if (index_freq_ <= 1) return true;
    const int64_t shifted = std::max<int64_t>(static_cast<int64_t>(i) - index_offset_ + 1, 0);
    return shifted % static_cast<int64_t>(index_freq_) == 0;
  }

  LayerSpec recurrent_layer(StateKind kind, ConfigReader* fields = nullptr) {
    LayerSpec s;
    s.attention = AttentionKind::kNone;
    s.state = kind;
    const MixerSize m = recurrent_mixer(kind, fields);
    s.state_values = m.conv_values + m.ssm_values;
    s.ssm_state_values = m.ssm_values;
    s.mixer_params = m.params;
    return s;
  }

  // A layer with attention and a recurrent mixer side by side (Falcon-H1, Zamba "hybrid").
  LayerSpec attention_and_recurrent_layer(size_t i, StateKind kind) {
    LayerSpec s = attention_layer(i, AttentionKind::kFull, 0);
    const LayerSpec m = recurrent_layer(kind);
    s.state = m.state;
    s.state_values = m.state_values;
    s.ssm_state_values = m.ssm_state_values;
    s.mixer_params = m.mixer_params;
    return s;
  }

  struct MixerSize {
    uint64_t conv_values = 0;  // per sequence: the convolution's last kernel-1 inputs
    uint64_t ssm_values = 0;   // per sequence: the temporal (SSM / delta-rule) state
    uint64_t params = 0;       // weights of the mixer's projections, convolution and gates
  };

  // State shapes follow vLLM's MambaStateShapeCalculator (vllm/model_executor/layers/mamba/
  // mamba_utils.py); parameter counts follow the transformers modules (MambaMixer, Mamba2Mixer,
  // Qwen3NextGatedDeltaNet, MiniMaxLightningAttention, Lfm2ShortConv), biases of projections
  // omitted.
  MixerSize recurrent_mixer(StateKind kind, ConfigReader* fields) {
    if (r_.failed()) return {};
    const uint64_t hidden = shape_.hidden_size;
    switch (kind) {
      case StateKind::kMamba: {
        const uint64_t d_state = r_.require_count({"mamba_d_state", "state_size"}, 1, kMaxHeadDim);
        const uint64_t d_conv = r_.require_count({"mamba_d_conv", "conv_kernel"}, 1, 1024);
        uint64_t d_inner = 0;
        if (is_one_of(type(), {"mamba", "falcon_mamba"})) {
          d_inner = r_.require_count({"intermediate_size"}, 1, kMaxWidth);
        } else {
          d_inner = r_.require_count({"mamba_expand", "expand"}, 1, 64) * hidden;
        }
        uint64_t dt_rank = ceil_div(hidden, 16);  // "auto"
        if (r_.has("mamba_dt_rank") && r_.config()["mamba_dt_rank"].is_number()) {
          dt_rank = r_.require_count({"mamba_dt_rank"}, 1, kMaxWidth);
        } else if (r_.has("time_step_rank") && r_.config()["time_step_rank"].is_number()) {
          dt_rank = r_.require_count({"time_step_rank"}, 1, kMaxWidth);
        }
        return {d_inner * (d_conv - 1), d_inner * d_state,
                hidden * 2 * d_inner + d_inner * (d_conv + 1) + d_inner * (dt_rank + 2 * d_state) +
                    (dt_rank + 1) * d_inner + d_inner * d_state + d_inner + d_inner * hidden};
      }
      case StateKind::kMamba2: {
        const uint64_t d_state =
            r_.require_count({"ssm_state_size", "mamba_d_state", "state_size"}, 1, kMaxHeadDim);
        const uint64_t d_conv = r_.require_count({"conv_kernel", "mamba_d_conv"}, 1, 1024);
        // A pure Mamba2Config names its mixer's heads num_heads and head_dim.
        const bool pure = type() == "mamba2";
        const uint64_t n_heads = pure ? heads_
                                      : r_.require_count({"mamba_num_heads", "mamba_n_heads"}, 1,
                                                         kMaxHeads);
        const uint64_t head =
            pure ? shape_.head_dim
                 : r_.require_count({"mamba_head_dim", "mamba_d_head"}, 1, kMaxHeadDim);
        const uint64_t groups = r_.require_count({"n_groups", "mamba_n_groups"}, 1, kMaxHeads);
        uint64_t d_inner = n_heads * head;
        if (auto ssm = r_.count("mamba_d_ssm", 1, kMaxWidth)) d_inner = *ssm;
        const uint64_t conv_dim = d_inner + 2 * groups * d_state;
        return {conv_dim * (d_conv - 1), n_heads * head * d_state,
                hidden * (d_inner + conv_dim + n_heads) + conv_dim * (d_conv + 1) + 3 * n_heads +
                    d_inner + d_inner * hidden};
      }
      case StateKind::kGatedDeltaNet: {
        const uint64_t k_heads = r_.require_count({"linear_num_key_heads"}, 1, kMaxHeads);
        const uint64_t v_heads = r_.require_count({"linear_num_value_heads"}, 1, kMaxHeads);
        const uint64_t k_dim = r_.require_count({"linear_key_head_dim"}, 1, kMaxHeadDim);
        const uint64_t v_dim = r_.require_count({"linear_value_head_dim"}, 1, kMaxHeadDim);
        const uint64_t d_conv = r_.require_count({"linear_conv_kernel_dim"}, 1, 1024);
        const uint64_t key_dim = k_heads * k_dim, value_dim = v_heads * v_dim;
        const uint64_t conv_dim = 2 * key_dim + value_dim;
        return {conv_dim * (d_conv - 1), v_heads * k_dim * v_dim,
                hidden * (2 * key_dim + 2 * value_dim) + hidden * 2 * v_heads + conv_dim * d_conv +
                    2 * v_heads + v_dim + value_dim * hidden};
      }
      case StateKind::kLinearAttention: {
        const uint64_t width = heads_ * shape_.head_dim;
        return {0, heads_ * shape_.head_dim * shape_.head_dim, 5 * hidden * width + width};
      }
      case StateKind::kShortConv: {
        const uint64_t kernel = r_.require_count({"conv_L_cache"}, 2, 1024);
        return {hidden * (kernel - 1), 0,
                3 * hidden * hidden + hidden * kernel + hidden * hidden};
      }
      case StateKind::kKimiDelta: {
        // Kimi Delta Attention (linear_attn_config): q, k, v short convolutions and a
        // head_dim x head_dim state per head; q/k/v/o projections, low-rank forget and output
        // gates (head_dim wide), and a beta per head.
        ConfigReader& f = fields != nullptr ? *fields : r_;
        const uint64_t heads = f.require_count({"num_heads"}, 1, kMaxHeads);
        const uint64_t dim = f.require_count({"head_dim"}, 1, kMaxHeadDim);
        const uint64_t kernel = f.require_count({"short_conv_kernel_size"}, 1, 1024);
        if (f.failed() && &f != &r_) {
          const Error& e = f.error();
          r_.fail_at(e.code.c_str(), e.field, e.message.substr(e.field.size() + 2));
        }
        const uint64_t width = heads * dim;
        return {3 * width * (kernel - 1), heads * dim * dim,
                4 * hidden * width + 2 * (hidden * dim + dim * width) + hidden * heads +
                    3 * width * kernel};
      }
      case StateKind::kNone:
        return {};
    }
    return {};
  }

  StateKind mamba_kind() const {
    return is_one_of(type(),
                     {"mamba2", "nemotron_h", "falcon_h1", "zamba2", "bamba", "granitemoehybrid"})
               ? StateKind::kMamba2
               : StateKind::kMamba;
  }

  std::optional<uint64_t> sliding_window(const char* reason_key) {
    auto w = r_.count("sliding_window", 1, kMaxTokens);
    if (!w && !r_.failed()) {
      r_.fail(kMissingField, "sliding_window",
              std::string("missing or null, but ") + reason_key + " marks sliding-window layers");
    }
    return w;
  }

  // Assigns each layer its attention kind / recurrent state, most specific source first.
  void read_layer_types() {
    if (r_.failed()) return;
    shape_.layers.assign(layers_, LayerSpec{});
    if (r_.has("layer_types")) {
      read_layer_types_list();
    } else if (r_.has("hybrid_override_pattern")) {
      read_hybrid_pattern();
    } else if (r_.has("layers_block_type")) {
      read_layers_block_type();
    } else if (r_.has("attn_type_list")) {
      read_attn_type_list();
    } else if (type() == "jamba") {
      const uint64_t period = r_.require_count({"attn_layer_period"}, 1, kMaxLayers);
      const uint64_t offset = r_.require_count({"attn_layer_offset"}, 0, kMaxLayers);
      for (size_t i = 0; i < layers_ && !r_.failed(); ++i) {
        shape_.layers[i] = i % period == offset ? attention_layer(i, AttentionKind::kFull, 0)
                                                : recurrent_layer(StateKind::kMamba);
      }
    } else if (type() == "qwen3_next") {
      const uint64_t interval = r_.require_count({"full_attention_interval"}, 1, kMaxLayers);
      for (size_t i = 0; i < layers_ && !r_.failed(); ++i) {
        shape_.layers[i] = (i + 1) % interval == 0 ? attention_layer(i, AttentionKind::kFull, 0)
                                                   : recurrent_layer(StateKind::kGatedDeltaNet);
      }
    } else if (type() == "falcon_h1") {
      for (size_t i = 0; i < layers_ && !r_.failed(); ++i) {
        shape_.layers[i] = attention_and_recurrent_layer(i, StateKind::kMamba2);
      }
    } else if (is_one_of(type(), {"mamba", "falcon_mamba", "mamba2"})) {  // attention-free
      for (size_t i = 0; i < layers_ && !r_.failed(); ++i) {
        shape_.layers[i] = recurrent_layer(mamba_kind());
        shape_.layers[i].mlp = MlpKind::kNone;  // the mixer is the whole block
      }
    } else if (r_.has("hybrid_layer_pattern")) {
      read_hybrid_layer_pattern();
    } else if (r_.has("linear_attn_config")) {
      read_linear_attn_config();
    } else if (r_.has("attention_chunk_size") || type() == "llama4_text") {
      read_chunked();
    } else {
      read_sliding_pattern();
    }
    read_global_attention_dims();
    read_shared_kv_layers();
  }

  // MiMo-V2: hybrid_layer_pattern[i] == 1 marks a sliding-window layer with its own KV heads and
  // K / V head sizes (swa_*), 0 a full-attention layer (vllm/model_executor/models/mimo_v2_flash.py).
  void read_hybrid_layer_pattern() {
    const json* list = r_.layer_list("hybrid_layer_pattern", layers_);
    if (list == nullptr) return;
    const uint64_t window =
        r_.first_count({"sliding_window_size", "sliding_window"}, 1, kMaxTokens).value_or(0);
    for (size_t i = 0; i < layers_ && !r_.failed(); ++i) {
      auto t = r_.to_count((*list)[i], "hybrid_layer_pattern[" + std::to_string(i) + "]", 0, 1);
      if (!t) return;
      if (*t == 0) {
        shape_.layers[i] = attention_layer(i, AttentionKind::kFull, 0);
        continue;
      }
      if (window == 0) {
        r_.fail(kMissingField, "sliding_window",
                "missing, but hybrid_layer_pattern marks sliding-window layers");
        return;
      }
      LayerSpec l = attention_layer(i, AttentionKind::kSlidingWindow, window);
      l.kv_heads = static_cast<uint32_t>(
          r_.count("swa_num_key_value_heads", 1, kMaxHeads).value_or(l.kv_heads));
      l.k_head_dim =
          static_cast<uint32_t>(r_.count("swa_head_dim", 1, kMaxHeadDim).value_or(l.k_head_dim));
      l.v_head_dim = static_cast<uint32_t>(
          r_.count("swa_v_head_dim", 1, kMaxHeadDim).value_or(l.v_head_dim));
      shape_.layers[i] = l;
    }
  }

  // Kimi Linear: linear_attn_config lists the (1-based) full-attention MLA layers and the Kimi
  // Delta Attention layers, whose state is a gated-delta-rule state per head.
  void read_linear_attn_config() {
    const json& c = r_.config()["linear_attn_config"];
    if (!c.is_object()) {
      r_.fail(kInvalidValue, "linear_attn_config", "expected an object, got " + describe(c));
      return;
    }
    ConfigReader lin(c, r_.path("linear_attn_config."), "", r_.assumptions());
    for (size_t i = 0; i < layers_; ++i) shape_.layers[i] = recurrent_layer(StateKind::kKimiDelta, &lin);
    const json* full = lin.lookup("full_attn_layers");
    if (full == nullptr || !full->is_array()) {
      lin.fail(kMissingField, "full_attn_layers", "expected the list of full-attention layers");
    }
    for (size_t k = 0; full != nullptr && full->is_array() && k < full->size() && !lin.failed(); ++k) {
      auto layer = lin.to_count((*full)[k], "full_attn_layers[" + std::to_string(k) + "]", 1,
                                layers_);
      if (!layer) break;
      const size_t at = static_cast<size_t>(*layer - 1);  // bounded by layers_
      shape_.layers[at] = attention_layer(at, AttentionKind::kFull, 0);
    }
    if (lin.failed()) {
      const Error& e = lin.error();
      r_.fail_at(e.code.c_str(), e.field, e.message.substr(e.field.size() + 2));
      return;
    }
    r_.assume(r_.path("linear_attn_config.full_attn_layers") +
              " counts layers from 1, as Kimi's modeling code does");
  }

  // Gemma 4: full-attention layers have their own head size (global_head_dim) and, with
  // attention_k_eq_v, their own KV heads (num_global_key_value_heads) and no v_proj: V is the K
  // projection, still cached twice by vLLM (vllm/model_executor/models/gemma4.py).
  void read_global_attention_dims() {
    if (r_.failed() || !r_.has("global_head_dim")) return;
    const uint64_t dim = r_.require_count({"global_head_dim"}, 1, kMaxHeadDim);
    const bool k_eq_v = r_.flag("attention_k_eq_v").value_or(false);
    const auto heads = r_.count("num_global_key_value_heads", 1, kMaxHeads);
    for (LayerSpec& l : shape_.layers) {
      if (l.attention != AttentionKind::kFull) continue;
      l.k_head_dim = l.v_head_dim = static_cast<uint32_t>(dim);
      if (k_eq_v && heads) l.kv_heads = static_cast<uint32_t>(*heads);
      l.k_eq_v = k_eq_v;
    }
  }

  void read_layer_types_list() {
    const json* list = r_.layer_list("layer_types", layers_);
    for (size_t i = 0; list != nullptr && i < layers_ && !r_.failed(); ++i) {
      const json& v = (*list)[i];
      const std::string key = "layer_types[" + std::to_string(i) + "]";
      const std::string t = v.is_string() ? v.get<std::string>() : std::string();
      if (is_one_of(t, {"full_attention", "attention", "global", "full"})) {
        shape_.layers[i] = attention_layer(i, AttentionKind::kFull, 0);
      } else if (is_one_of(t, {"sliding_attention", "sliding_window", "local", "sliding"})) {
        if (auto w = sliding_window("layer_types")) {
          shape_.layers[i] = attention_layer(i, AttentionKind::kSlidingWindow, *w);
        }
      } else if (t == "chunked_attention") {
        const uint64_t c = r_.require_count({"attention_chunk_size"}, 1, kMaxTokens);
        shape_.layers[i] = attention_layer(i, AttentionKind::kChunked, c);
      } else if (t == "linear_attention") {
        shape_.layers[i] =
            recurrent_layer(type() == "qwen3_next" || r_.has("linear_num_value_heads")
                                ? StateKind::kGatedDeltaNet
                                : StateKind::kLinearAttention);
      } else if (is_one_of(t, {"mamba", "mamba2", "ssm"})) {
        shape_.layers[i] = recurrent_layer(t == "mamba2" ? StateKind::kMamba2 : mamba_kind());
      } else if (t == "conv") {
        shape_.layers[i] = recurrent_layer(StateKind::kShortConv);
      } else {
        r_.fail(kUnsupported, key,
                "unknown layer type " + describe(v) +
                    " (known: full_attention, sliding_attention, chunked_attention, "
                    "linear_attention, mamba, conv)");
      }
    }
  }

  // Nemotron-H: one character per layer, M = Mamba-2, * = attention, - = MLP, E = MoE.
  void read_hybrid_pattern() {
    auto pattern = r_.text("hybrid_override_pattern");
    if (!pattern) return;
    if (pattern->size() != layers_) {
      r_.fail(kInvalidValue, "hybrid_override_pattern",
              "has " + std::to_string(pattern->size()) + " characters but the model has " +
                  std::to_string(layers_) + " layers");
      return;
    }
    for (size_t i = 0; i < layers_ && !r_.failed(); ++i) {
      const char c = (*pattern)[i];
      if (c == 'M') {
        shape_.layers[i] = recurrent_layer(StateKind::kMamba2);
        shape_.layers[i].mlp = MlpKind::kNone;
      } else if (c == '*') {
        shape_.layers[i] = attention_layer(i, AttentionKind::kFull, 0);
        shape_.layers[i].mlp = MlpKind::kNone;
      } else if (c == '-' || c == 'E') {
        shape_.layers[i].attention = AttentionKind::kNone;
        shape_.layers[i].mlp = c == 'E' ? MlpKind::kMoe : MlpKind::kDense;
      } else {
        r_.fail(kInvalidValue, "hybrid_override_pattern",
                "character " + std::to_string(i) + " is " + quote_user_text(std::string(1, c)) +
                    " (expected M, *, - or E)");
      }
    }
  }

  void read_layers_block_type() {
    const json* list = r_.layer_list("layers_block_type", layers_);
    for (size_t i = 0; list != nullptr && i < layers_ && !r_.failed(); ++i) {
      const json& v = (*list)[i];
      const std::string t = v.is_string() ? v.get<std::string>() : std::string();
      if (t == "attention") {
        shape_.layers[i] = attention_layer(i, AttentionKind::kFull, 0);
      } else if (t == "mamba") {
        shape_.layers[i] = recurrent_layer(mamba_kind());
      } else if (t == "hybrid") {  // Zamba: a shared attention block beside the Mamba layer
        shape_.layers[i] = attention_and_recurrent_layer(i, mamba_kind());
      } else {
        r_.fail(kUnsupported, "layers_block_type[" + std::to_string(i) + "]",
                "unknown block type " + describe(v) + " (known: attention, mamba, hybrid)");
      }
    }
  }

  // MiniMax: 1 = softmax attention, 0 = lightning (linear) attention with a per-head state.
  void read_attn_type_list() {
    const json* list = r_.layer_list("attn_type_list", layers_);
    for (size_t i = 0; list != nullptr && i < layers_ && !r_.failed(); ++i) {
      auto t = r_.to_count((*list)[i], "attn_type_list[" + std::to_string(i) + "]", 0, 1);
      if (!t) return;
      shape_.layers[i] = *t == 1 ? attention_layer(i, AttentionKind::kFull, 0)
                                 : recurrent_layer(StateKind::kLinearAttention);
    }
  }

  // Llama 4: chunked local attention on RoPE layers (no_rope_layers[i] == 1), full on NoPE layers.
  void read_chunked() {
    const uint64_t chunk = r_.require_count({"attention_chunk_size"}, 1, kMaxTokens);
    const json* no_rope = nullptr;
    if (r_.has("no_rope_layers") && !r_.config()["no_rope_layers"].empty()) {
      no_rope = r_.layer_list("no_rope_layers", layers_);
    }
    uint64_t interval = 0;
    if (no_rope == nullptr && !r_.failed()) {
      interval = r_.require_count({"no_rope_layer_interval"}, 1, kMaxLayers);
    }
    for (size_t i = 0; i < layers_ && !r_.failed(); ++i) {
      bool rope = false;
      if (no_rope != nullptr) {
        auto v = r_.to_count((*no_rope)[i], "no_rope_layers[" + std::to_string(i) + "]", 0, 1);
        rope = v.value_or(0) == 1;
      } else {
        rope = (i + 1) % interval != 0;
      }
      shape_.layers[i] =
          attention_layer(i, rope ? AttentionKind::kChunked : AttentionKind::kFull, chunk);
      if (!rope) shape_.layers[i].window_tokens = 0;
    }
  }

  void read_sliding_pattern() {
    for (size_t i = 0; i < layers_; ++i)
      shape_.layers[i] = attention_layer(i, AttentionKind::kFull, 0);
    if (r_.present("use_sliding_window") ||
        is_one_of(type(), {"qwen2", "qwen2_moe", "qwen3", "qwen3_moe"})) {
      if (!r_.flag("use_sliding_window").value_or(false)) {
        if (r_.has("sliding_window")) {
          r_.assume(r_.path("sliding_window") + " " + describe(r_.config()["sliding_window"]) +
                    " ignored: use_sliding_window is false");
        }
        return;
      }
      // Qwen2: sliding only from layer max_window_layers on (Qwen2Config.layer_types).
      auto w = sliding_window("use_sliding_window");
      const size_t first =
          static_cast<size_t>(r_.require_count({"max_window_layers"}, 0, kMaxLayers));
      for (size_t i = first; w && i < layers_; ++i) {
        shape_.layers[i] = attention_layer(i, AttentionKind::kSlidingWindow, *w);
      }
      return;
    }
    auto w = r_.count("sliding_window", 1, kMaxTokens);
    if (!w) return;
    uint64_t pattern = 0;
    std::string rule;
    if (auto p =
            r_.first_count({"sliding_window_pattern", "_sliding_window_pattern"}, 1, kMaxLayers)) {
      pattern = *p;
      rule = "sliding_window_pattern " + std::to_string(pattern) +
             ": layer i slides unless (i+1) % " + std::to_string(pattern) + " == 0";
    } else if (r_.failed()) {
      return;
    } else if (type() == "gemma2" || type() == "gpt_oss") {
      pattern = 2;  // Gemma2Config / GptOssConfig layer_types: alternate, starting with sliding
      rule = "layer_types absent: " + type() +
             " alternates sliding and full layers, starting with sliding";
    }
    if (pattern == 0) {
      for (size_t i = 0; i < layers_; ++i)
        shape_.layers[i] = attention_layer(i, AttentionKind::kSlidingWindow, *w);
      r_.assume(r_.path("sliding_window") + " " + std::to_string(*w) +
                " applies to every layer (no layer_types or pattern given), as vLLM does");
      return;
    }
    r_.assume(r_.path(rule));
    for (size_t i = 0; i < layers_; ++i) {
      if ((i + 1) % pattern != 0)
        shape_.layers[i] = attention_layer(i, AttentionKind::kSlidingWindow, *w);
    }
  }

  // Gemma 3n: the last num_kv_shared_layers layers read earlier layers' caches.
  void read_shared_kv_layers() {
    auto shared = r_.count("num_kv_shared_layers", 0, layers_);
    if (!shared) return;
    for (size_t i = layers_ - static_cast<size_t>(*shared); i < layers_; ++i) {
      if (shape_.layers[i].keeps_tokens()) shape_.layers[i].attention = AttentionKind::kShared;
    }
  }

  // MTP / next-n prediction layers after the decoder layers (DeepSeek, GLM, MiMo:
  // num_nextn_predict_layers; Qwen3-Next / Qwen3.5: mtp_num_hidden_layers). Each is one more
  // decoder layer like the model's last attention layer; engines load it only to draft tokens.
  void read_draft_layers() {
    if (r_.failed()) return;
    std::string used;
    const uint64_t n =
        r_.first_count({"num_nextn_predict_layers", "mtp_num_hidden_layers"}, 0, 64, &used)
            .value_or(0);
    if (n == 0 || r_.failed()) return;
    LayerSpec draft;
    for (const LayerSpec& l : shape_.layers) {
      if (l.keeps_tokens() && l.attention != AttentionKind::kSlidingWindow) draft = l;
    }
    if (!draft.keeps_tokens()) return;
    draft.state = StateKind::kNone;
    draft.state_values = draft.mixer_params = 0;
    draft.mlp = shape_.moe.num_experts != 0 ? MlpKind::kMoe : MlpKind::kDense;
    shape_.draft_layers.assign(static_cast<size_t>(n), draft);
    // DeepSeek's checkpoints store an embedding and head copy in each MTP layer (GLM-4.5 too).
    shape_.draft_embeddings =
        is_one_of(type(), {"deepseek_v3", "deepseek_v32", "glm4_moe", "glm_moe_dsa"});
    r_.assume(r_.path(used) + " " + std::to_string(n) + ": " + std::to_string(n) +
              " MTP layer(s) in the checkpoint, loaded only for speculative decoding" +
              (shape_.draft_embeddings ? " (each with its own embedding and head copy)" : ""));
  }

  // Which layers route to experts (for weight counting in the capacity planner).
  void read_moe() {
    if (r_.failed()) return;
    std::string used;
    auto experts =
        r_.first_count({"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts"},
                       0, kMaxExperts, &used);
    if (!experts || *experts == 0) return;
    MoeShape& moe = shape_.moe;
    moe.num_experts = static_cast<uint32_t>(*experts);
    moe.experts_per_token = static_cast<uint32_t>(r_.require_count(
        {"num_experts_per_tok", "moe_top_k", "num_experts_per_token"}, 1, *experts));
    if (auto m = r_.count("moe_intermediate_size", 1, kMaxWidth)) {
      moe.expert_intermediate_size = *m;
    } else {
      moe.expert_intermediate_size = r_.require_count({"intermediate_size"}, 1, kMaxWidth);
    }
    if (auto n = r_.count("n_shared_experts", 0, kMaxExperts)) {
      moe.shared_experts = static_cast<uint32_t>(*n);
      // Nemotron-H sizes its shared expert apart (moe_shared_expert_intermediate_size).
      moe.shared_expert_intermediate_size =
          r_.count("moe_shared_expert_intermediate_size", 1, kMaxWidth)
              .value_or(moe.expert_intermediate_size);
    } else if (auto size = r_.count("shared_expert_intermediate_size", 0, kMaxWidth);
               size && *size > 0) {
      moe.shared_experts = 1;
      moe.shared_expert_intermediate_size = *size;
    } else if (type() == "llama4_text") {  // one shared expert as wide as a routed one
      moe.shared_experts = 1;
      moe.shared_expert_intermediate_size = r_.require_count({"intermediate_size"}, 1, kMaxWidth);
    }
    for (size_t i = 0; i < layers_ && !r_.failed(); ++i) {
      if (shape_.layers[i].mlp == MlpKind::kNone) continue;
      if (type() == "nemotron_h") continue;  // set per layer by hybrid_override_pattern
      shape_.layers[i].mlp = is_moe_layer(i) ? MlpKind::kMoe : MlpKind::kDense;
    }
  }

  bool is_moe_layer(size_t i) {
    if (const json* per_layer = r_.lookup("moe_layer_freq");
        per_layer != nullptr && per_layer->is_array()) {  // MiMo-V2: one 0/1 entry per layer
      return i < per_layer->size() && (*per_layer)[i].is_number() && (*per_layer)[i] != 0;
    }
    if (auto first_dense = r_.count("first_k_dense_replace", 0, kMaxLayers)) {  // DeepSeek
      const uint64_t freq = r_.count("moe_layer_freq", 1, kMaxLayers).value_or(1);
      return i >= *first_dense && i % freq == 0;
    }
    if (const json* only = r_.lookup("mlp_only_layers");
        only != nullptr && only->is_array()) {  // Qwen MoE
      for (const json& v : *only) {
        if (v.is_number_unsigned() && v.get<uint64_t>() == i) return false;
      }
    }
    if (auto step = r_.count("decoder_sparse_step", 1, kMaxLayers)) return (i + 1) % *step == 0;
    if (auto step = r_.count("interleave_moe_layer_step", 1, kMaxLayers))
      return i % *step == *step - 1;
    if (auto period = r_.count("expert_layer_period", 1, kMaxLayers)) {  // Jamba
      return i % *period == r_.count("expert_layer_offset", 0, kMaxLayers).value_or(0);
    }
    return true;
  }

  // The SSM state dtype a hybrid's config asks for (Qwen3.5 mamba_ssm_dtype, Nemotron-3
  // mamba_ssm_cache_dtype); the convolution state stays in the state dtype.
  void read_ssm_state_dtype() {
    if (r_.failed()) return;
    for (const char* key : {"mamba_ssm_dtype", "mamba_ssm_cache_dtype"}) {
      const std::optional<std::string> v = r_.has(key) ? r_.text(key) : std::nullopt;
      if (!v || *v == "auto") continue;
      const Result<Dtype> d = dtype_from_torch_dtype(*v, r_.path(key));
      if (!d.ok) {
        r_.fail_at(d.error.code.c_str(), d.error.field,
                   d.error.message.substr(d.error.field.size() + 2));
        return;
      }
      shape_.ssm_state_dtype = d.value.name;
      shape_.ssm_state_dtype_key = key;
      r_.assume(r_.path(key) + " " + *v + ": SSM state in " + d.value.name +
                " where the engine follows the config");
      return;
    }
  }

  // Checkpoint dtype from torch_dtype (or transformers' newer `dtype`), in the language-model
  // config or else at the top level of a multimodal wrapper.
  void read_dtype() {
    if (r_.failed()) return;
    for (const json* obj : {&r_.config(), &root_}) {
      for (const char* key : {"torch_dtype", "dtype"}) {
        if (!obj->contains(key) || (*obj)[key].is_null()) continue;
        const std::string path = obj == &root_ ? std::string(key) : r_.path(key);
        const json& v = (*obj)[key];
        if (!v.is_string()) {
          r_.fail_at(kInvalidValue, path,
                     "expected a string such as \"bfloat16\", got " + describe(v));
          return;
        }
        const Result<Dtype> d = dtype_from_torch_dtype(v.get<std::string>(), path);
        if (!d.ok) {
          r_.fail_at(d.error.code.c_str(), path, d.error.message.substr(path.size() + 2));
          return;
        }
        shape_.torch_dtype = d.value.name;
        return;
      }
    }
    r_.assume(r_.path("torch_dtype") + " absent: assuming bfloat16 weights");
  }

  ConfigReader r_;
  const json& root_;
  ModelShape shape_;
  uint64_t index_freq_ = 1;
  int64_t index_offset_ = 2;
  size_t layers_ = 0;  // bounded by kMaxLayers
  uint64_t heads_ = 0;
  bool mla_ = false;
  uint32_t v_head_dim_ = 0;
  std::vector<uint32_t> kv_heads_;
};

}  // namespace

Result<std::string> apply_config_overrides(
    const std::string& config_json,
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  using R = Result<std::string>;
  Result<json> parsed_root = parse_python_json(config_json, "config");
  if (!parsed_root.ok) return R::failure(parsed_root.error);
  json root = std::move(parsed_root.value);
  if (!root.is_object())
    return R::failure(make_error(kInvalidJson, "config", "expected a JSON object"));
  for (const auto& [field, value] : overrides) {
    const bool well_formed =
        !field.empty() && field.size() <= 128 && field.front() != '.' && field.back() != '.' &&
        std::all_of(field.begin(), field.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
        });
    if (!well_formed) {
      return R::failure(make_error(
          kInvalidValue, "set",
          "field name " + quote_user_text(field) + " must be letters, digits, _ and dots"));
    }
    json* target = &root;
    for (const char* wrapper : {"text_config", "llm_config", "language_config"}) {
      if (field.find('.') == std::string::npos && root.contains(wrapper) &&
          root[wrapper].is_object()) {
        target = &root[wrapper];
      }
    }
    std::string key = field;
    for (size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.')) {
      json& next = (*target)[key.substr(0, dot)];
      if (!next.is_object()) {
        return R::failure(
            make_error(kInvalidValue, "set",
                       quote_user_text(field) + " does not name a field inside an object"));
      }
      target = &next;
      key = key.substr(dot + 1);
    }
    Result<json> parsed = parse_python_json(value, "set");
    (*target)[key] = parsed.ok ? std::move(parsed.value) : json(value);
  }
  // A bare word may hold invalid UTF-8 (found by fuzz_cli): replace it rather than throw.
  return R::success(root.dump(-1, ' ', false, json::error_handler_t::replace));
}

Result<uint64_t> read_weights_index(std::string_view json_text) {
  using R = Result<uint64_t>;
  const Result<json> parsed = parse_python_json(json_text, "weights_index");
  if (!parsed.ok) return R::failure(parsed.error);
  const json& root = parsed.value;
  if (!root.is_object() || !root.contains("metadata") || !root["metadata"].is_object() ||
      !root["metadata"].contains("total_size")) {
    return R::failure(make_error(kMissingField, "weights_index.metadata.total_size",
                                 "missing: a model.safetensors.index.json has metadata.total_size"));
  }
  std::vector<std::string> ignored;
  ConfigReader r(root["metadata"], "weights_index.metadata.", "", ignored);
  const std::optional<uint64_t> total = r.count("total_size", 1, uint64_t{1} << 52);
  if (!total) return R::failure(r.error());
  return R::success(*total);
}

Result<SpeculativeDecoding> read_speculative_config(std::string_view json_text) {
  using R = Result<SpeculativeDecoding>;
  const Result<json> parsed = parse_python_json(json_text, "speculative_config");
  if (!parsed.ok) return R::failure(parsed.error);
  if (!parsed.value.is_object()) {
    return R::failure(make_error(kInvalidValue, "speculative_config",
                                 "expected an object such as {\"method\": \"mtp\"}"));
  }
  std::vector<std::string> ignored;
  ConfigReader r(parsed.value, "speculative_config.", "", ignored);
  SpeculativeDecoding out;
  out.method = r.text("method").value_or("");
  out.num_speculative_tokens = r.count("num_speculative_tokens", 1, 64).value_or(0);
  if (r.failed()) return R::failure(r.error());
  // vLLM's per-model MTP methods (deepseek_mtp, qwen3_next_mtp, ...) are the model's MTP layers.
  if (out.method.size() > 4 && out.method.compare(out.method.size() - 4, 4, "_mtp") == 0)
    out.method = "mtp";
  if (out.method != "mtp" && out.method != "ngram" && out.method != "suffix") {
    return R::failure(make_error(
        kUnsupported, "speculative_config.method",
        quote_user_text(out.method) +
            " is not modelled: a draft model (eagle, eagle3, medusa, draft_model) needs its own "
            "config; give \"mtp\" (the model's MTP layers) or \"ngram\""));
  }
  return R::success(out);
}

Result<ImportedModel> import_config(std::string_view json_text) {
  const Result<json> parsed = parse_python_json(json_text, "config");
  if (!parsed.ok) return Result<ImportedModel>::failure(parsed.error);
  const json& root = parsed.value;
  if (!root.is_object()) {
    return Result<ImportedModel>::failure(
        make_error(kInvalidJson, "config", "expected a JSON object, got " + describe(root)));
  }
  ImportedModel out;
  const json* text = &root;
  std::string prefix;
  for (const char* wrapper : {"text_config", "llm_config", "language_config"}) {
    if (root.contains(wrapper) && root[wrapper].is_object()) {
      text = &root[wrapper];
      prefix = std::string(wrapper) + ".";
      out.assumptions.push_back(std::string("language model read from ") + wrapper +
                                " (multimodal wrapper)");
      break;
    }
  }
  std::string model_type;
  for (const json* obj : {text, &root}) {
    if (!obj->contains("model_type") || (*obj)["model_type"].is_null()) continue;
    const json& v = (*obj)["model_type"];
    if (!v.is_string() || non_finite_number(v)) {
      return Result<ImportedModel>::failure(
          make_error(kInvalidValue, (obj == &root ? "" : prefix) + "model_type",
                     "expected a string such as \"llama\", got " + describe(v)));
    }
    model_type = v.get<std::string>();
    break;
  }
  const bool root_has_type = root.contains("model_type") && root["model_type"].is_string();
  if (text != &root && root_has_type && model_type == root["model_type"].get<std::string>() &&
      model_type.find("_text") == std::string::npos && !model_type.empty()) {
    model_type += "_text";  // Gemma 3 / Llama 4 text configs default to <type>_text classes
  }
  for (const char* tower : {"vision_config", "audio_config", "visual"}) {
    if (root.contains(tower) && root[tower].is_object()) {
      out.assumptions.push_back(std::string(tower) +
                                " present: its encoder's weights are not counted (the language "
                                "model only)");
    }
  }
  Importer importer(*text, prefix, model_type, root, out.assumptions);
  Result<ModelShape> shape = importer.run();
  if (!shape.ok) return Result<ImportedModel>::failure(shape.error);
  out.shape = std::move(shape.value);
  // Quantized checkpoints say how they store their weights; the rest is in torch_dtype.
  const Dtype plain =
      parse_dtype(out.shape.torch_dtype, DtypeUse::kWeight, "torch_dtype").value;
  out.shape.weights = plain_storage(plain);
  for (const json* obj : {&root, text}) {
    if (!obj->contains("quantization_config") || (*obj)["quantization_config"].is_null()) continue;
    const std::string path = (obj == &root ? "" : prefix) + "quantization_config";
    json q = (*obj)["quantization_config"];
    // Older compressed-tensors checkpoints keep the scheme in a sibling compression_config.
    if (q.is_object() && !q.contains("config_groups") && obj->contains("compression_config") &&
        (*obj)["compression_config"].is_object()) {
      const json& c = (*obj)["compression_config"];
      const json& scheme = c.contains("quantization_config") && c["quantization_config"].is_object()
                               ? c["quantization_config"]
                               : c;
      for (const auto& [key, value] : scheme.items()) {
        if (!q.contains(key)) q[key] = value;
      }
      out.assumptions.push_back(path + ": the scheme read from compression_config");
    }
    Result<WeightStorage> storage =
        read_quantization_config(q, path, out.shape.model_type, plain, out.assumptions);
    if (!storage.ok) return Result<ImportedModel>::failure(storage.error);
    out.shape.weights = std::move(storage.value);
    break;
  }
  return Result<ImportedModel>::success(std::move(out));
}

}  // namespace kvscope
