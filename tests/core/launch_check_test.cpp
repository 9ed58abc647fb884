// kvscope check: launch commands read as the engines read them, planned, and fixed. The
// commands of the first tests are the ones the start-up logs in tests/data/logs quote (verbatim
// from their public threads; each log's header names its source).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kvscope/request/check.hpp"
#include "kvscope/request/request.hpp"

namespace kvscope {
namespace {

std::string log_line(const std::string& log, const std::string& marker) {
  std::ifstream in(std::string(KVSCOPE_TEST_DATA_DIR) + "/logs/" + log);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind('#', 0) != 0 && line.find(marker) != std::string::npos) return line;
  ADD_FAILURE() << log << " quotes no " << marker;
  return {};
}

CheckReport checked(const std::string& launch,
                    std::vector<std::string> base = {"--gpu", "h100-sxm-80gb"}) {
  CheckInput in;
  in.launch_text = launch;
  in.card_given = !base.empty();
  in.base_arguments = std::move(base);
  const Result<CheckReport> r = check_launch(in);
  EXPECT_TRUE(r.ok) << r.error.message;
  return r.value;
}

const LaunchFlag* flag_named(const CheckReport& r, const std::string& flag) {
  for (const LaunchFlag& f : r.launch.flags)
    if (f.flag == flag) return &f;
  return nullptr;
}

bool has_words(const std::vector<std::string>& args, const std::vector<std::string>& words) {
  return std::search(args.begin(), args.end(), words.begin(), words.end()) != args.end();
}

TEST(LaunchCheck, SglangCommandsFromLogsPlanTheirLayout) {
  const CheckReport r =
      checked(log_line("sglang-qwen3-235b-a22b-fp8-tp4-h100.log", "sglang.launch_server"));
  EXPECT_EQ(r.launch.engine, "sglang");
  EXPECT_EQ(r.launch.model_id, "qwen3-235b-a22b");  // "/path/to/Qwen3-235B-A22B-FP8"
  EXPECT_TRUE(has_words(r.plan_arguments, {"--weight-dtype", "fp8"}));
  EXPECT_TRUE(has_words(r.plan_arguments, {"--mem-fraction-static", "0.93"}));
  EXPECT_EQ(r.plan.tensor_parallel, 4u);
  EXPECT_EQ(flag_named(r, "--port")->effect, FlagEffect::kNoMemoryEffect);
  EXPECT_TRUE(r.starts);

  const CheckReport dp =
      checked(log_line("sglang-deepseek-v3.2-exp-tp8dp8-b200-nsa.log", "sglang.launch_server"),
              {"--gpu", "b200-180gb"});
  EXPECT_EQ(dp.launch.model_id, "deepseek-v3.2");
  EXPECT_TRUE(dp.plan.dp_attention);
  EXPECT_EQ(dp.plan.data_parallel, 8u);
}

TEST(LaunchCheck, LlamaServerCommandsFromLogs) {
  // -hf repo:quant, -c, -np, a pipe into tee and a redirection.
  const CheckReport hf =
      checked(log_line("llamacpp-llama3-8b-q4km-metal-np1.log", "llama-server -hf"));
  EXPECT_EQ(hf.launch.model_id, "llama-3-8b");
  EXPECT_TRUE(has_words(hf.plan_arguments, {"--weight-dtype", "q4_k_m"}));
  EXPECT_TRUE(has_words(hf.plan_arguments, {"--max-model-len", "8192"}));
  EXPECT_EQ(flag_named(hf, "tee"), nullptr);  // after the pipe: another command
  // Bare -fa before another flag, repeated -ot (experts on the CPU: not modelled), a GGUF path.
  const CheckReport ot =
      checked(log_line("llamacpp-deepseek-v3-0324-mla-4gpu-c16384.log", "llama-server -m"));
  EXPECT_EQ(ot.launch.model_id, "deepseek-v3");
  EXPECT_EQ(flag_named(ot, "--override-tensor")->effect, FlagEffect::kNotModelled);
  EXPECT_EQ(flag_named(ot, "-fa")->effect, FlagEffect::kModelled);
  EXPECT_TRUE(has_words(ot.plan_arguments, {"--ubatch", "1024"}));
  // -c 0: the trained context, left to kvscope's default.
  const CheckReport c0 =
      checked(log_line("llamacpp-gpt-oss-20b-c0-8npu-cann.log", "llama-server -a"));
  EXPECT_EQ(flag_named(c0, "-c")->effect, FlagEffect::kModelled);
  EXPECT_FALSE(has_words(c0.plan_arguments, {"--max-model-len", "0"}));
  EXPECT_EQ(flag_named(c0, "CANN_VISIBLE_DEVICES")->effect, FlagEffect::kNoMemoryEffect);
}

TEST(LaunchCheck, NamesTheContextLimitAndTheChangesThatStart) {
  // Qwen3-32B's config: max_position_embeddings 40960; vLLM refuses 131072 without
  // VLLM_ALLOW_LONG_MAX_MODEL_LEN.
  const CheckReport r = checked("vllm serve Qwen/Qwen3-32B --max-model-len 131072");
  EXPECT_FALSE(r.starts);
  bool names_limit = false;
  for (const CheckFinding& f : r.findings)
    names_limit = names_limit || f.message.find("40,960") != std::string::npos;
  EXPECT_TRUE(names_limit);
  ASSERT_FALSE(r.fixes.empty());
  for (const CheckFix& f : r.fixes) {
    EXPECT_LE(f.max_model_len, 40960u) << f.change;
    // Each fix is the user's command edited, and it starts when checked again.
    EXPECT_EQ(f.launch_command.rfind("vllm serve Qwen/Qwen3-32B --max-model-len ", 0), 0u)
        << f.launch_command;
    EXPECT_TRUE(checked(f.launch_command).starts) << f.launch_command;
    EXPECT_TRUE(f.has_capacity && f.sequences_that_fit > 0) << f.change;
  }
  // llama.cpp sizes its buffers to the request: a fix has a length, no pool capacity to state.
  const CheckReport llama = checked(
      "llama-server -hf unsloth/Qwen3-32B-GGUF:Q4_K_M -c 131072 -np 2", {"--gpu", "rtx-4090"});
  ASSERT_FALSE(llama.fixes.empty());
  EXPECT_EQ(llama.fixes[0].launch_command,
            "llama-server -hf unsloth/Qwen3-32B-GGUF:Q4_K_M -c 24320 -np 2");
  EXPECT_FALSE(llama.fixes[0].has_capacity);
  // With the variable vLLM asks for, the limit is lifted and memory decides.
  const CheckReport allowed =
      checked("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve Qwen/Qwen3-32B --max-model-len 131072");
  EXPECT_FALSE(allowed.starts);
  EXPECT_EQ(allowed.plan.startup_error.find("derived max_model_len"), std::string::npos);
  EXPECT_NE(allowed.plan.startup_error.find("KV cache is needed"), std::string::npos);
  for (const CheckFinding& f : allowed.findings)
    EXPECT_EQ(f.message.find("accepts at most"), std::string::npos);
}

TEST(LaunchCheck, ReadsVllmSpellings) {
  // human_readable_int: 128k = 128,000, 128K = 131,072; -tp; --flag=value; docker's image tag.
  CheckReport r = checked(
      "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 128k -tp 2 "
      "--kv-cache-dtype=fp8_e4m3");
  EXPECT_TRUE(has_words(r.plan_arguments, {"--max-model-len", "128000"}));
  EXPECT_TRUE(has_words(r.plan_arguments, {"--tp", "2"}));
  EXPECT_TRUE(has_words(r.plan_arguments, {"--kv-dtype", "fp8"}));
  r = checked(
      "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 128K --max-model-len 8192");
  EXPECT_TRUE(has_words(r.plan_arguments, {"--max-model-len", "8192"}));  // the last one counts
  EXPECT_FALSE(has_words(r.plan_arguments, {"--max-model-len", "131072"}));
  r = checked(
      "docker run --runtime nvidia --gpus all -v ~/.cache/huggingface:/root/.cache/huggingface \\\n"
      "  -p 8000:8000 --ipc=host vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-8B --swap-space 8");
  EXPECT_EQ(r.launch.engine_version, "0.11.0");
  EXPECT_TRUE(has_words(r.plan_arguments, {"--engine-version", "0.11.0"}));
  EXPECT_TRUE(has_words(r.plan_arguments, {"--swap-space", "8GiB"}));
  r = checked("vllm serve Qwen/Qwen3-8B --frobnicate 3 --enable-lora");
  EXPECT_EQ(flag_named(r, "--frobnicate")->effect, FlagEffect::kUnknown);
  EXPECT_EQ(flag_named(r, "--enable-lora")->effect, FlagEffect::kNotModelled);
}

TEST(LaunchCheck, OllamaEnvironmentAndModelfile) {
  CheckReport r = checked(
      "OLLAMA_NUM_PARALLEL=4 OLLAMA_CONTEXT_LENGTH=32768 OLLAMA_KV_CACHE_TYPE=q8_0 ollama run "
      "qwen3:32b",
      {"--gpu", "rtx-4090"});
  EXPECT_EQ(r.launch.model_id, "qwen3-32b");
  EXPECT_TRUE(has_words(r.plan_arguments, {"--weight-dtype", "q4_k_m"}));  // Ollama's default tag
  EXPECT_TRUE(has_words(r.plan_arguments, {"--num-parallel", "4"}));
  EXPECT_TRUE(has_words(r.plan_arguments, {"--kv-cache-type", "q8_0"}));
  r = checked(
      "FROM qwen3:8b-q8_0\nPARAMETER num_ctx 65536\nPARAMETER temperature 0.6\nPARAMETER nonsense "
      "1",
      {"--gpu", "rtx-4090"});
  EXPECT_TRUE(has_words(r.plan_arguments, {"--weight-dtype", "q8_0"}));
  EXPECT_TRUE(has_words(r.plan_arguments, {"--num-ctx", "65536"}));
  EXPECT_EQ(flag_named(r, "temperature")->effect, FlagEffect::kNoMemoryEffect);
  EXPECT_EQ(flag_named(r, "nonsense")->effect, FlagEffect::kUnknown);
}

TEST(LaunchCheck, RefusalsNameTheFlag) {
  CheckInput in;
  in.launch_text = "python -m http.server 8000";
  Result<CheckReport> r = check_launch(in);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.field, "launch");
  in.launch_text = "vllm serve not-a-real/model-xyz";
  r = check_launch(in);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, kUnknownId);
  EXPECT_NE(r.error.message.find("--config"), std::string::npos);
  // A value the engine refuses: no plan, the finding names the flag as written.
  const CheckReport bad = checked("vllm serve Qwen/Qwen3-8B --gpu-memory-utilization 1.5");
  EXPECT_FALSE(bad.planned);
  EXPECT_FALSE(bad.starts);
  ASSERT_FALSE(bad.findings.empty());
  EXPECT_EQ(bad.findings[0].flag, "--gpu-memory-utilization");
  // A quoted value with a line break (found by fuzz_check): the finding quotes it, on one line.
  const CheckReport broken =
      checked("llama-server -hf bartowski/Meta-Llama-3-8B-Instruct-GGUF:Q4_K_M -np '4\n-fa on'");
  ASSERT_FALSE(broken.findings.empty());
  for (const CheckFinding& f : broken.findings)
    EXPECT_EQ(f.message.find('\n'), std::string::npos) << f.message;
  EXPECT_NE(broken.findings[0].message.find("\"4\\x0a-fa on\""), std::string::npos)
      << broken.findings[0].message;
  const CheckReport missing = checked("vllm serve Qwen/Qwen3-8B --max-model-len");
  EXPECT_FALSE(missing.starts);
  EXPECT_EQ(flag_named(missing, "--max-model-len")->effect, FlagEffect::kUnknown);
  // Hostile text: bounded, never a crash.
  in.launch_text = std::string(70000, 'x');
  EXPECT_FALSE(check_launch(in).ok);
  in.launch_text = "vllm serve '\"unterminated";
  EXPECT_FALSE(check_launch(in).ok);
}

TEST(LaunchCheck, RequestJsonAndExitStatus) {
  const Answer a = answer_json(
      Command::kCheck,
      R"({"launch": "vllm serve Qwen/Qwen3-32B --max-model-len 131072", "gpu": "h100-sxm-80gb"})");
  EXPECT_EQ(a.status, 0);
  EXPECT_TRUE(a.target_missed);  // the CLI exits 1
  EXPECT_NE(a.json.find("\"schema\": \"kvscope.check/1\""), std::string::npos);
  // Its plan_request plans the report's own plan.
  const nlohmann::json report = nlohmann::json::parse(a.json);
  const Answer planned = answer_json(Command::kPlan, report.at("plan_request").dump());
  ASSERT_EQ(planned.status, 0) << planned.json;
  EXPECT_EQ(nlohmann::json::parse(planned.json), report.at("plan"));
  const Answer none = answer_json(Command::kCheck, R"({"gpu": "h100-sxm-80gb"})");
  EXPECT_EQ(none.status, 2);
  EXPECT_EQ(none.error.field, "launch");
}

}  // namespace
}  // namespace kvscope
