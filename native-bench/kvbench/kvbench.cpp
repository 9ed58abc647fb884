// kvbench: builds a paged KV cache for a model's attention layers, checks the kernel against the
// fp64 reference, times it, measures the machine's read bandwidth in the same run, and prints one
// kvscope.measured/1 record with its provenance. Shapes and the estimate come from the core.
#include "kvbench.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "bandwidth.hpp"
#include "decode_attention.hpp"
#include "kvbench_commit.hpp"  // KVSCOPE_GIT_COMMIT, written at build time
#include "kvscope/catalog.hpp"
#include "kvscope/estimate.hpp"
#include "kvscope/kv_arithmetic.hpp"
#include "kvscope/report_json.hpp"
#include "kvscope/workload.hpp"
#include "kvscope_cli.hpp"
#include "paged_kv.hpp"

#ifdef KVBENCH_WITH_CUDA
#include "decode_attention_cuda.hpp"
#endif

namespace kvbench {
namespace {

using nlohmann::ordered_json;

const char* const kUsage =
    "usage: kvbench attention (--model ID | --config FILE) [--kv-dtype T] [--batch N]\n"
    "                         [--context N | --lengths DIST] [--page-size N] [--layers 1|all]\n"
    "                         [--device cpu|cuda] [--threads N] [--out FILE] [--json]\n"
    "  Decode attention over a paged KV cache of the model's attention layers: checked against\n"
    "  an fp64 reference, timed, and set beside the machine's measured read bandwidth and the\n"
    "  core's estimate. Prints a summary (the kvscope.measured/1 JSON with --json); --out FILE\n"
    "  writes the JSON. T: fp32 fp16 bf16 fp8 int8 (default: the model's dtype). DIST: 4096,\n"
    "  uniform:512-8192 or lognormal:mean=2000,p99=16000. Units: decimal GB.\n";

struct Usage {
  std::string field, message;
};

std::string quote_arg(const std::string& a) {
  if (!a.empty() && a.find_first_not_of(
                        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@") ==
                        std::string::npos)
    return a;
  std::string q = "'";
  for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

bool parse_count(const std::string& text, uint64_t& out) {
  std::string t = text;
  uint64_t mul = 1;
  if (!t.empty() && (t.back() == 'k' || t.back() == 'K')) {
    mul = 1024;
    t.pop_back();
  }
  if (t.empty() || t.size() > 12 || t.find_first_not_of("0123456789") != std::string::npos)
    return false;
  out = std::stoull(t) * mul;
  return true;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

std::string cpu_isa() {
  std::string isa = "x86-64";
#if defined(__AVX512F__)
  isa += " avx512f";
#endif
#if defined(__AVX2__)
  isa += " avx2";
#endif
#if defined(__FMA__)
  isa += " fma";
#endif
#if defined(__F16C__)
  isa += " f16c";
#endif
  return isa + " (compiled for)";
}

struct Timing {
  std::vector<double> samples;
  uint32_t warmup = 0;
  double quantile(double q) const {
    std::vector<double> s = samples;
    std::sort(s.begin(), s.end());
    return s[std::min(s.size() - 1, static_cast<size_t>(q * static_cast<double>(s.size())))];
  }
};

template <typename Step>
Timing time_runs(Step&& step) {
  Timing t;
  for (; t.warmup < 2; ++t.warmup) step();
  const auto begin = std::chrono::steady_clock::now();
  while (t.samples.size() < 10 ||
         (std::chrono::steady_clock::now() - begin < std::chrono::milliseconds(500) &&
          t.samples.size() < 200)) {
    const auto s = std::chrono::steady_clock::now();
    step();
    t.samples.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
    if (std::chrono::steady_clock::now() - begin > std::chrono::seconds(20)) break;
  }
  return t;
}

int fail(std::ostream& err, const Usage& u) {
  err << "kvbench: error: " << u.field << ": " << u.message << "\n";
  return 2;
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    out << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] != "attention")
    return fail(err, {"command", "unknown command " + kvscope::quote_user_text(args[0]) +
                                     " (expected attention)"});
  std::map<std::string, std::string> flags;
  bool json = false;
  static const char* const kValueFlags[] = {"--model",   "--config",  "--kv-dtype",  "--batch",
                                            "--context", "--lengths", "--page-size", "--layers",
                                            "--device",  "--threads", "--out",       "--seed"};
  for (size_t i = 1; i < args.size(); ++i) {
    std::string a = args[i], value;
    if (a == "--json") {
      json = true;
      continue;
    }
    if (a == "--help") {
      out << kUsage;
      return 0;
    }
    const size_t eq = a.find('=');
    const bool inline_value = a.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    if (std::find(std::begin(kValueFlags), std::end(kValueFlags), a) == std::end(kValueFlags)) {
      return fail(err,
                  {a, "unknown option " + kvscope::quote_user_text(a) + " (see kvbench --help)"});
    }
    if (!inline_value) {
      if (i + 1 >= args.size()) return fail(err, {a, "needs a value"});
      value = args[++i];
    }
    if (flags.count(a)) return fail(err, {a, "given twice"});
    flags[a] = value;
  }

  // The model, through the same importer as kvscope.
  kvscope::EstimateInput in;
  if (flags.count("--model") == flags.count("--config"))
    return fail(err, {"--model", "give exactly one of --model ID or --config FILE"});
  if (flags.count("--model")) in.model_id = flags["--model"];
  if (flags.count("--config")) {
    std::string reason;
    if (!kvscope::cli::read_file_from_disk(flags["--config"], in.config_json, reason)) {
      return fail(err, {"--config", reason + ": " + kvscope::quote_user_text(flags["--config"])});
    }
    in.config_name = flags["--config"];
  }
  if (flags.count("--kv-dtype")) in.kv_dtype = flags["--kv-dtype"];
  uint64_t batch = 1, page_size = 16, seed = 1,
           threads = std::max(1u, std::thread::hardware_concurrency());
  for (const auto& [flag, target] : {std::pair<const char*, uint64_t*>{"--batch", &batch},
                                     {"--page-size", &page_size},
                                     {"--threads", &threads},
                                     {"--seed", &seed}}) {
    if (!flags.count(flag)) continue;
    if (!parse_count(flags[flag], *target) || *target == 0)
      return fail(err, {flag, "expected a whole number >= 1, got " +
                                  kvscope::quote_user_text(flags[flag])});
  }
  if (batch > 4096) return fail(err, {"--batch", "at most 4096 sequences"});
  if (page_size > 4096) return fail(err, {"--page-size", "at most 4096 tokens"});
  if (threads > 1024) return fail(err, {"--threads", "at most 1024"});
  if (flags.count("--context") && flags.count("--lengths"))
    return fail(err, {"--context", "give --context or --lengths, not both"});
  uint64_t context = 4096;
  if (flags.count("--context") &&
      (!parse_count(flags["--context"], context) || context == 0 || context > (1u << 24))) {
    return fail(err, {"--context", "expected a whole number of tokens from 1 to 16M, got " +
                                       kvscope::quote_user_text(flags["--context"])});
  }
  in.context_tokens = context;
  const kvscope::Result<kvscope::EstimateReport> model = kvscope::estimate(in);
  if (!model.ok) {
    const std::string field = model.error.field == "kv_dtype" ? "--kv-dtype"
                              : model.error.field == "model"  ? "--model"
                                                              : model.error.field;
    return fail(
        err, {field, model.error.message.substr(model.error.message.find(": ") == std::string::npos
                                                    ? 0
                                                    : model.error.message.find(": ") + 2)});
  }
  const kvscope::EstimateReport& report = model.value;
  KvType kv_type;
  if (!parse_kv_type(report.kv_dtype.name, kv_type)) {
    return fail(
        err, {"--kv-dtype", report.kv_dtype.name +
                                " is not a kernel dtype of kvbench (fp32, fp16, bf16, fp8, int8)"});
  }
  std::string device = flags.count("--device") ? flags["--device"] : "cpu";
  if (device != "cpu" && device != "cuda")
    return fail(err, {"--device", "expected cpu or cuda, got " + kvscope::quote_user_text(device)});
  const std::string layers_flag = flags.count("--layers") ? flags["--layers"] : "1";
  if (layers_flag != "1" && layers_flag != "all")
    return fail(err, {"--layers", "expected 1 or all"});

  // Lengths: fixed, or drawn from the distribution with the seed.
  std::vector<uint64_t> lengths(batch, context);
  std::string lengths_description = std::to_string(context);
  if (flags.count("--lengths")) {
    const auto dist = kvscope::parse_length_distribution(flags["--lengths"], "--lengths");
    if (!dist.ok)
      return fail(err, {"--lengths", dist.error.message.substr(dist.error.message.find(": ") + 2)});
    std::mt19937_64 rng(seed);
    for (uint64_t& len : lengths) {
      const kvscope::LengthDistribution& d = dist.value;
      if (d.kind == kvscope::LengthKind::kFixed)
        len = d.fixed;
      else if (d.kind == kvscope::LengthKind::kUniform)
        len = std::uniform_int_distribution<uint64_t>(d.min, d.max)(rng);
      else
        len = static_cast<uint64_t>(
            std::llround(std::exp(d.mu + d.sigma * std::normal_distribution<double>()(rng))));
      len = std::clamp<uint64_t>(len, 1, 1u << 24);
    }
    lengths_description = dist.value.describe();
  }

  // Attention layers: the first that keeps tokens, or all of them.
  std::vector<kvscope::LayerSpec> layers;
  for (const kvscope::LayerSpec& l : report.shape.layers) {
    if (!l.keeps_tokens()) continue;
    if (l.attention == kvscope::AttentionKind::kMla || l.v_head_dim != l.k_head_dim) {
      return fail(err,
                  {"--model",
                   "MLA attention (a shared latent for K and V) is not a kernel of kvbench yet"});
    }
    layers.push_back(l);
    if (layers_flag == "1") break;
  }
  if (layers.empty())
    return fail(err, {"--model", "the model has no attention layer that keeps tokens"});
  const uint32_t q_heads = report.shape.num_attention_heads;
  for (const auto& l : layers) {
    if (l.kv_heads == 0 || q_heads % l.kv_heads != 0)
      return fail(err, {"--model", "query heads are not a multiple of KV heads"});
  }
  uint64_t pool_bytes = 0;
  for (const auto& l : layers) {
    for (uint64_t len : lengths)
      pool_bytes += 2 *
                    ((kvscope::attended_tokens(l, len) + page_size - 1) / page_size * page_size) *
                    l.kv_heads * l.k_head_dim * kv_type_bytes(kv_type);
  }
  const uint64_t memory = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                          static_cast<uint64_t>(sysconf(_SC_PAGE_SIZE));
  if (pool_bytes > memory / 2) {
    return fail(err, {layers_flag == "all" ? "--layers" : "--context",
                      "the KV cache would take " + std::to_string(pool_bytes / 1000000000) +
                          " GB, more than half of this machine's memory; use --layers 1, a shorter "
                          "--context or a smaller --batch"});
  }

  // Build, check, time.
  std::vector<PagedKv> caches;
  for (size_t i = 0; i < layers.size(); ++i) {
    AttentionShape shape{q_heads, layers[i].kv_heads, layers[i].k_head_dim,
                         static_cast<uint32_t>(page_size), kv_type};
    std::vector<uint64_t> kept(lengths.size());
    for (size_t b = 0; b < lengths.size(); ++b)
      kept[b] = kvscope::attended_tokens(layers[i], lengths[b]);
    caches.push_back(make_paged_kv(shape, kept, seed + i));
  }
  std::vector<std::vector<float>> outputs;
  for (const PagedKv& c : caches)
    outputs.emplace_back(c.lengths.size() * q_heads * c.shape.head_dim, std::nanf(""));
  const CpuPlan plan{static_cast<uint32_t>(threads), 0};
  std::function<void()> step;
  ordered_json device_json;
#ifdef KVBENCH_WITH_CUDA
  std::unique_ptr<CudaDecode> gpu;
#endif
  if (device == "cpu") {
    step = [&] {
      for (size_t i = 0; i < caches.size(); ++i)
        decode_attention_cpu(caches[i], plan, outputs[i].data());
    };
  } else {
#ifdef KVBENCH_WITH_CUDA
    std::string why;
    gpu = CudaDecode::create(caches, why);
    if (!gpu) return fail(err, {"--device", why});
    device_json = gpu->device_json();
    step = [&] {
      gpu->run();
      gpu->synchronize();
    };
#else
    return fail(err,
                {"--device", "this kvbench was built without CUDA (no nvcc at configure time)"});
#endif
  }
  step();  // the checked run: outputs were NaN before it
#ifdef KVBENCH_WITH_CUDA
  if (gpu) gpu->copy_outputs(outputs);
#endif
  // The fp64 reference is O(batch x heads x tokens x dim): check two sequences of a large batch.
  ordered_json checks = ordered_json::array();
  bool pass = true;
  double max_abs = 0, max_rel = 0;
  const double atol = 2e-3, rtol = 2e-3;
  for (size_t i = 0; i < caches.size(); i += std::max<size_t>(1, caches.size() - 1)) {
    PagedKv subset = caches[i];
    std::vector<uint64_t> picked = {0};
    if (subset.lengths.size() > 1) picked.push_back(subset.lengths.size() - 1);
    PagedKv view = subset;
    view.lengths.clear();
    view.pages.clear();
    view.q.clear();
    const uint32_t d = subset.shape.head_dim;
    std::vector<float> out_rows;
    for (uint64_t b : picked) {
      view.lengths.push_back(subset.lengths[b]);
      view.pages.push_back(subset.pages[b]);
      view.q.insert(view.q.end(), subset.q.begin() + static_cast<std::ptrdiff_t>(b * q_heads * d),
                    subset.q.begin() + static_cast<std::ptrdiff_t>((b + 1) * q_heads * d));
      out_rows.insert(out_rows.end(),
                      outputs[i].begin() + static_cast<std::ptrdiff_t>(b * q_heads * d),
                      outputs[i].begin() + static_cast<std::ptrdiff_t>((b + 1) * q_heads * d));
    }
    const Comparison c = compare(decode_attention_reference(view), out_rows.data(), atol, rtol);
    pass = pass && c.pass;
    max_abs = std::max(max_abs, c.max_abs_error);
    max_rel = std::max(max_rel, c.max_rel_error);
    if (caches.size() == 1) break;
  }
  const Timing timing = time_runs(step);
  const double median = timing.quantile(0.5);

  // Bytes and the core's estimate for the same layers, lengths and dtype.
  uint64_t bytes = 0;
  for (const PagedKv& c : caches) bytes += c.bytes_moved();
  uint64_t estimate_bytes = 0;
  for (const auto& l : layers) {
    const auto per_token = kvscope::kv_bytes_per_token_per_layer(l, report.kv_dtype);
    for (uint64_t len : lengths)
      estimate_bytes += per_token.value * kvscope::attended_tokens(l, len);
  }
  double bandwidth = 0;
  ordered_json bandwidth_json, paged_read_json;
  if (device == "cpu") {
    const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    const uint64_t buffer =
        std::max<uint64_t>(1ull << 30, 8ull * static_cast<uint64_t>(std::max(0L, llc)));
    const BandwidthMeasurement bw =
        measure_read_bandwidth(static_cast<uint32_t>(threads), buffer, 10);
    bandwidth = bw.bytes_per_s;
    bandwidth_json = {{"kernel", "read-only streaming sum (fp32, the kernel's threads)"},
                      {"buffer_bytes", bw.buffer_bytes},
                      {"runs", bw.runs},
                      {"statistic", "best"}};
    const BandwidthMeasurement paged =
        measure_paged_read_bandwidth(caches, static_cast<uint32_t>(threads), 10);
    paged_read_json = {
        {"bytes_per_s", paged.bytes_per_s},
        {"kernel", "the caches' K and V pages summed in block-table order, nothing computed"},
        {"bytes", paged.buffer_bytes},
        {"runs", paged.runs},
        {"statistic", "best"},
        {"efficiency", static_cast<double>(bytes) / median / paged.bytes_per_s}};
    device_json = {{"kind", "cpu"},
                   {"model", cpu_model()},
                   {"isa", cpu_isa()},
                   {"threads", threads},
                   {"hardware_threads", std::thread::hardware_concurrency()},
                   {"llc_bytes", llc > 0 ? ordered_json(llc) : ordered_json(nullptr)}};
  }
#ifdef KVBENCH_WITH_CUDA
  else {
    bandwidth = CudaDecode::measure_read_bandwidth(bandwidth_json);
    // The kvscope catalogue entry of this GPU, so the page can set the record beside its plans.
    const std::string name = device_json["name"].get<std::string>();
    for (const kvscope::GpuEntry& g : kvscope::gpu_catalog()) {
      if (g.name.rfind(name, 0) == 0) {
        device_json["catalogue_id"] = g.id;
        break;
      }
    }
  }
#endif
  const double estimate_s = static_cast<double>(estimate_bytes) / bandwidth;

  std::ostringstream command;
  command << "kvbench";
  for (const std::string& a : args) command << " " << quote_arg(a);
  ordered_json j;
  j["schema"] = "kvscope.measured/1";
  j["meta"] = {{"tool", "kvbench"},
               {"version", kvscope::kVersion},
               {"commit", KVSCOPE_GIT_COMMIT},
               {"date", utc_now()},
               {"command", command.str()}};
  j["device"] = device_json;
  ordered_json lengths_json = ordered_json::array();
  for (uint64_t len : lengths) lengths_json.push_back(len);
  j["problem"] = {{"model", report.model_id.empty() ? report.model_name : report.model_id},
                  {"kv_dtype", kv_type_name(kv_type)},
                  {"batch", batch},
                  {"lengths", lengths_description},
                  {"sequence_lengths", lengths_json},
                  {"layers", layers.size()},
                  {"layers_flag", layers_flag},
                  {"q_heads", q_heads},
                  {"kv_heads", layers[0].kv_heads},
                  {"group_size", q_heads / layers[0].kv_heads},
                  {"head_dim", layers[0].k_head_dim},
                  {"page_size", page_size},
                  {"kv_layout", "HND pages, shuffled in a pool"},
                  {"seed", seed},
                  {"device", device}};
  j["timing"] = {
      {"method", device == "cpu" ? "steady_clock around each call (threads started per call)"
                                 : "CUDA events around each launch sequence"},
      {"warmup", timing.warmup},
      {"samples", timing.samples.size()},
      {"median_s", median},
      {"p10_s", timing.quantile(0.1)},
      {"p90_s", timing.quantile(0.9)},
      {"min_s", timing.quantile(0.0)}};
  j["bytes_moved"] = bytes;
  j["bytes_moved_note"] = "K and V of every attended token, queries and fp32 outputs, block tables";
  j["achieved_bytes_per_s"] = static_cast<double>(bytes) / median;
  j["measured_bandwidth_bytes_per_s"] = bandwidth;
  j["measured_bandwidth"] = bandwidth_json;
  j["bandwidth_efficiency"] = static_cast<double>(bytes) / median / bandwidth;
  // What the layout itself allows (CPU): achieved over the same pages read with no arithmetic.
  if (!paged_read_json.is_null()) j["paged_read"] = paged_read_json;
  j["estimate_s"] = estimate_s;
  j["estimate"] = {{"bytes", estimate_bytes},
                   {"method",
                    "kvscope core: KV bytes per token per layer x attended tokens, over the "
                    "measured bandwidth"}};
  j["measured_over_estimate"] = median / estimate_s;
  j["correctness"] = {{"reference", "fp64 two-pass softmax on the dequantized inputs (CPU)"},
                      {"checked", "first and last sequence, first and last layer"},
                      {"max_abs_error", max_abs},
                      {"max_rel_error", max_rel},
                      {"atol", atol},
                      {"rtol", rtol},
                      {"poisoned", "outputs NaN before the run; unowned slots and spare pages NaN"},
                      {"pass", pass}};
  const std::string text =
      j.dump(2, ' ', false, ordered_json::error_handler_t::replace);  // args may be any bytes
  if (flags.count("--out")) {
    std::ofstream file(flags["--out"]);
    if (!file)
      return fail(err, {"--out", "cannot write " + kvscope::quote_user_text(flags["--out"])});
    file << text << "\n";
  }
  if (json) {
    out << text << "\n";
  } else {
    char line[512];
    std::snprintf(
        line, sizeof line,
        "kvbench attention: %s, %zu layer(s), batch %llu, lengths %s, KV %s, %s\n"
        "  time        %.3f ms median (p10 %.3f, p90 %.3f; %zu samples)\n"
        "  bytes       %.3f GB per step -> %.2f GB/s\n"
        "  bandwidth   %.2f GB/s measured (read-only stream) -> efficiency %.1f%%\n"
        "  estimate    %.3f ms (core bytes / measured bandwidth) -> measured/estimate %.2f\n"
        "  correctness %s (max abs error %.2e vs fp64)\n",
        j["problem"]["model"].get<std::string>().c_str(), layers.size(),
        static_cast<unsigned long long>(batch), lengths_description.c_str(), kv_type_name(kv_type),
        device.c_str(), median * 1e3, timing.quantile(0.1) * 1e3, timing.quantile(0.9) * 1e3,
        timing.samples.size(), static_cast<double>(bytes) / 1e9,
        static_cast<double>(bytes) / median / 1e9, bandwidth / 1e9,
        100.0 * static_cast<double>(bytes) / median / bandwidth, estimate_s * 1e3,
        median / estimate_s, pass ? "pass" : "FAIL", max_abs);
    out << line;
  }
  if (!pass) {
    err << "kvbench: error: correctness: the kernel differs from the fp64 reference (max abs error "
        << max_abs << ")\n";
    return 1;
  }
  return 0;
}

}  // namespace kvbench
