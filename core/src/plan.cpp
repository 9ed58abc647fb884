// Engine profiles: the budget an engine gives the KV pool and how it counts capacity.
// vLLM follows vllm/v1/worker/gpu_worker.py (determine_available_memory) and
// vllm/v1/core/kv_cache_utils.py (get_kv_cache_config_from_groups, get_num_blocks,
// _report_kv_cache_config, get_max_concurrency_for_kv_cache_config, _check_enough_kv_cache_memory,
// estimate_max_model_len); see shared/docs/engine-formulas.md §1.
#include "kvscope/plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "kvscope/checked_math.hpp"
#include "kvscope/units.hpp"

namespace kvscope {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;
constexpr uint64_t kMaxSearchTokens = uint64_t{1} << 40;
// vLLM's profiled activation peak, per batched token per vocabulary entry: calibrated on the two
// logged runs in engine-formulas.md §1.4 (Llama-3.1-8B 4.76 GiB, gpt-oss-20b 7.38 GiB at 8192
// batched tokens on an H100), where the peak tracks the fp32 logits of the dummy run.
constexpr double kActivationBytesPerTokenPerVocab = 4.84;
// vLLM's non-torch memory (NCCL, cuBLAS workspaces) in the same logs: 0.13 GiB.
constexpr uint64_t kVllmNonTorchBytes = static_cast<uint64_t>(0.13 * kGiB);

// Python's round(x / 2**30, 2) as vLLM's format_gib prints it ("16.0", "5.59").
std::string format_gib_like_vllm(uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", std::round(static_cast<double>(bytes) / kGiB * 100) / 100);
  std::string s = buf;
  while (s.size() > 3 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
  return s;
}

// Largest value in [lo, hi] with fits(value), or lo - 1 when none; fits must be monotone.
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

// What a budget leaves after `used`, 0 when nothing is left.
uint64_t left_after(uint64_t budget, CheckedU64 used) {
  return used.overflowed() || used.value() >= budget ? 0 : budget - used.value();
}

// One vLLM KV-cache spec type and the layers that have it.
struct VllmType {
  AttentionKind kind = AttentionKind::kFull;  // kFull (also MLA), kSlidingWindow, kChunked
  uint64_t window = 0;
  uint64_t page_bytes = 0;  // one block of one layer
  uint64_t layers = 0;
};

Result<PlanReport> plan_vllm(PlanReport r, const PlanInput& in) {
  using R = Result<PlanReport>;
  const ModelShape& shape = r.estimate.shape;
  for (const LayerSpec& l : shape.layers) {
    if (l.state != StateKind::kNone) {
      return R::failure(make_error(
          kUnsupported, "engine",
          "vllm: hybrid Mamba / linear-attention models are not modelled yet; use --engine plain"));
    }
  }
  const bool mla = shape.mla.kv_lora_rank != 0;
  r.block_size_tokens = in.block_size_tokens != 0 ? in.block_size_tokens : mla ? 64 : 16;
  if (in.block_size_tokens == 0) {
    r.notes.push_back(
        mla ? "block size 64: vLLM forces it for the FlashMLA backend (vllm/platforms/cuda.py)"
            : "block size 16: vLLM's default (vllm/config/cache.py)");
  }
  // The workload line (kv_bytes_total) is paged the way this engine pages it.
  r.estimate.workload.block_size_tokens = r.block_size_tokens;
  const Result<KvEstimate> paged =
      estimate_kv(shape, r.estimate.kv_dtype, r.estimate.state_dtype, r.estimate.workload);
  if (!paged.ok) return R::failure(paged.error);
  r.estimate.kv = paged.value;
  const bool large_card = r.gpu_memory_bytes >= 70 * kGiB && r.gpu_id.rfind("a100", 0) != 0;
  r.max_num_batched_tokens = in.max_num_batched_tokens != 0 ? in.max_num_batched_tokens
                             : large_card                   ? 8192
                                                            : 2048;
  if (in.max_num_batched_tokens == 0) {
    r.notes.push_back("max_num_batched_tokens " + std::to_string(r.max_num_batched_tokens) +
                      ": the `vllm serve` default for this card (EngineArgs.get_batch_defaults)");
  }

  // Budget: memory x utilization - weights - activation peak - non-torch memory.
  if (!r.kv_memory_given) {
    r.requested_bytes =
        static_cast<uint64_t>(static_cast<double>(r.gpu_memory_bytes) * in.gpu_memory_utilization);
    r.activation_bytes = in.activation_bytes;
    if (r.activation_bytes == 0) {
      r.activation_bytes = static_cast<uint64_t>(static_cast<double>(r.max_num_batched_tokens) *
                                                 static_cast<double>(shape.vocab_size) *
                                                 kActivationBytesPerTokenPerVocab);
      r.notes.push_back(
          "activation peak " + format_gib(r.activation_bytes) +
          ": estimated (vLLM measures it; pass --activation-bytes or --kv-memory to match a log)");
    }
    r.non_torch_bytes = in.non_torch_bytes != 0 ? in.non_torch_bytes : kVllmNonTorchBytes;
    r.kv_pool_bytes = left_after(
        r.requested_bytes, CheckedU64(r.weights_bytes) + r.activation_bytes + r.non_torch_bytes);
  }
  if (r.kv_pool_bytes == 0) {
    r.starts = false;
    r.startup_error =
        "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
        "initializing the engine.";
    return R::success(std::move(r));
  }

  // Layers by spec type; sliding and chunked layers become full ones without the hybrid manager.
  std::vector<VllmType> types;
  const uint64_t bs = r.block_size_tokens;
  for (const LayerSpec& l : shape.layers) {
    if (!l.keeps_tokens()) continue;
    VllmType t;
    t.kind =
        l.windowed() && !in.disable_hybrid_kv_cache_manager ? l.attention : AttentionKind::kFull;
    t.window = t.kind == AttentionKind::kFull ? 0 : l.window_tokens;
    const Result<uint64_t> per_token = kv_bytes_per_token_per_layer(l, r.estimate.kv_dtype);
    if (!per_token.ok) return R::failure(per_token.error);
    t.page_bytes = per_token.value * bs;
    auto same = std::find_if(types.begin(), types.end(), [&](const VllmType& o) {
      return o.kind == t.kind && o.window == t.window && o.page_bytes == t.page_bytes;
    });
    if (same == types.end()) {
      t.layers = 1;
      types.push_back(t);
    } else {
      ++same->layers;
    }
  }
  if (types.empty())
    return R::failure(make_error(kUnsupported, "model", "no layer keeps a KV cache"));
  // One spec type with different sizes (per-layer KV heads): a single UniformTypeKVCacheSpecs
  // group whose page is the sum of every layer's page (kv_cache_utils.py).
  const bool one_type = std::all_of(types.begin(), types.end(), [&](const VllmType& t) {
    return t.kind == types[0].kind && t.window == types[0].window;
  });
  if (one_type && types.size() > 1) {
    VllmType merged = types[0];
    merged.page_bytes = 0;
    for (const VllmType& t : types) merged.page_bytes += t.page_bytes * t.layers;
    merged.layers = 1;
    types = {merged};
  }
  const uint64_t page = types[0].page_bytes;
  for (const VllmType& t : types) {
    if (t.page_bytes != page) {
      return R::failure(make_error(
          kUnsupported, "engine",
          "vllm: hybrid layers with different page sizes (page unification) are not modelled yet"));
    }
  }
  // Group size: the smallest layer count of a type, or the largest when counts are close
  // (_get_kv_cache_groups_uniform_page_size); each type is cut into groups of that many layers.
  uint64_t min_count = UINT64_MAX, max_count = 0;
  for (const VllmType& t : types) {
    min_count = std::min(min_count, t.layers);
    max_count = std::max(max_count, t.layers);
  }
  const uint64_t group_size =
      types.size() == 1                                                       ? types[0].layers
      : static_cast<double>(max_count) < 1.5 * static_cast<double>(min_count) ? max_count
                                                                              : min_count;
  uint64_t num_groups = 0;
  for (const VllmType& t : types) num_groups += ceil_div(t.layers, group_size);
  r.num_blocks = r.kv_pool_bytes / page / group_size;
  r.kv_pool_tokens = r.num_blocks / num_groups * bs;

  // Blocks one request of `len` tokens needs across all groups (max_memory_usage_bytes per spec).
  auto blocks_needed = [&](uint64_t len) {
    CheckedU64 blocks;
    for (const VllmType& t : types) {
      uint64_t per_group = 0;
      if (t.kind == AttentionKind::kSlidingWindow) {
        per_group = ceil_div(std::min(t.window - 1 + r.max_num_batched_tokens, len), bs) + 1;
      } else if (t.kind == AttentionKind::kChunked) {
        per_group = ceil_div(std::min(t.window + r.max_num_batched_tokens, len), bs);
      } else {
        per_group = ceil_div(len, bs);
      }
      blocks += CheckedU64(per_group) * ceil_div(t.layers, group_size);
    }
    return blocks;
  };
  auto fits = [&](uint64_t len) {
    const CheckedU64 needed = blocks_needed(len) * group_size * page;
    return !needed.overflowed() && needed.value() <= r.kv_pool_bytes;
  };
  const CheckedU64 needed = blocks_needed(r.max_model_len) * group_size * page;
  if (needed.overflowed())
    return R::failure(make_error(kOutOfRange, "max_model_len", "KV bytes exceed 2^64-1"));
  r.kv_bytes_needed = needed.value();
  r.max_concurrency = static_cast<double>(r.num_blocks) /
                      static_cast<double>(blocks_needed(r.max_model_len).value());
  r.starts = r.kv_bytes_needed <= r.kv_pool_bytes;
  r.max_model_len_that_fits = largest_fitting(1, r.max_model_len, fits);
  r.max_context = largest_fitting(1, kMaxSearchTokens, fits);
  if (!r.starts) {
    r.startup_error =
        "To serve at least one request with the models's max seq len (" +
        std::to_string(r.max_model_len) + "), (" + format_gib_like_vllm(r.kv_bytes_needed) +
        " GiB KV cache is needed, which is larger than the available KV cache memory (" +
        format_gib_like_vllm(r.kv_pool_bytes) + " GiB).";
    if (r.max_model_len_that_fits > 0) {
      r.startup_error += " Based on the available memory, the estimated maximum model length is " +
                         std::to_string(r.max_model_len_that_fits) + ".";
    }
    r.startup_error +=
        " Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing "
        "the "
        "engine. See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more "
        "details.";
  }
  return R::success(std::move(r));
}

// The articles' arithmetic: card memory - weights (- an overhead), sequences of max_model_len.
Result<PlanReport> plan_plain(PlanReport r, const PlanInput& in) {
  using R = Result<PlanReport>;
  const ModelShape& shape = r.estimate.shape;
  r.block_size_tokens = in.block_size_tokens;
  if (!r.kv_memory_given) {
    r.requested_bytes = r.gpu_memory_bytes;
    r.kv_pool_bytes =
        left_after(r.gpu_memory_bytes, CheckedU64(r.weights_bytes) + in.overhead_bytes);
  }
  auto bytes_at = [&](uint64_t len) -> CheckedU64 {
    const Result<KvEstimate> kv = estimate_kv(shape, r.estimate.kv_dtype, r.estimate.state_dtype,
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
  r.kv_pool_tokens = r.estimate.kv.kv_bytes_per_token == 0
                         ? 0
                         : r.kv_pool_bytes / r.estimate.kv.kv_bytes_per_token;
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

}  // namespace

Result<PlanReport> plan(const PlanInput& in) {
  using R = Result<PlanReport>;
  if (in.engine != "vllm" && in.engine != "plain") {
    return R::failure(make_error(
        in.engine == "sglang" || in.engine == "tensorrt-llm" || in.engine == "llama.cpp"
            ? kUnsupported
            : kInvalidValue,
        "engine", quote_user_text(in.engine) + " is not available yet (available: plain, vllm)"));
  }
  if (!(in.gpu_memory_utilization > 0 && in.gpu_memory_utilization <= 1)) {
    return R::failure(make_error(kInvalidValue, "gpu_memory_utilization", "must be in (0, 1]"));
  }
  const int memory_sources =
      (in.gpu_id.empty() ? 0 : 1) + (in.gpu_memory_bytes ? 1 : 0) + (in.kv_memory_bytes ? 1 : 0);
  if (memory_sources != 1) {
    return R::failure(
        make_error(kMissingField, "gpu",
                   "give exactly one of a GPU id, a GPU memory size or a KV memory size"));
  }
  PlanReport r;
  r.engine = in.engine;
  EstimateInput model = in.model;
  if (!in.overrides.empty()) {
    std::string text = model.config_json;
    if (!model.model_id.empty()) {
      const Result<ModelEntry> entry = find_model(model.model_id);
      if (!entry.ok) return R::failure(entry.error);
      text = entry.value.config_json;
      model.config_name = entry.value.id;
      model.model_id.clear();
    }
    const Result<std::string> changed = apply_config_overrides(text, in.overrides);
    if (!changed.ok) return R::failure(changed.error);
    model.config_json = changed.value;
    for (const auto& [field, value] : in.overrides) model.config_name += " " + field + "=" + value;
  }
  if (model.context_tokens == 0) model.context_tokens = in.max_model_len;
  model.block_size_tokens = in.block_size_tokens;
  const Result<EstimateReport> estimated = estimate(model);
  if (!estimated.ok) return R::failure(estimated.error);
  r.estimate = estimated.value;

  const Result<ParameterCount> params = count_parameters(r.estimate.shape);
  if (!params.ok) return R::failure(params.error);
  r.params = params.value;
  // "auto": the checkpoint's own format; an unquantized checkpoint loads in the serving dtype.
  const ModelShape& shape = r.estimate.shape;
  const std::string serving = serving_dtype(shape);
  const std::string weights_name = in.weight_dtype != "auto"                 ? in.weight_dtype
                                   : shape.weight_dtype == shape.torch_dtype ? serving
                                                                             : shape.weight_dtype;
  const Result<Dtype> weights = parse_dtype(weights_name, DtypeUse::kWeight, "weight_dtype");
  if (!weights.ok) return R::failure(weights.error);
  r.weight_dtype = weights.value;
  if (in.weights_bytes != 0) {
    r.weights_bytes = in.weights_bytes;
  } else {
    const Result<WeightBytes> w = weight_bytes(
        r.params, r.weight_dtype, parse_dtype(serving, DtypeUse::kWeight, "weight_dtype").value);
    if (!w.ok) return R::failure(w.error);
    r.weights_bytes = w.value.total;
  }

  if (!in.gpu_id.empty()) {
    const Result<GpuEntry> gpu = find_gpu(in.gpu_id);
    if (!gpu.ok) return R::failure(gpu.error);
    r.gpu_id = gpu.value.id;
    r.gpu_name = gpu.value.name;
    r.gpu_memory_bytes = gpu.value.memory_bytes;
  } else if (in.gpu_memory_bytes != 0) {
    r.gpu_memory_bytes = in.gpu_memory_bytes;
    r.gpu_name = format_gb(in.gpu_memory_bytes) + " card";
  } else {
    r.kv_memory_given = true;
    r.kv_pool_bytes = in.kv_memory_bytes;
    r.notes.push_back("KV memory given: the engine's budget arithmetic is bypassed");
  }
  r.max_model_len =
      in.max_model_len != 0 ? in.max_model_len : r.estimate.shape.max_position_embeddings;
  if (r.max_model_len == 0) {
    return R::failure(make_error(kMissingField, "max_model_len",
                                 "required: the config has no max_position_embeddings"));
  }
  return in.engine == "vllm" ? plan_vllm(std::move(r), in) : plan_plain(std::move(r), in);
}

}  // namespace kvscope
