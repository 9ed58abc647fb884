// The layer layout of a config.json: which layers attend fully, in a window or a chunk, share a
// cache or keep a recurrent state, from the many fields configs say it with
// (vllm/config/model.py get_num_layers_by_block_type and the model files cited per reader).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

#include "base/checked_math.hpp"
#include "kvscope/model/dtype.hpp"
#include "model/config/importer.hpp"

namespace kvscope::config {

LayerSpec Importer::attention_layer(size_t i, AttentionKind kind, uint64_t window) const {
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

bool Importer::has_indexer(size_t i) const {
  if (shape_.mla.index_head_dim == 0) return false;
  if (index_freq_ <= 1) return true;
  const int64_t shifted = std::max<int64_t>(static_cast<int64_t>(i) - index_offset_ + 1, 0);
  return shifted % static_cast<int64_t>(index_freq_) == 0;
}

std::optional<uint64_t> Importer::sliding_window(const char* reason_key) {
  auto w = r_.count("sliding_window", 1, kMaxTokens);
  if (!w && !r_.failed()) {
    r_.fail(kMissingField, "sliding_window",
            std::string("missing or null, but ") + reason_key + " marks sliding-window layers");
  }
  return w;
}

LayerSpec Importer::compressed_layer(size_t i, uint64_t window) const {
  LayerSpec s;
  s.attention = AttentionKind::kCompressed;
  s.kv_heads = 1;
  s.k_head_dim = shape_.head_dim;
  s.window_tokens = window;
  s.compress_ratio = i < compress_ratios_.size() ? compress_ratios_[i] : 0;
  // Only ratio-4 layers select their entries with an indexer (DeepseekV4MLAAttention builds one
  // when compress_ratio == 4; vllm/model_executor/layers/deepseek_v4_attention.py).
  if (s.compress_ratio == 4 && shape_.mla.index_head_dim != 0) {
    s.indexer_head_dim = shape_.mla.index_head_dim;
    s.index_topk = shape_.mla.index_topk;
  }
  return s;
}

void Importer::read_compress_ratios() {
  const json* list = r_.lookup("compress_ratios");
  if (list == nullptr || r_.failed()) return;
  if (!list->is_array() || list->size() < layers_) {
    r_.fail(kInvalidValue, "compress_ratios",
            "expected a list with an entry per layer (" + std::to_string(layers_) + "), got " +
                describe(*list));
    return;
  }
  for (size_t i = 0; i < list->size() && !r_.failed(); ++i) {
    const std::string key = "compress_ratios[" + std::to_string(i) + "]";
    const std::optional<uint64_t> ratio = r_.to_count((*list)[i], key, 0, kMaxTokens);
    if (ratio && *ratio == 1)
      r_.fail(kInvalidValue, key, "1 compresses nothing: 0 (none) or 2 and more");
    if (ratio) compress_ratios_.push_back(static_cast<uint32_t>(*ratio));
  }
  const std::optional<uint64_t> window = sliding_window("compress_ratios");
  for (size_t i = 0; i < layers_ && window && !r_.failed(); ++i)
    shape_.layers[i] = compressed_layer(i, *window);
}

void Importer::read_layer_types() {
  if (r_.failed()) return;
  shape_.layers.assign(layers_, LayerSpec{});
  if (compressed_) {
    read_compress_ratios();
  } else if (r_.has("layer_types")) {
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
  read_block_sparse_attention();
}

// MiniMax-M3's block-sparse layers (sparse_attention_config, MiniMaxM3TextConfig): each keeps one
// index key of sparse_index_dim values per token beside its K and V, in bf16 and unsharded (vLLM
// vllm/models/minimax_m3/common/indexer.py MiniMaxM3IndexerCache, PR #45381; SGLang
// pool_configurator.py _compute_cell_size). A layer whose index branch also keeps a value
// (sparse_disable_index_value 0: SGLang's index_kv_pool) is refused, never undercounted.
void Importer::read_block_sparse_attention() {
  if (r_.failed()) return;
  const json* sparse = r_.lookup("sparse_attention_config");
  if (sparse == nullptr) return;
  if (!sparse->is_object()) {
    r_.fail(kInvalidValue, "sparse_attention_config",
            "expected an object, got " + describe(*sparse));
    return;
  }
  ConfigReader s(*sparse, r_.path("sparse_attention_config."), "", r_.assumptions());
  if (!s.flag("use_sparse_attention").value_or(false)) return;
  const uint64_t dim = s.require_count({"sparse_index_dim"}, 1, kMaxHeadDim);
  const uint64_t index_heads = s.require_count({"sparse_num_index_heads"}, 1, kMaxHeads);
  const json* sparse_layers = s.layer_list("sparse_attention_freq", layers_);
  const json* keys_only = s.layer_list("sparse_disable_index_value", layers_);
  for (size_t i = 0; i < layers_ && sparse_layers != nullptr && keys_only != nullptr && !s.failed();
       ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    const auto is_sparse = s.to_count((*sparse_layers)[i], "sparse_attention_freq" + at, 0, 1);
    const auto key_only = s.to_count((*keys_only)[i], "sparse_disable_index_value" + at, 0, 1);
    if (!is_sparse || !key_only || *is_sparse == 0) continue;
    if (*key_only == 0) {
      s.fail(kUnsupported, "sparse_disable_index_value" + at,
             "an index branch with its own value cache is not modelled (MiniMax-M3 disables it "
             "on every sparse layer)");
      break;
    }
    LayerSpec& l = shape_.layers[i];
    if (l.attention != AttentionKind::kFull) {
      s.fail(kUnsupported, "sparse_attention_freq" + at,
             "block-sparse attention on a layer that is not full attention is not modelled");
      break;
    }
    l.indexer_head_dim = static_cast<uint32_t>(dim);
    l.indexer_key = IndexKey::kBf16;
  }
  if (s.failed()) {
    const Error& e = s.error();
    r_.fail_at(e.code.c_str(), e.field, e.message.substr(e.field.size() + 2));
    return;
  }
  shape_.mla.index_head_dim = static_cast<uint32_t>(dim);  // the indexer's query heads and width
  shape_.mla.index_n_heads = static_cast<uint32_t>(index_heads);
}

void Importer::read_hybrid_layer_pattern() {
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
    l.v_head_dim =
        static_cast<uint32_t>(r_.count("swa_v_head_dim", 1, kMaxHeadDim).value_or(l.v_head_dim));
    shape_.layers[i] = l;
  }
}

void Importer::read_linear_attn_config() {
  const json& c = r_.config()["linear_attn_config"];
  if (!c.is_object()) {
    r_.fail(kInvalidValue, "linear_attn_config", "expected an object, got " + describe(c));
    return;
  }
  ConfigReader lin(c, r_.path("linear_attn_config."), "", r_.assumptions());
  for (size_t i = 0; i < layers_; ++i)
    shape_.layers[i] = recurrent_layer(StateKind::kKimiDelta, &lin);
  const json* full = lin.lookup("full_attn_layers");
  if (full == nullptr || !full->is_array()) {
    lin.fail(kMissingField, "full_attn_layers", "expected the list of full-attention layers");
  }
  for (size_t k = 0; full != nullptr && full->is_array() && k < full->size() && !lin.failed();
       ++k) {
    auto layer =
        lin.to_count((*full)[k], "full_attn_layers[" + std::to_string(k) + "]", 1, layers_);
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

void Importer::read_global_attention_dims() {
  if (r_.failed()) return;
  if (r_.has("per_layer_config")) {
    read_per_layer_config();
    return;
  }
  // Gemma4TextConfig gives full-attention layers global_head_dim 512 when the config is silent.
  if (!r_.has("global_head_dim") && type() != "gemma4_text") return;
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

// transformers 5.15 on (HeterogeneousConfigMixin, PR #47384) saves per-layer attention shapes as
// per_layer_config {"<layer>": {"head_dim": ..., "num_key_value_heads": ...}}: Gemma 4's full
// layers in place of global_head_dim and num_global_key_value_heads. Other keys that would size
// the cache are refused by name, never ignored.
void Importer::read_per_layer_config() {
  const json& map = r_.config()["per_layer_config"];
  if (!map.is_object()) {
    r_.fail(kInvalidValue, "per_layer_config",
            "expected an object of layer overrides, got " + describe(map));
    return;
  }
  for (auto it = map.begin(); it != map.end() && !r_.failed(); ++it) {
    const std::string at = "per_layer_config." + it.key();
    char* end = nullptr;
    const unsigned long long layer = std::strtoull(it.key().c_str(), &end, 10);
    if (it.key().empty() || *end != '\0' || layer >= layers_ || !it.value().is_object()) {
      r_.fail(kInvalidValue, "per_layer_config",
              quote_user_text(it.key()) + " is not a layer of the model's " +
                  std::to_string(layers_) + " with an object of overrides");
      return;
    }
    LayerSpec& l = shape_.layers[static_cast<size_t>(layer)];
    for (auto field = it.value().begin(); field != it.value().end() && !r_.failed(); ++field) {
      const std::string key = at + "." + field.key();
      if (field.key() == "head_dim") {
        if (auto d = r_.to_count(field.value(), key, 1, kMaxHeadDim))
          l.k_head_dim = l.v_head_dim = static_cast<uint32_t>(*d);
      } else if (field.key() == "num_key_value_heads") {
        if (auto h = r_.to_count(field.value(), key, 1, kMaxHeads))
          l.kv_heads = static_cast<uint32_t>(*h);
      } else if (is_one_of(field.key(), {"sliding_window", "layer_type", "attention_chunk_size",
                                         "kv_lora_rank"})) {
        r_.fail(kUnsupported, key, "a per-layer override kvscope does not read yet");
      }
    }
    l.k_eq_v = l.attention == AttentionKind::kFull && r_.flag("attention_k_eq_v").value_or(false);
  }
}

void Importer::read_layer_types_list() {
  const json* list = r_.layer_list("layer_types", layers_);
  for (size_t i = 0; list != nullptr && i < layers_ && !r_.failed(); ++i) {
    const json& v = (*list)[i];
    const std::string key = "layer_types[" + std::to_string(i) + "]";
    const std::string t = v.is_string() ? v.get<std::string>() : std::string();
    // GLM-5.x's ModelOpt checkpoints name their MLA + indexer layers deepseek_sparse_attention.
    if (is_one_of(t,
                  {"full_attention", "attention", "global", "full", "deepseek_sparse_attention"})) {
      shape_.layers[i] = attention_layer(i, AttentionKind::kFull, 0);
    } else if (is_one_of(t, {"sliding_attention", "sliding_window", "local", "sliding"})) {
      if (auto w = sliding_window("layer_types")) {
        shape_.layers[i] = attention_layer(i, AttentionKind::kSlidingWindow, *w);
      }
    } else if (t == "chunked_attention") {
      const uint64_t c = r_.require_count({"attention_chunk_size"}, 1, kMaxTokens);
      shape_.layers[i] = attention_layer(i, AttentionKind::kChunked, c);
    } else if (t == "linear_attention") {
      shape_.layers[i] = recurrent_layer(type() == "qwen3_next" || r_.has("linear_num_value_heads")
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

void Importer::read_hybrid_pattern() {
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
    if (!set_nemotron_block(i, c)) {
      r_.fail(kInvalidValue, "hybrid_override_pattern",
              "character " + std::to_string(i) + " is " + quote_user_text(std::string(1, c)) +
                  " (expected M, *, - or E)");
    }
  }
}

// One NemotronH block, a mixer or an MLP alone: M Mamba-2, * attention, - MLP, E MoE.
bool Importer::set_nemotron_block(size_t i, char c) {
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
    return false;
  }
  return true;
}

void Importer::read_layers_block_type() {
  const json* list = r_.layer_list("layers_block_type", layers_);
  // NemotronH's blocks spelled out (NemotronHConfig.layers_block_type, from which transformers
  // derives hybrid_override_pattern): "mamba", "attention", "mlp" or "moe", one mixer or MLP each.
  const bool nemotron = type() == "nemotron_h";
  for (size_t i = 0; list != nullptr && i < layers_ && !r_.failed(); ++i) {
    const json& v = (*list)[i];
    const std::string t = v.is_string() ? v.get<std::string>() : std::string();
    if (nemotron) {
      const char c = t == "mamba"       ? 'M'
                     : t == "attention" ? '*'
                     : t == "mlp"       ? '-'
                     : t == "moe"       ? 'E'
                                        : '?';
      if (!set_nemotron_block(i, c)) {
        r_.fail(kUnsupported, "layers_block_type[" + std::to_string(i) + "]",
                "unknown block type " + describe(v) + " (known: mamba, attention, mlp, moe)");
      }
    } else if (t == "attention") {
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

void Importer::read_attn_type_list() {
  const json* list = r_.layer_list("attn_type_list", layers_);
  for (size_t i = 0; list != nullptr && i < layers_ && !r_.failed(); ++i) {
    auto t = r_.to_count((*list)[i], "attn_type_list[" + std::to_string(i) + "]", 0, 1);
    if (!t) return;
    shape_.layers[i] = *t == 1 ? attention_layer(i, AttentionKind::kFull, 0)
                               : recurrent_layer(StateKind::kLinearAttention);
  }
}

void Importer::read_chunked() {
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

void Importer::read_sliding_pattern() {
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

void Importer::read_shared_kv_layers() {
  auto shared = r_.count("num_kv_shared_layers", 0, layers_);
  if (!shared) return;
  for (size_t i = layers_ - static_cast<size_t>(*shared); i < layers_; ++i) {
    if (shape_.layers[i].keeps_tokens()) shape_.layers[i].attention = AttentionKind::kShared;
  }
}

void Importer::read_draft_layers() {
  if (r_.failed()) return;
  std::string used;
  const uint64_t n =
      r_.first_count({"num_nextn_predict_layers", "mtp_num_hidden_layers"}, 0, 64, &used)
          .value_or(0);
  if (n == 0 || r_.failed()) return;
  if (type() == "minimax_m3") {
    // Its config names MTP modules its released weights do not hold (llama.cpp PR #24908: "MTP
    // heads are not present in the released weights"; MiniMax-AI/MiniMax-M3#13).
    r_.assume(r_.path(used) + " " + std::to_string(n) +
              ": MiniMax-M3's released checkpoint holds no MTP weights, none counted");
    return;
  }
  LayerSpec draft;
  for (const LayerSpec& l : shape_.layers) {
    if (l.keeps_tokens() && l.attention != AttentionKind::kSlidingWindow) draft = l;
  }
  if (!draft.keeps_tokens()) return;
  draft.state = StateKind::kNone;
  draft.state_values = draft.mixer_params = 0;
  draft.mlp = shape_.moe.num_experts != 0 ? MlpKind::kMoe : MlpKind::kDense;
  shape_.draft_layers.assign(static_cast<size_t>(n), draft);
  for (size_t j = 0; compressed_ && j < shape_.draft_layers.size(); ++j) {
    shape_.draft_layers[j] = compressed_layer(layers_ + j, draft.window_tokens);
    shape_.draft_layers[j].mlp = draft.mlp;
  }
  // DeepSeek's checkpoints store an embedding and head copy in each MTP layer (GLM-4.5 too).
  shape_.draft_embeddings =
      is_one_of(type(), {"deepseek_v3", "deepseek_v32", "deepseek_v4", "glm4_moe", "glm_moe_dsa"});
  r_.assume(r_.path(used) + " " + std::to_string(n) + ": " + std::to_string(n) +
            " MTP layer(s) in the checkpoint, loaded only for speculative decoding" +
            (shape_.draft_embeddings ? " (each with its own embedding and head copy)" : ""));
}

}  // namespace kvscope::config
