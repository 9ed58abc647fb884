// Tensor / pipeline / data parallelism: vLLM's sharding rules and per-GPU versus total figures.
#include "kvscope/model/parallelism.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kvscope/plan/plan.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

using test::plan_ok;

PlanInput with_kv_memory(const std::string& id, uint64_t bytes, uint32_t tp = 1, uint32_t pp = 1) {
  PlanInput in;
  in.model.model_id = id;
  in.kv_memory_bytes = bytes;
  in.tensor_parallel = tp;
  in.pipeline_parallel = pp;
  in.max_model_len = 8192;
  return in;
}

TEST(Parallelism, PipelineStagesGiveTheRemainderToTheStagesBeforeTheLast) {
  EXPECT_EQ(pipeline_layers(32, 0, 3), (std::pair<size_t, size_t>{0, 11}));
  EXPECT_EQ(pipeline_layers(32, 1, 3), (std::pair<size_t, size_t>{11, 22}));
  EXPECT_EQ(pipeline_layers(32, 2, 3), (std::pair<size_t, size_t>{22, 32}));
  EXPECT_EQ(pipeline_layers(61, 0, 4), (std::pair<size_t, size_t>{0, 15}));  // 15, 15, 16, 15
  EXPECT_EQ(pipeline_layers(61, 2, 4), (std::pair<size_t, size_t>{30, 46}));
  EXPECT_EQ(pipeline_layers(61, 3, 4), (std::pair<size_t, size_t>{46, 61}));
}

// VLLM_PP_LAYER_PARTITION=16,32 (vLLM issue #34076: Qwen3-Coder-30B over a 16 GB and a 32 GB card):
// the stages hold the listed layers, the command says so, and a list that does not add up to
// the model's layers is refused naming the key.
TEST(Parallelism, AnUnevenPartitionCutsTheStagesAsListed) {
  const PipelineStages split(2, {16, 32});
  EXPECT_EQ(pipeline_layers(48, 0, split), (std::pair<size_t, size_t>{0, 16}));
  EXPECT_EQ(pipeline_layers(48, 1, split), (std::pair<size_t, size_t>{16, 48}));
  PlanInput in = with_kv_memory("qwen3-30b-a3b", 0, 1, 2);
  in.kv_memory_bytes = 0;
  in.gpu_memory_bytes = 32'000'000'000;
  in.pp_layer_partition = {16, 32};
  const PlanReport p = test::plan_ok(in);
  ASSERT_EQ(p.stages.size(), 2u);
  EXPECT_EQ(p.stages[0].layer_count, 16u);
  EXPECT_EQ(p.stages[1].layer_count, 32u);
  EXPECT_GT(p.stages[1].weights_bytes, p.stages[0].weights_bytes);
  EXPECT_EQ(p.launch_command.rfind("VLLM_PP_LAYER_PARTITION=16,32 vllm serve", 0), 0u) << p.launch_command;
  in.pp_layer_partition = {16, 31};
  const Result<PlanReport> short_by_one = plan(in);
  ASSERT_FALSE(short_by_one.ok);
  EXPECT_EQ(short_by_one.error.field, "pp_layer_partition");
  in.pp_layer_partition = {48};
  EXPECT_EQ(plan(in).error.field, "pp_layer_partition");  // one count per stage
  in.pp_layer_partition = {16.5, 31.5};
  EXPECT_EQ(plan(in).error.field, "pp_layer_partition");
}

TEST(Parallelism, GpusMustHoldWholeReplicas) {
  PlanInput in = with_kv_memory("llama-3.1-70b", 10 * kGiB, 4);
  in.gpus = 2;  // fewer than one replica of tp 4
  Result<PlanReport> r = plan(in);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.field, "gpus");
  EXPECT_NE(r.error.message.find("fewer than one replica needs: tp x pp = 4"), std::string::npos);
  in.gpus = 6;  // one and a half replicas
  r = plan(in);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.message.find("not a whole number of replicas"), std::string::npos);
  in.gpus = 8;
  EXPECT_EQ(test::plan_ok(in).data_parallel, 2u);
}

TEST(Parallelism, KvHeadsSplitThenReplicateWhenTpExceedsThem) {
  const ModelShape llama70 = test::catalog_shape("llama-3.1-70b");  // 64 query, 8 KV heads
  EXPECT_EQ(shard_shape(llama70, 4, 0, 1).value.layers[0].kv_heads, 2u);
  EXPECT_EQ(shard_shape(llama70, 8, 0, 1).value.layers[0].kv_heads, 1u);
  EXPECT_EQ(shard_shape(llama70, 16, 0, 1).value.layers[0].kv_heads, 1u);  // 16 copies, not 8
  EXPECT_EQ(shard_shape(llama70, 16, 0, 1).value.num_attention_heads, 4u);
}

TEST(Parallelism, Tp16HoldsOneKvHeadPerGpu) {
  PlanInput in = with_kv_memory("llama-3.1-70b", 10 * kGiB, 16);
  in.max_model_len = 131072;
  const PlanReport p = plan_ok(in);
  ASSERT_EQ(p.stages.size(), 1u);
  EXPECT_EQ(p.stages[0].kv_heads_per_gpu, 1u);
  EXPECT_EQ(p.kv_bytes_needed,
            uint64_t{131072} * 80 * 2 * 128 * 2);  // 5 GiB per GPU for one request
  EXPECT_EQ(p.total_kv_pool_bytes, 16 * 10 * kGiB);
}

TEST(Parallelism, TpSplitsPerGpuKvSoTheSameBudgetHoldsMoreTokens) {
  const PlanReport tp1 = plan_ok(with_kv_memory("llama-3.1-8b", kGiB));
  const PlanReport tp2 = plan_ok(with_kv_memory("llama-3.1-8b", kGiB, 2));
  EXPECT_EQ(tp2.kv_pool_tokens, 2 * tp1.kv_pool_tokens);
  EXPECT_EQ(tp2.kv_bytes_needed * 2, tp1.kv_bytes_needed);
}

TEST(Parallelism, MlaLatentIsReplicatedOnEveryRank) {
  const PlanReport tp1 = plan_ok(with_kv_memory("deepseek-v2-lite", kGiB));
  const PlanReport tp2 = plan_ok(with_kv_memory("deepseek-v2-lite", kGiB, 2));
  EXPECT_EQ(tp2.kv_pool_tokens, tp1.kv_pool_tokens);
  EXPECT_EQ(tp2.kv_bytes_needed, tp1.kv_bytes_needed);
}

TEST(Parallelism, PipelineStagesSplitLayersAndWeights) {
  PlanInput in;
  in.model.model_id = "llama-3.1-8b";
  in.gpu_memory_bytes = 24'000'000'000;
  in.max_model_len = 8192;
  const PlanReport pp1 = plan_ok(in);
  in.pipeline_parallel = 2;
  const PlanReport pp2 = plan_ok(in);
  ASSERT_EQ(pp2.stages.size(), 2u);
  EXPECT_EQ(pp2.stages[0].layer_count, 16u);
  // Stage 0 holds the embedding, stage 1 the output head: together all the weights.
  EXPECT_EQ(pp2.stages[0].weights_bytes + pp2.stages[1].weights_bytes, pp1.weights_bytes);
  EXPECT_EQ(pp2.total_weights_bytes, pp1.weights_bytes);
  EXPECT_GT(pp2.kv_pool_tokens, pp1.kv_pool_tokens);  // half the layers per GPU
}

TEST(Parallelism, DataParallelReplicasMultiplyConcurrency) {
  PlanInput in = with_kv_memory("llama-3.1-8b", 4 * kGiB, 2);
  in.gpus = 8;
  const PlanReport p = plan_ok(in);
  EXPECT_EQ(p.data_parallel, 4u);
  EXPECT_DOUBLE_EQ(p.total_max_concurrency, 4 * p.max_concurrency);
  EXPECT_EQ(p.total_kv_pool_bytes, 8 * 4 * kGiB);
}

// DeepSeek-V3 on one node of 8 H200s at 128K, under `engine` at TP 8.
PlanInput deepseek_v3_on_8_h200s(const char* engine) {
  PlanInput in;
  in.model.model_id = "deepseek-v3";
  in.engine = engine;
  in.gpu_id = "h200-sxm-141gb";
  in.gpus = 8;
  in.tensor_parallel = 8;
  in.max_model_len = 131072;
  return in;
}

// The bytes of one module class on the plan's GPU.
uint64_t module_bytes(const PlanReport& p, ModuleClass m) {
  uint64_t bytes = 0;
  for (const ModuleBytes& b : p.gpu_weights.modules) bytes += b.module == m ? b.bytes : 0;
  return bytes;
}

// vLLM's data-parallel ranks of a MoE model share its MoE layers: the experts spread over all
// tp x dp GPUs (FusedMoEParallelConfig.make flattens TP across DP), sliced, or whole with
// --enable-expert-parallel; attention and the rest stay per rank, and each rank's pool holds its
// own requests. DeepSeek-V3 on 8 H200s: DP 8 holds several times the sequences of TP 8.
TEST(Parallelism, VllmDataParallelRanksShareAMoeModelsExperts) {
  PlanInput in = deepseek_v3_on_8_h200s("vllm");
  const PlanReport tp8 = plan_ok(in);
  in.tensor_parallel = 1;
  const PlanReport dp8 = plan_ok(in);
  in.vllm.enable_expert_parallel = true;
  const PlanReport ep8 = plan_ok(in);
  const uint64_t experts_tp8 = module_bytes(tp8, ModuleClass::kRoutedExperts);
  EXPECT_EQ(tp8.expert_gpus, 0u);
  EXPECT_EQ(dp8.expert_gpus, 8u);
  EXPECT_EQ(dp8.data_parallel, 8u);
  // Sliced over 8 GPUs either way; whole experts: 256 / 8 = 32 of them, the same bytes.
  EXPECT_NEAR(static_cast<double>(module_bytes(dp8, ModuleClass::kRoutedExperts)),
              static_cast<double>(experts_tp8), 1e-6 * static_cast<double>(experts_tp8));
  EXPECT_NEAR(static_cast<double>(module_bytes(ep8, ModuleClass::kRoutedExperts)),
              static_cast<double>(experts_tp8), 1e-6 * static_cast<double>(experts_tp8));
  // Attention is whole on every DP rank; TP 8 splits all but MLA's replicated down-projections.
  EXPECT_GT(module_bytes(dp8, ModuleClass::kAttention),
            4 * module_bytes(tp8, ModuleClass::kAttention));
  // The MLA latent is replicated on each of TP 8's GPUs; each DP rank keeps only its own.
  EXPECT_GT(dp8.target.sequences_that_fit, 4 * tp8.target.sequences_that_fit);
  EXPECT_DOUBLE_EQ(dp8.target.sequences_that_fit, 8 * dp8.target.sequences_that_fit_per_replica);
  EXPECT_NE(ep8.launch_command.find("--data-parallel-size 8 --enable-expert-parallel"),
            std::string::npos)
      << ep8.launch_command;
  // SGLang's --dp without DP attention runs whole replicas: TP 1 cannot hold the model.
  in.engine = "sglang";
  in.vllm.enable_expert_parallel = false;
  const Result<PlanReport> sglang = plan(in);
  ASSERT_TRUE(sglang.ok) << sglang.error.message;
  EXPECT_EQ(sglang.value.expert_gpus, 0u);
  EXPECT_FALSE(sglang.value.starts);
}

// SGLang's --tp 8 --dp 8 --enable-dp-attention: 8 attention ranks of one GPU each, every rank's
// requests in its own pool; experts, dense MLPs and the head split over all 8, the embedding whole
// on each; its default share reserves 3 MiB a decode slot per rank, 4.5 past 300 slots
// (memory_hook.py reserve_for_graph_mb).
TEST(Parallelism, SglangDpAttentionKeepsAttentionPerRank) {
  PlanInput in = deepseek_v3_on_8_h200s("sglang");
  const PlanReport tp8 = plan_ok(in);
  in.data_parallel = 8;
  in.sglang.enable_dp_attention = true;
  const PlanReport dp8 = plan_ok(in);
  EXPECT_EQ(dp8.tensor_parallel, 1u);  // one rank's attention TP
  EXPECT_EQ(dp8.data_parallel, 8u);
  EXPECT_TRUE(dp8.dp_attention);
  EXPECT_EQ(dp8.expert_gpus, 8u);
  EXPECT_EQ(module_bytes(dp8, ModuleClass::kRoutedExperts),
            module_bytes(tp8, ModuleClass::kRoutedExperts));
  EXPECT_EQ(module_bytes(dp8, ModuleClass::kMlp), module_bytes(tp8, ModuleClass::kMlp));
  EXPECT_EQ(module_bytes(dp8, ModuleClass::kLmHead), module_bytes(tp8, ModuleClass::kLmHead));
  EXPECT_EQ(module_bytes(dp8, ModuleClass::kEmbedding),
            8 * module_bytes(tp8, ModuleClass::kEmbedding));
  EXPECT_GT(dp8.target.sequences_that_fit, 2.5 * tp8.target.sequences_that_fit);
  // H200 (143,771 MiB): 512 + 1.5 x 8192 + 8/8 x 1024 + 2 x 512 + 512 x 8 x 4.5 + 1.5 x 1024.
  const double card = static_cast<double>(dp8.gpu_memory_bytes) / (1 << 20);
  const double reserved = 512 + 1.5 * 8192 + 1024 + 2 * 512 + 512 * 8 * 4.5 + 1.5 * 1024;
  char fraction[48];
  std::snprintf(fraction, sizeof fraction, "mem_fraction_static %.3g: SGLang's default",
                std::round((card - reserved) / card * 1000) / 1000);
  EXPECT_TRUE(std::any_of(dp8.notes.begin(), dp8.notes.end(), [&](const std::string& n) {
    return n.rfind(fraction, 0) == 0;
  })) << fraction;
  EXPECT_NE(dp8.launch_command.find("--tp-size 8 --dp-size 8 --enable-dp-attention"),
            std::string::npos)
      << dp8.launch_command;
  in.data_parallel = 3;  // SGLang asserts tp_size % dp_size == 0
  const Result<PlanReport> uneven = plan(in);
  ASSERT_FALSE(uneven.ok);
  EXPECT_EQ(uneven.error.field, "data_parallel");
}

// --dp N gives tp x pp x dp GPUs; a --gpus that says otherwise is named.
TEST(Parallelism, DataParallelSizeCountsTheGpus) {
  PlanInput in = with_kv_memory("llama-3.1-8b", 4 * kGiB, 2);
  in.data_parallel = 4;
  EXPECT_EQ(plan_ok(in).data_parallel, 4u);
  in.gpus = 6;
  const Result<PlanReport> wrong = plan(in);
  ASSERT_FALSE(wrong.ok);
  EXPECT_EQ(wrong.error.field, "data_parallel");
}

TEST(Parallelism, BadLayoutsAreRejectedWithVllmsWording) {
  PlanInput in = with_kv_memory("llama-3.1-8b", kGiB, 3);
  Result<PlanReport> r = plan(in);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.field, "tensor_parallel");
  EXPECT_NE(r.error.message.find("must be divisible by tensor parallel size (3)"),
            std::string::npos);
  in.tensor_parallel = 1;
  in.overrides = {
      {"num_attention_heads", "48"}, {"num_key_value_heads", "12"}, {"head_dim", "128"}};
  in.tensor_parallel = 8;  // 48 query heads split, 12 KV heads neither split nor replicate
  r = plan(in);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.field, "tensor_parallel");
  in.overrides.clear();
  in.tensor_parallel = 2;
  in.gpus = 3;
  EXPECT_EQ(plan(in).error.field, "gpus");
  in.gpus = 0;
  in.pipeline_parallel = 33;
  EXPECT_EQ(plan(in).error.field, "pipeline_parallel");
}

}  // namespace
}  // namespace kvscope
