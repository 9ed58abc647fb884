// JSON serialization of reports (catalogues: catalog_json.cpp). Keys are snake_case with units in
// their names.
#include "kvscope/report_json.hpp"

#include "json_writing.hpp"

namespace kvscope {
namespace {

ordered_json optional_count(bool present, uint64_t value) {
  return present ? ordered_json(value) : ordered_json(nullptr);
}

ordered_json model_json(const EstimateReport& r) {
  const ModelShape& s = r.shape;
  ordered_json m{{"id", r.model_id.empty() ? ordered_json(nullptr) : ordered_json(r.model_id)},
                 {"name", r.model_name},
                 {"source", r.source},
                 {"model_type", s.model_type},
                 {"layers", s.layers.size()},
                 {"hidden_size", s.hidden_size},
                 {"num_attention_heads", s.num_attention_heads},
                 {"head_dim", s.head_dim},
                 {"intermediate_size", s.intermediate_size},
                 {"vocab_size", s.vocab_size},
                 {"max_position_embeddings", s.max_position_embeddings},
                 {"tie_word_embeddings", s.tie_word_embeddings},
                 {"torch_dtype", s.torch_dtype},
                 {"weight_dtype", s.weights.name},
                 {"draft_layers", s.draft_layers.size()}};
  m["moe"] = s.moe.num_experts == 0
                 ? ordered_json(nullptr)
                 : ordered_json{
                       {"num_experts", s.moe.num_experts},
                       {"experts_per_token", s.moe.experts_per_token},
                       {"shared_experts", s.moe.shared_experts},
                       {"expert_intermediate_size", s.moe.expert_intermediate_size},
                       {"shared_expert_intermediate_size", s.moe.shared_expert_intermediate_size}};
  m["mla"] = s.mla.kv_lora_rank == 0 ? ordered_json(nullptr)
                                     : ordered_json{{"kv_lora_rank", s.mla.kv_lora_rank},
                                                    {"qk_rope_head_dim", s.mla.qk_rope_head_dim},
                                                    {"qk_nope_head_dim", s.mla.qk_nope_head_dim},
                                                    {"v_head_dim", s.mla.v_head_dim},
                                                    {"q_lora_rank", s.mla.q_lora_rank}};
  return m;
}

ordered_json group_json(const GroupKv& g, const Dtype& kv) {
  const LayerSpec& s = g.group.spec;
  return ordered_json{
      {"kind", layer_kind_label(s)},
      {"attention", attention_kind_name(s.attention)},
      {"state", s.state == StateKind::kNone ? ordered_json(nullptr)
                                            : ordered_json(state_kind_name(s.state))},
      {"layer_count", g.group.layer_indices.size()},
      {"layers", g.group.layer_indices},
      {"kv_heads", s.kv_heads},
      {"k_head_dim", s.k_head_dim},
      {"v_head_dim", s.v_head_dim},
      {"window_tokens", s.windowed() ? ordered_json(s.window_tokens) : ordered_json(nullptr)},
      {"state_values_per_layer", s.state_values},
      {"kv_bytes_per_token_per_layer", g.kv_bytes_per_token_per_layer},
      {"kv_bytes_per_token", g.kv_bytes_per_token},
      {"kv_bytes_per_token_formula", kv_bytes_per_token_formula(g, kv)},
      {"kept_tokens_per_sequence", g.kept_tokens_per_sequence},
      {"allocated_tokens_per_sequence", g.allocated_tokens_per_sequence},
      {"state_bytes_per_sequence", g.state_bytes_per_sequence},
      {"kv_bytes_per_sequence", g.kv_bytes_per_sequence},
      {"kv_bytes_total", g.kv_bytes_total},
      {"shared_prefix_bytes", g.shared_prefix_bytes}};
}

}  // namespace

static ordered_json step_json(const StepEstimate& e, uint64_t sequences) {
  ordered_json j{{"weight_bytes_read", e.weight_bytes},
                 {"kv_bytes", e.kv_bytes},
                 {"flops", e.flops},
                 {"memory_time_s", e.memory_time_s},
                 {"compute_time_s", e.compute_time_s},
                 {"time_s", e.time_s},
                 {"bound", e.bound},
                 {"tokens_per_s", e.time_s > 0 ? static_cast<double>(sequences) / e.time_s : 0.0}};
  if (e.experts_read_per_moe_layer > 0)
    j["experts_read_per_moe_layer"] = e.experts_read_per_moe_layer;
  return j;
}

static ordered_json roofline_json(const PlanRoofline& r) {
  if (!r.available) return ordered_json{{"available", false}, {"reason", r.reason}};
  ordered_json decode = step_json(r.decode, r.batch);
  decode["batch"] = r.batch;
  decode["context_tokens"] = r.context_tokens;
  decode["tokens_per_s_per_sequence"] = r.decode.time_s > 0 ? 1.0 / r.decode.time_s : 0.0;
  ordered_json prefill = step_json(r.prefill, r.prompt_tokens);  // tokens/s of prompt processed
  prefill["prompt_tokens"] = r.prompt_tokens;
  ordered_json capped = nullptr;
  if (r.kv_capped_batch > 0) {
    capped = step_json(r.decode_at_kv_cap, r.kv_capped_batch);
    capped["batch"] = r.kv_capped_batch;
  }
  return ordered_json{
      {"available", true},
      {"note", r.reason.empty() ? "estimates from datasheet peaks, not measurements" : r.reason},
      {"bandwidth_bytes_per_s", r.peaks.bandwidth_bytes_per_s},
      {"peak_flops", r.peaks.flops},
      {"peak_dtype", r.peaks.flops_dtype},
      {"decode", decode},
      {"prefill", prefill},
      {"kv_capped_batch", r.kv_capped_batch},
      {"decode_at_kv_capped_batch", capped}};
}

static ordered_json estimate_json(const EstimateReport& r) {
  const KvWorkload& w = r.workload;
  ordered_json j;
  j["schema"] = kReportSchema;
  j["kvscope_version"] = kVersion;
  j["input"] = ordered_json{
      {"model", r.model_id.empty() ? ordered_json(nullptr) : ordered_json(r.model_id)},
      {"config", r.model_id.empty() ? ordered_json(r.source) : ordered_json(nullptr)},
      {"kv_dtype", r.kv_dtype.name},
      {"state_dtype", r.state_dtype.name},
      {"ssm_state_dtype",
       r.shape.ssm_state_dtype.empty() ? r.state_dtype.name : r.shape.ssm_state_dtype},
      {"context_tokens", w.context_tokens},
      {"batch", w.batch},
      {"block_size_tokens", optional_count(w.block_size_tokens != 0, w.block_size_tokens)},
      {"shared_prefix_tokens", w.shared_prefix_tokens},
      {"prompt_tokens", optional_count(r.has_projections, r.prompt_tokens)},
      {"output_tokens", optional_count(r.has_projections, r.output_tokens)}};
  j["model"] = model_json(r);
  j["kv_dtype"] = dtype_json(r.kv_dtype);
  j["kv_bytes_per_token"] = r.kv.kv_bytes_per_token;
  j["kv_bytes_per_sequence"] = r.kv.kv_bytes_per_sequence;
  j["kv_bytes_total"] = r.kv.kv_bytes_total;
  j["recurrent_state_bytes_per_sequence"] = r.kv.state_bytes_per_sequence;
  j["shared_prefix_bytes"] = r.kv.shared_prefix_bytes;
  j["kv_layers"] = r.kv.kv_layers;
  j["kv_projections_without_cache"] =
      optional_count(r.has_projections, r.projections.without_cache);
  j["kv_projections_with_cache"] = optional_count(r.has_projections, r.projections.with_cache);
  ordered_json groups = ordered_json::array();
  for (const GroupKv& g : r.kv.groups) groups.push_back(group_json(g, r.kv_dtype));
  j["layer_groups"] = std::move(groups);
  j["assumptions"] = r.assumptions;
  return j;
}

std::string report_to_json(const EstimateReport& r) { return dump(estimate_json(r)); }

std::string plan_to_json(const PlanReport& p) {
  ordered_json j = estimate_json(p.estimate);
  j["input"]["engine"] = p.engine;
  j["input"]["gpu"] = p.gpu_id.empty() ? ordered_json(nullptr) : ordered_json(p.gpu_id);
  j["input"]["max_model_len"] = p.max_model_len;
  j["input"]["weight_dtype"] = p.weights.name;
  j["gpu"] = ordered_json{{"id", p.gpu_id.empty() ? ordered_json(nullptr) : ordered_json(p.gpu_id)},
                          {"name", p.gpu_name},
                          {"memory_bytes", p.kv_memory_given ? ordered_json(nullptr)
                                                             : ordered_json(p.gpu_memory_bytes)}};
  j["parameters"] = ordered_json{{"total", p.params.total},
                                 {"active_per_token", p.params.active_per_token},
                                 {"embedding", p.params.embedding},
                                 {"lm_head", p.params.lm_head},
                                 {"attention", p.params.attention},
                                 {"recurrent", p.params.recurrent},
                                 {"mlp", p.params.mlp},
                                 {"routed_experts", p.params.routed_experts},
                                 {"shared_experts", p.params.shared_experts},
                                 {"norms", p.params.norms}};
  const uint64_t gpu_params = p.gpu_weights.quantized_params + p.gpu_weights.unquantized_params;
  j["weight_dtype"] = ordered_json{
      {"name", p.weights.name},
      {"bits_per_value", gpu_params == 0 ? 0.0
                                         : static_cast<double>(p.gpu_weights.total) * 8 *
                                               p.tensor_parallel / static_cast<double>(gpu_params)},
      {"scale_bits_per_row", 0},
      {"exact", p.weights.exact},
      {"description", p.weights.summary}};
  j["weights_bytes"] = p.weights_bytes;
  ordered_json modules = ordered_json::array();
  for (const ModuleBytes& m : p.gpu_weights.modules) {
    modules.push_back(ordered_json{{"module", module_class_name(m.module)},
                                   {"format", m.format},
                                   {"params", m.params},
                                   {"bytes_per_gpu", m.bytes},
                                   {"draft", m.draft}});
  }
  j["weights"] = ordered_json{
      {"method", p.weights.method.empty() ? ordered_json(nullptr) : ordered_json(p.weights.method)},
      {"source", p.weights_source},
      {"exact", p.weights.exact},
      {"checkpoint_bytes", p.checkpoint_weights_bytes},
      {"computed_checkpoint_bytes", p.computed_checkpoint_weights_bytes == 0
                                        ? ordered_json(nullptr)
                                        : ordered_json(p.computed_checkpoint_weights_bytes)},
      {"bytes_per_gpu", p.weights_bytes},
      {"by_module", std::move(modules)}};
  j["budget"] =
      ordered_json{{"kv_memory_given", p.kv_memory_given}, {"requested_bytes", p.requested_bytes},
                   {"weights_bytes", p.weights_bytes},     {"activation_bytes", p.activation_bytes},
                   {"non_torch_bytes", p.non_torch_bytes}, {"cudagraph_bytes", p.cudagraph_bytes},
                   {"kv_pool_bytes", p.kv_pool_bytes}};
  j["kv_pool_bytes"] = p.kv_pool_bytes;
  j["block_size_tokens"] =
      p.block_size_tokens == 0 ? ordered_json(nullptr) : ordered_json(p.block_size_tokens);
  j["max_num_batched_tokens"] = p.max_num_batched_tokens == 0
                                    ? ordered_json(nullptr)
                                    : ordered_json(p.max_num_batched_tokens);
  j["num_blocks"] = p.num_blocks;
  j["kv_pool_tokens"] = p.kv_pool_tokens;
  j["max_model_len"] = p.max_model_len;
  const ContextLimit& limit = p.context_limit;
  j["context_limit"] = limit.tokens == 0 ? ordered_json(nullptr)
                                         : ordered_json{{"tokens", limit.tokens},
                                                        {"default_tokens", limit.default_tokens},
                                                        {"derived_from", limit.derived_from},
                                                        {"explanation", limit.explanation},
                                                        {"exceeded", p.context_limit_exceeded}};
  j["kv_bytes_needed_for_max_model_len"] = p.kv_bytes_needed;
  j["max_concurrency"] = p.max_concurrency;
  j["max_context"] = p.max_context;
  j["swa_pool_tokens"] =
      p.swa_pool_tokens == 0 ? ordered_json(nullptr) : ordered_json(p.swa_pool_tokens);
  j["max_running_requests"] =
      p.max_running_requests == 0 ? ordered_json(nullptr) : ordered_json(p.max_running_requests);
  const StatePool& states = p.state_pool;
  j["state_pool"] = states.conv_bytes_per_slot + states.ssm_bytes_per_slot == 0
                        ? ordered_json(nullptr)
                        : ordered_json{{"slots", states.slots},
                                       {"conv_bytes_per_slot", states.conv_bytes_per_slot},
                                       {"ssm_bytes_per_slot", states.ssm_bytes_per_slot},
                                       {"conv_dtype", states.conv_dtype},
                                       {"ssm_dtype", states.ssm_dtype},
                                       {"reserved_bytes", states.reserved_bytes},
                                       {"bytes", states.bytes}};
  j["starts"] = p.starts;
  j["startup_error"] =
      p.startup_error.empty() ? ordered_json(nullptr) : ordered_json(p.startup_error);
  j["max_model_len_that_fits"] = p.max_model_len_that_fits;
  ordered_json stages = ordered_json::array();
  for (const PlanStage& st : p.stages) {
    stages.push_back(ordered_json{{"first_layer", st.first_layer},
                                  {"layer_count", st.layer_count},
                                  {"kv_heads_per_gpu", st.kv_heads_per_gpu},
                                  {"weights_bytes", st.weights_bytes},
                                  {"kv_pool_bytes", st.kv_pool_bytes},
                                  {"num_blocks", st.num_blocks},
                                  {"max_concurrency", st.max_concurrency},
                                  {"starts", st.starts}});
  }
  j["parallelism"] =
      ordered_json{{"tensor_parallel", p.tensor_parallel},
                   {"pipeline_parallel", p.pipeline_parallel},
                   {"data_parallel", p.data_parallel},
                   {"gpus", uint64_t{p.tensor_parallel} * p.pipeline_parallel * p.data_parallel},
                   {"figures", "per GPU of the tightest pipeline stage; totals below"},
                   {"stages", stages}};
  j["totals"] = ordered_json{{"weights_bytes", p.total_weights_bytes},
                             {"kv_pool_bytes", p.total_kv_pool_bytes},
                             {"max_concurrency", p.total_max_concurrency}};
  ordered_json devices = ordered_json::array();
  for (const DeviceBuffers& d : p.devices) {
    devices.push_back(ordered_json{{"device", d.device},
                                   {"first_layer", d.first_layer},
                                   {"layer_count", d.layer_count},
                                   {"output_layer", d.output_layer},
                                   {"weights_bytes", d.weights_bytes},
                                   {"kv_bytes", d.kv_bytes},
                                   {"state_bytes", d.state_bytes},
                                   {"memory_bytes", d.memory_bytes},
                                   {"fits", d.fits}});
  }
  j["devices"] = std::move(devices);
  j["roofline"] = roofline_json(p.roofline);
  if (p.has_workload) {
    const WorkloadCapacity& w = p.workload;
    j["workload"] = ordered_json{{"mean_prompt_tokens", w.mean_prompt_tokens},
                                 {"mean_output_tokens", w.mean_output_tokens},
                                 {"mean_tokens_held", w.mean_tokens_held},
                                 {"mean_kv_bytes_per_sequence", w.mean_bytes_per_sequence},
                                 {"stddev_kv_bytes_per_sequence", w.stddev_bytes_per_sequence},
                                 {"expected_concurrency", w.expected_concurrency},
                                 {"p99_concurrency", w.p99_concurrency},
                                 {"assumptions", w.assumptions}};
  } else {
    j["workload"] = nullptr;
  }
  j["launch_command"] =
      p.launch_command.empty() ? ordered_json(nullptr) : ordered_json(p.launch_command);
  j["notes"] = p.notes;
  return dump(j);
}

std::string error_to_json(const Error& e) {
  ordered_json j{
      {"schema", kReportSchema},
      {"error", ordered_json{{"code", e.code}, {"message", e.message}, {"field", e.field}}}};
  return dump(j);
}

}  // namespace kvscope
