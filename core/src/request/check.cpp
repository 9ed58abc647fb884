// check_launch: the launch read (launch_command.cpp), planned as `kvscope plan` with the same
// flags, and a refused launch re-planned with one change at a time (the engine's own flag
// edited in the user's command) to find the changes that make it start.
#include "kvscope/request/check.hpp"

#include <algorithm>
#include <cstdio>

#include "kvscope/base/units.hpp"
#include "kvscope/model/catalog.hpp"
#include "kvscope/request/command_line.hpp"
#include "kvscope/request/request.hpp"

namespace kvscope {
namespace {

// Shell words as lines (a ";" word ends one: a script's or a Modelfile's line).
std::string command_text(const std::vector<std::string>& words) {
  std::string text;
  std::vector<std::string> line;
  for (size_t i = 0; i <= words.size(); ++i) {
    if (i < words.size() && words[i] != ";") {
      line.push_back(words[i]);
      continue;
    }
    if (!line.empty()) text += (text.empty() ? "" : "\n") + shell_command(line);
    line.clear();
  }
  return text;
}

// The command's words with a flag set to `value`: its last occurrence under any of its
// `spellings` replaced (`--flag value`, `--flag=value`, `VAR=value`, `PARAMETER name value`), else
// the first spelling added: after the engine's arguments, or for Ollama as a variable in front.
// Returns the spelling it set.
std::string set_flag(std::vector<std::string>& w, const std::string& engine,
                     const std::vector<std::string>& spellings, const std::string& value) {
  for (size_t i = w.size(); i-- > 0;) {
    for (const std::string& f : spellings) {
      if (w[i].rfind(f + "=", 0) == 0) {
        w[i] = f + "=" + value;
        return f;
      }
      if (w[i] == f && i + 1 < w.size()) {
        w[i + 1] = value;
        return f;
      }
    }
  }
  if (engine == "ollama") {
    w.insert(w.begin(), spellings[0] + "=" + value);
    return spellings[0];
  }
  const auto at = w.insert(std::find(w.begin(), w.end(), std::string(";")), spellings[0]);
  w.insert(at + 1, value);
  return spellings[0];
}

// `base` (the caller's flags) with the launch's where base does not set the same flag.
std::vector<std::string> merged_arguments(const std::vector<std::string>& base,
                                          const std::vector<std::string>& launch, bool base_model) {
  std::vector<std::string> out = base;
  for (size_t i = 0; i < launch.size(); ++i) {
    const std::string& flag = launch[i];
    const bool has_value = i + 1 < launch.size() && launch[i + 1].rfind("--", 0) != 0;
    const bool overridden = std::find(base.begin(), base.end(), flag) != base.end() ||
                            (base_model && flag == "--model");
    if (!overridden) {
      out.push_back(flag);
      if (has_value) out.push_back(launch[i + 1]);
    }
    if (has_value) ++i;
  }
  return out;
}

// The base arguments with one flag set (replaced where given).
std::vector<std::string> with_flag(std::vector<std::string> args, const std::string& flag,
                                   const std::string& value) {
  const auto at = std::find(args.begin(), args.end(), flag);
  if (at != args.end() && at + 1 != args.end()) {
    *(at + 1) = value;
  } else {
    args.push_back(flag);
    args.push_back(value);
  }
  return args;
}

std::string flag_value(const std::vector<std::string>& args, const std::string& flag) {
  const auto at = std::find(args.begin(), args.end(), flag);
  return at != args.end() && at + 1 != args.end() ? *(at + 1) : std::string();
}

std::string two_decimals(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

class Checker {
 public:
  Checker(const CheckInput& in, CheckReport& out) : in_(in), out_(out) {}

  // The `kvscope plan` arguments read as the CLI reads them (base's --config served by name).
  Result<PlanInput> plan_input_of(const std::vector<std::string>& args) const {
    std::vector<std::string> argv{"plan"};
    argv.insert(argv.end(), args.begin(), args.end());
    const FileReader reader = [this](const std::string& path, std::string& content,
                                     std::string& error) {
      if (path != in_.config_name) {
        error = "not given";
        return false;
      }
      content = in_.config_text;
      return true;
    };
    const Result<CommandLine> line = parse_command_line(argv, reader);
    if (!line.ok) return Result<PlanInput>::failure(line.error);
    return Result<PlanInput>::success(line.value.request.input);
  }

  Result<PlanReport> plan_of(const std::vector<std::string>& args) const {
    const Result<PlanInput> input = plan_input_of(args);
    if (!input.ok) return Result<PlanReport>::failure(input.error);
    return plan(input.value);
  }

  // One change of a fix: a request key, its `kvscope plan` flag and value, and why.
  struct Change {
    std::string key, plan_flag, value, why;
  };

  // Tries changes made together; keeps them as a fix when the launch then starts.
  bool try_fix(const std::vector<Change>& changes) {
    const std::string& engine = out_.launch.engine;
    std::vector<std::string> args = out_.plan_arguments, words = out_.launch.words;
    std::string change, why;
    for (const Change& c : changes) {
      const std::vector<std::string> spellings = engine_flag_spellings(engine, c.key);
      if (spellings.empty()) return false;
      args = with_flag(std::move(args), c.plan_flag, c.value);
      const std::string flag = set_flag(words, engine, spellings, c.value);
      change += (change.empty() ? "" : " ") + flag + (engine == "ollama" ? "=" : " ") + c.value;
      why += (why.empty() ? "" : "; ") + c.why;
    }
    const Result<PlanReport> p = plan_of(args);
    if (!p.ok || !p.value.starts) return false;
    for (const CheckFix& f : out_.fixes)
      if (f.change == change) return true;
    out_.fixes.push_back({change, why, command_text(words), p.value.target.present,
                          p.value.target.sequences_that_fit, p.value.max_model_len});
    return true;
  }

  void fixes() {
    const PlanReport& p = out_.plan;
    const std::string& engine = out_.launch.engine;
    const bool ollama = engine == "ollama";
    const std::string len_key = ollama ? "ollama.num_ctx" : "max_model_len";
    const std::string len_flag = ollama ? "--num-ctx" : "--max-model-len";
    // The levers a deployment has besides the context: the engine's memory share, an 8-bit KV
    // cache, twice the tensor parallelism.
    std::vector<Change> levers;
    if (engine == "vllm")
      levers.push_back({"vllm.gpu_memory_utilization", "--gpu-memory-utilization", "0.95",
                        "a larger share of the card for vLLM"});
    if (engine == "sglang")
      levers.push_back({"sglang.mem_fraction_static", "--mem-fraction-static", "0.9",
                        "a larger share of the card for SGLang"});
    const std::string kv = flag_value(out_.plan_arguments, "--kv-dtype");
    if (kv.empty() || kv == "bf16" || kv == "fp16") {
      if (engine == "llama.cpp") {
        levers.push_back(
            {"kv_dtype", "--kv-dtype", "q8_0", "an 8-bit K cache (-ctv q8_0 halves V too)"});
      } else if (ollama) {
        levers.push_back({"ollama.kv_cache_type", "--kv-cache-type", "q8_0", "an 8-bit KV cache"});
      } else {
        levers.push_back(
            {"kv_dtype", "--kv-dtype", "fp8", "an fp8 KV cache, half the bytes a token"});
      }
    }
    if (p.tensor_parallel > 0 && p.tensor_parallel < 8)
      levers.push_back({"tensor_parallel", "--tp", std::to_string(p.tensor_parallel * 2),
                        "twice the GPUs, each holding half the weights"});
    if (limit_refused()) {
      // The model's limit first, alone or with one lever where it does not fit alone.
      const Change limit{len_key, len_flag, std::to_string(p.context_limit.tokens),
                         "the model's limit (" + p.context_limit.derived_from + ")"};
      if (!try_fix({limit}))
        for (const Change& lever : levers) try_fix({limit, lever});
    }
    if (p.max_model_len_that_fits > 0)
      try_fix({{len_key, len_flag, std::to_string(p.max_model_len_that_fits),
                "the largest that fits"}});
    for (const Change& lever : levers) try_fix({lever});
  }

  // The engine refuses the length as past the model's limit (not lifted by the launch).
  bool limit_refused() const {
    const std::vector<std::string>& args = out_.plan_arguments;
    return out_.plan.context_limit_exceeded &&
           std::find(args.begin(), args.end(), "--allow-long-context") == args.end();
  }

  void findings() {
    const PlanReport& p = out_.plan;
    std::vector<CheckFinding>& f = out_.findings;
    if (p.starts) {
      f.push_back({"note", {}, "starts: " + verdict_words(p)});
      if (p.offload.present && p.offload.gpu_layers < p.offload.layers)
        f.push_back({"warning",
                     {},
                     "only " + std::to_string(p.offload.gpu_layers) + " of " +
                         std::to_string(p.offload.layers) +
                         " layers fit on the GPUs: the rest run on the CPU, "
                         "several times slower"});
    } else {
      f.push_back({"error", {}, "will not start: " + p.startup_error});
      if (limit_refused())
        f.push_back({"error", context_flag(),
                     "the model accepts at most " + with_commas(p.context_limit.tokens) +
                         " tokens (" + p.context_limit.derived_from + "), " +
                         with_commas(p.max_model_len) + " asked for"});
      if (out_.fixes.empty())
        f.push_back({"error",
                     {},
                     "no single change kvscope tries (context, memory share, KV dtype, "
                     "tensor parallel x 2) makes it start"});
    }
    for (const LaunchFlag& flag : out_.launch.flags) {
      if (flag.effect == FlagEffect::kNotModelled)
        f.push_back({"warning", flag.flag, flag.flag + ": not modelled: " + flag.note});
      if (flag.effect == FlagEffect::kUnknown)
        f.push_back({"warning", flag.flag, flag.flag + ": " + flag.note});
    }
  }

  static std::string verdict_words(const PlanReport& p) {
    const std::string length = "max_model_len " + with_commas(p.max_model_len);
    if (!p.target.present) return length;  // llama.cpp and Ollama size their buffers to order
    return length + ", " + two_decimals(p.target.sequences_that_fit) +
           " sequences of it fit in the KV pool";
  }

  // The flag that set the context, as written; empty when the engine's default did.
  std::string context_flag() const {
    for (const LaunchFlag& f : out_.launch.flags)
      if (f.effect == FlagEffect::kModelled &&
          (f.key == "max_model_len" || f.key == "ollama.num_ctx"))
        return f.flag;
    return {};
  }

 private:
  const CheckInput& in_;
  CheckReport& out_;
};

Result<CheckReport> checked_launch(const CheckInput& in) {
  using R = Result<CheckReport>;
  CheckReport out;
  Result<ParsedLaunch> launch = read_launch_command(in.launch_text);
  if (!launch.ok) return R::failure(launch.error);
  out.launch = std::move(launch.value);
  if (out.launch.model_id != out.launch.model &&
      std::find(in.base_arguments.begin(), in.base_arguments.end(), "--config") ==
          in.base_arguments.end())
    out.assumptions.push_back(out.launch.model + " read as the catalogue's " + out.launch.model_id +
                              " (give --config FILE for another shape)");
  std::vector<std::string> base = in.base_arguments;
  if (!in.card_given) {
    // A card the engine's users run it on: a datacenter GPU, or a 24 GB one for the local engines.
    const bool local = out.launch.engine == "llama.cpp" || out.launch.engine == "ollama";
    const std::string gpu = local ? "rtx-4090" : "h100-sxm-80gb";
    out.assumptions.push_back("no --gpu given: checked on " + gpu +
                              " (give --gpu ID or --gpu-memory SIZE)");
    base.insert(base.end(), {"--gpu", gpu});
  }
  const bool base_model = std::find(base.begin(), base.end(), "--model") != base.end() ||
                          std::find(base.begin(), base.end(), "--config") != base.end();
  Checker checker(in, out);
  if (out.launch.plan_arguments.empty()) {  // a flag without its value: the engine refuses it
    out.findings.push_back({"error", {}, "will not start: the engine refuses its arguments"});
    for (const LaunchFlag& f : out.launch.flags)
      if (f.effect == FlagEffect::kUnknown)
        out.findings.push_back({"error", f.flag, f.flag + ": " + f.note});
    return R::success(std::move(out));
  }
  out.plan_arguments = merged_arguments(base, out.launch.plan_arguments, base_model);
  const Result<PlanInput> input = checker.plan_input_of(out.plan_arguments);
  Result<PlanReport> planned =
      input.ok ? plan(input.value) : Result<PlanReport>::failure(input.error);
  if (!planned.ok) {
    const Error& e = planned.error;
    if ((e.field == "model" || e.field == "--model") && e.code == kUnknownId)
      return R::failure(make_error(
          kUnknownId, "launch",
          "the command serves " + quote_user_text(out.launch.model) +
              ", which is not in kvscope's catalogue (kvscope models lists it): give --config "
              "FILE, its config.json"));
    // A value the launch gave that kvscope (and, where it says so, the engine) refuses.
    for (const LaunchFlag& f : out.launch.flags) {
      if (f.effect == FlagEffect::kModelled && (f.plan_flag == e.field || f.key == e.field)) {
        out.findings.push_back({"error", f.flag,
                                "will not start: " + f.flag + " " + quote_user_text(f.value) +
                                    ": " + e.message.substr(e.message.find(':') + 2)});
        return R::success(std::move(out));
      }
    }
    return R::failure(e);
  }
  out.planned = true;
  out.plan_input = input.value;
  out.plan = std::move(planned.value);
  out.starts = out.plan.starts;
  if (!out.starts) checker.fixes();
  checker.findings();
  return R::success(std::move(out));
}

}  // namespace

Result<CheckReport> check_launch(const CheckInput& in) {
  Result<CheckReport> r = checked_launch(in);
  // Each finding on one line: a word of the command (a quoted value, a flag) may hold a break.
  for (CheckFinding& f : r.value.findings)
    for (char& c : f.message)
      if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  return r;
}

}  // namespace kvscope
