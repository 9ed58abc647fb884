// The model and GPU catalogues: one source of truth (core/data/*.json, compiled in), read by
// the CLI, the WASM module and the page alike.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kvscope/base/error.hpp"

namespace kvscope {

struct ModelEntry {
  std::string id;    // lowercase, hyphenated: "llama-3.1-8b"
  std::string name;  // "Llama 3.1 8B"
  std::string family;
  std::string hf_id;  // "meta-llama/Llama-3.1-8B": the checkpoint whose config this is
  // The chat/instruct checkpoint of the same shape that users serve, where hf_id is a base one
  // ("meta-llama/Llama-3.1-8B-Instruct"); empty when hf_id is served as it is.
  std::string serve_id;
  std::vector<std::string> aliases;  // Hugging Face ids of checkpoints with this same config
  std::string source;  // where the config was read
  uint64_t params_published = 0;         // maker's published total, 0 when none is published
  uint64_t active_params_published = 0;  // MoE: published activated parameters
  std::string config_json;  // the config.json subset, fed to import_config
  std::string base_model;   // a quantized checkpoint's: the Hugging Face id it was made from
  // What launch commands serve: the chat checkpoint, else the config's own.
  const std::string& served_id() const { return serve_id.empty() ? hf_id : serve_id; }
};

struct GpuEntry {
  std::string id;  // "h100-sxm-80gb"
  std::string name;
  std::string vendor;
  std::string device_class;     // architecture and memory: "hopper-hbm", "ada-gddr", ...
  std::string compute_capability;  // NVIDIA's "9.0", AMD's gfx target "gfx942"
  std::string memory_marketed;  // "80 GB HBM3"
  uint64_t memory_bytes = 0;    // total as the device reports it
  std::string memory_bytes_source;
  uint64_t bandwidth_bytes_per_s = 0;  // datasheet peak
  double bf16_dense_flops = 0;         // datasheet dense peak, 0 when the chip has none
  double fp8_dense_flops = 0;
  double fp16_dense_flops = 0;  // cards without bf16 (Volta, Turing): bf16 checkpoints run in fp16
  std::string source;
  // A dated public on-demand list price per GPU-hour (0 = none cited: the solver asks for one).
  double usd_per_hour = 0;
  std::string price_source;  // provider, page, the date it was read, where it was transcribed
};

const std::vector<ModelEntry>& model_catalog();
const std::vector<GpuEntry>& gpu_catalog();

// One published measurement of decode attention: what ran, where, and what it achieved.
struct DecodeEfficiencyAnchor {
  std::string device_class;  // a GpuEntry's device_class: "hopper-hbm", "blackwell-hbm", ...
  std::string kv_dtype;      // "bf16", "fp16", "fp8"
  uint64_t batch = 0;
  uint64_t context = 0;      // tokens per sequence (the mean for a ragged batch)
  double achieved_bytes_per_s = 0;
  double datasheet_bytes_per_s = 0;
  std::string measured_on;   // "H100 SXM"
  std::string kernel;        // the kernel and problem, in words
  std::string source;        // where it was published
  double efficiency() const { return achieved_bytes_per_s / datasheet_bytes_per_s; }
};

const std::vector<DecodeEfficiencyAnchor>& decode_efficiency_anchors();


// Case-insensitive lookup by id, Hugging Face id (with or without the organisation), alias or
// display name ("qwen3-32b", "Qwen/Qwen3-32B", "Qwen3-32B", "Qwen3 32B"); an unknown name yields
// an error that suggests close ids.
Result<ModelEntry> find_model(std::string_view id);
Result<GpuEntry> find_gpu(std::string_view id);

// The model a log or a file name stands for: find_model, else the one entry whose spelling
// matches once paths, organisations, ".gguf", GGUF quant tags and the words Meta, Instruct,
// Chat, it, hf and Base are dropped ("/models/Meta-Llama-3.1-8B-Instruct" -> llama-3.1-8b,
// "Meta Llama 3 8B Instruct" -> llama-3-8b). A name that matches none, or several, is an error.
Result<ModelEntry> identify_model(std::string_view printed);

// A checkpoint's name (a repository, a folder) to the catalogue model it packages: identify_model
// of the whole name, else of its last part with words dropped from the end until one entry
// matches ("nvidia/Qwen3.6-27B-NVFP4" -> qwen3.6-27b, "~/models/DeepSeek-V3-0324-UD-Q2_K_XL" ->
// deepseek-v3). `dropped` is what was dropped ("-NVFP4"): it may name the weights' format. A name
// that matches nothing is identify_model's error for the whole name.
struct CheckpointMatch {
  ModelEntry model;
  std::string dropped;
};
Result<CheckpointMatch> identify_checkpoint(std::string_view name);

}  // namespace kvscope
