// SGLang on one GPU: python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py
// (profile_max_num_token, get_cell_size_per_token, init_memory); shared/docs/engine-formulas.md §2.
#include <algorithm>
#include <cstdio>

#include "engine_profiles.hpp"
#include "kvscope/units.hpp"

namespace kvscope::engines {

// SGLang's fallback when it cannot size the reserve from the GPU (server_args.py
// _handle_gpu_memory_settings); current releases derive it from the reserved MiB instead.
constexpr double kSglangDefaultMemFractionStatic = 0.88;

Result<PlanReport> plan_sglang(PlanReport r, const ModelShape& shape, const PlanInput& in) {
  using R = Result<PlanReport>;
  for (const LayerSpec& l : shape.layers) {
    if (l.state != StateKind::kNone) {
      return R::failure(make_error(kUnsupported, "engine",
                                   "sglang: Mamba / linear-attention pools are not modelled yet"));
    }
  }
  const double fraction =
      in.mem_fraction_static != 0 ? in.mem_fraction_static : kSglangDefaultMemFractionStatic;
  if (!(fraction > 0 && fraction <= 1)) {
    return R::failure(make_error(kInvalidValue, "mem_fraction_static", "must be in (0, 1]"));
  }
  if (in.mem_fraction_static == 0) {
    r.notes.push_back(
        "mem_fraction_static 0.88: SGLang's fallback; recent releases compute it from the card "
        "(pass --mem-fraction-static to match a server log)");
  }
  const Result<uint64_t> cell = cell_bytes(shape, r.estimate.kv_dtype);
  if (!cell.ok) return R::failure(cell.error);
  if (!r.kv_memory_given) {
    // rest = free after weights - total x (1 - fraction), with total the free memory before
    // loading.
    r.requested_bytes = static_cast<uint64_t>(static_cast<double>(r.gpu_memory_bytes) * fraction);
    const uint64_t reserve = r.gpu_memory_bytes - r.requested_bytes;
    r.kv_pool_bytes = left_after(r.gpu_memory_bytes, CheckedU64(r.weights_bytes) + reserve);
    r.notes.push_back(
        "SGLang takes the fraction of the memory free before loading; the whole card is assumed "
        "free");
  }
  const uint64_t page = r.block_size_tokens == 0 ? 1 : r.block_size_tokens;  // page_size, default 1
  r.kv_pool_tokens = cell.value == 0 ? 0 : r.kv_pool_bytes / cell.value / page * page;
  const CheckedU64 needed = CheckedU64(cell.value) * r.max_model_len;
  if (needed.overflowed())
    return R::failure(make_error(kOutOfRange, "max_model_len", "KV bytes exceed 2^64-1"));
  r.kv_bytes_needed = needed.value();
  r.max_concurrency = static_cast<double>(r.kv_pool_tokens) / static_cast<double>(r.max_model_len);
  r.max_context = r.kv_pool_tokens;
  r.max_model_len_that_fits = std::min(r.max_model_len, r.kv_pool_tokens);
  r.starts = r.kv_pool_tokens > 0;
  if (!r.starts) {
    char fraction_text[16];
    std::snprintf(fraction_text, sizeof fraction_text, "%g", fraction);
    r.startup_error =
        std::string(
            "Not enough memory. Please try to increase --mem-fraction-static. Current value: ") +
        fraction_text;
  } else if (r.kv_pool_tokens < r.max_model_len) {
    r.notes.push_back(
        "the pool holds fewer tokens than context_len: SGLang starts, but no request can reach it");
  }
  return R::success(std::move(r));
}

}  // namespace kvscope::engines
