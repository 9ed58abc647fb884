#include "bench_problem.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "kvscope/kv/kv_arithmetic.hpp"
#include "kvscope/kv/workload.hpp"
#include "kvscope_cli.hpp"

namespace kvbench {
namespace {

// The message of a core error without its "field: " prefix (the flag is named instead).
std::string message_of(const kvscope::Error& e) {
  const size_t colon = e.message.find(": ");
  return colon == std::string::npos ? e.message : e.message.substr(colon + 2);
}

// Lengths: fixed, or drawn from the distribution with the seed.
std::optional<Usage> draw_lengths(const BenchArgs& args, Problem& out) {
  out.lengths.assign(args.batch, args.context);
  out.lengths_description = std::to_string(args.context);
  if (args.lengths.empty()) return std::nullopt;
  const auto dist = kvscope::parse_length_distribution(args.lengths, "--lengths");
  if (!dist.ok) return Usage{"--lengths", message_of(dist.error)};
  std::mt19937_64 rng(args.seed);
  const kvscope::LengthDistribution& d = dist.value;
  for (uint64_t& len : out.lengths) {
    if (d.kind == kvscope::LengthKind::kFixed)
      len = d.fixed;
    else if (d.kind == kvscope::LengthKind::kUniform)
      len = std::uniform_int_distribution<uint64_t>(d.min, d.max)(rng);
    else
      len = static_cast<uint64_t>(
          std::llround(std::exp(d.mu + d.sigma * std::normal_distribution<double>()(rng))));
    len = std::clamp<uint64_t>(len, 1, 1u << 24);
  }
  out.lengths_description = d.describe();
  return std::nullopt;
}

// Attention layers: the first that keeps tokens, or all of them.
std::optional<Usage> pick_layers(const BenchArgs& args, Problem& out) {
  for (const kvscope::LayerSpec& l : out.report.shape.layers) {
    if (!l.keeps_tokens()) continue;
    if (l.attention == kvscope::AttentionKind::kMla || l.v_head_dim != l.k_head_dim)
      return Usage{"--model",
                   "MLA attention (a shared latent for K and V) is not a kernel of kvbench yet"};
    out.layers.push_back(l);
    if (!args.all_layers) break;
  }
  if (out.layers.empty())
    return Usage{"--model", "the model has no attention layer that keeps tokens"};
  out.q_heads = out.report.shape.num_attention_heads;
  for (const auto& l : out.layers) {
    if (l.kv_heads == 0 || out.q_heads % l.kv_heads != 0)
      return Usage{"--model", "query heads are not a multiple of KV heads"};
  }
  return std::nullopt;
}

}  // namespace

std::optional<Usage> make_problem(const BenchArgs& args, Problem& out) {
  // The model, through the same importer as kvscope.
  kvscope::EstimateInput in;
  in.model_id = args.model_id;
  if (!args.config_path.empty()) {
    std::string reason;
    if (!kvscope::cli::read_file_from_disk(args.config_path, in.config_json, reason))
      return Usage{"--config", reason + ": " + kvscope::quote_user_text(args.config_path)};
    in.config_name = args.config_path;
  }
  in.kv_dtype = args.kv_dtype;
  in.context_tokens = args.context;
  kvscope::Result<kvscope::EstimateReport> model = kvscope::estimate(in);
  if (!model.ok) {
    const std::string& f = model.error.field;
    return Usage{f == "kv_dtype" ? "--kv-dtype"
                 : f == "model"  ? "--model"
                                 : f,
                 message_of(model.error)};
  }
  out.report = std::move(model.value);
  if (!parse_kv_type(out.report.kv_dtype.name, out.kv_type)) {
    return Usage{"--kv-dtype",
                 out.report.kv_dtype.name +
                     " is not a kernel dtype of kvbench (fp32, fp16, bf16, fp8, int8)"};
  }
  if (auto u = draw_lengths(args, out)) return u;
  if (auto u = pick_layers(args, out)) return u;
  uint64_t pool_bytes = 0;
  for (const auto& l : out.layers) {
    for (uint64_t len : out.lengths) {
      const uint64_t pages =
          (kvscope::attended_tokens(l, len) + args.page_size - 1) / args.page_size;
      pool_bytes +=
          2 * pages * args.page_size * l.kv_heads * l.k_head_dim * kv_type_bytes(out.kv_type);
    }
  }
  const uint64_t memory = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                          static_cast<uint64_t>(sysconf(_SC_PAGE_SIZE));
  if (pool_bytes > memory / 2) {
    return Usage{args.all_layers ? "--layers" : "--context",
                 "the KV cache would take " + std::to_string(pool_bytes / 1000000000) +
                     " GB, more than half of this machine's memory; use --layers 1, a shorter "
                     "--context or a smaller --batch"};
  }
  return std::nullopt;
}

std::vector<PagedKv> build_caches(const Problem& p, const BenchArgs& args) {
  std::vector<PagedKv> caches;
  for (size_t i = 0; i < p.layers.size(); ++i) {
    const kvscope::LayerSpec& l = p.layers[i];
    const AttentionShape shape{p.q_heads, l.kv_heads, l.k_head_dim,
                               static_cast<uint32_t>(args.page_size), p.kv_type, args.kv_layout};
    std::vector<uint64_t> attended(p.lengths.size());
    for (size_t b = 0; b < p.lengths.size(); ++b)
      attended[b] = kvscope::attended_tokens(l, p.lengths[b]);
    caches.push_back(make_paged_kv(shape, attended, args.seed + i));
  }
  return caches;
}

uint64_t estimated_kv_bytes(const Problem& p) {
  uint64_t bytes = 0;
  for (const auto& l : p.layers) {
    const auto per_token = kvscope::kv_bytes_per_token_per_layer(l, p.report.kv_dtype);
    for (uint64_t len : p.lengths) bytes += per_token.value * kvscope::attended_tokens(l, len);
  }
  return bytes;
}

}  // namespace kvbench
