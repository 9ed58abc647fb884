// vLLM's KV-cache groups (vllm/v1/core/kv_cache_utils.py get_kv_cache_groups,
// unify_kv_cache_spec_page_size, _get_kv_cache_groups_uniform_page_size): the spec types of one
// GPU's layers, their common page and the layers per group.
#include <algorithm>

#include "base/checked_math.hpp"
#include "engines/engine_planners.hpp"
#include "engines/vllm/engine_vllm.hpp"

namespace kvscope::engines {

Result<VllmLayout> vllm_layout(const std::vector<LayerSpec>& layers, const VllmLayoutRules& rules,
                               std::vector<std::string>* notes) {
  const Error page_too_large =
      make_error(kOutOfRange, "block_size_tokens", "one block's bytes exceed 2^64-1");
  using RL = Result<VllmLayout>;
  const bool compressed = std::any_of(layers.begin(), layers.end(), [](const LayerSpec& l) {
    return l.attention == AttentionKind::kCompressed;
  });
  if (compressed) return kEnginePlanners.vllm_deepseek_v4(layers, rules, notes);
  VllmLayout out;
  std::vector<VllmType>& types = out.types;
  auto add_layer = [&types](const VllmType& t) {
    auto same = std::find_if(types.begin(), types.end(), [&](const VllmType& o) {
      return o.kind == t.kind && o.window == t.window && o.page_bytes == t.page_bytes;
    });
    if (same == types.end()) {
      types.push_back(t);
      types.back().layers = 1;
    } else {
      ++same->layers;
    }
  };
  for (const LayerSpec& l : layers) {
    if (l.state != StateKind::kNone) {
      const CheckedU64 padded = rules.attention_per_token == 0 ? CheckedU64(rules.mamba_page)
                                                         : CheckedU64(rules.block_tokens) * rules.attention_per_token;
      if (padded.overflowed()) return RL::failure(page_too_large);
      add_layer(VllmType{AttentionKind::kNone, 0, padded.value(), 1});
    }
    if (!l.keeps_tokens()) continue;
    VllmType t;
    t.kind = l.windowed() && rules.windowed_blocks ? l.attention : AttentionKind::kFull;
    t.window = t.kind == AttentionKind::kFull ? 0 : l.window_tokens;
    const Result<uint64_t> per_token = kv_bytes_per_token_per_layer(l, rules.kv_dtype);
    if (!per_token.ok) return RL::failure(per_token.error);
    const CheckedU64 page = CheckedU64(per_token.value) * rules.block_tokens;
    if (page.overflowed()) return RL::failure(page_too_large);
    t.page_bytes = page.value();
    t.mla = l.attention == AttentionKind::kMla;
    add_layer(t);
  }
  if (types.empty())
    return RL::failure(make_error(kUnsupported, "model", "no layer keeps a KV cache"));
  // One spec type with different sizes (per-layer KV heads): a single UniformTypeKVCacheSpecs
  // group whose page is the sum of every layer's page (kv_cache_utils.py).
  const bool one_type = std::all_of(types.begin(), types.end(), [&](const VllmType& t) {
    return t.kind == types[0].kind && t.window == types[0].window;
  });
  if (one_type && types.size() > 1) {
    VllmType merged = types[0];
    CheckedU64 page;
    for (const VllmType& t : types) page += CheckedU64(t.page_bytes) * t.layers;
    if (page.overflowed()) return RL::failure(page_too_large);
    merged.page_bytes = page.value();
    merged.layers = 1;
    types = {merged};
  }
  // Different page sizes (Gemma 4's two head sizes, MiMo's sliding heads): each smaller page's
  // block grows until its page equals the largest (kv_cache_utils.py
  // unify_kv_cache_spec_page_size); a page that does not divide the largest is refused, or, from
  // PR #45181, padded to it when the layer is not MLA: its block keeps its tokens and costs the
  // largest page.
  for (const VllmType& t : types) out.page = std::max(out.page, t.page_bytes);
  for (VllmType& t : types) {
    t.block = rules.block_tokens;
    if (t.page_bytes == out.page || t.page_bytes == 0) continue;
    if (out.page % t.page_bytes != 0 && rules.pad_pages && !t.mla) {
      if (notes != nullptr) {
        notes->push_back("page padding: " + std::string(attention_kind_name(t.kind)) +
                         " layers' pages of " + std::to_string(t.page_bytes) +
                         " bytes do not divide the largest (" + std::to_string(out.page) +
                         "): each is padded to it, holding " + std::to_string(t.block) +
                         " tokens (PR #45181)");
      }
      t.page_bytes = out.page;
      continue;
    }
    if (out.page % t.page_bytes != 0) {
      return RL::failure(make_error(kUnsupported, "engine",
                                    "vllm: layer pages of " + std::to_string(t.page_bytes) +
                                        " and " + std::to_string(out.page) +
                                        " bytes do not divide, and vLLM cannot unify them"));
    }
    t.block = rules.block_tokens * (out.page / t.page_bytes);
    t.page_bytes = out.page;
    if (notes != nullptr) {
      notes->push_back("page unification: " + std::string(attention_kind_name(t.kind)) +
                       " layers get " + std::to_string(t.block) +
                       "-token blocks so their page equals the largest (" +
                       std::to_string(out.page) + " bytes)");
    }
  }
  // Group size: the smallest layer count of a type, or the largest when counts are close
  // (_get_kv_cache_groups_uniform_page_size); each type is cut into groups of that many layers.
  uint64_t min_count = UINT64_MAX, max_count = 0;
  for (const VllmType& t : types) {
    min_count = std::min(min_count, t.layers);
    max_count = std::max(max_count, t.layers);
  }
  out.group_size = types.size() == 1 ? types[0].layers
                   : static_cast<double>(max_count) < 1.5 * static_cast<double>(min_count)
                       ? max_count
                       : min_count;
  for (VllmType& t : types) {
    t.groups = ceil_div(t.layers, out.group_size);
    out.num_groups += t.groups;
  }
  return RL::success(std::move(out));
}

}  // namespace kvscope::engines
