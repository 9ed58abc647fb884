// The articles' arithmetic on one GPU: card memory - weights (- an overhead), sequences of
// max_model_len, no engine behaviour.
#include <cmath>

#include "engines/engine_profiles.hpp"
#include "kvscope/base/units.hpp"

namespace kvscope::engines {

// The articles' arithmetic: card memory - weights (- an overhead), sequences of max_model_len.
Result<PlanReport> plan_plain(PlanReport r, const ModelShape& shape, const PlanInput& in) {
  using R = Result<PlanReport>;
  if (!r.kv_memory_given) {
    r.requested_bytes = r.gpu_memory_bytes;
    r.kv_pool_bytes =
        left_after(r.gpu_memory_bytes, CheckedU64(r.weights_bytes) + in.overhead_bytes);
  }
  auto bytes_at = [&](uint64_t len) -> CheckedU64 {
    const Result<KvEstimate> kv = kv_totals(shape, r.estimate.kv_dtype, r.estimate.state_dtype,
                                            KvWorkload{len, 1, r.block_size_tokens, 0});
    return kv.ok ? CheckedU64(kv.value.kv_bytes_total) : CheckedU64::overflow();
  };
  auto fits = [&](uint64_t len) {
    const CheckedU64 b = bytes_at(len);
    return !b.overflowed() && b.value() <= r.kv_pool_bytes;
  };
  const CheckedU64 per_sequence = bytes_at(r.max_model_len);
  if (per_sequence.overflowed())
    return R::failure(make_error(kOutOfRange, "max_model_len", "KV bytes exceed 2^64-1"));
  r.kv_bytes_needed = per_sequence.value();
  r.max_concurrency = r.kv_bytes_needed == 0 ? 0
                                             : std::floor(static_cast<double>(r.kv_pool_bytes) /
                                                          static_cast<double>(r.kv_bytes_needed));
  const Result<KvEstimate> one_token =
      kv_totals(shape, r.estimate.kv_dtype, r.estimate.state_dtype, KvWorkload{1, 1, 0, 0});
  const uint64_t per_token = one_token.ok ? one_token.value.kv_bytes_per_token : 0;
  r.kv_pool_tokens = per_token == 0 ? 0 : r.kv_pool_bytes / per_token;
  r.starts = r.kv_pool_bytes > 0 && r.kv_bytes_needed <= r.kv_pool_bytes;
  r.max_model_len_that_fits = largest_fitting(1, r.max_model_len, fits);
  r.max_context = largest_fitting(1, kMaxSearchTokens, fits);
  if (!r.starts) {
    r.startup_error =
        r.kv_pool_bytes == 0
            ? "the weights (" + format_gb(r.weights_bytes) + ") leave no memory for a KV cache"
            : "one sequence of " + with_commas(r.max_model_len) + " tokens needs " +
                  format_gb(r.kv_bytes_needed) + " of KV cache, more than the " +
                  format_gb(r.kv_pool_bytes) + " left";
  }
  r.notes.push_back("plain arithmetic: no activation memory or runtime buffers deducted");
  return R::success(std::move(r));
}

Result<uint64_t> cell_bytes(const ModelShape& shape, const Dtype& kv) {
  CheckedU64 total;
  for (const LayerSpec& l : shape.layers) {
    const Result<uint64_t> per_layer = kv_bytes_per_token_per_layer(l, kv);
    if (!per_layer.ok) return per_layer;
    total += per_layer.value;
  }
  if (total.overflowed()) {
    return Result<uint64_t>::failure(
        make_error(kOutOfRange, "kv_dtype", "KV bytes per token exceed 2^64-1"));
  }
  return Result<uint64_t>::success(total.value());
}

uint64_t largest_fitting(uint64_t lo, uint64_t hi, const std::function<bool(uint64_t)>& fits) {
  if (!fits(lo)) return lo - 1;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

}  // namespace kvscope::engines
