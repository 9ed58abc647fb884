// The one engine table: per engine its id, label, knobs (request keys of its options), what-if
// levers, what its workload means, and the functions plan() runs for it (budget and capacity on
// one GPU, context limit and policy, the dtype and block defaults it imposes, its launch
// command). plan.cpp reads rows; nothing outside this table and the engine_*.cpp files names an
// engine. Its `info` is the public catalogue (kvscope/engines/engine_catalog.hpp, kvscope.engines/1).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kvscope/engines/context_limit.hpp"
#include "kvscope/engines/engine_catalog.hpp"
#include "kvscope/engines/plan_types.hpp"

namespace kvscope {

// What an engine does with a max_model_len past the model's derived limit.
enum class ContextPolicy {
  kNone,    // no check
  kRefuse,  // refuses to start unless its allow-long environment variable is set
  kWarn,    // warns and starts
};

struct EngineProfile {
  EngineInfo info;  // what the catalogue lists

  // Budget and capacity on one GPU holding `gpu_shape` (engine_*.cpp).
  Result<PlanReport> (*plan_gpu)(PlanReport r, const ModelShape& gpu_shape,
                                 const PlanInput& in) = nullptr;
  // The launch command that starts the plan; null for plain arithmetic.
  LaunchCommand (*launch_command)(const PlanInput& in, const PlanReport& r,
                                  std::string_view model) = nullptr;

  // Context: how it derives the limit, its default length, and what it does past the limit.
  ContextLimit (*context_limit)(const ModelShape& shape) = nullptr;
  uint64_t (*default_max_model_len)(const ContextLimit& limit, const ModelShape& shape) = nullptr;
  ContextPolicy context_policy = ContextPolicy::kNone;
  std::string_view allow_long_env;        // kRefuse: the variable that lifts the refusal
  bool honours_model_max_length = false;  // vLLM: tokenizer model_max_length above the limit
  // kRefuse: its error; kWarn: its warning.
  std::string (*context_message)(uint64_t max_model_len, const ContextLimit& limit,
                                 const ModelShape& shape) = nullptr;

  // Its settings that stand for the request's own fields (Ollama's OLLAMA_KV_CACHE_TYPE is the KV
  // dtype), set there before the plan; null when none.
  Result<bool> (*request_options)(PlanInput& in) = nullptr;
  // What its options change of the model (vLLM's --disable-sliding-window); true when they did.
  bool (*shape_options)(ModelShape& shape, const PlanInput& in) = nullptr;
  // The SSM state dtype it picks when the user does not (changes shape.ssm_state_dtype); null
  // keeps the model's.
  void (*ssm_state_default)(ModelShape& shape) = nullptr;
  bool sparse_mla_fp8_ds = false;  // an fp8 DeepSeek-sparse MLA cache is stored as fp8_ds_mla
  // DeepSeek-V4's compressed caches and MiniMax-M3's index keys are modelled for it.
  bool sparse_caches = false;
  // vLLM: data-parallel ranks are one MoE layer's GPUs, its experts spread over all tp x dp of
  // them (vllm/model_executor/layers/fused_moe/config.py FusedMoEParallelConfig.make,
  // flatten_tp_across_dp); elsewhere a replica holds every expert.
  bool moe_over_data_parallel = false;
  // SGLang's --enable-dp-attention: its --dp ranks keep attention (tp / dp GPUs each) and their own
  // requests; experts, dense MLPs, shared experts and the head split over all --tp GPUs, the
  // embedding whole on each (runtime_context.py derive_attn_tp_size; VocabParallelEmbedding
  // enable_tp=not is_dp_attention_enabled(); ep_size 1 by default).
  bool dp_attention = false;
  // Its block size when none is given (0 = unpaged), with the note saying why; null = none.
  uint64_t (*default_block_size)(const ModelShape& shape, std::string& note) = nullptr;
  // llama.cpp, Ollama: `gpus` are one server's devices (no TP/PP, no replicas), and its workload
  // is the K + V buffers it allocates; `slots` says how it is given N sequences.
  bool one_server_devices = false;
  std::string_view slots;
};

const std::vector<EngineProfile>& engine_profiles();
// The row for `id`, or null.
const EngineProfile* find_engine_profile(std::string_view id);

}  // namespace kvscope
