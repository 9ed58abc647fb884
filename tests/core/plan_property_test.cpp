// Plan invariants over thousands of random scenarios from the catalogues (every model, GPU and
// engine, KV dtypes each engine takes, TP/PP, batch, shared prefix; fixed seed): concurrency never
// grows with context, no budget engine's pool exceeds the card, tensor parallelism never adds
// per-GPU KV, paging never stores less than unpaged, a shared prefix never adds memory, and sizes
// up to what a user could mean compute or say "out of range", never wrap.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kvscope/model/catalog.hpp"
#include "kvscope/plan/plan.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

struct EngineDtypes {
  const char* engine;
  std::vector<const char*> kv_dtypes;  // the --kv-cache-dtype spellings the engine accepts
};

const EngineDtypes kEngines[] = {
    {"plain", {"auto", "fp32", "bf16", "fp8", "int8", "int4", "nvfp4", "q8_0", "q4_0"}},
    {"vllm", {"auto", "bf16", "fp8", "fp8_e5m2", "int8_per_token_head", "fp8_per_token_head"}},
    {"sglang", {"auto", "bf16", "fp8", "fp8_e5m2"}},
    {"tensorrt-llm", {"auto", "fp8", "int8", "nvfp4"}},
    {"llama.cpp", {"auto", "fp32", "fp16", "q8_0", "q5_1", "q5_0", "q4_1", "q4_0", "iq4_nl"}},
};

class Draw {
 public:
  explicit Draw(uint64_t seed) : rng_(seed) {}
  uint64_t operator()(uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng_);
  }
  template <typename List>
  const auto& one_of(const List& list) {
    return list[(*this)(0, std::size(list) - 1)];
  }

 private:
  std::mt19937_64 rng_;
};

PlanInput random_plan(Draw& draw) {
  const EngineDtypes& engine = draw.one_of(kEngines);
  PlanInput in;
  in.engine = engine.engine;
  in.model.model_id = draw.one_of(model_catalog()).id;
  in.gpu_id = draw.one_of(gpu_catalog()).id;
  in.model.kv_dtype = draw.one_of(engine.kv_dtypes);
  in.tensor_parallel = 1u << draw(0, 3);
  in.pipeline_parallel = static_cast<uint32_t>(draw(0, 3) == 0 ? draw(2, 4) : 1);
  in.gpus = uint64_t{in.tensor_parallel} * in.pipeline_parallel * draw(1, 4);
  in.max_model_len = draw(256, 65536);
  in.model.context_tokens = in.max_model_len;
  in.model.batch = draw(1, 64);
  in.model.shared_prefix_tokens = draw(0, 1) == 0 ? 0 : draw(0, in.max_model_len);
  in.vllm.gpu_memory_utilization = 0.5 + 0.5 * static_cast<double>(draw(1, 1000)) / 1000;
  in.llama_cpp.parallel = draw(1, 8);
  return in;
}

std::string label(const PlanInput& in) {
  return in.engine + " " + in.model.model_id + " " + in.model.kv_dtype + " on " + in.gpu_id +
         " tp " + std::to_string(in.tensor_parallel) + " pp " +
         std::to_string(in.pipeline_parallel) + " len " + std::to_string(in.max_model_len);
}

TEST(PlanProperties, PoolsFitTheCardAndConcurrencyNeverGrowsWithContext) {
  Draw draw(20261202);
  int checked = 0, compared = 0;
  std::vector<int> per_engine(std::size(kEngines));
  for (int i = 0; i < 3300; ++i) {
    PlanInput in = random_plan(draw);
    const Result<PlanReport> a = plan(in);
    if (!a.ok) {  // a refusal (TP that does not divide, a dtype a head dim does not fit) names it
      EXPECT_FALSE(a.error.field.empty()) << label(in);
      continue;
    }
    ++checked;
    for (size_t e = 0; e < std::size(kEngines); ++e)
      per_engine[e] += in.engine == kEngines[e].engine;
    const PlanReport& r = a.value;
    // Budget engines carve the pool out of the card; llama.cpp allocates what the context asks
    // for, and then does not start when it is more than the card holds.
    if (in.engine != "llama.cpp") EXPECT_LE(r.kv_pool_bytes, r.gpu_memory_bytes) << label(in);
    for (const PlanStage& s : r.stages) {
      if (in.engine != "llama.cpp") EXPECT_LE(s.kv_pool_bytes, r.gpu_memory_bytes) << label(in);
      if (s.weights_bytes >= r.gpu_memory_bytes) EXPECT_FALSE(r.starts) << label(in);
    }
    if (r.starts && in.engine != "llama.cpp") {
      EXPECT_LE(r.kv_pool_bytes + r.weights_bytes, r.gpu_memory_bytes) << label(in);
    }
    for (const DeviceBuffers& d : r.devices) {  // llama.cpp: each device holds its own share
      if (r.starts && d.device != "CPU") {
        EXPECT_LE(d.weights_bytes + d.kv_bytes, d.memory_bytes) << label(in) << " " << d.device;
      }
    }
    EXPECT_TRUE(std::isfinite(r.max_concurrency) && r.max_concurrency >= 0) << label(in);
    in.max_model_len *= 2;
    in.model.context_tokens = in.max_model_len;
    const Result<PlanReport> b = plan(in);
    if (!b.ok) continue;
    ++compared;
    EXPECT_LE(b.value.max_concurrency, r.max_concurrency) << label(in);
    EXPECT_LE(b.value.total_max_concurrency, r.total_max_concurrency) << label(in);
  }
  EXPECT_GT(checked, 1500);
  EXPECT_GT(compared, 1200);
  for (size_t e = 0; e < std::size(kEngines); ++e)
    EXPECT_GT(per_engine[e], 100) << kEngines[e].engine;
}

TEST(PlanProperties, TensorParallelismNeverAddsKvPerGpu) {
  Draw draw(7);
  int compared = 0;
  for (int i = 0; i < 500; ++i) {
    PlanInput in = random_plan(draw);
    // One stage, so the reported GPU is the same stage whatever the TP.
    in.pipeline_parallel = 1;
    in.gpus = 0;
    in.gpu_id.clear();
    in.kv_memory_bytes = uint64_t{1} << 36;  // the same pool whatever the weights
    uint64_t previous = UINT64_MAX;
    for (uint32_t tp : {1u, 2u, 4u, 8u}) {
      in.tensor_parallel = tp;
      const Result<PlanReport> r = plan(in);
      if (!r.ok) continue;  // TP that does not divide the heads is refused, naming --tp
      // kv_bytes_needed is one max_model_len request on one GPU, as the engine counts it.
      EXPECT_LE(r.value.kv_bytes_needed, previous) << label(in);
      if (previous != UINT64_MAX) ++compared;
      previous = r.value.kv_bytes_needed;
    }
  }
  EXPECT_GT(compared, 600);
}

// The stage whose pool holds the fewest requests: the one a report's figures describe.
size_t tightest(const PlanReport& r) {
  size_t at = 0;
  for (size_t s = 1; s < r.stages.size(); ++s)
    if (r.stages[s].max_concurrency < r.stages[at].max_concurrency) at = s;
  return at;
}

TEST(PlanProperties, PagingNeverBelowUnpagedAndAPrefixNeverAdds) {
  Draw draw(99);
  int checked = 0;
  for (int i = 0; i < 1500; ++i) {
    PlanInput in = random_plan(draw);
    in.engine = "plain";  // the engine whose block size is only the input's
    in.model.kv_dtype = draw.one_of(kEngines[0].kv_dtypes);
    in.model.shared_prefix_tokens = 0;
    in.block_size_tokens = 0;
    const Result<PlanReport> unpaged = plan(in);
    if (!unpaged.ok) continue;
    in.block_size_tokens = draw(1, 1024);
    const Result<PlanReport> paged = plan(in);
    ASSERT_TRUE(paged.ok) << label(in) << ": " << paged.error.message;
    const KvEstimate& u = unpaged.value.estimate.kv;
    const KvEstimate& p = paged.value.estimate.kv;
    EXPECT_GE(p.kv_bytes_total, u.kv_bytes_total) << label(in);
    // kv_bytes_needed is the tightest stage's, and paging can make another stage the tightest
    // (MiMo-V2's stages keep 1 or 2 KV heads): compared stage by stage through concurrency.
    ASSERT_EQ(paged.value.stages.size(), unpaged.value.stages.size()) << label(in);
    for (size_t s = 0; s < paged.value.stages.size(); ++s) {
      EXPECT_LE(paged.value.stages[s].max_concurrency, unpaged.value.stages[s].max_concurrency)
          << label(in) << " stage " << s;
    }
    if (tightest(paged.value) == tightest(unpaged.value))
      EXPECT_GE(paged.value.kv_bytes_needed, unpaged.value.kv_bytes_needed) << label(in);
    EXPECT_LE(paged.value.max_concurrency, unpaged.value.max_concurrency) << label(in);
    in.model.shared_prefix_tokens = draw(1, in.model.context_tokens);
    const Result<PlanReport> shared = plan(in);
    ASSERT_TRUE(shared.ok) << label(in) << ": " << shared.error.message;
    EXPECT_LE(shared.value.estimate.kv.kv_bytes_total, p.kv_bytes_total) << label(in);
    ++checked;
  }
  EXPECT_GT(checked, 1000);
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
