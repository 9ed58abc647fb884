// Resolves the model and dtypes, applies defaults (each recorded as an assumption) and runs the
// KV arithmetic.
#include "kvscope/kv/estimate.hpp"

#include <algorithm>

#include "kvscope/model/catalog.hpp"
#include "kvscope/model/config_import.hpp"
#include "kvscope/base/units.hpp"

namespace kvscope {

EstimateInput::EstimateInput() = default;
ResolvedModel::ResolvedModel() = default;
EstimateReport::EstimateReport() = default;

namespace {

// "auto" follows the dtype the engine computes in.
Result<Dtype> resolve_dtype(const std::string& requested, const ModelShape& shape,
                            const char* field, std::vector<std::string>& assumptions) {
  if (requested != "auto" && !requested.empty())
    return parse_dtype(requested, DtypeUse::kKv, field);
  const std::string resolved = serving_dtype(shape);
  assumptions.push_back(
      std::string(field) + " auto: " + resolved + " (the model's dtype" +
      (shape.torch_dtype == "fp32" ? ", float32 served as float16 as vLLM does)" : ")"));
  return parse_dtype(resolved, DtypeUse::kKv, field);
}

}  // namespace

std::string serving_dtype(const ModelShape& shape) {
  return shape.torch_dtype == "fp32" ? "fp16" : shape.torch_dtype;
}

Result<ResolvedModel> resolve_model(const EstimateInput& in) {
  using R = Result<ResolvedModel>;
  ResolvedModel out;
  Result<ImportedModel> imported;
  if (!in.model_id.empty()) {
    const Result<ModelEntry> entry = find_model(in.model_id);
    if (!entry.ok) return R::failure(entry.error);
    imported = import_preset(entry.value);
    if (!imported.ok) return R::failure(imported.error);
    out.model_id = entry.value.id;
    out.model_name = entry.value.name;
    out.source = entry.value.source;
  } else if (!in.config_json.empty()) {
    imported = import_config(in.config_json);
    if (!imported.ok) return R::failure(imported.error);
    out.model_name = in.config_name.empty() ? "config.json" : in.config_name;
    out.source = out.model_name;
  } else {
    return R::failure(make_error(kMissingField, "model", "give a catalogue id or a config.json"));
  }
  out.imported = std::move(imported.value);
  return R::success(std::move(out));
}

Result<EstimateReport> estimate(const EstimateInput& in) {
  const Result<ResolvedModel> model = resolve_model(in);
  if (!model.ok) return Result<EstimateReport>::failure(model.error);
  return estimate(in, model.value);
}

Result<EstimateReport> estimate(const EstimateInput& in, const ResolvedModel& model) {
  using R = Result<EstimateReport>;
  EstimateReport out;
  out.model_id = model.model_id;
  out.model_name = model.model_name;
  out.source = model.source;
  out.shape = model.imported.shape;
  out.assumptions = model.imported.assumptions;

  Result<Dtype> kv = resolve_dtype(in.kv_dtype, out.shape, "kv_dtype", out.assumptions);
  if (!kv.ok) return R::failure(kv.error);
  out.kv_dtype = kv.value;
  const bool has_state =
      std::any_of(out.shape.layers.begin(), out.shape.layers.end(),
                  [](const LayerSpec& l) { return l.state != StateKind::kNone; });
  std::vector<std::string> state_notes;
  Result<Dtype> state = resolve_dtype(in.state_dtype, out.shape, "state_dtype",
                                      has_state ? out.assumptions : state_notes);
  if (!state.ok) return R::failure(state.error);
  out.state_dtype = state.value;
  if (in.ssm_state_dtype != "auto" && !in.ssm_state_dtype.empty()) {
    const Result<Dtype> ssm = parse_dtype(in.ssm_state_dtype, DtypeUse::kKv, "ssm_state_dtype");
    if (!ssm.ok) return R::failure(ssm.error);
    out.shape.ssm_state_dtype = ssm.value.name;
  }

  out.workload =
      KvWorkload{in.context_tokens, in.batch, in.block_size_tokens, in.shared_prefix_tokens};
  if (out.workload.context_tokens == 0) {
    if (out.shape.max_position_embeddings == 0) {
      return R::failure(
          make_error(kMissingField, "context_tokens",
                     "required: the config has no max_position_embeddings to default to"));
    }
    out.workload.context_tokens = out.shape.max_position_embeddings;
    out.assumptions.push_back("context not given: the model's max_position_embeddings, " +
                              with_commas(out.workload.context_tokens) + " tokens");
  }
  const Result<KvEstimate> kv_estimate =
      kv_totals(out.shape, out.kv_dtype, out.state_dtype, out.workload);
  if (!kv_estimate.ok) return R::failure(kv_estimate.error);
  out.kv = kv_estimate.value;

  if (in.prompt_tokens != 0 || in.output_tokens != 0) {
    if (in.prompt_tokens == 0) {
      return R::failure(
          make_error(kMissingField, "prompt_tokens", "required with output_tokens (at least 1)"));
    }
    const Result<ProjectionCount> p = kv_projection_count(in.prompt_tokens, in.output_tokens);
    if (!p.ok) return R::failure(p.error);
    out.has_projections = true;
    out.prompt_tokens = in.prompt_tokens;
    out.output_tokens = in.output_tokens;
    out.projections = p.value;
  }
  return R::success(std::move(out));
}

std::string kv_bytes_per_token_formula(const GroupKv& g, const Dtype& kv) {
  const LayerSpec& s = g.group.spec;
  if (!s.keeps_tokens()) return "";
  const std::string layers = std::to_string(g.group.layer_indices.size());
  if (s.attention == AttentionKind::kCompressed) {
    const uint64_t count = g.group.layer_indices.size();
    std::string out = layers + " × " + with_commas(g.kv_bytes_per_token_per_layer) +
                      " bytes per window entry (" + kv.name +
                      ") = " + with_commas(g.kv_bytes_per_token) + " bytes";
    if (s.compress_ratio == 0) return out;
    return out + "; every " + std::to_string(s.compress_ratio) + " tokens " + layers + " × " +
           with_commas(g.compressed_bytes_per_entry / count) + " bytes per compressed entry" +
           (s.indexer_head_dim != 0 ? " (latent + indexer key)" : "") + " = " +
           with_commas(g.compressed_bytes_per_entry) + " bytes";
  }
  const std::string total = " = " + with_commas(g.kv_bytes_per_token) + " bytes";
  const bool whole_bytes = kv.block_values == 1 && kv.row_scale_bits == 0 && kv.block_bits % 8 == 0;
  if (whole_bytes) {
    const std::string bytes = std::to_string(kv.block_bits / 8);
    if (s.v_head_dim == 0) {  // MLA: one latent per token, no head count, no V
      if (s.indexer_head_dim == 0)
        return layers + " × " + std::to_string(s.k_head_dim) + " × " + bytes + total;
      const uint64_t latent = uint64_t{s.k_head_dim} * (kv.block_bits / 8);
      return layers + " × (" + std::to_string(s.k_head_dim) + " × " + bytes + " + " +
             with_commas(g.kv_bytes_per_token_per_layer - latent) + " bytes of indexer key)" +
             total;
    }
    if (s.indexer_head_dim != 0) {  // MiniMax-M3: K and V, and the index key beside them
      return layers + " × (2 × " + std::to_string(s.kv_heads) + " × " +
             std::to_string(s.k_head_dim) + " × " + bytes + " + " +
             std::to_string(s.indexer_head_dim) + " × 2 bytes of bf16 index key)" + total;
    }
    if (s.k_head_dim == s.v_head_dim) {
      return "2 × " + layers + " × " + std::to_string(s.kv_heads) + " × " +
             std::to_string(s.k_head_dim) + " × " + bytes + total;
    }
    return layers + " × " + std::to_string(s.kv_heads) + " × (" + std::to_string(s.k_head_dim) +
           " + " + std::to_string(s.v_head_dim) + ") × " + bytes + total;
  }
  return layers + " × " + with_commas(g.kv_bytes_per_token_per_layer) + " bytes per layer (" +
         kv.name + ": " + kv.description + ")" + total;
}

}  // namespace kvscope
