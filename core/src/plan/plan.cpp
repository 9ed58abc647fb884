// `kvscope plan`: resolves the model, weights, card and parallelism, runs the engine profile on
// each pipeline stage's GPU (engine_*.cpp) and combines the stages.
#include "kvscope/plan/plan.hpp"

#include <algorithm>
#include <optional>

#include "engines/engine_profiles.hpp"
#include "engines/engine_table.hpp"
#include "kvscope/base/units.hpp"
#include "kvscope/engines/context_limit.hpp"
#include "kvscope/kv/roofline.hpp"
#include "kvscope/model/parallelism.hpp"
#include "plan/card_formats.hpp"
#include "plan/plan_inputs.hpp"
#include "plan/plan_state.hpp"

namespace kvscope {

namespace {

using R = Result<PlanReport>;

// The model input's import and tensors, from the memo when a plan of the same model made them.
Result<PlanMemo::Entry*> remembered(const EstimateInput& model, PlanMemo& memo) {
  using RE = Result<PlanMemo::Entry*>;
  const std::string key = model.model_id + '\n' + model.config_json;
  for (PlanMemo::Entry& e : memo.entries)
    if (e.key == key) return RE::success(&e);
  Result<ResolvedModel> resolved = resolve_model(model);
  if (!resolved.ok) return RE::failure(resolved.error);
  Result<std::vector<WeightTensor>> tensors = weight_tensors(resolved.value.imported.shape);
  if (!tensors.ok) return RE::failure(tensors.error);
  memo.entries.push_back(
      PlanMemo::Entry{key, std::move(resolved.value), std::move(tensors.value), false, {}, {}});
  return RE::success(&memo.entries.back());
}

// One GPU of stage `rank`, from the memo when a plan cut the model the same way.
Result<GpuLoad> remembered_load(PlanMemo::Entry& known, const PlanInput& in,
                                const ModelShape& shape, const WeightStorage& weights,
                                uint32_t rank, const PipelineStages& stages, bool with_draft,
                                ModuleSharding sharding) {
  std::string cut = in.weight_dtype + '|' + shape.ssm_state_dtype + '|' +
                    std::to_string(in.tensor_parallel) + '|' + std::to_string(rank) + '|' +
                    std::to_string(stages.count) + (with_draft ? "|draft" : "") + '|' +
                    std::to_string(sharding.ranks) + (sharding.whole ? "w" : "") + '|' +
                    std::to_string(sharding.dense_ranks) +
                    (sharding.replicated_embedding ? "e" : "");
  for (uint32_t layers : stages.partition) cut += ',' + std::to_string(layers);
  for (const auto& [key, load] : known.loads)
    if (key == cut) return Result<GpuLoad>::success(load);
  Result<GpuLoad> load = gpu_load(shape, known.tensors, weights, in.tensor_parallel, rank, stages,
                                  with_draft, sharding);
  if (load.ok) known.loads.emplace_back(cut, load.value);
  return load;
}

// What plan_state settles about the model before the engine runs on each stage.
struct PlanModel {
  PlanMemo::Entry* known = nullptr;  // its import, tensors and checkpoint bytes
  bool options_changed = false;      // the engine's options changed the shape
  bool with_draft = false;           // MTP layers load, and keep caches
  uint64_t known_total = 0;          // the weights' total when given, else 0: the computed bytes
  ModelShape kv_shape;               // the layers that keep caches (settle_context)
};

// The model with its what-ifs, its estimate and parameters, its weights as stored and as served,
// and speculative decoding's draft layers, into `r` and `m`. (The steps fill what they settle in
// place and return only an error: a Result of a report is long code in the page's module.)
Result<bool> resolve_plan_model(const EngineProfile& engine, const PlanInput& in, PlanMemo& memo,
                                PlanReport& r, PlanModel& m) {
  using RM = Result<bool>;
  Result<EstimateInput> model = model_with_overrides(in);
  if (!model.ok) return RM::failure(model.error);
  if (model.value.context_tokens == 0) model.value.context_tokens = in.max_model_len;
  const Result<PlanMemo::Entry*> known_model = remembered(model.value, memo);
  if (!known_model.ok) return RM::failure(known_model.error);
  Result<EstimateReport> estimated = estimate(model.value, known_model.value->model);
  if (!estimated.ok) return RM::failure(estimated.error);
  r.estimate = std::move(estimated.value);
  m.known = known_model.value;
  m.options_changed = engine.shape_options != nullptr && engine.shape_options(r.estimate.shape, in);
  const ModelShape& shape = r.estimate.shape;
  const std::vector<WeightTensor>& tensors = m.known->tensors;
  const Result<ParameterCount> params =
      count_parameters(tensors, shape.moe.num_experts, shape.moe.experts_per_token);
  if (!params.ok) return RM::failure(params.error);
  r.params = params.value;
  const Result<WeightStorage> storage = resolve_weight_storage(in, shape);
  if (!storage.ok) return RM::failure(storage.error);
  r.weights = storage.value;
  if (!m.known->has_checkpoint) {
    const Result<WeightBytes> stored = weight_bytes(tensors, shape.weights);
    if (!stored.ok) return RM::failure(stored.error);
    m.known->checkpoint = stored.value;
    m.known->has_checkpoint = true;
  }
  r.checkpoint_weights_bytes = m.known->checkpoint.total;
  if (const Result<bool> spec = resolve_speculative(in, shape, r); !spec.ok)
    return RM::failure(spec.error);
  m.with_draft = r.draft_layers_loaded != 0;
  const Result<uint64_t> known = known_weights_total(in, tensors, m.known->checkpoint, r);
  if (!known.ok) return RM::failure(known.error);
  m.known_total = known.value;
  return RM::success(true);
}

// The card: a catalogue GPU, a card's memory, or a KV budget given outright.
Result<bool> resolve_card(const PlanInput& in, PlanReport& r) {
  if (!in.gpu_id.empty()) {
    const Result<GpuEntry> gpu = find_gpu(in.gpu_id);
    if (!gpu.ok) return Result<bool>::failure(gpu.error);
    r.gpu_id = gpu.value.id;
    r.gpu_name = gpu.value.name;
    r.gpu_memory_bytes = gpu.value.memory_bytes;
  } else if (in.gpu_memory_bytes != 0) {
    r.gpu_memory_bytes = in.gpu_memory_bytes;
    r.gpu_name = format_gb_trimmed(in.gpu_memory_bytes) + " card";
  } else {
    r.kv_memory_given = true;
    r.kv_pool_bytes = in.kv_memory_bytes;
    r.notes.push_back("KV memory given (per GPU): the engine's budget arithmetic is bypassed");
  }
  // Memory others hold cannot be the whole card: nothing would be left to plan.
  if (!r.kv_memory_given && in.overhead_bytes >= r.gpu_memory_bytes) {
    return Result<bool>::failure(make_error(
        kOutOfRange, "overhead_bytes",
        std::to_string(in.overhead_bytes) + " bytes used by others leave nothing of the card's " +
            std::to_string(r.gpu_memory_bytes)));
  }
  return Result<bool>::success(true);
}

// The engine's context limit and max_model_len, its block, the layers that keep caches
// (m.kv_shape), and the workload's KV paged in the block.
Result<bool> settle_context(const EngineProfile& engine, const PlanInput& in, PlanModel& m,
                            PlanReport& r) {
  const ModelShape& shape = r.estimate.shape;
  const bool compressed =
      !shape.layers.empty() && shape.layers[0].attention == AttentionKind::kCompressed;
  const bool index_keys =
      std::any_of(shape.layers.begin(), shape.layers.end(), [](const LayerSpec& l) {
        return l.indexer_key == IndexKey::kBf16 && l.indexer_head_dim != 0;
      });
  if (!engine.sparse_caches && (compressed || index_keys)) {
    return Result<bool>::failure(
        make_error(kUnsupported, "engine",
                   std::string(engine.info.label) + ": " +
                       (compressed ? "DeepSeek-V4's compressed caches are"
                                   : "MiniMax-M3's index-key cache is") +
                       " not modelled for this engine yet (vLLM, SGLang and plain are)"));
  }
  if (const Result<bool> runs = card_runs(engine, shape, r); !runs.ok) return runs;
  // The engine's own limit: vLLM and SGLang derive one from the config and refuse longer.
  r.context_limit = engine.context_limit(shape);
  r.max_model_len = in.max_model_len != 0 ? in.max_model_len
                                          : engine.default_max_model_len(r.context_limit, shape);
  if (in.max_model_len == 0 && !r.context_limit.explanation.empty() &&
      engine.context_policy == ContextPolicy::kRefuse) {
    r.notes.push_back("max_model_len " + std::to_string(r.max_model_len) + ": " +
                      r.context_limit.explanation);
  }
  if (r.max_model_len == 0) {
    return Result<bool>::failure(make_error(kMissingField, "max_model_len",
                                            "required: the config has no max_position_embeddings"));
  }
  // Paging: the block given, else the engine's default.
  r.block_size_tokens = in.block_size_tokens;
  if (engine.default_block_size != nullptr && in.block_size_tokens == 0) {
    std::string note;
    r.block_size_tokens = engine.default_block_size(shape, note);
    if (!note.empty()) r.notes.push_back(note);
  }
  // The layers that keep caches: the decoder's, and the MTP layers when they draft tokens.
  const bool context_follows = in.model.context_tokens == 0 && in.max_model_len == 0 &&
                               r.estimate.workload.context_tokens != r.max_model_len;
  if (context_follows) r.estimate.workload.context_tokens = r.max_model_len;
  const bool ssm_changed = engine_ssm_state_dtype(engine, in, r);
  const bool kv_changed = engine_sparse_mla_layout(engine, in, r);
  m.kv_shape = shape;  // as the engine's state dtype and layout left it
  if (m.with_draft) {
    m.kv_shape.layers.insert(m.kv_shape.layers.end(), shape.draft_layers.begin(),
                             shape.draft_layers.end());
  }
  if (context_follows || ssm_changed || kv_changed || m.with_draft || m.options_changed ||
      r.block_size_tokens != r.estimate.workload.block_size_tokens) {
    r.estimate.workload.block_size_tokens = r.block_size_tokens;  // page the workload line too
    const Result<KvEstimate> paged =
        kv_totals(m.kv_shape, r.estimate.kv_dtype, r.estimate.state_dtype, r.estimate.workload);
    if (!paged.ok) return Result<bool>::failure(paged.error);
    r.estimate.kv = paged.value;
  }
  return Result<bool>::success(true);
}

// What the data-parallel ranks share: under SGLang's DP attention all but attention and the
// embedding, over every GPU; under vLLM a MoE model's experts, over the tp x dp GPUs, whole with
// --enable-expert-parallel; elsewhere nothing (a replica holds its own).
ModuleSharding module_sharding(const EngineProfile& engine, const PlanInput& in,
                               const ModelShape& shape, uint64_t data_parallel) {
  const uint32_t all = static_cast<uint32_t>(
      std::min<uint64_t>(uint64_t{in.tensor_parallel} * data_parallel, UINT32_MAX));
  const bool moe = shape.moe.num_experts != 0;
  if (engine.dp_attention && in.sglang.enable_dp_attention && data_parallel > 1)
    return ModuleSharding{moe ? all : 0, false, all, true};
  if (!engine.moe_over_data_parallel || !moe || all <= 1) return {};
  return ModuleSharding{all, in.vllm.enable_expert_parallel};
}

// --dp N: vLLM's --data-parallel-size (tp x pp x dp GPUs) and SGLang's --dp-size; with SGLang's
// DP attention the N ranks split --tp, each of tp / N GPUs (runtime_context.py
// derive_attn_tp_size; parallel_hook.py handle_data_parallelism asserts tp_size % dp_size == 0):
// planned as N ranks of attention TP tp / N.
Result<bool> settle_data_parallel(const EngineProfile& engine, PlanInput& in) {
  using RB = Result<bool>;
  const uint64_t dp = in.data_parallel, tp = in.tensor_parallel, pp = in.pipeline_parallel;
  if (dp == 0) return RB::success(true);
  if (engine.one_server_devices) {
    return RB::failure(make_error(kInvalidValue, "data_parallel",
                                  std::string(engine.info.label) +
                                      " runs one server over its devices: give --gpus, not --dp"));
  }
  const bool attention = engine.dp_attention && in.sglang.enable_dp_attention;
  if (attention && tp % dp != 0) {
    return RB::failure(make_error(kInvalidValue, "data_parallel",
                                  "SGLang's DP attention splits --tp " + std::to_string(tp) +
                                      " into --dp ranks: tp_size % dp_size must be 0, got dp " +
                                      std::to_string(dp)));
  }
  const CheckedU64 all = CheckedU64(tp) * pp * (attention ? 1 : dp);
  if (all.overflowed()) {
    return RB::failure(make_error(kOutOfRange, "data_parallel", "tp x pp x dp GPUs exceed 2^64-1"));
  }
  const uint64_t gpus = all.value();
  if (in.gpus != 0 && in.gpus != gpus) {
    return RB::failure(make_error(
        kInvalidValue, "data_parallel",
        "--dp " + std::to_string(dp) + " with tp " + std::to_string(tp) + " x pp " +
            std::to_string(pp) + (attention ? " (DP attention inside --tp)" : "") + " is " +
            std::to_string(gpus) + " GPUs, but --gpus is " + std::to_string(in.gpus)));
  }
  in.gpus = gpus;
  if (attention) in.tensor_parallel = static_cast<uint32_t>(tp / dp);
  return RB::success(true);
}

// The engine run on one GPU of each pipeline stage: the tightest stage's report, every stage's
// load, and one replica's weights and pools over its GPUs.
struct StageRuns {
  PlanReport tightest;
  size_t tightest_rank = 0;
  std::vector<GpuLoad> loads;
  CheckedU64 replica_weights, replica_pool;
  bool all_start = true;
};

Result<bool> run_stages(const EngineProfile& engine, const PlanInput& in, const PlanModel& m,
                        PlanReport& r, StageRuns& runs) {
  using RR = Result<bool>;
  const ModelShape& shape = r.estimate.shape;
  const Result<PipelineStages> stages =
      pipeline_stages(in.pipeline_parallel, in.pp_layer_partition, shape.layers.size());
  if (!stages.ok) return RR::failure(stages.error);
  const ModuleSharding experts = module_sharding(engine, in, shape, r.data_parallel);
  r.expert_gpus = experts.ranks > in.tensor_parallel ? experts.ranks : 0;
  r.whole_experts = experts.whole;
  r.dp_attention = experts.replicated_embedding;
  for (uint32_t rank = 0; rank < in.pipeline_parallel; ++rank) {
    Result<GpuLoad> load =
        remembered_load(*m.known, in, shape, r.weights, rank, stages.value, m.with_draft, experts);
    if (!load.ok) return RR::failure(load.error);
    if (m.known_total != 0)
      load.value.gpu_weights = given_weights(in, m.known_total, load.value.gpu_weights);
    const auto [first, end] = pipeline_layers(shape.layers.size(), rank, stages.value);
    PlanReport stage = r;
    stage.weights_bytes = load.value.gpu_weights.total;
    stage.gpu_weights = load.value.gpu_weights;
    runs.loads.push_back(load.value);
    const ModelShape& gpu_shape = runs.loads.back().gpu_shape;
    Result<PlanReport> run = engine.plan_gpu(std::move(stage), gpu_shape, in);
    if (!run.ok) return RR::failure(run.error);
    const PlanReport& s = run.value;
    uint32_t kv_heads = 0;
    for (const LayerSpec& l : gpu_shape.layers) {
      if (l.keeps_tokens()) {
        kv_heads = l.kv_heads;
        break;
      }
    }
    r.stages.push_back(PlanStage{first, end - first, kv_heads, s.weights_bytes, s.kv_pool_bytes,
                                 s.num_blocks, s.max_concurrency, s.starts});
    runs.replica_weights += CheckedU64(s.weights_bytes) * in.tensor_parallel;
    runs.replica_pool += CheckedU64(s.kv_pool_bytes) * in.tensor_parallel;
    runs.all_start = runs.all_start && s.starts;
    // Equal concurrency (whole sequences): the stage one request needs more of is the tighter.
    if (rank == 0 || s.max_concurrency < runs.tightest.max_concurrency ||
        (s.max_concurrency == runs.tightest.max_concurrency &&
         s.kv_bytes_needed > runs.tightest.kv_bytes_needed)) {
      runs.tightest = run.value;
      runs.tightest_rank = rank;
    }
  }
  return RR::success(true);
}

// The replica as large as its tightest stage: the stages, totals over the data-parallel
// replicas, whether all start, the context limit, and the workload paged in the engine's block.
Result<bool> combine_stages(const EngineProfile& engine, const PlanInput& in, const PlanModel& m,
                            PlanReport& r, StageRuns& runs) {
  using RB = Result<bool>;
  PlanReport& tightest = runs.tightest;
  tightest.stages = std::move(r.stages);
  tightest.tensor_parallel = r.tensor_parallel;
  tightest.pipeline_parallel = r.pipeline_parallel;
  tightest.data_parallel = r.data_parallel;
  const CheckedU64 total_weights = runs.replica_weights * r.data_parallel;
  const CheckedU64 total_pool = runs.replica_pool * r.data_parallel;
  if (total_weights.overflowed() || total_pool.overflowed()) {
    return RB::failure(
        make_error(kOutOfRange, "gpus", "weights or KV pools over all GPUs exceed 2^64-1 bytes"));
  }
  tightest.total_weights_bytes = total_weights.value();
  tightest.total_kv_pool_bytes = total_pool.value();
  tightest.starts = runs.all_start;
  // A pool no length exhausts (no layer keeps tokens) reaches the search's ceiling, which is not
  // a figure to show: the report says unbounded instead.
  if (tightest.max_context >= engines::kMaxSearchTokens) {
    tightest.max_context = 0;
    tightest.max_context_unbounded = true;
    tightest.max_model_len_that_fits =
        std::min(tightest.max_model_len_that_fits, tightest.max_model_len);
    tightest.notes.push_back(
        "no layer keeps per-token KV: the pool limits how many sequences run, not how long one is");
  }
  check_context_limit(engine, in, tightest);
  tightest.total_max_concurrency = tightest.max_concurrency * static_cast<double>(r.data_parallel);
  tightest.estimate.kv = r.estimate.kv;
  if (tightest.block_size_tokens != r.block_size_tokens) {  // the engine raised the block (hybrids)
    tightest.estimate.workload.block_size_tokens = tightest.block_size_tokens;
    const Result<KvEstimate> paged = kv_totals(m.kv_shape, r.estimate.kv_dtype,
                                               r.estimate.state_dtype, tightest.estimate.workload);
    if (!paged.ok) return RB::failure(paged.error);
    tightest.estimate.kv = paged.value;
  }
  if (engine.one_server_devices) {  // its workload is the K + V buffers it allocates
    tightest.estimate.kv.kv_bytes_total = runs.replica_pool.value();
  }
  return RB::success(true);
}

// What a plan estimates beyond capacity: the rooflines and the launch command (`full`), the
// target's fit and the workload's concurrency.
Result<bool> add_estimates(const EngineProfile& engine, const PlanInput& in, bool full,
                           StageRuns& runs) {
  using RB = Result<bool>;
  PlanReport& tightest = runs.tightest;
  const ModelShape& tightest_shape = runs.loads[runs.tightest_rank].gpu_shape;
  if (full) {
    const Result<PlanRoofline> estimate_roofline =
        plan_roofline(in, tightest, runs.loads, tightest_shape);
    if (!estimate_roofline.ok) return RB::failure(estimate_roofline.error);
    tightest.roofline = estimate_roofline.value;
  }
  if (engine.one_server_devices && in.require_concurrency != 0) {
    return RB::failure(make_error(
        kInvalidValue, "require_concurrency",
        std::string(engine.info.label) +
            " allocates its buffers for what it is asked: " + std::string(engine.slots)));
  }
  // One server's engines size their buffers to the request (Ollama sets its own target).
  if (!engine.one_server_devices) {
    const Result<TargetFit> target = plan_target(in, tightest, tightest_shape);
    if (!target.ok) return RB::failure(target.error);
    tightest.target = target.value;
  }
  if (!in.prompt_lengths.empty() || !in.output_lengths.empty()) {
    const Result<WorkloadCapacity> workload = plan_workload(in, tightest, tightest_shape);
    if (!workload.ok) return RB::failure(workload.error);
    tightest.has_workload = true;
    tightest.workload = workload.value;
  }
  if (full && engine.launch_command != nullptr) {
    std::vector<std::string> unexpressed;
    const std::string served = launch_model_name(in, unexpressed);
    LaunchCommand launch = engine.launch_command(in, tightest, served);
    if (launch.command.find(" " + served) == std::string::npos) unexpressed.clear();  // a GGUF
    unexpressed.insert(unexpressed.end(), launch.unexpressed.begin(), launch.unexpressed.end());
    tightest.launch_command = std::move(launch.command);
    tightest.launch_unexpressed = std::move(unexpressed);
  }
  return RB::success(true);
}

}  // namespace

Result<PlanState> plan_state(const PlanInput& given, PlanMemo* memo) {
  using RS = Result<PlanState>;
  Result<PlanReport> checked = validate_plan_input(given);
  if (!checked.ok) return RS::failure(checked.error);
  PlanReport r = std::move(checked.value);
  r.engine = given.engine;
  const EngineProfile& engine =
      *find_engine_profile(given.engine);  // validate_plan_input() found it
  // The engine's settings that stand for the request's fields, on a copy only for such engines.
  std::optional<PlanInput> with_options;
  if (engine.request_options != nullptr || given.data_parallel != 0) {
    with_options.emplace(given);
    if (engine.request_options != nullptr) {
      if (const Result<bool> set = engine.request_options(*with_options); !set.ok)
        return RS::failure(set.error);
    }
    if (const Result<bool> dp = settle_data_parallel(engine, *with_options); !dp.ok)
      return RS::failure(dp.error);
  }
  const PlanInput& in = with_options ? *with_options : given;
  PlanMemo own;  // without a caller's memo, this plan's alone
  PlanModel model;
  const Result<bool> resolved = resolve_plan_model(engine, in, memo ? *memo : own, r, model);
  if (!resolved.ok) return RS::failure(resolved.error);
  if (const Result<bool> card = resolve_card(in, r); !card.ok) return RS::failure(card.error);
  if (const Result<bool> context = settle_context(engine, in, model, r); !context.ok)
    return RS::failure(context.error);
  // Each pipeline stage on one of its GPUs; the replica is as large as its tightest stage.
  r.tensor_parallel = in.tensor_parallel;
  r.pipeline_parallel = in.pipeline_parallel;
  const uint64_t per_replica = uint64_t{in.tensor_parallel} * in.pipeline_parallel;
  // llama.cpp's GPUs are one server's devices, not replicas.
  r.data_parallel = in.gpus == 0 || engine.one_server_devices ? 1 : in.gpus / per_replica;
  StageRuns runs;
  if (const Result<bool> ran = run_stages(engine, in, model, r, runs); !ran.ok)
    return RS::failure(ran.error);
  if (const Result<bool> combined = combine_stages(engine, in, model, r, runs); !combined.ok)
    return RS::failure(combined.error);
  const bool full = memo == nullptr || !memo->capacity_only;
  if (const Result<bool> added = add_estimates(engine, in, full, runs); !added.ok)
    return RS::failure(added.error);
  return RS::success(
      PlanState{std::move(runs.tightest), std::move(runs.loads), runs.tightest_rank});
}

Result<PlanReport> plan(const PlanInput& in) {
  Result<PlanState> state = plan_state(in);
  if (!state.ok) return Result<PlanReport>::failure(state.error);
  return Result<PlanReport>::success(std::move(state.value.report));
}

}  // namespace kvscope
