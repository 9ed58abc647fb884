// Length distributions and the concurrency a KV pool sustains for them.
#include "kvscope/kv/workload.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "kvscope/plan/plan.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

LengthDistribution parsed(const std::string& spec) {
  const Result<LengthDistribution> d = parse_length_distribution(spec, "prompt_lengths");
  EXPECT_TRUE(d.ok) << d.error.message;
  return d.value;
}

double mean_of(const LengthDistribution& d) {
  double mean = 0;
  for (const auto& [value, weight] : d.quadrature()) mean += value * weight;
  return mean;
}

TEST(Workload, ParsesTheThreeForms) {
  EXPECT_EQ(parsed("4096").fixed, 4096u);
  EXPECT_EQ(parsed("4k").fixed, 4096u);
  const LengthDistribution u = parsed("uniform:512-8k");
  EXPECT_EQ(u.min, 512u);
  EXPECT_EQ(u.max, 8192u);
  EXPECT_NEAR(mean_of(u), (512 + 8192) / 2.0, 1e-9);
  const LengthDistribution l = parsed("lognormal:mean=2000,p99=16000");
  EXPECT_NEAR(mean_of(l), 2000, 2000 * 0.005);
  EXPECT_NEAR(std::exp(l.mu + 2.3263478740408408 * l.sigma), 16000, 1e-6);
}

TEST(Workload, BadDistributionsNameTheField) {
  for (const char* spec :
       {"", "-5", "uniform:9-3", "uniform:5", "lognormal:mean=2000", "lognormal:mean=100,p99=50",
        "lognormal:mean=10,p99=1000", "gaussian:3", "<script>"}) {
    const Result<LengthDistribution> d = parse_length_distribution(spec, "output_lengths");
    ASSERT_FALSE(d.ok) << spec;
    EXPECT_EQ(d.error.field, "output_lengths");
    EXPECT_EQ(d.error.message.find("<script>"), std::string::npos);
  }
}

WorkloadCapacity capacity(const std::string& prompt, const std::string& output, uint64_t pool,
                          uint64_t prefix = 0) {
  const ModelShape llama = test::catalog_shape("llama-3.1-8b");
  const WorkloadInput w{parsed(prompt), parsed(output), prefix, 131072, 0};
  const Result<WorkloadCapacity> c =
      workload_capacity(llama, test::kv_dtype("bf16"), test::kv_dtype("bf16"), pool, w);
  EXPECT_TRUE(c.ok) << c.error.message;
  return c.value;
}

TEST(Workload, FixedLengthsHoldThePromptAndHalfTheOutput) {
  const uint64_t pool = 20ull << 30;
  const WorkloadCapacity c = capacity("1000", "800", pool);
  EXPECT_DOUBLE_EQ(c.mean_tokens_held, 1400);
  EXPECT_NEAR(c.expected_concurrency, static_cast<double>(pool) / (1400.0 * 131072), 1e-9);
  EXPECT_LT(static_cast<double>(c.p99_concurrency), c.expected_concurrency);
  EXPECT_GT(static_cast<double>(c.p99_concurrency), 0.9 * c.expected_concurrency);
}

TEST(Workload, HeavierTailsLowerTheP99AndAPrefixRaisesBoth) {
  const uint64_t pool = 20ull << 30;
  const WorkloadCapacity narrow = capacity("uniform:1500-2500", "500", pool);
  const WorkloadCapacity wide = capacity("lognormal:mean=2000,p99=16000", "500", pool);
  EXPECT_NEAR(narrow.mean_prompt_tokens, wide.mean_prompt_tokens, 20);
  EXPECT_LT(wide.p99_concurrency, narrow.p99_concurrency);
  const WorkloadCapacity shared = capacity("1000", "800", pool, 4000);
  EXPECT_NEAR(shared.expected_concurrency, capacity("1000", "800", pool).expected_concurrency,
              0.05 * shared.expected_concurrency);  // the 4,000-token prefix is stored once
}

TEST(Workload, PlanReportsItForTheEnginePool) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.gpu_id = "h100-sxm-80gb";
  in.max_model_len = 32768;
  in.prompt_lengths = "lognormal:mean=2000,p99=16000";
  in.output_lengths = "uniform:100-1000";
  const Result<PlanReport> p = plan(in);
  ASSERT_TRUE(p.ok) << p.error.message;
  ASSERT_TRUE(p.value.has_workload);
  EXPECT_GT(p.value.workload.expected_concurrency,
            p.value.max_concurrency);  // most requests are short
  in.output_lengths.clear();
  EXPECT_EQ(plan(in).error.field, "output_lengths");
}

}  // namespace
}  // namespace kvscope
