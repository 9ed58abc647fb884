// The rows of VALIDATION.md's first table: numbers that serving engines printed in public logs and
// the `kvscope` arguments that reproduce each, with how kvscope's figure is formatted.
#include "validation_cases.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace validation {
namespace {

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string gib(double bytes) { return fixed(bytes / 1073741824.0, 2); }

std::string fixture(const char* name) {
  return std::string(KVSCOPE_TEST_DATA_DIR) + "/configs/" + name;
}

std::string real_config(const char* name) {
  return std::string(KVSCOPE_TEST_DATA_DIR) + "/real-configs/" + name;
}

std::string mib(double bytes) { return fixed(bytes / 1048576.0, 2); }

// A device's K/V (or recurrent-state) buffer in MiB, as llama.cpp prints "<dev> KV buffer size".
std::function<std::string(const json&)> device_mib(const char* device, const char* key) {
  return [device, key](const json& j) {
    for (const json& d : j["devices"]) {
      if (d["device"] == device) return mib(d[key].get<double>());
    }
    return std::string("no ") + device;
  };
}

// The number after `marker` in the plan's notes (SGLang's log lines kvscope prints beside its
// figures).
std::string note_value(const json& j, const std::string& marker) {
  for (const json& n : j["notes"]) {
    const std::string text = n.get<std::string>();
    const size_t at = text.find(marker);
    if (at == std::string::npos) continue;
    const size_t from = at + marker.size();
    return text.substr(from, text.find_first_of(", (", from) - from);
  }
  return "no " + marker;
}

}  // namespace

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  return {std::istream_iterator<std::string>(in), std::istream_iterator<std::string>()};
}

std::vector<Case> cases() {
  // Command lines shared by several rows from one log.
  const auto mistral_offload = words(
      "plan --model mistral-7b-v0.1 --engine llama.cpp --gpu rtx-4090 --context 768 --kv-dtype f16 "
      "--n-gpu-layers 20 --output-layer-last");
  const auto deepseek_4gpu = words(
      "plan --model deepseek-v3 --engine llama.cpp --gpu rtx-a6000 --gpus 4 --tensor-split "
      "29249,23633,23698,48280 --context 16384 --kv-dtype f16 --mla-v-cache --output-layer-last "
      "--ubatch 1024");
  const auto gpt_oss_8npu = words(
      "plan --model gpt-oss-20b --engine llama.cpp --gpu h100-sxm-80gb --gpus 8 --context 131072 "
      "--kv-dtype f16 --output-layer-last");
  auto qwen35_hybrid = words(
      "plan --engine llama.cpp --gpu rtx-4090 --context 8192 --kv-dtype f16 --n-gpu-layers 20");
  qwen35_hybrid.insert(qwen35_hybrid.begin() + 1,
                       {"--config", real_config("qwen__qwen3.5-4b.json")});
  auto qwen35_sglang_rest =
      words("plan --engine sglang --tp 2 --kv-memory 9.494GiB --kv-dtype bf16");
  qwen35_sglang_rest.insert(qwen35_sglang_rest.begin() + 1,
                            {"--config", real_config("qwen__qwen3.5-4b.json")});
  auto qwen35_sglang_186 = qwen35_sglang_rest;
  qwen35_sglang_186.insert(qwen35_sglang_186.end(), {"--max-mamba-cache-size", "186"});
  // tests/data/logs/vllm-v1-deepseek-v4-flash-2xgh200-tp2-30k-error.log: the LLM class batches
  // 16,384 tokens on a card of 70 GiB or more; 5.4415 GiB prints as the log's 5.44.
  const auto dsv4_sglang = words(
      "plan --model deepseek-v4-flash --engine sglang --tp 4 --max-running-requests 8 "
      "--kv-memory 12763843320");
  auto dsv4_gh200 = words(
      "plan --tp 2 --engine vllm --engine-version 0.22 --max-model-len 30000 --kv-dtype fp8 "
      "--block-size 256 --kv-memory 5.4415GiB --max-num-batched-tokens 16384");
  dsv4_gh200.insert(dsv4_gh200.begin() + 1,
                    {"--config", real_config("deepseek-ai__deepseek-v4-flash.json")});
  auto qwen36_27b = words(
      "plan --kv-dtype fp8 --engine-version 0.23 --kv-memory 47.84GiB --max-model-len 262144 "
      "--max-num-batched-tokens 65536 --enable-prefix-caching");
  qwen36_27b.insert(qwen36_27b.begin() + 1,
                    {"--config", real_config("nvidia__qwen3.6-27b-nvfp4.json")});
  auto qwen36_35b = words(
      "plan --kv-dtype fp8 --engine-version 0.24 --kv-memory 5.98GiB --max-model-len 131072 "
      "--max-num-batched-tokens 8192 --enable-prefix-caching");
  qwen36_35b.insert(qwen36_35b.begin() + 1,
                    {"--config", real_config("nvidia__qwen3.6-35b-a3b-nvfp4.json")});
  return {
      {"vLLM",
       "tests/data/logs/vllm-v1-qwen3.6-27b-nvfp4-dgx-spark-262k.log (0.23.1rc1, DGX Spark, "
       "hybrid states in align mode)",
       "GPU KV cache size (tokens)", qwen36_27b, "1505068",
       [](const json& j) { return std::to_string(j["kv_pool_tokens"].get<uint64_t>()); }},
      {"vLLM", "tests/data/logs/vllm-v1-qwen3.6-27b-nvfp4-dgx-spark-262k.log",
       "Maximum concurrency for 262,144 tokens", qwen36_27b, "5.74",
       [](const json& j) { return fixed(j["max_concurrency"].get<double>(), 2); }},
      {"vLLM", "tests/data/logs/vllm-v1-qwen3.6-35b-a3b-nvfp4-rtx5090-131k.log (0.24.0, RTX 5090)",
       "GPU KV cache size (tokens)", qwen36_35b, "567978",
       [](const json& j) { return std::to_string(j["kv_pool_tokens"].get<uint64_t>()); }},
      {"vLLM", "tests/data/logs/vllm-v1-qwen3.6-35b-a3b-nvfp4-rtx5090-131k.log",
       "Maximum concurrency for 131,072 tokens", qwen36_35b, "4.33",
       [](const json& j) { return fixed(j["max_concurrency"].get<double>(), 2); }},
      {"vLLM",
       "vLLM issue #25350",
       "KV cache needed for max_model_len 221000 (GiB)",
       {"plan", "--config", fixture("vllm_issue_25350_shape.json"), "--kv-dtype", "fp8",
        "--max-model-len", "221000", "--kv-memory", "5.5886GiB", "--engine-version", "0.10"},
       "10.12",
       [](const json& j) { return gib(j["kv_bytes_needed_for_max_model_len"].get<double>()); }},
      {"vLLM",
       "vLLM issue #25350",
       "estimated maximum model length with 5.59 GiB available",
       {"plan", "--config", fixture("vllm_issue_25350_shape.json"), "--kv-dtype", "fp8",
        "--max-model-len", "221000", "--kv-memory", "5.5886GiB", "--engine-version", "0.10"},
       "122080",
       [](const json& j) { return std::to_string(j["max_model_len_that_fits"].get<uint64_t>()); }},
      {"vLLM", "vLLM issue #44376 (DeepSeek-V4-Flash, 2 x GH200, TP 2, 0.22)",
       "KV cache needed for 30000 (GiB)", dsv4_gh200, "6.66",
       [](const json& j) { return gib(j["kv_bytes_needed_for_max_model_len"].get<double>()); }},
      {"vLLM", "vLLM issue #44376", "estimated maximum model length with 5.44 GiB", dsv4_gh200,
       "13528",
       [](const json& j) { return std::to_string(j["max_model_len_that_fits"].get<uint64_t>()); }},
      {"vLLM",
       "vllm-project/recipes PR #12 (Qwen3-Coder-480B)",
       "KV cache needed for 262144 (GiB)",
       {"plan", "--config", fixture("qwen3_coder_480b.json"), "--max-model-len", "262144",
        "--kv-memory", "48.66GiB", "--engine-version", "0.10"},
       "62.00",
       [](const json& j) { return gib(j["kv_bytes_needed_for_max_model_len"].get<double>()); }},
      {"vLLM",
       "vllm-project/recipes PR #12",
       "estimated maximum model length with 48.66 GiB",
       {"plan", "--config", fixture("qwen3_coder_480b.json"), "--max-model-len", "262144",
        "--kv-memory", "48.66GiB", "--engine-version", "0.10"},
       "205728",
       [](const json& j) { return std::to_string(j["max_model_len_that_fits"].get<uint64_t>()); }},
      {"vLLM",
       "vllm-project/recipes PR #12",
       "estimated maximum model length with 55.65 GiB",
       {"plan", "--config", fixture("qwen3_coder_480b.json"), "--max-model-len", "262144",
        "--kv-memory", "55.652GiB", "--engine-version", "0.10"},
       "235296",
       [](const json& j) { return std::to_string(j["max_model_len_that_fits"].get<uint64_t>()); }},
      {"vLLM",
       "vLLM issue #10517 (Llama-3.1-8B, RTX 3090)",
       "1478 blocks: GPU KV cache tokens",
       {"plan", "--model", "llama-3.1-8b", "--max-model-len", "29000", "--kv-memory", "3099590656",
        "--engine-version", "v0"},
       "23648",
       [](const json& j) { return std::to_string(j["kv_pool_tokens"].get<uint64_t>()); }},
      {"vLLM",
       "vLLM issue #10517",
       "Maximum concurrency for 29000 tokens per request",
       {"plan", "--model", "llama-3.1-8b", "--max-model-len", "29000", "--kv-memory", "3099590656",
        "--engine-version", "v0"},
       "0.82",
       [](const json& j) { return fixed(j["max_concurrency"].get<double>(), 2); }},
      {"vLLM",
       "vLLM issue #10517",
       "1952 blocks: maximum concurrency for 20000 tokens per request",
       {"plan", "--model", "llama-3.1-8b", "--max-model-len", "20000", "--kv-memory", "4093640704",
        "--engine-version", "v0"},
       "1.56",
       [](const json& j) { return fixed(j["max_concurrency"].get<double>(), 2); }},
      {"vLLM",
       "engine-formulas.md §6 (Gemma 3 27B, 40 GiB)",
       "GPU KV cache size, hybrid manager (tokens)",
       {"plan", "--model", "gemma-3-27b", "--kv-memory", "40GiB", "--engine-version", "0.16"},
       "74896",
       [](const json& j) { return std::to_string(j["kv_pool_tokens"].get<uint64_t>()); }},
      {"vLLM",
       "engine-formulas.md §6 (Gemma 3 27B, 40 GiB)",
       "GPU KV cache size, hybrid manager off (tokens)",
       {"plan", "--model", "gemma-3-27b", "--kv-memory", "40GiB",
        "--disable-hybrid-kv-cache-manager", "--engine-version", "0.16"},
       "84560",
       [](const json& j) { return std::to_string(j["kv_pool_tokens"].get<uint64_t>()); }},
      {"vLLM",
       "llm-d config_explorer (H100, util 0.9)",
       "Available KV cache memory, Llama-3.1-8B (GiB)",
       {"plan", "--model", "llama-3.1-8b", "--gpu-memory", "79.18GiB", "--max-num-batched-tokens",
        "8192", "--engine-version", "0.11"},
       "51.38",
       [](const json& j) { return gib(j["kv_pool_bytes"].get<double>()); },
       0.005},
      {"vLLM",
       "llm-d config_explorer (H100, util 0.9)",
       "Available KV cache memory, gpt-oss-20b (GiB)",
       {"plan", "--model", "gpt-oss-20b", "--gpu-memory", "79.18GiB", "--max-num-batched-tokens",
        "8192", "--weights-bytes", "13.47GiB", "--engine-version", "0.11"},
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
      {"llama.cpp",
       "tests/data/logs/llamacpp-phi3-mini-4k-c2048-cpu.log (n_swa 2047, SWA disabled)",
       "Phi-3-mini-4k CPU KV buffer size, -c 2048 f16 (MiB)",
       {"plan", "--model", "phi-3-mini-4k", "--engine", "llama.cpp", "--gpu", "rtx-4090",
        "--context", "2048", "--kv-dtype", "f16"},
       "768.00",
       [](const json& j) { return mib(j["kv_bytes_total"].get<double>()); }},
      {"llama.cpp",
       "tests/data/logs/llamacpp-phi3-mini-128k-c32768-metal.log (Ollama 0.17.0; the 4k "
       "config's attention shape)",
       "Phi-3-mini-128k Metal KV buffer size, 32768 cells (MiB)",
       {"plan", "--model", "phi-3-mini-4k", "--engine", "llama.cpp", "--gpu", "rtx-4090",
        "--context", "32768", "--kv-dtype", "f16"},
       "12288.00",
       [](const json& j) { return mib(j["kv_bytes_total"].get<double>()); }},
      {"llama.cpp",
       "tests/data/logs/llamacpp-mistral-7b-instruct-v0.1-ngl20-c768-partial-offload.log (a "
       "llama GGUF: no SWA; mid-2025 build, layers offloaded before the output layer)",
       "Mistral-7B-v0.1 CUDA0 KV buffer size, -ngl 20 -c 768 (MiB)", mistral_offload, "60.00",
       device_mib("CUDA0", "kv_bytes")},
      {"llama.cpp",
       "tests/data/logs/llamacpp-mistral-7b-instruct-v0.1-ngl20-c768-partial-offload.log",
       "Mistral-7B-v0.1 CPU KV buffer size, -ngl 20 -c 768 (MiB)", mistral_offload, "36.00",
       device_mib("CPU", "kv_bytes")},
      {"llama.cpp",
       "tests/data/logs/llamacpp-deepseek-v3-0324-oldgguf-c4096-cpu.log (per-head MLA GGUF)",
       "DeepSeek-V3-0324 KV self size, -c 4096 f16 (MiB)",
       {"plan", "--model", "deepseek-v3", "--engine", "llama.cpp", "--gpu", "h100-sxm-80gb",
        "--context", "4096", "--kv-dtype", "f16", "--legacy-mla-gguf"},
       "19520.00",
       [](const json& j) { return mib(j["kv_bytes_total"].get<double>()); }},
      {"llama.cpp",
       "tests/data/logs/llamacpp-deepseek-v3-0324-mla-4gpu-c16384.log (build 5331: latent K and "
       "V; -ts from the free memory the log prints)",
       "DeepSeek-V3-0324 CUDA0 KV buffer size, -c 16384 on 4 GPUs (MiB)", deepseek_4gpu, "510.00",
       device_mib("CUDA0", "kv_bytes")},
      {"llama.cpp", "tests/data/logs/llamacpp-deepseek-v3-0324-mla-4gpu-c16384.log",
       "DeepSeek-V3-0324 CUDA3 KV buffer size, -c 16384 on 4 GPUs (MiB)", deepseek_4gpu, "748.00",
       device_mib("CUDA3", "kv_bytes")},
      {"llama.cpp",
       "tests/data/logs/llamacpp-gpt-oss-20b-c0-8npu-cann.log (build 6115, -c 0 = 131072, iSWA)",
       "gpt-oss-20b CANN0 KV buffers, non-SWA 512.00 + SWA 3.00 (MiB)", gpt_oss_8npu, "515.00",
       device_mib("CUDA0", "kv_bytes")},
      {"llama.cpp", "tests/data/logs/llamacpp-gpt-oss-20b-c0-8npu-cann.log",
       "gpt-oss-20b CANN7 KV buffers, non-SWA 256.00 + SWA 1.50 (MiB)", gpt_oss_8npu, "257.50",
       device_mib("CUDA7", "kv_bytes")},
      {"llama.cpp",
       "tests/data/logs/llamacpp-qwen3.5-9b-c8192-fit-ngl20-hybrid-vulkan.log (output layer "
       "first; Qwen3.5-4B's config has the 9B's cache shapes)",
       "Qwen3.5-9B Vulkan1 KV buffer size, -ngl 20 -c 8192 (MiB)", qwen35_hybrid, "160.00",
       device_mib("CUDA0", "kv_bytes")},
      {"llama.cpp", "tests/data/logs/llamacpp-qwen3.5-9b-c8192-fit-ngl20-hybrid-vulkan.log",
       "Qwen3.5-9B Vulkan1 RS buffer size (recurrent state, f32) (MiB)", qwen35_hybrid, "29.31",
       device_mib("CUDA0", "state_bytes")},
      {"llama.cpp", "tests/data/logs/llamacpp-qwen3.5-9b-c8192-fit-ngl20-hybrid-vulkan.log",
       "Qwen3.5-9B CPU RS buffer size (MiB)", qwen35_hybrid, "20.94",
       device_mib("CPU", "state_bytes")},
      {"vLLM",
       "xorbitsai/inference issue #1715 (Qwen-14B-Chat-Int4; Qwen-VL-Chat-Int4's config has "
       "the same seq_length 2048 / max_position_embeddings 8192)",
       "ValueError: derived max_model_len for max_model_len 4096",
       {"plan", "--config",
        std::string(KVSCOPE_TEST_DATA_DIR) + "/checkpoints/qwen__qwen-vl-chat-int4/config.json",
        "--gpu", "l4", "--max-model-len", "4096"},
       "seq_length=2048 or model_max_length=None",
       [](const json& j) {
         const std::string e =
             j["startup_error"].is_string() ? j["startup_error"].get<std::string>() : "";
         const size_t a = e.find("max_model_len ("), b = e.find(" in model's");
         return a == std::string::npos || b == std::string::npos
                    ? e
                    : e.substr(e.find('(', a + 15) + 1, b - e.find('(', a + 15) - 1);
       }},
      {"vLLM",
       "vLLM issue #23278 (gpt-oss-120b, H100, \"Model loading took 65.9651 GiB\")",
       "gpt-oss-120b weights on the GPU (GiB)",
       {"plan", "--model", "gpt-oss-120b", "--gpu", "h100-sxm-80gb"},
       "65.97",
       [](const json& j) { return gib(j["weights_bytes"].get<double>()); },
       0,
       "kvscope counts the checkpoint's tensors (60.77 GiB); the log's figure adds what vLLM "
       "allocates while loading MXFP4 experts for its Triton MoE kernel on Hopper (a swizzled "
       "copy), which kvscope does not model"},
      {"SGLang",
       "tests/data/logs/sglang-deepseek-v4-flash-0731-w4a8-tp4-npu-dsv4-pools.log (4 x Ascend "
       "910B3, max_running_requests 8)",
       "DSV4 memory calculation: bytes_per_full_token", dsv4_sglang, "7705.45",
       [](const json& j) { return note_value(j, "bytes_per_full_token="); }},
      {"SGLang", "tests/data/logs/sglang-deepseek-v4-flash-0731-w4a8-tp4-npu-dsv4-pools.log",
       "DSV4 pool sizes: full tokens at 11.89 GiB (11.8872)", dsv4_sglang, "1641472",
       [](const json& j) { return note_value(j, "pool sizes: full="); }},
      {"SGLang",
       "tests/data/logs/sglang-deepseek-v3.2-exp-tp8dp8-b200-nsa.log (sgl-project/sglang PR "
       "#11309; fp8 NSA rows and the indexer's keys)",
       "DeepSeek-V3.2-Exp KV Cache is allocated, #tokens 975424: KV size (GB = GiB)",
       {"estimate", "--config", real_config("deepseek-ai__deepseek-v3.2.json"), "--kv-dtype",
        "fp8_ds_mla", "--context", "975424"},
       "43.67",
       [](const json& j) { return gib(j["kv_bytes_per_sequence"].get<double>()); }},
      {"SGLang",
       "engine-formulas.md §2 (Qwen2.5-32B class, TP 4)",
       "#tokens: 46611 -> K size (GB = GiB)",
       {"plan", "--config", fixture("qwen2_5_32b_shape.json"), "--engine", "sglang", "--tp", "4",
        "--kv-memory", "3054698496"},
       "1.42",
       [](const json& j) { return gib(j["kv_pool_tokens"].get<double>() * 64 * 2 * 128 * 2); }},
      {"SGLang",
       "tests/data/logs/sglang-qwen3.5-9b-tp2-mamba-hybrid.log (Qwen3.5-4B's config has the 9B's "
       "cache shapes)",
       "Qwen3.5-9B Mamba Cache ssm_state size, max_mamba_cache_size 186 (GB = GiB)",
       qwen35_sglang_186, "4.38",
       [](const json& j) {
         const json& s = j["state_pool"];
         return gib((s["slots"].get<double>() + 1) * s["ssm_bytes_per_slot"].get<double>());
       }},
      {"SGLang", "tests/data/logs/sglang-qwen3.5-9b-tp2-mamba-hybrid.log",
       "Qwen3.5-9B Mamba Cache conv_state size, max_mamba_cache_size 186 (GB = GiB)",
       qwen35_sglang_186, "0.10",
       [](const json& j) {
         const json& s = j["state_pool"];
         return gib((s["slots"].get<double>() + 1) * s["conv_bytes_per_slot"].get<double>());
       }},
      {"SGLang", "tests/data/logs/sglang-qwen3.5-9b-tp2-mamba-hybrid.log",
       "Qwen3.5-9B max_running_requests, max_mamba_cache_size 186", qwen35_sglang_186, "62",
       [](const json& j) { return std::to_string(j["max_running_requests"].get<uint64_t>()); }},
      {"SGLang",
       "tests/data/logs/sglang-qwen3.5-9b-tp2-mamba-hybrid.log (rest = 14.08 - 22.93 x (1 - 0.8) "
       "GiB from its avail mem lines)",
       "Qwen3.5-9B KV Cache is allocated, #tokens", qwen35_sglang_rest, "327310",
       [](const json& j) { return std::to_string(j["kv_pool_tokens"].get<uint64_t>()); }, 0.005},
      {"SGLang", "tests/data/logs/sglang-qwen3.5-9b-tp2-mamba-hybrid.log (same rest)",
       "Qwen3.5-9B max_mamba_cache_size", qwen35_sglang_rest, "186",
       [](const json& j) { return std::to_string(j["state_pool"]["slots"].get<uint64_t>()); }, 0,
       "187 from the logged figures; 186 and 327,310 tokens both follow from a rest 0.038 GiB "
       "smaller: SGLang measures free memory after the weights-loaded line"},
  };
}

}  // namespace validation
