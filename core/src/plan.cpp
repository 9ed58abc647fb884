// `kvscope plan`: resolves the model, weights, card and parallelism, runs the engine profile on
// each pipeline stage's GPU (engine_*.cpp) and combines the stages.
#include "kvscope/plan.hpp"

#include <algorithm>

#include "engine_profiles.hpp"
#include "engine_table.hpp"
#include "kvscope/context_limit.hpp"
#include "kvscope/parallelism.hpp"
#include "kvscope/roofline.hpp"
#include "kvscope/units.hpp"
#include "plan_state.hpp"

namespace kvscope {
namespace {

using R = Result<PlanReport>;

// The model input with --set overrides applied to its config.
Result<EstimateInput> model_with_overrides(const PlanInput& in) {
  EstimateInput model = in.model;
  std::vector<std::pair<std::string, std::string>> overrides = in.overrides;
  if (!in.quantization_config_json.empty())
    overrides.insert(overrides.begin(), {"quantization_config", in.quantization_config_json});
  if (overrides.empty()) return Result<EstimateInput>::success(model);
  std::string text = model.config_json;
  if (!model.model_id.empty()) {
    const Result<ModelEntry> entry = find_model(model.model_id);
    if (!entry.ok) return Result<EstimateInput>::failure(entry.error);
    text = entry.value.config_json;
    model.config_name = entry.value.id;
    model.model_id.clear();
  }
  const Result<std::string> changed = apply_config_overrides(text, overrides);
  if (!changed.ok) return Result<EstimateInput>::failure(changed.error);
  model.config_json = changed.value;
  for (const auto& [field, value] : in.overrides) model.config_name += " " + field + "=" + value;
  if (!in.quantization_config_json.empty()) model.config_name += " with its quantization config";
  return Result<EstimateInput>::success(model);
}

// What a launch command calls the model: its Hugging Face id, the folder of its config.json, else
// a placeholder named in `unexpressed` (a config file alone is not something an engine serves).
std::string launch_model_name(const PlanInput& in, std::vector<std::string>& unexpressed) {
  if (!in.model.model_id.empty()) {
    const Result<ModelEntry> entry = find_model(in.model.model_id);
    if (entry.ok && !entry.value.hf_id.empty()) return entry.value.hf_id;
    return in.model.model_id;
  }
  // A config.json stands for its checkpoint's folder.
  std::string name = in.model.config_name;
  for (const char* file : {"config.json", "params.json"}) {
    const size_t n = std::char_traits<char>::length(file);
    if (name.size() >= n && name.compare(name.size() - n, n, file) == 0)
      name.resize(name.size() - n);
  }
  while (!name.empty() && name.back() == '/') name.pop_back();
  const bool folder = !name.empty() && name.find_first_of(" \t") == std::string::npos &&
                      (name.size() < 5 || name.compare(name.size() - 5, 5, ".json") != 0);
  if (folder) return name;
  unexpressed.push_back(
      "MODEL: the checkpoint's Hugging Face id or local folder (kvscope read a config file, not "
      "a checkpoint)");
  return "MODEL";
}

// The SSM state dtype the engine picks when the user does not (its row's ssm_state_default).
// True when it changed the shape.
bool engine_ssm_state_dtype(const EngineProfile& engine, const PlanInput& in, PlanReport& r) {
  ModelShape& shape = r.estimate.shape;
  const std::string before = shape.ssm_state_dtype;
  if (in.model.ssm_state_dtype != "auto" && !in.model.ssm_state_dtype.empty()) return false;
  const bool recurrent = std::any_of(shape.layers.begin(), shape.layers.end(),
                                     [](const LayerSpec& l) { return l.ssm_state_values != 0; });
  if (!recurrent || engine.ssm_state_default == nullptr) return false;
  engine.ssm_state_default(shape);
  if (shape.ssm_state_dtype == before) return false;
  r.notes.push_back(
      "SSM state in " +
      (shape.ssm_state_dtype.empty() ? r.estimate.state_dtype.name : shape.ssm_state_dtype) + ": " +
      in.engine + "'s choice for " + shape.model_type);
  return true;
}

// DeepSeek sparse attention with an fp8 cache: vLLM's FlashMLA-sparse backend stores the latent
// as fp8_ds_mla (vllm/model_executor/layers/attention/mla_attention.py), SGLang's NSA backend the
// same 656-byte row (model_runner_kv_cache_mixin.py). True when it changed the dtype.
bool engine_sparse_mla_layout(const EngineProfile& engine, const PlanInput& in, PlanReport& r) {
  const ModelShape& shape = r.estimate.shape;
  if (shape.mla.index_head_dim == 0 || r.estimate.kv_dtype.name != "fp8") return false;
  if (!engine.sparse_mla_fp8_ds) return false;
  r.estimate.kv_dtype = parse_dtype("fp8_ds_mla", DtypeUse::kKv, "kv_dtype").value;
  r.notes.push_back(in.engine +
                    " stores a sparse-attention MLA cache in fp8 as fp8_ds_mla: 656 "
                    "bytes per token per layer (fp8 latent, fp32 scales, bf16 rope)");
  return true;
}

// A max_model_len past the engine's derived limit: vLLM and SGLang refuse it at start-up (before
// any memory is sized) unless their override is set; llama.cpp only warns.
void check_context_limit(const EngineProfile& engine, const PlanInput& in, PlanReport& r) {
  const ContextLimit& limit = r.context_limit;
  if (limit.tokens == 0) return;
  const ModelShape& shape = r.estimate.shape;
  if (engine.context_policy == ContextPolicy::kWarn) {
    if (r.max_model_len > shape.max_position_embeddings && shape.max_position_embeddings != 0) {
      r.notes.push_back(engine.context_message(r.max_model_len, limit, shape) +
                        " (a warning: " + std::string(engine.info.label) + " starts anyway)");
    }
    return;
  }
  if (engine.context_policy != ContextPolicy::kRefuse) return;
  const bool model_max_length_allows =
      engine.honours_model_max_length && shape.positions.model_max_length >= r.max_model_len;
  r.context_limit_exceeded = r.max_model_len > limit.tokens && !model_max_length_allows;
  if (!r.context_limit_exceeded) return;
  if (in.allow_long_context) {
    r.notes.push_back(std::string(engine.allow_long_env) + ": max_model_len " +
                      std::to_string(r.max_model_len) + " is above the model's " +
                      std::to_string(limit.tokens) + " (positions past it were not trained)");
    return;
  }
  if (!r.startup_error.empty()) r.notes.push_back("and then: " + r.startup_error);
  r.starts = false;
  r.startup_error = engine.context_message(r.max_model_len, limit, shape);
  r.max_model_len_that_fits = std::min(r.max_model_len_that_fits, limit.tokens);
}

Result<PlanReport> validate(const PlanInput& in) {
  const EngineProfile* engine = find_engine_profile(in.engine);
  if (engine == nullptr) {
    std::string known;
    for (const EngineProfile& e : engine_profiles())
      known += (known.empty() ? "" : ", ") + std::string(e.info.id);
    return R::failure(
        make_error(kInvalidValue, "engine",
                   "unknown engine " + quote_user_text(in.engine) + " (known: " + known + ")"));
  }
  const Result<const EngineVersion*> version = resolve_engine_version(engine->info, in.engine_version);
  if (!version.ok) return R::failure(version.error);
  if (!(in.vllm.gpu_memory_utilization > 0 && in.vllm.gpu_memory_utilization <= 1)) {
    return R::failure(
        make_error(kInvalidValue, "vllm.gpu_memory_utilization", "must be in (0, 1]"));
  }
  if (!(in.gpu_bandwidth_bytes_per_s >= 0 && in.gpu_bandwidth_bytes_per_s <= 1e15)) {
    return R::failure(make_error(kOutOfRange, "gpu_bandwidth_bytes_per_s",
                                 "must be between 0 and 1e15 bytes/s (1 PB/s)"));
  }
  if (!(in.gpu_dense_flops >= 0 && in.gpu_dense_flops <= 1e18)) {
    return R::failure(make_error(kOutOfRange, "gpu_dense_tflops",
                                 "must be between 0 and 1e18 FLOP/s (10^6 TFLOPS)"));
  }
  const int memory_sources =
      (in.gpu_id.empty() ? 0 : 1) + (in.gpu_memory_bytes ? 1 : 0) + (in.kv_memory_bytes ? 1 : 0);
  if (memory_sources != 1) {
    return R::failure(
        make_error(kMissingField, "gpu",
                   "give exactly one of a GPU id, a GPU memory size or a KV memory size"));
  }
  if (engine->one_server_devices && (in.tensor_parallel > 1 || in.pipeline_parallel > 1)) {
    return R::failure(make_error(
        kInvalidValue, in.tensor_parallel > 1 ? "tensor_parallel" : "pipeline_parallel",
        "llama.cpp splits layers over devices (-sm layer): give --gpus N and --tensor-split, "
        "not --tp / --pp"));
  }
  if (in.tensor_parallel == 0)
    return R::failure(make_error(kInvalidValue, "tensor_parallel", "must be at least 1"));
  if (in.pipeline_parallel == 0)
    return R::failure(make_error(kInvalidValue, "pipeline_parallel", "must be at least 1"));
  const uint64_t per_replica = uint64_t{in.tensor_parallel} * in.pipeline_parallel;
  if (in.gpus != 0 && in.gpus < per_replica) {
    return R::failure(make_error(kInvalidValue, "gpus",
                                 std::to_string(in.gpus) + (in.gpus == 1 ? " GPU is" : " GPUs are") +
                                     " fewer than one replica needs: tp x pp = " +
                                     std::to_string(per_replica)));
  }
  if (in.gpus != 0 && in.gpus % per_replica != 0) {
    return R::failure(make_error(kInvalidValue, "gpus",
                                 std::to_string(in.gpus) +
                                     " GPUs are not a whole number of replicas of tp x pp = " +
                                     std::to_string(per_replica)));
  }
  PlanReport r;
  if (version.value != nullptr) {
    r.engine_version = version.value->id;
    r.engine_version_label = version.value->label;
  }
  return R::success(std::move(r));
}

}  // namespace

namespace {

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
                                uint32_t rank, const PipelineStages& stages, bool with_draft) {
  std::string cut = in.weight_dtype + '|' + shape.ssm_state_dtype + '|' +
                    std::to_string(in.tensor_parallel) + '|' + std::to_string(rank) + '|' +
                    std::to_string(stages.count) + (with_draft ? "|draft" : "");
  for (uint32_t layers : stages.partition) cut += ',' + std::to_string(layers);
  for (const auto& [key, load] : known.loads)
    if (key == cut) return Result<GpuLoad>::success(load);
  Result<GpuLoad> load = gpu_load(shape, known.tensors, weights, in.tensor_parallel, rank,
                                  stages, with_draft);
  if (load.ok) known.loads.emplace_back(cut, load.value);
  return load;
}

}  // namespace

Result<PlanState> plan_state(const PlanInput& in, PlanMemo* memo) {
  using RS = Result<PlanState>;
  Result<PlanReport> checked = validate(in);
  if (!checked.ok) return RS::failure(checked.error);
  PlanReport r = std::move(checked.value);
  r.engine = in.engine;
  const EngineProfile& engine = *find_engine_profile(in.engine);  // validate() found it

  Result<EstimateInput> model = model_with_overrides(in);
  if (!model.ok) return RS::failure(model.error);
  if (model.value.context_tokens == 0) model.value.context_tokens = in.max_model_len;
  PlanMemo own;  // without a caller's memo, this plan's alone
  const Result<PlanMemo::Entry*> known_model = remembered(model.value, memo ? *memo : own);
  if (!known_model.ok) return RS::failure(known_model.error);
  Result<EstimateReport> estimated = estimate(model.value, known_model.value->model);
  if (!estimated.ok) return RS::failure(estimated.error);
  r.estimate = std::move(estimated.value);
  const bool options_changed =
      engine.shape_options != nullptr && engine.shape_options(r.estimate.shape, in);
  const ModelShape& shape = r.estimate.shape;
  const std::vector<WeightTensor>& tensors = known_model.value->tensors;
  const Result<ParameterCount> params =
      count_parameters(tensors, shape.moe.num_experts, shape.moe.experts_per_token);
  if (!params.ok) return RS::failure(params.error);
  r.params = params.value;
  const Result<WeightStorage> storage = resolve_weight_storage(in, shape);
  if (!storage.ok) return RS::failure(storage.error);
  r.weights = storage.value;
  PlanMemo::Entry& known_entry = *known_model.value;
  if (!known_entry.has_checkpoint) {
    const Result<WeightBytes> stored = weight_bytes(tensors, shape.weights);
    if (!stored.ok) return RS::failure(stored.error);
    known_entry.checkpoint = stored.value;
    known_entry.has_checkpoint = true;
  }
  const WeightBytes& checkpoint = known_entry.checkpoint;
  r.checkpoint_weights_bytes = checkpoint.total;
  if (const Result<bool> spec = resolve_speculative(in, shape, r); !spec.ok)
    return RS::failure(spec.error);
  const bool with_draft = r.draft_layers_loaded != 0;
  const Result<uint64_t> known = known_weights_total(in, tensors, checkpoint, r);
  if (!known.ok) return RS::failure(known.error);
  const uint64_t known_total = known.value;  // 0: the computed per-tensor bytes

  if (!in.gpu_id.empty()) {
    const Result<GpuEntry> gpu = find_gpu(in.gpu_id);
    if (!gpu.ok) return RS::failure(gpu.error);
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
    return RS::failure(make_error(kMissingField, "max_model_len",
                                  "required: the config has no max_position_embeddings"));
  }

  // Paging: the block given, else the engine's default.
  r.block_size_tokens = in.block_size_tokens;
  if (engine.default_block_size != nullptr && in.block_size_tokens == 0) {
    std::string note;
    r.block_size_tokens = engine.default_block_size(shape, note);
    r.notes.push_back(note);
  }
  // The layers that keep caches: the decoder's, and the MTP layers when they draft tokens.
  const bool context_follows = in.model.context_tokens == 0 && in.max_model_len == 0 &&
                               r.estimate.workload.context_tokens != r.max_model_len;
  if (context_follows) r.estimate.workload.context_tokens = r.max_model_len;
  const bool ssm_changed = engine_ssm_state_dtype(engine, in, r);
  const bool kv_changed = engine_sparse_mla_layout(engine, in, r);
  ModelShape kv_shape = shape;
  if (with_draft) {
    kv_shape.layers.insert(kv_shape.layers.end(), shape.draft_layers.begin(),
                           shape.draft_layers.end());
  }
  if (context_follows || ssm_changed || kv_changed || with_draft || options_changed ||
      r.block_size_tokens != r.estimate.workload.block_size_tokens) {
    r.estimate.workload.block_size_tokens = r.block_size_tokens;  // page the workload line too
    const Result<KvEstimate> paged =
        estimate_kv(kv_shape, r.estimate.kv_dtype, r.estimate.state_dtype, r.estimate.workload);
    if (!paged.ok) return RS::failure(paged.error);
    r.estimate.kv = paged.value;
  }

  // Each pipeline stage on one of its GPUs; the replica is as large as its tightest stage.
  r.tensor_parallel = in.tensor_parallel;
  r.pipeline_parallel = in.pipeline_parallel;
  const uint64_t per_replica = uint64_t{in.tensor_parallel} * in.pipeline_parallel;
  // llama.cpp's GPUs are one server's devices, not replicas.
  r.data_parallel = in.gpus == 0 || engine.one_server_devices ? 1 : in.gpus / per_replica;
  PlanReport tightest;
  size_t tightest_rank = 0;
  CheckedU64 replica_weights, replica_pool;  // every GPU of one replica
  std::vector<GpuLoad> loads;
  bool all_start = true;
  const Result<PipelineStages> stages =
      pipeline_stages(in.pipeline_parallel, in.pp_layer_partition, shape.layers.size());
  if (!stages.ok) return RS::failure(stages.error);
  for (uint32_t rank = 0; rank < in.pipeline_parallel; ++rank) {
    Result<GpuLoad> load =
        remembered_load(known_entry, in, shape, r.weights, rank, stages.value, with_draft);
    if (!load.ok) return RS::failure(load.error);
    if (known_total != 0)
      load.value.gpu_weights = given_weights(in, known_total, load.value.gpu_weights);
    const auto [first, end] = pipeline_layers(shape.layers.size(), rank, stages.value);
    PlanReport stage = r;
    stage.weights_bytes = load.value.gpu_weights.total;
    stage.gpu_weights = load.value.gpu_weights;
    loads.push_back(load.value);
    const ModelShape& gpu_shape = loads.back().gpu_shape;
    Result<PlanReport> run = engine.plan_gpu(std::move(stage), gpu_shape, in);
    if (!run.ok) return RS::failure(run.error);
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
    replica_weights += CheckedU64(s.weights_bytes) * in.tensor_parallel;
    replica_pool += CheckedU64(s.kv_pool_bytes) * in.tensor_parallel;
    all_start = all_start && s.starts;
    // Equal concurrency (whole sequences): the stage one request needs more of is the tighter.
    if (rank == 0 || s.max_concurrency < tightest.max_concurrency ||
        (s.max_concurrency == tightest.max_concurrency &&
         s.kv_bytes_needed > tightest.kv_bytes_needed)) {
      tightest = run.value;
      tightest_rank = rank;
    }
  }
  tightest.stages = std::move(r.stages);
  tightest.tensor_parallel = r.tensor_parallel;
  tightest.pipeline_parallel = r.pipeline_parallel;
  tightest.data_parallel = r.data_parallel;
  const CheckedU64 total_weights = replica_weights * r.data_parallel;
  const CheckedU64 total_pool = replica_pool * r.data_parallel;
  if (total_weights.overflowed() || total_pool.overflowed()) {
    return RS::failure(
        make_error(kOutOfRange, "gpus", "weights or KV pools over all GPUs exceed 2^64-1 bytes"));
  }
  tightest.total_weights_bytes = total_weights.value();
  tightest.total_kv_pool_bytes = total_pool.value();
  tightest.starts = all_start;
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
    const Result<KvEstimate> paged = estimate_kv(
        kv_shape, r.estimate.kv_dtype, r.estimate.state_dtype, tightest.estimate.workload);
    if (!paged.ok) return RS::failure(paged.error);
    tightest.estimate.kv = paged.value;
  }
  if (engine.one_server_devices) {  // its workload is the K + V buffers it allocates
    tightest.estimate.kv.kv_bytes_total = replica_pool.value();
  }
  const bool full = memo == nullptr || !memo->capacity_only;
  if (full) {
    const Result<PlanRoofline> estimate_roofline =
        plan_roofline(in, tightest, loads, loads[tightest_rank].gpu_shape);
    if (!estimate_roofline.ok) return RS::failure(estimate_roofline.error);
    tightest.roofline = estimate_roofline.value;
  }
  if (engine.one_server_devices && in.require_concurrency != 0) {
    return RS::failure(make_error(kInvalidValue, "require_concurrency",
                                  "llama.cpp allocates its buffers for what it is asked: N "
                                  "sequences are --parallel N with -c N x the context"));
  }
  if (!engine.one_server_devices) {  // llama.cpp sizes its buffers to the request
    const Result<TargetFit> target = plan_target(in, tightest, loads[tightest_rank].gpu_shape);
    if (!target.ok) return RS::failure(target.error);
    tightest.target = target.value;
  }
  if (!in.prompt_lengths.empty() || !in.output_lengths.empty()) {
    const Result<WorkloadCapacity> workload =
        plan_workload(in, tightest, loads[tightest_rank].gpu_shape);
    if (!workload.ok) return RS::failure(workload.error);
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
  return RS::success(PlanState{std::move(tightest), std::move(loads), tightest_rank});
}

Result<PlanReport> plan(const PlanInput& in) {
  Result<PlanState> state = plan_state(in);
  if (!state.ok) return Result<PlanReport>::failure(state.error);
  return Result<PlanReport>::success(std::move(state.value.report));
}

}  // namespace kvscope
