// The kvscope CLI contract, run in-process: flags, JSON keys, exit statuses and error lines.
#include "kvscope_cli.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kvscope::cli {
namespace {

struct CliRun {
  int status = -1;
  std::string out;
  std::string err;
};

// Files the CLI may read, by path (no disk access in these tests).
const std::map<std::string, std::string>& files() {
  static const std::map<std::string, std::string> f = {
      {"good.json", R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
                        "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 8192,
                        "torch_dtype": "bfloat16"})"},
      {"broken.json", R"({"num_hidden_layers": 32,)"},
      {"empty.json", ""},
      // tests/data/logs/vllm-v0-llama31-8b-rtx3090-20k.log without its annotation (vLLM #10517).
      {"vllm-20k.log", R"(Loading model weights took 14.9888 GB
Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB peak_torch_memory=17.06GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB kv_cache_size=3.81GiB gpu_memory_utilization=0.90
GPU blocks: 1952, # CPU blocks: 2048
Maximum concurrency for 20000 tokens per request: 1.56x
)"},
      {"binary.log", std::string("GPU blocks: 1\0\x7f", 15)},
      {"zero_heads.json",
       R"({"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 0})"},
  };
  return f;
}

CliRun kvscope(std::vector<std::string> args) {
  std::ostringstream out, err;
  CliRun r;
  r.status =
      run(args, out, err, [](const std::string& path, std::string& content, std::string& error) {
        const auto it = files().find(path);
        if (it == files().end()) {
          error = "cannot open file";
          return false;
        }
        content = it->second;
        return true;
      });
  r.out = out.str();
  r.err = err.str();
  return r;
}

nlohmann::json json_of(const CliRun& r) {
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j;
}

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

struct BadRun {
  const char* name;
  std::vector<std::string> args;
  const char* field;
};
void PrintTo(const BadRun& c, std::ostream* os) { *os << c.name; }

class CliBadInput : public ::testing::TestWithParam<BadRun> {};

TEST_P(CliBadInput, ExitsTwoWithOneLineNamingTheField) {
  const BadRun& c = GetParam();
  const CliRun r = kvscope(c.args);
  EXPECT_EQ(r.status, 2) << r.out;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // exactly one line
  EXPECT_EQ(r.err.rfind(std::string("kvscope: error: ") + c.field + ": ", 0), 0u) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    All, CliBadInput,
    ::testing::Values(
        BadRun{
            "negative_batch", {"estimate", "--model", "llama-3.1-8b", "--batch", "-3"}, "--batch"},
        BadRun{"zero_batch", {"estimate", "--model", "llama-3.1-8b", "--batch", "0"}, "--batch"},
        BadRun{"word_context",
               {"estimate", "--model", "llama-3.1-8b", "--context", "lots"},
               "--context"},
        BadRun{"huge_context",
               {"estimate", "--model", "llama-3.1-8b", "--context", "1000000000000000"},
               "--context"},
        BadRun{"overflowing_number",
               {"estimate", "--model", "llama-3.1-8b", "--context", "99999999999999999999"},
               "--context"},
        BadRun{"unknown_dtype",
               {"estimate", "--model", "llama-3.1-8b", "--kv-dtype", "fp7"},
               "--kv-dtype"},
        BadRun{"unknown_model", {"estimate", "--model", "llama-9"}, "--model"},
        BadRun{"no_model", {"estimate", "--context", "10"}, "--model"},
        BadRun{"both_sources",
               {"estimate", "--model", "llama-2-7b", "--config", "good.json"},
               "--model"},
        BadRun{"missing_file", {"estimate", "--config", "nope.json"}, "--config"},
        BadRun{"empty_file", {"estimate", "--config", "empty.json"}, "--config"},
        BadRun{"broken_json", {"estimate", "--config", "broken.json"}, "config"},
        BadRun{"zero_heads", {"estimate", "--config", "zero_heads.json"}, "num_attention_heads"},
        BadRun{"unknown_flag", {"estimate", "--model", "llama-2-7b", "--contxt", "5"}, "--contxt"},
        BadRun{"missing_value", {"estimate", "--model"}, "--model"},
        BadRun{"repeated_flag", {"estimate", "--model", "a", "--model", "b"}, "--model"},
        BadRun{"prefix_over_context",
               {"estimate", "--model", "llama-2-7b", "--context", "10", "--shared-prefix", "11"},
               "--shared-prefix"},
        BadRun{"output_without_prompt",
               {"estimate", "--model", "llama-2-7b", "--output-tokens", "5"},
               "--prompt-tokens"},
        BadRun{"unknown_command", {"estimat"}, "command"},
        BadRun{"plan_utilization_zero",
               {"plan", "--model", "llama-2-7b", "--gpu", "l4", "--gpu-memory-utilization", "0"},
               "--gpu-memory-utilization"},
        BadRun{"plan_utilization_high",
               {"plan", "--model", "llama-2-7b", "--gpu", "l4", "--gpu-memory-utilization", "1.2"},
               "--gpu-memory-utilization"},
        BadRun{"plan_bad_size",
               {"plan", "--model", "llama-2-7b", "--gpu-memory", "24 gigs"},
               "--gpu-memory"},
        BadRun{"plan_no_memory", {"plan", "--model", "llama-2-7b"}, "--gpu"},
        BadRun{"plan_unknown_gpu", {"plan", "--model", "llama-2-7b", "--gpu", "h1000"}, "--gpu"},
        BadRun{"plan_tp_not_dividing_heads",
               {"plan", "--model", "llama-2-7b", "--gpu", "l4", "--tp", "3"},
               "--tp"},
        BadRun{"plan_unknown_engine",
               {"plan", "--model", "llama-2-7b", "--gpu", "l4", "--engine", "tgi"},
               "--engine"},
        BadRun{"plan_bad_bandwidth",
               {"plan", "--model", "llama-2-7b", "--gpu-memory", "24GB", "--gpu-bandwidth", "fast"},
               "--gpu-bandwidth"},
        BadRun{"plan_huge_bandwidth",
               {"plan", "--model", "llama-2-7b", "--gpu-memory", "24GB", "--gpu-bandwidth",
                "2000TB/s"},
               "--gpu-bandwidth"},
        BadRun{"plan_negative_tflops",
               {"plan", "--model", "llama-2-7b", "--gpu-memory", "24GB", "--gpu-tflops", "-1"},
               "--gpu-tflops"},
        // fuzz_cli found this crash: invalid UTF-8 in a --set value made the JSON dump throw.
        BadRun{"plan_set_invalid_utf8",
               {"plan", "--model", "llama-3.1-8b", "--gpu", "l4", "--set",
                "num_key_value_heads=1\x99"},
               "num_key_value_heads"},
        BadRun{"plan_bad_set",
               {"plan", "--model", "llama-2-7b", "--gpu", "l4", "--set", "novalue"},
               "--set"}),
    [](const ::testing::TestParamInfo<BadRun>& info) { return info.param.name; });

// A mistyped command, flag or id suggests what was meant: prefixes and substrings before edits.
TEST(Cli, MistypesSuggestWhatWasMeant) {
  EXPECT_NE(kvscope({"pln"}).err.find("unknown command \"pln\" (did you mean plan?)"), std::string::npos);
  EXPECT_NE(kvscope({"plan", "--modle", "llama-3.1-8b"}).err.find("(did you mean --model?)"),
            std::string::npos);
  const CliRun gpu = kvscope({"plan", "--model", "llama-3.1-8b", "--gpu", "h100"});
  EXPECT_NE(gpu.err.find("did you mean h100-"), std::string::npos) << gpu.err;
  EXPECT_EQ(gpu.err.find("a10"), std::string::npos) << gpu.err;
  const CliRun model = kvscope({"plan", "--model", "lama-3.1-8b", "--gpu", "l4"});
  EXPECT_NE(model.err.find("did you mean llama-3.1-8b"), std::string::npos) << model.err;
  EXPECT_EQ(kvscope({"plan", "--zzzzzzzz", "1"}).err.find("did you mean"), std::string::npos);
}

TEST(Cli, JsonErrorsAlsoGoToStdout) {
  const CliRun r = kvscope({"estimate", "--model", "llama-3.1-8b", "--kv-dtype", "nope", "--json"});
  EXPECT_EQ(r.status, 2);
  const nlohmann::json j = json_of(r);
  EXPECT_EQ(j["error"]["field"], "--kv-dtype");
  EXPECT_EQ(j["error"]["code"], "invalid_value");
}

TEST(Cli, ConfigErrorsNameTheFile) {
  const CliRun r = kvscope({"estimate", "--config", "zero_heads.json"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(
      r.err,
      "kvscope: error: num_attention_heads: must be at least 1, got 0 (in \"zero_heads.json\")\n");
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
      EXPECT_NE(short_of.out.find("20 sequences of 32,768 tokens: NOT met: fits 14."),
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

TEST(Cli, ExplainErrorsNameTheFieldInOneLine) {
  const CliRun no_model = kvscope({"explain", "vllm-20k.log"});
  EXPECT_EQ(no_model.status, 2);
  EXPECT_NE(no_model.err.find("--model"), std::string::npos) << no_model.err;
  const CliRun binary = kvscope({"explain", "binary.log", "--model", "llama-3.1-8b"});
  EXPECT_EQ(binary.status, 2);
  EXPECT_NE(binary.err.find("log"), std::string::npos) << binary.err;
  const CliRun missing = kvscope({"explain", "--model", "llama-3.1-8b"});
  EXPECT_EQ(missing.status, 2);
  for (const CliRun* r : {&no_model, &binary, &missing})
    EXPECT_EQ(std::count(r->err.begin(), r->err.end(), '\n'), 1) << r->err;
}

}  // namespace
}  // namespace kvscope::cli
