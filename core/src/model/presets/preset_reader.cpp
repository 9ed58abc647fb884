// The page's first module's kConfigReader (the seam: kvscope/model/config_import.hpp): presets read
// from the bytes its build imported (preset_data.hpp), and every config, what-if and side file
// answered with needs_full_module, the full module reading them.
#include <string_view>

#include "kvscope/model/config_import.hpp"
#include "kvscope/model/preset_codec.hpp"
#include "model/presets/preset_data.hpp"

namespace kvscope {
namespace {

Error needs_full_module(const char* field, const char* what) {
  return make_error(kNeedsFullModule, field,
                    std::string("reading ") + what + " needs kvscope's full module (this one has "
                    "no config.json reader)");
}

Result<ImportedModel> preset_from_bytes(const ModelEntry& entry) {
  const std::vector<ModelEntry>& catalog = model_catalog();
  for (size_t i = 0; i < catalog.size(); ++i)
    if (catalog[i].id == entry.id)
      return decode_imported_model(
          model_bytes_at(std::string_view(data::kPresetBytes, data::kPresetBytesSize), i));
  return Result<ImportedModel>::failure(make_error(kInternalError, "model", "no preset " + entry.id));
}

Result<ImportedModel> refuse_config(std::string_view) {
  return Result<ImportedModel>::failure(needs_full_module("config", "a config.json"));
}

Result<std::string> refuse_overrides(const std::string&,
                                     const std::vector<std::pair<std::string, std::string>>&) {
  return Result<std::string>::failure(needs_full_module("set", "a config's what-ifs"));
}

Result<uint64_t> refuse_weights_index(std::string_view) {
  return Result<uint64_t>::failure(needs_full_module("weights_index", "a weights index"));
}

Result<SpeculativeDecoding> refuse_speculative_config(std::string_view) {
  return Result<SpeculativeDecoding>::failure(
      needs_full_module("speculative_config", "a speculative config"));
}

}  // namespace

const ConfigReader kConfigReader = {refuse_config, preset_from_bytes, refuse_overrides,
                                    refuse_weights_index, refuse_speculative_config};

}  // namespace kvscope
