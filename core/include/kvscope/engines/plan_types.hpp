// What a plan is made of: the deployment asked for (PlanInput: model, card, engine and its knobs,
// parallelism, workload) and what the engine makes of it (PlanReport: the memory budget it gives the
// KV pool, the tokens and sequences the pool holds, whether it starts). The engines fill these
// (core/src/engines/), plan() runs them (kvscope/plan/plan.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kvscope/model/catalog.hpp"
#include "kvscope/model/config_import.hpp"
#include "kvscope/engines/context_limit.hpp"
#include "kvscope/kv/estimate.hpp"
#include "kvscope/kv/decode_calibration.hpp"
#include "kvscope/kv/roofline.hpp"
#include "kvscope/model/weights.hpp"
#include "kvscope/kv/workload.hpp"

namespace kvscope {

// Each engine's own knobs (its flags' defaults), read only by that engine's profile.
struct VllmOptions {
  double gpu_memory_utilization = 0;    // 0 = the release line's default (0.9; 0.92 from 0.20)
  uint64_t max_num_batched_tokens = 0;  // 0 = `vllm serve`'s default for the card
  bool disable_hybrid_kv_cache_manager = false;
  bool disable_sliding_window = false;  // every layer full length, max_model_len at most the window
  std::string mamba_cache_mode;  // --mamba-cache-mode: none | align | all; empty = the line's
  // --enable-prefix-caching given: before the 0.29 line a hybrid caches its states for prefixes
  // only then (in align mode); from 0.29 it does by default.
  bool enable_prefix_caching = false;
  // --enable-expert-parallel: a MoE layer's experts go whole to the tp x dp GPUs, not sliced.
  bool enable_expert_parallel = false;
  uint64_t activation_bytes = 0;          // profiled activation peak; 0 = estimated
  uint64_t non_torch_bytes = 0;           // non-torch memory; 0 = estimated
  uint64_t cudagraph_bytes = 0;           // CUDA-graph memory, subtracted from 0.20; 0 = estimated
  bool enforce_eager = false;             // --enforce-eager: no CUDA graphs captured, none reserved
  uint64_t num_gpu_blocks_override = 0;  // replaces the blocks it computed; 0 = none
  uint64_t swap_space_bytes = uint64_t{4} << 30;  // V0: --swap-space (GiB per GPU), # CPU blocks
  bool mla_cuda_mem_align_kv_cache = true;        // 0.7: VLLM_MLA_CUDA_MEM_ALIGN_KV_CACHE
};

// SGLang's recurrent-state pool (server_args.py): the share of the memory it gets against the
// KV pool, or a fixed slot count; the request cap; radix cache (holds states for prefixes).
struct SglangOptions {
  double mem_fraction_static = 0;  // 0 = its default for the card
  double mamba_full_memory_ratio = 0.9;
  uint64_t max_mamba_cache_size = 0;  // 0 = from mamba_full_memory_ratio
  uint64_t max_running_requests = 0;  // 0 = SGLang's default from the pool
  bool disable_radix_cache = false;
  double swa_full_tokens_ratio = 0.8;  // hybrid SWA pool: sliding tokens per full token
  bool disable_hybrid_swa_memory = false;
  // --enable-dp-attention: --dp attention ranks inside --tp, each of tp / dp GPUs with its own
  // requests; experts, dense MLPs and the head stay split over all --tp GPUs.
  bool enable_dp_attention = false;
};

// KvCacheConfig (tensorrt_llm/llmapi/llm_args.py): the KV cache gets the smallest of its caps.
struct TensorrtLlmOptions {
  double free_gpu_memory_fraction = 0.9;  // of the memory free after the weights
  uint64_t max_tokens = 0;                // tokens at most; 0 = none
  uint64_t max_gpu_total_bytes = 0;       // bytes at most; 0 = none
};

struct LlamacppOptions {
  uint64_t parallel = 1;               // --parallel (sequences, n_seq_max)
  uint64_t ubatch = 512;               // --ubatch-size default
  bool kv_unified = true;              // one cache shared by the sequences (llama-server)
  uint64_t n_gpu_layers = UINT64_MAX;  // -ngl (the output layer counts as one)
  std::vector<double> tensor_split;    // -ts over `gpus` devices; empty = even
  bool swa_full = false;               // --swa-full: sliding layers get full caches
  bool kv_offload = true;              // false = -nkvo, K/V in host memory
  bool mla_v_cache = false;            // builds before PR #19067 kept an MLA V cache
  bool legacy_mla_gguf = false;        // GGUFs converted before PR #12801: per-head MLA K/V
  bool output_layer_last = false;      // builds before PR #18148: -ngl offloads layers first
  std::string v_dtype;                 // --cache-type-v; empty = the KV dtype
  bool flash_attn = true;              // -fa; builds of 2025 padded caches to 32 cells without it
};

// Ollama's settings (envconfig/config.go, api/types.go Options), as `ollama serve` and a
// Modelfile take them.
struct OllamaOptions {
  uint64_t num_ctx = 0;       // OLLAMA_CONTEXT_LENGTH / PARAMETER num_ctx; 0 = its default
  uint64_t num_parallel = 1;  // OLLAMA_NUM_PARALLEL (1 since 0.9.7)
  std::string kv_cache_type;  // OLLAMA_KV_CACHE_TYPE: f16 | q8_0 | q4_0; empty = f16
  std::string flash_attention = "auto";  // OLLAMA_FLASH_ATTENTION: auto (unset) | on | off
  uint64_t num_batch = 0;                // PARAMETER num_batch; 0 = its choice
  uint64_t num_gpu = UINT64_MAX;         // PARAMETER num_gpu (layers); UINT64_MAX = its fit
};

struct PlanInput {
  PlanInput();  // out of line, as PlanReport()
  EstimateInput model;  // model, KV dtype; context/batch size the workload line
  std::vector<std::pair<std::string, std::string>> overrides;  // --set FIELD=VALUE (value as JSON)
  std::string weight_dtype = "auto";                           // "auto" = the checkpoint's format
  uint64_t weights_bytes = 0;            // fixes the weights (0 = from the parameter count)
  std::string weights_index_json;        // a model.safetensors.index.json: its total_size is exact
  std::string quantization_config_json;  // an hf_quant_config.json / quantize_config.json beside
                                         // config.json: its quantization_config
  std::string speculative_config;        // vLLM --speculative-config JSON; empty = none
  bool serve_base = false;  // launch a catalogue model's base checkpoint, not its chat one
  std::string gpu_id;                    // catalogue GPU, or:
  uint64_t gpu_memory_bytes = 0;         // a card of this total memory
  uint64_t kv_memory_bytes = 0;          // the engine's KV budget itself (vLLM --kv-cache-memory)
  double gpu_bandwidth_bytes_per_s = 0;  // a custom card's bandwidth (overrides the catalogue's)
  double gpu_dense_flops = 0;            // a custom card's dense peak (overrides the catalogue's)
  std::string engine = "vllm";           // an id of engine_catalog()
  std::string engine_version;  // a version id or release of the engine; empty = its current
  uint32_t tensor_parallel = 1;          // GPUs one layer is split over
  uint32_t pipeline_parallel = 1;        // stages the layers are split into
  uint64_t data_parallel =
      0;  // --dp: replicas (vLLM's ranks), or SGLang's DP attention ranks; 0 = from gpus
  std::vector<double> pp_layer_partition;  // layers per stage (VLLM_PP_LAYER_PARTITION); empty = even
  uint64_t gpus = 0;               // GPUs of this kind; 0 = tp x pp (more = data-parallel replicas)
  uint64_t max_model_len = 0;      // 0 = the engine's default for the model
  uint64_t require_concurrency = 0;  // the target's sequences (0 = the batch); a gate for scripts
  uint64_t block_size_tokens = 0;  // 0 = the engine's default (vLLM 16)
  uint64_t overhead_bytes = 0;     // runtime buffers to deduct (plain, tensorrt-llm, llama.cpp)
  bool allow_long_context = false;  // VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 /
                                    // SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1
  std::string prompt_lengths;       // a length distribution ("uniform:512-8192", ...); empty = none
  std::string output_lengths;       // both or neither
  VllmOptions vllm;
  SglangOptions sglang;
  TensorrtLlmOptions tensorrt_llm;
  LlamacppOptions llama_cpp;
  OllamaOptions ollama;
};

// Decode and prefill roofline for the plan's GPU (per replica: pipeline stages add up).
// The decode step with the KV cache read at the efficiency a published decode-attention kernel
// reached on this GPU's class (decode_calibration.hpp); the weights keep the datasheet bandwidth.
struct CalibratedDecode {
  bool available = false;
  std::string reason;  // why not: no measurement of this device class
  DecodeEfficiencyAnchor anchor;
  double memory_time_s = 0;  // weights / bandwidth + KV / (bandwidth x efficiency)
  double time_s = 0;         // the larger of that and the compute time
};

struct PlanRoofline {
  bool available = false;
  std::string reason;  // why not, or what is missing
  HardwarePeaks peaks;
  uint64_t batch = 0;           // decode batch per replica (--batch over the replicas)
  uint64_t replicas = 1;        // data-parallel replicas sharing --batch
  uint64_t context_tokens = 0;  // tokens each sequence attends over
  uint64_t prompt_tokens = 0;   // prefill length
  StepEstimate decode;
  StepEstimate prefill;
  uint64_t kv_capped_batch = 0;  // the most sequences of context_tokens the KV pool holds
  StepEstimate decode_at_kv_cap;
  CalibratedDecode calibrated;  // decode at a measured kernel's efficiency, when one is published
};

// What one device holds when llama.cpp splits layers over devices (-sm layer).
struct DeviceBuffers {
  std::string device;  // "CUDA0", ..., "CPU"
  uint32_t first_layer = 0;
  uint32_t layer_count = 0;
  bool output_layer = false;
  uint64_t weights_bytes = 0;
  uint64_t kv_bytes = 0;      // K/V buffers ("KV buffer size")
  uint64_t state_bytes = 0;   // recurrent R/S buffers ("RS buffer size")
  uint64_t memory_bytes = 0;  // the device's memory (0 for the CPU)
  bool fits = true;
};

// How many layers a server that fits them to the card (llama.cpp's --fit, Ollama) put on the
// GPUs, and what it kept free to decide.
struct LayerOffload {
  bool present = false;
  uint64_t gpu_layers = 0;        // the output layer counts as one, as -ngl counts it
  uint64_t layers = 0;            // of the model's, output layer included
  uint64_t fit_margin_bytes = 0;  // free memory each GPU keeps (llama.cpp --fit-target)
  uint64_t compute_bytes = 0;     // compute buffer on the output layer's GPU (estimated)
};

// What Ollama resolved of its settings for this plan.
struct OllamaResolved {
  bool present = false;
  uint64_t num_ctx = 0;           // per sequence, after the cap at the model's trained context
  std::string num_ctx_source;     // "num_ctx", "default for 24 GiB of VRAM", ...
  uint64_t default_num_ctx = 0;   // what Ollama picks for these GPUs when none is given
  uint64_t total_vram_bytes = 0;  // the sum its default is chosen by
  uint64_t num_parallel = 1;
  std::string kv_cache_type;    // f16 | q8_0 | q4_0
  bool flash_attention = true;  // as it runs
  uint64_t num_batch = 0;       // -b / -ub
};

// SGLang's pool of recurrent states (Mamba, gated delta net), sized before the KV pool: one slot
// holds every recurrent layer's convolution and SSM state for one request on one GPU.
struct StatePool {
  uint64_t conv_bytes_per_slot = 0;
  uint64_t ssm_bytes_per_slot = 0;
  std::string conv_dtype;
  std::string ssm_dtype;
  uint64_t slots = 0;           // max_mamba_cache_size
  uint64_t bytes = 0;           // allocated: slots + 1 (a padding slot), per GPU
  uint64_t reserved_bytes = 0;  // what the budget set aside before the KV pool: slots x slot
};

// vLLM's hybrid allocator (vllm/v1/core/kv_cache_utils.py get_kv_cache_groups): layers of each
// cache type cut into groups of `group_size_layers`, every group drawing blocks from one pool.
struct KvCacheGroupType {
  // full, sliding_window, chunked or mamba; DeepSeek-V4: compressed, sliding_window,
  // compressor_state (its layers are layer tuples)
  std::string attention;
  uint64_t window_tokens = 0;   // sliding or chunked layers
  uint64_t layers = 0;
  uint64_t groups = 0;          // ceil(layers / group_size_layers)
  uint64_t padding_layers = 0;  // groups x group_size_layers - layers (memory vLLM wastes)
  uint64_t block_tokens = 0;    // tokens per block (grown when pages were unified)
  uint64_t blocks_per_request = 0;  // of one group, for one request of max_model_len
};
struct KvCacheGroups {
  uint64_t group_size_layers = 0;
  uint64_t page_bytes = 0;  // one block of one layer
  std::vector<KvCacheGroupType> types;
  uint64_t blocks_per_request = 0;  // every group together: num_blocks / this = max_concurrency
};

// One pipeline stage as one of its GPUs sees it.
struct PlanStage {
  size_t first_layer = 0;
  size_t layer_count = 0;
  uint32_t kv_heads_per_gpu = 0;  // of the stage's first attention layer (0 when it has none)
  uint64_t weights_bytes = 0;     // per GPU
  uint64_t kv_pool_bytes = 0;     // per GPU
  uint64_t num_blocks = 0;
  double max_concurrency = 0;
  bool starts = false;
};

// The workload asked for (batch sequences of context_tokens, over every replica) against what the
// pools hold: a started engine that holds fewer has not met it.
struct TargetFit {
  bool present = false;  // engines whose pool is a budget (llama.cpp sizes its buffers to order)
  uint64_t sequences = 0;
  uint64_t context_tokens = 0;
  // The one capacity (the verdict, charts, solver and exports read it): sequences of the context
  // the pools hold, pool bytes over one paged sequence's bytes, times replicas; and per replica.
  double sequences_that_fit = 0;
  double sequences_that_fit_per_replica = 0;
  bool met = false;
  std::string reason;  // why not, one line; empty when met
};

// An engine's command for a plan, and what of the plan its flags cannot set (named beside the
// command, never dropped silently).
struct LaunchCommand {
  std::string command;
  std::vector<std::string> unexpressed;
};

// The budget terms kvscope estimates rather than derives (vLLM's profiled activation peak and
// non-torch memory), as the range published measurements give, and the capacity at each end.
struct EstimatedBudget {
  bool present = false;
  uint64_t activation_low = 0, activation_high = 0;
  uint64_t non_torch_low = 0, non_torch_high = 0;
  uint64_t cudagraph_low = 0, cudagraph_high = 0;
  uint64_t kv_pool_low = 0, kv_pool_high = 0;  // low: every term at its high end
  double max_concurrency_low = 0, max_concurrency_high = 0;
  uint64_t max_model_len_that_fits_low = 0, max_model_len_that_fits_high = 0;
  bool starts_low = false, starts_high = false;
  std::string source;  // where the range comes from, one sentence
};

struct PlanReport {
  // Out of line: each Result<...>::failure that holds a report calls this one copy (with the other
  // constructors marked "as PlanReport()", 1.7 kB gzipped of the first module, 2026-12-06).
  PlanReport();
  EstimateReport estimate;  // the model, its KV per token and the workload line
  std::string engine;
  std::string engine_version;        // the version line modelled (EngineVersion::id); empty: one
  std::string engine_version_label;  // "0.16 and later (current; ...)"
  std::string gpu_id;
  std::string gpu_name;
  uint64_t gpu_memory_bytes = 0;
  ParameterCount params;
  WeightStorage weights;       // how the weights are stored (the checkpoint's, or --weight-dtype)
  std::string weights_source;  // how weights_bytes was obtained, one sentence
  uint64_t checkpoint_weights_bytes = 0;  // every tensor of the checkpoint (draft layers included)
  uint64_t computed_checkpoint_weights_bytes = 0;  // kvscope's own figure when an index gave it
  WeightBytes gpu_weights;          // one GPU of the tightest stage, per module class and format
  SpeculativeDecoding speculative;  // as given, the token count resolved
  size_t draft_layers_loaded = 0;   // MTP layers whose weights and caches join the model
  uint64_t weights_bytes = 0;       // per GPU of the tightest stage
  // Budget per GPU (vLLM: requested = memory x utilization; pool = requested - weights - activation
  // - non-torch).
  uint64_t requested_bytes = 0;
  uint64_t activation_bytes = 0;
  uint64_t non_torch_bytes = 0;
  uint64_t cudagraph_bytes = 0;
  uint64_t kv_pool_bytes = 0;
  bool kv_memory_given = false;
  // Capacity.
  uint64_t block_size_tokens = 0;
  uint64_t max_num_batched_tokens = 0;
  uint64_t num_blocks = 0;
  uint64_t kv_pool_tokens = 0;  // the engine's own figure ("GPU KV cache size")
  uint64_t swap_blocks = 0;     // vLLM V0: blocks of its CPU swap space ("# CPU blocks")
  uint64_t max_model_len = 0;
  ContextLimit context_limit;           // the longest sequence the engine accepts for the model
  bool context_limit_exceeded = false;  // max_model_len is past it
  uint64_t kv_bytes_needed = 0;         // one max_model_len request, as the engine counts it
  double max_concurrency = 0;         // requests of max_model_len tokens, as the engine computes it
  uint64_t max_context = 0;           // longest single sequence the pool holds
  bool max_context_unbounded = false;  // no layer keeps tokens: no length exhausts the pool
  uint64_t max_running_requests = 0;  // SGLang's request cap (0 = the engine reports none)
  uint64_t swa_pool_tokens = 0;       // SGLang's hybrid SWA pool: tokens of the sliding layers
  KvCacheGroups kv_cache_groups;      // vLLM with more than one group (hybrids); empty otherwise
  StatePool state_pool;               // SGLang hybrids; empty otherwise
  EstimatedBudget estimated;          // vLLM with an estimated activation peak or non-torch memory
  bool starts = false;
  std::string startup_error;
  uint64_t max_model_len_that_fits = 0;
  std::vector<std::string> notes;  // how each figure was obtained
  std::string launch_command;      // the engine's command that starts this plan; empty for plain
  std::vector<std::string> launch_unexpressed;  // what of the plan the command's flags cannot set
  // Parallelism: the figures above are per GPU, for the tightest pipeline stage (vLLM takes the
  // minimum block count over workers); totals cover every GPU.
  uint32_t tensor_parallel = 1;
  uint32_t pipeline_parallel = 1;
  uint64_t data_parallel = 1;
  // A MoE model's routed experts over the GPUs of every data-parallel rank (vLLM): their count,
  // 0 when a replica holds its own experts; whole experts (--enable-expert-parallel), not slices.
  uint64_t expert_gpus = 0;
  bool whole_experts = false;
  bool dp_attention = false;  // SGLang's: attention per rank; experts, MLPs and head over all GPUs
  std::vector<PlanStage> stages;
  uint64_t total_weights_bytes = 0;
  uint64_t total_kv_pool_bytes = 0;
  double total_max_concurrency = 0;    // x data-parallel replicas
  std::vector<DeviceBuffers> devices;  // llama.cpp: per device (the CPU last), else empty
  LayerOffload offload;                // servers that fit layers to the card (Ollama)
  OllamaResolved ollama;
  PlanRoofline roofline;
  TargetFit target;
  bool has_workload = false;  // prompt and output length distributions were given
  WorkloadCapacity workload;
};

}  // namespace kvscope
