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
  Dtype kv_dtype;
};

// The groups vLLM makes of `layers`; `notes` (when not null) says how pages were unified.
Result<VllmLayout> vllm_layout(const std::vector<LayerSpec>& layers, const VllmLayoutRules& rules,
                               std::vector<std::string>* notes);

// `vllm serve`'s batch defaults for the card (EngineArgs.get_batch_defaults): H100-class cards
// (70 GiB or more, not an A100) get max_num_batched_tokens 8192 and max_num_seqs 1024, the rest
// 2048 and 256.
bool vllm_large_card(const PlanReport& r);

// Sets r's batched tokens, budget terms, KV pool and estimated range (unless the KV memory was
// given); an error when the activation estimate overflows.
Result<bool> vllm_budget(PlanReport& r, const ModelShape& shape, const PlanInput& in);

}  // namespace kvscope::engines
