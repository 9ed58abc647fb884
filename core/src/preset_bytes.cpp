// The page's first module: presets read from the bytes its build imported (preset_data.hpp), and
// the config.json reader's entry points answering that the full module reads configs.
#include <cstdint>
#include <string_view>

#include "kvscope/config_import.hpp"
#include "kvscope/imported_model_bytes.hpp"
#include "kvscope/plan.hpp"
#include "preset_data.hpp"

namespace kvscope {
namespace {

// The bytes of the catalogue's `index`-th model; empty past the last.
std::string_view preset_bytes(size_t index) {
  std::string_view all(data::kPresetBytes, data::kPresetBytesSize);
  for (;;) {
    uint64_t length = 0;
    for (int shift = 0; !all.empty(); shift += 7) {
      const auto byte = static_cast<unsigned char>(all[0]);
      all.remove_prefix(1);
      length |= uint64_t{byte & 0x7fu} << shift;
      if (!(byte & 0x80)) break;
    }
    if (length > all.size()) return {};
    if (index-- == 0) return all.substr(0, static_cast<size_t>(length));
    all.remove_prefix(static_cast<size_t>(length));
  }
}

Error needs_full_module(const char* field, const char* what) {
  return make_error(kNeedsFullModule, field,
                    std::string("reading ") + what + " needs kvscope's full module (this one has "
                    "no config.json reader)");
}

}  // namespace

Result<ImportedModel> import_preset(const ModelEntry& entry) {
  const std::vector<ModelEntry>& catalog = model_catalog();
  for (size_t i = 0; i < catalog.size(); ++i)
    if (catalog[i].id == entry.id) return imported_model_from_bytes(preset_bytes(i));
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
