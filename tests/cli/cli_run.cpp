// The in-process CLI runs of the CLI tests (cli_run.hpp).
#include "cli_run.hpp"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "kvscope_cli.hpp"

namespace kvscope::cli {
namespace {

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

}  // namespace

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

}  // namespace kvscope::cli
