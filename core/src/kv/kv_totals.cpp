// A workload's KV bytes from a model's layout (kv_arithmetic.cpp builds the layout): per token, per
// sequence and in all, paged in blocks, with a shared prefix stored once. Block accounting follows
// vLLM's paged layout (vllm/v1/kv_cache_interface.py: a window that does not start on a block
// boundary spans one extra block) and prefix caching (only whole blocks of a common prefix are
// shared). A sweep runs this for every point, so the WebAssembly build compiles it for speed.
#include "kvscope/kv/kv_arithmetic.hpp"

#include <algorithm>

#include "base/checked_math.hpp"

namespace kvscope {
namespace {

// A compressed layer's entries beside its window: one per `ratio` tokens, paged in blocks of the
// block size rounded up to whole entries, a shared prefix's whole blocks stored once.
Result<bool> add_compressed_entries(const GroupKv& layer_group, const KvWorkload& w, uint64_t block,
                                    GroupKv& g) {
  const uint64_t ratio = layer_group.group.spec.compress_ratio;
  const uint64_t span = ceil_div(block, ratio) * ratio;  // tokens of one block of entries
  g.compressed_bytes_per_entry = layer_group.compressed_bytes_per_entry;
  g.compressed_entries_per_sequence = w.context_tokens / ratio;
  // Unpaged, the entries themselves; paged, the blocks the context's tokens reach.
  const uint64_t blocks = w.block_size_tokens == 0 ? g.compressed_entries_per_sequence
                                                   : ceil_div(w.context_tokens, span);
  const uint64_t shared_blocks = std::min(blocks, w.shared_prefix_tokens / span);
  const CheckedU64 seq =
      CheckedU64(g.compressed_bytes_per_entry) * g.compressed_entries_per_sequence +
      g.kv_bytes_per_sequence;
  if (seq.overflowed())
    return Result<bool>::failure(byte_count_overflow("context_tokens", "KV bytes of one sequence"));
  const CheckedU64 block_bytes = CheckedU64(g.compressed_bytes_per_entry) * (span / ratio);
  const CheckedU64 shared = block_bytes * shared_blocks;
  const CheckedU64 total =
      shared + block_bytes * (blocks - shared_blocks) * w.batch + g.kv_bytes_total;
  if (total.overflowed() || (shared + g.shared_prefix_bytes).overflowed())
    return Result<bool>::failure(byte_count_overflow("batch", "KV bytes of the batch"));
  g.kv_bytes_per_sequence = seq.value();
  g.kv_bytes_total = total.value();
  g.shared_prefix_bytes = (shared + g.shared_prefix_bytes).value();
  return Result<bool>::success(true);
}

}  // namespace

Result<KvEstimate> kv_totals(const KvLayout& layout, const KvWorkload& w, bool with_groups) {
  using R = Result<KvEstimate>;
  if (w.context_tokens == 0)
    return R::failure(make_error(kInvalidValue, "context_tokens", "must be at least 1 token"));
  if (w.batch == 0)
    return R::failure(make_error(kInvalidValue, "batch", "must be at least 1 sequence"));
  if (w.shared_prefix_tokens > w.context_tokens) {
    return R::failure(make_error(kInvalidValue, "shared_prefix_tokens",
                                 std::to_string(w.shared_prefix_tokens) +
                                     " tokens exceeds the context of " +
                                     std::to_string(w.context_tokens)));
  }
  const uint64_t block = w.block_size_tokens == 0 ? 1 : w.block_size_tokens;
  const uint64_t prefix_blocks = w.shared_prefix_tokens / block;  // only whole blocks are shared

  KvEstimate out;
  if (with_groups) out.groups.reserve(layout.groups.size());
  CheckedU64 per_token, per_sequence, total, state_total, shared_total;
  for (const GroupKv& layer_group : layout.groups) {
    GroupKv g;  // the per-token figures; the group itself is copied only when asked for
    g.kv_bytes_per_token_per_layer = layer_group.kv_bytes_per_token_per_layer;
    g.kv_bytes_per_token = layer_group.kv_bytes_per_token;
    g.state_bytes_per_sequence = layer_group.state_bytes_per_sequence;
    g.compressed_bytes_per_entry = layer_group.compressed_bytes_per_entry;
    if (g.compressed_bytes_per_entry != 0) {
      out.compressed_kv_bytes_per_token +=
          static_cast<double>(g.compressed_bytes_per_entry) / layer_group.group.spec.compress_ratio;
    }
    const LayerSpec& spec = layer_group.group.spec;
    const uint64_t layers = layer_group.group.layer_indices.size();
    const CheckedU64 state_bytes = g.state_bytes_per_sequence;

    if (spec.keeps_tokens()) {
      out.kv_layers += layers;
      per_token += g.kv_bytes_per_token;
      const uint64_t L = w.context_tokens;
      // A compressed layer's window behaves as a sliding layer's; its compressed entries follow.
      const bool windowed = spec.windowed() || spec.attention == AttentionKind::kCompressed;
      g.kept_tokens_per_sequence = windowed ? std::min(L, spec.window_tokens) : L;
      const uint64_t first_block = (L - g.kept_tokens_per_sequence) / block;
      const uint64_t end_block = ceil_div(L, block);
      // A window of W tokens spans at most ceil((W-1)/block) + 1 blocks when it does not start on
      // a block boundary; count that peak so bytes never shrink as the context grows
      // (vLLM SlidingWindowSpec.max_memory_usage_bytes reserves the same).
      const uint64_t blocks =
          windowed ? std::min(end_block, ceil_div(spec.window_tokens - 1, block) + 1) : end_block;
      const uint64_t shared_blocks =
          prefix_blocks > first_block ? std::min(end_block, prefix_blocks) - first_block : 0;
      g.allocated_tokens_per_sequence = blocks * block;

      const CheckedU64 seq = CheckedU64(g.kv_bytes_per_token) * g.kept_tokens_per_sequence;
      if (seq.overflowed())
        return R::failure(byte_count_overflow("context_tokens", "KV bytes of one sequence"));
      const CheckedU64 block_bytes = CheckedU64(g.kv_bytes_per_token) * block;
      if (block_bytes.overflowed())
        return R::failure(byte_count_overflow("block_size_tokens", "KV bytes of one block"));
      const CheckedU64 shared = block_bytes * shared_blocks;
      const CheckedU64 group_total = shared + block_bytes * (blocks - shared_blocks) * w.batch;
      if (shared.overflowed() || group_total.overflowed()) {
        return R::failure(byte_count_overflow("batch", "KV bytes of the batch"));
      }
      g.kv_bytes_per_sequence = seq.value();
      g.kv_bytes_total = group_total.value();
      g.shared_prefix_bytes = shared.value();
      if (layer_group.compressed_bytes_per_entry != 0) {
        const Result<bool> added = add_compressed_entries(layer_group, w, block, g);
        if (!added.ok) return R::failure(added.error);
      }
    }
    const CheckedU64 group_state_total = state_bytes * w.batch;
    const CheckedU64 seq_with_state =
        CheckedU64(g.kv_bytes_per_sequence) + g.state_bytes_per_sequence;
    const CheckedU64 total_with_state = CheckedU64(g.kv_bytes_total) + group_state_total;
    if (seq_with_state.overflowed())
      return R::failure(byte_count_overflow("context_tokens", "KV bytes of one sequence"));
    if (total_with_state.overflowed())
      return R::failure(byte_count_overflow("batch", "KV bytes of the batch"));
    g.kv_bytes_per_sequence = seq_with_state.value();
    g.kv_bytes_total = total_with_state.value();

    per_sequence += g.kv_bytes_per_sequence;
    total += g.kv_bytes_total;
    state_total += g.state_bytes_per_sequence;
    shared_total += g.shared_prefix_bytes;
    if (with_groups) {
      g.group = layer_group.group;
      out.groups.push_back(std::move(g));
    }
  }
  if (per_sequence.overflowed())
    return R::failure(byte_count_overflow("context_tokens", "KV bytes of one sequence"));
  if (total.overflowed() || per_token.overflowed() || state_total.overflowed() ||
      shared_total.overflowed()) {
    return R::failure(byte_count_overflow("batch", "KV bytes of the batch"));
  }
  out.kv_bytes_per_token = per_token.value();
  out.kv_bytes_per_sequence = per_sequence.value();
  out.kv_bytes_total = total.value();
  out.state_bytes_per_sequence = state_total.value();
  out.shared_prefix_bytes = shared_total.value();
  return R::success(std::move(out));
}

Result<KvEstimate> kv_totals(const ModelShape& shape, const Dtype& kv, const Dtype& state,
                             const KvWorkload& w) {
  const Result<KvLayout> layout = kv_layout(shape, kv, state);
  if (!layout.ok) return Result<KvEstimate>::failure(layout.error);
  return kv_totals(layout.value, w, true);
}

}  // namespace kvscope
