// JSON serialization of the estimate's report and of errors (the plan's: plan_json.cpp;
// catalogues: catalog_json.cpp). Keys are snake_case with units in their names.
#include "kvscope/request/report_json.hpp"

#include "base/json_text.hpp"
#include "kvscope/request/request.hpp"
#include "request/report_writing.hpp"

namespace kvscope {
namespace {

void write_model(JsonWriter& w, const EstimateReport& r) {
  const ModelShape& s = r.shape;
  w.begin_object();
  w.field_or_null("id", !r.model_id.empty(), r.model_id);
  w.field("name", r.model_name);
  w.field("source", r.source);
  w.field("model_type", s.model_type);
  w.field("layers", s.layers.size());
  w.field("hidden_size", s.hidden_size);
  w.field("num_attention_heads", s.num_attention_heads);
  w.field("head_dim", s.head_dim);
  w.field("intermediate_size", s.intermediate_size);
  w.field("vocab_size", s.vocab_size);
  w.field("max_position_embeddings", s.max_position_embeddings);
  w.field("tie_word_embeddings", s.tie_word_embeddings);
  w.field("torch_dtype", s.torch_dtype);
  w.field("weight_dtype", s.weights.name);
  w.field("draft_layers", s.draft_layers.size());
  w.key("moe");
  if (s.moe.num_experts == 0) {
    w.null();
  } else {
    w.begin_object();
    w.field("num_experts", s.moe.num_experts);
    w.field("experts_per_token", s.moe.experts_per_token);
    w.field("shared_experts", s.moe.shared_experts);
    w.field("expert_intermediate_size", s.moe.expert_intermediate_size);
    w.field("shared_expert_intermediate_size", s.moe.shared_expert_intermediate_size);
    w.end_object();
  }
  w.key("mla");
  if (s.mla.kv_lora_rank == 0) {
    w.null();
  } else {
    w.begin_object();
    w.field("kv_lora_rank", s.mla.kv_lora_rank);
    w.field("qk_rope_head_dim", s.mla.qk_rope_head_dim);
    w.field("qk_nope_head_dim", s.mla.qk_nope_head_dim);
    w.field("v_head_dim", s.mla.v_head_dim);
    w.field("q_lora_rank", s.mla.q_lora_rank);
    w.end_object();
  }
  w.end_object();
}

void write_group(JsonWriter& w, const GroupKv& g, const Dtype& kv) {
  const LayerSpec& s = g.group.spec;
  w.begin_object();
  w.field("kind", layer_kind_label(s));
  w.field("attention", attention_kind_name(s.attention));
  w.field_or_null("state", s.state != StateKind::kNone, state_kind_name(s.state));
  w.field("layer_count", g.group.layer_indices.size());
  w.field("layers", g.group.layer_indices);
  w.field("kv_heads", s.kv_heads);
  w.field("k_head_dim", s.k_head_dim);
  w.field("v_head_dim", s.v_head_dim);
  w.field_or_null("window_tokens", s.windowed() || s.attention == AttentionKind::kCompressed,
                  s.window_tokens);
  w.field_or_null("compress_ratio", s.compress_ratio != 0, s.compress_ratio);
  w.field("state_values_per_layer", s.state_values);
  w.field("kv_bytes_per_token_per_layer", g.kv_bytes_per_token_per_layer);
  w.field("kv_bytes_per_token", g.kv_bytes_per_token);
  w.field("kv_bytes_per_token_formula", kv_bytes_per_token_formula(g, kv));
  w.field("kept_tokens_per_sequence", g.kept_tokens_per_sequence);
  w.field("allocated_tokens_per_sequence", g.allocated_tokens_per_sequence);
  w.field("compressed_bytes_per_entry", g.compressed_bytes_per_entry);
  w.field("compressed_entries_per_sequence", g.compressed_entries_per_sequence);
  w.field("state_bytes_per_sequence", g.state_bytes_per_sequence);
  w.field("kv_bytes_per_sequence", g.kv_bytes_per_sequence);
  w.field("kv_bytes_total", g.kv_bytes_total);
  w.field("shared_prefix_bytes", g.shared_prefix_bytes);
  w.end_object();
}

}  // namespace

namespace report_writing {

void write_estimate_input(JsonWriter& w, const EstimateReport& r) {
  const KvWorkload& l = r.workload;
  w.field_or_null("model", !r.model_id.empty(), r.model_id);
  w.field_or_null("config", r.model_id.empty(), r.source);
  w.field("kv_dtype", r.kv_dtype.name);
  w.field("state_dtype", r.state_dtype.name);
  w.field("ssm_state_dtype",
          r.shape.ssm_state_dtype.empty() ? r.state_dtype.name : r.shape.ssm_state_dtype);
  w.field("context_tokens", l.context_tokens);
  w.field("batch", l.batch);
  w.field_or_null("block_size_tokens", l.block_size_tokens != 0, l.block_size_tokens);
  w.field("shared_prefix_tokens", l.shared_prefix_tokens);
  w.field_or_null("prompt_tokens", r.has_projections, r.prompt_tokens);
  w.field_or_null("output_tokens", r.has_projections, r.output_tokens);
}

void write_estimate_results(JsonWriter& w, const EstimateReport& r) {
  w.key("model");
  write_model(w, r);
  w.key("kv_dtype");
  write_dtype(w, r.kv_dtype);
  w.field("kv_bytes_per_token", r.kv.kv_bytes_per_token);
  w.field("compressed_kv_bytes_per_token", r.kv.compressed_kv_bytes_per_token);
  w.field("kv_bytes_per_sequence", r.kv.kv_bytes_per_sequence);
  w.field("kv_bytes_total", r.kv.kv_bytes_total);
  w.field("recurrent_state_bytes_per_sequence", r.kv.state_bytes_per_sequence);
  w.field("shared_prefix_bytes", r.kv.shared_prefix_bytes);
  w.field("kv_layers", r.kv.kv_layers);
  w.field_or_null("kv_projections_without_cache", r.has_projections, r.projections.without_cache);
  w.field_or_null("kv_projections_with_cache", r.has_projections, r.projections.with_cache);
  w.key("layer_groups").begin_array();
  for (const GroupKv& g : r.kv.groups) write_group(w, g, r.kv_dtype);
  w.end_array();
  w.field("assumptions", r.assumptions);
}

void begin_report(JsonWriter& w) {
  w.begin_object();
  w.field("schema", kReportSchema);
  w.field("kvscope_version", kVersion);
  w.key("input").begin_object();
}

}  // namespace report_writing

std::string report_to_json(const EstimateReport& r) {
  using namespace report_writing;
  JsonWriter w;
  begin_report(w);
  write_estimate_input(w, r);
  w.end_object();
  write_estimate_results(w, r);
  w.end_object();
  return w.take();
}

std::string error_to_json(const Error& e) {
  JsonWriter w;
  w.begin_object();
  w.field("schema", kReportSchema);
  w.key("error").begin_object();
  w.field("code", e.code);
  w.field("message", e.message);
  w.field("field", e.field);
  w.end_object();
  w.end_object();
  return w.take();
}

void write_dtype(JsonWriter& w, const Dtype& d) {
  w.begin_object();
  w.field("name", d.name);
  w.field("bits_per_value", bits_per_value(d));
  w.field("scale_bits_per_row", d.row_scale_bits);
  w.field("exact", d.exact);
  w.field("description", d.description);
  w.end_object();
}

void write_plan_request(JsonWriter& w, const PlanInput* input) {
  w.key("plan_request");
  if (input == nullptr) {
    w.null();
    return;
  }
  Request plan;
  plan.command = Command::kPlan;
  plan.input = *input;
  w.tree(parse_json(request_to_json(plan)));
}

void write_version_line(JsonWriter& w, std::string_view key, const std::string& id,
                        const std::string& label) {
  w.key(key);
  if (id.empty()) {
    w.null();
    return;
  }
  w.begin_object();
  w.field("id", id);
  w.field("label", label);
  w.end_object();
}

}  // namespace kvscope
