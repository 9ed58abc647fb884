// The readable reports of kvscope's commands: every number from the core's report, laid out.
#include "text_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "kvscope/base/units.hpp"
#include "kvscope/engines/engine_catalog.hpp"
#include "kvscope/model/catalog.hpp"
#include "kvscope/model/dtype.hpp"

namespace kvscope::cli {
namespace {

std::string pad(const std::string& s, size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

std::string bytes_line(uint64_t bytes) {
  return with_commas(bytes) + " bytes = " + format_gb(bytes) + " = " + format_gib(bytes);
}

// The plan's title line and its weights: per GPU, as stored, the checkpoint, each module.
void print_plan_weights(const PlanReport& p, std::ostream& out) {
  const EstimateReport& e = p.estimate;
  out << "kvscope plan: " << e.model_name << " on "
      << (p.kv_memory_given ? "a given KV budget" : p.gpu_name) << ", engine " << p.engine
      << (p.engine_version.empty() ? std::string() : " " + p.engine_version_label) << ", KV "
      << e.kv_dtype.name << ", weights " << p.weights.name << "\n\n";
  out << "  weights            " << bytes_line(p.weights_bytes) << " per GPU ("
      << with_commas(p.params.total) << " parameters)\n";
  out << "    stored as        " << p.weights_source << "\n";
  if (p.checkpoint_weights_bytes != 0) {
    out << "    checkpoint       " << bytes_line(p.checkpoint_weights_bytes)
        << (p.params.draft != 0 ? " (with " + with_commas(p.params.draft) +
                                      " parameters of MTP layers, not loaded without speculative "
                                      "decoding)"
                                : std::string())
        << "\n";
  }
  for (const ModuleBytes& m : p.gpu_weights.modules) {
    char line[160];
    std::snprintf(line, sizeof line, "    %-16s %-44s %s\n",
                  (std::string(module_class_name(m.module)) + (m.draft ? " (MTP)" : "")).c_str(),
                  m.format.c_str(), format_gb(m.bytes).c_str());
    out << line;
  }
}

// The card and the engine's budget on it, the state and KV pools, the parallelism.
void print_plan_budget(const PlanReport& p, std::ostream& out) {
  if (!p.kv_memory_given) {
    out << "  card               " << bytes_line(p.gpu_memory_bytes) << "\n";
    if (p.activation_bytes != 0) {  // vLLM's profiled budget
      out << "  requested          " << bytes_line(p.requested_bytes)
          << " (gpu_memory_utilization)\n";
      out << "  activation peak    " << bytes_line(p.activation_bytes) << "\n";
      out << "  non-torch          " << bytes_line(p.non_torch_bytes) << "\n";
      if (p.cudagraph_bytes != 0)
        out << "  CUDA graphs        " << bytes_line(p.cudagraph_bytes) << "\n";
    }
  }
  const StatePool& states = p.state_pool;
  if (states.slots != 0 || states.conv_bytes_per_slot + states.ssm_bytes_per_slot != 0) {
    out << "  state pool         " << bytes_line(states.bytes) << " (" << with_commas(states.slots)
        << " + 1 slots of conv " << format_binary_size(states.conv_bytes_per_slot) << " "
        << states.conv_dtype << " + SSM " << format_binary_size(states.ssm_bytes_per_slot) << " "
        << states.ssm_dtype << ")\n";
  }
  out << "  KV pool            " << bytes_line(p.kv_pool_bytes) << "\n";
  const uint64_t gpus = uint64_t{p.tensor_parallel} * p.pipeline_parallel * p.data_parallel;
  if (gpus > 1) {
    out << "  parallelism        tp " << p.tensor_parallel << " x pp " << p.pipeline_parallel
        << " x dp " << p.data_parallel << " = " << gpus
        << " GPUs; figures here are per GPU of the tightest stage\n";
    if (p.expert_gpus != 0) {
      out << "  experts            spread over all " << p.expert_gpus << " GPUs ("
          << (p.dp_attention    ? "SGLang's DP attention: so are dense MLPs and the head; "
                                  "attention and the embedding per rank"
              : p.whole_experts ? "whole experts: --enable-expert-parallel"
                                : "a slice of each: vLLM flattens TP across DP for MoE layers")
          << "); each data-parallel rank's KV pool holds its own requests\n";
    }
    for (const PlanStage& st : p.stages) {
      out << "    stage layers " << st.first_layer << "-" << st.first_layer + st.layer_count - 1
          << ": " << st.kv_heads_per_gpu << " KV heads per GPU, weights "
          << format_gb(st.weights_bytes) << ", KV pool " << format_gb(st.kv_pool_bytes)
          << " per GPU\n";
    }
    out << "  totals             weights " << format_gb(p.total_weights_bytes) << ", KV pool "
        << format_gb(p.total_kv_pool_bytes);
    if (p.target.present && p.data_parallel > 1) {
      char fit[32];
      std::snprintf(fit, sizeof fit, "%.2f", p.target.sequences_that_fit);
      out << ", " << fit << " sequences fit";
    }
    out << "\n";
  }
}

// What the pool holds: tokens and blocks, KV groups, concurrency, context, whether it starts.
void print_plan_pool(const PlanReport& p, std::ostream& out) {
  out << "  pool tokens        " << with_commas(p.kv_pool_tokens);
  if (p.num_blocks != 0)
    out << " (" << with_commas(p.num_blocks) << " blocks of " << p.block_size_tokens << ")";
  if (p.swa_pool_tokens != 0)
    out << " in the full layers, " << with_commas(p.swa_pool_tokens) << " in the sliding ones";
  if (p.swap_blocks != 0) out << "; " << with_commas(p.swap_blocks) << " CPU swap blocks";
  out << "\n";
  const KvCacheGroups& groups = p.kv_cache_groups;
  if (!groups.types.empty()) {
    // A hybrid's pool tokens count every token in every group: say what one request really takes.
    out << "  KV groups          groups of " << groups.group_size_layers << " layers sharing the blocks:";
    for (const KvCacheGroupType& t : groups.types) {
      out << " " << t.groups << " " << t.attention;
      if (t.window_tokens != 0) out << " (" << with_commas(t.window_tokens) << " tokens)";
      out << " x " << with_commas(t.blocks_per_request) << " blocks";
      if (t.padding_layers != 0) out << " (+" << t.padding_layers << " padding layers)";
      out << ";";
    }
    out << " one request of " << with_commas(p.max_model_len) << " tokens takes "
        << with_commas(groups.blocks_per_request) << " of the " << with_commas(p.num_blocks)
        << " blocks\n";
  }
  char concurrency[32];
  std::snprintf(concurrency, sizeof concurrency, "%.2f", p.max_concurrency);
  out << "  max_model_len      " << with_commas(p.max_model_len) << " tokens need "
      << bytes_line(p.kv_bytes_needed) << "\n";
  const char* per_rank = p.data_parallel == 1 ? ""
                         : p.expert_gpus != 0 ? " per data-parallel rank"
                                              : " per replica";
  if (p.target.present) {
    char fit[32];
    std::snprintf(fit, sizeof fit, "%.2f", p.target.sequences_that_fit_per_replica);
    out << "  sequences that fit " << fit << " of " << with_commas(p.target.context_tokens)
        << " tokens" << per_rank << " (the capacity)\n";
  }
  out << "  max concurrency    " << concurrency << " requests of " << with_commas(p.max_model_len)
      << " tokens" << per_rank << (p.target.present ? ", as the engine counts them" : "") << "\n";
  if (p.max_running_requests != 0)
    out << "  max running        " << with_commas(p.max_running_requests) << " requests\n";
  if (p.max_context_unbounded)
    out << "  max context        unbounded: no layer keeps per-token KV\n";
  else
    out << "  max context        " << with_commas(p.max_context) << " tokens for one sequence\n";
  out << "  starts             " << (p.starts ? "yes" : "no") << "\n";
  if (p.offload.present) {
    out << "  layers on GPUs     " << p.offload.gpu_layers << " of " << p.offload.layers
        << (p.offload.gpu_layers < p.offload.layers
                ? ", " + std::to_string(p.offload.layers - p.offload.gpu_layers) + " on the CPU"
                : std::string())
        << "\n";
  }
  if (p.target.present) {
    char fit[32];
    std::snprintf(fit, sizeof fit, "%.1f", std::floor(p.target.sequences_that_fit * 10) / 10);
    out << "  target             " << with_commas(p.target.sequences)
        << (p.target.sequences == 1 ? " sequence of " : " sequences of ")
        << with_commas(p.target.context_tokens) << " tokens: "
        << (p.target.met ? std::string("met (") + fit + " fit)" : "NOT met: " + p.target.reason)
        << "\n";
  }
  if (!p.starts) {
    out << "  error              " << p.startup_error << "\n";
    out << "  fits               max_model_len " << with_commas(p.max_model_len_that_fits) << "\n";
  }
}

// vLLM's budget as estimated over the range of its measured terms.
void print_estimated_budget(const EstimatedBudget& e, std::ostream& out) {
  if (!e.present) return;
  const std::string graphs =
      e.cudagraph_high == 0
          ? ""
          : ", CUDA graphs " + format_gib(e.cudagraph_low) + " to " + format_gib(e.cudagraph_high);
  char line[320];
  std::snprintf(line, sizeof line,
                "  estimated          activation %s to %s, non-torch %s to %s%s: KV pool %s to %s, "
                "%.2f to %.2f requests, max_model_len %s to %s fits%s\n",
                format_gib(e.activation_low).c_str(), format_gib(e.activation_high).c_str(),
                format_gib(e.non_torch_low).c_str(), format_gib(e.non_torch_high).c_str(),
                graphs.c_str(), format_gib(e.kv_pool_low).c_str(),
                format_gib(e.kv_pool_high).c_str(), e.max_concurrency_low, e.max_concurrency_high,
                with_commas(e.max_model_len_that_fits_low).c_str(),
                with_commas(e.max_model_len_that_fits_high).c_str(),
                e.starts_low == e.starts_high ? "" : " (starts only at the high end)");
  out << line << "                     (" << e.source << ")\n";
}

// Decode and prefill steps on the datasheet peaks, and the decode step calibrated by a citation.
void print_plan_roofline(const PlanReport& p, std::ostream& out) {
  const PlanRoofline& rf = p.roofline;
  if (!rf.available) return;
  auto step_line = [&out](const char* label, const StepEstimate& s, uint64_t sequences) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "  %-18s %.3f ms (%s-bound: %.3f ms memory, %.3f ms compute), %.1f tokens/s\n",
                  label, s.time_s * 1e3, s.bound.c_str(), s.memory_time_s * 1e3,
                  s.compute_time_s * 1e3,
                  s.time_s > 0 ? static_cast<double>(sequences) / s.time_s : 0.0);
    out << line;
  };
  out << "\nRoofline (estimates from " << p.gpu_name << " peaks, " << rf.peaks.flops_dtype
      << "):\n";
  step_line(("decode batch " + std::to_string(rf.batch)).c_str(), rf.decode, rf.batch);
  if (const CalibratedDecode& c = rf.calibrated; c.available) {
    char line[320];
    std::snprintf(line, sizeof line,
                  "  calibrated         %.3f ms, %.1f tokens/s: the KV read at %.0f%% of the "
                  "datasheet bandwidth, as %s reached on %s (%s, batch %llu x %s tokens)\n",
                  c.time_s * 1e3, c.time_s > 0 ? static_cast<double>(rf.batch) / c.time_s : 0.0,
                  100 * c.anchor.efficiency(), c.anchor.kernel.c_str(),
                  c.anchor.measured_on.c_str(), c.anchor.kv_dtype.c_str(),
                  static_cast<unsigned long long>(c.anchor.batch),
                  with_commas(c.anchor.context).c_str());
    out << line << "                     (cited, not measured by kvscope: " << c.anchor.source
        << ")\n";
  }
  if (rf.replicas > 1)
    out << "  (per replica: " << rf.replicas << " replicas share " << with_commas(p.estimate.workload.batch) << " sequences)\n";
  if (rf.batch > rf.kv_capped_batch)
    out << "  (the KV pool holds " << with_commas(rf.kv_capped_batch)
        << (rf.kv_capped_batch == 1 ? " sequence" : " sequences")
        << " of this context, not " << with_commas(rf.batch)
        << ": a step the engine cannot run)\n";
  step_line(("prefill " + std::to_string(rf.prompt_tokens)).c_str(), rf.prefill,
            rf.prompt_tokens);
  if (rf.kv_capped_batch > 0) {
    step_line(("decode batch " + std::to_string(rf.kv_capped_batch)).c_str(), rf.decode_at_kv_cap,
              rf.kv_capped_batch);
    out << "  the KV pool caps the batch at " << with_commas(rf.kv_capped_batch)
        << " sequences of " << with_commas(rf.context_tokens) << " tokens\n";
  }
  if (rf.decode.experts_read_per_moe_layer > 0) {
    char experts[64];
    std::snprintf(experts, sizeof experts, "%.1f", rf.decode.experts_read_per_moe_layer);
    out << "  MoE: " << experts << " distinct experts read per layer per decode step\n";
  }
}

}  // namespace

void print_report(const EstimateReport& r, std::ostream& out) {
  const KvWorkload& w = r.workload;
  out << "kvscope estimate: " << r.model_name;
  if (!r.model_id.empty()) out << " (" << r.model_id << ")";
  out << ", " << r.shape.layers.size() << " layers, KV dtype " << r.kv_dtype.name << "\n\n";
  out << "  KV per token       " << with_commas(r.kv.kv_bytes_per_token) << " bytes ("
      << format_binary_size(r.kv.kv_bytes_per_token) << ") across " << r.kv.kv_layers
      << " layers that keep tokens";
  if (r.kv.compressed_kv_bytes_per_token != 0) {  // compressed attention: the windows, then entries
    char avg[32];
    std::snprintf(avg, sizeof avg, "%.2f", r.kv.compressed_kv_bytes_per_token);
    out << " while their windows fill,\n                     then " << avg
        << " bytes per token on average in compressed entries (one per compress_ratio tokens)";
  }
  out << "\n";
  out << "  per sequence       " << bytes_line(r.kv.kv_bytes_per_sequence) << " at "
      << with_commas(w.context_tokens) << " tokens\n";
  out << "  total              " << bytes_line(r.kv.kv_bytes_total) << " for " << w.batch
      << (w.batch == 1 ? " sequence" : " sequences");
  if (w.block_size_tokens != 0) out << ", blocks of " << w.block_size_tokens << " tokens";
  if (w.shared_prefix_tokens != 0) {
    out << ", " << with_commas(w.shared_prefix_tokens) << "-token prefix stored once ("
        << with_commas(r.kv.shared_prefix_bytes) << " bytes)";
  }
  out << "\n";
  const bool compressor = std::any_of(r.kv.groups.begin(), r.kv.groups.end(), [](const GroupKv& g) {
    return g.group.spec.attention == AttentionKind::kCompressed;
  });
  if (compressor && r.kv.state_bytes_per_sequence != 0) {
    out << "  compressor state   " << bytes_line(r.kv.state_bytes_per_sequence)
        << " per sequence (fp32, constant in context)\n";
  } else if (r.kv.state_bytes_per_sequence != 0) {
    const std::string& ssm = r.shape.ssm_state_dtype;
    out << "  recurrent state    " << bytes_line(r.kv.state_bytes_per_sequence) << " per sequence ("
        << (ssm.empty() || ssm == r.state_dtype.name
                ? r.state_dtype.name
                : "convolution " + r.state_dtype.name + ", SSM " + ssm)
        << ", constant in context)\n";
  }
  out << "\nLayer groups:\n";
  out << "  " << pad("kind", 18) << pad("layers", 8) << pad("kv heads", 10) << pad("K/V dim", 10)
      << pad("window", 9) << pad("bytes/token", 13) << pad("kept tokens", 13) << "bytes/sequence\n";
  for (const GroupKv& g : r.kv.groups) {
    const LayerSpec& s = g.group.spec;
    out << "  " << pad(layer_kind_label(s), 18)
        << pad(std::to_string(g.group.layer_indices.size()), 8)
        << pad(s.keeps_tokens() ? std::to_string(s.kv_heads) : "-", 10)
        << pad(s.keeps_tokens() ? std::to_string(s.k_head_dim) + "/" + std::to_string(s.v_head_dim)
                                : "-",
               10)
        << pad(s.windowed() || s.attention == AttentionKind::kCompressed
                   ? with_commas(s.window_tokens)
                   : "-",
               9)
        << pad(with_commas(g.kv_bytes_per_token), 13)
        << pad(s.keeps_tokens() ? with_commas(g.kept_tokens_per_sequence) : "-", 13)
        << with_commas(g.kv_bytes_per_sequence) << "\n";
  }
  for (const GroupKv& g : r.kv.groups) {
    const std::string formula = kv_bytes_per_token_formula(g, r.kv_dtype);
    if (!formula.empty()) out << "  " << layer_kind_label(g.group.spec) << ": " << formula << "\n";
  }
  if (r.has_projections) {
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.1f",
                  r.projections.with_cache == 0
                      ? 0.0
                      : static_cast<double>(r.projections.without_cache) /
                            static_cast<double>(r.projections.with_cache));
    out << "\nWhy a cache: " << with_commas(r.prompt_tokens) << " prompt + "
        << with_commas(r.output_tokens) << " generated tokens need "
        << with_commas(r.projections.without_cache)
        << " K/V projections per layer without a cache, " << with_commas(r.projections.with_cache)
        << " with one (" << ratio << "x fewer).\n";
  }
  if (!r.assumptions.empty()) {
    out << "\nAssumptions:\n";
    for (const std::string& a : r.assumptions) out << "  - " << a << "\n";
  }
}

void print_plan(const PlanReport& p, std::ostream& out) {
  print_plan_weights(p, out);
  print_plan_budget(p, out);
  print_plan_pool(p, out);
  print_estimated_budget(p.estimated, out);
  print_plan_roofline(p, out);
  const EstimateReport& e = p.estimate;
  if (p.has_workload) {
    const WorkloadCapacity& w = p.workload;
    char line[256];
    std::snprintf(
        line, sizeof line,
        "\nWorkload: %.0f prompt + %.0f output tokens on average, %.0f held per running request\n"
        "  concurrent requests the pool sustains: %.1f expected, %llu at p99\n",
        w.mean_prompt_tokens, w.mean_output_tokens, w.mean_tokens_held, w.expected_concurrency,
        static_cast<unsigned long long>(w.p99_concurrency));
    out << line;
    for (const std::string& a : w.assumptions) out << "  - " << a << "\n";
  }
  if (!p.launch_command.empty()) {
    out << "\nLaunch:\n  " << p.launch_command << "\n";
    for (const std::string& u : p.launch_unexpressed)
      out << "  - not in the command: " << u << "\n";
  }
  if (!p.notes.empty() || !e.assumptions.empty()) {
    out << "\nNotes and assumptions:\n";
    for (const std::string& n : p.notes) out << "  - " << n << "\n";
    for (const std::string& a : e.assumptions) out << "  - " << a << "\n";
  }
}

void print_sweeps(const Sweeps& s, std::ostream& out) {
  out << "kvscope sweep: " << s.plan.estimate.model_name << ", engine " << s.plan.engine << "\n\n";
  out << pad("context", 12);
  for (const Series& series : s.kv_bytes_vs_context) out << pad(series.name + " bytes/seq", 22);
  out << "sequences in the pool\n";
  for (size_t i = 0; i < s.concurrency_vs_context.points.size(); ++i) {
    out << pad(with_commas(static_cast<uint64_t>(s.concurrency_vs_context.points[i].first)), 12);
    for (const Series& series : s.kv_bytes_vs_context) {
      out << pad(with_commas(static_cast<uint64_t>(series.points[i].second)), 22);
    }
    out << with_commas(static_cast<uint64_t>(s.concurrency_vs_context.points[i].second)) << "\n";
  }
  if (!s.throughput_vs_batch.points.empty()) {
    out << "\n"
        << pad("batch", 10) << pad("step time", 14) << "decode tokens/s (KV pool caps the batch at "
        << with_commas(s.kv_capped_batch) << ")\n";
    for (size_t i = 0; i < s.throughput_vs_batch.points.size(); ++i) {
      char line[96];
      std::snprintf(
          line, sizeof line, "%-10llu%-14s%.1f\n",
          static_cast<unsigned long long>(s.throughput_vs_batch.points[i].first),
          (std::to_string(s.step_time_vs_batch.points[i].second * 1e3).substr(0, 7) + " ms")
              .c_str(),
          s.throughput_vs_batch.points[i].second);
      out << line;
    }
  }
  out << "\nMemory per GPU:\n";
  for (const auto& [label, bytes] : s.memory_breakdown)
    out << "  " << pad(label, 26) << bytes_line(bytes) << "\n";
}

void print_catalogue(const std::string& which, std::ostream& out) {
  // Columns as wide as their longest entry, so long names never push the next column over.
  const auto widest = [](const auto& entries, auto field, size_t at_least) {
    size_t w = at_least;
    for (const auto& e : entries) w = std::max(w, field(e).size() + 2);
    return static_cast<int>(w);
  };
  if (which == "models") {
    const int id = widest(
        model_catalog(), [](const ModelEntry& m) { return m.id; }, 28);
    const int name = widest(
        model_catalog(), [](const ModelEntry& m) { return m.name; }, 34);
    out << pad("id", id) << pad("name", name) << "source\n";
    for (const ModelEntry& m : model_catalog())
      out << pad(m.id, id) << pad(m.name, name) << m.source << "\n";
  } else if (which == "gpus") {
    const int id = widest(
        gpu_catalog(), [](const GpuEntry& g) { return g.id; }, 18);
    const int name = widest(
        gpu_catalog(), [](const GpuEntry& g) { return g.name; }, 30);
    out << pad("id", id) << pad("name", name) << pad("memory (reported)", 32)
        << pad("bandwidth", 13) << "compute capability\n";
    for (const GpuEntry& g : gpu_catalog()) {
      char bw[32];
      std::snprintf(bw, sizeof bw, "%.2f TB/s",
                    static_cast<double>(g.bandwidth_bytes_per_s) / 1e12);
      out << pad(g.id, id) << pad(g.name, name)
          << pad(format_gb(g.memory_bytes) + " = " + format_gib(g.memory_bytes), 32) << pad(bw, 13)
          << g.compute_capability << "\n";
    }
  } else if (which == "engines") {
    out << pad("id", 15) << pad("label", 30) << "knobs (request keys)\n";
    for (const EngineInfo& e : engine_catalog()) {
      std::string knobs;
      for (std::string_view k : e.knobs) knobs += (knobs.empty() ? "" : ", ") + std::string(k);
      out << pad(std::string(e.id), 15) << pad(std::string(e.label), 30) << knobs << "\n";
      for (const EngineVersion& v : e.versions)
        out << pad("", 15) << "version " << pad(std::string(v.id), 6) << v.label << ": " << v.differs << "\n";
    }
  } else {
    for (const DtypeUse use : {DtypeUse::kKv, DtypeUse::kWeight}) {
      out << (use == DtypeUse::kKv ? "KV cache dtypes:\n" : "\nWeight dtypes:\n");
      for (const Dtype& d : list_dtypes(use)) {
        char bits[32];
        std::snprintf(bits, sizeof bits, "%.4g bits", bits_per_value(d));
        out << "  " << pad(d.name, 22) << pad(bits, 13) << d.description << "\n";
      }
    }
  }
}

}  // namespace kvscope::cli
