// The longest sequence an engine accepts for a model, derived from config.json as the engine
// derives it, and what the engine says when a longer one is asked for.
#pragma once

#include <cstdint>
#include <string>

#include "kvscope/model/model_shape.hpp"

namespace kvscope {

struct ContextLimit {
  uint64_t tokens = 0;          // the derived maximum (0 when the config gives none)
  uint64_t default_tokens = 0;  // what the engine uses when no length is given
  std::string derived_from;     // as the engine prints it: "max_position_embeddings=40960"
  std::string explanation;      // one sentence with the numbers
};

// vLLM (vllm/config/model.py _get_and_verify_max_len): the smallest of max_position_embeddings
// and its aliases, times the rope_scaling factor except for longrope / llama3 (yarn: the
// original_max_position_embeddings times the factor; Gemma 3 is already scaled). With no length
// given, longrope models default to original_max_position_embeddings.
ContextLimit vllm_context_limit(const ModelShape& shape);

// SGLang (python/sglang/srt/configs/model_config.py get_context_length): the first of
// max_sequence_length, seq_length, max_seq_len, model_max_length, max_position_embeddings,
// times the rope factor unless original_max_position_embeddings is given or the type is llama3.
ContextLimit sglang_context_limit(const ModelShape& shape);

// llama.cpp's n_ctx_train: the GGUF's context_length, which convert_hf_to_gguf.py writes from
// max_position_embeddings (rope scaling does not raise it); past it llama.cpp warns and starts.
ContextLimit llamacpp_context_limit(const ModelShape& shape);

// vLLM's ValueError for a max_model_len above the derived maximum.
std::string vllm_context_error(uint64_t max_model_len, const ContextLimit& limit,
                               const ModelShape& shape);
// SGLang's refusal of a --context-length above the derived one.
std::string sglang_context_error(uint64_t context_length, const ContextLimit& limit);
// llama.cpp's warning when the per-sequence context exceeds n_ctx_train (it still starts;
// src/llama-context.cpp llama_context constructor).
std::string llamacpp_context_warning(uint64_t n_ctx_seq, uint64_t n_ctx_train);

}  // namespace kvscope
