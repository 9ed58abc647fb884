// JSON serialization of the plan's report: the estimate's part (report_writing.hpp), then the
// weights, budget, pool, parallelism, roofline and workload. Keys are snake_case with units.
#include "kvscope/request/report_json.hpp"

#include "request/report_writing.hpp"

namespace kvscope {
namespace {

// The members of a step's object; the caller opens and closes it (and adds its own).
void write_step(JsonWriter& w, const StepEstimate& e, uint64_t sequences) {
  w.field("weight_bytes_read", e.weight_bytes);
  w.field("kv_bytes", e.kv_bytes);
  w.field("flops", e.flops);
  w.field("memory_time_s", e.memory_time_s);
  w.field("compute_time_s", e.compute_time_s);
  w.field("time_s", e.time_s);
  w.field("bound", e.bound);
  w.field("tokens_per_s", e.time_s > 0 ? static_cast<double>(sequences) / e.time_s : 0.0);
  if (e.experts_read_per_moe_layer > 0)
    w.field("experts_read_per_moe_layer", e.experts_read_per_moe_layer);
}

// Opens an object with "available"; an unavailable one gets its "reason" and is closed (false).
bool begin_if_available(JsonWriter& w, bool available, const std::string& reason) {
  w.begin_object();
  w.field("available", available);
  if (available) return true;
  w.field("reason", reason);
  w.end_object();
  return false;
}

void write_calibrated(JsonWriter& w, const PlanRoofline& r) {
  const CalibratedDecode& c = r.calibrated;
  if (!begin_if_available(w, c.available, c.reason)) return;
  w.field("method", "the KV cache read at the efficiency of the nearest published decode-attention "
                    "measurement on this GPU class; weights at the datasheet bandwidth");
  w.field("kv_bandwidth_efficiency", c.anchor.efficiency());
  w.field("memory_time_s", c.memory_time_s);
  w.field("time_s", c.time_s);
  w.field("tokens_per_s", c.time_s > 0 ? static_cast<double>(r.batch) / c.time_s : 0.0);
  w.field("tokens_per_s_per_sequence", c.time_s > 0 ? 1.0 / c.time_s : 0.0);
  w.key("measurement").begin_object();
  w.field("device_class", c.anchor.device_class);
  w.field("measured_on", c.anchor.measured_on);
  w.field("kernel", c.anchor.kernel);
  w.field("kv_dtype", c.anchor.kv_dtype);
  w.field("batch", c.anchor.batch);
  w.field("context_tokens", c.anchor.context);
  w.field("achieved_bytes_per_s", c.anchor.achieved_bytes_per_s);
  w.field("datasheet_bytes_per_s", c.anchor.datasheet_bytes_per_s);
  w.field("source", c.anchor.source);
  w.field("kind", "cited (published by others, not measured by kvscope)");
  w.end_object();
  w.end_object();
}

void write_roofline(JsonWriter& w, const PlanRoofline& r) {
  if (!begin_if_available(w, r.available, r.reason)) return;
  w.field("note", r.reason.empty() ? "estimates from datasheet peaks, not measurements" : r.reason);
  w.field("bandwidth_bytes_per_s", r.peaks.bandwidth_bytes_per_s);
  w.field("peak_flops", r.peaks.flops);
  w.field("peak_dtype", r.peaks.flops_dtype);
  w.key("decode").begin_object();
  write_step(w, r.decode, r.batch);
  w.field("batch", r.batch);
  w.field("replicas", r.replicas);
  w.field("batch_fits_kv_pool", r.batch <= r.kv_capped_batch);
  w.field("context_tokens", r.context_tokens);
  w.field("tokens_per_s_per_sequence", r.decode.time_s > 0 ? 1.0 / r.decode.time_s : 0.0);
  w.end_object();
  w.key("decode_calibrated");
  write_calibrated(w, r);
  w.key("prefill").begin_object();
  write_step(w, r.prefill, r.prompt_tokens);  // tokens/s of prompt processed
  w.field("prompt_tokens", r.prompt_tokens);
  w.end_object();
  w.field("kv_capped_batch", r.kv_capped_batch);
  w.object_or_null("decode_at_kv_capped_batch", r.kv_capped_batch > 0, [&] {
    write_step(w, r.decode_at_kv_cap, r.kv_capped_batch);
    w.field("batch", r.kv_capped_batch);
  });
  w.end_object();
}

void write_weights(JsonWriter& w, const PlanReport& p) {
  const uint64_t gpu_params = p.gpu_weights.quantized_params + p.gpu_weights.unquantized_params;
  w.key("weight_dtype").begin_object();
  w.field("name", p.weights.name);
  w.field("bits_per_value", gpu_params == 0
                                ? 0.0
                                : static_cast<double>(p.gpu_weights.total) * 8 * p.tensor_parallel /
                                      static_cast<double>(gpu_params));
  w.field("scale_bits_per_row", 0);
  w.field("exact", p.weights.exact);
  w.field("description", p.weights.summary);
  w.end_object();
  w.field("weights_bytes", p.weights_bytes);
  w.key("weights").begin_object();
  w.field_or_null("method", !p.weights.method.empty(), p.weights.method);
  w.field("source", p.weights_source);
  w.field("exact", p.weights.exact);
  w.field("checkpoint_bytes", p.checkpoint_weights_bytes);
  w.field_or_null("computed_checkpoint_bytes", p.computed_checkpoint_weights_bytes != 0,
                  p.computed_checkpoint_weights_bytes);
  w.field("bytes_per_gpu", p.weights_bytes);
  w.key("by_module").begin_array();
  for (const ModuleBytes& m : p.gpu_weights.modules) {
    w.begin_object();
    w.field("module", module_class_name(m.module));
    w.field("format", m.format);
    w.field("params", m.params);
    w.field("bytes_per_gpu", m.bytes);
    w.field("draft", m.draft);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_parallelism(JsonWriter& w, const PlanReport& p) {
  w.key("parallelism").begin_object();
  w.field("tensor_parallel", p.tensor_parallel);
  w.field("pipeline_parallel", p.pipeline_parallel);
  w.field("data_parallel", p.data_parallel);
  w.field("gpus", uint64_t{p.tensor_parallel} * p.pipeline_parallel * p.data_parallel);
  w.field_or_null("experts_over_gpus", p.expert_gpus != 0, p.expert_gpus);
  w.field("whole_experts", p.whole_experts);
  w.field("dp_attention", p.dp_attention);
  w.field("figures", "per GPU of the tightest pipeline stage; totals below");
  w.key("stages").begin_array();
  for (const PlanStage& st : p.stages) {
    w.begin_object();
    w.field("first_layer", st.first_layer);
    w.field("layer_count", st.layer_count);
    w.field("kv_heads_per_gpu", st.kv_heads_per_gpu);
    w.field("weights_bytes", st.weights_bytes);
    w.field("kv_pool_bytes", st.kv_pool_bytes);
    w.field("num_blocks", st.num_blocks);
    w.field("max_concurrency", st.max_concurrency);
    w.field("starts", st.starts);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  w.key("totals").begin_object();
  w.field("weights_bytes", p.total_weights_bytes);
  w.field("kv_pool_bytes", p.total_kv_pool_bytes);
  w.field_or_null("sequences_that_fit", p.target.present, p.target.sequences_that_fit);
  w.field("max_concurrency", p.total_max_concurrency);
  w.end_object();
  w.key("devices").begin_array();
  for (const DeviceBuffers& d : p.devices) {
    w.begin_object();
    w.field("device", d.device);
    w.field("first_layer", d.first_layer);
    w.field("layer_count", d.layer_count);
    w.field("output_layer", d.output_layer);
    w.field("weights_bytes", d.weights_bytes);
    w.field("kv_bytes", d.kv_bytes);
    w.field("state_bytes", d.state_bytes);
    w.field("memory_bytes", d.memory_bytes);
    w.field("fits", d.fits);
    w.end_object();
  }
  w.end_array();
  w.object_or_null("offload", p.offload.present, [&] {
    w.field("gpu_layers", p.offload.gpu_layers);
    w.field("layers", p.offload.layers);
    w.field("fit_margin_bytes", p.offload.fit_margin_bytes);
    w.field("compute_bytes", p.offload.compute_bytes);
  });
  const OllamaResolved& o = p.ollama;
  w.object_or_null("ollama", o.present, [&] {
    w.field("num_ctx", o.num_ctx);
    w.field("num_ctx_source", o.num_ctx_source);
    w.field("default_num_ctx", o.default_num_ctx);
    w.field("total_vram_bytes", o.total_vram_bytes);
    w.field("num_parallel", o.num_parallel);
    w.field("kv_cache_type", o.kv_cache_type);
    w.field("flash_attention", o.flash_attention);
    w.field("num_batch", o.num_batch);
  });
}

// [low, high] of one estimated figure.
template <typename T>
void range_field(JsonWriter& w, std::string_view name, T low, T high) {
  w.key(name).begin_array();
  w.value(low);
  w.value(high);
  w.end_array();
}

void write_estimated_budget(JsonWriter& w, const EstimatedBudget& e) {
  w.key("estimated_budget");
  if (!e.present) {
    w.null();
    return;
  }
  w.begin_object();
  range_field(w, "activation_bytes", e.activation_low, e.activation_high);
  range_field(w, "non_torch_bytes", e.non_torch_low, e.non_torch_high);
  range_field(w, "cudagraph_bytes", e.cudagraph_low, e.cudagraph_high);
  range_field(w, "kv_pool_bytes", e.kv_pool_low, e.kv_pool_high);
  range_field(w, "max_concurrency", e.max_concurrency_low, e.max_concurrency_high);
  range_field(w, "max_model_len_that_fits", e.max_model_len_that_fits_low, e.max_model_len_that_fits_high);
  range_field(w, "starts", e.starts_low, e.starts_high);
  w.field("source", e.source);
  w.end_object();
}

void write_pool(JsonWriter& w, const PlanReport& p) {
  w.key("budget").begin_object();
  w.field("kv_memory_given", p.kv_memory_given);
  w.field("requested_bytes", p.requested_bytes);
  w.field("weights_bytes", p.weights_bytes);
  w.field("activation_bytes", p.activation_bytes);
  w.field("non_torch_bytes", p.non_torch_bytes);
  w.field("cudagraph_bytes", p.cudagraph_bytes);
  w.field("kv_pool_bytes", p.kv_pool_bytes);
  w.end_object();
  write_estimated_budget(w, p.estimated);
  w.field("kv_pool_bytes", p.kv_pool_bytes);
  w.field_or_null("block_size_tokens", p.block_size_tokens != 0, p.block_size_tokens);
  w.field_or_null("max_num_batched_tokens", p.max_num_batched_tokens != 0,
                  p.max_num_batched_tokens);
  w.field("num_blocks", p.num_blocks);
  w.field("kv_pool_tokens", p.kv_pool_tokens);
  w.field_or_null("swap_blocks", p.swap_blocks != 0, p.swap_blocks);
  w.field("max_model_len", p.max_model_len);
  const ContextLimit& limit = p.context_limit;
  w.object_or_null("context_limit", limit.tokens != 0, [&] {
    w.field("tokens", limit.tokens);
    w.field("default_tokens", limit.default_tokens);
    w.field("derived_from", limit.derived_from);
    w.field("explanation", limit.explanation);
    w.field("exceeded", p.context_limit_exceeded);
  });
  w.field("kv_bytes_needed_for_max_model_len", p.kv_bytes_needed);
  w.field_or_null("sequences_that_fit", p.target.present, p.target.sequences_that_fit_per_replica);
  w.field("max_concurrency", p.max_concurrency);
  w.field_or_null("max_context", !p.max_context_unbounded, p.max_context);
  w.field_or_null("swa_pool_tokens", p.swa_pool_tokens != 0, p.swa_pool_tokens);
  w.field_or_null("max_running_requests", p.max_running_requests != 0, p.max_running_requests);
  const KvCacheGroups& groups = p.kv_cache_groups;
  w.object_or_null("kv_cache_groups", !groups.types.empty(), [&] {
    w.field("group_size_layers", groups.group_size_layers);
    w.field("page_bytes", groups.page_bytes);
    w.field("blocks_per_request", groups.blocks_per_request);
    w.key("types");
    w.begin_array();
    for (const KvCacheGroupType& t : groups.types) {
      w.begin_object();
      w.field("attention", t.attention);
      w.field_or_null("window_tokens", t.window_tokens != 0, t.window_tokens);
      w.field("layers", t.layers);
      w.field("groups", t.groups);
      w.field("padding_layers", t.padding_layers);
      w.field("block_tokens", t.block_tokens);
      w.field("blocks_per_request", t.blocks_per_request);
      w.end_object();
    }
    w.end_array();
  });
  const StatePool& states = p.state_pool;
  w.object_or_null("state_pool", states.conv_bytes_per_slot + states.ssm_bytes_per_slot != 0, [&] {
    w.field("slots", states.slots);
    w.field("conv_bytes_per_slot", states.conv_bytes_per_slot);
    w.field("ssm_bytes_per_slot", states.ssm_bytes_per_slot);
    w.field("conv_dtype", states.conv_dtype);
    w.field("ssm_dtype", states.ssm_dtype);
    w.field("reserved_bytes", states.reserved_bytes);
    w.field("bytes", states.bytes);
  });
}

void write_workload(JsonWriter& w, const PlanReport& p) {
  w.key("workload");
  if (!p.has_workload) {
    w.null();
    return;
  }
  const WorkloadCapacity& c = p.workload;
  w.begin_object();
  w.field("mean_prompt_tokens", c.mean_prompt_tokens);
  w.field("mean_output_tokens", c.mean_output_tokens);
  w.field("mean_tokens_held", c.mean_tokens_held);
  w.field("mean_kv_bytes_per_sequence", c.mean_bytes_per_sequence);
  w.field("stddev_kv_bytes_per_sequence", c.stddev_bytes_per_sequence);
  w.field("expected_concurrency", c.expected_concurrency);
  w.field("p99_concurrency", c.p99_concurrency);
  w.field("assumptions", c.assumptions);
  w.end_object();
}

}  // namespace

std::string plan_to_json(const PlanReport& p) {
  using namespace report_writing;
  JsonWriter w;
  begin_report(w);
  write_estimate_input(w, p.estimate);
  w.field("engine", p.engine);
  w.field_or_null("engine_version", !p.engine_version.empty(), p.engine_version);
  w.field_or_null("gpu", !p.gpu_id.empty(), p.gpu_id);
  w.field("max_model_len", p.max_model_len);
  w.field("weight_dtype", p.weights.name);
  w.end_object();
  write_estimate_results(w, p.estimate);
  write_version_line(w, "engine_version", p.engine_version, p.engine_version_label);
  w.key("gpu").begin_object();
  w.field_or_null("id", !p.gpu_id.empty(), p.gpu_id);
  w.field("name", p.gpu_name);
  w.field_or_null("memory_bytes", !p.kv_memory_given, p.gpu_memory_bytes);
  w.end_object();
  w.key("parameters").begin_object();
  w.field("total", p.params.total);
  w.field("active_per_token", p.params.active_per_token);
  w.field("embedding", p.params.embedding);
  w.field("lm_head", p.params.lm_head);
  w.field("attention", p.params.attention);
  w.field("recurrent", p.params.recurrent);
  w.field("mlp", p.params.mlp);
  w.field("routed_experts", p.params.routed_experts);
  w.field("shared_experts", p.params.shared_experts);
  w.field("norms", p.params.norms);
  w.end_object();
  write_weights(w, p);
  write_pool(w, p);
  w.field("starts", p.starts);
  w.field_or_null("startup_error", !p.startup_error.empty(), p.startup_error);
  w.field("max_model_len_that_fits", p.max_model_len_that_fits);
  w.object_or_null("target", p.target.present, [&] {
    w.field("sequences", p.target.sequences);
    w.field("context_tokens", p.target.context_tokens);
    w.field("sequences_that_fit", p.target.sequences_that_fit);
    w.field("met", p.target.met);
    w.field_or_null("reason", !p.target.met, p.target.reason);
  });
  write_parallelism(w, p);
  w.key("roofline");
  write_roofline(w, p.roofline);
  write_workload(w, p);
  w.field_or_null("launch_command", !p.launch_command.empty(), p.launch_command);
  w.field("launch_unexpressed", p.launch_unexpressed);
  w.field("notes", p.notes);
  w.end_object();
  return w.take();
}

}  // namespace kvscope
