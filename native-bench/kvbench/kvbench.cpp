// kvbench: builds a paged KV cache for a model's attention layers, checks the kernel against the
// fp64 reference, times it, measures the machine's read bandwidth in the same run, and prints one
// kvscope.measured/1 record with its provenance. Shapes and the estimate come from the core.
#include "kvbench.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "bandwidth.hpp"
#include "bench_args.hpp"
#include "bench_problem.hpp"
#include "decode_attention.hpp"
#include "kvbench_commit.hpp"  // KVSCOPE_GIT_COMMIT, written at build time
#include "kvscope/catalog.hpp"
#include "kvscope/report_json.hpp"

#ifdef KVBENCH_WITH_CUDA
#include "decode_attention_cuda.hpp"
#endif

namespace kvbench {
namespace {

using nlohmann::ordered_json;

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

// The CPU's name and cpuid identity from /proc/cpuinfo's first processor: a name such as "AMD
// EPYC" covers several generations (and a cloud host's CPU changes between runs), the family,
// model and stepping do not. Fields the file lacks are left out.
ordered_json cpu_identity() {
  ordered_json id = {{"model", "unknown CPU"}};
  ordered_json cpuid = ordered_json::object();
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line) && !line.empty();) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos || colon == 0) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name") id["model"] = value;
    if (key == "vendor_id") cpuid["vendor"] = value;
    if (key == "cpu family" || key == "model" || key == "stepping") {
      char* end = nullptr;
      const unsigned long n = std::strtoul(value.c_str(), &end, 10);
      if (!value.empty() && *end == '\0') cpuid[key == "cpu family" ? "family" : key] = n;
    }
  }
  id["cpuid"] = cpuid;
  return id;
}

// A cache's size in bytes as the C library reports it (sysconf), or null where it does not.
ordered_json cache_bytes(int name) {
  const long bytes = sysconf(name);
  return bytes > 0 ? ordered_json(bytes) : ordered_json(nullptr);
}

// The q-quantile of a non-empty set of values (the value at rank q x n, as the record's p10/p90).
double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1,
                         static_cast<size_t>(q * static_cast<double>(values.size())))];
}

struct Timing {
  std::vector<double> samples;
  uint32_t warmup = 0;
  double quantile(double q) const { return kvbench::quantile(samples, q); }
};

// Seconds one call of step takes (steady clock).
template <typename Step>
double seconds_of(Step&& step) {
  const auto start = std::chrono::steady_clock::now();
  step();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <typename Step>
Timing time_runs(Step&& step) {
  Timing t;
  for (; t.warmup < 2; ++t.warmup) step();
  const auto begin = std::chrono::steady_clock::now();
  while (t.samples.size() < 10 ||
         (std::chrono::steady_clock::now() - begin < std::chrono::milliseconds(500) &&
          t.samples.size() < 200)) {
    t.samples.push_back(seconds_of(step));
    if (std::chrono::steady_clock::now() - begin > std::chrono::seconds(20)) break;
  }
  return t;
}

// The kernel's outputs against the fp64 reference. The reference is O(batch x heads x tokens x
// dim): the first and last sequence of the first and last layer.
struct Correctness {
  bool pass = true;
  double max_abs = 0, max_rel = 0;
  double atol = 2e-3, rtol = 2e-3;
};

Correctness check_outputs(const std::vector<PagedKv>& caches,
                          const std::vector<std::vector<float>>& outputs, uint32_t q_heads) {
  Correctness c;
  for (size_t i = 0; i < caches.size(); i += std::max<size_t>(1, caches.size() - 1)) {
    const PagedKv& subset = caches[i];
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
    const Comparison r = compare(decode_attention_reference(view), out_rows.data(), c.atol, c.rtol);
    c.pass = c.pass && r.pass;
    c.max_abs = std::max(c.max_abs, r.max_abs_error);
    c.max_rel = std::max(c.max_rel, r.max_rel_error);
    if (caches.size() == 1) break;
  }
  return c;
}

// The machine's read bandwidth in the same run (CPU: a streaming sum, and the caches' own pages
// read with no arithmetic), and the device's description.
struct Machine {
  double bandwidth = 0;
  ordered_json bandwidth_json, paged_read_json, paired_efficiency_json, device_json, kernel_json;
};

// A --cpu-kernel this CPU cannot run for the KV type, named with the paths it can.
std::optional<Usage> unsupported_kernel(CpuKernel kernel, KvType type) {
  const std::vector<CpuKernel> paths = supported_cpu_kernels(type);
  if (std::find(paths.begin(), paths.end(), kernel) != paths.end()) return std::nullopt;
  std::string names;
  for (CpuKernel k : paths) names += std::string(names.empty() ? "" : ", ") + cpu_kernel_name(k);
  return Usage{"--cpu-kernel", std::string("this CPU cannot run the ") + cpu_kernel_name(kernel) +
                                   " path for " + kv_type_name(type) + " KV (it runs: " + names +
                                   ")"};
}

// Best, median and worst of a bandwidth's runs, bytes per second.
ordered_json spread_json(const BandwidthMeasurement& b) {
  return {{"best", b.bytes_per_s}, {"median", b.median()}, {"worst", b.worst()}};
}

// The rounds of stream, cross-check and kernel step, and what pairing them says: each step's rate
// over the stream run of its round, and each stream run over the cross-check run beside it.
void pair_rounds(const StreamMeasurement& bw, const std::vector<double>& step_s, uint64_t bytes,
                 Machine& m) {
  ordered_json rounds = ordered_json::array();
  std::vector<double> over_check, efficiency;
  for (size_t r = 0; r < step_s.size(); ++r) {
    const double stream = bw.stream.runs_per_s[r], check = bw.check.runs_per_s[r];
    rounds.push_back({{"stream_bytes_per_s", stream},
                      {"check_bytes_per_s", check},
                      {"kernel_step_s", step_s[r]}});
    over_check.push_back(stream / check);
    efficiency.push_back(static_cast<double>(bytes) / step_s[r] / stream);
  }
  m.bandwidth_json["rounds"] = rounds;
  m.bandwidth_json["cross_check"]["stream_over_check_paired"] = quantile(over_check, 0.5);
  m.paired_efficiency_json = {
      {"method",
       "two kernel steps after each round's stream and cross-check runs: the second "
       "step's rate over the stream run of its round (measured_bandwidth.rounds)"},
      {"median", quantile(efficiency, 0.5)},
      {"best", quantile(efficiency, 1.0)},
      {"worst", quantile(efficiency, 0.0)}};
}

Machine measure_cpu(const std::vector<PagedKv>& caches, uint64_t threads, uint64_t bytes,
                    double median, CpuKernel kernel, CpuWalk walk,
                    const std::function<void()>& step) {
  Machine m;
  const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  const uint64_t buffer =
      std::max<uint64_t>(1ull << 30, 8ull * static_cast<uint64_t>(std::max(0L, llc)));
  // Each round's timed step follows an untimed one: the first step after a stream run ran about
  // 10% slower here than the timing loop's back-to-back steps (cold state the loop never has).
  std::vector<double> step_s;
  const StreamMeasurement bw =
      measure_read_bandwidth(static_cast<uint32_t>(threads), buffer, 10, [&] {
        step();
        step_s.push_back(seconds_of(step));
      });
  m.bandwidth = bw.stream.bytes_per_s;
  m.bandwidth_json = {
      {"kernel", "read-only stream: XOR of 64-bit words (the kernel's threads)"},
      {"buffer_bytes", bw.stream.buffer_bytes},
      {"threads", bw.stream.threads},
      {"pages", bw.pages},
      {"runs", bw.stream.runs_per_s.size()},
      {"statistic", "best"},
      {"spread", spread_json(bw.stream)},
      {"cross_check",
       {{"kernel", "fp32 sum in 32 independent accumulators, runs interleaved with the stream's"},
        {"bytes_per_s", bw.check.bytes_per_s},
        {"spread", spread_json(bw.check)},
        {"stream_over_check", bw.stream.bytes_per_s / bw.check.bytes_per_s}}}};
  pair_rounds(bw, step_s, bytes, m);
  const BandwidthMeasurement paged =
      measure_paged_read_bandwidth(caches, static_cast<uint32_t>(threads), 10, walk);
  m.paged_read_json = {
      {"bytes_per_s", paged.bytes_per_s},
      {"kernel", "the caches' K and V rows XORed in the kernel's order, nothing computed"},
      {"bytes", paged.buffer_bytes},
      {"runs", paged.runs_per_s.size()},
      {"statistic", "best"},
      {"spread", spread_json(paged)},
      {"efficiency", static_cast<double>(bytes) / median / paged.bytes_per_s}};
  const ordered_json identity = cpu_identity();
  m.device_json = {{"kind", "cpu"},
                   {"model", identity["model"]},
                   {"cpuid", identity["cpuid"]},
                   {"isa", cpu_features()},
                   {"threads", threads},
                   {"hardware_threads", std::thread::hardware_concurrency()},
                   {"l1d_bytes", cache_bytes(_SC_LEVEL1_DCACHE_SIZE)},
                   {"l2_bytes", cache_bytes(_SC_LEVEL2_CACHE_SIZE)},
                   {"llc_bytes", cache_bytes(_SC_LEVEL3_CACHE_SIZE)}};
  const KvType type = caches.front().shape.kv_type;
  ordered_json supported = ordered_json::array();
  for (CpuKernel k : supported_cpu_kernels(type)) supported.push_back(cpu_kernel_name(k));
  m.kernel_json = {{"path", cpu_kernel_name(kernel)},
                   {"description", cpu_kernel_description(kernel)},
                   {"walk", cpu_walk_name(walk)},
                   {"paths_this_cpu_runs", supported}};
  return m;
}

// The kvscope.measured/1 record.
ordered_json make_record(const std::vector<std::string>& args, const BenchArgs& a, const Problem& p,
                         const Timing& timing, const Machine& machine, uint64_t bytes,
                         uint64_t estimate_bytes, const Correctness& check) {
  const double median = timing.quantile(0.5);
  const double estimate_s = static_cast<double>(estimate_bytes) / machine.bandwidth;
  ordered_json j;
  j["schema"] = "kvscope.measured/1";
  j["meta"] = {{"tool", "kvbench"},
               {"version", kvscope::kVersion},
               {"commit", KVSCOPE_GIT_COMMIT},
               {"date", utc_now()},
               {"command", command_line(args)}};
  j["device"] = machine.device_json;
  if (!machine.kernel_json.is_null()) j["cpu_kernel"] = machine.kernel_json;
  ordered_json lengths_json = ordered_json::array();
  for (uint64_t len : p.lengths) lengths_json.push_back(len);
  j["problem"] = {{"model", p.report.model_id.empty() ? p.report.model_name : p.report.model_id},
                  {"kv_dtype", kv_type_name(p.kv_type)},
                  {"batch", a.batch},
                  {"lengths", p.lengths_description},
                  {"sequence_lengths", lengths_json},
                  {"layers", p.layers.size()},
                  {"layers_flag", a.all_layers ? "all" : "1"},
                  {"q_heads", p.q_heads},
                  {"kv_heads", p.layers[0].kv_heads},
                  {"group_size", p.q_heads / p.layers[0].kv_heads},
                  {"head_dim", p.layers[0].k_head_dim},
                  {"page_size", a.page_size},
                  {"kv_layout", kv_layout_name(a.kv_layout)},
                  {"seed", a.seed},
                  {"device", a.device}};
  j["timing"] = {
      {"method", a.device == "cpu" ? "steady_clock around each call (threads started per call)"
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
  j["measured_bandwidth_bytes_per_s"] = machine.bandwidth;
  j["measured_bandwidth"] = machine.bandwidth_json;
  j["bandwidth_efficiency"] = static_cast<double>(bytes) / median / machine.bandwidth;
  // What the layout itself allows (CPU): achieved over the same pages read with no arithmetic.
  if (!machine.paged_read_json.is_null()) j["paged_read"] = machine.paged_read_json;
  if (!machine.paired_efficiency_json.is_null())
    j["paired_efficiency"] = machine.paired_efficiency_json;
  j["estimate_s"] = estimate_s;
  j["estimate"] = {{"bytes", estimate_bytes},
                   {"method",
                    "kvscope core: KV bytes per token per layer x attended tokens, over the "
                    "measured bandwidth"}};
  j["measured_over_estimate"] = median / estimate_s;
  j["correctness"] = {{"reference", "fp64 two-pass softmax on the dequantized inputs (CPU)"},
                      {"checked", "first and last sequence, first and last layer"},
                      {"max_abs_error", check.max_abs},
                      {"max_rel_error", check.max_rel},
                      {"atol", check.atol},
                      {"rtol", check.rtol},
                      {"poisoned", "outputs NaN before the run; unowned slots and spare pages NaN"},
                      {"pass", check.pass}};
  return j;
}

std::string summary(const ordered_json& j) {
  const ordered_json& t = j["timing"];
  const double median = t["median_s"], bytes = j["bytes_moved"],
               bandwidth = j["measured_bandwidth_bytes_per_s"];
  char line[1024];  // the path descriptions run to about 200 characters
  std::snprintf(
      line, sizeof line,
      "kvbench attention: %s, %zu layer(s), batch %llu, lengths %s, KV %s, %s\n"
      "  time        %.3f ms median (p10 %.3f, p90 %.3f; %zu samples)\n"
      "  bytes       %.3f GB per step -> %.2f GB/s\n"
      "  bandwidth   %.2f GB/s measured (read-only stream) -> efficiency %.1f%%\n"
      "  estimate    %.3f ms (core bytes / measured bandwidth) -> measured/estimate %.2f\n"
      "  correctness %s (max abs error %.2e vs fp64)\n",
      j["problem"]["model"].get<std::string>().c_str(), j["problem"]["layers"].get<size_t>(),
      static_cast<unsigned long long>(j["problem"]["batch"].get<uint64_t>()),
      j["problem"]["lengths"].get<std::string>().c_str(),
      j["problem"]["kv_dtype"].get<std::string>().c_str(),
      j["problem"]["device"].get<std::string>().c_str(), median * 1e3,
      t["p10_s"].get<double>() * 1e3, t["p90_s"].get<double>() * 1e3, t["samples"].get<size_t>(),
      bytes / 1e9, bytes / median / 1e9, bandwidth / 1e9, 100.0 * bytes / median / bandwidth,
      j["estimate_s"].get<double>() * 1e3, j["measured_over_estimate"].get<double>(),
      j["correctness"]["pass"].get<bool>() ? "pass" : "FAIL",
      j["correctness"]["max_abs_error"].get<double>());
  std::string text = line;
  if (j.contains("cpu_kernel")) {
    const ordered_json& check = j["measured_bandwidth"]["cross_check"];
    std::snprintf(
        line, sizeof line,
        "  path        %s, walking by %s: %s\n"
        "  paged read  %.2f GB/s (the caches' pages, nothing computed) -> kernel at %.1f%%\n"
        "  stream      best %.2f, median %.2f GB/s; cross-check %.2f GB/s (ratio %.3f, "
        "%.3f paired)\n"
        "  paired      kernel at %.1f%% of the stream run beside each step (median; "
        "%.1f-%.1f%%)\n",
        j["cpu_kernel"]["path"].get<std::string>().c_str(),
        j["cpu_kernel"]["walk"].get<std::string>().c_str(),
        j["cpu_kernel"]["description"].get<std::string>().c_str(),
        j["paged_read"]["bytes_per_s"].get<double>() / 1e9,
        100.0 * j["paged_read"]["efficiency"].get<double>(), bandwidth / 1e9,
        j["measured_bandwidth"]["spread"]["median"].get<double>() / 1e9,
        check["bytes_per_s"].get<double>() / 1e9, check["stream_over_check"].get<double>(),
        check["stream_over_check_paired"].get<double>(),
        100.0 * j["paired_efficiency"]["median"].get<double>(),
        100.0 * j["paired_efficiency"]["worst"].get<double>(),
        100.0 * j["paired_efficiency"]["best"].get<double>());
    text += line;
  }
  return text;
}

int fail(std::ostream& err, const Usage& u) {
  err << "kvbench: error: " << u.field << ": " << u.message << "\n";
  return 2;
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  BenchArgs a;
  if (auto u = parse_bench_args(args, a)) return fail(err, *u);
  if (a.help) {
    out << kUsage;
    return args.empty() ? 2 : 0;
  }
  Problem p;
  if (auto u = make_problem(a, p)) return fail(err, *u);
  const CpuKernel kernel = a.cpu_kernel.value_or(best_cpu_kernel(p.kv_type));
  if (auto u = unsupported_kernel(kernel, p.kv_type)) return fail(err, *u);
  std::vector<PagedKv> caches = build_caches(p, a);
  std::vector<std::vector<float>> outputs;
  for (const PagedKv& c : caches)
    outputs.emplace_back(c.lengths.size() * p.q_heads * c.shape.head_dim, std::nanf(""));

  // The step on the chosen device.
  const CpuPlan plan{static_cast<uint32_t>(a.threads), 0, kernel, a.cpu_walk};
  std::function<void()> step;
#ifdef KVBENCH_WITH_CUDA
  std::unique_ptr<CudaDecode> gpu;
#endif
  if (a.device == "cpu") {
    step = [&] {
      for (size_t i = 0; i < caches.size(); ++i)
        decode_attention_cpu(caches[i], plan, outputs[i].data());
    };
  } else {
#ifdef KVBENCH_WITH_CUDA
    std::string why;
    gpu = CudaDecode::create(caches, why);
    if (!gpu) return fail(err, {"--device", why});
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
  const Correctness check = check_outputs(caches, outputs, p.q_heads);
  const Timing timing = time_runs(step);

  uint64_t bytes = 0;
  for (const PagedKv& c : caches) bytes += c.bytes_moved();
  Machine machine;
  if (a.device == "cpu")
    machine = measure_cpu(caches, a.threads, bytes, timing.quantile(0.5), kernel, a.cpu_walk, step);
#ifdef KVBENCH_WITH_CUDA
  else {
    machine.device_json = gpu->device_json();
    machine.bandwidth = CudaDecode::measure_read_bandwidth(machine.bandwidth_json);
    // The kvscope catalogue entry of this GPU, so the page can set the record beside its plans.
    const std::string name = machine.device_json["name"].get<std::string>();
    for (const kvscope::GpuEntry& g : kvscope::gpu_catalog()) {
      if (g.name.rfind(name, 0) == 0) {
        machine.device_json["catalogue_id"] = g.id;
        break;
      }
    }
  }
#endif

  const ordered_json j =
      make_record(args, a, p, timing, machine, bytes, estimated_kv_bytes(p), check);
  const std::string text =
      j.dump(2, ' ', false, ordered_json::error_handler_t::replace);  // args may be any bytes
  if (!a.out_path.empty()) {
    std::ofstream file(a.out_path);
    if (!file) return fail(err, {"--out", "cannot write " + kvscope::quote_user_text(a.out_path)});
    file << text << "\n";
  }
  out << (a.json ? text + "\n" : summary(j));
  if (!check.pass) {
    err << "kvbench: error: correctness: the kernel differs from the fp64 reference (max abs error "
        << check.max_abs << ")\n";
    return 1;
  }
  return 0;
}

}  // namespace kvbench
