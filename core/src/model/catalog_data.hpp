// The catalogues compiled into the core (generated from core/data/*.json by core/CMakeLists.txt).
#pragma once

namespace kvscope::data {

extern const char* const kModelsJson;
extern const char* const kGpusJson;
extern const char* const kConfigDefaultsJson;

}  // namespace kvscope::data
