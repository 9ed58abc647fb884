// Context limits as vLLM, SGLang and llama.cpp derive them from config.json.
#include "kvscope/engines/context_limit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kvscope {
namespace {

// A number as Python prints it: an int, or a float with ".0" when a float factor produced it.
std::string python_number(double value, bool is_float) {
  char buf[64];
  if (is_float) {
    std::snprintf(buf, sizeof buf, "%.1f", value);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f", value);
  }
  return buf;
}

}  // namespace

ContextLimit vllm_context_limit(const ModelShape& shape) {
  ContextLimit out;
  const PositionLimits& p = shape.positions;
  if (p.keys.empty()) return out;
  const auto smallest = std::min_element(
      p.keys.begin(), p.keys.end(),
      [](const auto& a, const auto& b) { return a.second < b.second; });
  double derived = static_cast<double>(smallest->second);
  bool is_float = false;
  out.explanation = smallest->first + " " + std::to_string(smallest->second);
  const bool scaled = !p.rope_type.empty() && p.rope_factor > 0 && p.rope_type != "longrope" &&
                      p.rope_type != "llama3" &&
                      shape.model_type.find("gemma3") == std::string::npos;
  if (scaled) {
    char factor[32];
    std::snprintf(factor, sizeof factor, "%g", p.rope_factor);
    if (p.rope_type == "yarn" && p.original_max_position_embeddings != 0) {
      derived = static_cast<double>(p.original_max_position_embeddings);
      out.explanation = "rope_scaling yarn: original_max_position_embeddings " +
                        std::to_string(p.original_max_position_embeddings);
    } else {
      out.explanation += ", rope_scaling " + p.rope_type;
    }
    derived *= p.rope_factor;
    is_float = p.rope_factor_float;
    out.explanation += " x factor " + std::string(factor);
  }
  out.tokens = static_cast<uint64_t>(derived);
  out.derived_from = smallest->first + "=" + python_number(derived, is_float);
  out.default_tokens = out.tokens;
  out.explanation = "vLLM derives max_model_len " + std::to_string(out.tokens) + " from " +
                    out.explanation;
  if (p.rope_type == "longrope" && p.original_max_position_embeddings != 0) {
    out.default_tokens = p.original_max_position_embeddings;
    out.explanation += "; with longrope it defaults to original_max_position_embeddings " +
                       std::to_string(p.original_max_position_embeddings) +
                       " when no max_model_len is given";
  }
  return out;
}

ContextLimit sglang_context_limit(const ModelShape& shape) {
  ContextLimit out;
  const PositionLimits& p = shape.positions;
  auto find = [&](const char* key) -> uint64_t {
    for (const auto& [name, value] : p.keys) {
      if (name == key) return value;
    }
    return 0;
  };
  std::string key;
  uint64_t base = 0;
  for (const char* k : {"max_sequence_length", "seq_length", "max_seq_len", "model_max_length",
                        "max_position_embeddings"}) {
    const uint64_t v = std::string(k) == "model_max_length" ? p.model_max_length : find(k);
    if (v != 0) {
      key = k;
      base = v;
      break;
    }
  }
  if (base == 0) return out;
  double factor = 1;
  if (p.rope_factor > 0 && p.original_max_position_embeddings == 0 && p.rope_type != "llama3")
    factor = p.rope_factor;
  out.tokens = static_cast<uint64_t>(static_cast<double>(base) * factor);
  out.default_tokens = out.tokens;
  out.derived_from = key + "=" + std::to_string(base);
  out.explanation = "SGLang derives context_length " + std::to_string(out.tokens) + " from " +
                    key + " " + std::to_string(base) +
                    (factor != 1 ? " x rope_scaling factor" : "");
  return out;
}

ContextLimit llamacpp_context_limit(const ModelShape& shape) {
  ContextLimit out;
  if (shape.max_position_embeddings == 0) return out;
  out.tokens = out.default_tokens = shape.max_position_embeddings;
  out.derived_from = "n_ctx_train=" + std::to_string(out.tokens);
  out.explanation = "llama.cpp's n_ctx_train " + std::to_string(out.tokens) +
                    ": the GGUF's context_length, converted from max_position_embeddings; past "
                    "it llama.cpp warns and still starts";
  return out;
}

std::string vllm_context_error(uint64_t max_model_len, const ContextLimit& limit,
                               const ModelShape& shape) {
  const uint64_t mml = shape.positions.model_max_length;
  return "User-specified max_model_len (" + std::to_string(max_model_len) +
         ") is greater than the derived max_model_len (" + limit.derived_from +
         " or model_max_length=" + (mml == 0 ? std::string("None") : std::to_string(mml)) +
         " in model's config.json). To allow overriding this maximum, set the env var "
         "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with "
         "extreme caution. If the model uses relative position encoding (RoPE), positions "
         "exceeding derived_max_model_len lead to nan. If the model uses absolute position "
         "encoding, positions exceeding derived_max_model_len will cause a CUDA array "
         "out-of-bounds error.";
}

std::string sglang_context_error(uint64_t context_length, const ContextLimit& limit) {
  return "User-specified context_length (" + std::to_string(context_length) +
         ") is greater than the derived context_length (" + std::to_string(limit.tokens) +
         "). This may lead to incorrect model outputs or CUDA errors. Note that the derived "
         "context_length may differ from max_position_embeddings in the model's config. To "
         "allow overriding this maximum, set the env var "
         "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1";
}

std::string llamacpp_context_warning(uint64_t n_ctx_seq, uint64_t n_ctx_train) {
  return "llama_context: n_ctx_seq (" + std::to_string(n_ctx_seq) + ") > n_ctx_train (" +
         std::to_string(n_ctx_train) + ") -- possible training context overflow";
}

}  // namespace kvscope
