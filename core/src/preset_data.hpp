// The presets as the page's first module carries them: each catalogue model's import, written by
// imported_model_bytes when the module was built (wasm/preset_data.cpp generates the definitions).
#pragma once

#include <cstddef>

namespace kvscope::data {

// Each model's bytes in catalogue order, each preceded by its length as a LEB128 varint.
extern const char kPresetBytes[];
extern const size_t kPresetBytesSize;

}  // namespace kvscope::data
