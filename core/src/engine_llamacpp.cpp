// llama.cpp on one GPU: K and V tensors per layer sized by the context, not by a memory budget
// (src/llama-kv-cache.cpp llama_kv_cache constructor, src/llama-kv-cache-iswa.cpp,
// src/llama-context.cpp n_ctx padding; shared/docs/engine-formulas.md §3).
#include <algorithm>
#include <cstdio>

#include "engine_profiles.hpp"
#include "kvscope/units.hpp"

namespace kvscope::engines {
namespace {

constexpr uint64_t kContextPad = 256;  // llama-context.cpp: n_ctx = GGML_PAD(n_ctx, 256)

// `n` rounded up to a multiple of `to`; overflowed when that passes 2^64-1.
CheckedU64 pad(uint64_t n, uint64_t to) { return CheckedU64(ceil_div(n, to)) * to; }

// Cells of one stream for `n_ctx` requested: unified, one stream of PAD(n_ctx, 256); otherwise a
// stream per sequence of PAD(PAD(n_ctx, 256) / n_seq, 256), never past the first.
CheckedU64 stream_cells(uint64_t n_ctx, const PlanInput& in) {
  const CheckedU64 ctx = pad(n_ctx, kContextPad);
  if (in.kv_unified || ctx.overflowed()) return ctx;
  return pad(ctx.value() / in.parallel, kContextPad);
}

Result<uint64_t> too_large(const char* field, const char* what) {
  return Result<uint64_t>::failure(
      make_error(kOutOfRange, field, std::string(what) + " exceed 2^64-1"));
}

// K + V buffer bytes for `n_ctx` requested context cells.
Result<uint64_t> buffer_bytes(const ModelShape& shape, const Dtype& k, const Dtype& v,
                              const Dtype& state, uint64_t n_ctx, const PlanInput& in) {
  const uint64_t n_seq = in.parallel;
  const CheckedU64 stream = stream_cells(n_ctx, in);
  if (stream.overflowed()) return too_large("context", "context cells");
  const uint64_t cells = stream.value();
  const uint64_t streams = in.kv_unified ? 1 : n_seq;
  CheckedU64 total;
  for (const LayerSpec& l : shape.layers) {
    const Result<uint64_t> per_cell = kv_bytes_per_token_per_layer(l, k, v);
    if (!per_cell.ok) return per_cell;
    uint64_t layer_cells = cells;
    if (l.windowed()) {  // iSWA: min(size_base, n_swa x (unified ? n_seq : 1) + n_ubatch)
      const CheckedU64 swa_cells =
          CheckedU64(l.window_tokens) * (in.kv_unified ? n_seq : 1) + in.ubatch;
      if (!swa_cells.overflowed()) layer_cells = std::min(cells, swa_cells.value());
    }
    total += CheckedU64(per_cell.value) * layer_cells * streams;
    // llama_memory_recurrent: one R and S state per sequence, stored in f32.
    total += CheckedU64(l.state_values) * (state.block_bits / 8) * n_seq;
  }
  if (total.overflowed()) return too_large("context", "KV buffer bytes");
  return Result<uint64_t>::success(total.value());
}

}  // namespace

Result<PlanReport> plan_llamacpp(PlanReport r, const ModelShape& shape, const PlanInput& in) {
  using R = Result<PlanReport>;
  if (shape.mla.kv_lora_rank != 0) {
    return R::failure(
        make_error(kUnsupported, "engine", "llama.cpp: MLA caches are not modelled yet"));
  }
  if (in.parallel == 0)
    return R::failure(make_error(kInvalidValue, "parallel", "must be at least 1"));
  const Result<Dtype> v = in.v_dtype.empty() ? Result<Dtype>::success(r.estimate.kv_dtype)
                                             : parse_dtype(in.v_dtype, DtypeUse::kKv, "v_dtype");
  if (!v.ok) return R::failure(v.error);
  const Dtype f32 = parse_dtype("fp32", DtypeUse::kKv, "state_dtype").value;
  const uint64_t n_ctx = in.model.context_tokens != 0 ? in.model.context_tokens : r.max_model_len;
  const Result<uint64_t> buffers =
      buffer_bytes(shape, r.estimate.kv_dtype, v.value, f32, n_ctx, in);
  if (!buffers.ok) return R::failure(buffers.error);
  r.max_model_len = stream_cells(n_ctx, in).value();  // buffer_bytes checked it fits
  const CheckedU64 pool_tokens = CheckedU64(r.max_model_len) * (in.kv_unified ? 1 : in.parallel);
  if (pool_tokens.overflowed()) return R::failure(too_large("parallel", "KV cells").error);
  // What it allocates is the pool; a sequence may use up to n_ctx_seq cells of it.
  r.kv_pool_bytes = buffers.value;
  r.kv_bytes_needed = buffers.value;
  r.kv_pool_tokens = pool_tokens.value();
  r.max_concurrency = static_cast<double>(in.parallel);
  r.block_size_tokens = 0;
  if (!r.kv_memory_given) {
    r.requested_bytes = r.gpu_memory_bytes;
    const CheckedU64 loaded = CheckedU64(r.weights_bytes) + in.overhead_bytes;
    const uint64_t free = left_after(r.gpu_memory_bytes, loaded);
    // Weights past the card do not load, even for a model without a KV cache.
    r.starts =
        !loaded.overflowed() && loaded.value() <= r.gpu_memory_bytes && buffers.value <= free;
    auto fits = [&](uint64_t ctx) {
      const Result<uint64_t> b = buffer_bytes(shape, r.estimate.kv_dtype, v.value, f32, ctx, in);
      return b.ok && b.value <= free;
    };
    r.max_context = largest_fitting(kContextPad, kMaxSearchTokens, fits);
    r.max_model_len_that_fits = r.max_context / kContextPad * kContextPad;
    if (!r.starts) {
      r.startup_error =
          "the K and V buffers (" + format_gib(buffers.value) +
          ") do not fit beside the weights (" + format_gib(r.weights_bytes) + ") on " +
          format_gib(r.gpu_memory_bytes) +
          ": llama.cpp fails to allocate them (or offloads layers to the CPU with --n-gpu-layers)";
    }
  } else {
    r.starts = buffers.value <= r.kv_pool_bytes;
  }
  r.notes.push_back(
      "llama.cpp: n_ctx padded to 256 cells, " +
      std::string(in.kv_unified ? "one unified cache for " : "one stream per sequence for ") +
      std::to_string(in.parallel) + " sequences; compute buffers not included");
  return R::success(std::move(r));
}

}  // namespace kvscope::engines
