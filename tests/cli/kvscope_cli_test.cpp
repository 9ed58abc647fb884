// The kvscope CLI contract, run in-process: flags, JSON keys and exit statuses (its error lines:
// cli_errors_test.cpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"

namespace kvscope::cli {
namespace {

TEST(Cli, EstimateJsonHasTheContractKeys) {
  const CliRun r =
      kvscope({"estimate", "--model", "llama-2-7b", "--context", "4096", "--batch", "3",
               "--block-size", "16", "--prompt-tokens", "5", "--output-tokens", "64", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty());
  const nlohmann::json j = json_of(r);
  EXPECT_EQ(j["schema"], "kvscope.report/1");
  EXPECT_EQ(j["kv_bytes_per_token"], 524288u);
  EXPECT_EQ(j["kv_bytes_per_sequence"], 2147483648u);
  EXPECT_EQ(j["kv_bytes_total"], 3ull * 2147483648ull);
  EXPECT_EQ(j["kv_projections_without_cache"], 2336u);
  EXPECT_EQ(j["kv_projections_with_cache"], 68u);
  ASSERT_TRUE(j["layer_groups"].is_array());
  EXPECT_EQ(j["layer_groups"][0]["kv_bytes_per_token_formula"],
            "2 × 32 × 32 × 128 × 2 = 524,288 bytes");
  EXPECT_TRUE(j["assumptions"].is_array());
  EXPECT_EQ(j["input"]["kv_dtype"], "fp16");
  EXPECT_EQ(j["input"]["block_size_tokens"], 16u);
}

TEST(Cli, EstimateFromConfigFileWithSuffixedContext) {
  const CliRun r = kvscope(
      {"estimate", "--config", "good.json", "--context=128k", "--kv-dtype", "fp8", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = json_of(r);
  EXPECT_EQ(j["input"]["context_tokens"], 131072u);
  EXPECT_EQ(j["kv_bytes_per_sequence"], 8ull << 30);
  EXPECT_TRUE(j["kv_projections_with_cache"].is_null());
  EXPECT_EQ(j["input"]["config"], "good.json");
}

TEST(Cli, ReadableReportShowsBothUnitsAndTheFormula) {
  const CliRun r = kvscope({"estimate", "--model", "llama-3.1-8b", "--context", "131072"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("17,179,869,184 bytes = 17.180 GB = 16.000 GiB"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("2 × 32 × 8 × 128 × 2 = 131,072 bytes"), std::string::npos) << r.out;
}

TEST(Cli, ListsCatalogues) {
  const CliRun models = kvscope({"models"});
  EXPECT_EQ(models.status, 0);
  EXPECT_NE(models.out.find("deepseek-v3"), std::string::npos);
  const CliRun gpus = kvscope({"gpus", "--json"});
  EXPECT_EQ(gpus.status, 0);
  EXPECT_GE(json_of(gpus)["gpus"].size(), 15u);
  const CliRun dtypes = kvscope({"dtypes", "--json"});
  EXPECT_EQ(dtypes.status, 0);
  EXPECT_EQ(json_of(dtypes)["schema"], "kvscope.dtypes/1");
}


TEST(Cli, PlanJsonHasTheContractKeys) {
  const CliRun r = kvscope({"plan", "--model", "llama-3.1-8b", "--gpu-memory", "24GB",
                            "--max-model-len", "128k", "--engine", "vllm", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = json_of(r);
  for (const char* key :
       {"weights_bytes", "kv_pool_bytes", "kv_pool_tokens", "kv_bytes_total", "max_concurrency",
        "max_context", "starts", "startup_error", "max_model_len_that_fits", "roofline"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["starts"], false);
  EXPECT_EQ(j["gpu"]["memory_bytes"], 24000000000u);
}

// A gate for CI pipelines and pre-download scripts: 0 when N sequences of the context fit, 1 when
// they do not (the report still printed), 2 on bad input.
TEST(Cli, RequireConcurrencyExitsOneWhenTheTargetDoesNotFit) {
  const auto gate = [](const char* gpus, const char* n, bool json) {
    std::vector<std::string> args = {
        "plan",   "--model", "qwen3-32b", "--gpu", "h200-sxm-141gb",
        "--gpus", gpus,      "--context", "32k",   "--require-concurrency",
        n};
    if (json) args.push_back("--json");
    return kvscope(args);
  };
  for (const bool json : {false, true}) {
    const CliRun short_of = gate("2", "20", json);
    EXPECT_EQ(short_of.status, 1) << short_of.err;
    EXPECT_TRUE(short_of.err.empty()) << short_of.err;
    const CliRun met = gate("4", "20", json);
    EXPECT_EQ(met.status, 0) << met.err;
    if (json) {
      EXPECT_EQ(json_of(short_of)["target"]["met"], false);
      EXPECT_EQ(json_of(short_of)["target"]["sequences"], 20u);
      EXPECT_EQ(json_of(met)["target"]["met"], true);
    } else {
      EXPECT_NE(short_of.out.find("20 sequences of 32,768 tokens: NOT met: fits 15.3 of 20"),
                std::string::npos)
          << short_of.out;
    }
    EXPECT_EQ(gate("2", "0", json).status, 2);
    EXPECT_EQ(gate("2", "-3", json).status, 2);
  }
  // Without the flag a missed target is only reported.
  EXPECT_EQ(kvscope({"plan", "--model", "qwen3-32b", "--gpu", "h200-sxm-141gb", "--context", "32k",
                     "--batch", "20"})
                .status,
            0);
}

// `kvscope solve`, a contract for scripts: the kvscope.solve/1 keys, GPUs repeated or listed,
// prices as ID=USD, and 0 when an option meets the target, 1 when none does, 2 on bad input.
TEST(Cli, SolveJsonHasTheContractKeysAndExitsOnTheTarget) {
  const CliRun r = kvscope({"solve", "--model", "qwen3-32b", "--concurrency", "20", "--context",
                            "32k", "--gpu", "h100-sxm-80gb", "--gpu", "a100-sxm-80gb,l40s",
                            "--price", "l40s=0.99", "--price", "h100-sxm-80gb=2.5", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = json_of(r);
  EXPECT_EQ(j["schema"], "kvscope.solve/1");
  EXPECT_EQ(j["met"], true);
  EXPECT_EQ(j["gpus"].size(), 3u);
  ASSERT_FALSE(j["options"].empty());
  for (const char* key : {"gpu", "gpus", "tp", "pp", "dp", "kv_dtype", "weight_dtype",
                          "max_model_len", "max_concurrency", "meets_target",
                          "binding_constraint", "usd_per_hour", "command"}) {
    EXPECT_TRUE(j["options"][0].contains(key)) << key;
  }
  EXPECT_EQ(j["options"][0]["meets_target"], true);
  EXPECT_TRUE(j["options"][0]["binding_constraint"].is_null());
  EXPECT_EQ(j["options"][0]["command"].get<std::string>().rfind("vllm serve Qwen/Qwen3-32B ", 0),
            0u);
  // No option within one GPU: the closest miss, and exit 1 (the report still printed).
  for (const bool json : {false, true}) {
    std::vector<std::string> args = {"solve",   "--model",      "qwen3-32b", "--concurrency",
                                     "20",      "--context",    "32k",       "--gpu",
                                     "l4",      "--max-gpus",   "1"};
    if (json) args.push_back("--json");
    const CliRun none = kvscope(args);
    EXPECT_EQ(none.status, 1) << none.err;
    EXPECT_TRUE(none.err.empty()) << none.err;
    if (json) {
      EXPECT_EQ(json_of(none)["met"], false);
      EXPECT_EQ(json_of(none)["options"][0]["meets_target"], false);
    } else {
      EXPECT_NE(none.out.find("! max_gpus: its weights and 20 sequences' caches need at least"),
                std::string::npos)
          << none.out;
    }
  }
  EXPECT_EQ(kvscope({"solve", "--model", "qwen3-32b", "--context", "32k"}).status, 2);
  const CliRun price = kvscope({"solve", "--model", "qwen3-32b", "--concurrency", "2", "--price",
                                "l4:0.8"});
  EXPECT_EQ(price.status, 2);
  EXPECT_NE(price.err.find("--price: expected ID=NUMBER"), std::string::npos) << price.err;
  const CliRun batch = kvscope({"solve", "--model", "qwen3-32b", "--concurrency", "2", "--batch", "4"});
  EXPECT_EQ(batch.status, 2);
  EXPECT_NE(batch.err.find("--batch"), std::string::npos) << batch.err;
}

TEST(Cli, PlanWhatIfWithSetAndFixedWeights) {
  const CliRun r = kvscope({"plan", "--model", "llama-2-7b", "--engine", "plain", "--gpu-memory",
                            "80GB", "--weights-bytes", "13.5GB", "--max-model-len", "4096", "--set",
                            "num_key_value_heads=8", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json_of(r)["max_concurrency"], 123.0);
  const CliRun gib = kvscope({"plan", "--model", "llama-2-7b", "--kv-memory", "1GiB", "--json"});
  ASSERT_EQ(gib.status, 0) << gib.err;
  EXPECT_EQ(json_of(gib)["kv_pool_bytes"], 1073741824u);
}

// The readable plan ends with the command that starts it: the chat checkpoint, or the base one.
TEST(Cli, PlanTextShowsTheLaunchCommand) {
  const std::vector<std::string> args = {"plan",     "--model",         "llama-3.1-8b", "--gpu",
                                         "rtx-4090", "--max-model-len", "16384"};
  const CliRun chat = kvscope(args);
  ASSERT_EQ(chat.status, 0) << chat.err;
  EXPECT_NE(chat.out.find("\nLaunch:\n  vllm serve meta-llama/Llama-3.1-8B-Instruct "
                          "--max-model-len 16384"),
            std::string::npos)
      << chat.out;
  std::vector<std::string> base_args = args;
  base_args.push_back("--serve-base");
  const CliRun base = kvscope(base_args);
  EXPECT_NE(base.out.find("\n  vllm serve meta-llama/Llama-3.1-8B --max-model-len"),
            std::string::npos)
      << base.out;
}

TEST(Cli, PlanWithTensorParallelismReportsPerGpuAndTotals) {
  const CliRun r = kvscope({"plan", "--model", "llama-3.1-70b", "--gpu", "h100-sxm-80gb", "--tp",
                            "4", "--gpus", "8", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = json_of(r);
  EXPECT_EQ(j["parallelism"]["data_parallel"], 2u);
  EXPECT_EQ(j["parallelism"]["stages"][0]["kv_heads_per_gpu"], 2u);
  EXPECT_EQ(j["totals"]["kv_pool_bytes"], 8 * j["kv_pool_bytes"].get<uint64_t>());
}

TEST(Cli, PlanLlamaCppBuffersForContextAndParallel) {
  const CliRun r = kvscope({"plan", "--model", "llama-3.1-8b", "--engine", "llama.cpp", "--gpu",
                            "rtx-4090", "--context", "8192", "--parallel", "2", "--kv-dtype",
                            "q8_0", "--v-dtype", "f16", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json_of(r)["kv_bytes_total"], (272u + 512u) << 20);  // one unified cache of 8192 cells
}

// A custom card: memory from --gpu-memory, the roofline from the given bandwidth and peak.
TEST(Cli, PlanCustomCardRoofline) {
  const CliRun none =
      kvscope({"plan", "--model", "llama-3.1-8b", "--gpu-memory", "24GB", "--json"});
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_FALSE(json_of(none)["roofline"]["available"]);
  const CliRun r =
      kvscope({"plan", "--model", "llama-3.1-8b", "--gpu-memory", "24GB", "--gpu-bandwidth",
               "1TB/s", "--gpu-tflops", "100", "--context", "4096", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json rf = json_of(r)["roofline"];
  ASSERT_TRUE(rf["available"]);
  EXPECT_EQ(rf["bandwidth_bytes_per_s"], 1e12);
  EXPECT_EQ(rf["peak_flops"], 1e14);
  const nlohmann::json& decode = rf["decode"];
  // Memory-bound at batch 1: (weights read + KV read) / bandwidth.
  EXPECT_DOUBLE_EQ(
      decode["memory_time_s"].get<double>(),
      (decode["weight_bytes_read"].get<double>() + decode["kv_bytes"].get<double>()) / 1e12);
  // A catalogue GPU's bandwidth is overridden by the flag.
  const CliRun over = kvscope(
      {"plan", "--model", "llama-3.1-8b", "--gpu", "l4", "--gpu-bandwidth", "600GB/s", "--json"});
  ASSERT_EQ(over.status, 0) << over.err;
  EXPECT_EQ(json_of(over)["roofline"]["bandwidth_bytes_per_s"], 6e11);
}

TEST(Cli, SweepJson) {
  const CliRun r =
      kvscope({"sweep", "--model", "llama-3.1-8b", "--gpu", "l4", "--points", "10", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = json_of(r);
  EXPECT_EQ(j["schema"], "kvscope.sweeps/1");
  EXPECT_EQ(j["concurrency_vs_context"]["points"].size(), 10u);
  EXPECT_EQ(kvscope({"sweep", "--model", "llama-3.1-8b", "--gpu", "l4", "--points", "1"}).status,
            2);
}

TEST(Cli, HelpAndVersion) {
  EXPECT_EQ(kvscope({"--help"}).status, 0);
  EXPECT_EQ(kvscope({"estimate", "--help"}).status, 0);
  EXPECT_NE(kvscope({"--version"}).out.find("kvscope 0.1.0"), std::string::npos);
  EXPECT_EQ(kvscope({}).status, 2);
}

TEST(Cli, ExplainJsonHasTheContractKeys) {
  const CliRun r = kvscope({"explain", "vllm-20k.log", "--model", "llama-3.1-8b", "--max-model-len",
                            "20000", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = json_of(r);
  EXPECT_EQ(j["schema"], "kvscope.explain/1");
  EXPECT_EQ(j["engine"], "vllm");
  EXPECT_EQ(j["model"]["id"], "llama-3.1-8b");
  EXPECT_TRUE(j["arguments"].is_object());
  bool concurrency = false;
  for (const auto& f : j["figures"]) {
    for (const char* key : {"line", "name", "printed", "kvscope", "unit", "match"}) EXPECT_TRUE(f.contains(key));
    if (f["printed"] == "1.56") {
      concurrency = true;
      EXPECT_EQ(f["line"], 4);
      EXPECT_EQ(f["kvscope"], "1.56");
      EXPECT_EQ(f["match"], "exact");
    }
  }
  EXPECT_TRUE(concurrency) << r.out;
}

TEST(Cli, ExplainTextShowsEachFigureBesideKvscopes) {
  const CliRun r = kvscope({"explain", "vllm-20k.log", "--model", "llama-3.1-8b", "--max-model-len", "20000"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("printed 1952 blocks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Calibrated from the log: kvscope plan --model llama-3.1-8b"), std::string::npos) << r.out;
}


}  // namespace
}  // namespace kvscope::cli
