// The calibrated decode estimate: the nearest published decode-attention measurement of the GPU's
// class, its efficiency computed from what it achieved over the datasheet, applied to the KV read.
#include "kvscope/kv/decode_calibration.hpp"

#include <gtest/gtest.h>

#include "kvscope/plan/plan.hpp"

namespace kvscope {
namespace {

Dtype kv(const char* name) { return parse_dtype(name, DtypeUse::kKv, "kv").value; }

TEST(DecodeCalibration, TheNearestMeasurementOfTheSameClassAndWidth) {
  const GpuEntry h200 = find_gpu("h200-sxm-141gb").value;
  // Batch 16 at 4K on Hopper: the FlashAttention-3 report (1,849 of 3,350 GB/s).
  const DecodeEfficiencyAnchor* a = nearest_decode_anchor(h200, kv("bf16"), 16, 4096);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->measured_on, "H100 SXM");
  EXPECT_NEAR(a->efficiency(), 1849.0 / 3350.0, 1e-12);
  // Four long ragged sequences: the FlashMLA measurement (batch 4, mean 13,296 tokens).
  EXPECT_EQ(nearest_decode_anchor(h200, kv("bf16"), 4, 16384)->batch, 4u);
  // fp8 KV takes an fp8 measurement (FlashAttention-3 at batch 1, 2.087 of 4.8 TB/s at 256K), even
  // where a 16-bit one is nearer in batch and context.
  const DecodeEfficiencyAnchor* fp8 = nearest_decode_anchor(h200, kv("fp8"), 1, 200000);
  EXPECT_EQ(fp8->kv_dtype, "fp8");
  EXPECT_NEAR(fp8->efficiency(), 2087.0 / 4800.0, 1e-12);
  EXPECT_EQ(nearest_decode_anchor(h200, kv("fp8"), 16, 4000)->kv_dtype, "fp8");
  // No fp8 measurement on Blackwell: the 16-bit one stands in.
  EXPECT_EQ(nearest_decode_anchor(find_gpu("b200-180gb").value, kv("fp8"), 4, 16384)->kv_dtype, "bf16");
  // A class with no published measurement has none.
  EXPECT_EQ(nearest_decode_anchor(find_gpu("l4").value, kv("bf16"), 16, 4096), nullptr);
}

TEST(DecodeCalibration, ThePlanReadsTheKvAtThatEfficiencyAndTheWeightsAtTheDatasheet) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.gpu_id = "h100-sxm-80gb";
  in.model.batch = 16;
  in.model.context_tokens = 4000;
  const Result<PlanReport> r = plan(in);
  ASSERT_TRUE(r.ok) << r.error.message;
  const PlanRoofline& rf = r.value.roofline;
  ASSERT_TRUE(rf.calibrated.available);
  const double bw = rf.peaks.bandwidth_bytes_per_s, e = rf.calibrated.anchor.efficiency();
  EXPECT_NEAR(rf.calibrated.memory_time_s, rf.decode.weight_bytes / bw + rf.decode.kv_bytes / (bw * e),
              1e-15);
  EXPECT_GT(rf.calibrated.time_s, rf.decode.time_s);
  // A custom card: no class, no calibration, and the reason says so.
  in.gpu_id.clear();
  in.gpu_memory_bytes = 80'000'000'000;
  in.gpu_bandwidth_bytes_per_s = 2e12;
  const Result<PlanReport> custom = plan(in);
  ASSERT_TRUE(custom.ok) << custom.error.message;
  EXPECT_FALSE(custom.value.roofline.calibrated.available);
  EXPECT_NE(custom.value.roofline.calibrated.reason.find("custom GPU"), std::string::npos);
}

}  // namespace
}  // namespace kvscope
