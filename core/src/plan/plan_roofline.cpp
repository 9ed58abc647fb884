// What a plan estimates beyond capacity: decode and prefill rooflines summed over the pipeline's
// stages, and the concurrency a workload's length distributions sustain in the tightest pool.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kvscope/model/catalog.hpp"
#include "base/checked_math.hpp"
#include "kvscope/base/units.hpp"
#include "kvscope/kv/workload.hpp"
#include "plan/plan_state.hpp"

namespace kvscope {
namespace {

// A step through every stage in turn: a pipeline serves one batch through all of them.
template <typename Step>
Result<StepEstimate> sum_stages(const std::vector<GpuLoad>& loads, Step&& step) {
  StepEstimate total;
  for (const GpuLoad& load : loads) {
    const Result<StepEstimate> s = step(load);
    if (!s.ok) return s;
    total.weight_bytes += s.value.weight_bytes;
    total.kv_bytes += s.value.kv_bytes;
    total.flops += s.value.flops;
    total.memory_time_s += s.value.memory_time_s;
    total.compute_time_s += s.value.compute_time_s;
    total.time_s += s.value.time_s;
    total.experts_read_per_moe_layer = s.value.experts_read_per_moe_layer;
  }
  total.bound = total.compute_time_s > total.memory_time_s ? "compute" : "memory";
  return Result<StepEstimate>::success(total);
}

// The decode step with its KV bytes read at the nearest published kernel's efficiency.
CalibratedDecode calibrate_decode(const std::string& gpu_id, const PlanRoofline& r,
                                  const Dtype& kv) {
  CalibratedDecode out;
  if (gpu_id.empty()) {  // no lookup: an unknown id would build suggestions on every plan
    out.reason = "a custom GPU has no published decode-attention measurement";
    return out;
  }
  const Result<GpuEntry> gpu = find_gpu(gpu_id);  // the plan found it already: ok
  const DecodeEfficiencyAnchor* anchor =
      gpu.ok ? nearest_decode_anchor(gpu.value, kv, r.batch, r.context_tokens) : nullptr;
  if (anchor == nullptr) {
    out.reason = "no published decode-attention measurement on a " + gpu.value.device_class +
                 " GPU in the catalogue";
    return out;
  }
  const double bandwidth = r.peaks.bandwidth_bytes_per_s;
  out.available = true;
  out.anchor = *anchor;
  out.memory_time_s =
      r.decode.weight_bytes / bandwidth + r.decode.kv_bytes / (bandwidth * anchor->efficiency());
  out.time_s = std::max(out.memory_time_s, r.decode.compute_time_s);
  return out;
}

}  // namespace

Result<StepEstimate> decode_through_stages(const std::vector<GpuLoad>& loads, const Dtype& kv,
                                           const Dtype& state, const HardwarePeaks& peaks,
                                           uint64_t batch, uint64_t context) {
  return sum_stages(loads, [&](const GpuLoad& l) {
    return decode_step(l, kv, state, peaks, batch, context);
  });
}

Result<StepEstimate> prefill_through_stages(const std::vector<GpuLoad>& loads, const Dtype& kv,
                                            const Dtype& state, const HardwarePeaks& peaks,
                                            uint64_t prompt) {
  return sum_stages(loads,
                    [&](const GpuLoad& l) { return prefill(l, kv, state, peaks, prompt); });
}

Result<PlanRoofline> plan_roofline(const PlanInput& in, const PlanReport& r,
                                   const std::vector<GpuLoad>& loads,
                                   const ModelShape& tightest_shape) {
  using RR = Result<PlanRoofline>;
  PlanRoofline out;
  if (!r.gpu_id.empty()) {
    const GpuEntry gpu = find_gpu(r.gpu_id).value;
    const bool fp8 = r.weights.fp8_compute && gpu.fp8_dense_flops > 0;
    // A card without bf16 runs a bf16 checkpoint in fp16 (vLLM's _resolve_auto_dtype falls back,
    // vllm/config/model.py), at its fp16 tensor peak.
    const bool fp16 = !fp8 && gpu.bf16_dense_flops == 0 && gpu.fp16_dense_flops > 0;
    out.peaks = HardwarePeaks{static_cast<double>(gpu.bandwidth_bytes_per_s),
                              fp8    ? gpu.fp8_dense_flops
                              : fp16 ? gpu.fp16_dense_flops
                                     : gpu.bf16_dense_flops,
                              fp8    ? "fp8"
                              : fp16 ? "fp16"
                                     : "bf16"};
  }
  if (in.gpu_bandwidth_bytes_per_s > 0)
    out.peaks.bandwidth_bytes_per_s = in.gpu_bandwidth_bytes_per_s;
  if (in.gpu_dense_flops > 0)
    out.peaks = {out.peaks.bandwidth_bytes_per_s, in.gpu_dense_flops, "given"};
  if (out.peaks.bandwidth_bytes_per_s <= 0) {
    out.reason = "needs a catalogue GPU (--gpu) or a bandwidth (--gpu-bandwidth)";
    return RR::success(out);
  }
  if (out.peaks.flops == 0)
    out.reason =
        "no dense peak for this GPU (catalogue or --gpu-tflops): compute time not estimated";
  // Each data-parallel replica decodes its share of the batch.
  out.batch = ceil_div(in.model.batch, r.data_parallel);
  out.replicas = r.data_parallel;
  out.context_tokens = r.estimate.workload.context_tokens;
  out.prompt_tokens = in.model.prompt_tokens != 0 ? in.model.prompt_tokens : out.context_tokens;
  // Paged as the pool holds them: the batch it caps is the whole of sequences_that_fit per replica.
  const Result<KvEstimate> per_sequence =
      kv_totals(tightest_shape, r.estimate.kv_dtype, r.estimate.state_dtype,
                KvWorkload{out.context_tokens, 1, r.block_size_tokens, 0});
  if (!per_sequence.ok) return RR::failure(per_sequence.error);
  out.kv_capped_batch = per_sequence.value.kv_bytes_per_sequence == 0
                            ? 0
                            : r.kv_pool_bytes / per_sequence.value.kv_bytes_per_sequence;
  const Dtype& kv = r.estimate.kv_dtype;
  const Dtype& state = r.estimate.state_dtype;
  const Result<StepEstimate> decode =
      decode_through_stages(loads, kv, state, out.peaks, out.batch, out.context_tokens);
  if (!decode.ok) return RR::failure(decode.error);
  out.decode = decode.value;
  const Result<StepEstimate> first =
      prefill_through_stages(loads, kv, state, out.peaks, out.prompt_tokens);
  if (!first.ok) return RR::failure(first.error);
  out.prefill = first.value;
  if (out.kv_capped_batch > 0) {
    const Result<StepEstimate> capped = decode_through_stages(
        loads, kv, state, out.peaks, out.kv_capped_batch, out.context_tokens);
    if (!capped.ok) return RR::failure(capped.error);
    out.decode_at_kv_cap = capped.value;
  }
  out.calibrated = calibrate_decode(r.gpu_id, out, kv);
  out.available = true;
  return RR::success(out);
}

Result<TargetFit> plan_target(const PlanInput& in, const PlanReport& r,
                              const ModelShape& tightest_shape) {
  TargetFit out;
  out.present = true;
  out.sequences = in.require_concurrency != 0 ? in.require_concurrency : in.model.batch;
  out.context_tokens = r.estimate.workload.context_tokens;
  const Result<KvEstimate> one =
      kv_totals(tightest_shape, r.estimate.kv_dtype, r.estimate.state_dtype,
                KvWorkload{out.context_tokens, 1, r.block_size_tokens, 0});
  if (!one.ok) return Result<TargetFit>::failure(one.error);
  const double per_sequence = static_cast<double>(one.value.kv_bytes_total);
  out.sequences_that_fit_per_replica =
      per_sequence > 0 ? static_cast<double>(r.kv_pool_bytes) / per_sequence : 0;
  out.sequences_that_fit =
      out.sequences_that_fit_per_replica * static_cast<double>(r.data_parallel);
  if (!r.starts) {
    out.reason = "the engine does not start";
  } else if (out.context_tokens > r.max_model_len) {
    out.reason = "a sequence of " + with_commas(out.context_tokens) +
                 " tokens is past max_model_len " + with_commas(r.max_model_len);
  } else if (out.sequences_that_fit < static_cast<double>(out.sequences)) {
    char fit[32];
    std::snprintf(fit, sizeof fit, "%.1f",
                  std::floor(out.sequences_that_fit * 10) / 10);  // never 20.0 of 20
    out.reason = "fits " + std::string(fit) + " of " + with_commas(out.sequences) +
                 " sequences at " + with_commas(out.context_tokens) + " tokens";
  } else if (const CheckedU64 running = CheckedU64(r.max_running_requests) * r.data_parallel;
             r.max_running_requests != 0 && !running.overflowed() &&
             out.sequences > running.value()) {
    out.reason = "the pools hold them, but the engine runs at most " +
                 with_commas(r.max_running_requests) + " requests at once per replica " +
                 "(max_running_requests)";
  }
  out.met = out.reason.empty();
  return Result<TargetFit>::success(out);
}

Result<WorkloadCapacity> plan_workload(const PlanInput& in, const PlanReport& r,
                                       const ModelShape& gpu_shape) {
  using RW = Result<WorkloadCapacity>;
  if (in.prompt_lengths.empty() || in.output_lengths.empty()) {
    return RW::failure(make_error(kMissingField,
                                  in.prompt_lengths.empty() ? "prompt_lengths" : "output_lengths",
                                  "give both prompt and output length distributions"));
  }
  const Result<LengthDistribution> prompt =
      parse_length_distribution(in.prompt_lengths, "prompt_lengths");
  if (!prompt.ok) return RW::failure(prompt.error);
  const Result<LengthDistribution> output =
      parse_length_distribution(in.output_lengths, "output_lengths");
  if (!output.ok) return RW::failure(output.error);
  const WorkloadInput w{prompt.value, output.value, in.model.shared_prefix_tokens, r.max_model_len,
                        r.block_size_tokens};
  return workload_capacity(gpu_shape, r.estimate.kv_dtype, r.estimate.state_dtype, r.kv_pool_bytes,
                           w);
}

}  // namespace kvscope
