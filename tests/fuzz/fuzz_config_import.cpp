// libFuzzer target: arbitrary bytes as a config.json. The importer must return a value or an
// error naming a field; an imported shape must give finite, exact KV arithmetic or an error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "kvscope/config_import.hpp"
#include "kvscope/dtype.hpp"
#include "kvscope/kv_arithmetic.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const kvscope::Result<kvscope::ImportedModel> model = kvscope::import_config(text);
  if (!model.ok) {
    if (model.error.message.empty() || model.error.code.empty())
      std::abort();  // errors say what and where
    return 0;
  }
  const auto bf16 = kvscope::parse_dtype("bf16", kvscope::DtypeUse::kKv, "kv_dtype");
  for (uint64_t context : {uint64_t{1}, uint64_t{4097}, uint64_t{1} << 20}) {
    const auto kv = kvscope::estimate_kv(model.value.shape, bf16.value, bf16.value,
                                         kvscope::KvWorkload{context, 3, 16, 1});
    if (kv.ok && kv.value.kv_bytes_total < kv.value.kv_bytes_per_sequence)
      std::abort();  // 3 sequences hold more than 1
  }
  return 0;
}
