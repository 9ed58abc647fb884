// quantization_config -> WeightStorage. The tensors each method stores per linear layer follow
// the loaders' parameter shapes in vLLM (vllm/model_executor/layers/quantization/: fp8.py
// Fp8LinearMethod.create_weights, mxfp4.py Mxfp4MoEMethod, awq.py AWQLinearMethod, gptq.py
// GPTQLinearMethod, compressed_tensors/schemes/*, modelopt.py ModelOptFp8LinearMethod /
// ModelOptNvFp4LinearMethod) and transformers' bitsandbytes integration (Params4bit quant_state:
// absmax per 64 values, nested absmax per 256 blocks, quant maps).
#include "model/config/quantization_config.hpp"

#include <algorithm>

#include "model/config/config_reader.hpp"

namespace kvscope {
namespace {

using config::ConfigReader;
using config::describe;
using json = nlohmann::ordered_json;  // one JSON type in the core: readers keep document order too

constexpr uint32_t kFp32 = 32, kFp16 = 16, kE8m0 = 8, kFp8 = 8;

// A group of `group` input values per scale along each output row (-1: the whole row).
uint32_t group_tile(int64_t group) { return group <= 0 ? 0 : static_cast<uint32_t>(group); }

std::string group_text(int64_t group) {
  return group <= 0 ? std::string("per channel") : "group " + std::to_string(group);
}

// A signed group size (-1 = per channel), or `fallback` when absent.
int64_t group_size(ConfigReader& r, const char* key, int64_t fallback) {
  if (!r.has(key)) return fallback;
  const json& v = r.config()[key];
  if (v.is_number_integer() && v.get<int64_t>() == -1) return -1;
  return static_cast<int64_t>(r.count(key, 1, 1 << 20).value_or(0));
}

class QuantizationReader {
 public:
  QuantizationReader(const json& config, const std::string& path, const std::string& model_type,
                     const Dtype& plain, std::vector<std::string>& assumptions)
      : r_(config, path + ".", "", assumptions),
        type_(model_type),
        path_(path),
        assumptions_(assumptions) {
    s_.plain = plain_format(plain);
  }

  Result<WeightStorage> run() {
    std::string method = r_.text("quant_method").value_or("");
    if (method.empty()) method = inferred_method();
    s_.method = method;
    if (method == "fp8") {
      fp8();
    } else if (method == "mxfp4") {
      mxfp4();
    } else if (method == "awq" || method == "gptq" || method == "auto-round") {
      int_groups(method);
    } else if (method == "compressed-tensors") {
      compressed_tensors();
    } else if (method == "modelopt") {
      modelopt();
    } else if (method == "bitsandbytes") {
      bitsandbytes();
    } else if (method == "fbgemm_fp8") {
      s_.rules.push_back(
          {{}, {}, quantized_format("fp8 + fp32 scale per channel", 8, 1, 0, kFp32)});
      s_.kept_patterns = r_.string_list("modules_to_not_convert");
      keep_head_and_routers();
      label("fp8 per channel", "fbgemm fp8: linear layers in fp8 with an fp32 scale per channel");
    } else if (!r_.failed()) {
      s_.exact = false;
      s_.name = s_.plain.name;
      s_.summary = "quant_method " + (method.empty() ? std::string("(none)") : describe(method)) +
                   " is not modelled: every tensor sized as " + s_.plain.name;
      assumptions_.push_back(path_ + ": " + s_.summary);
    }
    if (r_.failed()) return Result<WeightStorage>::failure(r_.error());
    if (s_.exact) assumptions_.push_back(path_ + ": " + s_.summary);
    return Result<WeightStorage>::success(std::move(s_));
  }

 private:
  // Files that say what they are by their fields: ModelOpt's hf_quant_config.json
  // ({"producer": {"name": "modelopt"}, "quantization": {...}}) and AutoGPTQ's
  // quantize_config.json ({"bits", "group_size", "desc_act", ...}).
  std::string inferred_method() {
    const json& c = r_.config();
    if (c.contains("producer") && c["producer"].is_object() && c["producer"].contains("name") &&
        c["producer"]["name"] == "modelopt") {
      return "modelopt";
    }
    if (c.contains("bits") && c.contains("group_size") &&
        (c.contains("desc_act") || c.contains("sym"))) {
      return "gptq";
    }
    return "";
  }

  // Takes over the first error of a nested reader; true when there was one.
  bool adopt_failure(const ConfigReader& other) {
    if (!other.failed()) return false;
    const Error& e = other.error();
    r_.fail_at(e.code.c_str(), e.field, e.message.substr(e.field.size() + 2));
    return true;
  }

  void label(std::string name, std::string summary) {
    s_.name = std::move(name);
    s_.summary = std::move(summary);
  }

  // Quantizers leave the output head and the MoE routers (gates) in the checkpoint dtype unless
  // a config says otherwise.
  void keep_head_and_routers() { s_.kept_modules = {ModuleClass::kLmHead, ModuleClass::kRouter}; }

  // DeepSeek / Qwen fine-grained fp8 (weight_block_size [128, 128]: one fp32 weight_scale_inv per
  // block) or per-tensor fp8 (one fp32 weight_scale, and an input_scale when static).
  void fp8() {
    s_.kept_patterns = r_.string_list("modules_to_not_convert");
    for (const std::string& p : r_.string_list("ignored_layers")) s_.kept_patterns.push_back(p);
    keep_head_and_routers();
    s_.fp8_compute = true;
    const std::string activations = r_.text("activation_scheme").value_or("dynamic");
    if (r_.has("weight_block_size")) {
      const json& b = r_.config()["weight_block_size"];
      if (!b.is_array() || b.size() != 2) {
        r_.fail(kInvalidValue, "weight_block_size",
                "expected [rows, cols] of a scale block, got " + describe(b));
        return;
      }
      const auto rows = r_.to_count(b[0], "weight_block_size[0]", 1, 1 << 16);
      const auto cols = r_.to_count(b[1], "weight_block_size[1]", 1, 1 << 16);
      if (!rows || !cols) return;
      const std::string block = std::to_string(*rows) + "x" + std::to_string(*cols);
      if (type_ == "deepseek_v4") {
        deepseek_v4_experts(block, static_cast<uint32_t>(*rows), static_cast<uint32_t>(*cols));
        return;
      }
      s_.rules.push_back(
          {{},
           {},
           quantized_format("fp8 e4m3 + fp32 scale per " + block + " block", 8,
                            static_cast<uint32_t>(*rows), static_cast<uint32_t>(*cols), kFp32)});
      label("fp8 " + block + " blocks",
            "fp8 with " + block +
                " block scales: linear layers in fp8 e4m3 plus one fp32 scale "
                "per " +
                block + " block; embeddings, norms, routers and head in " + s_.plain.name);
      return;
    }
    MatrixFormat f = quantized_format("fp8 e4m3 + fp32 scale per tensor", 8, 0, 0, kFp32);
    if (activations == "static") f.tensor_bytes = 4;  // input_scale
    s_.rules.push_back({{}, {}, f});
    label("fp8 per tensor",
          "fp8 per tensor: linear layers in fp8 e4m3 with one fp32 scale each" +
              std::string(activations == "static" ? " (and an input scale)" : "") +
              "; embeddings, norms, routers and head in " + s_.plain.name);
  }

  // DeepSeek-V4: vLLM reads its "fp8" config as deepseek_v4_fp8 (DeepseekV4ForCausalLMConfig,
  // vllm/model_executor/models/config.py), whose routed experts are MXFP4 unless expert_dtype
  // says fp8 (the -Base checkpoints); linear layers keep an e8m0 scale per block (scale_fmt).
  void deepseek_v4_experts(const std::string& block, uint32_t rows, uint32_t cols) {
    const std::string experts = r_.text("expert_dtype").value_or("fp4");
    const bool e8m0 = r_.text("scale_fmt").value_or("") == "ue8m0";
    const MatrixFormat fp8 = quantized_format(
        "fp8 e4m3 + " + std::string(e8m0 ? "e8m0" : "fp32") + " scale per " + block + " block", 8,
        rows, cols, e8m0 ? kE8m0 : kFp32);
    if (experts == "fp4") {
      s_.rules.push_back({{ModuleClass::kRoutedExperts},
                          {},
                          fp4_group_format("mxfp4 (fp4 e2m1 + e8m0 scale per 32)", 32, kE8m0)});
      if (!r_.has("expert_dtype")) {
        r_.assume(path_ +
                  ": routed experts in MXFP4 as vLLM loads a deepseek_v4 checkpoint "
                  "(expert_dtype absent: fp4; the -Base checkpoints keep them in fp8)");
      }
    }
    s_.rules.push_back({{}, {}, fp8});
    label(
        experts == "fp4" ? "fp8 " + block + " blocks + mxfp4 experts" : "fp8 " + block + " blocks",
        "fp8 with " + block + " block scales" +
            (experts == "fp4" ? ", routed experts in MXFP4 (fp4 + e8m0 scale per 32)" : "") +
            "; embeddings, norms, routers and head in " + s_.plain.name);
  }

  // gpt-oss: routed experts in MXFP4 (32 fp4 values in 16 bytes + one e8m0 scale byte); the
  // rest (modules_to_not_convert: attention, routers, embeddings, head) in the plain dtype.
  void mxfp4() {
    s_.kept_patterns = r_.string_list("modules_to_not_convert");
    s_.rules.push_back({{ModuleClass::kRoutedExperts},
                        {},
                        fp4_group_format("mxfp4 (fp4 e2m1 + e8m0 scale per 32)", 32, kE8m0)});
    label("mxfp4 experts",
          "MXFP4: routed experts in fp4 with an e8m0 scale per 32 values (4.25 "
          "bits); attention, routers, embeddings and head in " +
              s_.plain.name);
  }

  // AWQ (AutoAWQ WQLinear_GEMM: qweight, qzeros packed in int32, fp16 scales per group) and
  // GPTQ (AutoGPTQ QuantLinear: the same plus a g_idx int32 per input column).
  void int_groups(const std::string& method) {
    const uint64_t bits =
        r_.count(method == "awq" && !r_.has("bits") ? "w_bit" : "bits", 2, 8).value_or(4);
    const int64_t group = group_size(
        r_, method == "awq" && !r_.has("group_size") ? "q_group_size" : "group_size", 128);
    if (r_.failed()) return;
    const bool zeros = method != "awq" || r_.flag("zero_point").value_or(true);
    MatrixFormat f =
        quantized_format(method + " int" + std::to_string(bits) + " " + group_text(group),
                         static_cast<uint32_t>(bits), 1, group_tile(group),
                         kFp16 + (zeros ? static_cast<uint32_t>(bits) : 0));
    if (method == "gptq") f.bits_per_col = 32;  // g_idx
    // AutoRound quantizes the decoder blocks it names (block_name_to_quantize) and nothing else.
    std::vector<std::string> blocks;
    if (method == "auto-round" && r_.has("block_name_to_quantize")) blocks = {"model.layers"};
    s_.rules.push_back({{}, blocks, f});
    s_.kept_patterns = r_.string_list("modules_to_not_convert");
    keep_head_and_routers();
    if (method == "gptq") {
      if (r_.flag("lm_head").value_or(false)) s_.kept_modules = {ModuleClass::kRouter};
      // GPTQModel's dynamic rules: "-:pattern" leaves matching modules unquantized.
      if (r_.has("dynamic") && r_.config()["dynamic"].is_object()) {
        for (const auto& [key, value] : r_.config()["dynamic"].items()) {
          if (key.rfind("-:", 0) == 0) s_.kept_patterns.push_back("re:" + key.substr(2));
        }
      }
    }
    if (method == "auto-round") s_.exact = false;  // packed in GPTQ or AWQ layout; sized as AWQ
    if (r_.failed()) return;
    const std::string what = (method == "awq"    ? "AWQ"
                              : method == "gptq" ? "GPTQ"
                                                 : "AutoRound") +
                             std::string(" int") + std::to_string(bits) + ", " + group_text(group);
    label(method + "-int" + std::to_string(bits) + (group > 0 ? ":g" + std::to_string(group) : ""),
          what + ": linear layers in " + std::to_string(bits) + "-bit integers with an fp16 scale" +
              (zeros ? " and a zero point" : "") + " per group" +
              (method == "gptq" ? " and an int32 g_idx per input" : "") +
              "; embeddings, norms, routers and head in " + s_.plain.name);
  }

  // One compressed-tensors weight scheme (QuantizationArgs) in a storage format.
  std::optional<MatrixFormat> ct_format(ConfigReader& w, const std::string& format) {
    const uint64_t bits = w.count("num_bits", 1, 16).value_or(8);
    const std::string type = w.text("type").value_or("int");
    const std::string strategy = w.text("strategy").value_or("tensor");
    const bool symmetric = w.flag("symmetric").value_or(true);
    const int64_t group = group_size(w, "group_size", 128);
    if (w.failed()) return std::nullopt;
    const uint32_t scale_bits = format == "nvfp4-pack-quantized" ? kFp8 : s_.plain.group_bits;
    const uint32_t zero_bits = symmetric ? 0 : static_cast<uint32_t>(bits);
    uint32_t rows = 0, cols = 0;
    if (strategy == "channel") {
      rows = 1;
    } else if (strategy == "group" || strategy == "tensor_group") {
      rows = 1;
      cols = group_tile(group);
    } else if (strategy == "block") {
      const json* b = w.lookup("block_structure");
      if (b == nullptr || !b->is_array() || b->size() != 2 || !(*b)[0].is_number_unsigned() ||
          !(*b)[1].is_number_unsigned()) {
        w.fail(kInvalidValue, "block_structure", "expected [rows, cols] for strategy block");
        return std::nullopt;
      }
      rows = (*b)[0].get<uint32_t>();
      cols = (*b)[1].get<uint32_t>();
    } else if (strategy != "tensor") {
      w.fail(kUnsupported, "strategy", "unknown weight strategy " + describe(json(strategy)));
      return std::nullopt;
    }
    MatrixFormat f = quantized_format(
        type + std::to_string(bits) + " " + strategy +
            (cols != 0 && strategy != "block" ? " " + std::to_string(cols) : std::string()) + " (" +
            format + ")",
        static_cast<uint32_t>(bits), rows, cols, scale_bits + zero_bits);
    if (format == "pack-quantized") f.tensor_bytes = 8;  // weight_shape: two int32
    if (format == "nvfp4-pack-quantized" || strategy == "tensor_group") f.tensor_bytes = 4;
    return f;
  }

  void compressed_tensors() {
    std::string global_format = r_.text("format").value_or("float-quantized");
    std::replace(global_format.begin(), global_format.end(), '_', '-');  // "pack_quantized"
    s_.kept_patterns = r_.string_list("ignore");
    if (r_.failed()) return;
    if (!r_.has("config_groups") || !r_.config()["config_groups"].is_object()) {
      r_.fail(kMissingField, "config_groups", "a compressed-tensors config needs config_groups");
      return;
    }
    std::string names;
    for (const auto& [group_name, group] : r_.config()["config_groups"].items()) {
      const std::string at = "config_groups." + group_name;
      ConfigReader g(group, path_ + "." + at + ".", "", assumptions_);
      if (!group.is_object() || !group.contains("weights") || !group["weights"].is_object()) {
        r_.fail(kInvalidValue, at + ".weights", "expected the group's weight scheme");
        return;
      }
      const std::string format = g.text("format").value_or(global_format);
      if (format.find("sparse") != std::string::npos || format == "marlin-24") {
        s_.exact = false;
        assumptions_.push_back(path_ + "." + at + ": 2:4 sparse format " + format +
                               " sized as its dense values");
      }
      ConfigReader w(group["weights"], path_ + "." + at + ".weights.", "", assumptions_);
      std::optional<MatrixFormat> f = ct_format(w, format);
      if (adopt_failure(w)) return;
      const json* in = g.lookup("input_activations");
      if (in != nullptr && in->is_object() && in->contains("type") && (*in)["type"] == "float" &&
          in->contains("num_bits") && (*in)["num_bits"] == 8) {
        s_.fp8_compute = true;
      }
      if (format == "nvfp4-pack-quantized" && in != nullptr && in->is_object())
        f->tensor_bytes += 4;  // input_global_scale
      StorageRule rule{{}, {}, *f};
      for (const std::string& t : g.string_list("targets")) {
        if (t.rfind("re:", 0) == 0 || t.find('.') != std::string::npos) rule.patterns.push_back(t);
      }
      if (adopt_failure(g)) return;
      names += (names.empty() ? "" : ", ") + f->name;
      s_.rules.push_back(std::move(rule));
    }
    // Regex targets first: a "Linear" group is the catch-all.
    std::stable_sort(s_.rules.begin(), s_.rules.end(),
                     [](const StorageRule& a, const StorageRule& b) {
                       return !a.patterns.empty() && b.patterns.empty();
                     });
    if (!type_is_deepseek())
      s_.kept_modules = {};
    else
      s_.kept_modules = {ModuleClass::kRouter};  // MoEGate is not an nn.Linear
    label(s_.rules.size() == 1 ? s_.rules[0].format.name : "compressed-tensors mixed",
          "compressed-tensors: " + names + "; ignored (kept in " + s_.plain.name +
              "): " + std::to_string(s_.kept_patterns.size()) + " patterns");
  }

  bool type_is_deepseek() const {
    return type_.rfind("deepseek", 0) == 0 || type_ == "kimi_k2" || type_ == "glm4_moe";
  }

  // NVIDIA ModelOpt (config.json quantization_config, or hf_quant_config.json's "quantization").
  void modelopt() {
    const json& q = r_.has("quantization") && r_.config()["quantization"].is_object()
                        ? r_.config()["quantization"]
                        : r_.config();
    ConfigReader m(q, path_ + (&q == &r_.config() ? "." : ".quantization."), "", assumptions_);
    const std::string algo = m.text("quant_algo").value_or("");
    const uint64_t group = m.count("group_size", 1, 1 << 16).value_or(16);
    s_.kept_patterns = m.string_list("exclude_modules");
    if (adopt_failure(m)) return;
    if (algo == "FP8") {
      MatrixFormat f = quantized_format("fp8 e4m3 + fp32 weight and input scale", 8, 0, 0, kFp32);
      f.tensor_bytes = 4;  // input_scale
      s_.rules.push_back({{}, {}, f});
      s_.fp8_compute = true;
      label("fp8 per tensor",
            "ModelOpt FP8: linear layers in fp8 e4m3 with fp32 weight and input "
            "scales; excluded modules in " +
                s_.plain.name);
    } else if (algo == "NVFP4") {
      MatrixFormat f =
          fp4_group_format("nvfp4 (fp4 e2m1 + fp8 scale per " + std::to_string(group) + ")",
                           static_cast<uint32_t>(group), kFp8);
      f.tensor_bytes = 8;  // weight_scale_2 and input_scale, fp32
      s_.rules.push_back({{}, {}, f});
      label("nvfp4", "ModelOpt NVFP4: linear layers in fp4 e2m1 with an fp8 scale per " +
                         std::to_string(group) +
                         " values and fp32 global scales; excluded "
                         "modules in " +
                         s_.plain.name);
    } else if (algo == "FP8_PB_WO" || algo == "FP8_BLOCKWISE") {
      s_.rules.push_back(
          {{},
           {},
           quantized_format("fp8 e4m3 + fp32 scale per 128x128 block", 8, 128, 128, kFp32)});
      label("fp8 128x128 blocks",
            "ModelOpt block fp8: linear layers in fp8 with an fp32 scale per "
            "128x128 block");
    } else {
      s_.exact = false;
      s_.name = s_.plain.name;
      s_.summary = "ModelOpt quant_algo " + describe(json(algo)) +
                   " is not modelled: every tensor sized as " + s_.plain.name;
      assumptions_.push_back(path_ + ": " + s_.summary);
    }
  }

  // bitsandbytes 4-bit (nf4 / fp4: absmax per 64 values, fp32, or uint8 with an fp32 absmax per
  // 256 blocks under double quantization) and LLM.int8 (int8 with an fp32 scale per row).
  void bitsandbytes() {
    s_.kept_patterns = r_.string_list("llm_int8_skip_modules");
    s_.kept_modules = {ModuleClass::kLmHead};  // transformers get_keys_to_not_convert
    if (r_.flag("load_in_4bit").value_or(false)) {
      const std::string type = r_.text("bnb_4bit_quant_type").value_or("fp4");
      const bool nested = r_.flag("bnb_4bit_use_double_quant").value_or(false);
      MatrixFormat f = quantized_format(
          type + (nested ? " + double-quantized absmax per 64" : " + fp32 absmax per 64"), 4, 1, 64,
          nested ? 8 : kFp32);
      // quant_map (16 fp32), the serialized quant_state, and with double quant the nested
      // quant_map (256 fp32) and offset.
      f.tensor_bytes = nested ? 64 + 1024 + 4 + 160 : 64 + 160;
      if (nested) {
        f.nested_tiles = 256;
        f.nested_bits = kFp32;
      }
      s_.rules.push_back({{}, {}, f});
      label("bnb " + type, "bitsandbytes " + type + ": linear layers in 4 bits with an absmax " +
                               (nested ? "(double-quantized) " : "") +
                               "per 64 values; head, "
                               "embeddings and norms in " +
                               s_.plain.name);
    } else if (r_.flag("load_in_8bit").value_or(false)) {
      MatrixFormat f = quantized_format("int8 + fp32 scale per row (LLM.int8)", 8, 1, 0, kFp32);
      f.tensor_bytes = 1;  // weight_format
      s_.rules.push_back({{}, {}, f});
      label("bnb int8", "bitsandbytes LLM.int8: linear layers in int8 with an fp32 scale per row");
    } else if (!r_.failed()) {
      r_.fail(kInvalidValue, "load_in_4bit", "neither load_in_4bit nor load_in_8bit is true");
    }
  }

  ConfigReader r_;
  std::string type_;
  std::string path_;
  std::vector<std::string>& assumptions_;
  WeightStorage s_;
};

}  // namespace

Result<WeightStorage> read_quantization_config(const json& config, const std::string& path,
                                               const std::string& model_type, const Dtype& plain,
                                               std::vector<std::string>& assumptions) {
  if (!config.is_object()) {
    return Result<WeightStorage>::failure(
        make_error(kInvalidValue, path, "expected an object, got " + describe(config)));
  }
  return QuantizationReader(config, path, model_type, plain, assumptions).run();
}

}  // namespace kvscope
