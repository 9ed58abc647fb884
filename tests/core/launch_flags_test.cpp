// Every launch command kvscope prints, parsed against the engine's own argument list
// (tests/data/engine-args/, read from each engine's source): each flag is one its parser knows,
// takes a value exactly when the parser expects one, and the value is one it accepts. Commands
// from plans over engines x models x KV dtypes x weights x layouts x knobs, and from the solver.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kvscope/model/dtype.hpp"
#include "kvscope/plan/plan.hpp"
#include "kvscope/request/request.hpp"
#include "kvscope/solve/solve.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

struct Flag {
  bool takes_value = false;
  std::set<std::string> choices;  // empty: any value
};

// An argument list file: "--a|-b value x,y" / "--c switch" lines; comments and yaml keys skipped.
std::map<std::string, Flag> argument_list(const std::string& file) {
  std::map<std::string, Flag> flags;
  std::istringstream in(test::read_data("engine-args/" + file));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("yaml ", 0) == 0) continue;
    std::istringstream words(line);
    std::string spellings, kind, choices;
    words >> spellings >> kind >> choices;
    EXPECT_TRUE(kind == "value" || kind == "switch") << file << ": " << line;
    Flag f;
    f.takes_value = kind == "value";
    std::istringstream list(choices);
    for (std::string c; std::getline(list, c, ',');) f.choices.insert(c);
    std::istringstream names(spellings);
    for (std::string n; std::getline(names, n, '|');) flags[n] = f;
  }
  EXPECT_GT(flags.size(), 40u) << file;
  return flags;
}

// The words a POSIX shell makes of the command (kvscope quotes with '...' and '\'').
std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false, quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '\'')
        quoted = false;
      else
        word += c;
    } else if (c == '\'') {
      quoted = in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (c == ' ') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  EXPECT_FALSE(quoted) << line;
  if (in_word) words.push_back(word);
  return words;
}

struct Engine {
  const char* id;
  const char* file;
  std::vector<std::string> program;  // the words before the flags; "MODEL" is the positional
};

const std::vector<Engine>& engines() {
  static const std::vector<Engine> e = {
      {"vllm", "vllm.txt", {"vllm", "serve", "MODEL"}},
      {"sglang", "sglang.txt", {"python", "-m", "sglang.launch_server"}},
      {"tensorrt-llm", "trtllm-serve.txt", {"trtllm-serve", "MODEL"}},
      {"llama.cpp", "llama-server.txt", {"llama-server"}},
  };
  return e;
}

void expect_parses(const Engine& engine, const std::map<std::string, Flag>& flags,
                   const std::string& command) {
  std::vector<std::string> w = shell_words(command);
  size_t i = 0;
  if (!w.empty() && w[0] == "printf") {  // a config file written first: printf '...' > F &&
    while (i < w.size() && w[i] != "&&") ++i;
    ++i;
  }
  while (i < w.size() && w[i].find('=') != std::string::npos && w[i][0] != '-') ++i;  // VAR=1
  for (const std::string& expected : engine.program) {
    ASSERT_LT(i, w.size()) << command;
    if (expected != "MODEL") EXPECT_EQ(w[i], expected) << command;
    if (expected == "MODEL") EXPECT_NE(w[i][0], '-') << command;
    ++i;
  }
  std::set<std::string> seen;
  for (; i < w.size(); ++i) {
    const auto f = flags.find(w[i]);
    ASSERT_NE(f, flags.end()) << engine.id << " has no flag " << w[i] << ": " << command;
    EXPECT_TRUE(seen.insert(w[i]).second) << w[i] << " given twice: " << command;
    if (!f->second.takes_value) continue;
    ASSERT_LT(i + 1, w.size()) << w[i] << " needs a value: " << command;
    const std::string& value = w[++i];
    EXPECT_FALSE(value.rfind("--", 0) == 0) << w[i - 1] << " needs a value: " << command;
    if (!f->second.choices.empty()) {
      EXPECT_TRUE(f->second.choices.count(value))
          << engine.id << " " << w[i - 1] << " does not accept " << value << ": " << command;
    }
  }
}

TEST(LaunchFlags, EveryPlannedCommandParsesWithTheEnginesOwnArguments) {
  const char* const models[] = {"llama-3.1-8b",       "qwen3-32b",   "deepseek-v3",
                                "gpt-oss-120b",       "gemma-3-27b", "qwen3-next-80b-a3b",
                                "deepseek-v3.2",      "qwen3-32b-awq"};
  const char* const weights[] = {"auto", "fp8", "int4", "q4_k_m", "bf16"};
  struct Layout {
    uint32_t tp, pp;
    uint64_t gpus;
  };
  const Layout layouts[] = {{1, 1, 1}, {2, 1, 4}, {2, 2, 8}, {8, 1, 8}};
  size_t commands = 0;
  for (const Engine& engine : engines()) {
    const std::map<std::string, Flag> flags = argument_list(engine.file);
    const bool devices = std::string(engine.id) == "llama.cpp";
    for (const char* m : models) {
      for (const Dtype& kv : list_dtypes(DtypeUse::kKv)) {
        for (const char* w : weights) {
          for (const Layout& l : layouts) {
            PlanInput in;
            in.engine = engine.id;
            in.model.model_id = m;
            in.gpu_id = "h200-sxm-141gb";
            in.model.kv_dtype = kv.name;
            in.weight_dtype = w;
            in.tensor_parallel = devices ? 1 : l.tp;
            in.pipeline_parallel = devices ? 1 : l.pp;
            in.gpus = devices ? l.tp : l.gpus;
            in.max_model_len = 8192;
            in.model.context_tokens = devices ? 8192 * 4 : 8192;
            in.llama_cpp.parallel = 4;
            in.require_concurrency = devices ? 0 : 3000;  // past vLLM's default running cap
            const Result<PlanReport> p = plan(in);
            if (!p.ok) continue;
            ++commands;
            expect_parses(engine, flags, p.value.launch_command);
          }
        }
      }
    }
  }
  EXPECT_GT(commands, 2000u);
}

// The knobs each engine's command carries, one at a time.
TEST(LaunchFlags, EngineKnobsParse) {
  std::vector<std::pair<const char*, std::string>> requests = {
      {"vllm", R"({"model": "qwen3-next-80b-a3b", "vllm": {"mamba_cache_mode": "align",
          "disable_hybrid_kv_cache_manager": true, "max_num_batched_tokens": 4096,
          "gpu_memory_utilization": 0.95}, "block_size_tokens": 32})"},
      {"vllm", R"({"model": "deepseek-v3", "gpus": 8, "tensor_parallel": 8,
          "speculative_config": {"method": "mtp", "num_speculative_tokens": 1},
          "max_model_len": 200000, "allow_long_context": true})"},
      {"sglang", R"({"model": "qwen3-next-80b-a3b", "sglang": {"mem_fraction_static": 0.85,
          "mamba_full_memory_ratio": 0.5, "max_mamba_cache_size": 64, "max_running_requests": 32,
          "disable_radix_cache": true}})"},
      {"sglang", R"({"model": "gpt-oss-120b", "sglang": {"swa_full_tokens_ratio": 0.5,
          "disable_hybrid_swa_memory": true}, "gpus": 4, "tensor_parallel": 2})"},
      {"tensorrt-llm", R"({"model": "qwen3-32b", "tensorrt_llm":
          {"free_gpu_memory_fraction": 0.8}, "gpus": 4, "tensor_parallel": 2, "kv_dtype": "fp8"})"},
      {"tensorrt-llm", R"({"model": "qwen3-32b", "tensorrt_llm": {"max_tokens": 100000,
          "max_gpu_total_bytes": 20000000000}, "block_size_tokens": 64})"},
      {"llama.cpp", R"({"model": "gemma-3-27b", "gpus": 2, "llama_cpp": {"tensor_split": [3, 1],
          "n_gpu_layers": 40, "swa_full": true, "kv_offload": false, "kv_unified": false,
          "parallel": 2, "v_dtype": "q4_0"}, "kv_dtype": "q8_0"})"},
  };
  for (const auto& [engine_id, text] : requests) {
    const std::string id = engine_id;  // a lambda captures no structured binding in C++17 (clang)
    const Engine& engine = *std::find_if(engines().begin(), engines().end(),
                                         [&](const Engine& e) { return e.id == id; });
    const Result<Request> r = request_from_json(
        text.substr(0, text.size() - 1) + R"(, "engine": ")" + engine_id +
            R"(", "gpu": "h200-sxm-141gb"})",
        Command::kPlan);
    ASSERT_TRUE(r.ok) << r.error.message;
    const Result<PlanReport> p = plan(r.value.input);
    ASSERT_TRUE(p.ok) << p.error.message;
    expect_parses(engine, argument_list(engine.file), p.value.launch_command);
  }
}

TEST(LaunchFlags, EverySolverCommandParses) {
  for (const Engine& engine : engines()) {
    const std::map<std::string, Flag> flags = argument_list(engine.file);
    for (const char* m : {"qwen3-32b", "deepseek-v3", "gpt-oss-20b"}) {
      PlanInput base;
      base.engine = engine.id;
      base.model.model_id = m;
      base.model.context_tokens = 16384;
      SolveOptions o;
      o.concurrency = 24;
      o.gpu_ids = {"h100-sxm-80gb", "l40s", "rtx-4090"};
      const Result<SolveReport> s = solve(base, o);
      ASSERT_TRUE(s.ok) << s.error.message;
      for (const SolveOption& option : s.value.options) expect_parses(engine, flags, option.command);
    }
  }
}

}  // namespace
}  // namespace kvscope
