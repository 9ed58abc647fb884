// The page's first module: presets read from the bytes its build imported (preset_data.hpp), and
// the config.json reader's entry points answering that the full module reads configs.
#include <string_view>

#include "kvscope/config_import.hpp"
#include "kvscope/imported_model_bytes.hpp"
#include "kvscope/plan.hpp"
#include "preset_data.hpp"

namespace kvscope {
namespace {

Error needs_full_module(const char* field, const char* what) {
  return make_error(kNeedsFullModule, field,
                    std::string("reading ") + what + " needs kvscope's full module (this one has "
                    "no config.json reader)");
}

}  // namespace

Result<ImportedModel> import_preset(const ModelEntry& entry) {
  const std::vector<ModelEntry>& catalog = model_catalog();
  for (size_t i = 0; i < catalog.size(); ++i)
    if (catalog[i].id == entry.id)
      return imported_model_from_bytes(
          model_bytes_at(std::string_view(data::kPresetBytes, data::kPresetBytesSize), i));
  return Result<ImportedModel>::failure(make_error(kInternalError, "model", "no preset " + entry.id));
}

Result<ImportedModel> import_config(std::string_view) {
  return Result<ImportedModel>::failure(needs_full_module("config", "a config.json"));
}

Result<std::string> apply_config_overrides(const std::string&,
                                           const std::vector<std::pair<std::string, std::string>>&) {
  return Result<std::string>::failure(needs_full_module("set", "a config's what-ifs"));
}

Result<uint64_t> read_weights_index(std::string_view) {
  return Result<uint64_t>::failure(needs_full_module("weights_index", "a weights index"));
}

// No plan here has what-ifs (apply_config_overrides refuses them), so none is without effect.
std::optional<Error> override_without_effect(const PlanInput&, const PlanReport&) {
  return std::nullopt;
}

Result<SpeculativeDecoding> read_speculative_config(std::string_view) {
  return Result<SpeculativeDecoding>::failure(
      needs_full_module("speculative_config", "a speculative config"));
}

}  // namespace kvscope
