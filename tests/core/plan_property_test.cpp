// Plan invariants over random valid scenarios from the catalogues (fixed seed): concurrency never
// grows with context, no engine's pool exceeds the card, tensor parallelism never adds per-GPU KV,
// and sizes up to what a user could mean compute or say "out of range", never wrap.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kvscope/catalog.hpp"
#include "kvscope/plan.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

const char* const kEngines[] = {"plain", "vllm", "sglang", "tensorrt-llm", "llama.cpp"};
const char* const kModels[] = {"llama-3.1-8b", "llama-2-7b",    "mistral-7b-v0.1", "qwen2.5-7b",
                               "gemma-2-9b",   "llama-3.1-70b", "mixtral-8x7b",    "phi-4"};
const char* const kGpus[] = {"h100-sxm-80gb", "a100-sxm-80gb",  "l4",
                             "rtx-4090",      "h200-sxm-141gb", "mi300x"};
const char* const kDtypes[] = {"auto", "fp8", "int8", "fp32"};

PlanInput random_plan(std::mt19937_64& rng) {
  auto pick = [&rng](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  PlanInput in;
  in.model.model_id = kModels[pick(0, std::size(kModels) - 1)];
  in.engine = kEngines[pick(0, std::size(kEngines) - 1)];
  in.gpu_id = kGpus[pick(0, std::size(kGpus) - 1)];
  in.model.kv_dtype = kDtypes[pick(0, std::size(kDtypes) - 1)];
  if (in.engine == "llama.cpp" && in.model.kv_dtype == "int8") in.model.kv_dtype = "q8_0";
  in.max_model_len = pick(256, 32768);
  in.model.context_tokens = in.max_model_len;
  in.gpu_memory_utilization = 0.5 + 0.5 * std::uniform_real_distribution<double>(0, 1)(rng);
  return in;
}

TEST(PlanProperties, ConcurrencyNeverGrowsWithContextAndPoolsFitTheCard) {
  std::mt19937_64 rng(20261202);
  int checked = 0;
  for (int i = 0; i < 400; ++i) {
    PlanInput in = random_plan(rng);
    const Result<PlanReport> a = plan(in);
    if (!a.ok) continue;  // a refusal (e.g. the weights do not fit) names its field elsewhere
    ++checked;
    const PlanReport& r = a.value;
    const std::string label = in.engine + " " + in.model.model_id;
    // Budget engines carve the pool out of the card; llama.cpp allocates what the context asks
    // for, and then does not start when it is more than the card holds.
    if (in.engine != "llama.cpp") EXPECT_LE(r.kv_pool_bytes, r.gpu_memory_bytes) << label;
    if (r.weights_bytes >= r.gpu_memory_bytes)
      EXPECT_FALSE(r.starts) << label;  // weights alone overflow
    if (r.starts) EXPECT_LE(r.kv_pool_bytes + r.weights_bytes, r.gpu_memory_bytes) << label;
    EXPECT_TRUE(std::isfinite(r.max_concurrency) && r.max_concurrency >= 0);
    in.max_model_len *= 2;
    in.model.context_tokens = in.max_model_len;
    const Result<PlanReport> b = plan(in);
    if (b.ok)
      EXPECT_LE(b.value.max_concurrency, r.max_concurrency)
          << in.engine << " " << in.model.model_id;
  }
  EXPECT_GT(checked, 200);
}

TEST(PlanProperties, TensorParallelismNeverAddsKvPerGpu) {
  for (const char* model : kModels) {
    PlanInput in;
    in.model.model_id = model;
    in.engine = "plain";
    in.kv_memory_bytes = 1ull << 34;
    in.max_model_len = in.model.context_tokens = 8192;
    uint64_t previous = UINT64_MAX;
    for (uint32_t tp : {1u, 2u, 4u, 8u}) {
      in.tensor_parallel = tp;
      const Result<PlanReport> r = plan(in);
      if (!r.ok) continue;  // TP that does not divide the heads is refused, naming --tp
      EXPECT_LE(r.value.estimate.kv.kv_bytes_per_sequence, previous) << model << " tp " << tp;
      previous = r.value.estimate.kv.kv_bytes_per_sequence;
    }
  }
}

TEST(PlanProperties, HugeSizesComputeExactlyOrSayOutOfRange) {
  PlanInput in;
  in.model.model_id = "llama-3.1-405b";
  in.gpu_id = "h100-sxm-80gb";
  in.engine = "plain";
  in.max_model_len = in.model.context_tokens = 1000000000;  // 10^9 tokens
  in.gpus = 10000;
  in.tensor_parallel = 8;
  in.pipeline_parallel = 10;  // 80 GPUs a replica, 125 replicas
  const Result<PlanReport> r = plan(in);
  if (r.ok) {
    // 10^9 tokens x 126 layers x 8 KV heads x 128 x 2 x 2 bytes, all of it: exact, no wrap.
    EXPECT_EQ(r.value.estimate.kv.kv_bytes_per_sequence, 1000000000ull * 126 * 8 * 128 * 2 * 2);
    EXPECT_EQ(r.value.data_parallel, 125u);
  } else {
    EXPECT_FALSE(r.error.field.empty());
  }
  in.model.batch = 1000000000;  // 10^9 sequences of 10^9 tokens: beyond 2^64 bytes
  const Result<PlanReport> huge = plan(in);
  if (!huge.ok) EXPECT_EQ(huge.error.code, kOutOfRange) << huge.error.message;
}

}  // namespace
}  // namespace kvscope
