// Sweeps: the series a chart draws, consistent with the plan they come from.
#include "kvscope/sweeps.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "test_support.hpp"

namespace kvscope {
namespace {

Sweeps sweep_ok(const std::string& id, uint32_t points) {
  PlanInput in;
  in.model.model_id = id;
  in.gpu_id = "h100-sxm-80gb";
  in.max_model_len = 131072;
  SweepRange range;
  range.points = points;
  const Result<Sweeps> s = sweep(in, range);
  EXPECT_TRUE(s.ok) << s.error.message;
  return s.value;
}

TEST(Sweeps, SeriesAreMonotoneAndMatchThePlan) {
  const Sweeps s = sweep_ok("llama-3.1-8b", 50);
  ASSERT_EQ(s.kv_bytes_vs_context.size(), 4u);
  for (const Series& series : s.kv_bytes_vs_context) {
    ASSERT_EQ(series.points.size(), 50u);
    for (size_t i = 1; i < series.points.size(); ++i) {
      EXPECT_GT(series.points[i].first, series.points[i - 1].first);
      EXPECT_GE(series.points[i].second, series.points[i - 1].second);
    }
  }
  EXPECT_EQ(s.kv_bytes_vs_context[1].name, "bf16");
  EXPECT_EQ(s.kv_bytes_vs_context[1].points.back().second, 16.0 * (1u << 30));  // 128K in bf16
  const auto& concurrency = s.concurrency_vs_context.points;
  for (size_t i = 1; i < concurrency.size(); ++i)
    EXPECT_LE(concurrency[i].second, concurrency[i - 1].second);
  EXPECT_EQ(concurrency.back().second, std::floor(s.plan.max_concurrency));
  const auto& throughput = s.throughput_vs_batch.points;
  for (size_t i = 1; i < throughput.size(); ++i)
    EXPECT_GE(throughput[i].second, throughput[i - 1].second);
  uint64_t accounted = 0;
  for (const auto& [label, bytes] : s.memory_breakdown) accounted += bytes;
  EXPECT_EQ(accounted, s.plan.gpu_memory_bytes);
}

TEST(Sweeps, PointCountsAreBounded) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.gpu_id = "l4";
  SweepRange range;
  range.points = 1;
  EXPECT_EQ(sweep(in, range).error.field, "sweep.points");
}

}  // namespace
}  // namespace kvscope
