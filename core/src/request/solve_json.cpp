// kvscope.solve/1: the solver's report as `kvscope solve --json` and the module print it.
#include <cmath>

#include "kvscope/request/report_json.hpp"
#include "request/report_writing.hpp"

namespace kvscope {
namespace {

void write_option(JsonWriter& w, const SolveOption& o) {
  w.begin_object();
  w.field("gpu", o.gpu_id);
  w.field("gpu_name", o.gpu_name);
  w.field("gpus", o.gpus);
  w.field("tp", uint64_t{o.tp});
  w.field("pp", uint64_t{o.pp});
  w.field("dp", o.dp);
  w.field("kv_dtype", o.kv_dtype);
  w.field("weight_dtype", o.weight_dtype);
  w.field("weights_choice", o.weights_choice);
  w.field_or_null("checkpoint", !o.checkpoint.empty(), o.checkpoint);
  w.field("max_model_len", o.max_model_len);
  w.field_or_null("utilization", o.utilization > 0, o.utilization);
  w.field("weights_bytes_per_gpu", o.weights_bytes_per_gpu);
  w.field("kv_pool_bytes_per_gpu", o.kv_pool_bytes_per_gpu);
  w.field("sequences_that_fit", o.sequences_that_fit);
  w.field("max_concurrency", o.max_concurrency);
  w.field("meets_target", o.meets_target);
  w.field_or_null("binding_constraint", !o.binding_constraint.empty(), o.binding_constraint);
  w.field_or_null("reason", !o.reason.empty(), o.reason);
  w.field("margin", o.margin);
  const bool speed = o.speed_available && o.decode_tokens_per_s_per_user > 0;
  w.field_or_null("decode_tokens_per_s_per_user", speed, o.decode_tokens_per_s_per_user);
  w.field_or_null("decode_tokens_per_s", speed, o.decode_tokens_per_s);
  w.field_or_null("prefill_s", o.speed_available && std::isfinite(o.prefill_s), o.prefill_s);
  w.field_or_null("usd_per_hour", o.priced, o.usd_per_hour);
  w.field_or_null("usd_per_user_hour", o.priced, o.usd_per_user_hour);
  w.field_or_null("usd_per_million_output_tokens", o.priced && speed,
                  o.usd_per_million_output_tokens);
  w.field_or_null("cost_vs_best", o.cost_vs_best > 0, o.cost_vs_best);
  w.field("command", o.command);
  w.field("unexpressed", o.unexpressed);
  w.end_object();
}

}  // namespace

std::string solve_to_json(const SolveReport& r) {
  JsonWriter w;
  w.begin_object();
  w.field("schema", "kvscope.solve/1");
  w.field("kvscope_version", kVersion);
  w.key("model").begin_object();
  w.field_or_null("id", !r.model_id.empty(), r.model_id);
  w.field("name", r.model_name);
  w.end_object();
  w.field("engine", r.engine);
  w.field("engine_label", r.engine_label);
  write_version_line(w, "engine_version", r.engine_version, r.engine_version_label);
  w.key("target").begin_object();
  w.field("concurrency", r.concurrency);
  w.field("context_tokens", r.context_tokens);
  w.field("prompt_tokens", r.prompt_tokens);
  w.field_or_null("prompt_lengths", !r.prompt_lengths.empty(), r.prompt_lengths);
  w.field_or_null("output_lengths", !r.output_lengths.empty(), r.output_lengths);
  w.field_or_null("min_decode_tokens_per_s", r.min_decode_tokens_per_s > 0,
                  r.min_decode_tokens_per_s);
  w.field_or_null("max_ttft_s", r.max_ttft_s > 0, r.max_ttft_s);
  w.end_object();
  w.key("search").begin_object();
  w.field("kv_dtypes", r.kv_dtypes);
  w.field("weight_dtypes", r.weight_dtypes);
  w.field("max_tp", uint64_t{r.max_tp});
  w.field("max_pp", uint64_t{r.max_pp});
  w.field("max_gpus", r.max_gpus);
  w.field("plans_run", r.plans_run);
  w.field("ranking",
          "meets the target first; then $/hour where priced, GPUs otherwise; at equal cost "
          "the checkpoint as stored and the model's KV dtype first, then the larger margin");
  w.end_object();
  w.field("met", r.met);
  w.key("options").begin_array();
  for (const SolveOption& o : r.options) write_option(w, o);
  w.end_array();
  w.key("gpus").begin_array();
  for (const SolveGpu& g : r.gpus) {
    w.begin_object();
    w.field("gpu", g.gpu_id);
    w.field("name", g.gpu_name);
    w.field("memory_bytes", g.memory_bytes);
    w.field_or_null("usd_per_gpu_hour", g.priced, g.usd_per_hour);
    w.field_or_null("price_source", g.priced, g.price_source);
    w.field("met", g.met);
    w.field_or_null("best_gpus", g.met, g.best_gpus);
    w.field("plans_run", g.plans_run);
    w.field("search_cut", g.search_cut);
    w.key("cheaper_failures").begin_array();
    for (const SolveOption& o : g.cheaper_failures) write_option(w, o);
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.field("notes", r.notes);
  w.end_object();
  return w.take();
}

}  // namespace kvscope
