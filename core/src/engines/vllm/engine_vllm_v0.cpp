// vLLM's V0 engine (0.7 and earlier; VLLM_USE_V1=0 through 0.10): one block holds block_size
// tokens of every layer (vllm/worker/cache_engine.py CacheEngine.get_cache_block_size), the
// blocks are the budget over that (vllm/worker/worker.py determine_num_available_blocks), the
// CPU swap space holds its own ("# GPU blocks: B, # CPU blocks: K", executor_base.py), and a
// max_model_len past B x block_size tokens does not start (raise_if_cache_size_invalid).
#include <algorithm>

#include "engines/engine_profiles.hpp"
#include "kvscope/base/units.hpp"

namespace kvscope::engines {

Result<PlanReport> plan_vllm_v0(PlanReport r, const ModelShape& shape, const PlanInput& in,
                                bool mla_row_align) {
  using R = Result<PlanReport>;
  CheckedU64 per_token;  // every layer's bytes for one token
  bool recurrent = false;
  for (const LayerSpec& l : shape.layers) {
    recurrent = recurrent || l.state != StateKind::kNone;
    if (!l.keeps_tokens()) continue;
    const Result<uint64_t> bytes = kv_bytes_per_token_per_layer(l, r.estimate.kv_dtype);
    if (!bytes.ok) return R::failure(bytes.error);
    // 0.7's _align_cache: each MLA row padded to a multiple of 256 bytes.
    const bool mla = shape.mla.kv_lora_rank != 0;
    per_token += mla && mla_row_align ? ceil_div(bytes.value, 256) * 256 : bytes.value;
  }
  if (recurrent) {
    r.notes.push_back(
        "V0 keeps recurrent states outside the KV blocks (sized by max_num_seqs): the blocks "
        "count the attention layers only");
  }
  const uint64_t bs = r.block_size_tokens;
  const CheckedU64 block = per_token * bs;
  if (block.overflowed())
    return R::failure(make_error(kOutOfRange, "block_size_tokens", "one block's bytes exceed 2^64-1"));
  if (block.value() == 0)
    return R::failure(make_error(kUnsupported, "model", "no layer keeps a KV cache"));
  if (mla_row_align && shape.mla.kv_lora_rank != 0) {
    r.notes.push_back("MLA rows padded to 256 bytes (VLLM_MLA_CUDA_MEM_ALIGN_KV_CACHE=1)");
  }
  // Blocks never hold more tokens than the pool has bytes; only an override can pass 2^64-1.
  if ((CheckedU64(in.vllm.num_gpu_blocks_override) * bs).overflowed()) {
    return R::failure(make_error(kOutOfRange, "vllm.num_gpu_blocks_override",
                                 "the blocks' tokens exceed 2^64-1"));
  }
  const CheckedU64 needed = CheckedU64(ceil_div(r.max_model_len, bs)) * block.value();
  if (needed.overflowed())
    return R::failure(make_error(kOutOfRange, "max_model_len", "KV bytes exceed 2^64-1"));
  r.kv_bytes_needed = needed.value();
  // What a pool holds: for the budget, and for the ends of its estimated range.
  const auto capacity_at = [&](uint64_t pool) {
    PoolCapacity c;
    c.blocks = in.vllm.num_gpu_blocks_override != 0 ? in.vllm.num_gpu_blocks_override
                                                    : pool / block.value();
    c.tokens = c.blocks * bs;
    c.concurrency = static_cast<double>(c.tokens) / static_cast<double>(r.max_model_len);
    c.starts = r.max_model_len <= c.tokens;
    c.longest = std::min(r.max_model_len, c.tokens);
    return c;
  };
  set_capacity(r, capacity_at(r.kv_pool_bytes));
  r.max_context = r.kv_pool_tokens;
  fill_estimated_ends(r.estimated, capacity_at);
  r.swap_blocks = in.vllm.swap_space_bytes / block.value();
  r.notes.push_back("# GPU blocks: " + std::to_string(r.num_blocks) + ", # CPU blocks: " +
                    std::to_string(r.swap_blocks) + " (V0's log; " +
                    format_gib(in.vllm.swap_space_bytes) + " of --swap-space)");
  if (r.num_blocks == 0) {
    r.startup_error =
        "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
        "initializing the engine.";
  } else if (!r.starts) {
    r.startup_error = "The model's max seq len (" + std::to_string(r.max_model_len) +
                      ") is larger than the maximum number of tokens that can be stored in KV "
                      "cache (" + std::to_string(r.kv_pool_tokens) +
                      "). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` "
                      "when initializing the engine.";
  }
  return R::success(std::move(r));
}

}  // namespace kvscope::engines
