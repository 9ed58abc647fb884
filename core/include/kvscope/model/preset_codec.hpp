// An imported model as bytes and back: how the page's first module carries the catalogue's
// presets, imported when the module is built (wasm/write_preset_data.cpp), so that it needs no
// config.json importer. One field list per type (`fields`) serves both directions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "kvscope/model/config_import.hpp"
#include "kvscope/base/error.hpp"

namespace kvscope {

std::string encode_imported_model(const ImportedModel& model);

// The model encode_imported_model wrote; bytes it did not write are an internal error.
Result<ImportedModel> decode_imported_model(std::string_view bytes);

// Models one after another, each as its length and its bytes: how the build hands the catalogue's
// presets to the first module. append_model_bytes adds one; model_bytes_at finds the `index`-th
// (empty past the last).
void append_model_bytes(std::string& all, const ImportedModel& model);
std::string_view model_bytes_at(std::string_view all, size_t index);

}  // namespace kvscope
