#include "engines/engine_table.hpp"

#include <cstdint>

#include "base/one_of.hpp"
#include "engines/engine_planners.hpp"
#include "engines/engine_profiles.hpp"
#include "kvscope/base/units.hpp"

namespace kvscope {

namespace engines {

std::string engine_kv_dtype(std::string_view engine, std::string_view flag, const std::string& kv,
                            std::initializer_list<std::pair<const char*, const char*>> names,
                            std::string_view source, std::vector<std::string>& unexpressed) {
  std::string accepted;
  for (const auto& [ours, theirs] : names) {
    if (kv == ours) return theirs;
    if (accepted.find(std::string(" ") + theirs + ",") == std::string::npos)
      accepted += std::string(" ") + theirs + ",";
  }
  accepted.pop_back();
  unexpressed.push_back(std::string(engine) + " has no KV cache dtype for " + kv + ": " +
                        std::string(flag) + " can set" + accepted + " (" + std::string(source) +
                        "); the command leaves the engine's default");
  return {};
}

std::vector<std::string> weight_dtype_flags(std::string_view engine, const char* quantization_flag,
                                            const PlanInput& in, const PlanReport& r,
                                            std::vector<std::string>& unexpressed) {
  if (in.weight_dtype == "auto") return {};
  const std::string& chosen = r.weights.name;
  const WeightStorage& stored = r.estimate.shape.weights;
  if (!stored.method.empty()) {
    unexpressed.push_back(std::string(engine) + " loads the checkpoint's own " + stored.method +
                          " weights (its quantization_config): serving them as " + chosen +
                          " needs a checkpoint stored so");
    return {};
  }
  if (is_one_of(chosen, {"fp32", "fp16", "bf16"})) return {};
  if (chosen == "fp8" && quantization_flag != nullptr) return {quantization_flag, "fp8"};
  unexpressed.push_back(
      std::string(engine) + " cannot quantize a " + serving_dtype(r.estimate.shape) +
      " checkpoint to " + chosen + " as it loads" +
      (quantization_flag != nullptr ? std::string(" (only fp8, with ") + quantization_flag + " fp8)"
                                    : std::string()) +
      ": serve a checkpoint stored in " + chosen);
  return {};
}

std::string pp_partition_env(const char* var, const PlanInput& in) {
  if (in.pp_layer_partition.empty()) return {};
  std::string out = std::string(var) + "=";
  for (double layers : in.pp_layer_partition) out += shortest_decimal(layers) + ",";
  out.pop_back();
  return out;
}

}  // namespace engines

namespace {

uint64_t derived_default(const ContextLimit& limit, const ModelShape&) {
  return limit.default_tokens;
}
uint64_t derived_limit(const ContextLimit& limit, const ModelShape&) { return limit.tokens; }
uint64_t model_positions(const ContextLimit&, const ModelShape& shape) {
  return shape.max_position_embeddings;
}

std::string vllm_refusal(uint64_t len, const ContextLimit& limit, const ModelShape& shape) {
  return vllm_context_error(len, limit, shape);
}
std::string sglang_refusal(uint64_t len, const ContextLimit& limit, const ModelShape&) {
  return sglang_context_error(len, limit);
}
std::string llamacpp_warning(uint64_t len, const ContextLimit&, const ModelShape& shape) {
  return llamacpp_context_warning(len, shape.max_position_embeddings);
}

// vLLM's row: its knobs, versions and rules (engines/vllm/).
EngineProfile vllm_row() {
  EngineProfile vllm;
  vllm.info.id = "vllm";
  vllm.info.label = "vLLM";
  vllm.info.options_key = "vllm";
  vllm.info.workload =
      "the KV pool vLLM sizes from gpu_memory_utilization less the weights, activation peak and "
      "non-torch memory; concurrency counts requests of max_model_len tokens";
  vllm.info.knobs = {"vllm.gpu_memory_utilization", "block_size_tokens"};
  vllm.info.calibration = {"vllm.activation_bytes", "vllm.non_torch_bytes"};
  vllm.info.levers = {
      {"vllm.gpu_memory_utilization", "gpu_memory_utilization 0.95", "utilization 0.95", 0.95}};
  vllm.plan_gpu = engines::plan_vllm;
  vllm.launch_command = engines::launch_vllm;
  vllm.context_limit = vllm_context_limit;
  vllm.default_max_model_len = derived_default;
  vllm.context_policy = ContextPolicy::kRefuse;
  vllm.allow_long_env = "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1";
  vllm.honours_model_max_length = true;
  vllm.context_message = vllm_refusal;
  vllm.ssm_state_default = engines::vllm_ssm_state_default;
  vllm.shape_options = engines::vllm_shape_options;
  vllm.sparse_mla_fp8_ds = true;
  vllm.sparse_caches = true;
  vllm.moe_over_data_parallel = true;
  vllm.default_block_size = engines::vllm_default_block_size;
  // vllm/config/cache.py CacheDType; vllm/model_executor/layers/quantization/fp8.py (fp8 at load).
  vllm.info.kv_dtype_choices = {"auto", "fp8"};
  vllm.info.load_time_weight_dtypes = {"fp8"};
  vllm.info.checkpoint_methods = {"*"};
  // What changed in vLLM's cache arithmetic, by release line, newest first (engine-formulas.md
  // §1.5-1.7 to 0.19; docs/engines.md for the 0.2x-0.3x lines, each with its PR).
  vllm.info.versions = {
      {"0.29", "0.29 and later (current)", "0.29-",
       "the start-up check keeps one block back, the null block (PR #47272)"},
      {"0.28", "0.28", "0.28",
       "dense models reserve no CUDA-graph memory (Model Runner V2); hybrids keep one state per "
       "request, not align mode's two (PR #50991 may be in 0.28 already)"},
      {"0.26", "0.26-0.27", "0.26-0.27", "160 GiB cards batch 8192 tokens, not 16384"},
      {"0.25", "0.25", "0.25", "sliding windows hold one batch, not every batch in flight"},
      {"0.21", "0.21-0.24", "0.21-0.24",
       "dense models reserve CUDA-graph memory too; layer pages that do not divide are refused, "
       "not padded (PR #45181)"},
      {"0.20", "0.20", "0.20",
       "GPU KV cache size is blocks x block size, not concurrency x length"},
      {"0.16", "0.16-0.19 (0.10-0.13 count alike)", "0.10-0.13, 0.16-0.19",
       "gpu_memory_utilization 0.9, no CUDA-graph memory out of the budget"},
      {"0.14", "0.14-0.15", "0.14-0.15",
       "the start-up check counts every layer of the model against each pipeline stage's memory "
       "(PR #29431; fixed by PR #33698, vLLM issues #32105, #34076)"},
      {"0.8", "0.8-0.9 (V1, no hybrid allocator)", "0.8-0.9",
       "sliding-window and chunked layers keep full-length blocks; GPU KV cache size is blocks x "
       "block size and concurrency that over max_model_len (_get_kv_cache_config_uniform_type)"},
      {"v0", "V0 engine (VLLM_USE_V1=0, 0.8-0.10)", "",
       "one block spans every layer (# GPU blocks), --swap-space holds # CPU blocks, concurrency "
       "is blocks x block size over max_model_len, and a max_model_len past those tokens does not "
       "start (vllm/worker/worker.py, vllm/executor/executor_base.py)"},
      {"0.7", "0.7 and earlier (V0 engine)", "0.0-0.7",
       "as the V0 engine, and MLA rows padded to 256 bytes while "
       "VLLM_MLA_CUDA_MEM_ALIGN_KV_CACHE=1, "
       "its default (vllm/worker/cache_engine.py; removed by PR #14842 for 0.8)"}};
  return vllm;
}

// SGLang's row (engine_sglang.cpp).
EngineProfile sglang_row() {
  EngineProfile sglang;
  sglang.info.id = "sglang";
  sglang.info.label = "SGLang";
  sglang.info.options_key = "sglang";
  sglang.info.workload =
      "the KV pool SGLang sizes from mem_fraction_static (after its recurrent-state pool for "
      "hybrids); concurrency counts requests of context_length tokens";
  sglang.info.knobs = {"sglang.mem_fraction_static", "sglang.mamba_full_memory_ratio"};
  sglang.info.levers = {{"sglang.mem_fraction_static", "mem_fraction_static +0.05",
                         "mem fraction +0.05", 0, 0.05, 0.88}};
  sglang.plan_gpu = engines::kEnginePlanners.sglang.plan_gpu;
  sglang.launch_command = engines::kEnginePlanners.sglang.launch_command;
  sglang.context_limit = sglang_context_limit;
  sglang.default_max_model_len = derived_limit;
  sglang.context_policy = ContextPolicy::kRefuse;
  sglang.allow_long_env = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1";
  sglang.context_message = sglang_refusal;
  sglang.ssm_state_default = engines::sglang_ssm_state_default;
  sglang.sparse_mla_fp8_ds = true;
  sglang.sparse_caches = true;
  sglang.dp_attention = true;
  sglang.default_block_size = engines::sglang_default_block_size;
  // python/sglang/srt/server_args.py --kv-cache-dtype and --quantization fp8.
  sglang.info.kv_dtype_choices = {"auto", "fp8"};
  sglang.info.load_time_weight_dtypes = {"fp8"};
  sglang.info.checkpoint_methods = {"*"};
  sglang.info.versions = {
      {"late-2026", "late 2026 (current)", "",
       "mem_fraction_static from the card: activations, NCCL and CUDA graphs reserved "
       "(memory_hook.py, October 2026)"},
      {"2026", "early 2026", "",
       "a hybrid SWA pool for Llama 4, gpt-oss, MiMo-V2, Step-3.5 and Gemma 4 (model_config.py "
       "is_hybrid_swa_model); kvscope takes mem_fraction_static 0.88"},
      {"2025", "releases of 2025, before Gemma 4", "",
       "Gemma 4 not yet on is_hybrid_swa_model's list: one pool, every layer full-length"}};
  return sglang;
}

// TensorRT-LLM's row (engine_tensorrt_llm.cpp).
EngineProfile tensorrt_llm_row() {
  EngineProfile trt;
  trt.info.id = "tensorrt-llm";
  trt.info.label = "TensorRT-LLM";
  trt.info.options_key = "tensorrt_llm";
  trt.info.workload =
      "the KV pool TensorRT-LLM sizes from free_gpu_memory_fraction of the memory free after the "
      "weights, in blocks of 32 tokens";
  trt.info.knobs = {"tensorrt_llm.free_gpu_memory_fraction", "block_size_tokens"};
  trt.info.levers = {{"tensorrt_llm.free_gpu_memory_fraction", "free_gpu_memory_fraction 0.95",
                      "free fraction 0.95", 0.95}};
  trt.plan_gpu = engines::kEnginePlanners.tensorrt_llm.plan_gpu;
  trt.launch_command = engines::kEnginePlanners.tensorrt_llm.launch_command;
  trt.context_limit = vllm_context_limit;
  trt.default_max_model_len = model_positions;
  // KvCacheConfig.dtype; the PyTorch backend reads ModelOpt and DeepSeek fp8 checkpoints, and
  // quantizes nothing itself (ModelOpt does, offline).
  trt.info.kv_dtype_choices = {"auto", "fp8"};
  trt.info.checkpoint_methods = {"fp8", "modelopt"};
  return trt;
}

// llama.cpp's row: one server's devices (engine_llamacpp.cpp).
EngineProfile llamacpp_row() {
  EngineProfile llamacpp;
  llamacpp.info.id = "llama.cpp";
  llamacpp.info.label = "llama.cpp";
  llamacpp.info.options_key = "llama_cpp";
  llamacpp.info.workload =
      "the K and V buffers llama-server allocates at start-up for -c = context_tokens cells "
      "shared by --parallel slots, over one server's devices";
  llamacpp.info.knobs = {"llama_cpp.parallel"};
  llamacpp.plan_gpu = engines::kEnginePlanners.llamacpp.plan_gpu;
  llamacpp.launch_command = engines::kEnginePlanners.llamacpp.launch_command;
  llamacpp.context_limit = llamacpp_context_limit;
  llamacpp.default_max_model_len = model_positions;
  llamacpp.context_policy = ContextPolicy::kWarn;
  llamacpp.context_message = llamacpp_warning;
  llamacpp.ssm_state_default = engines::llamacpp_ssm_state_default;
  llamacpp.one_server_devices = true;
  llamacpp.slots = "N sequences are --parallel N with -c N x the context";
  // -ctk/-ctv types; GGUF files converted from the checkpoint (convert_hf_to_gguf.py,
  // llama-quantize), named by their type in the launch command.
  llamacpp.info.kv_dtype_choices = {"auto", "q8_0"};
  llamacpp.info.load_time_weight_dtypes = {"q8_0", "q4_k_m"};
  llamacpp.info.versions = {
      {"2026", "builds of 2026 (current)", "",
       "every cache padded to 256 cells (PR #17046, Nov 2025), MLA without a V cache (PR #19067), "
       "-ngl offloads the output layer first (PR #18148); for builds between, --mla-v-cache and "
       "--output-layer-last"},
      {"2025", "builds before Oct 28, 2025", "",
       "caches padded to 256 cells with flash attention and to 32 without (PR #7257, until PR "
       "#16812; builds of Oct 28 - Nov 6 padded none); MLA kept a V cache and -ngl offloaded the "
       "first layers"}};
  return llamacpp;
}

// Ollama's row: llama-server (0.30-) or its own engine on one server's devices
// (engine_ollama.cpp).
EngineProfile ollama_row() {
  EngineProfile ollama;
  ollama.info.id = "ollama";
  ollama.info.label = "Ollama";
  ollama.info.options_key = "ollama";
  ollama.info.workload =
      "the K and V buffers Ollama allocates for num_parallel slots of num_ctx tokens each, and the "
      "layers that fit on the GPUs beside them";
  ollama.info.knobs = {"ollama.num_ctx", "ollama.num_parallel"};
  ollama.plan_gpu = engines::kEnginePlanners.ollama.plan_gpu;
  ollama.launch_command = engines::kEnginePlanners.ollama.launch_command;
  ollama.request_options = engines::ollama_request_options;
  ollama.context_limit = llamacpp_context_limit;
  ollama.default_max_model_len = model_positions;
  ollama.ssm_state_default = engines::llamacpp_ssm_state_default;
  ollama.one_server_devices = true;
  ollama.slots = "N sequences are OLLAMA_NUM_PARALLEL=N, each of num_ctx tokens";
  // OLLAMA_KV_CACHE_TYPE (envconfig/config.go); GGUF files (ollama create --quantize, or pulled).
  ollama.info.kv_dtype_choices = {"auto", "q8_0", "q4_0"};
  ollama.info.load_time_weight_dtypes = {"q8_0", "q4_k_m"};
  ollama.info.versions = {
      {"0.30", "0.30 and later (current; llama-server)", "0.30-",
       "llama-server holds the caches, a stream per slot, and its --fit chooses the layers on the "
       "GPUs (PR #16031)"},
      {"0.15", "0.15.5-0.24 (its own engine)", "0.15.5-0.24",
       "its own caches (kvcache/causal.go: num_parallel x num_ctx cells, padded to 256) and layout "
       "(457 MiB free per GPU, the output layer off the GPU first); flash attention, without which "
       "a quantized cache stays f16, only for the models it names"},
      {"0.12", "0.11.11-0.15.4", "0.11.11-0.15.4",
       "num_ctx 4,096 by default whatever the VRAM (the tiers came with 0.15.5, PR #13946)"}};
  return ollama;
}

// The articles' arithmetic, no engine (engine_plain.cpp).
EngineProfile plain_row() {
  EngineProfile plain;
  plain.info.id = "plain";
  plain.sparse_caches = true;
  plain.info.label = "plain arithmetic (no engine)";
  plain.info.workload =
      "batch sequences of context_tokens each, in what the card holds after the weights and "
      "overhead_bytes";
  plain.info.knobs = {"overhead_bytes"};
  plain.plan_gpu = engines::plan_plain;
  plain.context_limit = vllm_context_limit;
  plain.default_max_model_len = model_positions;
  plain.info.kv_dtype_choices = {"auto", "fp8"};
  return plain;
}

const std::vector<EngineProfile> kEngines = [] {
  std::vector<EngineProfile> rows = {vllm_row(),     sglang_row(), tensorrt_llm_row(),
                                     llamacpp_row(), ollama_row(), plain_row()};
  for (EngineProfile& e : rows) {
    e.info.launches = e.launch_command != nullptr;
    e.info.one_server = e.one_server_devices;
  }
  return rows;
}();

}  // namespace

const std::vector<EngineProfile>& engine_profiles() { return kEngines; }

const EngineProfile* find_engine_profile(std::string_view id) {
  for (const EngineProfile& e : kEngines)
    if (e.info.id == id) return &e;
  return nullptr;
}

}  // namespace kvscope
