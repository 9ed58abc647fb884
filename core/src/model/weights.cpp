// The checkpoint's tensors from the model shape, named as Hugging Face checkpoints name them so
// quantization configs' module patterns apply, and shaped as the transformers modules are
// (LlamaAttention / LlamaMLP, DeepseekV3Attention (MLA), MixtralSparseMoeBlock, DeepSeek MTP ...).
#include "kvscope/model/weights.hpp"

#include <algorithm>
#include <map>

#include "base/checked_math.hpp"
#include "base/one_of.hpp"

namespace kvscope {
namespace {

// Module names of a family's decoder layer (modeling_<family>.py attribute names).
struct LayerNames {
  std::string attention = "self_attn";
  std::string mlp = "mlp";
  std::string router = "gate";
  std::string experts = "experts";
  std::string shared = "shared_experts";
  std::string mixer = "mixer";
};

LayerNames names_of(const std::string& type) {
  LayerNames n;
  if (type == "mixtral") n.mlp = "block_sparse_moe";
  if (is_one_of(type, {"gpt_oss", "llama4_text", "jamba"})) n.router = "router";
  if (is_one_of(type, {"llama4_text", "jamba"})) n.mlp = "feed_forward";
  if (is_one_of(type,
                {"llama4_text", "qwen2_moe", "qwen3_next", "qwen3_5_moe", "qwen3_5_moe_text"}))
    n.shared = "shared_expert";
  if (type == "nemotron_h") n.attention = n.mlp = "mixer";
  if (is_one_of(type, {"qwen3_next", "qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text"}))
    n.mixer = "linear_attn";
  if (type == "jamba") n.mixer = "mamba";
  return n;
}

class Inventory {
 public:
  explicit Inventory(const ModelShape& s) : s_(s), n_(names_of(s.model_type)) {}

  std::vector<WeightTensor> build() {
    add_global("model.embed_tokens", ModuleClass::kEmbedding, false, s_.vocab_size, 1, true);
    if (s_.learned_position_embeddings) {
      add_global("model.embed_positions", ModuleClass::kEmbedding, false,
                 s_.max_position_embeddings, 1, true);
    }
    if (s_.per_layer_input_size != 0) {  // Gemma 3n / 4 per-layer embeddings (vLLM gemma3n.py)
      const uint64_t width = mul(s_.per_layer_input_size, s_.layers.size());
      WeightTensor table;
      table.name = "model.embed_tokens_per_layer";
      table.module = ModuleClass::kEmbedding;
      table.linear = false;
      table.rows = s_.per_layer_vocab;
      table.cols = width;
      table.before_layers = true;
      out_.push_back(table);
      WeightTensor projection = table;
      projection.name = "model.per_layer_model_projection";
      projection.linear = true;
      projection.rows = width;
      projection.cols = s_.hidden_size;
      out_.push_back(projection);
    }
    for (uint32_t i = 0; i < s_.layers.size(); ++i) add_layer(s_.layers[i], i, false);
    for (uint32_t k = 0; k < s_.draft_layers.size(); ++k) {
      const uint32_t i = static_cast<uint32_t>(s_.layers.size()) + k;
      add_layer(s_.draft_layers[k], i, true);
      // eh_proj stays in the checkpoint dtype in DeepSeek's fp8 release.
      add(i, true, "eh_proj", ModuleClass::kAttention, false, s_.hidden_size,
          mul(2, s_.hidden_size), 1, 1);  // a plain nn.Linear in vLLM's deepseek_mtp.py: replicated
      const uint64_t hidden = s_.hidden_size;
      add(i, true, "norms", ModuleClass::kNorms, false, 3, hidden);  // enorm, hnorm, head norm
      if (s_.draft_embeddings) {
        add(i, true, "embed_tokens", ModuleClass::kEmbedding, false, s_.vocab_size, hidden);
        add(i, true, "shared_head.head", ModuleClass::kLmHead, true, s_.vocab_size, hidden);
      }
    }
    add_global("model.norm", ModuleClass::kNorms, false, 1, 1, false);
    add_global("lm_head", ModuleClass::kLmHead, true, s_.vocab_size, 1, false);
    out_.back().tied = s_.tie_word_embeddings;
    return std::move(out_);
  }

 private:
  // rows x hidden, before or after the layers.
  void add_global(const char* name, ModuleClass m, bool linear, uint64_t rows, uint64_t copies,
                  bool before) {
    WeightTensor t;
    t.name = name;
    t.module = m;
    t.linear = linear;
    t.rows = rows;
    t.cols = s_.hidden_size;
    t.copies = copies;
    t.before_layers = before;
    out_.push_back(std::move(t));
  }

  // A tensor of layer i: rows x cols, `part` below "model.layers.{}."; identical tensors of
  // consecutive layers become one entry with several layers.
  void add(uint32_t i, bool draft, const std::string& part, ModuleClass m, bool linear,
           uint64_t rows, uint64_t cols, uint64_t copies = 1, uint32_t max_tp_shards = 0) {
    if (rows == 0 || cols == 0 || copies == 0) return;
    const std::string name = "model.layers.{}." + part;
    const auto last = last_.find(name);
    if (last != last_.end()) {
      WeightTensor& t = out_[last->second];
      if (t.rows == rows && t.cols == cols && t.copies == copies && t.draft == draft &&
          t.max_tp_shards == max_tp_shards && t.first_layer + t.layer_count == i) {
        ++t.layer_count;
        return;
      }
    }
    last_[name] = out_.size();
    WeightTensor t;
    t.name = name;
    t.module = m;
    t.linear = linear;
    t.rows = rows;
    t.cols = cols;
    t.copies = copies;
    t.max_tp_shards = max_tp_shards;
    t.first_layer = i;
    t.layer_count = 1;
    t.draft = draft;
    out_.push_back(std::move(t));
  }

  // The small tensors beside the projections, in the checkpoint dtype: biases (sharded with
  // their heads; o's whole on every rank), q/k norms (replicated), a sink per head.
  void add_attention_extras(const LayerSpec& l, uint32_t i, bool draft) {
    const LayerExtras& x = s_.extras;
    const uint64_t heads = s_.num_attention_heads, kv = l.kv_heads;
    const ModuleClass a = ModuleClass::kAttention, norms = ModuleClass::kNorms;
    const std::string attn = n_.attention + ".";
    if (x.qkv_bias) {
      add(i, draft, attn + "q_proj.bias", a, false, heads * l.k_head_dim, 1);
      add(i, draft, attn + "k_proj.bias", a, false, kv * l.k_head_dim, 1, 1, l.kv_heads);
      if (!l.k_eq_v)
        add(i, draft, attn + "v_proj.bias", a, false, kv * l.v_head_dim, 1, 1, l.kv_heads);
    }
    if (x.o_bias) add(i, draft, attn + "o_proj.bias", a, false, s_.hidden_size, 1, 1, 1);
    if (x.qk_norm || x.qk_norm_full) {
      add(i, draft, attn + "q_norm", norms, false,
          x.qk_norm_full ? heads * l.k_head_dim : l.k_head_dim, 1, 1, 1);
      add(i, draft, attn + "k_norm", norms, false,
          x.qk_norm_full ? kv * l.k_head_dim : l.k_head_dim, 1, 1, 1);
    }
    if (x.attention_sinks) add(i, draft, attn + "sinks", a, false, heads, 1);
  }

  // DeepSeek-V4 (vllm/model_executor/models/deepseek_v4.py; checkpoint names): a query low-rank
  // pair, one latent projection (wkv) read by every head, a sink per head, the output through
  // o_groups low-rank groups (wo_a split with the heads, wo_b row-parallel); compressed layers add
  // a gated compressor (wkv, wgate, a learned position bias ape) over coff x head_dim values, and
  // ratio-4 layers an indexer with its own compressor. Compressors and norms stay in the
  // checkpoint dtype and are replicated, as the query and latent down-projections are.
  void add_compressed_attention(const LayerSpec& l, uint32_t i, bool draft) {
    const MlaShape& m = s_.mla;
    const uint64_t hidden = s_.hidden_size, heads = s_.num_attention_heads, d = l.k_head_dim;
    const ModuleClass a = ModuleClass::kAttention, norms = ModuleClass::kNorms;
    const std::string attn = n_.attention + ".";
    add(i, draft, attn + "wq_a", a, true, m.q_lora_rank, hidden, 1, 1);
    add(i, draft, attn + "q_norm", norms, false, m.q_lora_rank, 1);
    add(i, draft, attn + "wq_b", a, true, mul(heads, d), m.q_lora_rank);
    add(i, draft, attn + "wkv", a, true, d, hidden, 1, 1);
    add(i, draft, attn + "kv_norm", norms, false, d, 1);
    add(i, draft, attn + "attn_sink", norms, false, heads, 1);
    add(i, draft, attn + "wo_a", a, true, uint64_t{m.o_groups} * m.o_lora_rank,
        mul(heads, d) / std::max<uint64_t>(m.o_groups, 1));
    add(i, draft, attn + "wo_b", a, true, hidden, uint64_t{m.o_groups} * m.o_lora_rank);
    const uint64_t coff = l.compress_ratio == 4 ? 2 : 1;
    auto compressor = [&](const std::string& at, uint64_t width) {
      add(i, draft, at + "wkv", a, false, coff * width, hidden, 1, 1);
      add(i, draft, at + "wgate", a, false, coff * width, hidden, 1, 1);
      add(i, draft, at + "ape", norms, false, l.compress_ratio, coff * width);
      add(i, draft, at + "norm", norms, false, width, 1);
    };
    if (l.compress_ratio != 0) compressor(attn + "compressor.", d);
    if (l.indexer_head_dim != 0) {
      const std::string ix = attn + "indexer.";
      add(i, draft, ix + "wq_b", a, true, uint64_t{m.index_n_heads} * l.indexer_head_dim,
          m.q_lora_rank, 1, 1);
      add(i, draft, ix + "weights_proj", a, false, m.index_n_heads, hidden, 1, 1);
      compressor(ix + "compressor.", l.indexer_head_dim);
    }
  }

  void add_layer(const LayerSpec& l, uint32_t i, bool draft) {
    const uint64_t hidden = s_.hidden_size, heads = s_.num_attention_heads;
    const std::string attn = n_.attention + ".";
    if (l.attention == AttentionKind::kMla) {
      const MlaShape& m = s_.mla;
      const uint64_t qk = uint64_t{m.qk_nope_head_dim} + m.qk_rope_head_dim;
      const ModuleClass a = ModuleClass::kAttention;
      if (m.q_lora_rank == 0) {
        add(i, draft, attn + "q_proj", a, true, mul(heads, qk), hidden);
      } else {  // vLLM replicates the down-projections (ReplicatedLinear in deepseek_v2.py)
        add(i, draft, attn + "q_a_proj", a, true, m.q_lora_rank, hidden, 1, 1);
        add(i, draft, attn + "q_a_layernorm", ModuleClass::kNorms, false, m.q_lora_rank, 1);
        add(i, draft, attn + "q_b_proj", a, true, mul(heads, qk), m.q_lora_rank);
      }
      add(i, draft, attn + "kv_a_proj_with_mqa", a, true,
          uint64_t{m.kv_lora_rank} + m.qk_rope_head_dim, hidden, 1, 1);
      add(i, draft, attn + "kv_a_layernorm", ModuleClass::kNorms, false, m.kv_lora_rank, 1);
      add(i, draft, attn + "kv_b_proj", a, true,
          mul(heads, uint64_t{m.qk_nope_head_dim} + m.v_head_dim), m.kv_lora_rank);
      add(i, draft, attn + "o_proj", a, true, hidden, heads * m.v_head_dim);
      if (l.indexer_head_dim != 0) {  // the lightning indexer, replicated (vLLM Indexer)
        const uint64_t index_q = uint64_t{m.index_n_heads} * l.indexer_head_dim;
        const std::string ix = attn + "indexer.";
        add(i, draft, ix + "wq_b", a, true, index_q, m.q_lora_rank == 0 ? hidden : m.q_lora_rank, 1,
            1);
        add(i, draft, ix + "wk", a, true, l.indexer_head_dim, hidden, 1, 1);
        add(i, draft, ix + "k_norm", ModuleClass::kNorms, false, 2, l.indexer_head_dim);
        // Kept in the checkpoint dtype by every fp8 release (a plain ReplicatedLinear in vLLM).
        add(i, draft, ix + "weights_proj", a, false, m.index_n_heads, hidden, 1, 1);
      }
    } else if (l.attention == AttentionKind::kCompressed) {
      add_compressed_attention(l, i, draft);
    } else if (l.attention != AttentionKind::kNone) {
      const ModuleClass a = ModuleClass::kAttention;
      add(i, draft, attn + "q_proj", a, true, heads * l.k_head_dim, hidden);  // q as wide as k
      add(i, draft, attn + "k_proj", a, true, uint64_t{l.kv_heads} * l.k_head_dim, hidden, 1,
          l.kv_heads);
      if (!l.k_eq_v) {
        add(i, draft, attn + "v_proj", a, true, uint64_t{l.kv_heads} * l.v_head_dim, hidden, 1,
            l.kv_heads);
      }
      add(i, draft, attn + "o_proj", a, true, hidden, heads * l.v_head_dim);
      if (l.indexer_head_dim != 0) {  // MiniMax-M3's index branch: its query heads, one key head
        add(i, draft, attn + "index_q_proj", a, true,
            uint64_t{s_.mla.index_n_heads} * l.indexer_head_dim, hidden);
        add(i, draft, attn + "index_k_proj", a, true, l.indexer_head_dim, hidden, 1, 1);
      }
      add_attention_extras(l, i, draft);
    }
    if (l.mixer_params != 0 && hidden != 0) {  // projections, convolution, gates: hidden wide
      add(i, draft, n_.mixer, ModuleClass::kRecurrent, true, ceil_div(l.mixer_params, hidden),
          hidden);
    }
    add(i, draft, "norms", ModuleClass::kNorms, false, 2, hidden);
    if (s_.per_layer_input_size != 0) {  // replicated on every TP rank
      add(i, draft, "per_layer_input_gate", ModuleClass::kAttention, true, s_.per_layer_input_size,
          hidden, 1, 1);
      add(i, draft, "per_layer_projection", ModuleClass::kAttention, true, hidden,
          s_.per_layer_input_size, 1, 1);
    }
    const std::string mlp = n_.mlp + ".";
    if (l.mlp == MlpKind::kDense) {
      const uint64_t width = s_.intermediate_size;
      if (s_.gated_mlp) add(i, draft, mlp + "gate_proj", ModuleClass::kMlp, true, width, hidden);
      add(i, draft, mlp + "up_proj", ModuleClass::kMlp, true, width, hidden);
      add(i, draft, mlp + "down_proj", ModuleClass::kMlp, true, hidden, width);
    } else if (l.mlp == MlpKind::kMoe) {
      const MoeShape& moe = s_.moe;
      const uint64_t e = moe.num_experts, w = moe.expert_intermediate_size;
      add(i, draft, mlp + n_.router, ModuleClass::kRouter, true, e, hidden, 1, 1);
      const std::string ex = mlp + n_.experts + ".";
      if (s_.extras.moe_biases) {  // gpt-oss: router.bias, gate_up_proj_bias, down_proj_bias
        add(i, draft, mlp + n_.router + ".bias", ModuleClass::kRouter, false, e, 1, 1, 1);
        add(i, draft, ex + "gate_up_proj_bias", ModuleClass::kRoutedExperts, false,
            (s_.gated_mlp ? 2 : 1) * w, 1, e);
        add(i, draft, ex + "down_proj_bias", ModuleClass::kRoutedExperts, false, hidden, 1, e);
      }
      if (s_.gated_mlp)  // Nemotron-H's experts are up + down (relu2) like its dense MLPs
        add(i, draft, ex + "gate_proj", ModuleClass::kRoutedExperts, true, w, hidden, e);
      add(i, draft, ex + "up_proj", ModuleClass::kRoutedExperts, true, w, hidden, e);
      add(i, draft, ex + "down_proj", ModuleClass::kRoutedExperts, true, hidden, w, e);
      const uint64_t shared = mul(moe.shared_experts, moe.shared_expert_intermediate_size);
      const std::string sh = mlp + n_.shared + ".";
      if (s_.gated_mlp)
        add(i, draft, sh + "gate_proj", ModuleClass::kSharedExperts, true, shared, hidden);
      add(i, draft, sh + "up_proj", ModuleClass::kSharedExperts, true, shared, hidden);
      add(i, draft, sh + "down_proj", ModuleClass::kSharedExperts, true, hidden, shared);
    }
  }

  // a x b, or 0 with overflowed() set when it passes 2^64-1 (hand-built shapes can).
  uint64_t mul(uint64_t a, uint64_t b) {
    uint64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out)) {
      overflowed_ = true;
      return 0;
    }
    return out;
  }

 public:
  bool overflowed() const { return overflowed_; }

 private:
  bool overflowed_ = false;
  const ModelShape& s_;
  LayerNames n_;
  std::vector<WeightTensor> out_;
  std::map<std::string, size_t> last_;  // the latest entry of each name
};

}  // namespace

uint64_t WeightTensor::params() const {
  return tied ? 0 : rows * cols * copies * std::max<uint64_t>(1, layer_count);
}

Result<std::vector<WeightTensor>> weight_tensors(const ModelShape& shape) {
  using R = Result<std::vector<WeightTensor>>;
  // Every product below stays under 2^64 when each factor is within the importer's limits; a
  // hand-built shape is checked here.
  CheckedU64 total;
  Inventory inventory(shape);
  std::vector<WeightTensor> tensors = inventory.build();
  if (inventory.overflowed()) total = CheckedU64::overflow();
  for (const WeightTensor& t : tensors) {
    total += CheckedU64(t.rows) * t.cols * t.copies * std::max<uint64_t>(1, t.layer_count);
  }
  total += CheckedU64(shape.vocab_size) * shape.hidden_size * 2;  // a pipeline's head copy
  if (total.overflowed()) {
    return R::failure(make_error(kOutOfRange, "model", "parameter count exceeds 2^64-1"));
  }
  return R::success(std::move(tensors));
}

}  // namespace kvscope
