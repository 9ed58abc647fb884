// What each engine runs on a card: the model (DeepSeek-V4's kernels, SGLang's oldest cards), the
// weights' quantization method and the KV dtype, by the card's architecture and compute
// capability. The engine's refusal as an error naming the field (gpu, weight_dtype, kv_dtype), or
// success when the card runs it all (or is not in the catalogue).
#pragma once

#include "engines/engine_table.hpp"
#include "kvscope/engines/plan_types.hpp"

namespace kvscope {

// A card that casts the checkpoint's dtype (bf16 on a card without it) adds a note to `r`.
Result<bool> card_runs(const EngineProfile& engine, const ModelShape& shape, PlanReport& r);

}  // namespace kvscope
