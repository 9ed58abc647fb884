// Length distributions and the concurrency a KV pool sustains. Expectations are deterministic
// quadratures over quantiles (no random sampling), so the same input gives the same answer.
#include "kvscope/kv/workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kvscope/base/decimal_text.hpp"
#include "kvscope/base/elementary_math.hpp"
#include "kvscope/kv/kv_arithmetic.hpp"

namespace kvscope {
namespace {

constexpr double kZ99 = 2.3263478740408408;  // standard normal 99th percentile
constexpr int kLengthPoints = 32;            // quadrature points per length distribution
constexpr int kProgressPoints = 8;           // points along a request's decode

// A token count with an optional k suffix; false when malformed.
bool parse_tokens(std::string_view text, double& out) {
  double multiplier = 1;
  if (!text.empty() && (text.back() == 'k' || text.back() == 'K')) {
    multiplier = 1024;
    text.remove_suffix(1);
  }
  if (text.empty() || text.size() > 24 ||
      text.find_first_not_of("0123456789.") != std::string_view::npos)
    return false;
  const bool whole = read_decimal(text, out) == text.size();
  out *= multiplier;
  return whole && std::isfinite(out);
}

Result<LengthDistribution> bad(const std::string& field, std::string_view spec,
                               const std::string& why) {
  return Result<LengthDistribution>::failure(
      make_error(kInvalidValue, field,
                 why + ", got " + quote_user_text(spec) +
                     " (forms: 4096, uniform:512-8192, lognormal:mean=2000,p99=16000)"));
}

}  // namespace

std::vector<std::pair<double, double>> LengthDistribution::quadrature() const {
  std::vector<std::pair<double, double>> points;
  switch (kind) {
    case LengthKind::kFixed:
      points.emplace_back(static_cast<double>(fixed), 1.0);
      break;
    case LengthKind::kUniform:  // midpoints: exact for anything linear in the length
      for (int i = 0; i < kLengthPoints; ++i) {
        const double u = (i + 0.5) / kLengthPoints;
        points.emplace_back(static_cast<double>(min) + u * static_cast<double>(max - min),
                            1.0 / kLengthPoints);
      }
      break;
    case LengthKind::kLogNormal: {  // trapezoid over z in [-6, 6] with normal-density weights
      double total = 0;
      for (int i = 0; i < kLengthPoints; ++i) {
        const double z = -6.0 + 12.0 * i / (kLengthPoints - 1);
        const double weight = natural_exp(-z * z / 2);
        points.emplace_back(natural_exp(mu + sigma * z), weight);
        total += weight;
      }
      for (auto& point : points) point.second /= total;
      break;
    }
  }
  return points;
}

std::string LengthDistribution::describe() const {
  char buf[96];
  switch (kind) {
    case LengthKind::kFixed:
      std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(fixed));
      break;
    case LengthKind::kUniform:
      std::snprintf(buf, sizeof buf, "uniform %llu-%llu", static_cast<unsigned long long>(min),
                    static_cast<unsigned long long>(max));
      break;
    case LengthKind::kLogNormal:
      std::snprintf(buf, sizeof buf, "log-normal, mean %.0f, p99 %.0f", mean, p99);
      break;
  }
  return buf;
}

Result<LengthDistribution> parse_length_distribution(std::string_view spec,
                                                     const std::string& field) {
  using R = Result<LengthDistribution>;
  constexpr double kMaxTokens = 1e12;
  LengthDistribution d;
  double a = 0, b = 0;
  if (spec.rfind("uniform:", 0) == 0) {
    const std::string_view range = spec.substr(8);
    const size_t dash = range.find('-');
    if (dash == std::string_view::npos || !parse_tokens(range.substr(0, dash), a) ||
        !parse_tokens(range.substr(dash + 1), b)) {
      return bad(field, spec, "expected uniform:MIN-MAX");
    }
    if (a < 1 || b < a || b > kMaxTokens) return bad(field, spec, "needs 1 <= MIN <= MAX <= 10^12");
    d.kind = LengthKind::kUniform;
    d.min = static_cast<uint64_t>(a);
    d.max = static_cast<uint64_t>(b);
    return R::success(d);
  }
  if (spec.rfind("lognormal:", 0) == 0) {
    const std::string_view params = spec.substr(10);
    const size_t comma = params.find(',');
    if (comma == std::string_view::npos || params.substr(0, 5) != "mean=" ||
        params.substr(comma + 1, 4) != "p99=" || !parse_tokens(params.substr(5, comma - 5), a) ||
        !parse_tokens(params.substr(comma + 5), b)) {
      return bad(field, spec, "expected lognormal:mean=M,p99=Q");
    }
    // mean = exp(mu + s^2/2), p99 = exp(mu + z s): s^2/2 - z s + ln(p99/mean) = 0.
    if (a < 1 || b <= a || b > kMaxTokens)
      return bad(field, spec, "needs 1 <= mean < p99 <= 10^12");
    const double gap = natural_log(b / a);
    const double discriminant = kZ99 * kZ99 - 2 * gap;
    if (discriminant < 0)
      return bad(field, spec, "p99 / mean must be at most 14.9 for a log-normal");
    d.kind = LengthKind::kLogNormal;
    d.mean = a;
    d.p99 = b;
    d.sigma = kZ99 - std::sqrt(discriminant);
    d.mu = natural_log(a) - d.sigma * d.sigma / 2;
    return R::success(d);
  }
  if (!parse_tokens(spec, a) || a < 0 || a > kMaxTokens || a != std::floor(a)) {
    return bad(field, spec, "expected a token count or a distribution");
  }
  d.fixed = static_cast<uint64_t>(a);
  return R::success(d);
}

Result<WorkloadCapacity> workload_capacity(const ModelShape& shape, const Dtype& kv,
                                           const Dtype& state, uint64_t pool_bytes,
                                           const WorkloadInput& w) {
  using R = Result<WorkloadCapacity>;
  if (w.max_model_len == 0)
    return R::failure(make_error(kInvalidValue, "max_model_len", "must be at least 1"));
  if (w.shared_prefix_tokens >= w.max_model_len) {
    return R::failure(
        make_error(kInvalidValue, "shared_prefix_tokens", "must be shorter than max_model_len"));
  }
  WorkloadCapacity out;
  const auto clip = [&](double tokens) {
    return std::clamp(tokens, 1.0, static_cast<double>(w.max_model_len));
  };
  double sum = 0, sum_sq = 0, tokens_sum = 0, prompt_sum = 0, output_sum = 0, weight_sum = 0;
  for (const auto& [prompt_length, prompt_weight] : w.prompt.quadrature()) {
    const double prompt =
        clip(std::round(prompt_length) + static_cast<double>(w.shared_prefix_tokens));
    for (const auto& [output_length, output_weight] : w.output.quadrature()) {
      const double output = std::max(1.0, std::round(output_length));
      const double weight = prompt_weight * output_weight;
      prompt_sum += weight * prompt;
      output_sum += weight * output;
      // A request is sampled at a random one of its decode steps: it then holds the prompt and
      // a uniform share of its output. Longer outputs are seen in proportion to their steps.
      for (int k = 0; k < kProgressPoints; ++k) {
        const uint64_t held =
            static_cast<uint64_t>(clip(prompt + std::round(output * (k + 0.5) / kProgressPoints)));
        const Result<KvEstimate> at =
            kv_totals(shape, kv, state, KvWorkload{held, 1, w.block_size_tokens, 0});
        if (!at.ok) return R::failure(at.error);
        const double bytes = static_cast<double>(at.value.kv_bytes_total);
        const double seen = weight * output;
        sum += seen * bytes;
        sum_sq += seen * bytes * bytes;
        tokens_sum += seen * static_cast<double>(held);
        weight_sum += seen;
      }
    }
  }
  out.mean_prompt_tokens = prompt_sum;
  out.mean_output_tokens = output_sum;
  out.mean_tokens_held = tokens_sum / weight_sum;
  const double mean = sum / weight_sum;
  out.stddev_bytes_per_sequence = std::sqrt(std::max(0.0, sum_sq / weight_sum - mean * mean));
  // The shared prefix is stored once: each sequence adds only its own part.
  double prefix_bytes = 0;
  if (w.shared_prefix_tokens > 0) {
    const Result<KvEstimate> prefix =
        kv_totals(shape, kv, state, KvWorkload{w.shared_prefix_tokens, 1, 0, 0});
    if (!prefix.ok) return R::failure(prefix.error);
    prefix_bytes = static_cast<double>(prefix.value.kv_bytes_per_sequence -
                                       prefix.value.state_bytes_per_sequence);
  }
  out.mean_bytes_per_sequence = std::max(0.0, mean - prefix_bytes);
  const double pool = static_cast<double>(pool_bytes) - prefix_bytes;
  out.expected_concurrency =
      pool > 0 && out.mean_bytes_per_sequence > 0 ? pool / out.mean_bytes_per_sequence : 0;
  // Largest N with N x mean + z99 x sqrt(N) x stddev <= pool (sum of independent sequences).
  if (pool > 0 && out.mean_bytes_per_sequence > 0) {
    const double m = out.mean_bytes_per_sequence, s = out.stddev_bytes_per_sequence;
    const double root = (-kZ99 * s + std::sqrt(kZ99 * kZ99 * s * s + 4 * m * pool)) / (2 * m);
    out.p99_concurrency = static_cast<uint64_t>(std::floor(root * root));
  }
  out.assumptions = {"prompt lengths " + w.prompt.describe() + ", output lengths " +
                         w.output.describe() + ", independent, clipped to max_model_len",
                     "each running request is seen at a uniformly random decode step (holds its "
                     "prompt and part of its output)",
                     "p99: the sum over independent requests stays within the pool with 99% "
                     "probability (normal approximation)"};
  if (w.shared_prefix_tokens > 0)
    out.assumptions.push_back("the shared prefix is stored once for all requests");
  return R::success(out);
}

}  // namespace kvscope
