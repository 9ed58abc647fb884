// Roofline estimates: bytes and FLOPs per decode step and prefill, which bound applies, MoE
// expert reads, and the batch at which the KV pool caps throughput.
#include "kvscope/kv/roofline.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "kvscope/plan/plan.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

PlanReport plan_on_h100(const std::string& id, uint64_t context, uint64_t batch,
                        uint64_t prompt = 0) {
  PlanInput in;
  in.model.model_id = id;
  in.model.batch = batch;
  in.model.prompt_tokens = prompt;
  in.gpu_id = "h100-sxm-80gb";
  in.max_model_len = context;
  const Result<PlanReport> r = plan(in);
  EXPECT_TRUE(r.ok) << r.error.message;
  EXPECT_TRUE(r.value.roofline.available) << r.value.roofline.reason;
  return r.value;
}

TEST(Roofline, ExpectedDistinctExperts) {
  EXPECT_DOUBLE_EQ(expected_distinct_experts(8, 2, 1), 2.0);
  EXPECT_NEAR(expected_distinct_experts(8, 2, 1000), 8.0, 1e-9);
  EXPECT_LT(expected_distinct_experts(128, 8, 4), 32.0);  // overlaps make it less than 4 x 8
  EXPECT_GT(expected_distinct_experts(128, 8, 4), 8.0);
  EXPECT_EQ(expected_distinct_experts(0, 0, 10), 0.0);
}

// The tokens a query attends to: all before it, a sliding layer's window, its own chunk in a
// chunked layer (Llama 4); the prefill sum is the loop's.
TEST(Roofline, AttendedTokensPerLayerKind) {
  LayerSpec full;
  full.kv_heads = 8;
  full.k_head_dim = full.v_head_dim = 128;
  LayerSpec sliding = full, chunked = full, recurrent;
  sliding.attention = AttentionKind::kSlidingWindow;
  chunked.attention = AttentionKind::kChunked;
  sliding.window_tokens = chunked.window_tokens = 8;
  recurrent.attention = AttentionKind::kNone;
  recurrent.state = StateKind::kMamba2;
  EXPECT_EQ(attended_tokens(full, 20), 20u);
  EXPECT_EQ(attended_tokens(sliding, 20), 8u);
  EXPECT_EQ(attended_tokens(chunked, 20), 4u);  // tokens 17..20 of the third chunk
  EXPECT_EQ(attended_tokens(chunked, 16), 8u);
  EXPECT_EQ(attended_tokens(recurrent, 20), 0u);
  for (const LayerSpec* l : {&full, &sliding, &chunked, &recurrent}) {
    for (uint64_t n : {1u, 7u, 8u, 9u, 23u}) {
      double sum = 0;
      for (uint64_t i = 1; i <= n; ++i) sum += static_cast<double>(attended_tokens(*l, i));
      EXPECT_DOUBLE_EQ(attended_tokens_through(*l, n), sum) << n;
    }
  }
}

// Llama 4's chunked layers read only their current chunk at decode (the cache kvbench builds).
TEST(Roofline, ChunkedLayersReadTheirChunk) {
  const PlanReport p = plan_on_h100("llama-4-scout-17b-16e", 10000, 1);
  // Per GPU at TP 1: 12 full layers read 10,000 tokens, 36 chunked layers (8192) read 1,808.
  const double per_token_layer = 2.0 * 8 * 128 * 2;
  EXPECT_DOUBLE_EQ(p.roofline.decode.kv_bytes, per_token_layer * (12 * 10000.0 + 36 * 1808.0));
}

TEST(Roofline, DecodeAtBatchOneReadsTheWeightsAndOneCache) {
  const PlanReport p = plan_on_h100("llama-3.1-8b", 4096, 1);
  const StepEstimate& d = p.roofline.decode;
  EXPECT_EQ(d.bound, "memory");
  EXPECT_DOUBLE_EQ(d.weight_bytes, 2.0 * static_cast<double>(p.params.total - p.params.embedding));
  EXPECT_DOUBLE_EQ(d.kv_bytes, 4096.0 * 131072);
  EXPECT_NEAR(d.memory_time_s, (d.weight_bytes + d.kv_bytes) / 3.35e12, 1e-12);
  EXPECT_GT(1.0 / d.time_s, 150.0);  // about 200 tokens/s: the bandwidth ceiling of one stream
  EXPECT_LT(1.0 / d.time_s, 250.0);
}

TEST(Roofline, BatchingAmortizesWeightsUntilTheKvPoolCapsIt) {
  const PlanReport one = plan_on_h100("llama-3.1-8b", 8192, 1);
  const PlanReport many = plan_on_h100("llama-3.1-8b", 8192, 16);
  EXPECT_DOUBLE_EQ(many.roofline.decode.weight_bytes, one.roofline.decode.weight_bytes);
  EXPECT_DOUBLE_EQ(many.roofline.decode.kv_bytes, 16 * one.roofline.decode.kv_bytes);
  const double tps_one = 1 / one.roofline.decode.time_s;
  const double tps_many = 16 / many.roofline.decode.time_s;
  EXPECT_GT(tps_many, 5 * tps_one);
  const PlanRoofline& r = many.roofline;
  EXPECT_EQ(r.kv_capped_batch, many.kv_pool_bytes / (8192 * 131072));
  EXPECT_GT(static_cast<double>(r.kv_capped_batch) / r.decode_at_kv_cap.time_s, tps_many);
}

TEST(Roofline, LongPrefillIsComputeBoundAndShortContextHugeBatchToo) {
  EXPECT_EQ(plan_on_h100("llama-3.1-8b", 8192, 1, 8192).roofline.prefill.bound, "compute");
  EXPECT_EQ(plan_on_h100("llama-3.1-8b", 16, 4096).roofline.decode.bound, "compute");
}

TEST(Roofline, MoeReadsOnlyTheRoutedExperts) {
  const PlanReport p = plan_on_h100("qwen3-30b-a3b", 4096, 1);
  EXPECT_DOUBLE_EQ(p.roofline.decode.experts_read_per_moe_layer, 8.0);  // top-8 of 128 at batch 1
  EXPECT_LT(p.roofline.decode.weight_bytes, 0.2 * static_cast<double>(p.weights_bytes));
  const PlanReport batch = plan_on_h100("qwen3-30b-a3b", 4096, 64);
  EXPECT_GT(batch.roofline.decode.experts_read_per_moe_layer, 100.0);
}

TEST(Roofline, NeedsACatalogueGpu) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.gpu_memory_bytes = 24'000'000'000;
  const Result<PlanReport> r = plan(in);
  ASSERT_TRUE(r.ok);
  EXPECT_FALSE(r.value.roofline.available);
  EXPECT_FALSE(r.value.roofline.reason.empty());
}

// Found by fuzz_plan: a peak of 1e-300 per second passed as "given" and made the step time
// infinite (printed as null in the JSON).
TEST(Roofline, TinyOrNonFinitePeaksAreRefusedNotInfinite) {
  const ModelShape shape = test::catalog_shape("llama-3.1-8b");
  const GpuLoad load = gpu_load(shape, weight_tensors(shape).value,
                                plain_storage(test::weight_dtype("bf16")), 1, 0, 1)
                           .value;
  const Dtype bf16 = test::kv_dtype("bf16");
  for (const HardwarePeaks& peaks :
       {HardwarePeaks{3.35e12, 1e-300, "bf16"}, HardwarePeaks{1e-300, 0, "bf16"},
        HardwarePeaks{3.35e12, std::nan(""), "bf16"}, HardwarePeaks{-1, 0, "bf16"}}) {
    const Result<StepEstimate> decode = decode_step(load, bf16, bf16, peaks, 1, 4096);
    ASSERT_FALSE(decode.ok) << decode.value.time_s;
    EXPECT_EQ(decode.error.code, kOutOfRange);
    EXPECT_EQ(decode.error.field,
              peaks.flops == 0 ? "gpu_bandwidth_bytes_per_s" : "gpu_dense_tflops");
    EXPECT_FALSE(prefill(load, bf16, bf16, peaks, 4096).ok);
  }
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.gpu_id = "h100-sxm-80gb";
  in.gpu_dense_flops = 1e-300;
  const Result<PlanReport> r = plan(in);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.field, "gpu_dense_tflops");
  // 0 still means unknown: no compute time, no error.
  EXPECT_TRUE(decode_step(load, bf16, bf16, HardwarePeaks{3.35e12, 0, ""}, 1, 4096).ok);
}

}  // namespace
}  // namespace kvscope
