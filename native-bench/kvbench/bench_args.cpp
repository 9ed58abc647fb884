#include "bench_args.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <thread>

#include "kvscope/request/command_line.hpp"
#include "kvscope/base/error.hpp"

namespace kvbench {

const char* const kUsage =
    "usage: kvbench attention (--model ID | --config FILE) [--kv-dtype T] [--batch N]\n"
    "                         [--context N | --lengths DIST] [--page-size N] [--layers 1|all]\n"
    "                         [--kv-layout L] [--device cpu|cuda] [--threads N]\n"
    "                         [--cpu-kernel PATH] [--cpu-walk head|page] [--out FILE] [--json]\n"
    "  Decode attention over a paged KV cache of the model's attention layers: checked against\n"
    "  an fp64 reference, timed, and set beside the machine's measured read bandwidth and the\n"
    "  core's estimate. Prints a summary (the kvscope.measured/1 JSON with --json); --out FILE\n"
    "  writes the JSON. T: fp32 fp16 bf16 fp8 int8 (default: the model's dtype). DIST: 4096,\n"
    "  uniform:512-8192 or lognormal:mean=2000,p99=16000. PATH: portable avx2 avx512\n"
    "  avx512-bf16 (bf16) avx512-vnni (int8) (default: the widest this CPU runs for T).\n"
    "  L: hnd (default: a page [head][slot][dim], K and V in pools of their own), nhd ([slot]\n"
    "  [head][dim]), hnd-joint, nhd-joint (K and V in one page). --cpu-walk: a work unit reads\n"
    "  every KV head of a page before the next page (page, default) or one head's pages (head).\n"
    "  Units: decimal GB.\n";

namespace {

// Counts as the kvscope command line reads them (128k = 131072).
bool parse_count(const std::string& text, uint64_t& out) {
  std::string why;
  return kvscope::parse_count_text(text, out, why);
}

std::string quote_arg(const std::string& a) {
  if (!a.empty() && a.find_first_not_of(
                        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@") ==
                        std::string::npos)
    return a;
  std::string q = "'";
  for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// --flag VALUE and --flag=VALUE, each flag once.
std::optional<Usage> read_flags(const std::vector<std::string>& args, BenchArgs& out,
                                std::map<std::string, std::string>& flags) {
  static const char* const kValueFlags[] = {"--model",   "--config",  "--kv-dtype",  "--batch",
                                            "--context", "--lengths", "--page-size", "--layers",
                                            "--device",  "--threads", "--out",       "--seed",
                                            "--cpu-kernel", "--kv-layout", "--cpu-walk"};
  for (size_t i = 1; i < args.size(); ++i) {
    std::string a = args[i], value;
    if (a == "--json") {
      out.json = true;
      continue;
    }
    if (a == "--help") {
      out.help = true;
      return std::nullopt;
    }
    const size_t eq = a.find('=');
    const bool inline_value = a.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    if (std::find(std::begin(kValueFlags), std::end(kValueFlags), a) == std::end(kValueFlags))
      return Usage{a, "unknown option " + kvscope::quote_user_text(a) + " (see kvbench --help)"};
    if (!inline_value) {
      if (i + 1 >= args.size()) return Usage{a, "needs a value"};
      value = args[++i];
    }
    if (flags.count(a)) return Usage{a, "given twice"};
    flags[a] = value;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Usage> parse_bench_args(const std::vector<std::string>& args, BenchArgs& out) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    out.help = true;
    return std::nullopt;
  }
  if (args[0] != "attention")
    return Usage{"command",
                 "unknown command " + kvscope::quote_user_text(args[0]) + " (expected attention)"};
  std::map<std::string, std::string> flags;
  if (auto u = read_flags(args, out, flags)) return u;
  if (out.help) return std::nullopt;
  if (flags.count("--model") == flags.count("--config"))
    return Usage{"--model", "give exactly one of --model ID or --config FILE"};
  if (flags.count("--model")) out.model_id = flags["--model"];
  if (flags.count("--config")) out.config_path = flags["--config"];
  if (flags.count("--kv-dtype")) out.kv_dtype = flags["--kv-dtype"];
  out.threads = std::max(1u, std::thread::hardware_concurrency());
  for (const auto& [flag, target] : {std::pair<const char*, uint64_t*>{"--batch", &out.batch},
                                     {"--page-size", &out.page_size},
                                     {"--threads", &out.threads},
                                     {"--seed", &out.seed}}) {
    if (!flags.count(flag)) continue;
    if (!parse_count(flags[flag], *target) || *target == 0)
      return Usage{flag,
                   "expected a whole number >= 1, got " + kvscope::quote_user_text(flags[flag])};
  }
  if (out.batch > 4096) return Usage{"--batch", "at most 4096 sequences"};
  if (out.page_size > 4096) return Usage{"--page-size", "at most 4096 tokens"};
  if (out.threads > 1024) return Usage{"--threads", "at most 1024"};
  if (flags.count("--context") && flags.count("--lengths"))
    return Usage{"--context", "give --context or --lengths, not both"};
  if (flags.count("--context") && (!parse_count(flags["--context"], out.context) ||
                                   out.context == 0 || out.context > (1u << 24))) {
    return Usage{"--context", "expected a whole number of tokens from 1 to 16M, got " +
                                  kvscope::quote_user_text(flags["--context"])};
  }
  if (flags.count("--lengths")) out.lengths = flags["--lengths"];
  if (flags.count("--device")) out.device = flags["--device"];
  if (out.device != "cpu" && out.device != "cuda")
    return Usage{"--device", "expected cpu or cuda, got " + kvscope::quote_user_text(out.device)};
  const std::string layers = flags.count("--layers") ? flags["--layers"] : "1";
  if (layers != "1" && layers != "all") return Usage{"--layers", "expected 1 or all"};
  out.all_layers = layers == "all";
  if (flags.count("--out")) out.out_path = flags["--out"];
  if (flags.count("--cpu-kernel")) {
    out.cpu_kernel = parse_cpu_kernel(flags["--cpu-kernel"]);
    if (!out.cpu_kernel)
      return Usage{"--cpu-kernel",
                   "expected portable, avx2, avx512, avx512-bf16 or avx512-vnni, got " +
                                       kvscope::quote_user_text(flags["--cpu-kernel"])};
    if (out.device != "cpu") return Usage{"--cpu-kernel", "applies to --device cpu only"};
  }
  if (flags.count("--kv-layout") && !parse_kv_layout(flags["--kv-layout"], out.kv_layout)) {
    return Usage{"--kv-layout", "expected hnd, nhd, hnd-joint or nhd-joint, got " +
                                    kvscope::quote_user_text(flags["--kv-layout"])};
  }
  if (out.device != "cpu" && out.kv_layout != KvLayout::kHnd)
    return Usage{"--kv-layout", "the CUDA kernel reads hnd pages only"};
  if (flags.count("--cpu-walk")) {
    if (!parse_cpu_walk(flags["--cpu-walk"], out.cpu_walk))
      return Usage{"--cpu-walk",
                   "expected head or page, got " + kvscope::quote_user_text(flags["--cpu-walk"])};
    if (out.device != "cpu") return Usage{"--cpu-walk", "applies to --device cpu only"};
  }
  return std::nullopt;
}

std::string command_line(const std::vector<std::string>& args) {
  std::string command = "kvbench";
  for (const std::string& a : args) command += " " + quote_arg(a);
  return command;
}

}  // namespace kvbench
