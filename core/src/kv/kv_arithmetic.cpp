// KV byte arithmetic per token: a layer's bytes in a dtype, its recurrent state, the tokens it
// attends to, and a model's layout (its layers grouped, each group's bytes per token); a
// workload's bytes from the layout are kv_totals.cpp's.
#include "kvscope/kv/kv_arithmetic.hpp"

#include <algorithm>

#include "base/checked_math.hpp"

namespace kvscope {
namespace {

// Bytes of `heads` rows of `dim` values. Formats without per-row scales are costed over the
// whole K (or V) row of all heads, as llama.cpp stores it (n_embd_k_gqa values per token).
Result<uint64_t> head_rows_bytes(const Dtype& kv, uint64_t heads, uint64_t dim) {
  if (dim == 0) return Result<uint64_t>::success(0);
  if (kv.row_scale_bits == 0) return row_bytes(kv, heads * dim, 1, "kv_dtype");
  return row_bytes(kv, dim, heads, "kv_dtype");
}

}  // namespace

uint64_t indexer_bytes_per_token(const LayerSpec& layer) {
  if (layer.indexer_key == IndexKey::kBf16) return uint64_t{layer.indexer_head_dim} * 2;
  return layer.indexer_head_dim + ceil_div(layer.indexer_head_dim, 128) * 4;
}

Result<uint64_t> latent_entry_bytes(const LayerSpec& layer, const Dtype& kv) {
  if (kv.name != "fp8_ds_mla") return head_rows_bytes(kv, layer.kv_heads, layer.k_head_dim);
  // DeepSeek-V4's fp8_ds_mla entry (vLLM deepseek_v4_attention.py, SGLang
  // DeepSeekV4SingleKVPool.get_bytes_per_token): the non-rope values in fp8 with a ue8m0 scale
  // byte per 64 and one pad byte, the 64 rope values in bf16: 448 + 7 + 1 + 128 = 584 bytes.
  constexpr uint32_t kRope = 64;
  if (layer.k_head_dim <= kRope || (layer.k_head_dim - kRope) % 64 != 0) {
    return Result<uint64_t>::failure(make_error(kInvalidValue, "kv_dtype",
                                                "fp8_ds_mla needs a latent of 64 rope values after "
                                                "whole blocks of 64 (DeepSeek-V4's 512)"));
  }
  const uint64_t nope = layer.k_head_dim - kRope;
  return Result<uint64_t>::success(nope + nope / 64 + 1 + kRope * 2);
}

Result<uint64_t> compressed_entry_bytes(const LayerSpec& layer, const Dtype& kv) {
  if (layer.attention != AttentionKind::kCompressed || layer.compress_ratio == 0)
    return Result<uint64_t>::success(0);
  const Result<uint64_t> latent = latent_entry_bytes(layer, kv);
  if (!latent.ok) return latent;
  return Result<uint64_t>::success(latent.value + indexer_bytes_per_token(layer));
}

uint64_t compressor_state_bytes(const LayerSpec& layer) {
  if (layer.attention != AttentionKind::kCompressed || layer.compress_ratio == 0) return 0;
  // vLLM CompressorStateCache / SGLang's compress-state rings: coff x ratio positions of
  // 2 x coff x head_dim fp32 values (coff = 2 for the overlapping ratio-4 compressor, else 1),
  // for the latent's compressor and, beside an indexer, the indexer's own.
  const uint64_t coff = layer.compress_ratio == 4 ? 2 : 1;
  const uint64_t positions = coff * layer.compress_ratio;
  return positions * 2 * coff * (uint64_t{layer.k_head_dim} + layer.indexer_head_dim) * 4;
}

Result<uint64_t> kv_bytes_per_token_per_layer(const LayerSpec& layer, const Dtype& kv) {
  return kv_bytes_per_token_per_layer(layer, kv, kv);
}

Result<uint64_t> kv_bytes_per_token_per_layer(const LayerSpec& layer, const Dtype& k_dtype,
                                              const Dtype& v_dtype) {
  if (!layer.keeps_tokens()) return Result<uint64_t>::success(0);
  if (layer.attention == AttentionKind::kCompressed) return latent_entry_bytes(layer, k_dtype);
  if (k_dtype.name == "fp8_ds_mla") {
    // vLLM kv_cache_interface.py MLAAttentionSpec (cache_dtype_str "fp8_ds_mla"): the latent in
    // fp8 with an fp32 scale per 128 values, the 64 rope values in bf16 (qk_rope_head_dim 64).
    constexpr uint32_t kRope = 64;
    if (layer.attention != AttentionKind::kMla || layer.k_head_dim <= kRope ||
        (layer.k_head_dim - kRope) % 128 != 0) {
      return Result<uint64_t>::failure(make_error(
          kInvalidValue, "kv_dtype",
          "fp8_ds_mla is DeepSeek MLA's layout (a latent of 128-value blocks and 64 rope values)"));
    }
    const uint64_t latent = layer.k_head_dim - kRope;
    return Result<uint64_t>::success(latent + latent / 128 * 4 + kRope * 2 +
                                     indexer_bytes_per_token(layer));
  }
  const Result<uint64_t> k = head_rows_bytes(k_dtype, layer.kv_heads, layer.k_head_dim);
  if (!k.ok) return k;
  const Result<uint64_t> v = head_rows_bytes(v_dtype, layer.kv_heads, layer.v_head_dim);
  if (!v.ok) return v;
  return Result<uint64_t>::success(k.value + v.value + indexer_bytes_per_token(layer));
}

uint64_t compressed_entries_attended(const LayerSpec& layer, uint64_t position) {
  if (layer.attention != AttentionKind::kCompressed || layer.compress_ratio == 0) return 0;
  const uint64_t entries = position / layer.compress_ratio;
  return layer.index_topk != 0 ? std::min<uint64_t>(entries, layer.index_topk) : entries;
}

uint64_t attended_tokens(const LayerSpec& layer, uint64_t position) {
  if (!layer.keeps_tokens() && layer.attention != AttentionKind::kShared) return 0;
  if (layer.attention == AttentionKind::kCompressed) {
    return std::min(position, layer.window_tokens) + compressed_entries_attended(layer, position);
  }
  if (layer.window_tokens == 0 || position == 0) return position;
  if (layer.attention == AttentionKind::kSlidingWindow)
    return std::min(position, layer.window_tokens);
  if (layer.attention == AttentionKind::kChunked) return (position - 1) % layer.window_tokens + 1;
  return position;
}

double attended_tokens_through(const LayerSpec& layer, uint64_t n) {
  const double all = static_cast<double>(n);
  auto triangle = [](double k) { return k * (k + 1) / 2; };
  if (attended_tokens(layer, n) == 0 && n != 0) return 0;
  if (layer.attention == AttentionKind::kCompressed) {
    const double w = static_cast<double>(std::min(layer.window_tokens, n));
    const double window = triangle(w) + (all - w) * w;
    if (layer.compress_ratio == 0) return window;
    // sum of floor(p / r) for p = 1..m, then the top-k cap for every later position
    const uint64_t r = layer.compress_ratio;
    const uint64_t cap_from = layer.index_topk != 0 ? uint64_t{layer.index_topk} * r : n + 1;
    const uint64_t m = std::min(n, cap_from - 1);
    const double q = static_cast<double>(m / r);
    const double below =
        static_cast<double>(r) * q * (q - 1) / 2 + q * static_cast<double>(m % r + 1);
    return window + below + static_cast<double>(n - m) * layer.index_topk;
  }
  if (layer.window_tokens == 0 || layer.window_tokens >= n) return triangle(all);
  const double w = static_cast<double>(layer.window_tokens);
  if (layer.attention == AttentionKind::kSlidingWindow) return triangle(w) + (all - w) * w;
  if (layer.attention == AttentionKind::kChunked) {
    const double chunks = static_cast<double>(n / layer.window_tokens);
    return chunks * triangle(w) + triangle(static_cast<double>(n % layer.window_tokens));
  }
  return triangle(all);
}

Result<Dtype> ssm_state_dtype(const ModelShape& shape, const Dtype& state) {
  if (shape.ssm_state_dtype.empty()) return Result<Dtype>::success(state);
  return parse_dtype(shape.ssm_state_dtype, DtypeUse::kKv, "ssm_state_dtype");
}

Result<uint64_t> recurrent_state_bytes(const LayerSpec& layer, const Dtype& state,
                                       const Dtype& ssm) {
  const uint64_t temporal_values = std::min(layer.ssm_state_values, layer.state_values);
  const Result<uint64_t> conv =
      row_bytes(state, layer.state_values - temporal_values, 1, "state_dtype");
  if (!conv.ok) return conv;
  const Result<uint64_t> temporal = row_bytes(ssm, temporal_values, 1, "ssm_state_dtype");
  if (!temporal.ok) return temporal;
  const CheckedU64 total = CheckedU64(conv.value) + temporal.value;
  if (total.overflowed())
    return Result<uint64_t>::failure(byte_count_overflow("state_dtype", "recurrent state"));
  return Result<uint64_t>::success(total.value());
}

Result<KvLayout> kv_layout(const ModelShape& shape, const Dtype& kv, const Dtype& state) {
  using R = Result<KvLayout>;
  for (size_t i = 0; i < shape.layers.size();
       ++i) {  // shapes can be built by hand, not only imported
    const LayerSpec& l = shape.layers[i];
    auto at = [i] { return "layers[" + std::to_string(i) + "]"; };  // built only for an error
    if (l.keeps_tokens() && (l.kv_heads == 0 || l.k_head_dim == 0)) {
      return R::failure(
          make_error(kInvalidValue, at(),
                     "an attention layer needs at least one KV head and a head dimension"));
    }
    if ((l.windowed() || l.attention == AttentionKind::kCompressed) && l.window_tokens == 0) {
      return R::failure(
          make_error(kInvalidValue, at() + ".window_tokens", "must be at least 1 token"));
    }
  }
  const Result<Dtype> ssm = ssm_state_dtype(shape, state);
  if (!ssm.ok) return R::failure(ssm.error);
  KvLayout out;
  std::vector<LayerGroup> layer_groups = group_layers(shape);
  out.groups.reserve(layer_groups.size());
  for (LayerGroup& group : layer_groups) {
    GroupKv g;
    const LayerSpec& spec = group.spec;
    const uint64_t layers = group.layer_indices.size();
    const Result<uint64_t> per_layer = kv_bytes_per_token_per_layer(spec, kv);
    if (!per_layer.ok) return R::failure(per_layer.error);
    const Result<uint64_t> state_layer = recurrent_state_bytes(spec, state, ssm.value);
    if (!state_layer.ok) return R::failure(state_layer.error);
    g.kv_bytes_per_token_per_layer = per_layer.value;
    const CheckedU64 group_per_token = CheckedU64(per_layer.value) * layers;
    if (group_per_token.overflowed())
      return R::failure(byte_count_overflow("kv_dtype", "KV bytes per token"));
    g.kv_bytes_per_token = group_per_token.value();
    const Result<uint64_t> entry = compressed_entry_bytes(spec, kv);
    if (!entry.ok) return R::failure(entry.error);
    g.compressed_bytes_per_entry = entry.value * layers;  // both far below 2^32
    const CheckedU64 state_bytes =
        (CheckedU64(state_layer.value) + compressor_state_bytes(spec)) * layers;
    if (state_bytes.overflowed())
      return R::failure(byte_count_overflow("state_dtype", "recurrent state"));
    g.state_bytes_per_sequence = state_bytes.value();
    g.group = std::move(group);
    out.groups.push_back(std::move(g));
  }
  return R::success(std::move(out));
}

Result<ProjectionCount> kv_projection_count(uint64_t prompt_tokens, uint64_t output_tokens) {
  using R = Result<ProjectionCount>;
  if (prompt_tokens == 0)
    return R::failure(make_error(kInvalidValue, "prompt_tokens", "must be at least 1 token"));
  // Step i (1-based) attends over prompt + i - 1 tokens; without a cache it projects all of them.
  const CheckedU64 g = output_tokens;
  const CheckedU64 without =
      g * (prompt_tokens - 1) + (output_tokens % 2 == 0
                                     ? CheckedU64(output_tokens / 2) * (output_tokens + 1)
                                     : g * ((output_tokens + 1) / 2));
  const CheckedU64 with =
      output_tokens == 0 ? CheckedU64(0) : CheckedU64(prompt_tokens) + (output_tokens - 1);
  if (without.overflowed() || with.overflowed()) {
    return R::failure(make_error(kOutOfRange, "output_tokens", "projection count exceeds 2^64-1"));
  }
  return R::success(ProjectionCount{without.value(), with.value()});
}

}  // namespace kvscope
