// Sizes up to the largest a user could mean (10^9 tokens and sequences, 10^4 GPUs, 10^6 layers,
// heads and head dims up to 2^32-1), drawn log-uniformly with a fixed seed: every figure is the
// exact product computed independently in 128 bits, or the call says out_of_range naming a
// field. Never a wrap, a NaN, an infinity or a negative number in a report.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "../support/report_numbers.hpp"
#include "kvscope/kv/estimate.hpp"
#include "kvscope/kv/kv_arithmetic.hpp"
#include "kvscope/plan/plan.hpp"
#include "kvscope/request/report_json.hpp"
#include "kvscope/kv/roofline.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

using u128 = unsigned __int128;
constexpr u128 kMaxU64 = UINT64_MAX;

// Whole-byte KV dtypes, so the independent product is values x bytes.
const char* const kWholeByteDtypes[] = {"fp32", "bf16", "fp16", "fp8", "int8"};

class LogUniform {
 public:
  explicit LogUniform(uint64_t seed) : rng_(seed) {}
  // An integer in [lo, hi] whose logarithm is uniform: small and huge values equally often.
  uint64_t operator()(uint64_t lo, uint64_t hi) {
    const double x = std::exp(std::uniform_real_distribution<double>(
        std::log(static_cast<double>(lo)), std::log(static_cast<double>(hi)))(rng_));
    return std::clamp(static_cast<uint64_t>(x), lo, hi);
  }
  size_t index(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

 private:
  std::mt19937_64 rng_;
};

struct FullAttentionCase {
  uint64_t layers = 1, kv_heads = 1, head_dim = 1, value_bytes = 2, tokens = 1, batch = 1;

  u128 row_bits() const { return u128{kv_heads} * head_dim * value_bytes * 8; }
  u128 per_token() const { return u128{layers} * kv_heads * head_dim * value_bytes * 2; }
  u128 per_sequence() const { return per_token() * tokens; }
  u128 total() const { return per_sequence() * batch; }
  // Every intermediate the arithmetic forms fits in 64 bits (a K row's bits, then the products).
  bool fits() const {
    return row_bits() <= kMaxU64 && per_token() <= kMaxU64 && per_sequence() <= kMaxU64 &&
           total() <= kMaxU64;
  }
};

ModelShape full_attention_shape(const FullAttentionCase& c) {
  ModelShape s;
  s.num_attention_heads = static_cast<uint32_t>(c.kv_heads);
  s.head_dim = static_cast<uint32_t>(c.head_dim);
  LayerSpec l;
  l.kv_heads = static_cast<uint32_t>(c.kv_heads);
  l.k_head_dim = l.v_head_dim = static_cast<uint32_t>(c.head_dim);
  s.layers.assign(c.layers, l);
  return s;
}

std::string describe(const FullAttentionCase& c) {
  return std::to_string(c.layers) + " layers x " + std::to_string(c.kv_heads) + " heads x " +
         std::to_string(c.head_dim) + " x " + std::to_string(c.value_bytes) + " bytes, " +
         std::to_string(c.tokens) + " tokens x " + std::to_string(c.batch);
}

// The result of one case: exact when every intermediate fits, else out_of_range with a field.
void expect_exact_or_out_of_range(const FullAttentionCase& c, const Result<KvEstimate>& r) {
  if (c.fits()) {
    ASSERT_TRUE(r.ok) << describe(c) << ": " << r.error.message;
    EXPECT_EQ(r.value.kv_bytes_per_token, static_cast<uint64_t>(c.per_token())) << describe(c);
    EXPECT_EQ(r.value.kv_bytes_per_sequence, static_cast<uint64_t>(c.per_sequence()))
        << describe(c);
    EXPECT_EQ(r.value.kv_bytes_total, static_cast<uint64_t>(c.total())) << describe(c);
  } else {
    ASSERT_FALSE(r.ok) << describe(c) << " wrapped to " << r.value.kv_bytes_total;
    EXPECT_EQ(r.error.code, kOutOfRange) << describe(c) << ": " << r.error.message;
    EXPECT_FALSE(r.error.field.empty()) << describe(c);
  }
}

FullAttentionCase random_case(LogUniform& draw, uint64_t max_layers, uint64_t max_heads) {
  FullAttentionCase c;
  c.layers = draw(1, max_layers);
  c.kv_heads = draw(1, max_heads);
  c.head_dim = draw(1, max_heads);
  c.tokens = draw(1, 1000000000);
  c.batch = draw(1, 1000000000);
  return c;
}

TEST(NumericSafety, HandBuiltShapesComputeExactlyOrSayOutOfRange) {
  LogUniform draw(20261202);
  int exact = 0, refused = 0;
  for (int i = 0; i < 3000; ++i) {
    // Every 500th shape has up to 10^6 layers; the rest up to 2,000 (the grouping is per layer).
    FullAttentionCase c = random_case(draw, i % 500 == 0 ? 1000000 : 2000, UINT32_MAX);
    const char* dtype = kWholeByteDtypes[draw.index(std::size(kWholeByteDtypes))];
    const Dtype kv = test::kv_dtype(dtype);
    c.value_bytes = kv.block_bits / 8;
    const Result<KvEstimate> r =
        kv_totals(full_attention_shape(c), kv, kv, KvWorkload{c.tokens, c.batch, 0, 0});
    expect_exact_or_out_of_range(c, r);
    (r.ok ? exact : refused) += 1;
  }
  // The draw covers both sides of 2^64.
  EXPECT_GT(exact, 300);
  EXPECT_GT(refused, 300);
}

TEST(NumericSafety, MillionLayerShapesComputeExactlyAndStayFinite) {
  FullAttentionCase c;
  c.layers = 1000000;
  c.kv_heads = 8;
  c.head_dim = 128;
  c.tokens = 1000000000;
  const ModelShape shape = full_attention_shape(c);
  const Dtype fp8 = test::kv_dtype("fp8");
  c.value_bytes = 1;
  const Result<KvLayout> layout = kv_layout(shape, fp8, fp8);  // grouped once: 10^6 layers
  ASSERT_TRUE(layout.ok) << layout.error.message;
  for (uint64_t batch : {uint64_t{1}, uint64_t{1000}, uint64_t{1000000000}}) {
    c.batch = batch;
    expect_exact_or_out_of_range(c,
                                 kv_totals(layout.value, KvWorkload{c.tokens, batch, 0, 0}, false));
  }
  // A decode step over them: 10^6 layers of 10^9 attended tokens is large but finite.
  const GpuLoad load =
      gpu_load(shape, weight_tensors(shape).value, plain_storage(fp8), 1, 0, 1).value;
  const Result<StepEstimate> step =
      decode_step(load, fp8, fp8, HardwarePeaks{3.35e12, 989e12, "bf16"}, 1000000000, c.tokens);
  if (step.ok) {
    for (double v : {step.value.kv_bytes, step.value.flops, step.value.time_s})
      EXPECT_TRUE(std::isfinite(v) && v >= 0) << v;
  } else {
    EXPECT_EQ(step.error.code, kOutOfRange) << step.error.message;
  }
}

// A Llama-style config.json of the case's shape (import_config caps layers, heads, head_dim).
std::string llama_config(const FullAttentionCase& c, const char* torch_dtype) {
  return nlohmann::json{{"model_type", "llama"},
                        {"num_hidden_layers", c.layers},
                        {"hidden_size", 4096},
                        {"intermediate_size", 14336},
                        {"num_attention_heads", c.kv_heads},
                        {"num_key_value_heads", c.kv_heads},
                        {"head_dim", c.head_dim},
                        {"vocab_size", 128256},
                        {"max_position_embeddings", 1 << 20},
                        {"torch_dtype", torch_dtype}}
      .dump();
}

TEST(NumericSafety, EstimateReportsAreExactOrOutOfRangeAndTheirJsonIsFinite) {
  LogUniform draw(7);
  int exact = 0;
  for (int i = 0; i < 300; ++i) {
    // Every 100th config has up to import_config's 65536 layers; the rest up to 512 (the report
    // lists every layer).
    FullAttentionCase c = random_case(draw, i % 100 == 0 ? 65536 : 512, 65536);
    const bool fp32 = i % 2 == 0;
    c.value_bytes = fp32 ? 4 : 2;
    EstimateInput in;
    in.config_json = llama_config(c, fp32 ? "float32" : "bfloat16");
    in.kv_dtype = fp32 ? "fp32" : "bf16";
    in.context_tokens = c.tokens;
    in.batch = c.batch;
    const Result<EstimateReport> r = estimate(in);
    expect_exact_or_out_of_range(
        c, r.ok ? Result<KvEstimate>::success(r.value.kv) : Result<KvEstimate>::failure(r.error));
    if (!r.ok) continue;
    ++exact;
    EXPECT_EQ(test::first_bad_number(report_to_json(r.value)), "") << describe(c);
  }
  EXPECT_GT(exact, 120);
}

TEST(NumericSafety, MillionLayerConfigIsOutOfRangeNamingTheField) {
  const std::string config = R"({"model_type": "llama", "num_hidden_layers": 1000000,
    "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
    "max_position_embeddings": 8192, "torch_dtype": "bfloat16"})";
  const Result<ImportedModel> imported = import_config(config);
  ASSERT_FALSE(imported.ok);
  EXPECT_EQ(imported.error.code, kOutOfRange);
  EXPECT_EQ(imported.error.field, "num_hidden_layers");
  // The same through plan's what-if on a catalogue model.
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.gpu_id = "h100-sxm-80gb";
  in.overrides = {{"num_hidden_layers", "1000000"}};
  const Result<PlanReport> r = plan(in);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, kOutOfRange);
  EXPECT_EQ(r.error.field, "num_hidden_layers");
}

TEST(NumericSafety, PlansAtExtremeSizesAreFiniteOrOutOfRange) {
  const char* const kEngines[] = {"plain", "vllm", "sglang", "tensorrt-llm", "llama.cpp"};
  LogUniform draw(99);
  int planned = 0;
  for (int i = 0; i < 120; ++i) {
    PlanInput in;
    in.model.model_id = model_catalog()[draw.index(model_catalog().size())].id;
    in.engine = kEngines[draw.index(std::size(kEngines))];
    in.gpu_id = gpu_catalog()[draw.index(gpu_catalog().size())].id;
    in.tensor_parallel = uint32_t{1} << draw.index(4);
    in.pipeline_parallel = static_cast<uint32_t>(draw(1, 16));
    const uint64_t per_replica = uint64_t{in.tensor_parallel} * in.pipeline_parallel;
    in.gpus = per_replica * std::max<uint64_t>(1, draw(1, 10000) / per_replica);
    in.max_model_len = in.model.context_tokens = draw(1, 1000000000);
    in.model.batch = draw(1, 1000000000);
    in.llama_cpp.parallel = draw(1, 1000000000);
    const std::string label =
        in.engine + " " + in.model.model_id + " tp " + std::to_string(in.tensor_parallel) + " pp " +
        std::to_string(in.pipeline_parallel) + " context " + std::to_string(in.max_model_len);
    const Result<PlanReport> r = plan(in);
    if (!r.ok) {
      // Besides sizes, only the documented refusals: TP/PP that does not divide the model, and
      // layer kinds an engine's profile does not model.
      const bool sharding =
          r.error.field == "tensor_parallel" || r.error.field == "pipeline_parallel";
      EXPECT_TRUE(r.error.code == kOutOfRange || sharding || r.error.code == kUnsupported)
          << label << ": " << r.error.code << " " << r.error.message;
      EXPECT_FALSE(r.error.field.empty()) << label;
      continue;
    }
    ++planned;
    const PlanReport& p = r.value;
    EXPECT_EQ(test::first_bad_number(plan_to_json(p)), "") << label;
    EXPECT_TRUE(std::isfinite(p.max_concurrency) && std::isfinite(p.total_max_concurrency))
        << label;
    u128 pool = 0;
    for (const PlanStage& s : p.stages) pool += u128{s.kv_pool_bytes} * p.tensor_parallel;
    EXPECT_TRUE(pool * p.data_parallel == p.total_kv_pool_bytes) << label;
  }
  EXPECT_GT(planned, 30);
}

}  // namespace
}  // namespace kvscope
