// Sweeps: the series a chart draws, consistent with the plan they come from.
#include "kvscope/plan/sweeps.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "kvscope/request/report_json.hpp"
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

// The writer prints numbers itself (whole values by a fast path); each must read as nlohmann prints
// it.
TEST(Sweeps, WrittenNumbersAreWhatNlohmannPrints) {
  Sweeps s = sweep_ok("llama-3.1-8b", 4);
  const std::vector<double> values = {
      0.0,   -0.0, 1.0, 131072.0, 999999999999999.0, 1e15,      4.5e15,
      1e300, -3.0, 0.1, 2.5e-7,   1.0 / 3,           12345.678, std::numeric_limits<double>::max()};
  s.concurrency_vs_context.points.clear();
  std::string expected = "\"points\":[";
  for (const double v : values) {
    s.concurrency_vs_context.points.emplace_back(v, v);
    const std::string one = nlohmann::ordered_json(v).dump();
    expected += (expected.back() == '[' ? "[" : ",[") + one + "," + one + "]";
  }
  const std::string text = sweeps_to_json(s);
  EXPECT_NE(text.find(expected + "]"), std::string::npos) << expected << "\nnot in\n" << text;
  EXPECT_NE(text.find("[999999999999999.0,999999999999999.0],[1e+15,1e+15]"), std::string::npos);
}

}  // namespace
}  // namespace kvscope
