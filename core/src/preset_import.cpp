// Catalogue entries imported from their configs, as any config.json is.
#include "kvscope/config_import.hpp"

namespace kvscope {

Result<ImportedModel> import_preset(const ModelEntry& entry) {
  Result<ImportedModel> imported = import_config(entry.config_json);
  if (!imported.ok) imported.error.code = kInternalError;  // a bug in core/data, not the user's
  return imported;
}

}  // namespace kvscope
