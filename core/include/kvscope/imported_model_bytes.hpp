// An imported model as bytes and back: how the page's first module carries the catalogue's
// presets, imported when the module is built (wasm/preset_shapes.cpp), so that it needs no
// config.json importer. One field list per type (`fields`) serves both directions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "kvscope/config_import.hpp"
#include "kvscope/error.hpp"

namespace kvscope {

std::string imported_model_bytes(const ImportedModel& model);

// The model imported_model_bytes wrote; bytes it did not write are an internal error.
Result<ImportedModel> imported_model_from_bytes(std::string_view bytes);

// Models one after another, each as its length and its bytes: how the build hands the catalogue's
// presets to the first module. append_model_bytes adds one; model_bytes_at finds the `index`-th
// (empty past the last).
void append_model_bytes(std::string& all, const ImportedModel& model);
std::string_view model_bytes_at(std::string_view all, size_t index);

}  // namespace kvscope
