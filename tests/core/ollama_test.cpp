// Ollama against its source (github.com/ollama/ollama at v0.24.0 and v0.33.0-rc2): the default
// num_ctx by VRAM, num_parallel multiplying the cache, the cache type and flash attention, the
// layers llama.cpp's --fit keeps on the GPU, the launch, and its start-up logs explained.
#include <gtest/gtest.h>

#include "kvscope/explain/explain.hpp"
#include "kvscope/plan/plan.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

using test::plan_ok;

PlanInput ollama(const std::string& model, const std::string& gpu = "rtx-4090") {
  PlanInput in;
  in.model.model_id = model;
  in.engine = "ollama";
  in.gpu_id = gpu;
  return in;
}

// server/routes.go Serve (PR #13946): 4,096 under 23 GiB of VRAM in all, 32,768 under 47 GiB,
// 262,144 from 47 GiB; before 0.15.5 always 4,096.
TEST(Ollama, DefaultContextFollowsTheVramOfEveryGpu) {
  EXPECT_EQ(plan_ok(ollama("llama-3.2-3b")).ollama.num_ctx, 32768u);  // 23.99 GiB
  PlanInput card = ollama("llama-3.2-3b");
  card.gpu_id.clear();
  card.gpu_memory_bytes = 24'000'000'000;  // 22.35 GiB: under the 23 GiB tier
  EXPECT_EQ(plan_ok(card).ollama.default_num_ctx, 4096u);
  PlanInput two = ollama("llama-3.2-3b");
  two.gpus = 2;  // 47.98 GiB summed
  EXPECT_EQ(plan_ok(two).ollama.default_num_ctx, 262144u);
  EXPECT_EQ(plan_ok(two).ollama.num_ctx, 131072u);  // capped at the model's n_ctx_train
  PlanInput old = ollama("llama-3.2-3b");
  old.engine_version = "0.14.2";
  const PlanReport p = plan_ok(old);
  EXPECT_EQ(p.engine_version, "0.12");
  EXPECT_EQ(p.ollama.num_ctx, 4096u);
  old.engine_version = "0.15.5";
  EXPECT_EQ(plan_ok(old).engine_version, "0.15");
}

// llm/llama_server.go: -c num_ctx x num_parallel, -np num_parallel, a stream per slot: Llama 3.1
// 8B in f16 keeps 128 KiB per token, 4 x 8,192 cells = 4 GiB; q8_0 34 bytes per 32 values.
TEST(Ollama, NumParallelMultipliesTheCache) {
  PlanInput in = ollama("llama-3.1-8b");
  in.ollama.num_ctx = 8192;
  in.ollama.num_parallel = 4;
  const PlanReport p = plan_ok(in);
  EXPECT_EQ(p.kv_pool_bytes, 4 * kGiB);
  EXPECT_EQ(p.kv_pool_tokens, 4 * 8192u);
  EXPECT_EQ(p.max_model_len, 8192u);
  EXPECT_EQ(p.max_concurrency, 4.0);
  in.ollama.kv_cache_type = "q8_0";
  EXPECT_EQ(plan_ok(in).kv_pool_bytes, 4 * 544 * kMiB);
}

// Before 0.30 a quantized cache needs flash attention, which Ollama's own engine gave only the
// models it named (Gemma 3, Qwen 3, gpt-oss, ...): Llama keeps f16. Since 0.30 llama-server
// refuses a quantized V cache with flash attention off.
TEST(Ollama, QuantizedCacheAndFlashAttention) {
  PlanInput in = ollama("llama-3.1-8b");
  in.ollama.num_ctx = 8192;
  in.ollama.kv_cache_type = "q8_0";
  in.engine_version = "0.15";
  EXPECT_EQ(plan_ok(in).kv_pool_bytes, 1024 * kMiB);
  EXPECT_EQ(plan_ok(in).ollama.kv_cache_type, "f16");
  in.ollama.flash_attention = "1";
  EXPECT_EQ(plan_ok(in).kv_pool_bytes, 544 * kMiB);
  in.engine_version.clear();
  in.ollama.flash_attention = "off";
  const PlanReport refused = plan_ok(in);
  EXPECT_FALSE(refused.starts);
  EXPECT_NE(refused.startup_error.find("without flash attention"), std::string::npos);
  in.ollama.flash_attention = "sometimes";
  const Result<PlanReport> bad = plan(in);
  ASSERT_FALSE(bad.ok);
  EXPECT_EQ(bad.error.field, "ollama.flash_attention");
  in.ollama.flash_attention = "auto";
  in.ollama.kv_cache_type = "fp8";
  EXPECT_EQ(plan(in).error.field, "ollama.kv_cache_type");
  in.ollama.kv_cache_type.clear();
  in.model.kv_dtype = "fp8";
  EXPECT_EQ(plan(in).error.field, "kv_dtype");
}

// kvcache/causal.go (0.12-0.24): Gemma 3's sliding layers keep num_parallel x window + num_batch
// cells (one more per sequence with parallel ones), padded to 256: at num_ctx 8,192 and one slot
// 8 global layers x 64 MiB + 40 sliding x 12 MiB = 992 MiB (the log of ollama PR #12000); two
// slots: 8 x 128 MiB + 40 x pad(2 x 1,025 + 512) = 2,816 cells.
TEST(Ollama, OwnEngineCachesSlidingLayersByWindow) {
  PlanInput in = ollama("gemma-3-12b");
  in.engine_version = "0.15";
  in.ollama.num_ctx = 8192;
  EXPECT_EQ(plan_ok(in).kv_pool_bytes, 992 * kMiB);
  in.ollama.num_parallel = 2;
  const uint64_t per_cell = 8 * 256 * 2 * 2;  // 8 KV heads of 256, K and V, f16
  EXPECT_EQ(plan_ok(in).kv_pool_bytes, 8 * 16384 * per_cell + 40 * 2816 * per_cell);
}

// llama.cpp's --fit (Ollama passes no -ngl): Qwen3 32B in Q4_K_M at num_ctx 40,960 does not fit
// a 24 GB card whole, so layers go to the CPU; num_gpu fixes them; the longest num_ctx with every
// layer on the GPU is shorter than 40,960.
TEST(Ollama, FitKeepsWhatTheGpuHoldsAndSpillsTheRest) {
  PlanInput in = ollama("qwen3-32b");
  in.weight_dtype = "q4_k_m";
  in.ollama.num_ctx = 40960;
  const PlanReport p = plan_ok(in);
  EXPECT_TRUE(p.starts);
  ASSERT_TRUE(p.offload.present);
  EXPECT_EQ(p.offload.layers, 65u);
  EXPECT_LT(p.offload.gpu_layers, 65u);
  EXPECT_GT(p.offload.gpu_layers, 40u);
  EXPECT_EQ(p.offload.fit_margin_bytes, 1024 * kMiB);
  EXPECT_LT(p.max_context, 40960u);
  ASSERT_EQ(p.devices.size(), 2u);
  EXPECT_TRUE(p.devices[0].output_layer);  // the output layer is offloaded first
  EXPECT_GT(p.devices[1].kv_bytes, 0u);    // the CPU's layers keep their cache there
  in.ollama.num_gpu = 10;
  EXPECT_EQ(plan_ok(in).offload.gpu_layers, 10u);
}

// Ollama cuts sequences to num_ctx: a 128K workload on its 32K default is not met, and says how.
TEST(Ollama, TargetNamesTheSettingThatShortens) {
  PlanInput in = ollama("llama-3.1-8b");
  in.model.context_tokens = 131072;
  const PlanReport p = plan_ok(in);
  ASSERT_TRUE(p.target.present);
  EXPECT_FALSE(p.target.met);
  EXPECT_NE(p.target.reason.find("OLLAMA_CONTEXT_LENGTH=131072"), std::string::npos);
  in.model.context_tokens = 0;
  EXPECT_EQ(plan_ok(in).estimate.workload.context_tokens, 32768u);  // follows num_ctx
}

TEST(Ollama, LaunchSetsTheServerAndCreatesTheModel) {
  PlanInput in = ollama("llama-3.1-8b");
  in.ollama.num_ctx = 65536;
  in.ollama.num_parallel = 2;
  in.ollama.kv_cache_type = "q8_0";
  in.weight_dtype = "q4_k_m";
  const PlanReport p = plan_ok(in);
  EXPECT_EQ(p.launch_command,
            "OLLAMA_CONTEXT_LENGTH=65536 OLLAMA_NUM_PARALLEL=2 OLLAMA_KV_CACHE_TYPE=q8_0 ollama "
            "serve & printf 'FROM ./model-Q4_K_M.gguf\\n' > Modelfile && ollama create "
            "llama-3.1-8b-instruct -f Modelfile && ollama run llama-3.1-8b-instruct");
}

// `log` explained with the catalogue's `model`, read as Ollama's.
ExplainReport explained_as_ollama(const std::string& log, const std::string& model) {
  PlanInput base;
  base.model.model_id = model;
  const Result<ExplainReport> r = explain(log, base);
  EXPECT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.value.engine, "ollama");
  return r.value;
}

// Ollama's log before 0.12.11 (llm/memory.go's estimate): memory.required.kv of gemma3:12b at
// --ctx-size 8192 --parallel 1, as quoted in ollama PR #12000.
TEST(Ollama, ExplainsItsEstimateLine) {
  const std::string log =
      "time=2025-08-22T17:36:22.027-04:00 level=INFO source=server.go:175 msg=offload library=cuda "
      "layers.requested=-1 layers.model=49 layers.offload=48 memory.required.kv=\"992.0 MiB\"\n"
      "time=2025-08-22T17:36:22.176-04:00 level=INFO source=server.go:438 msg=\"starting llama "
      "server\" cmd=\"/usr/local/bin/ollama runner --ollama-engine --model /x --ctx-size 8192 "
      "--batch-size 512 --n-gpu-layers 48 --threads 28 --parallel 1 --port 36629\"\n";
  const ExplainReport r = explained_as_ollama(log, "gemma-3-12b");
  ASSERT_EQ(r.figures.size(), 1u);
  EXPECT_EQ(r.figures[0].printed, "992.0");
  EXPECT_EQ(r.figures[0].match, "exact");
  EXPECT_EQ(r.plan.ollama.num_ctx, 8192u);
}

// Since 0.30 the KV lines are llama-server's, started with -c num_ctx x np -np np.
TEST(Ollama, ExplainsLlamaServerItStarted) {
  const std::string log =
      "time=2026-07-01T10:00:00Z level=INFO source=llama_server.go:412 msg=\"starting "
      "llama-server\" cmd=\"/usr/lib/ollama/llama-server --model /b --port 1 --host 127.0.0.1 "
      "--no-webui --offline -c 16384 -np 2 --log-verbosity 4 --cache-type-k q8_0 --cache-type-v "
      "q8_0 --flash-attn auto\"\n"
      "llama_kv_cache:      CUDA0 KV buffer size =  1088.00 MiB\n";
  const ExplainReport r = explained_as_ollama(log, "llama-3.1-8b");
  EXPECT_EQ(r.modelled_version, "0.30");
  EXPECT_EQ(r.plan.ollama.num_parallel, 2u);
  EXPECT_EQ(r.plan.ollama.num_ctx, 8192u);
  EXPECT_EQ(r.plan.model.kv_dtype, "q8_0");  // as the page and `plan --kv-dtype` carry it
  ASSERT_EQ(r.figures.size(), 1u);
  EXPECT_EQ(r.figures[0].match, "exact");
}

}  // namespace
}  // namespace kvscope
