// The readable report of `kvscope solve`: the ranked layouts, the best one's launch command, the
// GPU types that cannot meet the target, and why fewer GPUs fall short.
#include <cmath>
#include <cstdio>
#include <string>

#include "kvscope/base/units.hpp"
#include "text_report.hpp"

namespace kvscope::cli {
namespace {

constexpr size_t kShownOptions = 15;

std::string fixed(double value, int digits) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string cell(const std::string& s, size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

std::string list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

std::string layout(const SolveOption& o) {
  return std::to_string(o.tp) + "x" + std::to_string(o.pp) + "x" + std::to_string(o.dp);
}

}  // namespace

void print_solve(const SolveReport& r, std::ostream& out) {
  out << "kvscope solve: " << r.model_name << " under " << r.engine_label
      << (r.engine_version.empty() ? std::string() : " " + r.engine_version_label) << ", "
      << with_commas(r.concurrency) << (r.concurrency == 1 ? " sequence" : " sequences") << " of "
      << with_commas(r.context_tokens) << " tokens at once";
  if (!r.prompt_lengths.empty())
    out << " (requests of " << r.prompt_lengths << " prompt and " << r.output_lengths
        << " output tokens, at most that long, held at p99)";
  if (r.min_decode_tokens_per_s > 0)
    out << ", each decoding at least " << fixed(r.min_decode_tokens_per_s, 1) << " tokens/s";
  if (r.max_ttft_s > 0)
    out << ", a " << with_commas(r.prompt_tokens) << "-token prefill within "
        << fixed(r.max_ttft_s, 2) << " s";
  out << "\n  searched: KV " << list(r.kv_dtypes) << "; weights " << list(r.weight_dtypes)
      << "; TP <= " << r.max_tp << ", PP <= " << r.max_pp << ", <= " << r.max_gpus << " GPUs; "
      << with_commas(r.plans_run) << " plans\n\n";
  out << "  " << cell("#", 4) << cell("GPU", 26) << cell("GPUs", 6) << cell("TPxPPxDP", 10)
      << cell("KV", 12) << cell("weights", 42) << cell("holds", 8) << cell("$/hour", 9)
      << cell("tok/s/user", 12) << "prefill\n";
  for (size_t i = 0; i < r.options.size() && i < kShownOptions; ++i) {
    const SolveOption& o = r.options[i];
    const bool speed = o.speed_available && o.decode_tokens_per_s_per_user > 0;
    out << "  " << cell(std::to_string(i + 1) + (o.meets_target ? "" : "!"), 4)
        << cell(o.gpu_name, 26) << cell(with_commas(o.gpus), 6) << cell(layout(o), 10)
        << cell(o.kv_dtype, 12) << cell(o.weight_dtype, 42)
        << cell(fixed(o.sequences_that_fit, 1), 8)
        << cell(o.priced ? fixed(o.usd_per_hour, 2) : "-", 9)
        << cell(speed ? fixed(o.decode_tokens_per_s_per_user, 1) : "-", 12)
        << (o.speed_available && std::isfinite(o.prefill_s) ? fixed(o.prefill_s, 2) + " s" : "-")
        << "\n";
    if (!o.meets_target) out << "      ! " << o.binding_constraint << ": " << o.reason << "\n";
  }
  if (r.options.size() > kShownOptions)
    out << "  (" << r.options.size() - kShownOptions << " more with --json)\n";
  if (r.met) {
    const SolveOption& best = r.options.front();
    out << "\nBest: " << with_commas(best.gpus) << " x " << best.gpu_name;
    if (best.priced) out << " at $" << fixed(best.usd_per_hour, 2) << "/hour";
    out << ", holds " << fixed(best.sequences_that_fit, 1) << " sequences (margin "
        << fixed(best.margin * 100, 0) << "%)\n  " << best.command << "\n";
    for (const std::string& u : best.unexpressed) out << "  (not in the command: " << u << ")\n";
    for (const SolveGpu& g : r.gpus) {
      if (g.gpu_id != best.gpu_id || g.cheaper_failures.empty()) continue;
      out << "\nWhy fewer " << g.gpu_name << " GPUs fall short:\n";
      for (const SolveOption& f : g.cheaper_failures) {
        out << "  " << cell(with_commas(f.gpus) + " (" + layout(f) + ")", 14)
            << cell(f.kv_dtype + " KV, " + f.weight_dtype, 50) << f.binding_constraint << ": "
            << f.reason << "\n";
      }
    }
  }
  out << "\n$/hour: list prices with the date they were read where one is cited (kvscope gpus "
         "--json: price_source), else --price ID=USD. tok/s and prefill: roofline estimates at the "
         "full context.\n";
  if (!r.notes.empty()) {
    out << "\nNotes:\n";
    for (const std::string& n : r.notes) out << "  - " << n << "\n";
  }
}

}  // namespace kvscope::cli
