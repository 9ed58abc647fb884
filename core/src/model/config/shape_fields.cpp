// Shape fields of a config.json: dimensions, head sizes and counts, context limits, experts,
// dtypes. Field precedence follows vLLM's ModelConfig (vllm/config/model.py: get_head_size,
// get_total_num_kv_heads) and the transformers configuration classes.
#include <algorithm>
#include <cctype>
#include <optional>

#include "base/checked_math.hpp"
#include "base/one_of.hpp"
#include "kvscope/model/dtype.hpp"
#include "model/config/importer.hpp"

namespace kvscope::config {

void Importer::read_architectures() {
  const auto names = root_.find("architectures");
  if (names == root_.end() || !names->is_array()) return;
  for (const json& n : *names) {
    if (n.is_string() && shape_.architectures.size() < 8 &&
        n.get_ref<const std::string&>().size() < 200)
      shape_.architectures.push_back(n.get<std::string>());
  }
}

void Importer::reject_unsupported() {
  if (r_.has("block_configs")) {
    r_.fail(kUnsupported, "block_configs",
            "per-block layouts (DeciLM / Nemotron-NAS) are not supported; describe the layers "
            "with layer_types instead");
  }
  if (r_.has("cross_attention_layers")) {
    r_.fail(kUnsupported, "cross_attention_layers",
            "cross-attention layers over image tokens (Llama 3.2 Vision) are not supported");
  }
  if (auto enc_dec = r_.flag("is_encoder_decoder"); enc_dec && *enc_dec) {
    r_.fail(kUnsupported, "is_encoder_decoder", "encoder-decoder models are not supported");
  }
}

void Importer::read_dimensions() {
  layers_ = static_cast<size_t>(
      r_.require_count({"num_hidden_layers", "n_layer", "num_layers", "n_layers"}, 1, kMaxLayers));
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

void Importer::read_position_limits() {
  PositionLimits& p = shape_.positions;
  for (const char* key :
       {"max_position_embeddings", "n_positions", "max_seq_len", "seq_length",
        "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len"}) {
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

void Importer::read_intermediate() {
  std::string used;
  if (auto v = r_.first_count({"intermediate_size_mlp", "dense_intermediate_size",
                               "intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim"},
                              1, kMaxWidth, &used)) {
    shape_.intermediate_size = *v;
  } else if (!r_.failed() && is_one_of(type(), {"gpt2", "gpt_bigcode", "falcon", "RefinedWeb",
                                                "RefinedWebModel", "bloom"})) {
    shape_.intermediate_size = 4 * shape_.hidden_size;
    r_.assume(r_.path("intermediate_size") + " absent: " + type() +
              " uses 4 x hidden_size = " + std::to_string(shape_.intermediate_size));
  } else if (auto ratio = r_.count("expansion_ratio", 1, 64)) {
    shape_.intermediate_size = *ratio * shape_.hidden_size;
  } else if (!r_.failed() && !r_.has("compress_ratios")) {  // DeepSeek-V4: every MLP is MoE
    r_.assume(r_.path("intermediate_size") + " absent: MLP weights are not counted");
  }
}

void Importer::read_head_dims() {
  if (r_.has("compress_ratios")) {
    read_compressed_attention_dims();
    return;
  }
  // MLA: one latent of kv_lora_rank + qk_rope_head_dim per token (vLLM get_head_size).
  if (r_.has("kv_lora_rank")) {
    shape_.mla.kv_lora_rank =
        static_cast<uint32_t>(r_.require_count({"kv_lora_rank"}, 1, kMaxHeadDim));
    shape_.mla.qk_rope_head_dim =
        static_cast<uint32_t>(r_.require_count({"qk_rope_head_dim"}, 0, kMaxHeadDim));
    shape_.mla.qk_nope_head_dim =
        static_cast<uint32_t>(r_.require_count({"qk_nope_head_dim"}, 0, kMaxHeadDim));
    shape_.mla.v_head_dim = static_cast<uint32_t>(r_.require_count({"v_head_dim"}, 1, kMaxHeadDim));
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
  if (auto d =
          r_.first_count({"head_dim", "hidden_size_per_head", "kv_channels", "attention_head_dim"},
                         1, kMaxHeadDim, &used)) {
    shape_.head_dim = static_cast<uint32_t>(*d);
  } else if (!r_.failed()) {
    if (shape_.hidden_size % heads_ != 0) {
      r_.fail(kInvalidValue, "head_dim",
              "absent, and hidden_size " + std::to_string(shape_.hidden_size) +
                  " is not divisible by num_attention_heads " + std::to_string(heads_));
      return;
    }
    shape_.head_dim = static_cast<uint32_t>(shape_.hidden_size / heads_);
    r_.assume(r_.path("head_dim") +
              " absent: hidden_size / num_attention_heads = " + std::to_string(shape_.hidden_size) +
              " / " + std::to_string(heads_) + " = " + std::to_string(shape_.head_dim));
  }
  v_head_dim_ = shape_.head_dim;
  if (auto v = r_.count("v_head_dim", 1, kMaxHeadDim)) v_head_dim_ = static_cast<uint32_t>(*v);
}

void Importer::read_compressed_attention_dims() {
  // DeepSeek-V4 (vllm/model_executor/models/deepseek_v4.py, DeepseekV4MLAAttention): one latent
  // of head_dim values, its last qk_rope_head_dim rotary, serving as key and value of every head;
  // queries from a q_lora_rank projection, the output through o_groups groups of o_lora_rank.
  shape_.head_dim = static_cast<uint32_t>(r_.require_count({"head_dim"}, 1, kMaxHeadDim));
  MlaShape& m = shape_.mla;
  m.qk_rope_head_dim =
      static_cast<uint32_t>(r_.require_count({"qk_rope_head_dim"}, 0, shape_.head_dim));
  m.q_lora_rank = static_cast<uint32_t>(r_.require_count({"q_lora_rank"}, 1, kMaxHeadDim));
  m.o_lora_rank = static_cast<uint32_t>(r_.require_count({"o_lora_rank"}, 1, kMaxHeadDim));
  m.o_groups = static_cast<uint32_t>(r_.require_count({"o_groups"}, 1, kMaxHeads));
  if (r_.has("index_head_dim")) {
    m.index_head_dim = static_cast<uint32_t>(r_.require_count({"index_head_dim"}, 1, kMaxHeadDim));
    m.index_n_heads = static_cast<uint32_t>(r_.require_count({"index_n_heads"}, 1, kMaxHeads));
    m.index_topk = static_cast<uint32_t>(r_.require_count({"index_topk"}, 1, kMaxTokens));
  }
  if (!r_.failed() && heads_ % m.o_groups != 0) {
    r_.fail(kInvalidValue, "o_groups",
            std::to_string(m.o_groups) + " does not divide num_attention_heads " +
                std::to_string(heads_));
  }
  v_head_dim_ = 0;
  compressed_ = true;
}

void Importer::read_kv_heads() {
  if (r_.failed()) return;
  kv_heads_.assign(layers_, 0);
  if (mla_ || compressed_) {
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
    if (auto n = r_.count(key, 1, kMaxHeads)) kv_heads_.assign(layers_, static_cast<uint32_t>(*n));
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

void Importer::read_moe() {
  if (r_.failed()) return;
  std::string used;
  auto experts =
      r_.first_count({"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts"}, 0,
                     kMaxExperts, &used);
  if (!experts || *experts == 0) return;
  MoeShape& moe = shape_.moe;
  moe.num_experts = static_cast<uint32_t>(*experts);
  // The experts each token routes to: only the active parameters and the decode estimate read
  // it, not the KV cache, so a config without it still plans, with a stand-in named.
  if (auto k = r_.first_count(
          {"num_experts_per_tok", "moe_top_k", "num_experts_per_token", "top_k_experts"}, 1,
          *experts)) {
    moe.experts_per_token = static_cast<uint32_t>(*k);
  } else if (!r_.failed()) {
    moe.experts_per_token = static_cast<uint32_t>(std::min<uint64_t>(8, *experts));
    r_.assume(r_.path("num_experts_per_tok") +
              " absent (no moe_top_k, no class default): " + std::to_string(moe.experts_per_token) +
              " experts per token taken for the active parameters and the decode estimate, which "
              "are estimates; the KV cache and the weights' total do not depend on it");
  }
  if (auto m = r_.count("moe_intermediate_size", 1, kMaxWidth)) {
    moe.expert_intermediate_size = *m;
  } else {
    moe.expert_intermediate_size = r_.require_count({"intermediate_size"}, 1, kMaxWidth);
    // Mixtral-style configs size their experts with intermediate_size; elsewhere it is a guess.
    if (!r_.failed() && !is_one_of(type(), {"mixtral", "llama4_text", "jamba", "minimax",
                                            "minimax_m2", "gpt_oss", "phimoe", "granitemoe"})) {
      r_.assume(r_.path("moe_intermediate_size") +
                " absent: each expert taken as wide as "
                "intermediate_size (" +
                std::to_string(moe.expert_intermediate_size) +
                "), so the weights are an estimate; the KV cache does not depend on it");
    }
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
  } else if (type() == "gemma4_text" && r_.flag("enable_moe_block").value_or(false)) {
    // Gemma 4's MoE layers run their dense MLP beside the experts (Gemma4TextDecoderLayer's
    // dense || MoE join): in weights and compute, one shared expert of intermediate_size.
    moe.shared_experts = 1;
    moe.shared_expert_intermediate_size = r_.require_count({"intermediate_size"}, 1, kMaxWidth);
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

void Importer::read_layer_extras() {
  if (r_.failed()) return;
  LayerExtras& x = shape_.extras;
  // attention_bias (Llama-style configs, gpt-oss): q, k, v and o; Qwen2's attention always biases
  // q, k and v (Qwen2Attention), which its configs do not say.
  const bool bias = r_.flag("attention_bias").value_or(false);
  x.qkv_bias = bias || r_.flag("qkv_bias").value_or(false) ||
               is_one_of(type(), {"qwen2", "qwen2_moe", "qwen2_vl_text", "qwen2_5_vl_text"});
  x.o_bias = bias;
  // Per-head q/k RMSNorms (Qwen3*Attention, Gemma3Attention, Gemma4; Glm4Moe when use_qk_norm);
  // OLMo 2 / 3 normalize all heads at once.
  x.qk_norm = r_.flag("use_qk_norm").value_or(false) ||
              is_one_of(type(), {"qwen3", "qwen3_moe", "qwen3_next", "qwen3_5", "qwen3_5_text",
                                 "qwen3_5_moe", "qwen3_5_moe_text", "gemma3", "gemma3_text",
                                 "gemma4", "gemma4_text"});
  x.qk_norm_full = is_one_of(type(), {"olmo2", "olmo3"});
  x.attention_sinks = x.moe_biases = type() == "gpt_oss";  // GptOssAttention.sinks, biased MoE
}

bool Importer::is_moe_layer(size_t i) {
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

void Importer::read_ssm_state_dtype() {
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

void Importer::read_dtype() {
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

}  // namespace kvscope::config
