// vLLM's V1 engine, in three files: the budget (engine_vllm_budget.cpp), the KV-cache groups
// (engine_vllm_groups.cpp) and the blocks, capacity and start-up check (engine_vllm.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engines/engine_profiles.hpp"

namespace kvscope::engines {

// One vLLM KV-cache spec type and the layers that have it.
struct VllmType {
  AttentionKind kind =
      AttentionKind::kFull;  // kFull (also MLA), kSlidingWindow, kChunked, kNone = Mamba
  uint64_t window = 0;
  uint64_t page_bytes = 0;  // one block of one layer
  uint64_t block = 0;       // tokens per block (grown by page unification)
  uint64_t layers = 0;
  uint64_t groups = 0;  // KV-cache groups of this type (layers padded to whole groups)
  bool mla = false;  // an MLA layer: its page cannot be padded
  const char* name = nullptr;  // the report's word when not the attention kind's
};

// The groups of one GPU's layers: the spec types, the common page, layers per group, groups.
struct VllmLayout {
  std::vector<VllmType> types;
  uint64_t page = 0;
  uint64_t group_size = 0;
  uint64_t num_groups = 0;
};

// What decides the layout: the block (grown for Mamba hybrids), the largest attention bytes per
// token and Mamba state of a layer, and whether windowed layers keep windowed blocks.
struct VllmLayoutRules {
  uint64_t block_tokens = 0;
  uint64_t attention_per_token = 0;
  uint64_t mamba_page = 0;
  bool windowed_blocks = true;
  bool pad_pages = false;  // a non-MLA page that does not divide the largest is padded to it
  Dtype kv_dtype;
};

// The groups vLLM makes of `layers`; `notes` (when not null) says how pages were unified.
Result<VllmLayout> vllm_layout(const std::vector<LayerSpec>& layers, const VllmLayoutRules& rules,
                               std::vector<std::string>* notes);
// DeepSeek-V4's (engine_vllm_dsv4.cpp): its caches' specs grouped into UniformTypeKVCacheSpecs
// that share one tensor layout of layer tuples; `page` is a tuple's bytes, `group_size` the
// tuples in a block, each type one spec family with its groups.
Result<VllmLayout> vllm_deepseek_v4_layout(const std::vector<LayerSpec>& layers,
                                           const VllmLayoutRules& rules,
                                           std::vector<std::string>* notes);

// What differs between vLLM's release lines (engine_table.cpp lists them, newest first).
struct VllmRelease {
  bool v0 = false;                     // the V0 engine's blocks (engine_vllm_v0.cpp)
  bool mla_row_align = false;          // 0.7: MLA rows padded to 256 bytes
  bool hybrid_allocator = true;        // windowed layers keep windowed blocks (0.10 on)
  bool concurrency_by_tokens = false;  // 0.8: blocks x block size over max_model_len
  bool see_sentence = true;            // the refusal ends with the docs link (0.10 on)
  bool whole_model_check = false;      // 0.14-0.15: every layer against a stage's memory
  // 0.20 on (PR #38284): gpu_memory_utilization 0.92, and the estimated CUDA-graph memory comes
  // out of the budget (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1).
  double default_utilization = 0.9;
  bool reserves_cudagraphs = false;
  // Model Runner V2 (vllm/v1/worker/gpu/): every dense (non-MoE) model from 0.25 (PR #44443),
  // every model from 0.29 (PR #53183); it reserved no CUDA-graph memory before 0.29 (PR #53306).
  bool model_runner_v2 = false;
  bool capacity_from_concurrency = false;  // 0.21 on: GPU KV cache size = int(concurrency x len)
  bool override_in_check = false;  // 0.21 on: --num-gpu-blocks-override sizes the check (PR #41069)
  bool in_flight_batches = false;  // 0.26 on: windows hold every in-flight batch (PR #47728)
  bool largest_card_tier = false;  // 0.28 on: 16384 batched tokens on 160 GiB cards
  bool null_block = false;         // 0.29 on: one block held back from the check (PR #47272)
  // A non-MLA attention page that does not divide the largest is padded to it instead of refused
  // (PR #45181, merged June 2026; 0.26.0 pads, issue #40388): kvscope from the 0.25 line.
  bool pads_pages = false;
  // --mamba-cache-mode as given, else vLLM's default: from the 0.29 line a hybrid caches its
  // states for prefixes in align mode (PR #50991, opened 2026-08-04: in 0.28 or 0.29, so surely in
  // 0.29), two state blocks per request; none before.
  std::string mamba_cache_mode;
  // The refusal's newer wording ("the model's max seq len", the CPU backend's clauses), as in the
  // 0.29 source (kv_cache_planning.py _check_enough_kv_cache_memory) and already in a 0.22 log of
  // June 2026 (vLLM issue #44376): kvscope from the 0.21 line.
  bool cpu_backend_wording = false;
};

VllmRelease vllm_release(const PlanReport& r, const VllmOptions& options);

// `vllm serve`'s batch defaults for the card (EngineArgs.get_batch_defaults): H100-class cards
// (70 GiB or more, not an A100) get max_num_batched_tokens 8192 and max_num_seqs 1024, the rest
// 2048 and 256; from 0.28, cards of 160 GiB or more 16384 and 1024.
bool vllm_large_card(const PlanReport& r);
uint64_t vllm_default_batched_tokens(const PlanReport& r, const VllmRelease& release);

// The gpu_memory_utilization in force: the one given, else the release line's default; that
// default for a line id ("0.29"; "" is the newest line).
double vllm_utilization(const VllmOptions& options, const VllmRelease& release);
double vllm_default_utilization(const std::string& engine_version);

// Sets r's batched tokens, budget terms, KV pool and estimated range (unless the KV memory was
// given); an error when the activation estimate overflows.
Result<bool> vllm_budget(PlanReport& r, const ModelShape& shape, const PlanInput& in,
                         const VllmRelease& release);

}  // namespace kvscope::engines
