// Parameter counting per layer, following the transformers modules of each family
// (LlamaAttention/LlamaMLP, DeepseekV3Attention (MLA), MixtralSparseMoeBlock, ...).
#include "kvscope/weights.hpp"

#include "kvscope/checked_math.hpp"

namespace kvscope {
namespace {

// Formats that quantize linear layers only (AWQ/GPTQ, fp8, int8, int4, nvfp4).
bool is_quantized_linear_format(const Dtype& d) {
  return !d.whole_file && d.block_bits < 16 * d.block_values;
}

CheckedU64 attention_params(const ModelShape& s, const LayerSpec& l) {
  const CheckedU64 hidden = s.hidden_size, heads = s.num_attention_heads;
  if (l.attention == AttentionKind::kNone) return 0;
  if (l.attention == AttentionKind::kMla) {
    const MlaShape& m = s.mla;
    const CheckedU64 qk = CheckedU64(m.qk_nope_head_dim) + m.qk_rope_head_dim;
    const CheckedU64 q = m.q_lora_rank == 0
                             ? hidden * heads * qk
                             : hidden * m.q_lora_rank + CheckedU64(m.q_lora_rank) * heads * qk;
    const CheckedU64 kv_a = hidden * (CheckedU64(m.kv_lora_rank) + m.qk_rope_head_dim);
    const CheckedU64 kv_b =
        CheckedU64(m.kv_lora_rank) * heads * (CheckedU64(m.qk_nope_head_dim) + m.v_head_dim);
    return q + kv_a + kv_b + heads * m.v_head_dim * hidden;
  }
  const CheckedU64 q = hidden * heads * s.head_dim;
  const CheckedU64 kv = hidden * l.kv_heads * (CheckedU64(l.k_head_dim) + l.v_head_dim);
  return q + kv + heads * l.v_head_dim * hidden;
}

CheckedU64 gated_mlp_params(uint64_t hidden, uint64_t width) {
  return CheckedU64(3) * hidden * width;
}

}  // namespace

Result<ParameterCount> count_parameters(const ModelShape& s) {
  using R = Result<ParameterCount>;
  CheckedU64 attention, recurrent, mlp, routed, routed_active, shared, norms;
  const uint64_t hidden = s.hidden_size;
  const MoeShape& moe = s.moe;
  const CheckedU64 one_expert = gated_mlp_params(hidden, moe.expert_intermediate_size);
  for (const LayerSpec& l : s.layers) {
    attention += attention_params(s, l);
    recurrent += l.mixer_params;
    norms += CheckedU64(2) * hidden;
    if (l.attention == AttentionKind::kMla) {
      norms += CheckedU64(s.mla.q_lora_rank) + s.mla.kv_lora_rank;
    }
    if (l.mlp == MlpKind::kDense) {
      mlp += s.gated_mlp ? gated_mlp_params(hidden, s.intermediate_size)
                         : CheckedU64(2) * hidden * s.intermediate_size;
    } else if (l.mlp == MlpKind::kMoe) {
      const CheckedU64 router = CheckedU64(hidden) * moe.num_experts;
      routed += router + one_expert * moe.num_experts;
      routed_active += router + one_expert * moe.experts_per_token;
      shared += CheckedU64(moe.shared_experts) *
                gated_mlp_params(hidden, moe.shared_expert_intermediate_size);
    }
  }
  norms += hidden;  // final norm
  CheckedU64 embedding = CheckedU64(s.vocab_size) * hidden;
  if (s.learned_position_embeddings) embedding += CheckedU64(s.max_position_embeddings) * hidden;
  const CheckedU64 lm_head =
      s.tie_word_embeddings ? CheckedU64(0) : CheckedU64(s.vocab_size) * hidden;
  const CheckedU64 common = embedding + lm_head + attention + recurrent + mlp + shared + norms;
  const CheckedU64 total = common + routed;
  // A token reads one row of the embedding table, so the table is not part of what it reads.
  const CheckedU64 active = lm_head + attention + recurrent + mlp + shared + norms + routed_active;
  if (total.overflowed() || active.overflowed()) {
    return R::failure(make_error(kOutOfRange, "model", "parameter count exceeds 2^64-1"));
  }
  ParameterCount p;
  p.total = total.value();
  p.active_per_token = active.value();
  p.embedding = embedding.value();
  p.lm_head = lm_head.value();
  p.attention = attention.value();
  p.recurrent = recurrent.value();
  p.mlp = mlp.value();
  p.routed_experts = routed.value();
  p.shared_experts = shared.value();
  p.norms = norms.value();
  return R::success(p);
}

Result<WeightBytes> weight_bytes(const ParameterCount& p, const Dtype& weights,
                                 const Dtype& unquantized) {
  using R = Result<WeightBytes>;
  WeightBytes out;
  out.unquantized_params =
      is_quantized_linear_format(weights) ? p.embedding + p.lm_head + p.norms : 0;
  out.quantized_params = p.total - out.unquantized_params;
  const Result<uint64_t> quantized = stream_bytes(weights, out.quantized_params, "weight_dtype");
  if (!quantized.ok) return R::failure(quantized.error);
  const Result<uint64_t> rest = stream_bytes(unquantized, out.unquantized_params, "weight_dtype");
  if (!rest.ok) return R::failure(rest.error);
  const CheckedU64 total = CheckedU64(quantized.value) + rest.value;
  if (total.overflowed())
    return R::failure(make_error(kOutOfRange, "weight_dtype", "weight bytes exceed 2^64-1"));
  out.total = total.value();
  return R::success(out);
}

}  // namespace kvscope
