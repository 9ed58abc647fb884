// Hugging Face config.json -> ModelShape, covering the field variants engines read
// (see shared/docs/engine-formulas.md §1.2 and §5). Nothing is guessed silently: every default
// filled in is listed in `assumptions`, and anything not understood is an error naming the field.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kvscope/error.hpp"
#include "kvscope/model_shape.hpp"

namespace kvscope {

struct ImportedModel {
  ModelShape shape;
  std::vector<std::string> assumptions;  // one sentence each, naming the field and the value used
};

// Parses config.json text. Never throws; errors name the field path ("text_config.head_dim").
Result<ImportedModel> import_config(std::string_view json_text);

}  // namespace kvscope
