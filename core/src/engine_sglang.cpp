// SGLang on one GPU: python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py
// (profile_max_num_token, get_cell_size_per_token, handle_max_mamba_cache, init_memory);
// shared/docs/engine-formulas.md §2.
#include <algorithm>
#include <cstdio>

#include "engine_profiles.hpp"
#include "kvscope/kv_arithmetic.hpp"
#include "kvscope/units.hpp"

namespace kvscope::engines {

// SGLang's fallback when it cannot size the reserve from the GPU (server_args.py
// _handle_gpu_memory_settings); current releases derive it from the reserved MiB instead.
constexpr double kSglangDefaultMemFractionStatic = 0.88;
// Mamba slots each running request may hold with the radix cache on
// (MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO; 1 with --disable-radix-cache).
constexpr uint64_t kMambaSlotsPerRequest = 3;
// max_running_requests under speculative decoding when none is given: server_args.py's "Max
// running requests is reset to 48 for speculative decoding".
constexpr uint64_t kSpeculativeRequests = 48;

namespace {

// The recurrent-state slot of one request on this GPU (BaseLinearStateParams.mamba_cache_per_req:
// convolution states in `conv`, SSM states in the resolved dtype). Empty when the shape keeps no
// recurrent state.
Result<StatePool> state_slot(const ModelShape& shape, const Dtype& conv) {
  using R = Result<StatePool>;
  StatePool pool;
  const Result<Dtype> ssm = ssm_state_dtype(shape, conv);
  if (!ssm.ok) return R::failure(ssm.error);
  CheckedU64 conv_bytes, ssm_bytes;
  bool attention = false;
  for (const LayerSpec& l : shape.layers) {
    attention = attention || l.keeps_tokens();
    if (l.state == StateKind::kNone) continue;
    if (l.state == StateKind::kMamba || l.state == StateKind::kLinearAttention) {
      return R::failure(make_error(
          kUnsupported, "engine",
          std::string("sglang: ") + state_kind_name(l.state) + " state pools are not modelled"));
    }
    const uint64_t ssm_values = std::min(l.ssm_state_values, l.state_values);
    const Result<uint64_t> c = row_bytes(conv, l.state_values - ssm_values, 1, "state_dtype");
    const Result<uint64_t> t = row_bytes(ssm.value, ssm_values, 1, "ssm_state_dtype");
    if (!c.ok) return R::failure(c.error);
    if (!t.ok) return R::failure(t.error);
    conv_bytes += c.value;
    ssm_bytes += t.value;
  }
  if (conv_bytes.overflowed() || ssm_bytes.overflowed())
    return R::failure(make_error(kOutOfRange, "state_dtype", "recurrent state exceeds 2^64-1"));
  if (conv_bytes.value() + ssm_bytes.value() != 0 && !attention) {
    return R::failure(make_error(kUnsupported, "engine",
                                 "sglang: attention-free models are not modelled (its hybrid pools "
                                 "size the KV cache from the attention layers)"));
  }
  pool.conv_bytes_per_slot = conv_bytes.value();
  pool.ssm_bytes_per_slot = ssm_bytes.value();
  pool.conv_dtype = conv.name;
  pool.ssm_dtype = ssm.value.name;
  return R::success(pool);
}

}  // namespace

Result<PlanReport> plan_sglang(PlanReport r, const ModelShape& shape, const PlanInput& in) {
  using R = Result<PlanReport>;
  // Convolution states in bf16 (SGLANG_MAMBA_CONV_DTYPE's default) unless --state-dtype says.
  const Dtype conv = in.model.state_dtype == "auto" || in.model.state_dtype.empty()
                         ? parse_dtype("bf16", DtypeUse::kKv, "state_dtype").value
                         : r.estimate.state_dtype;
  Result<StatePool> slot = state_slot(shape, conv);
  if (!slot.ok) return R::failure(slot.error);
  StatePool& states = slot.value;
  const uint64_t slot_bytes = states.conv_bytes_per_slot + states.ssm_bytes_per_slot;
  if (!(in.mamba_full_memory_ratio > 0 && in.mamba_full_memory_ratio <= 1e6)) {
    return R::failure(
        make_error(kInvalidValue, "mamba_full_memory_ratio", "must be a positive number"));
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
  const uint64_t given_running = in.max_running_requests != 0    ? in.max_running_requests
                                 : !r.speculative.method.empty() ? kSpeculativeRequests
                                                                 : 0;
  if (slot_bytes != 0) {
    // handle_max_mamba_cache: a fixed slot count, or the share mamba_full_memory_ratio gives the
    // states against the KV pool; the KV pool gets the rest.
    uint64_t rest = r.kv_pool_bytes;
    if (!r.speculative.method.empty()) {
      // Speculative decoding first reserves intermediate states for every draft token of every
      // running request (draft tokens = steps + 1).
      const CheckedU64 spec =
          CheckedU64(slot_bytes) * given_running * (r.speculative.num_speculative_tokens + 1);
      rest = left_after(rest, spec);
      r.notes.push_back(
          "speculative decoding: " + format_gib(spec.overflowed() ? 0 : spec.value()) +
          " of intermediate states for " + with_commas(given_running) + " requests x " +
          std::to_string(r.speculative.num_speculative_tokens + 1) +
          " draft tokens set aside first");
    }
    if (in.max_mamba_cache_size != 0) {
      states.slots = in.max_mamba_cache_size;
    } else if (in.disable_radix_cache && given_running != 0) {
      states.slots = given_running;
    } else {
      const double share =
          static_cast<double>(rest) * in.mamba_full_memory_ratio / (1 + in.mamba_full_memory_ratio);
      states.slots = static_cast<uint64_t>(share / static_cast<double>(slot_bytes));
    }
    const CheckedU64 reserved = CheckedU64(states.slots) * slot_bytes;
    const CheckedU64 allocated = (CheckedU64(states.slots) + 1) * slot_bytes;
    if (allocated.overflowed())
      return R::failure(
          make_error(kOutOfRange, "max_mamba_cache_size", "state pool exceeds 2^64-1"));
    states.reserved_bytes = reserved.value();
    states.bytes = allocated.value();
    r.kv_pool_bytes = left_after(rest, reserved);
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%g", in.mamba_full_memory_ratio);
    r.notes.push_back("recurrent states: " + with_commas(states.slots) + " slots of " +
                      format_binary_size(slot_bytes) + " (conv " + states.conv_dtype + ", SSM " +
                      states.ssm_dtype + ") set aside first, " +
                      (in.max_mamba_cache_size != 0
                           ? std::string("--max-mamba-cache-size")
                           : std::string("mamba_full_memory_ratio ") + ratio) +
                      "; SGLang allocates one more as padding");
    if (in.max_mamba_cache_size == 0 && states.slots > 0 && r.kv_pool_bytes == 0) {
      r.notes.push_back("the states took the whole budget: lower --mamba-full-memory-ratio");
    }
    r.state_pool = states;
  }
  const uint64_t page = r.block_size_tokens == 0 ? 1 : r.block_size_tokens;  // page_size, default 1
  r.kv_pool_tokens = cell.value == 0 ? 0 : r.kv_pool_bytes / cell.value / page * page;
  // init_memory: the request cap from the pool, then at most a third of the state slots.
  uint64_t running = given_running;
  if (running == 0) {
    const double from_pool =
        static_cast<double>(r.kv_pool_tokens) / static_cast<double>(r.max_model_len) * 512;
    running = std::min<uint64_t>(std::max<uint64_t>(static_cast<uint64_t>(from_pool), 2048), 4096);
  }
  const uint64_t per_request = in.disable_radix_cache ? 1 : kMambaSlotsPerRequest;
  if (slot_bytes != 0 && states.slots / per_request < running) {
    running = states.slots / per_request;
    r.notes.push_back("max_running_requests " + with_commas(running) + ": the state slots over " +
                      std::to_string(per_request) + " per request" +
                      (in.disable_radix_cache ? " (radix cache off)" : " (radix cache on)"));
  }
  r.max_running_requests = running;
  const CheckedU64 needed = CheckedU64(cell.value) * r.max_model_len;
  if (needed.overflowed())
    return R::failure(make_error(kOutOfRange, "max_model_len", "KV bytes exceed 2^64-1"));
  r.kv_bytes_needed = needed.value();
  r.max_concurrency =
      std::min(static_cast<double>(r.kv_pool_tokens) / static_cast<double>(r.max_model_len),
               static_cast<double>(r.max_running_requests));
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
  } else if (r.max_running_requests == 0) {
    r.notes.push_back(
        "SGLang starts, but max_running_requests is 0: the state pool holds fewer "
        "slots than one request takes");
  } else if (r.kv_pool_tokens < r.max_model_len) {
    r.notes.push_back(
        "the pool holds fewer tokens than context_len: SGLang starts, but no request can reach it");
  }
  return R::success(std::move(r));
}

}  // namespace kvscope::engines
