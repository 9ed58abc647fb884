// config.json import: the language model's config found inside a wrapper, its importer run, the
// quantization_config read; the reader's entry points as kvscope::sizing's kConfigReader. Field precedence follows vLLM's ModelConfig (vllm/config/model.py) and
// the transformers configuration classes; family defaults live in data/config_defaults.json.
#include "kvscope/model/config_import.hpp"

#include "model/config/importer.hpp"
#include "model/config/quantization_config.hpp"

namespace kvscope::config {

Result<ModelShape> Importer::run() {
  reject_unsupported();
  read_architectures();
  read_dimensions();
  if (auto f = r_.count("index_topk_freq", 1, kMaxLayers)) index_freq_ = *f;
  if (auto o = r_.count("index_skip_topk_offset", 0, kMaxLayers))
    index_offset_ = static_cast<int64_t>(*o);
  read_layer_types();
  read_moe();
  read_layer_extras();
  read_draft_layers();
  read_ssm_state_dtype();
  read_dtype();
  if (r_.failed()) return Result<ModelShape>::failure(r_.error());
  return Result<ModelShape>::success(std::move(shape_));
}

using json = nlohmann::ordered_json;  // one JSON type in the core: readers keep document order too

Result<ImportedModel> import_config(std::string_view json_text) {
  const Result<json> parsed = parse_python_json(json_text, "config");
  if (!parsed.ok) return Result<ImportedModel>::failure(parsed.error);
  const json& root = parsed.value;
  if (!root.is_object()) {
    return Result<ImportedModel>::failure(
        make_error(kInvalidJson, "config", "expected a JSON object, got " + describe(root)));
  }
  ImportedModel out;
  const json* text = &root;
  std::string prefix;
  for (const char* wrapper : {"text_config", "llm_config", "language_config"}) {
    if (root.contains(wrapper) && root[wrapper].is_object()) {
      text = &root[wrapper];
      prefix = std::string(wrapper) + ".";
      out.assumptions.push_back(std::string("language model read from ") + wrapper +
                                " (multimodal wrapper)");
      break;
    }
  }
  std::string model_type;
  for (const json* obj : {text, &root}) {
    if (!obj->contains("model_type") || (*obj)["model_type"].is_null()) continue;
    const json& v = (*obj)["model_type"];
    if (!v.is_string() || non_finite_number(v)) {
      return Result<ImportedModel>::failure(
          make_error(kInvalidValue, (obj == &root ? "" : prefix) + "model_type",
                     "expected a string such as \"llama\", got " + describe(v)));
    }
    model_type = v.get<std::string>();
    break;
  }
  const bool root_has_type = root.contains("model_type") && root["model_type"].is_string();
  if (text != &root && root_has_type && model_type == root["model_type"].get<std::string>() &&
      model_type.find("_text") == std::string::npos && !model_type.empty()) {
    model_type += "_text";  // Gemma 3 / Llama 4 text configs default to <type>_text classes
  }
  for (const char* tower : {"vision_config", "audio_config", "visual"}) {
    if (root.contains(tower) && root[tower].is_object()) {
      out.assumptions.push_back(std::string(tower) +
                                " present: its encoder's weights are not counted (the language "
                                "model only)");
    }
  }
  config::Importer importer(*text, prefix, model_type, root, out.assumptions);
  Result<ModelShape> shape = importer.run();
  if (!shape.ok) return Result<ImportedModel>::failure(shape.error);
  out.shape = std::move(shape.value);
  // An encoder beside the language model: its tower, or the keys that wire one in (a subset
  // without the tower still says vision_feature_layer, mm_tokens_per_image, ...).
  for (const auto& [key, value] : root.items()) {
    for (const char* wiring : {"vision_", "audio_", "image_token", "mm_", "multimodal_", "visual"})
      out.shape.has_encoder = out.shape.has_encoder || key.rfind(wiring, 0) == 0;
  }
  // The vision tower's depth and width as SGLang's adjust_mem_fraction_for_vlm reads them
  // (getattr with 24 and 1024: a Qwen-VL tower's "depth" is not read).
  if (root.contains("vision_config") && root["vision_config"].is_object()) {
    const json& v = root["vision_config"];
    const auto count = [&v](const char* key, uint64_t fallback) {
      return v.contains(key) && v[key].is_number_unsigned() ? v[key].get<uint64_t>() : fallback;
    };
    out.shape.vision_layers = count("num_hidden_layers", 24);
    out.shape.vision_hidden_size = count("hidden_size", 1024);
  }
  // Quantized checkpoints say how they store their weights; the rest is in torch_dtype.
  const Dtype plain = parse_dtype(out.shape.torch_dtype, DtypeUse::kWeight, "torch_dtype").value;
  out.shape.weights = plain_storage(plain);
  for (const json* obj : {&root, text}) {
    if (!obj->contains("quantization_config") || (*obj)["quantization_config"].is_null()) continue;
    const std::string path = (obj == &root ? "" : prefix) + "quantization_config";
    json q = (*obj)["quantization_config"];
    // Older compressed-tensors checkpoints keep the scheme in a sibling compression_config.
    if (q.is_object() && !q.contains("config_groups") && obj->contains("compression_config") &&
        (*obj)["compression_config"].is_object()) {
      const json& c = (*obj)["compression_config"];
      const json& scheme = c.contains("quantization_config") && c["quantization_config"].is_object()
                               ? c["quantization_config"]
                               : c;
      for (const auto& [key, value] : scheme.items()) {
        if (!q.contains(key)) q[key] = value;
      }
      out.assumptions.push_back(path + ": the scheme read from compression_config");
    }
    Result<WeightStorage> storage =
        read_quantization_config(q, path, out.shape.model_type, plain, out.assumptions);
    if (!storage.ok) return Result<ImportedModel>::failure(storage.error);
    out.shape.weights = std::move(storage.value);
    break;
  }
  return Result<ImportedModel>::success(std::move(out));
}

// Catalogue entries are imported from their configs as any config.json is.
Result<ImportedModel> import_preset(const ModelEntry& entry) {
  Result<ImportedModel> imported = import_config(entry.config_json);
  if (!imported.ok) imported.error.code = kInternalError;  // a bug in core/data, not the user's
  return imported;
}

}  // namespace kvscope::config

namespace kvscope {

const ConfigReader kConfigReader = {config::import_config, config::import_preset,
                                    config::apply_config_overrides, config::read_weights_index,
                                    config::read_speculative_config};

}  // namespace kvscope
