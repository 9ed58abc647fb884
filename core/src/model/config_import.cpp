// What reads a model's config, in either build: each entry point answers through the build's
// kConfigReader (the seam, kvscope/model/config_import.hpp).
#include "kvscope/model/config_import.hpp"

namespace kvscope {

ImportedModel::ImportedModel() = default;

Result<ImportedModel> import_config(std::string_view json_text) {
  return kConfigReader.import_config(json_text);
}

Result<ImportedModel> import_preset(const ModelEntry& entry) {
  return kConfigReader.import_preset(entry);
}

Result<std::string> apply_config_overrides(
    const std::string& config_json,
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  return kConfigReader.apply_config_overrides(config_json, overrides);
}

Result<uint64_t> read_weights_index(std::string_view json_text) {
  return kConfigReader.read_weights_index(json_text);
}

Result<SpeculativeDecoding> read_speculative_config(std::string_view json_text) {
  return kConfigReader.read_speculative_config(json_text);
}

}  // namespace kvscope
