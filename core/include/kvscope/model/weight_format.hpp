// How a checkpoint stores its weights: storage formats of a weight matrix with their exact scale
// and index tensors, and the rules (a quantization_config, or a weight dtype the user picks) that
// say which tensors are in which format.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kvscope/model/dtype.hpp"
#include "kvscope/base/error.hpp"

namespace kvscope {

enum class ModuleClass {
  kEmbedding,
  kAttention,
  kRecurrent,
  kMlp,
  kRouter,
  kRoutedExperts,
  kSharedExperts,
  kNorms,
  kLmHead,
};
// "embedding", "attention", "recurrent", "mlp", "router", "routed_experts", "shared_experts",
// "norms", "lm_head".
const char* module_class_name(ModuleClass module);

// One matrix of `rows` outputs x `cols` inputs stored as:
// - values in groups of `group_values` along a row costing `group_bits` (block scales of ggml and
//   AWQ-style formats folded in), the whole matrix as one stream;
// - plus a scale (and zero point) per tile of `tile_rows` x `tile_cols` (0 = the whole dimension;
//   no tile cost when `tile_bits` is 0): fp8 128 x 128 blocks, per-channel or per-group scales;
// - plus `bits_per_col` per input column (GPTQ's g_idx), `tensor_bytes` per tensor (global
//   scales, bitsandbytes' quant maps) and `nested_bits` per `nested_tiles` tiles (double quant).
struct MatrixFormat {
  std::string name;  // "bf16", "fp8 e4m3 + fp32 scale per 128x128 block", ...
  uint32_t group_values = 1;
  uint32_t group_bits = 16;
  uint32_t tile_rows = 0;
  uint32_t tile_cols = 0;
  uint32_t tile_bits = 0;
  uint32_t bits_per_col = 0;
  uint64_t tensor_bytes = 0;
  uint32_t nested_tiles = 0;
  uint32_t nested_bits = 0;
  bool quantized = false;  // false for the checkpoint's plain dtype
};

// Exact bytes of `copies` matrices of rows x cols (the value stream rounded up to a byte per
// matrix). Fails only on overflow.
Result<uint64_t> matrix_bytes(const MatrixFormat& format, uint64_t rows, uint64_t cols,
                              uint64_t copies);

// A plain dtype as a format (bf16: 16 bits a value; q4_k_m: its average bits, no tiles).
MatrixFormat plain_format(const Dtype& dtype);
// Values of `bits` bits; a scale (and zero point) of `tile_bits` per tile_rows x tile_cols.
MatrixFormat quantized_format(std::string name, uint32_t bits, uint32_t tile_rows,
                              uint32_t tile_cols, uint32_t tile_bits);
// fp4 e2m1 values in groups of `group`, each group with one scale of `scale_bits` (MXFP4, NVFP4).
MatrixFormat fp4_group_format(std::string name, uint32_t group, uint32_t scale_bits);

// Module-name patterns, shared by the copies of a storage until one changes them: a ModelOpt
// checkpoint lists hundreds, and a plan copies its storage with every report and shape.
class PatternList {
 public:
  PatternList() = default;
  PatternList(std::vector<std::string> patterns)  // NOLINT: a list reads as its patterns
      : items_(std::make_shared<std::vector<std::string>>(std::move(patterns))) {}
  std::vector<std::string>::const_iterator begin() const { return items().begin(); }
  std::vector<std::string>::const_iterator end() const { return items().end(); }
  size_t size() const { return items().size(); }
  bool empty() const { return items().empty(); }
  void push_back(std::string pattern) {
    if (!items_ || items_.use_count() > 1)
      items_ = std::make_shared<std::vector<std::string>>(items());
    items_->push_back(std::move(pattern));
  }

 private:
  const std::vector<std::string>& items() const {
    static const std::vector<std::string> none;
    return items_ ? *items_ : none;
  }
  std::shared_ptr<std::vector<std::string>> items_;
};

// Which tensors a format applies to: module classes, and/or module-name patterns as the
// quantization configs write them: a name or prefix ("lm_head", "model.layers.0.mlp"), a glob
// ("model.layers.*.self_attn"), a suffix at a dot ("gate" matches "model.layers.3.mlp.gate"),
// or "re:" and a regular expression matched from the start (".", "*", "+", "?", "[...]", "|",
// "(...)", "^", "$", "\d", "\.").
struct StorageRule {
  std::vector<ModuleClass> modules;   // empty: any linear tensor
  PatternList patterns;               // empty: any name
  MatrixFormat format;
};

struct WeightStorage {
  std::string name;     // short label: "bf16", "fp8 128x128 blocks", "mxfp4 experts", ...
  std::string method;   // quant_method as the config spells it; empty for a plain checkpoint
  std::string summary;  // one line: what is stored how
  bool fp8_compute = false;  // activations quantized to fp8 too (the fp8 tensor-core peak applies)
  bool exact = true;         // false when the method is not modelled or averages a mixture
  std::vector<StorageRule> rules;         // first match wins, for linear tensors
  PatternList kept_patterns;              // modules left in `plain` (modules_to_not_convert, ignore)
  std::vector<ModuleClass> kept_modules;  // module classes left in `plain`
  MatrixFormat plain;                     // everything else: the checkpoint's dtype
  bool whole_file = false;                // GGUF: embeddings quantized too
};

// A checkpoint stored in one dtype throughout.
WeightStorage plain_storage(const Dtype& dtype);
// The user's --weight-dtype: linear layers in `dtype`, embeddings, head, norms and routers in
// `unquantized` (GGUF types: everything in `dtype`).
WeightStorage storage_from_dtype(const Dtype& dtype, const Dtype& unquantized);

// Whether a pattern (as above) matches a module name. Malformed regular expressions never
// match.
bool module_pattern_matches(const std::string& pattern, const std::string& name);

}  // namespace kvscope
