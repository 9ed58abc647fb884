// The dtype table: names, aliases and each format's block and scale bits (their byte arithmetic is
// dtype_bytes.cpp). Costs come from the formats' definitions:
// ggml block sizes (ggml/src/ggml-common.h block_q8_0 etc.), vLLM's kv_cache_dtype handling
// (vllm/v1/kv_cache_interface.py AttentionSpec.real_page_size_bytes for per-token-head scales,
// nvfp4_kv_cache_full_dim for nvfp4), AutoAWQ/GPTQ packing (int4 + fp16 scale + 4-bit zero per
// group).
#include "kvscope/model/dtype.hpp"

#include <algorithm>

#include "base/spelling.hpp"

namespace kvscope {
namespace {

struct DtypeRow {
  const char* name;
  const char* aliases;  // space separated
  uint32_t block_values;
  uint32_t block_bits;
  uint32_t row_scale_bits;
  bool for_kv;
  bool for_weights;
  bool exact;
  bool
      whole_file;  // GGUF types quantize the embeddings too; other weight formats leave them 16-bit
  const char* description;
};

// Mixture rows (exact=false) quote llama.cpp's tools/quantize/README.md "Llama 2 7B" table of
// bits per weight, as bits per 100 weights.
constexpr DtypeRow kDtypes[] = {
    {"fp32", "f32 float32 float", 1, 32, 0, true, true, true, false, "4 bytes per value"},
    {"fp16", "f16 float16 half", 1, 16, 0, true, true, true, false, "2 bytes per value"},
    {"bf16", "bfloat16", 1, 16, 0, true, true, true, false, "2 bytes per value"},
    {"fp8", "fp8_e4m3 float8_e4m3fn e4m3", 1, 8, 0, true, true, true, false,
     "1 byte per value (e4m3), per-tensor scale"},
    {"fp8_e5m2", "float8_e5m2 e5m2", 1, 8, 0, true, true, true, false,
     "1 byte per value (e5m2), per-tensor scale"},
    {"int8", "i8", 1, 8, 0, true, true, true, false, "1 byte per value, per-tensor scale"},
    {"int8_per_token_head", "", 1, 8, 32, true, false, true, false,
     "1 byte per value + one fp32 scale per token per head (vLLM int8_per_token_head)"},
    {"fp8_per_token_head", "", 1, 8, 32, true, false, true, false,
     "1 byte per value + one fp32 scale per token per head (vLLM fp8_per_token_head)"},
    {"fp8_ds_mla", "", 1, 8, 0, true, false, true, false,
     "DeepSeek MLA only: 512 fp8 latent values + 4 fp32 scales + 64 bf16 rope = 656 bytes per "
     "token (vLLM's FlashMLA-sparse layout, SGLang's NSA fp8)"},
    {"int4", "i4", 2, 8, 0, true, true, true, false, "half a byte per value, per-tensor scale"},
    {"nvfp4", "fp4", 16, 72, 0, true, true, true, false,
     "16 fp4 values (8 bytes) + one fp8 block scale = 9 bytes per 16 values"},
    {"q8_0", "", 32, 34 * 8, 0, true, true, true, true,
     "ggml block: 32 int8 + fp16 scale = 34 bytes"},
    {"q5_1", "", 32, 24 * 8, 0, true, true, true, true,
     "ggml block: 32 x 5 bits + fp16 scale and min = 24 bytes"},
    {"q5_0", "", 32, 22 * 8, 0, true, true, true, true,
     "ggml block: 32 x 5 bits + fp16 scale = 22 bytes"},
    {"q4_1", "", 32, 20 * 8, 0, true, true, true, true,
     "ggml block: 32 x 4 bits + fp16 scale and min = 20 bytes"},
    {"q4_0", "", 32, 18 * 8, 0, true, true, true, true,
     "ggml block: 32 x 4 bits + fp16 scale = 18 bytes"},
    {"iq4_nl", "", 32, 18 * 8, 0, true, true, true, true,
     "ggml block: 32 x 4-bit non-linear + fp16 scale = 18 bytes"},
    {"q6_k", "", 256, 210 * 8, 0, false, true, true, true,
     "GGUF Q6_K: ggml super-blocks of 256 values in 210 bytes (6.5625 bpw)"},
    {"q5_k_m", "", 100, 568, 0, false, true, false, true, "GGUF Q5_K_M mixture: 5.68 bpw average"},
    {"q5_k_s", "", 100, 552, 0, false, true, false, true, "GGUF Q5_K_S mixture: 5.52 bpw average"},
    {"q4_k_m", "", 100, 484, 0, false, true, false, true, "GGUF Q4_K_M mixture: 4.84 bpw average"},
    {"q4_k_s", "", 100, 458, 0, false, true, false, true, "GGUF Q4_K_S mixture: 4.58 bpw average"},
    {"q3_k_l", "", 100, 427, 0, false, true, false, true, "GGUF Q3_K_L mixture: 4.27 bpw average"},
    {"q3_k_m", "", 100, 391, 0, false, true, false, true, "GGUF Q3_K_M mixture: 3.91 bpw average"},
    {"q3_k_s", "", 100, 350, 0, false, true, false, true, "GGUF Q3_K_S mixture: 3.50 bpw average"},
    {"q2_k", "", 100, 335, 0, false, true, false, true, "GGUF Q2_K mixture: 3.35 bpw average"},
};

constexpr uint32_t kDefaultGroupSize = 128;

bool matches(const DtypeRow& row, const std::string& name) {
  if (name == row.name) return true;
  std::string_view aliases = row.aliases;
  while (!aliases.empty()) {
    const size_t space = aliases.find(' ');
    if (aliases.substr(0, space) == name) return true;
    if (space == std::string_view::npos) break;
    aliases.remove_prefix(space + 1);
  }
  return false;
}

Dtype from_row(const DtypeRow& row) {
  return Dtype{row.name,        row.block_values, row.block_bits, row.row_scale_bits, row.for_kv,
               row.for_weights, row.exact,        row.whole_file, row.description};
}

std::string known_names(DtypeUse use) {
  std::string out;
  for (const DtypeRow& row : kDtypes) {
    if (use == DtypeUse::kKv ? !row.for_kv : !row.for_weights) continue;
    if (!out.empty()) out += ", ";
    out += row.name;
  }
  if (use == DtypeUse::kWeight) out += ", awq-int4[:gN], gptq-int4[:gN]";
  return out;
}

// "awq-int4", "gptq-int4:g64": 4-bit weights with an fp16 scale and a packed 4-bit zero per group.
Result<Dtype> parse_group_int4(const std::string& name, const std::string& field) {
  const std::string family = name.substr(0, name.find('-'));
  uint32_t group = kDefaultGroupSize;
  const size_t colon = name.find(':');
  if (colon != std::string::npos) {
    const std::string spec = name.substr(colon + 1);
    if (spec.size() < 2 || spec[0] != 'g' || spec.size() > 6 ||
        !std::all_of(spec.begin() + 1, spec.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return Result<Dtype>::failure(make_error(kInvalidValue, field,
                                               "group size must be written :gN (e.g. " + family +
                                                   "-int4:g64), got " + quote_user_text(spec)));
    }
    group = static_cast<uint32_t>(std::stoul(spec.substr(1)));
    if (group < 8 || group % 8 != 0 || group > 8192) {
      return Result<Dtype>::failure(make_error(
          kOutOfRange, field,
          "group size must be a multiple of 8 in [8, 8192], got " + std::to_string(group)));
    }
  }
  Dtype d;
  d.name = family + "-int4:g" + std::to_string(group);
  d.block_values = group;
  d.block_bits = group * 4 + 16 + 4;
  d.for_kv = false;
  d.description = family == "awq" ? "AWQ int4, group " : "GPTQ int4, group ";
  d.description +=
      std::to_string(group) + ": 4 bits per weight + fp16 scale + 4-bit zero per group";
  return Result<Dtype>::success(d);
}

}  // namespace

Result<Dtype> parse_dtype(std::string_view spelling, DtypeUse use, const std::string& field) {
  const std::string name = lowercase(spelling);
  const char* use_word = use == DtypeUse::kKv ? "KV cache" : "weight";
  if (name.rfind("awq-int4", 0) == 0 || name.rfind("gptq-int4", 0) == 0) {
    const size_t stem = name.find("int4") + 4;
    if (name.size() == stem || name[stem] == ':') {
      if (use == DtypeUse::kKv) {
        return Result<Dtype>::failure(make_error(
            kInvalidValue, field,
            quote_user_text(spelling) +
                " is a weight format, not a KV cache dtype (known: " + known_names(use) + ")"));
      }
      return parse_group_int4(name, field);
    }
  }
  for (const DtypeRow& row : kDtypes) {
    if (!matches(row, name)) continue;
    if (use == DtypeUse::kKv ? !row.for_kv : !row.for_weights) {
      return Result<Dtype>::failure(make_error(kInvalidValue, field,
                                               quote_user_text(spelling) + " is not a " + use_word +
                                                   " dtype (known: " + known_names(use) + ")"));
    }
    return Result<Dtype>::success(from_row(row));
  }
  return Result<Dtype>::failure(make_error(kInvalidValue, field,
                                           "unknown " + std::string(use_word) + " dtype " +
                                               quote_user_text(spelling) +
                                               " (known: " + known_names(use) + ")"));
}

Result<Dtype> dtype_from_torch_dtype(std::string_view torch_dtype, const std::string& field) {
  const std::string name = lowercase(torch_dtype);
  for (const char* known : {"bfloat16", "float16", "float32"}) {
    if (name == known) return parse_dtype(name, DtypeUse::kWeight, field);
  }
  return Result<Dtype>::failure(make_error(kUnsupported, field,
                                           "unsupported torch_dtype " +
                                               quote_user_text(torch_dtype) +
                                               " (expected bfloat16, float16 or float32)"));
}

std::vector<Dtype> list_dtypes(DtypeUse use) {
  std::vector<Dtype> out;
  for (const DtypeRow& row : kDtypes) {
    if (use == DtypeUse::kKv ? row.for_kv : row.for_weights) out.push_back(from_row(row));
  }
  if (use == DtypeUse::kWeight) {
    out.push_back(parse_group_int4("awq-int4", "weight_dtype").value);
    out.push_back(parse_group_int4("gptq-int4", "weight_dtype").value);
  }
  return out;
}

}  // namespace kvscope
