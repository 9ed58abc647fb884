// Argument parsing of `kvscope`: flags into the core's inputs, errors named by their flag, and the
// JSON or text report out (text_report.cpp lays the text out). All numbers come from the core.
#include "kvscope_cli.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "kvscope/catalog.hpp"
#include "kvscope/dtype.hpp"
#include "kvscope/estimate.hpp"
#include "kvscope/report_json.hpp"
#include "kvscope/sweeps.hpp"
#include "kvscope/units.hpp"
#include "text_report.hpp"

namespace kvscope::cli {
namespace {

constexpr uint64_t kMaxConfigBytes = 16u << 20;

const char* const kUsage =
    "usage: kvscope <command> [options]\n"
    "\n"
    "commands:\n"
    "  estimate (--model ID | --config FILE) [--kv-dtype T] [--context N] [--batch N]\n"
    "           [--block-size N] [--shared-prefix N] [--state-dtype T] [--ssm-state-dtype T]\n"
    "           [--prompt-tokens P --output-tokens G] [--json]\n"
    "      KV-cache bytes per token, per sequence and for the batch, per layer group.\n"
    "      --context defaults to the model's max_position_embeddings; N accepts 128k = 131072.\n"
    "      --kv-dtype defaults to auto (the model's dtype); see `kvscope dtypes`.\n"
    "  plan (--model ID | --config FILE) (--gpu ID | --gpu-memory SIZE | --kv-memory SIZE)\n"
    "       [--gpu-bandwidth RATE] [--gpu-tflops F]\n"
    "       [--gpus N] [--tp N] [--pp N] [--engine plain|vllm|sglang|tensorrt-llm|llama.cpp] "
    "[--gpu-memory-utilization F] "
    "[--max-model-len N] [--block-size "
    "N]\n"
    "       [--max-num-batched-tokens N] [--disable-hybrid-kv-cache-manager]\n"
    "       [--mem-fraction-static F] [--free-gpu-memory-fraction F] [--parallel N] [--ubatch N]\n"
    "       [--no-kv-unified] [--kv-dtype T] [--v-dtype T] [--prompt-lengths DIST --output-lengths "
    "DIST]\n"
    "       [--shared-prefix N] [--prompt-tokens N]\n"
    "       [--weight-dtype T] [--weights-bytes SIZE] [--activation-bytes SIZE] [--non-torch-bytes "
    "SIZE]\n"
    "       [--cudagraph-bytes SIZE] [--overhead SIZE] [--context N] [--batch N] [--set "
    "FIELD=VALUE ...] [--json]\n"
    "       [--weights-index FILE] [--quantization-config FILE] [--allow-long-context]\n"
    "       [--state-dtype T] [--ssm-state-dtype T] [--speculative-config JSON]\n"
    "       [--mamba-cache-mode none|align|all]\n"
    "       SGLang: [--mamba-full-memory-ratio F] [--max-mamba-cache-size N]\n"
    "               [--max-running-requests N] [--disable-radix-cache]\n"
    "               [--swa-full-tokens-ratio F] [--disable-hybrid-swa-memory]\n"
    "       llama.cpp: [--n-gpu-layers N] [--tensor-split A,B,...] [--swa-full] [--no-kv-offload]\n"
    "                  [--mla-v-cache] [--legacy-mla-gguf] [--output-layer-last]\n"
    "      The engine's KV budget on a card, tokens and sequences it holds, and whether it "
    "starts.\n"
    "      --weights-index: the checkpoint's model.safetensors.index.json (its total_size is "
    "exact);\n"
    "      --quantization-config: an hf_quant_config.json or quantize_config.json beside "
    "config.json;\n"
    "      --allow-long-context: as VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (SGLang: "
    "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1).\n"
    "      SIZE accepts units: 24GB, 80GiB, 13.5GB (GB = 10^9, GiB = 2^30).\n"
    "      RATE is a size per second (1TB/s); --gpu-tflops is the dense peak, for a custom card.\n"
    "      DIST: 4096, uniform:512-8192 or lognormal:mean=2000,p99=16000.\n"
    "  sweep <plan options> [--points N] [--min-context N] [--max-context N] [--max-batch N]\n"
    "      Chart data: KV bytes vs context per dtype, sequences the pool holds vs context,\n"
    "      decode step time and tokens/s vs batch, memory per GPU.\n"
    "  models [--json]   the model catalogue (ids for --model)\n"
    "  gpus [--json]     the GPU catalogue\n"
    "  dtypes [--json]   KV-cache and weight dtypes with their exact storage cost\n"
    "\n"
    "Exit status: 0 success, 2 bad input (one line on stderr naming the field).\n";

struct UsageError {
  std::string field;
  std::string message;
};

// Parsed `--flag value` / `--flag=value` pairs and bare switches.
struct Flags {
  std::map<std::string, std::string> values;
  std::vector<std::string> sets;  // repeated --set FIELD=VALUE
  std::vector<std::string> switches;
  bool json = false;
  bool help = false;

  bool has(const std::string& flag) const {
    return values.count(flag) != 0 ||
           std::find(switches.begin(), switches.end(), flag) != switches.end();
  }
};

std::optional<UsageError> parse_flags(const std::vector<std::string>& args, size_t first,
                                      const std::vector<std::string>& value_flags, Flags& flags,
                                      const std::vector<std::string>& switch_flags = {}) {
  for (size_t i = first; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg == "--json") {
      flags.json = true;
      continue;
    }
    if (std::find(switch_flags.begin(), switch_flags.end(), arg) != switch_flags.end()) {
      flags.switches.push_back(arg);
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      flags.help = true;
      continue;
    }
    std::string value;
    bool has_value = false;
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    bool known = false;
    for (const std::string& f : value_flags) known = known || f == arg;
    if (!known)
      return UsageError{arg, "unknown option " + quote_user_text(arg) + " (see kvscope --help)"};
    if (!has_value) {
      if (i + 1 >= args.size()) return UsageError{arg, "needs a value"};
      value = args[++i];
    }
    if (arg == "--set") {
      flags.sets.push_back(value);
      continue;
    }
    if (flags.values.count(arg) != 0) return UsageError{arg, "given twice"};
    flags.values[arg] = value;
  }
  return std::nullopt;
}

// A whole number, optionally with a k/K (x1024) or m/M (x1024^2) suffix as context lengths are
// written ("128k" = 131072 tokens).
std::optional<UsageError> parse_count(const Flags& flags, const std::string& flag, uint64_t& out) {
  const auto it = flags.values.find(flag);
  if (it == flags.values.end()) return std::nullopt;
  std::string text = it->second;
  uint64_t multiplier = 1;
  if (!text.empty() && (text.back() == 'k' || text.back() == 'K')) multiplier = 1024;
  if (!text.empty() && (text.back() == 'm' || text.back() == 'M')) multiplier = 1024 * 1024;
  if (multiplier != 1) text.pop_back();
  const UsageError bad{
      flag, "expected a whole number >= 0 (e.g. 4096 or 128k), got " + quote_user_text(it->second)};
  if (text.empty() || text.size() > 20) return bad;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return bad;
    if (__builtin_mul_overflow(value, uint64_t{10}, &value) ||
        __builtin_add_overflow(value, static_cast<uint64_t>(c - '0'), &value)) {
      return UsageError{flag, "value " + quote_user_text(it->second) + " exceeds 2^64-1"};
    }
  }
  if (__builtin_mul_overflow(value, multiplier, &value)) {
    return UsageError{flag, "value " + quote_user_text(it->second) + " exceeds 2^64-1"};
  }
  out = value;
  return std::nullopt;
}

struct CountFlag {
  const char* flag;
  uint64_t* target;
  bool positive;  // 0 means "default" inside the core; on the command line it is a mistake
};

std::optional<UsageError> parse_counts(const Flags& flags, std::initializer_list<CountFlag> table) {
  for (const CountFlag& c : table) {
    if (auto u = parse_count(flags, c.flag, *c.target)) return u;
    if (c.positive && flags.has(c.flag) && *c.target == 0)
      return UsageError{c.flag, "must be at least 1"};
  }
  return std::nullopt;
}

// A file named by `flag` (when given), read whole: at most 16 MiB, not empty.
std::optional<UsageError> read_side_file(const Flags& flags, const std::string& flag,
                                         const FileReader& read_file, std::string& content) {
  const auto path = flags.values.find(flag);
  if (path == flags.values.end()) return std::nullopt;
  std::string reason;
  if (!read_file(path->second, content, reason))
    return UsageError{flag, reason + ": " + quote_user_text(path->second)};
  if (content.empty()) return UsageError{flag, "file is empty: " + quote_user_text(path->second)};
  if (content.size() > kMaxConfigBytes) {
    return UsageError{flag, "file is larger than 16 MiB: " + quote_user_text(path->second)};
  }
  return std::nullopt;
}

// --model ID or --config FILE (exactly one) into the input.
std::optional<UsageError> read_model_source(const Flags& flags, const FileReader& read_file,
                                            EstimateInput& in) {
  const auto model = flags.values.find("--model");
  const auto config = flags.values.find("--config");
  if ((model == flags.values.end()) == (config == flags.values.end())) {
    return UsageError{"--model", "give exactly one of --model ID or --config FILE"};
  }
  if (model != flags.values.end()) {
    in.model_id = model->second;
    return std::nullopt;
  }
  in.config_name = config->second;
  return read_side_file(flags, "--config", read_file, in.config_json);
}

// A byte size with an optional unit: 24GB, 80GiB, 13.5GB, 1048576 (GB = 10^9, GiB = 2^30).
std::optional<UsageError> parse_size(const Flags& flags, const std::string& flag, uint64_t& out) {
  const auto it = flags.values.find(flag);
  if (it == flags.values.end()) return std::nullopt;
  static const std::pair<const char*, double> kUnits[] = {
      {"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0},
      {"kb", 1e3},     {"mb", 1e6},        {"gb", 1e9},           {"tb", 1e12},
      {"b", 1.0}};
  std::string text;
  for (char c : it->second) text += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double multiplier = 1;
  for (const auto& [unit, factor] : kUnits) {
    const size_t n = std::strlen(unit);
    if (text.size() > n && text.compare(text.size() - n, n, unit) == 0) {
      text.resize(text.size() - n);
      multiplier = factor;
      break;
    }
  }
  const UsageError bad{
      flag, "expected a size such as 24GB, 80GiB or 13.5GB, got " + quote_user_text(it->second)};
  if (text.empty() || text.find_first_not_of("0123456789.") != std::string::npos) return bad;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end) * multiplier;
  if (end != text.c_str() + text.size() || !std::isfinite(value)) return bad;
  if (value < 1 || value > 9.2e18)
    return UsageError{
        flag, "must be between 1 byte and 9.2e18 bytes, got " + quote_user_text(it->second)};
  out = static_cast<uint64_t>(std::llround(value));
  return std::nullopt;
}

// A plain decimal number; the core checks its range (e.g. gpu_memory_utilization in (0, 1]).
std::optional<UsageError> parse_number(const Flags& flags, const std::string& flag, double& out) {
  const auto it = flags.values.find(flag);
  if (it == flags.values.end()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || end != it->second.c_str() + it->second.size() ||
      !std::isfinite(value)) {
    return UsageError{flag, "expected a number such as 0.9, got " + quote_user_text(it->second)};
  }
  out = value;
  return std::nullopt;
}

// --tensor-split: comma-separated proportions, "3,1" or "0.6,0.4" (llama.cpp -ts).
std::optional<UsageError> parse_split(const Flags& flags, std::vector<double>& out) {
  const auto it = flags.values.find("--tensor-split");
  if (it == flags.values.end()) return std::nullopt;
  const std::string& text = it->second;
  for (size_t start = 0; start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string part = text.substr(start, comma - start);
    char* end = nullptr;
    const double value = std::strtod(part.c_str(), &end);
    if (part.empty() || end != part.c_str() + part.size() || !std::isfinite(value) || value < 0 ||
        out.size() >= 64) {
      return UsageError{"--tensor-split", "expected proportions such as 3,1 (at most 64), got " +
                                              quote_user_text(text)};
    }
    out.push_back(value);
    start = comma + 1;
  }
  return std::nullopt;
}

// --gpu-bandwidth: a size per second, "3.35TB/s" or "3350GB" (the "/s" is optional).
std::optional<UsageError> parse_bandwidth(const Flags& flags, double& out) {
  const auto it = flags.values.find("--gpu-bandwidth");
  if (it == flags.values.end()) return std::nullopt;
  Flags per_second;
  std::string text = it->second;
  if (text.size() > 2 && text.compare(text.size() - 2, 2, "/s") == 0) text.resize(text.size() - 2);
  per_second.values["--gpu-bandwidth"] = text;
  uint64_t bytes = 0;
  if (auto u = parse_size(per_second, "--gpu-bandwidth", bytes)) {
    u->message = "expected a rate such as 1TB/s or 936GB/s, got " + quote_user_text(it->second);
    return u;
  }
  out = static_cast<double>(bytes);
  return std::nullopt;
}

int fail(std::ostream& out, std::ostream& err, bool json, const Error& e) {
  err << "kvscope: error: " << e.message << "\n";
  if (json) out << error_to_json(e) << "\n";
  return 2;
}

// Core errors name inputs by their API names; on the command line they name the flag, and a
// config.json field also names the file it came from.
Error as_cli_error(Error e, const EstimateInput& in) {
  if (e.field.rfind("layers[", 0) == 0) return e;
  static const std::pair<const char*, const char*> kFlags[] = {
      {"model", "--model"},
      {"context", "--context"},
      {"batch", "--batch"},
      {"block_size", "--block-size"},
      {"kv_dtype", "--kv-dtype"},
      {"state_dtype", "--state-dtype"},
      {"ssm_state_dtype", "--ssm-state-dtype"},
      {"mamba_cache_mode", "--mamba-cache-mode"},
      {"tensor_split", "--tensor-split"},
      {"shared_prefix", "--shared-prefix"},
      {"prompt_tokens", "--prompt-tokens"},
      {"output_tokens", "--output-tokens"},
      {"engine", "--engine"},
      {"gpu", "--gpu"},
      {"gpu_memory_utilization", "--gpu-memory-utilization"},
      {"gpu_bandwidth", "--gpu-bandwidth"},
      {"gpu_flops", "--gpu-tflops"},
      {"max_model_len", "--max-model-len"},
      {"weight_dtype", "--weight-dtype"},
      {"set", "--set"},
      {"tp", "--tp"},
      {"pp", "--pp"},
      {"gpus", "--gpus"},
      {"mem_fraction_static", "--mem-fraction-static"},
      {"mamba_full_memory_ratio", "--mamba-full-memory-ratio"},
      {"swa_full_tokens_ratio", "--swa-full-tokens-ratio"},
      {"max_mamba_cache_size", "--max-mamba-cache-size"},
      {"free_gpu_memory_fraction", "--free-gpu-memory-fraction"},
      {"parallel", "--parallel"},
      {"v_dtype", "--v-dtype"},
      {"prompt_lengths", "--prompt-lengths"},
      {"output_lengths", "--output-lengths"}};
  for (const auto& [field, flag] : kFlags) {
    if (e.field != field) continue;
    e.message = flag + e.message.substr(e.field.size());
    e.field = flag;
    return e;
  }
  if (!in.config_name.empty()) e.message += " (in " + quote_user_text(in.config_name) + ")";
  return e;
}

int fail_usage(std::ostream& out, std::ostream& err, bool json, const UsageError& u) {
  return fail(out, err, json, make_error(kInvalidValue, u.field, u.message));
}

int run_estimate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                 const FileReader& read_file) {
  Flags flags;
  const std::vector<std::string> value_flags = {
      "--model",           "--config",        "--kv-dtype",     "--state-dtype",
      "--ssm-state-dtype", "--context",       "--batch",        "--block-size",
      "--shared-prefix",   "--prompt-tokens", "--output-tokens"};
  const bool json = std::find(args.begin(), args.end(), "--json") != args.end();
  if (auto u = parse_flags(args, 1, value_flags, flags)) return fail_usage(out, err, json, *u);
  if (flags.help) {
    out << kUsage;
    return 0;
  }
  EstimateInput in;
  if (auto u = read_model_source(flags, read_file, in)) return fail_usage(out, err, json, *u);
  if (flags.values.count("--kv-dtype")) in.kv_dtype = flags.values["--kv-dtype"];
  if (flags.values.count("--state-dtype")) in.state_dtype = flags.values["--state-dtype"];
  if (flags.values.count("--ssm-state-dtype"))
    in.ssm_state_dtype = flags.values["--ssm-state-dtype"];
  in.batch = 1;
  if (auto u = parse_counts(flags, {{"--context", &in.context_tokens, true},
                                    {"--batch", &in.batch, true},
                                    {"--block-size", &in.block_size_tokens, true},
                                    {"--shared-prefix", &in.shared_prefix_tokens, false},
                                    {"--prompt-tokens", &in.prompt_tokens, false},
                                    {"--output-tokens", &in.output_tokens, false}})) {
    return fail_usage(out, err, json, *u);
  }
  if (flags.values.count("--output-tokens") != 0 && flags.values.count("--prompt-tokens") == 0) {
    return fail_usage(out, err, json, {"--prompt-tokens", "required with --output-tokens"});
  }
  if (flags.values.count("--prompt-tokens") != 0 && flags.values.count("--output-tokens") == 0) {
    return fail_usage(out, err, json, {"--output-tokens", "required with --prompt-tokens"});
  }
  const Result<EstimateReport> report = estimate(in);
  if (!report.ok) return fail(out, err, json, as_cli_error(report.error, in));
  if (json) {
    out << report_to_json(report.value) << "\n";
  } else {
    print_report(report.value, out);
  }
  return 0;
}

// `plan` and `sweep` share their inputs; `sweep` adds the range flags.
int run_plan(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
             const FileReader& read_file, bool sweep_mode) {
  Flags flags;
  std::vector<std::string> value_flags = {"--model",
                                          "--config",
                                          "--gpu",
                                          "--gpu-memory",
                                          "--gpu-bandwidth",
                                          "--gpu-tflops",
                                          "--kv-memory",
                                          "--gpus",
                                          "--tp",
                                          "--pp",
                                          "--engine",
                                          "--gpu-memory-utilization",
                                          "--max-model-len",
                                          "--block-size",
                                          "--max-num-batched-tokens",
                                          "--mem-fraction-static",
                                          "--free-gpu-memory-fraction",
                                          "--context",
                                          "--parallel",
                                          "--ubatch",
                                          "--kv-dtype",
                                          "--weight-dtype",
                                          "--weights-bytes",
                                          "--activation-bytes",
                                          "--non-torch-bytes",
                                          "--cudagraph-bytes",
                                          "--overhead",
                                          "--batch",
                                          "--set",
                                          "--v-dtype",
                                          "--prompt-lengths",
                                          "--output-lengths",
                                          "--shared-prefix",
                                          "--prompt-tokens",
                                          "--weights-index",
                                          "--quantization-config",
                                          "--state-dtype",
                                          "--ssm-state-dtype",
                                          "--n-gpu-layers",
                                          "--tensor-split",
                                          "--speculative-config",
                                          "--mamba-cache-mode",
                                          "--mamba-full-memory-ratio",
                                          "--max-mamba-cache-size",
                                          "--max-running-requests",
                                          "--swa-full-tokens-ratio"};
  if (sweep_mode)
    value_flags.insert(value_flags.end(),
                       {"--points", "--min-context", "--max-context", "--max-batch"});
  const bool json = std::find(args.begin(), args.end(), "--json") != args.end();
  if (auto u = parse_flags(
          args, 1, value_flags, flags,
          {"--disable-hybrid-kv-cache-manager", "--no-kv-unified", "--allow-long-context",
           "--swa-full", "--no-kv-offload", "--mla-v-cache", "--legacy-mla-gguf",
           "--output-layer-last", "--disable-radix-cache", "--disable-hybrid-swa-memory"})) {
    return fail_usage(out, err, json, *u);
  }
  if (flags.help) {
    out << kUsage;
    return 0;
  }
  PlanInput in;
  if (auto u = read_model_source(flags, read_file, in.model)) return fail_usage(out, err, json, *u);
  if (flags.has("--kv-dtype")) in.model.kv_dtype = flags.values["--kv-dtype"];
  if (flags.has("--state-dtype")) in.model.state_dtype = flags.values["--state-dtype"];
  if (flags.has("--ssm-state-dtype")) in.model.ssm_state_dtype = flags.values["--ssm-state-dtype"];
  if (flags.has("--weight-dtype")) in.weight_dtype = flags.values["--weight-dtype"];
  if (flags.has("--engine")) in.engine = flags.values["--engine"];
  if (flags.has("--gpu")) in.gpu_id = flags.values["--gpu"];
  in.vllm.disable_hybrid_kv_cache_manager = flags.has("--disable-hybrid-kv-cache-manager");
  in.allow_long_context = flags.has("--allow-long-context");
  if (flags.has("--speculative-config"))
    in.speculative_config = flags.values["--speculative-config"];
  if (flags.has("--mamba-cache-mode"))
    in.vllm.mamba_cache_mode = flags.values["--mamba-cache-mode"];
  if (auto u = read_side_file(flags, "--weights-index", read_file, in.weights_index_json)) {
    return fail_usage(out, err, json, *u);
  }
  std::string quantization;  // hf_quant_config.json or quantize_config.json beside config.json
  if (auto u = read_side_file(flags, "--quantization-config", read_file, quantization)) {
    return fail_usage(out, err, json, *u);
  }
  if (!quantization.empty()) in.overrides.emplace_back("quantization_config", quantization);
  uint64_t gpus = 1, tp = 1, pp = 1, parallel = 1, ubatch = 512;
  if (auto u = parse_counts(flags,
                            {{"--max-model-len", &in.max_model_len, true},
                             {"--block-size", &in.block_size_tokens, true},
                             {"--max-num-batched-tokens", &in.vllm.max_num_batched_tokens, true},
                             {"--context", &in.model.context_tokens, true},
                             {"--batch", &in.model.batch, true},
                             {"--shared-prefix", &in.model.shared_prefix_tokens, false},
                             {"--prompt-tokens", &in.model.prompt_tokens, true},
                             {"--gpus", &gpus, true},
                             {"--tp", &tp, true},
                             {"--pp", &pp, true},
                             {"--parallel", &parallel, true},
                             {"--ubatch", &ubatch, true},
                             {"--n-gpu-layers", &in.llama_cpp.n_gpu_layers, false},
                             {"--max-mamba-cache-size", &in.sglang.max_mamba_cache_size, true},
                             {"--max-running-requests", &in.sglang.max_running_requests, true}})) {
    return fail_usage(out, err, json, *u);
  }
  const std::pair<const char*, uint64_t*> sizes[] = {
      {"--gpu-memory", &in.gpu_memory_bytes},
      {"--kv-memory", &in.kv_memory_bytes},
      {"--weights-bytes", &in.weights_bytes},
      {"--activation-bytes", &in.vllm.activation_bytes},
      {"--non-torch-bytes", &in.vllm.non_torch_bytes},
      {"--cudagraph-bytes", &in.vllm.cudagraph_bytes},
      {"--overhead", &in.overhead_bytes}};
  for (const auto& [flag, target] : sizes) {
    if (auto u = parse_size(flags, flag, *target)) return fail_usage(out, err, json, *u);
  }
  if (auto u = parse_number(flags, "--gpu-memory-utilization", in.vllm.gpu_memory_utilization)) {
    return fail_usage(out, err, json, *u);
  }
  if (auto u = parse_bandwidth(flags, in.gpu_bandwidth_bytes_per_s)) {
    return fail_usage(out, err, json, *u);
  }
  double tflops = 0;
  if (auto u = parse_number(flags, "--gpu-tflops", tflops)) return fail_usage(out, err, json, *u);
  in.gpu_dense_flops = tflops * 1e12;
  for (const auto& [flag, count] : {std::pair<const char*, uint64_t>{"--tp", tp}, {"--pp", pp}}) {
    if (count > 65536) return fail_usage(out, err, json, {flag, "must be at most 65536"});
  }
  in.tensor_parallel = static_cast<uint32_t>(tp);
  in.pipeline_parallel = static_cast<uint32_t>(pp);
  in.gpus = flags.has("--gpus") ? gpus : 0;
  in.llama_cpp.parallel = parallel;
  in.llama_cpp.ubatch = ubatch;
  in.llama_cpp.kv_unified = !flags.has("--no-kv-unified");
  in.llama_cpp.swa_full = flags.has("--swa-full");
  in.llama_cpp.kv_offload = !flags.has("--no-kv-offload");
  in.llama_cpp.mla_v_cache = flags.has("--mla-v-cache");
  in.llama_cpp.legacy_mla_gguf = flags.has("--legacy-mla-gguf");
  in.llama_cpp.output_layer_last = flags.has("--output-layer-last");
  in.sglang.disable_radix_cache = flags.has("--disable-radix-cache");
  in.sglang.disable_hybrid_swa_memory = flags.has("--disable-hybrid-swa-memory");
  if (auto u = parse_split(flags, in.llama_cpp.tensor_split)) return fail_usage(out, err, json, *u);
  if (flags.has("--v-dtype")) in.llama_cpp.v_dtype = flags.values["--v-dtype"];
  if (flags.has("--prompt-lengths")) in.prompt_lengths = flags.values["--prompt-lengths"];
  if (flags.has("--output-lengths")) in.output_lengths = flags.values["--output-lengths"];
  if (auto u = parse_number(flags, "--mem-fraction-static", in.sglang.mem_fraction_static)) {
    return fail_usage(out, err, json, *u);
  }
  if (auto u = parse_number(flags, "--free-gpu-memory-fraction",
                            in.tensorrt_llm.free_gpu_memory_fraction)) {
    return fail_usage(out, err, json, *u);
  }
  if (auto u =
          parse_number(flags, "--mamba-full-memory-ratio", in.sglang.mamba_full_memory_ratio)) {
    return fail_usage(out, err, json, *u);
  }
  if (auto u = parse_number(flags, "--swa-full-tokens-ratio", in.sglang.swa_full_tokens_ratio)) {
    return fail_usage(out, err, json, *u);
  }
  for (const std::string& set : flags.sets) {
    const size_t eq = set.find('=');
    if (eq == std::string::npos || eq == 0) {
      return fail_usage(out, err, json,
                        {"--set", "expected FIELD=VALUE, got " + quote_user_text(set)});
    }
    in.overrides.emplace_back(set.substr(0, eq), set.substr(eq + 1));
  }
  if (sweep_mode) {
    SweepRange range;
    uint64_t points = range.points;
    if (auto u = parse_counts(flags, {{"--points", &points, true},
                                      {"--min-context", &range.min_context, true},
                                      {"--max-context", &range.max_context, true},
                                      {"--max-batch", &range.max_batch, true}})) {
      return fail_usage(out, err, json, *u);
    }
    if (points > 100000) return fail_usage(out, err, json, {"--points", "must be at most 100000"});
    range.points = static_cast<uint32_t>(points);
    const Result<Sweeps> sweeps = sweep(in, range);
    if (!sweeps.ok) return fail(out, err, json, as_cli_error(sweeps.error, in.model));
    if (json) {
      out << sweeps_to_json(sweeps.value) << "\n";
    } else {
      print_sweeps(sweeps.value, out);
    }
    return 0;
  }
  const Result<PlanReport> report = plan(in);
  if (!report.ok) return fail(out, err, json, as_cli_error(report.error, in.model));
  if (json) {
    out << plan_to_json(report.value) << "\n";
  } else {
    print_plan(report.value, out);
  }
  return 0;
}

int run_list(const std::string& command, const std::vector<std::string>& args, std::ostream& out,
             std::ostream& err) {
  Flags flags;
  const bool json = std::find(args.begin(), args.end(), "--json") != args.end();
  if (auto u = parse_flags(args, 1, {}, flags)) return fail_usage(out, err, json, *u);
  if (json) {
    out << (command == "models" ? model_catalog_to_json()
            : command == "gpus" ? gpu_catalog_to_json()
                                : dtype_catalog_to_json())
        << "\n";
  } else {
    print_catalogue(command, out);
  }
  return 0;
}

}  // namespace

bool read_file_from_disk(const std::string& path, std::string& content, std::string& error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error = "is a directory";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open file";
    return false;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    error = "cannot read file";
    return false;
  }
  content = buffer.str();
  return true;
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
        const FileReader& read_file) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    out << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    out << "kvscope " << kVersion << "\n";
    return 0;
  }
  if (args[0] == "estimate") return run_estimate(args, out, err, read_file);
  if (args[0] == "plan") return run_plan(args, out, err, read_file, false);
  if (args[0] == "sweep") return run_plan(args, out, err, read_file, true);
  if (args[0] == "models" || args[0] == "gpus" || args[0] == "dtypes")
    return run_list(args[0], args, out, err);
  err << "kvscope: error: command: unknown command " << quote_user_text(args[0])
      << " (expected estimate, plan, sweep, models, gpus or dtypes)\n";
  return 2;
}

}  // namespace kvscope::cli
