// Prints VALIDATION.md: numbers that serving engines printed in public logs, beside what the
// `kvscope` command prints for the same inputs. Exit status 1 when any row does not match.
// Regenerate after a deliberate change: build/native/tests/kvscope_validation > VALIDATION.md
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "kvscope_cli.hpp"

namespace {

using nlohmann::json;

struct Case {
  const char* engine;
  const char* source;                               // where the engine's figure was printed
  const char* what;                                 // the log line or figure
  std::vector<std::string> args;                    // kvscope arguments (run with --json)
  std::string printed;                              // the engine's figure as it printed it
  std::function<std::string(const json&)> kvscope;  // kvscope's figure, formatted the same way
  double tolerance = 0;                             // relative; 0 = the text must be equal
};

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string gib(double bytes) { return fixed(bytes / 1073741824.0, 2); }

std::string fixture(const char* name) {
  return std::string(KVSCOPE_TEST_DATA_DIR) + "/configs/" + name;
}

std::vector<Case> cases() {
  return {
      {"vLLM",
       "vLLM issue #25350",
       "KV cache needed for max_model_len 221000 (GiB)",
       {"plan", "--config", fixture("vllm_issue_25350_shape.json"), "--kv-dtype", "fp8",
        "--max-model-len", "221000", "--kv-memory", "5.5886GiB"},
       "10.12",
       [](const json& j) { return gib(j["kv_bytes_needed_for_max_model_len"].get<double>()); }},
      {"vLLM",
       "vLLM issue #25350",
       "estimated maximum model length with 5.59 GiB available",
       {"plan", "--config", fixture("vllm_issue_25350_shape.json"), "--kv-dtype", "fp8",
        "--max-model-len", "221000", "--kv-memory", "5.5886GiB"},
       "122080",
       [](const json& j) { return std::to_string(j["max_model_len_that_fits"].get<uint64_t>()); }},
      {"vLLM",
       "vllm-project/recipes PR #12 (Qwen3-Coder-480B)",
       "KV cache needed for 262144 (GiB)",
       {"plan", "--config", fixture("qwen3_coder_480b.json"), "--max-model-len", "262144",
        "--kv-memory", "48.66GiB"},
       "62.00",
       [](const json& j) { return gib(j["kv_bytes_needed_for_max_model_len"].get<double>()); }},
      {"vLLM",
       "vllm-project/recipes PR #12",
       "estimated maximum model length with 48.66 GiB",
       {"plan", "--config", fixture("qwen3_coder_480b.json"), "--max-model-len", "262144",
        "--kv-memory", "48.66GiB"},
       "205728",
       [](const json& j) { return std::to_string(j["max_model_len_that_fits"].get<uint64_t>()); }},
      {"vLLM",
       "vllm-project/recipes PR #12",
       "estimated maximum model length with 55.65 GiB",
       {"plan", "--config", fixture("qwen3_coder_480b.json"), "--max-model-len", "262144",
        "--kv-memory", "55.652GiB"},
       "235296",
       [](const json& j) { return std::to_string(j["max_model_len_that_fits"].get<uint64_t>()); }},
      {"vLLM",
       "vLLM issue #10517 (Llama-3.1-8B, RTX 3090)",
       "1478 blocks: GPU KV cache tokens",
       {"plan", "--model", "llama-3.1-8b", "--max-model-len", "29000", "--kv-memory", "3099590656"},
       "23648",
       [](const json& j) { return std::to_string(j["kv_pool_tokens"].get<uint64_t>()); }},
      {"vLLM",
       "vLLM issue #10517",
       "Maximum concurrency for 29000 tokens per request",
       {"plan", "--model", "llama-3.1-8b", "--max-model-len", "29000", "--kv-memory", "3099590656"},
       "0.82",
       [](const json& j) { return fixed(j["max_concurrency"].get<double>(), 2); }},
      {"vLLM",
       "vLLM issue #10517",
       "1952 blocks: maximum concurrency for 20000 tokens per request",
       {"plan", "--model", "llama-3.1-8b", "--max-model-len", "20000", "--kv-memory", "4093640704"},
       "1.56",
       [](const json& j) { return fixed(j["max_concurrency"].get<double>(), 2); }},
      {"vLLM",
       "engine-formulas.md §6 (Gemma 3 27B, 40 GiB)",
       "GPU KV cache size, hybrid manager (tokens)",
       {"plan", "--model", "gemma-3-27b", "--kv-memory", "40GiB"},
       "74896",
       [](const json& j) { return std::to_string(j["kv_pool_tokens"].get<uint64_t>()); }},
      {"vLLM",
       "engine-formulas.md §6 (Gemma 3 27B, 40 GiB)",
       "GPU KV cache size, hybrid manager off (tokens)",
       {"plan", "--model", "gemma-3-27b", "--kv-memory", "40GiB",
        "--disable-hybrid-kv-cache-manager"},
       "84560",
       [](const json& j) { return std::to_string(j["kv_pool_tokens"].get<uint64_t>()); }},
      {"vLLM",
       "llm-d config_explorer (H100, util 0.9)",
       "Available KV cache memory, Llama-3.1-8B (GiB)",
       {"plan", "--model", "llama-3.1-8b", "--gpu-memory", "79.18GiB", "--max-num-batched-tokens",
        "8192"},
       "51.38",
       [](const json& j) { return gib(j["kv_pool_bytes"].get<double>()); },
       0.005},
      {"vLLM",
       "llm-d config_explorer (H100, util 0.9)",
       "Available KV cache memory, gpt-oss-20b (GiB)",
       {"plan", "--model", "gpt-oss-20b", "--gpu-memory", "79.18GiB", "--max-num-batched-tokens",
        "8192", "--weights-bytes", "13.47GiB"},
       "50.28",
       [](const json& j) { return gib(j["kv_pool_bytes"].get<double>()); },
       0.005},
      {"vLLM",
       "engine-formulas.md §1.9",
       "DeepSeek-V3 MLA bytes per token (bf16)",
       {"estimate", "--model", "deepseek-v3", "--context", "1"},
       "70272",
       [](const json& j) { return std::to_string(j["kv_bytes_per_token"].get<uint64_t>()); }},
      {"llama.cpp",
       "engine-formulas.md §3 (-c 8192 -np 1)",
       "Llama-3.1-8B KV buffer, f16 (MiB)",
       {"plan", "--model", "llama-3.1-8b", "--engine", "llama.cpp", "--gpu", "rtx-4090",
        "--context", "8192", "--kv-dtype", "f16"},
       "1024.00",
       [](const json& j) { return fixed(j["kv_bytes_total"].get<double>() / 1048576.0, 2); }},
      {"llama.cpp",
       "engine-formulas.md §3 (-c 8192 -np 1)",
       "Llama-3.1-8B KV buffer, q8_0 (MiB)",
       {"plan", "--model", "llama-3.1-8b", "--engine", "llama.cpp", "--gpu", "rtx-4090",
        "--context", "8192", "--kv-dtype", "q8_0"},
       "544.00",
       [](const json& j) { return fixed(j["kv_bytes_total"].get<double>() / 1048576.0, 2); }},
      {"SGLang",
       "engine-formulas.md §2 (Qwen2.5-32B class, TP 4)",
       "#tokens: 46611 -> K size (GB = GiB)",
       {"plan", "--config", fixture("qwen2_5_32b_shape.json"), "--engine", "sglang", "--tp", "4",
        "--kv-memory", "3054698496"},
       "1.42",
       [](const json& j) { return gib(j["kv_pool_tokens"].get<double>() * 64 * 2 * 128 * 2); }},
  };
}

bool matches(const Case& c, const std::string& ours) {
  if (c.tolerance == 0) return ours == c.printed;
  return std::abs(std::stod(ours) / std::stod(c.printed) - 1) <= c.tolerance;
}

std::string shown(const std::vector<std::string>& args) {
  std::string out = "kvscope";
  for (const std::string& a : args) {
    const size_t data = a.find("/tests/data/");
    out += " " + (data == std::string::npos ? a : a.substr(data + 1));
  }
  return out;
}

}  // namespace

int main() {
  std::cout << "# Validation: engine logs beside kvscope\n\n"
               "Generated by `tests/validation/validation.cpp` (CTest "
               "`validation.matches_committed`): each row is a\n"
               "figure a serving engine printed, the inputs that produced it, and what `kvscope` "
               "prints for the\n"
               "same inputs. Exact rows must match to the engine's printed digits; rows marked "
               "±0.5% depend on\n"
               "memory vLLM measures at start-up (activation peak), which kvscope estimates. "
               "Budgets given with\n"
               "`--kv-memory` are chosen inside the rounding of the engine's printed \"available\" "
               "figure.\n\n"
               "| engine | source | figure | engine printed | kvscope | match | kvscope command |\n"
               "|---|---|---|---|---|---|---|\n";
  int failures = 0;
  for (const Case& c : cases()) {
    std::vector<std::string> args = c.args;
    args.push_back("--json");
    std::ostringstream out, err;
    const int status = kvscope::cli::run(args, out, err, kvscope::cli::read_file_from_disk);
    std::string ours = "error: " + err.str();
    if (status == 0) {
      const json j = json::parse(out.str(), nullptr, false);
      ours = j.is_discarded() ? "invalid JSON" : c.kvscope(j);
    }
    const bool ok = status == 0 && matches(c, ours);
    failures += ok ? 0 : 1;
    std::cout << "| " << c.engine << " | " << c.source << " | " << c.what << " | " << c.printed
              << " | " << ours << " | " << (ok ? (c.tolerance == 0 ? "exact" : "±0.5%") : "**NO**")
              << " | `" << shown(c.args) << "` |\n";
  }
  return failures == 0 ? 0 : 1;
}
