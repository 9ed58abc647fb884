// TensorRT-LLM on one GPU: cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp
// (calculateFreeMemBytes, BaseKVCacheManager::calculateMaxNumBlocks,
// calculateMaxBlockRequirementsPerBeam, getMaxCapacityBatchSize); engine-formulas.md §4.
#include <algorithm>
#include <cstdio>

#include "engines/engine_profiles.hpp"
#include "kvscope/base/units.hpp"

namespace kvscope::engines {

constexpr uint64_t kTensorRtTokensPerBlock = 32;  // KvCacheConfig.tokens_per_block default

Result<PlanReport> plan_tensorrt_llm(PlanReport r, const ModelShape& shape, const PlanInput& in) {
  using R = Result<PlanReport>;
  bool windows = false;
  for (const LayerSpec& l : shape.layers) {
    if (l.state != StateKind::kNone) {
      return R::failure(
          make_error(kUnsupported, "engine", "tensorrt-llm: recurrent state is not modelled yet"));
    }
    windows = windows || l.windowed();
  }
  if (!(in.tensorrt_llm.free_gpu_memory_fraction > 0 &&
        in.tensorrt_llm.free_gpu_memory_fraction <= 1)) {
    return R::failure(
        make_error(kInvalidValue, "tensorrt_llm.free_gpu_memory_fraction", "must be in (0, 1]"));
  }
  if (windows) {
    r.notes.push_back(
        "tensorrt-llm: memory shared between attention-window sizes is not modelled; every layer "
        "is "
        "sized as full attention");
  }
  r.block_size_tokens = in.block_size_tokens != 0 ? in.block_size_tokens : kTensorRtTokensPerBlock;
  const Result<uint64_t> per_token = cell_bytes(shape, r.estimate.kv_dtype);
  if (!per_token.ok) return R::failure(per_token.error);
  if (!r.kv_memory_given) {
    // Free memory after the engine loads, times the fraction; runtime buffers via --overhead.
    r.requested_bytes =
        left_after(r.gpu_memory_bytes, CheckedU64(r.weights_bytes) + in.overhead_bytes);
    r.kv_pool_bytes = static_cast<uint64_t>(static_cast<double>(r.requested_bytes) *
                                            in.tensorrt_llm.free_gpu_memory_fraction);
  }
  // The smallest of the fraction's bytes, max_tokens' and max_gpu_total_bytes
  // (_util.py KvCacheCreator.configure_kv_cache_capacity: "It limits max memory to ...").
  const CheckedU64 tokens_cap = CheckedU64(in.tensorrt_llm.max_tokens) * per_token.value;
  if (in.tensorrt_llm.max_tokens != 0 && !tokens_cap.overflowed() &&
      tokens_cap.value() < r.kv_pool_bytes) {
    r.kv_pool_bytes = tokens_cap.value();
    r.notes.push_back("tensorrt-llm: max_tokens " + with_commas(in.tensorrt_llm.max_tokens) +
                      " limits the KV cache to " + format_gib(r.kv_pool_bytes));
  }
  if (in.tensorrt_llm.max_gpu_total_bytes != 0 &&
      in.tensorrt_llm.max_gpu_total_bytes < r.kv_pool_bytes) {
    r.kv_pool_bytes = in.tensorrt_llm.max_gpu_total_bytes;
    r.notes.push_back("tensorrt-llm: max_gpu_total_bytes limits the KV cache to " +
                      format_gib(r.kv_pool_bytes));
  }
  const uint64_t bs = r.block_size_tokens;
  const uint64_t max_tokens = per_token.value == 0 ? 0 : r.kv_pool_bytes / per_token.value;
  r.num_blocks = ceil_div(max_tokens, bs);  // ceiling, unlike vLLM's floor
  r.kv_pool_tokens = max_tokens;
  const uint64_t blocks_per_sequence = ceil_div(r.max_model_len, bs);
  const CheckedU64 needed = CheckedU64(blocks_per_sequence) * bs * per_token.value;
  if (needed.overflowed())
    return R::failure(make_error(kOutOfRange, "max_model_len", "KV bytes exceed 2^64-1"));
  const CheckedU64 pool_cells = CheckedU64(r.num_blocks) * bs;
  if (pool_cells.overflowed())
    return R::failure(
        make_error(kOutOfRange, "block_size_tokens", "the pool's cells exceed 2^64-1"));
  r.kv_bytes_needed = needed.value();
  r.max_concurrency =
      static_cast<double>(r.num_blocks / blocks_per_sequence);  // getMaxCapacityBatchSize
  r.max_context = pool_cells.value();
  r.max_model_len_that_fits = std::min(r.max_model_len, r.max_context);
  r.starts = r.num_blocks >= blocks_per_sequence;
  if (!r.starts) {
    r.startup_error = "one sequence of " + with_commas(r.max_model_len) + " tokens needs " +
                      with_commas(blocks_per_sequence) + " blocks of " + std::to_string(bs) +
                      " tokens; the KV cache holds " + with_commas(r.num_blocks);
  }
  return R::success(std::move(r));
}

// `trtllm-serve` with the plan's length, KV share and layout (tensorrt_llm/commands/serve.py).
LaunchCommand launch_tensorrt_llm(const PlanInput& in, const PlanReport& r,
                                  std::string_view model) {
  LaunchCommand out;
  std::vector<std::string> w = {"trtllm-serve",
                                std::string(model),
                                "--max_seq_len",
                                std::to_string(r.max_model_len),
                                "--kv_cache_free_gpu_memory_fraction",
                                shortest_decimal(in.tensorrt_llm.free_gpu_memory_fraction)};
  weight_dtype_flags("TensorRT-LLM", nullptr, in, r, out.unexpressed);  // no flag quantizes at load
  if (r.tensor_parallel > 1) w.insert(w.end(), {"--tp_size", std::to_string(r.tensor_parallel)});
  if (r.pipeline_parallel > 1)
    w.insert(w.end(), {"--pp_size", std::to_string(r.pipeline_parallel)});
  if (!in.pp_layer_partition.empty()) {
    out.unexpressed.push_back("trtllm-serve has no flag for an uneven pipeline split: its stages "
                              "get even layer counts");
  }
  if (r.data_parallel > 1) {  // trtllm-serve serves one replica (its DP is attention DP for MoE)
    out.unexpressed.push_back(std::to_string(r.data_parallel) +
                              " replicas: start this command on each replica's " +
                              std::to_string(uint64_t{r.tensor_parallel} * r.pipeline_parallel) +
                              " GPUs, behind a load balancer (trtllm-serve has no data-parallel "
                              "flag for dense replicas)");
  }
  if (in.model.kv_dtype != "auto") {
    const std::string name = engine_kv_dtype(
        "TensorRT-LLM", "--kv_cache_dtype", r.estimate.kv_dtype.name,
        {{"fp16", "auto"}, {"bf16", "auto"}, {"fp8", "fp8"}, {"nvfp4", "nvfp4"}},
        "tensorrt_llm/commands/serve.py, NVIDIA/TensorRT-LLM PR #11487", out.unexpressed);
    if (!name.empty()) w.insert(w.end(), {"--kv_cache_dtype", name});
  }
  // KvCacheConfig fields without a flag of their own go in the --config YAML.
  std::string yaml;
  if (in.block_size_tokens != 0)
    yaml += "  tokens_per_block: " + std::to_string(in.block_size_tokens) + "\\n";
  if (in.tensorrt_llm.max_tokens != 0)
    yaml += "  max_tokens: " + std::to_string(in.tensorrt_llm.max_tokens) + "\\n";
  if (in.tensorrt_llm.max_gpu_total_bytes != 0)
    yaml += "  max_gpu_total_bytes: " + std::to_string(in.tensorrt_llm.max_gpu_total_bytes) + "\\n";
  if (!yaml.empty()) w.insert(w.end(), {"--config", "kv_cache.yaml"});
  out.command = shell_command(w);
  if (!yaml.empty())
    out.command = "printf " + shell_command({"kv_cache_config:\\n" + yaml}) +
                  " > kv_cache.yaml && " + out.command;
  return out;
}

}  // namespace kvscope::engines
