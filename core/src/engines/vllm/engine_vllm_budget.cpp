// vLLM's KV budget on one GPU (vllm/v1/worker/gpu_worker.py determine_available_memory): the
// card x gpu_memory_utilization less the weights, the profiled activation peak and non-torch
// memory, with the range published measurements give where kvscope estimates the last two.
#include "engines/vllm/engine_vllm.hpp"
#include "base/checked_math.hpp"
#include "kvscope/base/units.hpp"

namespace kvscope::engines {
namespace {

// vLLM's profiled activation peak, per batched token per vocabulary entry: calibrated on the two
// logged runs in engine-formulas.md §1.4 (Llama-3.1-8B 4.76 GiB, gpt-oss-20b 7.38 GiB at 8192
// batched tokens on an H100), where the peak tracks the fp32 logits of the dummy run.
constexpr double kActivationBytesPerTokenPerVocab = 4.84;
// How far vLLM's measured budget terms lie from kvscope's estimates: llm-d-benchmark's eight
// profiled runs (config_explorer/empirical-vllm-memory-results.md, commit 4f4d449; vLLM 0.11, H100,
// 8,192 batched tokens). Text models' activation peaks lie within 0.99-1.02 of the logit estimate
// (Llama-3.1-8B 4.76, Qwen3-0.6B 5.56, Qwen3-32B 5.64, gpt-oss 7.38, Llama-3.3-70B 4.84 GiB);
// Mistral-Small-3.2 with its vision tower peaked at 2.12 GiB, 0.44 of it. Non-torch memory
// (NCCL, cuBLAS workspaces) was 0.13-0.14 GiB on one GPU and 0.54-0.55 at TP 2; llm-d's planner
// takes 0.15 and 0.6.
constexpr double kActivationLow = 0.98, kActivationHigh = 1.03, kActivationLowWithEncoder = 0.43;
constexpr uint64_t kNonTorchOneGpu = static_cast<uint64_t>(0.13 * kGiB);
constexpr uint64_t kNonTorchOneGpuHigh = static_cast<uint64_t>(0.15 * kGiB);
constexpr uint64_t kNonTorchTensorParallel = static_cast<uint64_t>(0.55 * kGiB);
constexpr uint64_t kNonTorchTensorParallelLow = static_cast<uint64_t>(0.54 * kGiB);
constexpr uint64_t kNonTorchTensorParallelHigh = static_cast<uint64_t>(0.6 * kGiB);

}  // namespace

bool vllm_large_card(const PlanReport& r) {
  return r.gpu_memory_bytes >= 70 * kGiB && r.gpu_id.rfind("a100", 0) != 0;
}

Result<bool> vllm_budget(PlanReport& r, const ModelShape& shape, const PlanInput& in) {
  using RB = Result<bool>;
  r.max_num_batched_tokens = in.vllm.max_num_batched_tokens != 0 ? in.vllm.max_num_batched_tokens
                             : vllm_large_card(r)                ? 8192
                                                                 : 2048;
  if (in.vllm.max_num_batched_tokens == 0) {
    r.notes.push_back("max_num_batched_tokens " + std::to_string(r.max_num_batched_tokens) +
                      ": the `vllm serve` default for this card (EngineArgs.get_batch_defaults)");
  }

  // Budget: memory x utilization - weights - activation peak - non-torch memory.
  if (!r.kv_memory_given) {
    r.requested_bytes = static_cast<uint64_t>(static_cast<double>(r.gpu_memory_bytes) *
                                              in.vllm.gpu_memory_utilization);
    r.activation_bytes = in.vllm.activation_bytes;
    if (r.activation_bytes == 0) {
      const double activation = static_cast<double>(r.max_num_batched_tokens) *
                                static_cast<double>(shape.vocab_size) *
                                kActivationBytesPerTokenPerVocab;
      if (!(activation < 0x1p64)) {  // converting a larger double to uint64_t is undefined
        return RB::failure(make_error(kOutOfRange, "vllm.max_num_batched_tokens",
                                     "the estimated activation peak exceeds 2^64-1 bytes"));
      }
      r.activation_bytes = static_cast<uint64_t>(activation);
      r.notes.push_back(
          "activation peak " + format_gib(r.activation_bytes) +
          ": estimated (vLLM measures it; pass --activation-bytes or --kv-memory to match a log)");
    }
    const bool tp = in.tensor_parallel > 1;
    r.non_torch_bytes = in.vllm.non_torch_bytes != 0 ? in.vllm.non_torch_bytes
                        : tp                         ? kNonTorchTensorParallel
                                                     : kNonTorchOneGpu;
    // v0.9 to ~v0.17 do not subtract CUDA-graph memory; newer releases estimate and subtract it.
    r.cudagraph_bytes = in.vllm.cudagraph_bytes;
    const auto pool_after = [&](uint64_t activation, uint64_t non_torch) {
      return left_after(r.requested_bytes, CheckedU64(r.weights_bytes) + activation + non_torch +
                                               r.cudagraph_bytes);
    };
    r.kv_pool_bytes = pool_after(r.activation_bytes, r.non_torch_bytes);
    // What kvscope estimated, as the range the measurements give.
    EstimatedBudget& e = r.estimated;
    e.present = in.vllm.activation_bytes == 0 || in.vllm.non_torch_bytes == 0;
    const auto scaled = [](uint64_t bytes, double by) {
      return static_cast<uint64_t>(static_cast<double>(bytes) * by);
    };
    e.activation_low = e.activation_high = r.activation_bytes;
    if (in.vllm.activation_bytes == 0) {
      e.activation_low = scaled(r.activation_bytes,
                                shape.has_encoder ? kActivationLowWithEncoder : kActivationLow);
      e.activation_high = scaled(r.activation_bytes, kActivationHigh);
    }
    e.non_torch_low = e.non_torch_high = r.non_torch_bytes;
    if (in.vllm.non_torch_bytes == 0) {
      e.non_torch_low = tp ? kNonTorchTensorParallelLow : kNonTorchOneGpu;
      e.non_torch_high = tp ? kNonTorchTensorParallelHigh : kNonTorchOneGpuHigh;
    }
    e.kv_pool_low = pool_after(e.activation_high, e.non_torch_high);
    e.kv_pool_high = pool_after(e.activation_low, e.non_torch_low);
    e.source =
        "vLLM measures these at start-up; the range is where llm-d's profiled runs (vLLM 0.11, "
        "H100, 8,192 batched tokens) lie against kvscope's estimate" +
        std::string(shape.has_encoder ? " (the low end: a model with a vision tower)" : "") +
        (in.tensor_parallel > 2 ? "; non-torch memory was measured at TP 1 and 2 only" : "");
  }
  return RB::success(true);
}

}  // namespace kvscope::engines
