// Sweeps reuse one plan: the engine's pool and each stage's load stay fixed while one input moves.
#include "kvscope/plan/sweeps.hpp"

#include <algorithm>
#include <cmath>

#include "kvscope/base/elementary_math.hpp"
#include "kvscope/kv/kv_arithmetic.hpp"
#include "kvscope/kv/roofline.hpp"
#include "plan/plan_state.hpp"

namespace kvscope {

Sweeps::Sweeps() = default;

namespace {

// `count` values from lo to hi, evenly spaced in log scale, rounded and deduplicated.
std::vector<uint64_t> log_space(uint64_t lo, uint64_t hi, uint32_t count) {
  std::vector<uint64_t> out;
  if (lo == 0 || hi < lo || count == 0) return out;
  const double low = static_cast<double>(lo);
  const double step = count > 1 ? natural_log(static_cast<double>(hi) / low) / (count - 1) : 0;
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t v =
        i + 1 == count ? hi : static_cast<uint64_t>(std::llround(low * natural_exp(step * i)));
    if (out.empty() || v > out.back()) out.push_back(v);
  }
  return out;
}

}  // namespace

Result<Sweeps> sweep(const PlanInput& in, const SweepRange& range) {
  using R = Result<Sweeps>;
  if (range.points < 2 || range.points > 100000) {
    return R::failure(make_error(kInvalidValue, "sweep.points", "must be between 2 and 100000"));
  }
  Result<PlanState> state = plan_state(in);
  if (!state.ok) return R::failure(state.error);
  Sweeps out;
  out.plan = std::move(state.value.report);
  const PlanReport& p = out.plan;
  const GpuLoad& tightest = state.value.loads[state.value.tightest_rank];
  const uint64_t max_context = range.max_context != 0 ? range.max_context : p.max_model_len;
  const std::vector<uint64_t> contexts =
      log_space(std::min(range.min_context, max_context), max_context, range.points);

  for (const std::string& name : range.kv_dtypes) {
    const Result<Dtype> dtype = parse_dtype(name, DtypeUse::kKv, "kv_dtype");
    if (!dtype.ok) return R::failure(dtype.error);
    const Result<KvLayout> layout =
        kv_layout(p.estimate.shape, dtype.value, p.estimate.state_dtype);
    if (!layout.ok) return R::failure(layout.error);
    Series series{dtype.value.name, {}};
    series.points.reserve(contexts.size());
    for (const uint64_t context : contexts) {
      const Result<KvEstimate> kv = kv_totals(layout.value, KvWorkload{context, 1, 0, 0}, false);
      if (!kv.ok) return R::failure(kv.error);
      series.points.emplace_back(static_cast<double>(context),
                                 static_cast<double>(kv.value.kv_bytes_per_sequence));
    }
    out.kv_bytes_vs_context.push_back(std::move(series));
  }

  // Sequences of each context the tightest GPU's pool holds, paged as the engine pages.
  out.concurrency_vs_context.name = "concurrency";
  out.concurrency_vs_context.points.reserve(contexts.size());
  const Result<KvLayout> pool_layout =
      kv_layout(tightest.gpu_shape, p.estimate.kv_dtype, p.estimate.state_dtype);
  if (!pool_layout.ok) return R::failure(pool_layout.error);
  for (const uint64_t context : contexts) {
    const Result<KvEstimate> kv =
        kv_totals(pool_layout.value, KvWorkload{context, 1, p.block_size_tokens, 0}, false);
    if (!kv.ok) return R::failure(kv.error);
    const double per_sequence = static_cast<double>(kv.value.kv_bytes_total);
    out.concurrency_vs_context.points.emplace_back(
        static_cast<double>(context),
        per_sequence > 0 ? std::floor(static_cast<double>(p.kv_pool_bytes) / per_sequence) : 0);
  }

  out.kv_capped_batch = p.roofline.kv_capped_batch;
  if (p.roofline.available) {
    const uint64_t max_batch = range.max_batch != 0
                                   ? range.max_batch
                                   : std::max<uint64_t>(64, 2 * p.roofline.kv_capped_batch);
    out.step_time_vs_batch.name = "step_time_s";
    out.throughput_vs_batch.name = "tokens_per_s";
    for (const uint64_t batch : log_space(1, max_batch, range.points)) {
      const uint64_t running =
          p.roofline.kv_capped_batch > 0 ? std::min(batch, p.roofline.kv_capped_batch) : batch;
      double time_s = 0;
      for (const GpuLoad& load : state.value.loads) {
        const Result<StepEstimate> step =
            decode_step(load, p.estimate.kv_dtype, p.estimate.state_dtype, p.roofline.peaks,
                        running, p.roofline.context_tokens);
        if (!step.ok) return R::failure(step.error);
        time_s += step.value.time_s;
      }
      out.step_time_vs_batch.points.emplace_back(static_cast<double>(batch), time_s);
      out.throughput_vs_batch.points.emplace_back(
          static_cast<double>(batch), time_s > 0 ? static_cast<double>(running) / time_s : 0);
    }
  }

  const uint64_t reserve = p.kv_memory_given ? 0 : p.activation_bytes + p.non_torch_bytes;
  const uint64_t held_back = p.kv_memory_given || p.requested_bytes > p.gpu_memory_bytes
                                 ? 0
                                 : p.gpu_memory_bytes - p.requested_bytes;
  const uint64_t states = p.state_pool.bytes;  // SGLang hybrids: allocated beside the KV pool
  const uint64_t graphs = p.kv_memory_given ? 0 : p.cudagraph_bytes;  // vLLM from 0.20
  const uint64_t used = p.weights_bytes + p.kv_pool_bytes + states + reserve + graphs + held_back;
  // The parts in the order the page stacks them; a state pool and CUDA graphs only where present.
  const auto add = [&out](const char* part, uint64_t bytes, bool present = true) {
    if (present) out.memory_breakdown.emplace_back(part, bytes);
  };
  add("weights", p.weights_bytes);
  add("kv_pool", p.kv_pool_bytes);
  add("state_pool", states, states != 0);
  add("engine_reserve", reserve);
  add("cuda_graphs", graphs, graphs != 0);
  add("not_given_to_the_engine", held_back);
  add("free", p.gpu_memory_bytes > used ? p.gpu_memory_bytes - used : 0, !p.kv_memory_given);
  return R::success(std::move(out));
}

}  // namespace kvscope
