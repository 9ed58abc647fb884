// libFuzzer target: arbitrary bytes as a config.json. The importer must return a value or an
// error naming a field; an imported shape must give finite, exact KV arithmetic or an error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "kvscope/model/config_import.hpp"
#include "kvscope/engines/context_limit.hpp"
#include "kvscope/model/dtype.hpp"
#include "kvscope/kv/kv_arithmetic.hpp"
#include "kvscope/model/weights.hpp"

namespace {

// An error says what and where, on one line.
void check_error(const kvscope::Error& e) {
  if (e.message.empty() || e.code.empty() || e.message.find('\n') != std::string::npos)
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // The same bytes as the other JSON files kvscope reads beside a config.json.
  const auto index = kvscope::read_weights_index(text);
  if (!index.ok) check_error(index.error);
  const auto speculative = kvscope::read_speculative_config(text);
  if (!speculative.ok) check_error(speculative.error);
  const kvscope::Result<kvscope::ImportedModel> model = kvscope::import_config(text);
  if (!model.ok) {
    check_error(model.error);
    return 0;
  }
  // The checkpoint's tensors in its own formats: the parts add up to the whole, draft included.
  const auto tensors = kvscope::weight_tensors(model.value.shape);
  if (tensors.ok) {
    const auto bytes = kvscope::weight_bytes(tensors.value, model.value.shape.weights);
    if (bytes.ok) {
      uint64_t parts = 0;
      for (const kvscope::ModuleBytes& m : bytes.value.modules) parts += m.bytes;
      if (parts != bytes.value.total || bytes.value.draft > bytes.value.total) std::abort();
    } else {
      check_error(bytes.error);
    }
  } else {
    check_error(tensors.error);
  }
  const kvscope::ContextLimit limit = kvscope::vllm_context_limit(model.value.shape);
  if (limit.tokens != 0 && limit.derived_from.empty()) std::abort();
  const auto bf16 = kvscope::parse_dtype("bf16", kvscope::DtypeUse::kKv, "kv_dtype");
  for (uint64_t context : {uint64_t{1}, uint64_t{4097}, uint64_t{1} << 20}) {
    const auto kv = kvscope::kv_totals(model.value.shape, bf16.value, bf16.value,
                                       kvscope::KvWorkload{context, 3, 16, 1});
    if (kv.ok && kv.value.kv_bytes_total < kv.value.kv_bytes_per_sequence)
      std::abort();  // 3 sequences hold more than 1
  }
  return 0;
}
