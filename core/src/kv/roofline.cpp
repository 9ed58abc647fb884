// Roofline arithmetic. Matmul FLOPs are 2 per weight per token; attention FLOPs are
// 2 x heads x (dk + dv) per attended token (MLA: heads x (2 x kv_lora_rank + rope) absorbed into
// the latent); recurrent layers cost 2 FLOPs per state value per token.
#include "kvscope/kv/roofline.hpp"

#include <algorithm>
#include <cmath>

#include "kvscope/base/elementary_math.hpp"
#include "kvscope/kv/kv_arithmetic.hpp"
#include "kvscope/model/parallelism.hpp"

namespace kvscope {
namespace {

// Attention FLOPs per attended token for one query token in layer `l`.
double attention_flops_per_token(const ModelShape& s, const LayerSpec& l) {
  if (l.attention == AttentionKind::kNone) return 0;
  const double heads = s.num_attention_heads;
  const double width = l.attention == AttentionKind::kMla
                           ? 2.0 * s.mla.kv_lora_rank + s.mla.qk_rope_head_dim
                       : l.attention == AttentionKind::kCompressed
                           ? 2.0 * l.k_head_dim  // the latent is both key and value
                           : static_cast<double>(s.head_dim) + l.v_head_dim;
  return 2.0 * heads * width;
}

// Recurrent state update FLOPs per token.
double state_flops(const LayerSpec& l) { return 2.0 * static_cast<double>(l.state_values); }

// Weight bytes one GPU reads for `tokens` tokens of work: everything it holds but the embedding
// table and the routed experts nobody is sent to (every data-parallel rank's tokens reach experts
// flattened over the ranks: the step runs in lockstep).
double weight_bytes_read(const GpuLoad& g, uint64_t tokens, double* experts_per_layer) {
  const ModelShape& s = g.gpu_shape;
  double read = 0, routed = 0;
  for (const ModuleBytes& m : g.gpu_weights.modules) {
    if (m.module == ModuleClass::kEmbedding) continue;
    (m.module == ModuleClass::kRoutedExperts ? routed : read) += static_cast<double>(m.bytes);
  }
  *experts_per_layer = 0;
  if (s.moe.num_experts != 0 && routed > 0) {
    *experts_per_layer = expected_distinct_experts(s.moe.num_experts, s.moe.experts_per_token,
                                                   tokens * g.expert_token_groups);
    read += routed * *experts_per_layer / s.moe.num_experts;
  }
  return read;
}

// Bytes a step moves: the weights `tokens` tokens route through, and `sequences` caches of
// `length` tokens: what a decode step's query attends to, or what a prefill writes.
Result<StepEstimate> bytes_moved(const GpuLoad& g, const Dtype& kv, const Dtype& state,
                                 uint64_t tokens, uint64_t length, uint64_t sequences,
                                 bool decode) {
  using R = Result<StepEstimate>;
  StepEstimate e;
  e.weight_bytes = weight_bytes_read(g, tokens, &e.experts_read_per_moe_layer);
  double per_sequence = 0;
  if (decode) {
    for (const LayerSpec& l : g.gpu_shape.layers) {
      const Result<uint64_t> per_token = kv_bytes_per_token_per_layer(l, kv);
      if (!per_token.ok) return R::failure(per_token.error);
      per_sequence +=
          static_cast<double>(per_token.value) * static_cast<double>(attended_tokens(l, length));
      if (l.attention == AttentionKind::kCompressed && l.compress_ratio != 0) {
        // the indexer scores every compressed entry's key to pick its top-k
        per_sequence += static_cast<double>(indexer_bytes_per_token(l)) *
                        static_cast<double>(length / l.compress_ratio);
      }
    }
  } else {
    const Result<KvEstimate> cache = kv_totals(g.gpu_shape, kv, state, KvWorkload{length, 1, 0, 0});
    if (!cache.ok) return R::failure(cache.error);
    per_sequence = static_cast<double>(cache.value.kv_bytes_per_sequence);
  }
  e.kv_bytes = static_cast<double>(sequences) * per_sequence;
  return R::success(e);
}

// A peak is 0 (unknown: no time from it) or a finite rate of at least 1 per second; a tiny,
// infinite or NaN one would make a step time infinite or NaN.
Result<StepEstimate> check_peaks(const HardwarePeaks& peaks) {
  auto usable = [](double v) { return v == 0 || (v >= 1 && std::isfinite(v)); };
  if (!usable(peaks.bandwidth_bytes_per_s)) {
    return Result<StepEstimate>::failure(
        make_error(kOutOfRange, "gpu_bandwidth_bytes_per_s",
                   "must be 0 (unknown) or a finite rate of at least 1 byte/s"));
  }
  if (!usable(peaks.flops)) {
    return Result<StepEstimate>::failure(
        make_error(kOutOfRange, "gpu_dense_tflops",
                   "must be 0 (unknown) or a finite rate of at least 1 FLOP/s"));
  }
  return Result<StepEstimate>::success({});
}

StepEstimate finish(StepEstimate e, const HardwarePeaks& peaks) {
  e.memory_time_s = peaks.bandwidth_bytes_per_s > 0
                        ? (e.weight_bytes + e.kv_bytes) / peaks.bandwidth_bytes_per_s
                        : 0;
  e.compute_time_s = peaks.flops > 0 ? e.flops / peaks.flops : 0;
  e.time_s = std::max(e.memory_time_s, e.compute_time_s);
  e.bound = e.compute_time_s > e.memory_time_s ? "compute" : "memory";
  return e;
}

}  // namespace

Result<GpuLoad> gpu_load(const ModelShape& shape, const std::vector<WeightTensor>& tensors,
                         const WeightStorage& storage, uint32_t tp, uint32_t rank,
                         const PipelineStages& stages, bool with_draft, ModuleSharding sharding) {
  using R = Result<GpuLoad>;
  Result<ModelShape> gpu_shape = shard_shape(shape, tp, rank, stages);
  if (!gpu_shape.ok) return R::failure(gpu_shape.error);
  if (with_draft && rank + 1 == stages.count && !shape.draft_layers.empty()) {
    ModelShape draft = shape;
    draft.layers = shape.draft_layers;
    const Result<ModelShape> sharded = shard_shape(draft, tp, 0, 1);
    if (!sharded.ok) return R::failure(sharded.error);
    gpu_shape.value.layers.insert(gpu_shape.value.layers.end(), sharded.value.layers.begin(),
                                  sharded.value.layers.end());
  }
  const std::vector<WeightTensor> held =
      stage_tensors(tensors, shape.layers.size(), rank, stages, with_draft);
  const Result<ParameterCount> params =
      count_parameters(held, shape.moe.num_experts, shape.moe.experts_per_token);
  if (!params.ok) return R::failure(params.error);
  const Result<WeightBytes> bytes = weight_bytes(held, storage, tp, sharding);
  if (!bytes.ok) return R::failure(bytes.error);
  const uint32_t groups = sharding.ranks > tp ? sharding.ranks / tp : 1;
  return R::success(GpuLoad{std::move(gpu_shape.value), params.value, bytes.value, tp, groups});
}

double expected_distinct_experts(uint32_t experts, uint32_t top_k, uint64_t tokens) {
  if (experts == 0) return 0;
  const double miss = 1.0 - static_cast<double>(top_k) / experts;
  return experts * (1.0 - power_uint(miss, tokens));
}

Result<StepEstimate> decode_step(const GpuLoad& g, const Dtype& kv, const Dtype& state,
                                 const HardwarePeaks& peaks, uint64_t batch, uint64_t context) {
  using R = Result<StepEstimate>;
  if (batch == 0)
    return R::failure(make_error(kInvalidValue, "batch", "must be at least 1 sequence"));
  if (const R checked = check_peaks(peaks); !checked.ok) return checked;
  Result<StepEstimate> e = bytes_moved(g, kv, state, batch, context, batch, true);
  if (!e.ok) return e;
  double per_token = 2.0 * static_cast<double>(g.stage_params.active_per_token) / g.tensor_parallel;
  for (const LayerSpec& l : g.gpu_shape.layers) {
    per_token += attention_flops_per_token(g.gpu_shape, l) *
                     static_cast<double>(attended_tokens(l, context)) +
                 state_flops(l);
  }
  e.value.flops = per_token * static_cast<double>(batch);
  return R::success(finish(e.value, peaks));
}

Result<StepEstimate> prefill(const GpuLoad& g, const Dtype& kv, const Dtype& state,
                             const HardwarePeaks& peaks, uint64_t prompt) {
  using R = Result<StepEstimate>;
  if (prompt == 0)
    return R::failure(make_error(kInvalidValue, "prompt_tokens", "must be at least 1 token"));
  if (const R checked = check_peaks(peaks); !checked.ok) return checked;
  Result<StepEstimate> moved = bytes_moved(g, kv, state, prompt, prompt, 1, false);
  if (!moved.ok) return moved;
  StepEstimate& e = moved.value;
  const double n = static_cast<double>(prompt);
  e.flops = 2.0 * static_cast<double>(g.stage_params.active_per_token) / g.tensor_parallel * n;
  for (const LayerSpec& l : g.gpu_shape.layers) {
    e.flops += attention_flops_per_token(g.gpu_shape, l) * attended_tokens_through(l, prompt) +
               state_flops(l) * n;
  }
  return R::success(finish(e, peaks));
}

}  // namespace kvscope
