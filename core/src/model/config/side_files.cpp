// Files beside config.json: a checkpoint's model.safetensors.index.json (its total_size) and
// vLLM's --speculative-config JSON.
#include "model/config/importer.hpp"

namespace kvscope::config {

using json = nlohmann::ordered_json;  // one JSON type in the core: readers keep document order too

Result<uint64_t> read_weights_index(std::string_view json_text) {
  using R = Result<uint64_t>;
  const Result<json> parsed = parse_python_json(json_text, "weights_index");
  if (!parsed.ok) return R::failure(parsed.error);
  const json& root = parsed.value;
  if (!root.is_object() || !root.contains("metadata") || !root["metadata"].is_object() ||
      !root["metadata"].contains("total_size")) {
    return R::failure(
        make_error(kMissingField, "weights_index.metadata.total_size",
                   "missing: a model.safetensors.index.json has metadata.total_size"));
  }
  std::vector<std::string> ignored;
  ConfigReader r(root["metadata"], "weights_index.metadata.", "", ignored);
  const std::optional<uint64_t> total = r.count("total_size", 1, uint64_t{1} << 52);
  if (!total) return R::failure(r.error());
  return R::success(*total);
}

Result<SpeculativeDecoding> read_speculative_config(std::string_view json_text) {
  using R = Result<SpeculativeDecoding>;
  const Result<json> parsed = parse_python_json(json_text, "speculative_config");
  if (!parsed.ok) return R::failure(parsed.error);
  if (!parsed.value.is_object()) {
    return R::failure(make_error(kInvalidValue, "speculative_config",
                                 "expected an object such as {\"method\": \"mtp\"}"));
  }
  std::vector<std::string> ignored;
  ConfigReader r(parsed.value, "speculative_config.", "", ignored);
  SpeculativeDecoding out;
  out.method = r.text("method").value_or("");
  out.num_speculative_tokens = r.count("num_speculative_tokens", 1, 64).value_or(0);
  if (r.failed()) return R::failure(r.error());
  // vLLM's per-model MTP methods (deepseek_mtp, qwen3_next_mtp, ...) are the model's MTP layers.
  if (out.method.size() > 4 && out.method.compare(out.method.size() - 4, 4, "_mtp") == 0)
    out.method = "mtp";
  if (out.method != "mtp" && out.method != "ngram" && out.method != "suffix") {
    return R::failure(make_error(
        kUnsupported, "speculative_config.method",
        quote_user_text(out.method) +
            " is not modelled: a draft model (eagle, eagle3, medusa, draft_model) needs its own "
            "config; give \"mtp\" (the model's MTP layers) or \"ngram\""));
  }
  return R::success(out);
}

}  // namespace kvscope::config
