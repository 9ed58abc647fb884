// vLLM's DeepSeek-V4 cache layout (vllm/v1/core/kv_cache_utils.py, kv_cache_planning.py:
// group_and_unify_kv_cache_specs, _approximate_gcd, _get_kv_cache_groups_uniform_groups,
// _get_kv_cache_config_deepseek_v4, _max_memory_usage_bytes_from_groups; the specs from
// vllm/model_executor/layers/deepseek_v4_attention.py and deepseek_compressor.py).
//
// Each layer registers several caches: a 64-token-block sliding window of latents
// (SlidingWindowMLASpec); beside a compress ratio, the compressed latents (MLAAttentionSpec,
// block_size / ratio entries a block), an indexer's keys on ratio-4 layers, and each compressor's
// fp32 state (SlidingWindowMLASpec of coff x ratio positions, 4- or 8-position blocks). Pages are
// rounded up to 576 bytes. The compressed caches form one group; the windowed ones are grouped by
// (block, window), padded to the nearest compressed page and cut into groups of at most
// `num_layer_tuples` layers. Every group shares one tensor layout: a block id holds, per layer
// tuple, one page of each compressed page size.
#include <algorithm>
#include <map>

#include "base/checked_math.hpp"
#include "engines/vllm/engine_vllm.hpp"
#include "kvscope/base/units.hpp"

namespace kvscope::engines {
namespace {

constexpr uint64_t kAlignment = 576;  // alignment of every DeepSeek-V4 page (fp8_ds_mla)
constexpr uint64_t kWindowBlock =
    64;  // "C4A KV block shape [256//4, head_dim]" fixes the SWA block

uint64_t aligned(uint64_t bytes) { return ceil_div(bytes, kAlignment) * kAlignment; }

// One cache spec family: its pages (page -> specs with it) and how a request uses its blocks.
struct SpecFamily {
  AttentionKind kind = AttentionKind::kFull;  // kFull: the compressed caches; else windowed
  uint64_t block = 0;
  uint64_t window = 0;
  std::map<uint64_t, uint64_t> pages;  // page bytes -> specs
  // get_num_layer_tuples: the specs of the most common page size.
  uint64_t tuples() const {
    uint64_t most = 0;
    for (const auto& [page, count] : pages) most = std::max(most, count);
    return most;
  }
};

// _approximate_gcd: the chunk in [lower_bound, max] that pads the counts least, ties to the larger.
uint64_t approximate_gcd(const std::vector<uint64_t>& values, uint64_t lower_bound) {
  const uint64_t top = *std::max_element(values.begin(), values.end());
  uint64_t best = std::max<uint64_t>(lower_bound, 1), best_pad = UINT64_MAX;
  for (uint64_t d = best; d <= top; ++d) {
    uint64_t pad = 0;
    for (uint64_t x : values) pad += (d - x % d) % d;
    if (pad <= best_pad) {
      best_pad = pad;
      best = d;
    }
  }
  return best;
}

}  // namespace

Result<VllmLayout> vllm_deepseek_v4_layout(const std::vector<LayerSpec>& layers,
                                           const VllmLayoutRules& rules,
                                           std::vector<std::string>* notes) {
  using RL = Result<VllmLayout>;
  if (rules.kv_dtype.name != "fp8_ds_mla") {
    return RL::failure(make_error(kUnsupported, "kv_dtype",
                                  "vllm: DeepSeek-V4 keeps its cache only as fp8_ds_mla "
                                  "(DeepseekV4MLAAttention), not " +
                                      rules.kv_dtype.name));
  }
  const uint64_t block = rules.block_tokens;
  SpecFamily compressed{AttentionKind::kFull, block, 0, {}};
  std::map<std::pair<uint64_t, uint64_t>, SpecFamily> windowed;  // by (block, window)
  auto add_windowed = [&windowed](uint64_t spec_block, uint64_t window, uint64_t page) {
    SpecFamily& f = windowed[{spec_block, window}];
    f = SpecFamily{AttentionKind::kSlidingWindow, spec_block, window, std::move(f.pages)};
    ++f.pages[page];
  };
  for (const LayerSpec& l : layers) {
    if (l.attention != AttentionKind::kCompressed) {
      return RL::failure(make_error(kUnsupported, "model",
                                    "vllm: a DeepSeek-V4 layout with a layer of another kind"));
    }
    const Result<uint64_t> entry = latent_entry_bytes(l, rules.kv_dtype);
    if (!entry.ok) return RL::failure(entry.error);
    add_windowed(kWindowBlock, l.window_tokens, aligned(kWindowBlock * entry.value));
    const uint64_t r = l.compress_ratio;
    if (r == 0) continue;
    if (r != 4 && r != 128) {
      return RL::failure(make_error(
          kUnsupported, "model",
          "vllm: DeepSeek-V4's compressors know ratios 4 and 128, not " + std::to_string(r)));
    }
    if (block % r != 0) {
      return RL::failure(make_error(kInvalidValue, "block_size_tokens",
                                    "vllm: DeepSeek-V4 needs blocks of whole compressed entries "
                                    "(a multiple of " +
                                        std::to_string(r) + " tokens), not " +
                                        std::to_string(block)));
    }
    ++compressed.pages[aligned(block / r * entry.value)];
    // deepseek_compressor.py CompressorStateCache: 4-position blocks at ratio 4, 8 at 128.
    const uint64_t coff = r == 4 ? 2 : 1, state_block = r == 4 ? 4 : 8;
    add_windowed(state_block, coff * r, aligned(state_block * 2 * coff * l.k_head_dim * 4));
    if (l.indexer_head_dim != 0) {
      ++compressed.pages[aligned(block / r * indexer_bytes_per_token(l))];
      add_windowed(state_block, coff * r, aligned(state_block * 2 * coff * l.indexer_head_dim * 4));
    }
  }
  if (compressed.pages.empty()) {
    return RL::failure(make_error(kUnsupported, "model",
                                  "vllm: DeepSeek-V4's layout needs at least one compressed layer "
                                  "(group_and_unify_kv_cache_specs)"));
  }
  std::vector<uint64_t> counts = {compressed.tuples()};
  for (const auto& [key, f] : windowed) counts.push_back(f.tuples());
  const uint64_t chunk = approximate_gcd(counts, counts[0]);

  VllmLayout out;
  const uint64_t largest = compressed.pages.rbegin()->first;
  for (const auto& [page, specs] : compressed.pages) out.page += page;
  out.types.push_back(
      {AttentionKind::kFull, 0, out.page, block, compressed.tuples(), 1, true, "compressed"});
  uint64_t tuples = compressed.tuples();
  for (const auto& [key, f] : windowed) {
    // Each page padded to the nearest compressed page at least as large.
    std::map<uint64_t, uint64_t> padded;
    for (const auto& [page, specs] : f.pages) {
      const auto candidate = compressed.pages.lower_bound(page);
      if (candidate == compressed.pages.end()) {
        return RL::failure(make_error(kInvalidValue, "block_size_tokens",
                                      "vllm: at blocks of " + std::to_string(block) +
                                          " tokens DeepSeek-V4's largest "
                                          "compressed page (" +
                                          with_commas(largest) + " bytes) is smaller than its " +
                                          std::to_string(f.block) + "-position windowed page (" +
                                          with_commas(page) +
                                          " bytes); its layout needs 256-token blocks"));
      }
      padded[candidate->first] += specs;
    }
    const uint64_t layers_per_size = padded.begin()->second;
    const uint64_t groups = ceil_div(layers_per_size, chunk);
    tuples = std::max(tuples, ceil_div(layers_per_size, groups));  // the largest cut
    out.types.push_back({f.kind, f.window, 0, f.block, layers_per_size, groups, false,
                         f.block == kWindowBlock ? "sliding_window" : "compressor_state"});
  }
  out.group_size = tuples;
  for (const VllmType& t : out.types) out.num_groups += t.groups;
  if (notes != nullptr) {
    notes->push_back("DeepSeek-V4 layout: " + std::to_string(out.num_groups) +
                     " KV-cache groups sharing blocks of " + std::to_string(tuples) +
                     " layer tuples x " + with_commas(out.page) +
                     " bytes (one page of each compressed page size), " +
                     with_commas(tuples * out.page) +
                     " bytes a block (vLLM's DeepSeek-V4 "
                     "allocator, _get_kv_cache_config_deepseek_v4)");
  }
  return RL::success(std::move(out));
}

}  // namespace kvscope::engines
