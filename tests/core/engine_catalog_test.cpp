// The engine table as the page and the CLI see it: every knob a request key of that engine,
// every lever a knob, and launch commands that carry what the plan assumed.
#include <gtest/gtest.h>

#include <algorithm>

#include "kvscope/request/command_line.hpp"
#include "kvscope/model/dtype.hpp"
#include "kvscope/engines/engine_catalog.hpp"
#include "kvscope/plan/plan.hpp"
#include "kvscope/request/request.hpp"
#include "test_support.hpp"

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
  ASSERT_EQ(engine_catalog().size(), 6u);
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
  // -c is the context of all slots together, as the plan sized it; a q8_0 V cache needs flash
  // attention; the slots share one cache (-kvu: an explicit --parallel splits it otherwise), and
  // every layer goes to the GPU as the plan places it.
  EXPECT_EQ(llama.launch_command,
            "llama-server -m model.gguf -c 32768 --parallel 4 -ctk q8_0 -ctv q8_0 -fa on -kvu "
            "-ngl 999");
  // A KV budget given outright is --kv-cache-memory-bytes (the 0.14 line on), none before.
  const PlanReport budget = planned(R"({"model": "llama-3.1-8b", "kv_memory_bytes": 21474836480})");
  EXPECT_NE(budget.launch_command.find(" --kv-cache-memory-bytes 21474836480"), std::string::npos);
  const PlanReport old_budget = planned(
      R"({"model": "llama-3.1-8b", "kv_memory_bytes": 21474836480, "engine_version": "0.8"})");
  EXPECT_EQ(old_budget.launch_command.find("--kv-cache-memory-bytes"), std::string::npos);
  ASSERT_EQ(old_budget.launch_unexpressed.size(), 1u);
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

// The value after `flag` in a shell command, or empty.
std::string flag_value(const std::string& command, const std::string& flag) {
  const size_t at = command.find(" " + flag + " ");
  if (at == std::string::npos) return {};
  const size_t begin = at + flag.size() + 2;
  return command.substr(begin, command.find(' ', begin) - begin);
}

// Each engine's KV cache dtype flag and the values its own argument parser accepts, read from its
// source: vLLM vllm/config/cache.py CacheDType (main, 2026), SGLang python/sglang/srt/
// server_args.py add_cli_args --kv-cache-dtype choices, trtllm-serve --kv_cache_dtype (PR #11487),
// llama.cpp common/arg.cpp kv_cache_types (ggml type names).
struct EngineKvFlag {
  const char* engine;
  std::vector<std::string> flags;
  std::vector<std::string> accepted;
};
const EngineKvFlag kKvFlags[] = {
    {"vllm",
     {"--kv-cache-dtype"},
     {"auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla",
      "nvfp4_ds_mla", "turboquant_k8v4", "turboquant_4bit_nc", "turboquant_k3v4_nc",
      "turboquant_3bit_nc", "int4_per_token_head", "int8_per_token_head", "fp8_per_token_head",
      "nvfp4", "nvfp4_4over6"}},
    {"sglang",
     {"--kv-cache-dtype"},
     {"auto", "fp8_e5m2", "fp8_e4m3", "bf16", "bfloat16", "fp4_e2m1"}},
    {"tensorrt-llm", {"--kv_cache_dtype"}, {"auto", "fp8", "nvfp4"}},
    {"llama.cpp",
     {"-ctk", "-ctv"},
     {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"}},
};

TEST(EngineCatalog, LaunchCommandsPassOnlyKvDtypesTheEngineAcceptsAndNameTheRest) {
  for (const EngineKvFlag& e : kKvFlags) {
    for (const Dtype& kv : list_dtypes(DtypeUse::kKv)) {
      if (kv.name == "fp8_ds_mla") continue;  // DeepSeek MLA only
      const Result<Request> r = request_from_json(
          R"({"model": "llama-3.1-8b", "gpu": "h100-sxm-80gb", "context_tokens": 8192, "engine": ")" +
              std::string(e.engine) + R"(", "kv_dtype": ")" + kv.name + "\"}",
          Command::kPlan);
      ASSERT_TRUE(r.ok) << r.error.message;
      const Result<PlanReport> p = plan(r.value.input);
      ASSERT_TRUE(p.ok) << e.engine << " " << kv.name << ": " << p.error.message;
      for (size_t f = 0; f < e.flags.size(); ++f) {
        const std::string& flag = e.flags[f];
        const std::string value = flag_value(p.value.launch_command, flag);
        if (value.empty()) {  // one line per flag the engine has no value for
          ASSERT_EQ(p.value.launch_unexpressed.size(), e.flags.size())
              << e.engine << " " << kv.name << ": " << p.value.launch_command;
          EXPECT_NE(p.value.launch_unexpressed[f].find(kv.name), std::string::npos);
          EXPECT_NE(p.value.launch_unexpressed[f].find(flag), std::string::npos);
        } else {
          EXPECT_NE(std::find(e.accepted.begin(), e.accepted.end(), value), e.accepted.end())
              << e.engine << " " << kv.name << ": " << flag << " " << value;
          EXPECT_TRUE(p.value.launch_unexpressed.empty()) << e.engine << " " << kv.name;
        }
      }
    }
  }
  // What each engine calls the dtypes a user picks most.
  const auto command = [](const char* engine, const char* kv) {
    return planned(std::string(R"({"model": "llama-3.1-8b", "gpu": "h100-sxm-80gb", "engine": ")") +
                   engine + R"(", "kv_dtype": ")" + kv + "\"}")
        .launch_command;
  };
  EXPECT_EQ(flag_value(command("llama.cpp", "fp16"), "-ctk"), "f16");
  EXPECT_EQ(flag_value(command("tensorrt-llm", "fp8"), "--kv_cache_dtype"), "fp8");
  EXPECT_EQ(flag_value(command("vllm", "int8"), "--kv-cache-dtype"), "");
}

TEST(EngineCatalog, LaunchCommandsLoadTheWeightsThePlanSizes) {
  const auto launch = [](const char* engine, const char* model, const char* weights) {
    // llama.cpp splits layers over the devices, with no tensor parallelism.
    const std::string layout =
        std::string(engine) == "llama.cpp" ? "" : R"("tensor_parallel": 8, )";
    return planned(std::string(R"({"model": ")") + model +
                   R"(", "gpu": "h200-sxm-141gb", "gpus": 8, )" + layout + R"("engine": ")" +
                   engine + R"(", "weight_dtype": ")" + weights + R"(", "context_tokens": 8192})");
  };
  // An unquantized checkpoint in fp8 at load time (vLLM's and SGLang's online fp8).
  EXPECT_EQ(flag_value(launch("vllm", "qwen3-32b", "fp8").launch_command, "--quantization"), "fp8");
  EXPECT_EQ(flag_value(launch("sglang", "qwen3-32b", "fp8").launch_command, "--quantization"),
            "fp8");
  // Formats no engine makes at load time, and a checkpoint already quantized, are named instead.
  for (const char* engine : {"vllm", "sglang", "tensorrt-llm"}) {
    const PlanReport int4 = launch(engine, "qwen3-32b", "int4");
    EXPECT_EQ(int4.launch_command.find("--quantization"), std::string::npos) << engine;
    ASSERT_EQ(int4.launch_unexpressed.size(), 1u) << engine;
    EXPECT_NE(int4.launch_unexpressed[0].find("to int4 as it loads"), std::string::npos);
    const PlanReport requantized = launch(engine, "deepseek-v3", "int4");
    ASSERT_EQ(requantized.launch_unexpressed.size(), 1u) << engine;
    EXPECT_NE(requantized.launch_unexpressed[0].find("checkpoint's own fp8 weights"),
              std::string::npos)
        << requantized.launch_unexpressed[0];
  }
  EXPECT_EQ(launch("tensorrt-llm", "qwen3-32b", "fp8").launch_unexpressed.size(), 1u);
  // A 16-bit dtype is the same bytes: nothing to say.
  EXPECT_TRUE(launch("vllm", "qwen3-32b", "fp16").launch_unexpressed.empty());
  // llama.cpp's weights are the GGUF's: named as GGUF files are.
  EXPECT_EQ(flag_value(launch("llama.cpp", "qwen3-32b", "q4_k_m").launch_command, "-m"),
            "model-Q4_K_M.gguf");
  EXPECT_EQ(flag_value(launch("llama.cpp", "qwen3-32b", "nvfp4").launch_command, "-m"),
            "model.gguf");
  EXPECT_EQ(launch("llama.cpp", "qwen3-32b", "nvfp4").launch_unexpressed.size(), 1u);
}

// A catalogue model whose config is a base checkpoint's launches its chat one (issue 44 item 2);
// serve_base launches the base one, in every engine that names a checkpoint.
TEST(EngineCatalog, LaunchCommandsServeTheChatCheckpoint) {
  const char* request = R"({"model": "llama-3.1-8b", "gpu": "h100-sxm-80gb", "engine": "%s",
      "context_tokens": 8192%s})";
  const auto command = [&](const char* engine, const char* extra) {
    char text[256];
    std::snprintf(text, sizeof text, request, engine, extra);
    return planned(text).launch_command;
  };
  EXPECT_EQ(command("vllm", "").rfind("vllm serve meta-llama/Llama-3.1-8B-Instruct ", 0), 0u);
  EXPECT_NE(command("sglang", "").find("--model-path meta-llama/Llama-3.1-8B-Instruct "),
            std::string::npos);
  EXPECT_EQ(
      command("vllm", R"(, "serve_base": true)").rfind("vllm serve meta-llama/Llama-3.1-8B ", 0),
      0u);
  EXPECT_EQ(planned(R"({"model": "deepseek-v3", "gpu": "h200-sxm-141gb", "gpus": 8,
      "tensor_parallel": 8})")
                .launch_command.rfind("vllm serve deepseek-ai/DeepSeek-V3 ", 0),
            0u);
}

TEST(EngineCatalog, ALaunchCommandServesACheckpointNotAConfigFile) {
  PlanInput in;
  in.model.config_json = test::read_data("real-configs/qwen__qwen3.5-4b.json");
  in.gpu_id = "h100-sxm-80gb";
  const auto launch = [&](const char* name) {
    in.model.config_name = name;
    const Result<PlanReport> p = plan(in);
    EXPECT_TRUE(p.ok) << p.error.message;
    return p.value;
  };
  // Loaded from Hugging Face (the page names it by its id) or a checkpoint folder's config.json.
  EXPECT_EQ(launch("Qwen/Qwen3.5-4B").launch_command.rfind("vllm serve Qwen/Qwen3.5-4B ", 0), 0u);
  EXPECT_EQ(launch("/models/Qwen3.5-4B/config.json")
                .launch_command.rfind("vllm serve /models/Qwen3.5-4B ", 0),
            0u);
  // Pasted, or a lone .json file: a placeholder the user fills in, said so.
  for (const char* name : {"pasted config.json", "qwen__qwen3.5-4b.json", ""}) {
    const PlanReport p = launch(name);
    EXPECT_EQ(p.launch_command.rfind("vllm serve MODEL ", 0), 0u) << name;
    ASSERT_EQ(p.launch_unexpressed.size(), 1u) << name;
    EXPECT_EQ(p.launch_unexpressed[0].rfind("MODEL: the checkpoint's Hugging Face id", 0), 0u);
  }
  in.engine = "llama.cpp";  // names its GGUF instead
  EXPECT_TRUE(launch("pasted config.json").launch_unexpressed.empty());
}

// vLLM's scheduler runs at most max_num_seqs requests (EngineArgs.get_batch_defaults: 1024 on
// H100-class cards, 256 on the rest): a larger target raises it, per data-parallel replica.
TEST(EngineCatalog, ATargetPastTheRunningRequestCapRaisesMaxNumSeqs) {
  const auto seqs = [](const char* request) {
    return flag_value(planned(request).launch_command, "--max-num-seqs");
  };
  EXPECT_EQ(seqs(R"({"model": "llama-3.1-8b", "gpu": "h200-sxm-141gb", "gpus": 2,
      "context_tokens": 1024, "require_concurrency": 3000})"),
            "1500");
  EXPECT_EQ(seqs(R"({"model": "llama-3.1-8b", "gpu": "h200-sxm-141gb", "context_tokens": 1024,
      "batch": 1024})"),
            "");
  EXPECT_EQ(seqs(R"({"model": "llama-3.1-8b", "gpu": "l4", "context_tokens": 512, "batch": 300,
      "weight_dtype": "int4"})"),
            "300");
}

TEST(EngineCatalog, AnUnknownEngineListsTheTable) {
  const Result<Request> r = request_from_json(
      R"({"model": "llama-3.1-8b", "gpu": "rtx-4090", "engine": "tgi"})", Command::kPlan);
  ASSERT_TRUE(r.ok);
  const Result<PlanReport> p = plan(r.value.input);
  ASSERT_FALSE(p.ok);
  EXPECT_EQ(p.error.field, "engine");
  EXPECT_EQ(p.error.message,
            "engine: unknown engine \"tgi\" (known: vllm, sglang, tensorrt-llm, llama.cpp, ollama, "
            "plain)");
}

}  // namespace
}  // namespace kvscope
