// config.json's quantization_config: how a quantized checkpoint stores its weights.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kvscope/model/dtype.hpp"
#include "kvscope/base/error.hpp"
#include "kvscope/model/weight_format.hpp"

namespace kvscope {

// Reads `config` (the quantization_config object, at `path`) for a `model_type` checkpoint whose
// unquantized tensors are `plain`. Methods not modelled leave the weights in `plain`, with an
// assumption saying so and `exact` false; malformed fields are errors naming them.
Result<WeightStorage> read_quantization_config(const nlohmann::ordered_json& config,
                                               const std::string& path,
                                               const std::string& model_type, const Dtype& plain,
                                               std::vector<std::string>& assumptions);

}  // namespace kvscope
