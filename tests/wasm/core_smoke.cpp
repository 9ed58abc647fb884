// Runs the core compiled to WebAssembly under node: the catalogue parses, the importer and the KV
// arithmetic give the seed number, and a bad input is an error value, not an abort.
#include <cstdio>

#include "kvscope/kv/estimate.hpp"

int main() {
  kvscope::EstimateInput in;
  in.model_id = "llama-3.1-8b";
  in.context_tokens = 131072;
  const kvscope::Result<kvscope::EstimateReport> r = kvscope::estimate(in);
  if (!r.ok || r.value.kv.kv_bytes_per_token != 131072 ||
      r.value.kv.kv_bytes_per_sequence != (16ull << 30)) {
    std::printf("FAIL: %s\n", r.error.message.c_str());
    return 1;
  }
  in.config_json = "{\"num_hidden_layers\": 0";
  in.model_id.clear();
  const kvscope::Result<kvscope::EstimateReport> bad = kvscope::estimate(in);
  if (bad.ok || bad.error.field != "config") {
    std::printf("FAIL: broken config accepted\n");
    return 1;
  }
  std::printf("wasm core: %llu bytes per token, error path: %s\n",
              static_cast<unsigned long long>(r.value.kv.kv_bytes_per_token),
              bad.error.message.c_str());
  return 0;
}
