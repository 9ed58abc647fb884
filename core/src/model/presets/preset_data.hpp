// The presets as the page's first module carries them: each catalogue model's import, as bytes
// written when the module was built (wasm/write_preset_data.cpp generates the definitions).
#pragma once

#include <cstddef>

namespace kvscope::data {

// The models in catalogue order, as append_model_bytes writes them (preset_codec.hpp).
extern const char kPresetBytes[];
extern const size_t kPresetBytesSize;

}  // namespace kvscope::data
