// kvbench's record and summary (bench_record.hpp).
#include "bench_record.hpp"

#include <cstdio>
#include <ctime>

#include "kvbench_commit.hpp"  // KVSCOPE_GIT_COMMIT, written at build time
#include "kvscope/request/report_json.hpp"

namespace kvbench {
namespace {

using nlohmann::ordered_json;

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

}  // namespace

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

}  // namespace kvbench
