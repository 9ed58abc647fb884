// The engine table as the page and the CLI see it: every knob a request key of that engine,
// every lever a knob, and launch commands that carry what the plan assumed.
#include <gtest/gtest.h>

#include "kvscope/command_line.hpp"
#include "kvscope/engines.hpp"
#include "kvscope/plan.hpp"
#include "kvscope/request.hpp"

namespace kvscope {
namespace {

// A plan request read as the page or a request file would give it.
PlanReport planned(const std::string& request_json) {
  const Result<Request> r = request_from_json(request_json, Command::kPlan);
  EXPECT_TRUE(r.ok) << r.error.message;
  const Result<PlanReport> p = plan(r.value.input);
  EXPECT_TRUE(p.ok) << p.error.message;
  return p.value;
}

TEST(EngineCatalog, KnobsAndLeversAreRequestKeysOfTheirEngine) {
  ASSERT_EQ(engine_catalog().size(), 5u);
  for (const EngineInfo& e : engine_catalog()) {
    for (std::string_view knob : e.knobs) {
      const std::string key(knob);
      const bool own =
          key.find('.') == std::string::npos || key.rfind(std::string(e.options_key) + ".", 0) == 0;
      EXPECT_TRUE(own) << e.id << ": " << key;
      const std::string request =
          "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100-sxm-80gb\", " +
          (key.find('.') == std::string::npos ? "\"" + key + "\": 4096}"
                                              : "\"" + key.substr(0, key.find('.')) + "\": {\"" +
                                                    key.substr(key.find('.') + 1) + "\": 1}}");
      const Result<Request> r = request_from_json(request, Command::kPlan);
      EXPECT_TRUE(r.ok) << e.id << " knob " << key << ": " << r.error.message;
    }
    for (const EngineLever& l : e.levers) {
      EXPECT_NE(std::find(e.knobs.begin(), e.knobs.end(), l.key), e.knobs.end()) << l.key;
    }
    EXPECT_EQ(e.launches, e.id != "plain");
  }
}

TEST(EngineCatalog, LaunchCommandsCarryThePlansLayoutAndKnobs) {
  const PlanReport vllm = planned(R"({"model": "qwen3-32b", "gpu": "h100-sxm-80gb", "gpus": 4,
      "tensor_parallel": 2, "kv_dtype": "fp8", "vllm": {"gpu_memory_utilization": 0.95}})");
  EXPECT_EQ(vllm.launch_command,
            "vllm serve Qwen/Qwen3-32B --max-model-len 40960 --gpu-memory-utilization 0.95 "
            "--kv-cache-dtype fp8 --tensor-parallel-size 2 --data-parallel-size 2");
  const PlanReport sglang = planned(R"({"model": "qwen3-32b", "gpu": "h100-sxm-80gb",
      "engine": "sglang", "kv_dtype": "fp8", "sglang": {"disable_radix_cache": true}})");
  EXPECT_EQ(sglang.launch_command,
            "python -m sglang.launch_server --model-path Qwen/Qwen3-32B --context-length 40960 "
            "--kv-cache-dtype fp8_e4m3 --disable-radix-cache");
  const PlanReport llama = planned(R"({"model": "llama-3.1-8b", "gpu": "rtx-4090",
      "engine": "llama.cpp", "context_tokens": 32768, "kv_dtype": "q8_0",
      "llama_cpp": {"parallel": 4}})");
  // -c is the context of all slots together, as the plan sized it.
  EXPECT_EQ(llama.launch_command,
            "llama-server -m model.gguf -c 32768 --parallel 4 -ctk q8_0 -ctv q8_0");
  const PlanReport long_context = planned(R"({"model": "qwen3-32b", "gpu": "h200-sxm-141gb",
      "max_model_len": 131072, "allow_long_context": true})");
  EXPECT_EQ(long_context.launch_command.rfind("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve", 0), 0u);
  const PlanReport drafting = planned(R"({"model": "deepseek-v3", "gpu": "h200-sxm-141gb",
      "gpus": 8, "tensor_parallel": 8,
      "speculative_config": {"method": "mtp", "num_speculative_tokens": 1}})");
  EXPECT_NE(drafting.launch_command.find(
                R"(--speculative-config '{"method":"mtp","num_speculative_tokens":1}')"),
            std::string::npos);
  EXPECT_TRUE(planned(R"({"model": "llama-3.1-8b", "gpu": "rtx-4090", "engine": "plain"})")
                  .launch_command.empty());
}

TEST(EngineCatalog, AnUnknownEngineListsTheTable) {
  const Result<Request> r = request_from_json(
      R"({"model": "llama-3.1-8b", "gpu": "rtx-4090", "engine": "tgi"})", Command::kPlan);
  ASSERT_TRUE(r.ok);
  const Result<PlanReport> p = plan(r.value.input);
  ASSERT_FALSE(p.ok);
  EXPECT_EQ(p.error.field, "engine");
  EXPECT_EQ(p.error.message,
            "engine: unknown engine \"tgi\" (known: vllm, sglang, tensorrt-llm, llama.cpp, plain)");
}

}  // namespace
}  // namespace kvscope
