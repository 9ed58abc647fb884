// A server on llama.cpp's buffers (llama-server itself, and Ollama, which runs llama-server since
// 0.30 and sized its own caches alike before): how each layer's cache is sized, where layers go,
// and what one server's devices hold. engine_llamacpp.cpp plans it; engine_ollama.cpp gives it
// Ollama's inputs and rules.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/checked_math.hpp"
#include "kvscope/engines/plan_types.hpp"

namespace kvscope::engines {

// What differs between the servers on llama.cpp's buffers.
struct LlamaServerRules {
  // Cells one layer's K/V keeps over every stream, for `n_ctx` cells requested in all (-c).
  CheckedU64 (*layer_cells)(const LayerSpec& l, uint64_t n_ctx, const PlanInput& in,
                            const LlamaServerRules& rules) = nullptr;
  // The model types whose sliding layers get a sliding cache; the rest keep full ones.
  bool (*windows)(const std::string& model_type) = nullptr;
  uint64_t cell_pad = 256;             // n_ctx is a multiple of this
  uint64_t sliding_memory_tokens = 0;  // tokens a sliding layer keeps past its window (Ollama)
  // Place as many layers as fit each GPU with `fit_margin_bytes` free and the compute buffer
  // (llama.cpp's --fit when -ngl is not given; Ollama's own layout before 0.30), instead of
  // every layer -ngl names.
  bool fit_layers = false;
  uint64_t fit_margin_bytes = 0;
};

// llama-server's rules: caches padded to 256 cells (builds of 2025 without flash attention: 32),
// a stream per sequence unless unified, sliding windows per stream (src/llama-kv-cache-iswa.cpp).
LlamaServerRules llamacpp_rules(const PlanInput& in);

// The architectures llama.cpp gives sliding-window caches (src/llama-model.cpp load_hparams).
bool llamacpp_windows(const std::string& model_type);

// The GGUF the plan's --weight-dtype names, as GGUF files are named (model-Q4_K_M.gguf); a
// format with no GGUF type is a line for `unexpressed`.
std::string gguf_file_name(const PlanInput& in, const PlanReport& r,
                           std::vector<std::string>& unexpressed);

// `n` rounded up to a multiple of `to`; overflowed when that passes 2^64-1.
CheckedU64 pad(uint64_t n, uint64_t to);

// The K and V buffers of `n_ctx` cells in all (-c) on one server's devices (`in.llama_cpp`:
// slots, ubatch, where layers go), the layers each device holds, and whether they fit.
// r.max_model_len is set to the cells one sequence may use.
Result<PlanReport> plan_llama_server(PlanReport r, const ModelShape& shape, const PlanInput& in,
                                     uint64_t n_ctx, const LlamaServerRules& rules);

}  // namespace kvscope::engines
