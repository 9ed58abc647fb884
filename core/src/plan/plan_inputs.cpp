// What plan() checks and settles around the engine profile: the input, the model with its --set
// what-ifs, the engine's state dtypes, the context limit, and the launch command's model name.
#include "plan/plan_inputs.hpp"

#include <algorithm>

#include "kvscope/engines/context_limit.hpp"
#include "kvscope/model/parallelism.hpp"
#include "kvscope/base/units.hpp"

namespace kvscope {

namespace {

using R = Result<PlanReport>;

}  // namespace

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

std::string launch_model_name(const PlanInput& in, std::vector<std::string>& unexpressed) {
  if (!in.model.model_id.empty()) {
    const Result<ModelEntry> entry = find_model(in.model.model_id);
    if (entry.ok && !entry.value.hf_id.empty())
      return in.serve_base ? entry.value.hf_id : entry.value.served_id();
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

bool engine_sparse_mla_layout(const EngineProfile& engine, const PlanInput& in, PlanReport& r) {
  const ModelShape& shape = r.estimate.shape;
  if (!engine.sparse_mla_fp8_ds) return false;
  if (!shape.layers.empty() && shape.layers[0].attention == AttentionKind::kCompressed) {
    // vLLM's DeepseekV4MLAAttention asserts an fp8 cache and keeps it as fp8_ds_mla
    // (deepseek_v4_attention.py); SGLang turns "auto" into fp8_e4m3, the same 584-byte entry
    // (apply_deepseek_v4_defaults, DeepSeekV4SingleKVPool).
    const std::string& asked = in.model.kv_dtype;
    if (asked != "auto" && asked != "fp8" && asked != "fp8_ds_mla") return false;
    r.estimate.kv_dtype = parse_dtype("fp8_ds_mla", DtypeUse::kKv, "kv_dtype").value;
    std::vector<std::string>& said = r.estimate.assumptions;  // not the model's dtype after all
    said.erase(
        std::remove_if(said.begin(), said.end(),
                       [](const std::string& a) { return a.rfind("kv_dtype auto: ", 0) == 0; }),
        said.end());
    r.notes.push_back(in.engine +
                      " keeps DeepSeek-V4's cache in fp8 (fp8_ds_mla): 584 bytes a latent (448 fp8 "
                      "values, their scales, 64 bf16 rope values)");
    return true;
  }
  if (shape.mla.index_head_dim == 0 || r.estimate.kv_dtype.name != "fp8") return false;
  r.estimate.kv_dtype = parse_dtype("fp8_ds_mla", DtypeUse::kKv, "kv_dtype").value;
  r.notes.push_back(in.engine +
                    " stores a sparse-attention MLA cache in fp8 as fp8_ds_mla: 656 "
                    "bytes per token per layer (fp8 latent, fp32 scales, bf16 rope)");
  return true;
}

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

Result<PlanReport> validate_plan_input(const PlanInput& in) {
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
  if (!(in.vllm.gpu_memory_utilization >= 0 &&
        in.vllm.gpu_memory_utilization <= 1)) {  // 0: default
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
    return R::failure(
        make_error(kInvalidValue, in.tensor_parallel > 1 ? "tensor_parallel" : "pipeline_parallel",
                   std::string(engine->info.label) +
                       " splits layers over devices (-sm layer): give --gpus N, not --tp / --pp"));
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

}  // namespace kvscope
