// vLLM's KV budget on one GPU (vllm/v1/worker/gpu_worker.py determine_available_memory): the
// card x gpu_memory_utilization less the weights, the profiled activation peak, non-torch memory
// and, from 0.20, the estimated CUDA-graph memory; with the range published measurements give
// where kvscope estimates them.
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
// vLLM's CUDA-graph estimate ("Estimated CUDA graph memory",
// GPUModelRunner.profile_cudagraph_memory) in llm-d-planner's 64 vLLM 0.19 runs on an H100
// (accuracy/results/v0.19.0/logs, 102 graphs, tests/data/logs/llm-d-0.19): median 0.84 GiB, from
// 0.49 (Llama-3.1-8B, PP 4) to 1.92 GiB (Llama-3.3-70B w8a8, TP 2); it does not follow the layer
// count or the width.
constexpr uint64_t kCudaGraphs = static_cast<uint64_t>(0.84 * kGiB);
constexpr uint64_t kCudaGraphsLow = static_cast<uint64_t>(0.49 * kGiB);
constexpr uint64_t kCudaGraphsHigh = static_cast<uint64_t>(1.92 * kGiB);

// A term kvscope estimated, and the flag that gives the engine's measured figure instead.
void note_estimated(PlanReport& r, const char* term, uint64_t bytes, const char* flag) {
  r.notes.push_back(term + format_gib(bytes) + ": estimated (vLLM measures it; pass --" + flag +
                    " or --kv-memory to match a log)");
}

}  // namespace

bool vllm_large_card(const PlanReport& r) {
  return r.gpu_memory_bytes >= 70 * kGiB && r.gpu_id.rfind("a100", 0) != 0;
}

uint64_t vllm_default_batched_tokens(const PlanReport& r, const VllmRelease& release) {
  if (release.largest_card_tier && r.gpu_memory_bytes >= 160 * kGiB) return 16384;
  return vllm_large_card(r) ? 8192 : 2048;
}

Result<bool> vllm_budget(PlanReport& r, const ModelShape& shape, const PlanInput& in,
                         const VllmRelease& release) {
  using RB = Result<bool>;
  r.max_num_batched_tokens = in.vllm.max_num_batched_tokens != 0
                                 ? in.vllm.max_num_batched_tokens
                                 : vllm_default_batched_tokens(r, release);
  if (in.vllm.max_num_batched_tokens == 0) {
    r.notes.push_back("max_num_batched_tokens " + std::to_string(r.max_num_batched_tokens) +
                      ": the `vllm serve` default for this card (EngineArgs.get_batch_defaults)");
  }

  // Budget: memory x utilization - weights - activation peak - non-torch memory.
  if (!r.kv_memory_given) {
    r.requested_bytes = static_cast<uint64_t>(static_cast<double>(r.gpu_memory_bytes) *
                                              vllm_utilization(in.vllm, release));
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
      note_estimated(r, "activation peak ", r.activation_bytes, "activation-bytes");
    }
    const bool tp = in.tensor_parallel > 1;
    r.non_torch_bytes = in.vllm.non_torch_bytes != 0 ? in.vllm.non_torch_bytes
                        : tp                         ? kNonTorchTensorParallel
                                                     : kNonTorchOneGpu;
    // From 0.20 the profiler's CUDA-graph estimate comes out of the budget (Model Runner V2
    // estimated none before 0.29); before, only with VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1,
    // so only a given figure counts. --enforce-eager captures no graphs.
    const bool graphs =
        (release.reserves_cudagraphs || in.vllm.cudagraph_bytes != 0) && !in.vllm.enforce_eager;
    r.cudagraph_bytes = !graphs                        ? 0
                        : in.vllm.cudagraph_bytes != 0 ? in.vllm.cudagraph_bytes
                                                       : kCudaGraphs;
    if (graphs && in.vllm.cudagraph_bytes == 0) {
      note_estimated(r, "CUDA-graph memory ", r.cudagraph_bytes, "cudagraph-bytes");
    }
    const auto pool_after = [&](uint64_t activation, uint64_t non_torch, uint64_t cudagraphs) {
      return left_after(r.requested_bytes,
                        CheckedU64(r.weights_bytes) + activation + non_torch + cudagraphs);
    };
    r.kv_pool_bytes = pool_after(r.activation_bytes, r.non_torch_bytes, r.cudagraph_bytes);
    // What kvscope estimated, as the range the measurements give.
    EstimatedBudget& e = r.estimated;
    const bool graphs_estimated = graphs && in.vllm.cudagraph_bytes == 0;
    e.present = in.vllm.activation_bytes == 0 || in.vllm.non_torch_bytes == 0 || graphs_estimated;
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
    e.cudagraph_low = graphs_estimated ? kCudaGraphsLow : r.cudagraph_bytes;
    e.cudagraph_high = graphs_estimated ? kCudaGraphsHigh : r.cudagraph_bytes;
    e.kv_pool_low = pool_after(e.activation_high, e.non_torch_high, e.cudagraph_high);
    e.kv_pool_high = pool_after(e.activation_low, e.non_torch_low, e.cudagraph_low);
    e.source =
        "vLLM measures these at start-up; the range is where llm-d's profiled runs (vLLM 0.11, "
        "H100, 8,192 batched tokens) lie against kvscope's estimate" +
        std::string(shape.has_encoder ? " (the low end: a model with a vision tower)" : "") +
        (in.tensor_parallel > 2 ? "; non-torch memory was measured at TP 1 and 2 only" : "") +
        (graphs_estimated ? "; CUDA graphs: its vLLM 0.19 runs" : "");
  }
  return RB::success(true);
}

}  // namespace kvscope::engines
