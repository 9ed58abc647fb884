// Launch commands read as the engines read their arguments: shell words (quotes, `\` line
// continuations, leading VAR=value), the engine found by its program, each flag looked up in
// the engine's table below and turned into the `kvscope plan` flag of the same request key.
// The tables follow each engine's argument parser: vLLM vllm/engine/arg_utils.py (EngineArgs.
// add_cli_args) and vllm/entrypoints/openai/cli_args.py; SGLang python/sglang/srt/server_args.py
// (ServerArgs.add_cli_args); TensorRT-LLM tensorrt_llm/commands/serve.py (click options);
// llama.cpp common/arg.cpp (common_params_parser_init); Ollama envconfig/config.go and
// docs/modelfile.md (PARAMETER).
#include <algorithm>
#include <cctype>

#include "base/spelling.hpp"
#include "kvscope/model/catalog.hpp"
#include "kvscope/request/check.hpp"
#include "request/request_fields.hpp"

namespace kvscope {
namespace {

// How a flag's value becomes the kvscope flag's.
enum class Value {
  kSwitch,         // no value: the kvscope switch
  kText,           // passed as written
  kHumanCount,     // vLLM's human_readable_int: 128k = 128,000, 128K = 131,072; -1 / auto: fit
  kGibNumber,      // vLLM --swap-space 4 (GiB)
  kKvDtype,        // the engine's cache-dtype spelling to kvscope's (auto: the model's)
  kWeightQuant,    // --quantization fp8 (made at load); others are the checkpoint's own
  kLlamaOnOff,     // llama.cpp -fa [on|off|auto]: off turns kvscope's switch on
  kLlamaLayers,    // -ngl N | all | auto
  kOllamaOnOff,    // OLLAMA_FLASH_ATTENTION=1|0|true|false
  kLlamaContext,   // -c N; 0: the model's trained context (kvscope's default)
  kModel,          // the model
  kOptionalValue,  // a flag of no interest whose value may be absent (-fa in old builds)
};

struct FlagRow {
  std::string_view spellings;  // "--tensor-parallel-size|-tp"
  std::string_view key;        // the request key; empty: not modelled / no effect
  FlagEffect effect;
  Value value;
  std::string_view note = {};  // for kNotModelled: what it changes
};

using E = FlagEffect;
using V = Value;

// Flags of every HTTP server of them that change no memory kvscope sizes.
constexpr std::string_view kServerFlags =
    "--host|--port|--api-key|--served-model-name|--trust-remote-code|--tokenizer|--chat-template|"
    "--tool-call-parser|--reasoning-parser|--enable-auto-tool-choice|--log-level|--seed|--revision|"
    "--download-dir|--disable-log-requests|--disable-log-stats|--uvicorn-log-level|--root-path|"
    "--ssl-keyfile|--ssl-certfile|--allowed-origins|--enable-metrics|--tokenizer-mode|"
    "--dtype|--load-format|--generation-config|--override-generation-config|--max-logprobs|"
    "--enable-chunked-prefill|--no-enable-chunked-prefill|--async-scheduling|--config|"
    "--distributed-executor-backend|--disable-fastapi-docs|--enable-log-requests|--hf-token|"
    "--response-role|--lora-dtype|--chat-template-content-format|--tokenizer-path|--skip-tokenizer-"
    "init|"
    "--nnodes|--node-rank|--dist-init-addr|--master-addr|--master-port|--headless|"
    "--data-parallel-address|--data-parallel-rpc-port|--data-parallel-start-rank|"
    "--data-parallel-size-local|--data-parallel-backend|--api-server-count|--enable-request-id-"
    "headers";

const std::vector<FlagRow>& vllm_flags() {
  static const std::vector<FlagRow> rows = {
      {"--model", "model", E::kModelled, V::kModel},
      {"--max-model-len", "max_model_len", E::kModelled, V::kHumanCount},
      {"--gpu-memory-utilization", "vllm.gpu_memory_utilization", E::kModelled, V::kText},
      {"--tensor-parallel-size|-tp", "tensor_parallel", E::kModelled, V::kText},
      {"--pipeline-parallel-size|-pp", "pipeline_parallel", E::kModelled, V::kText},
      {"--data-parallel-size|-dp", "data_parallel", E::kModelled, V::kText},
      {"--enable-expert-parallel|-ep", "vllm.enable_expert_parallel", E::kModelled, V::kSwitch},
      {"--kv-cache-dtype", "kv_dtype", E::kModelled, V::kKvDtype},
      {"--mamba-cache-dtype", "state_dtype", E::kModelled, V::kKvDtype},
      {"--mamba-ssm-cache-dtype", "ssm_state_dtype", E::kModelled, V::kKvDtype},
      {"--block-size", "block_size_tokens", E::kModelled, V::kText},
      {"--max-num-batched-tokens", "vllm.max_num_batched_tokens", E::kModelled, V::kHumanCount},
      {"--enable-prefix-caching", "vllm.enable_prefix_caching", E::kModelled, V::kSwitch},
      {"--disable-hybrid-kv-cache-manager", "vllm.disable_hybrid_kv_cache_manager", E::kModelled,
       V::kSwitch},
      {"--disable-sliding-window", "vllm.disable_sliding_window", E::kModelled, V::kSwitch},
      {"--mamba-cache-mode", "vllm.mamba_cache_mode", E::kModelled, V::kText},
      {"--enforce-eager", "vllm.enforce_eager", E::kModelled, V::kSwitch},
      {"--num-gpu-blocks-override", "vllm.num_gpu_blocks_override", E::kModelled, V::kText},
      {"--swap-space", "vllm.swap_space_bytes", E::kModelled, V::kGibNumber},
      {"--kv-cache-memory-bytes|--kv-cache-memory", "kv_memory_bytes", E::kModelled,
       V::kHumanCount},
      {"--quantization|-q", "weight_dtype", E::kModelled, V::kWeightQuant},
      {"--speculative-config", "speculative_config", E::kModelled, V::kText},
      {"--no-enable-prefix-caching", "", E::kNoMemoryEffect, V::kSwitch},
      {"--max-num-seqs", "", E::kNotModelled, V::kText,
       "the CUDA graphs captured up to it (kvscope estimates the graph memory for the default)"},
      {"--cpu-offload-gb", "", E::kNotModelled, V::kText, "weights kept in host memory"},
      {"--kv-offloading-size|--kv-offloading-backend|--kv-transfer-config", "", E::kNotModelled,
       V::kText, "a host-memory KV tier or a KV connector"},
      {"--enable-lora|--max-loras|--max-lora-rank|--max-cpu-loras|--lora-modules", "",
       E::kNotModelled, V::kOptionalValue, "LoRA adapter slots, taken from the KV budget"},
      {"--limit-mm-per-prompt|--mm-processor-kwargs|--mm-encoder-tp-mode|--language-model-only", "",
       E::kNotModelled, V::kOptionalValue, "the multimodal encoder's profile and cache"},
      {"--compilation-config|-O|-cc|--cuda-graph-sizes", "", E::kNotModelled, V::kText,
       "the CUDA graphs captured (kvscope estimates the default's memory)"},
      {"--hf-overrides", "", E::kNotModelled, V::kText,
       "config.json overrides: give them to kvscope as --set FIELD=VALUE"},
      {"--rope-scaling|--rope-theta", "", E::kNotModelled, V::kText,
       "the context limit it allows: give kvscope --set rope_scaling=..."},
  };
  return rows;
}

const std::vector<FlagRow>& sglang_flags() {
  static const std::vector<FlagRow> rows = {
      {"--model-path|--model", "model", E::kModelled, V::kModel},
      {"--context-length", "max_model_len", E::kModelled, V::kText},
      {"--mem-fraction-static", "sglang.mem_fraction_static", E::kModelled, V::kText},
      {"--tp-size|--tp|--tensor-parallel-size", "tensor_parallel", E::kModelled, V::kText},
      {"--pp-size|--pipeline-parallel-size", "pipeline_parallel", E::kModelled, V::kText},
      {"--dp-size|--dp|--data-parallel-size", "data_parallel", E::kModelled, V::kText},
      {"--enable-dp-attention", "sglang.enable_dp_attention", E::kModelled, V::kSwitch},
      {"--kv-cache-dtype", "kv_dtype", E::kModelled, V::kKvDtype},
      {"--page-size", "block_size_tokens", E::kModelled, V::kText},
      {"--max-running-requests", "sglang.max_running_requests", E::kModelled, V::kText},
      {"--disable-radix-cache", "sglang.disable_radix_cache", E::kModelled, V::kSwitch},
      {"--max-mamba-cache-size", "sglang.max_mamba_cache_size", E::kModelled, V::kText},
      {"--mamba-full-memory-ratio", "sglang.mamba_full_memory_ratio", E::kModelled, V::kText},
      {"--swa-full-tokens-ratio", "sglang.swa_full_tokens_ratio", E::kModelled, V::kText},
      {"--disable-hybrid-swa-memory", "sglang.disable_hybrid_swa_memory", E::kModelled, V::kSwitch},
      {"--quantization", "weight_dtype", E::kModelled, V::kWeightQuant},
      {"--ep-size|--ep|--expert-parallel-size", "", E::kNotModelled, V::kText,
       "experts over fewer GPUs than --tp (kvscope spreads them over all of --tp)"},
      {"--max-total-tokens", "", E::kNotModelled, V::kText, "a cap on the KV pool's tokens"},
      {"--chunked-prefill-size|--cuda-graph-max-bs|--cuda-graph-bs|--disable-cuda-graph", "",
       E::kNotModelled, V::kOptionalValue,
       "the activation and CUDA-graph reserve (kvscope takes SGLang's default for the card)"},
      {"--speculative-algorithm|--speculative-draft-model-path|--speculative-num-steps|"
       "--speculative-eagle-topk|--speculative-num-draft-tokens",
       "", E::kNotModelled, V::kText, "a draft model's weights and cache"},
      {"--enable-lora|--max-loras-per-batch|--max-lora-rank|--lora-paths", "", E::kNotModelled,
       V::kOptionalValue, "LoRA adapter slots"},
      {"--enable-hierarchical-cache|--hicache-ratio|--hicache-size", "", E::kNotModelled,
       V::kOptionalValue, "a host-memory KV tier"},
  };
  return rows;
}

const std::vector<FlagRow>& tensorrt_llm_flags() {
  static const std::vector<FlagRow> rows = {
      {"--tp_size|--tp-size", "tensor_parallel", E::kModelled, V::kText},
      {"--pp_size|--pp-size", "pipeline_parallel", E::kModelled, V::kText},
      {"--max_seq_len|--max-seq-len", "max_model_len", E::kModelled, V::kText},
      {"--kv_cache_free_gpu_memory_fraction|--kv-cache-free-gpu-memory-fraction",
       "tensorrt_llm.free_gpu_memory_fraction", E::kModelled, V::kText},
      {"--backend|--tokenizer|--log_level|--num_postprocess_workers|--trust_remote_code|"
       "--reasoning_parser|--tool_parser",
       "", E::kNoMemoryEffect, V::kOptionalValue},
      {"--ep_size|--ep-size|--moe_expert_parallel_size", "", E::kNotModelled, V::kText,
       "MoE experts over EP ranks (kvscope slices them over --tp_size)"},
      {"--max_batch_size|--max_num_tokens|--max_beam_width", "", E::kNotModelled, V::kText,
       "the runtime's activation buffers (kvscope takes its default's)"},
      {"--extra_llm_api_options|--config", "", E::kNotModelled, V::kText,
       "a YAML file kvscope does not read: give its kv_cache_config as flags "
       "(--free-gpu-memory-fraction, --max-tokens, --max-gpu-total-bytes)"},
  };
  return rows;
}

const std::vector<FlagRow>& llama_server_flags() {
  static const std::vector<FlagRow> rows = {
      {"--model|-m|--hf-repo|-hf|-hfr|--hf-file|-hff", "model", E::kModelled, V::kModel},
      {"--ctx-size|-c", "max_model_len", E::kModelled, V::kLlamaContext},
      {"--parallel|-np", "llama_cpp.parallel", E::kModelled, V::kText},
      {"--n-gpu-layers|--gpu-layers|-ngl", "llama_cpp.n_gpu_layers", E::kModelled, V::kLlamaLayers},
      {"--cache-type-k|-ctk", "kv_dtype", E::kModelled, V::kKvDtype},
      {"--cache-type-v|-ctv", "llama_cpp.v_dtype", E::kModelled, V::kKvDtype},
      {"--flash-attn|-fa", "llama_cpp.flash_attn", E::kModelled, V::kLlamaOnOff},
      {"--ubatch-size|-ub", "llama_cpp.ubatch", E::kModelled, V::kText},
      {"--no-kv-unified|-no-kvu", "llama_cpp.kv_unified", E::kModelled, V::kSwitch},
      {"--kv-unified|-kvu", "", E::kNoMemoryEffect, V::kSwitch},
      {"--swa-full", "llama_cpp.swa_full", E::kModelled, V::kSwitch},
      {"--no-kv-offload|-nkvo", "llama_cpp.kv_offload", E::kModelled, V::kSwitch},
      {"--tensor-split|-ts", "llama_cpp.tensor_split", E::kModelled, V::kText},
      {"--threads|-t|--threads-batch|-tb|--batch-size|-b|--jinja|--alias|-a|--temp|--top-p|"
       "--top-k|--min-p|--repeat-penalty|--n-predict|-n|--split-mode|-sm|--main-gpu|-mg|--mlock|"
       "--no-mmap|--cont-batching|--metrics|--verbose|-v|--log-disable|--no-webui|--timeout|"
       "--cache-reuse|--threads-http|--slots|--props|--embedding|--rerank|--reasoning-format|"
       "--reasoning-budget|--chat-template-file|--log-verbosity|-lv|--no-warmup|--offline|"
       "--context-shift|--keep|--no-jinja|--log-prefix|--no-log-prefix|--log-timestamps|"
       "--no-log-timestamps|--spec-type|--spec-draft-n-max",
       "", E::kNoMemoryEffect, V::kOptionalValue},
      {"--n-cpu-moe|-ncmoe|--cpu-moe|-cmoe|--override-tensor|-ot", "", E::kNotModelled,
       V::kOptionalValue, "MoE experts kept in host memory"},
      {"--fit|-fit|--fit-target|--fit-ctx", "", E::kNotModelled, V::kOptionalValue,
       "llama.cpp fits -c and -ngl to device memory itself"},
      {"--mmproj|-mm|--mmproj-url|--no-mmproj", "", E::kNotModelled, V::kOptionalValue,
       "the vision projector's weights"},
      {"--model-draft|-md|--draft-max|--draft|--draft-min|-ngld|--gpu-layers-draft", "",
       E::kNotModelled, V::kText, "a draft model's weights and cache"},
      {"--lora|--lora-scaled", "", E::kNotModelled, V::kText, "LoRA adapters"},
  };
  return rows;
}

const std::vector<FlagRow>& ollama_settings() {
  static const std::vector<FlagRow> rows = {
      {"OLLAMA_CONTEXT_LENGTH|num_ctx", "ollama.num_ctx", E::kModelled, V::kText},
      {"OLLAMA_NUM_PARALLEL", "ollama.num_parallel", E::kModelled, V::kText},
      {"OLLAMA_KV_CACHE_TYPE", "ollama.kv_cache_type", E::kModelled, V::kText},
      {"OLLAMA_FLASH_ATTENTION", "ollama.flash_attention", E::kModelled, V::kOllamaOnOff},
      {"num_gpu", "ollama.num_gpu", E::kModelled, V::kText},
      {"num_batch", "ollama.num_batch", E::kModelled, V::kText},
      {"OLLAMA_HOST|OLLAMA_MODELS|OLLAMA_KEEP_ALIVE|OLLAMA_ORIGINS|OLLAMA_DEBUG|OLLAMA_MAX_QUEUE|"
       "CUDA_VISIBLE_DEVICES|OLLAMA_NOPRUNE|OLLAMA_LOAD_TIMEOUT|temperature|top_p|top_k|min_p|"
       "stop|seed|num_predict|repeat_penalty|repeat_last_n|num_thread",
       "", E::kNoMemoryEffect, V::kText},
      {"OLLAMA_MAX_LOADED_MODELS", "", E::kNotModelled, V::kText,
       "other models resident beside this one"},
      {"OLLAMA_GPU_OVERHEAD", "", E::kNotModelled, V::kText, "memory it keeps free per GPU"},
      {"OLLAMA_SCHED_SPREAD", "", E::kNotModelled, V::kText, "the model spread over every GPU"},
      {"OLLAMA_NEW_ENGINE|OLLAMA_LLM_LIBRARY", "", E::kNotModelled, V::kText,
       "the runner Ollama uses"},
  };
  return rows;
}

bool spelled(std::string_view spellings, std::string_view flag) {
  for (size_t start = 0; start <= spellings.size();) {
    const size_t bar = std::min(spellings.find('|', start), spellings.size());
    if (spellings.substr(start, bar - start) == flag) return true;
    start = bar + 1;
  }
  return false;
}

const FlagRow* row_of(const std::vector<FlagRow>& rows, std::string_view flag) {
  for (const FlagRow& r : rows)
    if (spelled(r.spellings, flag)) return &r;
  return nullptr;
}

// Shell words: blanks split, quotes group, `\` escapes (a `\` before a newline joins lines),
// `#` at a word's start comments to the end of the line. Newlines become ";" words, so that a
// script's or a Modelfile's lines stay apart.
std::vector<std::string> shell_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  const auto end_word = [&] {
    if (in_word) words.push_back(word);
    word.clear();
    in_word = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      if (text[i + 1] == '\n' ||
          (text[i + 1] == '\r' && i + 2 < text.size() && text[i + 2] == '\n')) {
        i += text[i + 1] == '\r' ? 2 : 1;
        continue;
      }
      word += text[++i];
      in_word = true;
    } else if (c == '\'' || c == '"') {
      const size_t close = text.find(c, i + 1);
      const size_t stop = close == std::string_view::npos ? text.size() : close;
      word += text.substr(i + 1, stop - i - 1);
      in_word = true;
      i = stop;
    } else if (c == '#' && !in_word) {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if ((c == '>' || c == '<') && !in_word) {  // a redirection and its target: skipped
      while (i + 1 < text.size() && (text[i + 1] == '>' || text[i + 1] == '&' ||
                                     std::isdigit(static_cast<unsigned char>(text[i + 1]))))
        ++i;
      while (i + 1 < text.size() && std::isspace(static_cast<unsigned char>(text[i + 1])) &&
             text[i + 1] != '\n')
        ++i;
      while (i + 1 < text.size() && !std::isspace(static_cast<unsigned char>(text[i + 1]))) ++i;
    } else if ((c == '>' || c == '<') && in_word &&
               std::all_of(word.begin(), word.end(),
                           [](char d) { return std::isdigit(static_cast<unsigned char>(d)); })) {
      word.clear();  // 2>&1: the descriptor's digits were no word
      in_word = false;
      --i;
    } else if (c == '\n' || c == ';' || c == '|' ||
               (c == '&' && i + 1 < text.size() && text[i + 1] == '&')) {
      end_word();
      if (words.empty() || words.back() != ";") words.emplace_back(";");
      if (c == '&' || (c == '|' && i + 1 < text.size() && text[i + 1] == '|')) ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      end_word();
    } else {
      word += c;
      in_word = true;
    }
  }
  end_word();
  return words;
}

bool is_env_assignment(const std::string& w) {
  const size_t eq = w.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  return std::all_of(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(eq), [](char c) {
    return std::isupper(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// vLLM's human_readable_int (vllm/engine/arg_utils.py): k/m/g decimal, K/M/G binary, and a
// decimal mantissa with a decimal suffix ("1.5k"). Empty when it is not one.
std::string human_count(const std::string& text) {
  if (text.empty()) return {};
  const char last = text.back();
  double scale = 1;
  switch (last) {
    case 'k':
      scale = 1e3;
      break;
    case 'm':
      scale = 1e6;
      break;
    case 'g':
      scale = 1e9;
      break;
    case 'K':
      scale = 1024.0;
      break;
    case 'M':
      scale = 1024.0 * 1024;
      break;
    case 'G':
      scale = 1024.0 * 1024 * 1024;
      break;
    default:
      break;
  }
  const std::string digits = scale == 1 ? text : text.substr(0, text.size() - 1);
  if (digits.empty() || digits.find_first_not_of("0123456789.") != std::string::npos) return {};
  if (digits.find('.') != std::string::npos && (scale == 1 || last < 'a')) return {};
  const double value = std::strtod(digits.c_str(), nullptr) * scale;
  if (!(value >= 0 && value < 1.8e19)) return {};
  return std::to_string(static_cast<uint64_t>(value + 0.5));
}

// The engines' cache-dtype spellings as kvscope's: "" for auto (the model's dtype).
std::string kv_dtype_of(std::string v) {
  v = lowercase(v);
  if (v == "auto") return {};
  if (v == "fp8_e4m3" || v == "fp8_inc" || v == "fp8e4m3") return "fp8";
  if (v == "f16" || v == "float16" || v == "half") return "fp16";
  if (v == "f32" || v == "float32") return "fp32";
  if (v == "bfloat16") return "bf16";
  return v;
}

// A GGUF file or repository's quantization tag as a kvscope weight dtype ("Q4_K_M" -> q4_k_m):
// the first of the known tags (each before the shorter ones it contains) in the name; empty when
// none is.
std::string gguf_weight_dtype(const std::string& name) {
  static constexpr std::string_view kTags[] = {
      "q4_k_m", "q4_k_s", "q5_k_m", "q5_k_s", "q3_k_l", "q3_k_m", "q3_k_s", "q6_k", "q2_k",
      "q8_0",   "q5_0",   "q5_1",   "q4_0",   "q4_1",   "iq4_nl", "bf16",   "f16",  "fp16"};
  const std::string l = lowercase(name);
  for (std::string_view tag : kTags) {
    if (l.find(tag) == std::string::npos) continue;
    return tag == "f16" ? "fp16" : std::string(tag);
  }
  return {};
}

class Reader {
 public:
  explicit Reader(ParsedLaunch& out) : out_(out) {}

  // Reads the flags of words[from, to) with `rows`; positional words name the model.
  void flags(const std::vector<std::string>& words, size_t from, size_t to,
             const std::vector<FlagRow>& rows) {
    for (size_t i = from; i < to; ++i) {
      std::string flag = words[i], value;
      if (flag == ";") break;
      if (flag.empty() || flag[0] != '-' || flag == "-") {
        if (out_.model.empty()) set_model(flag);
        continue;
      }
      const size_t eq = flag.find('=');
      const bool inline_value = flag.rfind("--", 0) == 0 && eq != std::string::npos;
      if (inline_value) {
        value = flag.substr(eq + 1);
        flag.resize(eq);
      }
      const FlagRow* row = row_of(rows, flag);
      if (row == nullptr && spelled(kServerFlags, flag)) {
        static constexpr FlagRow kServer{"", "", E::kNoMemoryEffect, V::kOptionalValue};
        row = &kServer;
      }
      const bool next_is_value = i + 1 < to && words[i + 1] != ";" &&
                                 (words[i + 1].empty() || words[i + 1][0] != '-' ||
                                  human_count(words[i + 1].substr(1)) != "");
      const Value kind = row == nullptr ? V::kOptionalValue : row->value;
      const bool optional = kind == V::kOptionalValue || kind == V::kLlamaOnOff;
      if (!inline_value && kind != V::kSwitch && next_is_value &&
          (kind != V::kLlamaOnOff || is_on_off(words[i + 1])))
        value = words[++i];
      if (!inline_value && kind != V::kSwitch && !optional && value.empty()) {
        add({flag, {}, {}, E::kUnknown, "needs a value; the engine refuses it without one", {}});
        refused_ = true;
        continue;
      }
      if (row == nullptr) {
        add({flag,
             value,
             {},
             E::kUnknown,
             "not a flag kvscope knows for " + out_.program +
                 " (the engine refuses arguments it does not know; one it knows is not modelled)",
             {}});
        continue;
      }
      setting(*row, flag, value);
    }
  }

  // One setting of a table row (a flag, an environment variable, a PARAMETER).
  void setting(const FlagRow& row, const std::string& flag, const std::string& value) {
    LaunchFlag f{flag, value, std::string(row.key), row.effect, std::string(row.note), {}};
    if (row.effect == E::kNoMemoryEffect) f.note = "no effect on memory";
    if (row.effect != E::kModelled) return add(std::move(f));
    const std::string kv_flag = "--" + flag_of_key(row.key);
    switch (row.value) {
      case V::kModel:
        set_model(value);
        f.note = "the model";
        f.key = "model";
        return add(std::move(f));
      case V::kSwitch:
        return modelled(std::move(f), {kv_flag});
      case V::kOptionalValue:
      case V::kText:
        return modelled(std::move(f), {kv_flag, value});
      case V::kHumanCount: {
        if (value == "-1" || lowercase(value) == "auto") {
          f.effect = E::kNotModelled;
          f.note = "auto-fit: kvscope plans the model's limit and reports the largest that fits";
          return add(std::move(f));
        }
        const std::string n = human_count(value);
        return modelled(std::move(f), {kv_flag, n.empty() ? value : n});
      }
      case V::kGibNumber:
        return modelled(std::move(f), {kv_flag, value + "GiB"});
      case V::kKvDtype: {
        const std::string dtype = kv_dtype_of(value);
        if (dtype.empty()) {
          f.note = "auto: the model's dtype";
          return add(std::move(f));
        }
        return modelled(std::move(f), {kv_flag, dtype});
      }
      case V::kWeightQuant:
        if (lowercase(value) != "fp8") {
          f.effect = E::kNoMemoryEffect;
          f.note = "the checkpoint's own format (kvscope reads it from the checkpoint's config)";
          return add(std::move(f));
        }
        return modelled(std::move(f), {kv_flag, "fp8"});
      case V::kLlamaOnOff:
        if (lowercase(value) == "off" || value == "0" || lowercase(value) == "false")
          return modelled(std::move(f), {"--no-flash-attn"});
        f.note = "flash attention on (kvscope's default)";
        return add(std::move(f));
      case V::kLlamaContext:
        if (value == "0") {
          f.note = "0: the model's trained context (kvscope's default)";
          return add(std::move(f));
        }
        return modelled(std::move(f), {kv_flag, value});
      case V::kLlamaLayers: {
        const std::string v = lowercase(value);
        if (v == "auto" || v == "all" || v == "-1") {
          f.note = v == "auto" ? "auto: as many layers as fit (kvscope's default)"
                               : "every layer (kvscope's default)";
          return add(std::move(f));
        }
        return modelled(std::move(f), {kv_flag, value});
      }
      case V::kOllamaOnOff: {
        const std::string v = lowercase(value);
        const bool on = v == "1" || v == "true" || v == "on";
        const bool off = v == "0" || v == "false" || v == "off";
        return modelled(std::move(f), {kv_flag, on ? "on" : off ? "off" : value});
      }
    }
  }

  void set_model(const std::string& model) {
    if (!model.empty()) out_.model = model;
  }
  bool refused() const { return refused_; }

 private:
  static bool is_on_off(const std::string& w) {
    const std::string l = lowercase(w);
    return l == "on" || l == "off" || l == "auto" || l == "1" || l == "0" || l == "true" ||
           l == "false";
  }
  // The kvscope flag of a request key, by the CLI's spelling (request_fields.cpp).
  static std::string flag_of_key(std::string_view key);

  void add(LaunchFlag f) { out_.flags.push_back(std::move(f)); }
  void modelled(LaunchFlag f, std::vector<std::string> words) {
    f.note = "read as kvscope " + words[0] + (words.size() > 1 ? " " + words[1] : "");
    f.plan_flag = words[0];
    // A flag given twice: the engine keeps the last (argparse); so does the plan.
    for (LaunchFlag& earlier : out_.flags)
      if (earlier.effect == E::kModelled && earlier.key == f.key) {
        earlier.effect = E::kNoMemoryEffect;
        earlier.note = "given again later; the last one counts";
      }
    const std::string key = f.key;
    settings_.erase(std::remove_if(settings_.begin(), settings_.end(),
                                   [&](const auto& s) { return s.first == key; }),
                    settings_.end());
    add(std::move(f));
    settings_.emplace_back(key, std::move(words));
  }

 public:
  // The plan arguments of the modelled settings, each key's last: (key, kvscope flag words).
  std::vector<std::pair<std::string, std::vector<std::string>>> settings_;

 private:
  ParsedLaunch& out_;
  bool refused_ = false;
};

std::string Reader::flag_of_key(std::string_view key) {
  const request_fields::Field* f = request_fields::find_any_field(key);
  return f == nullptr ? std::string(key) : std::string(f->flag.substr(2));
}

// docker run's own flags that take no value (the rest take one, inline or next).
bool docker_switch(const std::string& w) {
  static constexpr std::string_view kSwitches =
      "-d|--detach|--rm|-i|-t|-it|-ti|--interactive|--tty|--privileged|--init|-P|--publish-all";
  return w.find('=') != std::string::npos || spelled(kSwitches, w);
}

// A container image's release tag as an engine version ("v0.11.0" -> "0.11.0"); empty else.
std::string image_release(const std::string& image) {
  const size_t colon = image.rfind(':');
  if (colon == std::string::npos || image.find('/', colon) != std::string::npos) return {};
  std::string tag = image.substr(colon + 1);
  if (!tag.empty() && tag[0] == 'v') tag.erase(0, 1);
  if (tag.empty() || !std::isdigit(static_cast<unsigned char>(tag[0]))) return {};
  const size_t end = tag.find_first_not_of("0123456789.");
  return tag.substr(0, end);
}

// The catalogue model a command's model stands for, with the weight format its name carries
// (a GGUF quant tag, an Ollama tag); the name as written when none matches.
std::pair<std::string, std::string> model_and_weights(const ParsedLaunch& c) {
  std::string name = c.model, weights;
  if (c.engine == "ollama") {
    // "qwen3:32b-q8_0": the library name and size; Ollama's default tags hold Q4_K_M weights.
    const size_t colon = name.find(':');
    if (colon != std::string::npos) {
      std::string tag = name.substr(colon + 1);
      weights = gguf_weight_dtype(tag);
      const size_t dash = tag.find('-');
      name = name.substr(0, colon) + "-" + tag.substr(0, dash);
    }
    if (weights.empty()) weights = "q4_k_m";
  } else if (c.engine == "llama.cpp") {
    const size_t colon = name.find(':');  // -hf repo:Q4_K_M
    weights = gguf_weight_dtype(colon == std::string::npos ? base_name(name) : name.substr(colon));
    if (colon != std::string::npos) name.resize(colon);
    if (ends_with(lowercase(name), "-gguf")) name.resize(name.size() - 5);
  }
  // A name the catalogue does not know whole, shortened ("Qwen3-235B-A22B-FP8" -> qwen3-235b-a22b
  // with fp8 weights, its name's format).
  const Result<CheckpointMatch> m = identify_checkpoint(name);
  if (m.ok) {
    const std::string format = lowercase(m.value.dropped);
    if (weights.empty()) {
      if (format.find("nvfp4") != std::string::npos)
        weights = "nvfp4";
      else if (format.find("fp8") != std::string::npos)
        weights = "fp8";
      else if (format.find("awq") != std::string::npos)
        weights = "awq-int4:g128";
      else if (format.find("gptq") != std::string::npos)
        weights = "gptq-int4:g128";
    }
    return {m.value.model.id, weights};
  }
  return {c.model, weights};
}

}  // namespace

Result<ParsedLaunch> read_launch_command(std::string_view text) {
  using R = Result<ParsedLaunch>;
  if (text.size() > (64u << 10))
    return R::failure(make_error(kOutOfRange, "launch", "longer than 64 KiB"));
  ParsedLaunch out;
  out.words = shell_words(text);
  const std::vector<std::string>& w = out.words;
  Reader reader(out);
  std::vector<std::pair<std::string, std::string>> environment;
  size_t i = 0;
  const auto flags_from = [&](size_t from, const std::vector<FlagRow>& rows) {
    size_t end = from;
    while (end < w.size() && w[end] != ";") ++end;
    reader.flags(w, from, end, rows);
    i = end;
  };
  for (; i < w.size(); ++i) {
    const std::string& word = w[i];
    const std::string name = base_name(word);
    if (word == "export" || word == "sudo" || word == "env" || word == "exec" || word == "nohup" ||
        word == "$" || word == ">" || word == ";" || word == "-m" || name.rfind("python", 0) == 0 ||
        word == "uv" || word == "run")
      continue;
    if (is_env_assignment(word)) {
      const size_t eq = word.find('=');
      environment.emplace_back(word.substr(0, eq), word.substr(eq + 1));
      continue;
    }
    if (word == "docker" || word == "podman") {  // docker run [flags] IMAGE [command or args]
      size_t j = i + 1;
      if (j < w.size() && w[j] == "run") ++j;
      for (; j < w.size() && w[j] != ";" && !w[j].empty() && w[j][0] == '-'; ++j) {
        if ((w[j] == "-e" || w[j] == "--env") && j + 1 < w.size() && is_env_assignment(w[j + 1])) {
          const size_t eq = w[j + 1].find('=');
          environment.emplace_back(w[j + 1].substr(0, eq), w[j + 1].substr(eq + 1));
        }
        if (!docker_switch(w[j])) ++j;
      }
      if (j >= w.size() || w[j] == ";") break;
      const std::string& image = w[j];
      out.engine_version = image_release(image);
      i = j;
      // Images whose entrypoint is the server: the words after the image are its flags.
      if (image.find("vllm-openai") != std::string::npos &&
          (j + 1 >= w.size() || w[j + 1] != "vllm")) {
        out.engine = "vllm";
        out.program = "vllm/vllm-openai";
        flags_from(j + 1, vllm_flags());
        break;
      }
      if (image.find("llama.cpp") != std::string::npos &&
          image.find("server") != std::string::npos) {
        out.engine = "llama.cpp";
        out.program = "llama-server";
        flags_from(j + 1, llama_server_flags());
        break;
      }
      continue;
    }
    if ((word == "vllm" && i + 1 < w.size() && w[i + 1] == "serve") ||
        ends_with(word, "vllm.entrypoints.openai.api_server")) {
      out.engine = "vllm";
      out.program = word == "vllm" ? "vllm serve" : "python -m vllm.entrypoints.openai.api_server";
      flags_from(i + (word == "vllm" ? 2 : 1), vllm_flags());
      break;
    }
    if (ends_with(word, "sglang.launch_server") ||
        (word == "sglang" && i + 1 < w.size() && w[i + 1] == "serve")) {
      out.engine = "sglang";
      out.program = word == "sglang" ? "sglang serve" : "python -m sglang.launch_server";
      flags_from(i + (word == "sglang" ? 2 : 1), sglang_flags());
      break;
    }
    if (name == "trtllm-serve") {
      out.engine = "tensorrt-llm";
      out.program = "trtllm-serve";
      flags_from(i + (i + 1 < w.size() && w[i + 1] == "serve" ? 2 : 1), tensorrt_llm_flags());
      break;
    }
    if (name == "llama-server" || name == "llama-server.exe") {
      out.engine = "llama.cpp";
      out.program = "llama-server";
      flags_from(i + 1, llama_server_flags());
      break;
    }
    if (word == "ollama") {
      out.engine = "ollama";
      out.program = "ollama";
      if (i + 2 < w.size() && (w[i + 1] == "run" || w[i + 1] == "pull")) {
        out.program = "ollama " + w[i + 1];
        out.model = w[i + 2];
        i += 2;
      }
      continue;  // the Modelfile or environment lines may follow
    }
    if (word == "FROM" && i + 1 < w.size()) {  // a Modelfile
      out.engine = "ollama";
      if (out.program.empty()) out.program = "Modelfile";
      out.model = w[++i];
      continue;
    }
    if (word == "PARAMETER" && i + 2 < w.size()) {
      out.engine = "ollama";
      const FlagRow* row = row_of(ollama_settings(), w[i + 1]);
      const FlagRow unknown{"", "", E::kUnknown, V::kText,
                            "not a PARAMETER kvscope knows (Ollama refuses unknown ones)"};
      reader.setting(row == nullptr ? unknown : *row, w[i + 1], w[i + 2]);
      i += 2;
      continue;
    }
  }
  if (out.engine.empty())
    return R::failure(
        make_error(kInvalidValue, "launch",
                   "no engine command found (expected vllm serve, python -m sglang.launch_server, "
                   "trtllm-serve, llama-server, ollama run or a Modelfile)"));
  for (const auto& [variable, value] : environment) {
    const FlagRow* row = row_of(ollama_settings(), variable);
    if (out.engine == "ollama" && row != nullptr) {
      reader.setting(*row, variable, value);
    } else if (variable == "VLLM_ALLOW_LONG_MAX_MODEL_LEN" && out.engine == "vllm" &&
               value == "1") {
      reader.setting(FlagRow{"", "allow_long_context", E::kModelled, V::kSwitch}, variable, value);
    } else {
      out.flags.push_back({variable,
                           value,
                           {},
                           E::kNoMemoryEffect,
                           "an environment variable kvscope does not read",
                           {}});
    }
  }
  if (out.model.empty())
    return R::failure(
        make_error(kMissingField, "launch", "the command names no model (" + out.program + ")"));
  const auto [model, weights] = model_and_weights(out);
  out.model_id = model;
  out.plan_arguments = {"--engine", out.engine, "--model", model};
  if (!weights.empty() && reader.settings_.end() ==
                              std::find_if(reader.settings_.begin(), reader.settings_.end(),
                                           [](const auto& s) { return s.first == "weight_dtype"; }))
    out.plan_arguments.insert(out.plan_arguments.end(), {"--weight-dtype", weights});
  if (!out.engine_version.empty())
    out.plan_arguments.insert(out.plan_arguments.end(), {"--engine-version", out.engine_version});
  for (const auto& [key, words] : reader.settings_)
    out.plan_arguments.insert(out.plan_arguments.end(), words.begin(), words.end());
  if (reader.refused()) out.plan_arguments.clear();
  return R::success(std::move(out));
}

std::vector<std::string> engine_flag_spellings(std::string_view engine, std::string_view key) {
  const std::vector<FlagRow>& rows = engine == "vllm"           ? vllm_flags()
                                     : engine == "sglang"       ? sglang_flags()
                                     : engine == "tensorrt-llm" ? tensorrt_llm_flags()
                                     : engine == "llama.cpp"    ? llama_server_flags()
                                                                : ollama_settings();
  std::vector<std::string> out;
  for (const FlagRow& r : rows) {
    if (r.key != key || r.effect != E::kModelled) continue;
    for (size_t start = 0; start <= r.spellings.size();) {
      const size_t bar = std::min(r.spellings.find('|', start), r.spellings.size());
      out.emplace_back(r.spellings.substr(start, bar - start));
      start = bar + 1;
    }
    break;
  }
  return out;
}

std::string_view flag_effect_name(FlagEffect effect) {
  switch (effect) {
    case FlagEffect::kModelled:
      return "modelled";
    case FlagEffect::kNoMemoryEffect:
      return "no_memory_effect";
    case FlagEffect::kNotModelled:
      return "not_modelled";
    case FlagEffect::kUnknown:
      return "unknown";
  }
  return "unknown";
}

}  // namespace kvscope
