// The plan's weights: how they are stored, their total when it is known (--weights-bytes, an
// index file), and the MTP layers speculative decoding loads.
#include <algorithm>

#include "base/checked_math.hpp"
#include "kvscope/base/units.hpp"
#include "plan/plan_state.hpp"

namespace kvscope {

// How the weights are stored: --weight-dtype, else the checkpoint's own format. Unquantized
// tensors load in the serving dtype (a float32 checkpoint as float16).
Result<WeightStorage> resolve_weight_storage(const PlanInput& in, const ModelShape& shape) {
  const Dtype serving = parse_dtype(serving_dtype(shape), DtypeUse::kWeight, "weight_dtype").value;
  if (in.weight_dtype != "auto") {
    const Result<Dtype> chosen = parse_dtype(in.weight_dtype, DtypeUse::kWeight, "weight_dtype");
    if (!chosen.ok) return Result<WeightStorage>::failure(chosen.error);
    return Result<WeightStorage>::success(storage_from_dtype(chosen.value, serving));
  }
  if (shape.weights.method.empty()) return Result<WeightStorage>::success(plain_storage(serving));
  WeightStorage stored = shape.weights;
  stored.plain = plain_format(serving);
  return Result<WeightStorage>::success(stored);
}

// Weights whose total is known (--weights-bytes, or an index file's total_size less what is not
// loaded), split evenly over the replica's GPUs, with the module classes in the computed
// proportions (the roofline reads them).
WeightBytes given_weights(const PlanInput& in, uint64_t total, WeightBytes computed) {
  const uint64_t given = ceil_div(total, uint64_t{in.tensor_parallel} * in.pipeline_parallel);
  const double scale =
      computed.total == 0 ? 0 : static_cast<double>(given) / static_cast<double>(computed.total);
  for (ModuleBytes& m : computed.modules)
    m.bytes = static_cast<uint64_t>(static_cast<double>(m.bytes) * scale);
  computed.total = given;
  return computed;
}

// Speculative decoding with the model's MTP layers loads them, caches included
// (vllm/config/speculative.py: num_speculative_tokens a multiple of n_predict).
Result<bool> resolve_speculative(const PlanInput& in, const ModelShape& shape, PlanReport& r) {
  using RB = Result<bool>;
  if (in.speculative_config.empty()) return RB::success(false);
  const Result<SpeculativeDecoding> spec = read_speculative_config(in.speculative_config);
  if (!spec.ok) return RB::failure(spec.error);
  r.speculative = spec.value;
  if (spec.value.method != "mtp") return RB::success(false);
  const uint64_t n_predict = shape.draft_layers.size();
  if (n_predict == 0) {
    return RB::failure(make_error(kInvalidValue, "speculative_config.method",
                                  "\"mtp\" needs MTP layers, and the config has none "
                                  "(num_nextn_predict_layers / mtp_num_hidden_layers)"));
  }
  if (r.speculative.num_speculative_tokens == 0) r.speculative.num_speculative_tokens = n_predict;
  if (r.speculative.num_speculative_tokens % n_predict != 0) {
    return RB::failure(make_error(
        kInvalidValue, "speculative_config.num_speculative_tokens",
        "num_speculative_tokens:" + std::to_string(r.speculative.num_speculative_tokens) +
            " must be divisible by n_predict=" + std::to_string(n_predict)));
  }
  r.draft_layers_loaded = shape.draft_layers.size();
  r.notes.push_back("speculative decoding with " + std::to_string(n_predict) +
                    " MTP layer(s): their weights load (the target's embedding and head are "
                    "shared) and their caches join the KV pool");
  return RB::success(true);
}

// The weights' total when it is known rather than computed: --weights-bytes, or an index file's
// total_size less the MTP layers that do not load (0 = compute them per tensor). Sets the
// report's weights_source and checkpoint bytes.
Result<uint64_t> known_weights_total(const PlanInput& in, const std::vector<WeightTensor>& tensors,
                                     const WeightBytes& checkpoint, PlanReport& r) {
  using RU = Result<uint64_t>;
  r.weights_source = r.weights.summary;
  if (in.weights_bytes != 0) {
    r.weights_source = "given (--weights-bytes), split evenly over the replica's GPUs";
    return RU::success(in.weights_bytes);
  }
  if (in.weights_index_json.empty()) return RU::success(0);
  const Result<uint64_t> total = read_weights_index(in.weights_index_json);
  if (!total.ok) return total;
  const bool with_draft = r.draft_layers_loaded != 0;
  uint64_t draft_loaded = 0;  // the MTP tensors that load, in the checkpoint's formats
  if (with_draft) {
    std::vector<WeightTensor> draft;
    for (const WeightTensor& t : stage_tensors(tensors, r.estimate.shape.layers.size(), 0, 1, true))
      if (t.draft) draft.push_back(t);
    const Result<WeightBytes> b = weight_bytes(draft, r.estimate.shape.weights);
    if (!b.ok) return RU::failure(b.error);
    draft_loaded = b.value.total;
  }
  r.computed_checkpoint_weights_bytes = r.checkpoint_weights_bytes;
  r.checkpoint_weights_bytes = total.value;
  r.weights_source = "model.safetensors.index.json metadata.total_size " +
                     with_commas(total.value) + " bytes, exactly" +
                     (checkpoint.draft != 0 && !with_draft
                          ? ", less the MTP layers' " + format_gb(checkpoint.draft) +
                                " (computed) that load only for speculative decoding"
                          : std::string()) +
                     "; split over the GPUs in the computed proportions (kvscope computes " +
                     with_commas(r.computed_checkpoint_weights_bytes) +
                     " bytes for the checkpoint)";
  return RU::success(total.value > checkpoint.draft ? total.value - checkpoint.draft + draft_loaded
                                                    : 0);
}

}  // namespace kvscope
