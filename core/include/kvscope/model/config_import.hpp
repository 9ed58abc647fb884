// Hugging Face config.json -> ModelShape, covering the field variants engines read
// (see shared/docs/engine-formulas.md §1.2 and §5). Nothing is guessed silently: every default
// filled in is listed in `assumptions`, and anything not understood is an error naming the field.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kvscope/model/catalog.hpp"
#include "kvscope/base/error.hpp"
#include "kvscope/model/model_shape.hpp"

namespace kvscope {

struct ImportedModel {
  ImportedModel();  // out of line, as PlanReport()
  ModelShape shape;
  std::vector<std::string> assumptions;  // one sentence each, naming the field and the value used
};

// Applies `--set FIELD=VALUE` what-ifs to a config.json: VALUE is read as JSON (a bare word as a
// string); FIELD without a dot goes to the language model of a multimodal wrapper.
Result<std::string> apply_config_overrides(
    const std::string& config_json,
    const std::vector<std::pair<std::string, std::string>>& overrides);

// The metadata.total_size of a model.safetensors.index.json: the bytes of every tensor of the
// checkpoint. Errors name "weights_index".
Result<uint64_t> read_weights_index(std::string_view json_text);

// vLLM's --speculative-config JSON ({"method": "mtp", "num_speculative_tokens": 1}).
struct SpeculativeDecoding {
  std::string method;  // "mtp" (the model's own MTP layers), "ngram", ...; empty = none
  uint64_t num_speculative_tokens = 0;
};
Result<SpeculativeDecoding> read_speculative_config(std::string_view json_text);

// Parses config.json text. Never throws; errors name the field path ("text_config.head_dim").
Result<ImportedModel> import_config(std::string_view json_text);

// A catalogue entry's model: its config imported, or, in the page's first module, read from what
// the module's build imported.
Result<ImportedModel> import_preset(const ModelEntry& entry);

// The seam between kvscope's two builds of the sizing commands, its config half (the engines'
// half: core/src/engines/engine_planners.hpp): the five entry points above answer through the
// build's kConfigReader (core/src/model/config_import.cpp). kvscope::sizing (the
// CLI, the tests, the full module) links the config.json reader's (core/src/model/config/); the
// page's first module links the presets' (core/src/model/presets/preset_reader.cpp): each preset
// read from bytes its build imported, each config, what-if and side file refused with
// needs_full_module. So the first module links no config.json reader: 22.8 kB gzipped less
// (docs/figures.md), which its 150 kB budget depends on.
struct ConfigReader {
  Result<ImportedModel> (*import_config)(std::string_view json_text);
  Result<ImportedModel> (*import_preset)(const ModelEntry& entry);
  Result<std::string> (*apply_config_overrides)(
      const std::string& config_json,
      const std::vector<std::pair<std::string, std::string>>& overrides);
  Result<uint64_t> (*read_weights_index)(std::string_view json_text);
  Result<SpeculativeDecoding> (*read_speculative_config)(std::string_view json_text);
};
extern const ConfigReader kConfigReader;

}  // namespace kvscope
