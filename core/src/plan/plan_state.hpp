// What plan() works out besides its report, for the sweeps that reuse it, and the parts of a
// plan computed apart (plan_roofline.cpp).
#pragma once

#include <cstddef>
#include <vector>

#include "kvscope/plan/plan.hpp"
#include "kvscope/kv/roofline.hpp"

namespace kvscope {

struct PlanState {
  PlanReport report;
  std::vector<GpuLoad> loads;  // one GPU of each pipeline stage
  size_t tightest_rank = 0;    // the stage whose pool limits the replica
};

// What plans of one model share, kept across a run of plans (the solver's): per model source
// (its id or config text, with --set applied) the imported model, the checkpoint's tensors and
// bytes, and what one GPU of a stage holds for each way of cutting it (the same on every card).
struct PlanMemo {
  struct Entry {
    std::string key;
    ResolvedModel model;
    std::vector<WeightTensor> tensors;
    bool has_checkpoint = false;
    WeightBytes checkpoint;
    std::vector<std::pair<std::string, GpuLoad>> loads;  // by weights, SSM dtype, tp, rank, pp
  };
  std::vector<Entry> entries;
  // Plans that only ask what the pools hold (the solver's trials) skip the roofline and the
  // launch command; its chosen layouts are planned in full.
  bool capacity_only = false;
};

Result<PlanState> plan_state(const PlanInput& input, PlanMemo* memo = nullptr);

// One decode step of `batch` sequences of `context` tokens, and one prefill of `prompt` tokens,
// through every pipeline stage in turn.
Result<StepEstimate> decode_through_stages(const std::vector<GpuLoad>& loads, const Dtype& kv,
                                           const Dtype& state, const HardwarePeaks& peaks,
                                           uint64_t batch, uint64_t context);
Result<StepEstimate> prefill_through_stages(const std::vector<GpuLoad>& loads, const Dtype& kv,
                                            const Dtype& state, const HardwarePeaks& peaks,
                                            uint64_t prompt);

// Decode and prefill on every stage, one after the other (a pipeline serves one batch through
// all stages), and the batch at which the KV pool rather than bandwidth caps throughput.
Result<PlanRoofline> plan_roofline(const PlanInput& in, const PlanReport& r,
                                   const std::vector<GpuLoad>& loads,
                                   const ModelShape& tightest_shape);

// The weights (plan_weights.cpp): how they are stored (--weight-dtype, else the checkpoint's
// format); a known total split over the replica's GPUs in the computed module proportions; the
// MTP layers speculative decoding loads (true when it loads them); the total when it is known
// rather than computed (0 = compute per tensor), which also sets the report's weights source.
Result<WeightStorage> resolve_weight_storage(const PlanInput& in, const ModelShape& shape);
WeightBytes given_weights(const PlanInput& in, uint64_t total, WeightBytes computed);
Result<bool> resolve_speculative(const PlanInput& in, const ModelShape& shape, PlanReport& r);
Result<uint64_t> known_weights_total(const PlanInput& in, const std::vector<WeightTensor>& tensors,
                                     const WeightBytes& checkpoint, PlanReport& r);

// The batch and context asked for against the pools: sequences of context_tokens, paged as the
// engine pages them, that the tightest stage holds, times the replicas.
Result<TargetFit> plan_target(const PlanInput& in, const PlanReport& r,
                              const ModelShape& tightest_shape);

// Concurrency the tightest stage's pool sustains for the length distributions.
Result<WorkloadCapacity> plan_workload(const PlanInput& in, const PlanReport& r,
                                       const ModelShape& gpu_shape);

}  // namespace kvscope
