// Engine profiles, one file each: the budget an engine gives the KV pool on one GPU and how it
// counts capacity there. plan.cpp runs them per pipeline stage and combines the results.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "base/checked_math.hpp"
#include "kvscope/engines/plan_types.hpp"

namespace kvscope::engines {

inline constexpr uint64_t kGiB = uint64_t{1} << 30;
inline constexpr uint64_t kMaxSearchTokens = uint64_t{1} << 40;

// Largest value in [lo, hi] with fits(value), or lo - 1 when none; fits must be monotone.
uint64_t largest_fitting(uint64_t lo, uint64_t hi, const std::function<bool(uint64_t)>& fits);

// What a budget leaves after `used`, 0 when nothing is left.
inline uint64_t left_after(uint64_t budget, CheckedU64 used) {
  return used.overflowed() || used.value() >= budget ? 0 : budget - used.value();
}

// What a KV pool of some bytes holds, as an engine counts it.
struct PoolCapacity {
  uint64_t blocks = 0;
  uint64_t tokens = 0;
  double concurrency = 0;  // requests of max_model_len
  bool starts = false;     // one request of max_model_len fits
  uint64_t longest = 0;    // the longest max_model_len that fits
};

// The report's figures for its own pool.
inline void set_capacity(PlanReport& r, const PoolCapacity& c) {
  r.num_blocks = c.blocks;
  r.kv_pool_tokens = c.tokens;
  r.max_concurrency = c.concurrency;
  r.starts = c.starts;
  r.max_model_len_that_fits = c.longest;
}

// The capacity at both ends of an estimated budget's range (nothing when none was estimated).
inline void fill_estimated_ends(EstimatedBudget& e,
                                const std::function<PoolCapacity(uint64_t)>& capacity_at) {
  if (!e.present) return;
  const PoolCapacity low = capacity_at(e.kv_pool_low), high = capacity_at(e.kv_pool_high);
  e.max_concurrency_low = low.concurrency;
  e.max_concurrency_high = high.concurrency;
  e.max_model_len_that_fits_low = low.longest;
  e.max_model_len_that_fits_high = high.longest;
  e.starts_low = low.starts;
  e.starts_high = high.starts;
}

// Each fills the budget and capacity fields of `r` for one GPU holding `gpu_shape`, whose
// weights are r.weights_bytes; r.block_size_tokens and r.max_model_len are already set.
Result<PlanReport> plan_vllm(PlanReport r, const ModelShape& gpu_shape, const PlanInput& in);
// vLLM's V0 engine (0.7 and earlier, VLLM_USE_V1=0 later): blocks that span every layer;
// `mla_row_align` pads MLA rows to 256 bytes (VLLM_MLA_CUDA_MEM_ALIGN_KV_CACHE=1, 0.7).
Result<PlanReport> plan_vllm_v0(PlanReport r, const ModelShape& gpu_shape, const PlanInput& in,
                                bool mla_row_align);
Result<PlanReport> plan_plain(PlanReport r, const ModelShape& gpu_shape, const PlanInput& in);
Result<PlanReport> plan_sglang(PlanReport r, const ModelShape& gpu_shape, const PlanInput& in);
// SGLang's DeepSeek-V4 pools (engine_sglang_dsv4.cpp), from the budget plan_sglang set in r;
// the bytes of one "full" token it sizes them by (and the state rows beside), at a
// swa_full_tokens_ratio (sglang_dsv4_swa_ratio: the one given, else 0.1).
Result<PlanReport> plan_sglang_deepseek_v4(PlanReport r, const ModelShape& gpu_shape,
                                           const PlanInput& in, double fraction);
struct SglangDsv4Bytes {
  double per_full_token = 0;    // DSV4PoolConfigurator's bytes_per_full_token
  uint64_t c128_state_row = 0;  // one ring row of every ratio-128 compressor
  uint64_t window = 0;          // the sliding window (SGLang's swa_page_size)
  uint64_t ring4 = 0, ring128 = 0;
};
Result<SglangDsv4Bytes> sglang_dsv4_bytes(const ModelShape& gpu_shape, double swa_ratio,
                                          bool speculative);
double sglang_dsv4_swa_ratio(const SglangOptions& options);
Result<PlanReport> plan_tensorrt_llm(PlanReport r, const ModelShape& gpu_shape,
                                     const PlanInput& in);
Result<PlanReport> plan_llamacpp(PlanReport r, const ModelShape& gpu_shape, const PlanInput& in);
Result<PlanReport> plan_ollama(PlanReport r, const ModelShape& gpu_shape, const PlanInput& in);

// The rest of each engine's row in the engine table (engine_table.cpp), beside its profile.
void vllm_ssm_state_default(ModelShape& shape);
bool vllm_shape_options(ModelShape& shape, const PlanInput& in);
void sglang_ssm_state_default(ModelShape& shape);
void llamacpp_ssm_state_default(ModelShape& shape);
uint64_t vllm_default_block_size(const ModelShape& shape, std::string& note);
// SGLang's page: 1 token (unpaged, 0 here), 256 for DeepSeek-V4.
uint64_t sglang_default_block_size(const ModelShape& shape, std::string& note);
LaunchCommand launch_vllm(const PlanInput& in, const PlanReport& r, std::string_view model);
LaunchCommand launch_sglang(const PlanInput& in, const PlanReport& r, std::string_view model);
LaunchCommand launch_tensorrt_llm(const PlanInput& in, const PlanReport& r, std::string_view model);
LaunchCommand launch_llamacpp(const PlanInput& in, const PlanReport& r, std::string_view model);
LaunchCommand launch_ollama(const PlanInput& in, const PlanReport& r, std::string_view model);
Result<bool> ollama_request_options(PlanInput& in);

// The engine's spelling of the plan's KV dtype from its list of (kvscope name, engine name), or
// empty with a line for `unexpressed` naming what the engine accepts.
std::string engine_kv_dtype(std::string_view engine, std::string_view flag, const std::string& kv,
                            std::initializer_list<std::pair<const char*, const char*>> names,
                            std::string_view source, std::vector<std::string>& unexpressed);

// The flags that load the plan's --weight-dtype where it differs from the checkpoint: an
// unquantized checkpoint quantized to fp8 at load time with `quantization_flag` (null: the engine
// has none), 16-bit dtypes as they are (the same bytes); anything else a line for `unexpressed`.
std::vector<std::string> weight_dtype_flags(std::string_view engine, const char* quantization_flag,
                                            const PlanInput& in, const PlanReport& r,
                                            std::vector<std::string>& unexpressed);

// "VAR=16,32" for the plan's pipeline partition (vLLM's and SGLang's get_pp_indices read it),
// empty for an even split.
std::string pp_partition_env(const char* var, const PlanInput& in);

// Bytes one token adds across the GPU's layers (K and V, or the MLA latent; windows ignored).
Result<uint64_t> cell_bytes(const ModelShape& gpu_shape, const Dtype& kv);

}  // namespace kvscope::engines
