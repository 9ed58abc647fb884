// Decode attention on the CPU: the fp64 reference, the work units and threads of the fast kernel
// with the path chosen for this CPU (cpu_kernels.hpp; the kernel itself is decode_kernel.hpp,
// built once per instruction set by kernel_*.cpp), the merge of a sequence's chunks, and the check.
#include "decode_attention.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>

#include "enum_names.hpp"
#include "kernel_units.hpp"

namespace kvbench {
namespace {

using RunUnits = void (*)(UnitQueue&);

RunUnits path_entry(CpuKernel kernel) {
  switch (kernel) {
    case CpuKernel::kPortable:
      return run_units_portable;
    case CpuKernel::kAvx2:
      return run_units_avx2;
    case CpuKernel::kAvx512:
      return run_units_avx512;
    case CpuKernel::kAvx512Bf16:
      return run_units_avx512_bf16;
    case CpuKernel::kAvx512Vnni:
      return run_units_avx512_vnni;
  }
  return run_units_portable;
}

}  // namespace

std::vector<double> decode_attention_reference(const PagedKv& kv) {
  const AttentionShape& s = kv.shape;
  const uint32_t g = s.q_heads / s.kv_heads, d = s.head_dim;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  std::vector<double> out(kv.lengths.size() * s.q_heads * d, 0.0);
  for (uint64_t b = 0; b < kv.lengths.size(); ++b) {
    const uint64_t len = kv.lengths[b];
    for (uint32_t hq = 0; hq < s.q_heads; ++hq) {
      const uint32_t hk = hq / g;
      const float* q = kv.q.data() + (b * s.q_heads + hq) * d;
      std::vector<double> score(len);
      for (uint64_t t = 0; t < len; ++t) {
        double dot = 0;
        for (uint32_t i = 0; i < d; ++i) {
          dot +=
              double{q[i]} *
              dequantize(s.kv_type, kv.k_row(b, t, hk) + i * kv_type_bytes(s.kv_type), kv.k_scale);
        }
        score[t] = dot * scale;
      }
      const double m = *std::max_element(score.begin(), score.end());
      double sum = 0;
      for (double& x : score) sum += (x = std::exp(x - m));
      double* o = &out[(b * s.q_heads + hq) * d];
      for (uint64_t t = 0; t < len; ++t) {
        for (uint32_t i = 0; i < d; ++i) {
          o[i] +=
              score[t] *
              dequantize(s.kv_type, kv.v_row(b, t, hk) + i * kv_type_bytes(s.kv_type), kv.v_scale);
        }
      }
      for (uint32_t i = 0; i < d; ++i) o[i] /= sum;
    }
  }
  return out;
}

bool parse_cpu_walk(const std::string& name, CpuWalk& out) {
  static const CpuWalk kAll[] = {CpuWalk::kHead, CpuWalk::kPage};
  return parse_enum_name(name, kAll, cpu_walk_name, out);
}

const char* cpu_walk_name(CpuWalk walk) { return walk == CpuWalk::kPage ? "page" : "head"; }

uint64_t auto_chunk_tokens(const PagedKv& kv, uint32_t threads, CpuWalk walk) {
  uint64_t longest = 1;
  for (uint64_t len : kv.lengths) longest = std::max(longest, len);
  const uint64_t whole = kv.lengths.size() * (walk == CpuWalk::kPage ? 1 : kv.shape.kv_heads);
  const uint64_t want = uint64_t{threads} * 4;  // units per thread, for balance with ragged lengths
  if (whole >= want) return longest;
  const uint64_t chunks = (want + whole - 1) / whole;
  // At least 512 tokens, a whole number of pages: a chunk streams contiguous runs.
  const uint64_t page = kv.shape.page_size;
  const uint64_t chunk = std::max<uint64_t>(512, (longest + chunks - 1) / chunks);
  return (chunk + page - 1) / page * page;
}

void decode_attention_cpu(const PagedKv& kv, const CpuPlan& plan, float* out) {
  const AttentionShape& s = kv.shape;
  const uint32_t g = s.q_heads / s.kv_heads, d = s.head_dim;
  const uint32_t threads = std::max(1u, plan.threads);
  const uint64_t chunk =
      plan.chunk_tokens ? plan.chunk_tokens : auto_chunk_tokens(kv, threads, plan.walk);
  const CpuKernel kernel = plan.kernel.value_or(best_cpu_kernel(s.kv_type));
  const std::vector<CpuKernel> supported = supported_cpu_kernels(s.kv_type);
  if (std::find(supported.begin(), supported.end(), kernel) == supported.end()) {
    throw std::invalid_argument(std::string("this CPU cannot run the ") + cpu_kernel_name(kernel) +
                                " path for " + kv_type_name(s.kv_type) + " KV");
  }
  const uint32_t heads_per_unit = plan.walk == CpuWalk::kPage ? s.kv_heads : 1;
  std::vector<WorkUnit> units;
  for (uint64_t b = 0; b < kv.lengths.size(); ++b) {
    for (uint32_t h = 0; h < s.kv_heads; h += heads_per_unit) {
      for (uint64_t t = 0; t < kv.lengths[b]; t += chunk)
        units.push_back({b, h, heads_per_unit, t, std::min(kv.lengths[b], t + chunk)});
    }
  }
  std::vector<Partial> partials(units.size());
  std::atomic<uint64_t> next{0};
  UnitQueue queue{kv, units, partials, next};
  const RunUnits run_units = path_entry(kernel);
  auto worker = [&] { run_units(queue); };
  std::vector<std::thread> pool;
  for (uint32_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  // Merge the chunks of each (sequence, query head) by their log-sum-exp, then normalize: the
  // units of a sequence are consecutive, and unit u holds query heads [head, head + heads) x g.
  const uint64_t per_seq = uint64_t{s.q_heads} * d;
  std::vector<float> m(s.q_heads), l(s.q_heads);
  for (uint64_t first = 0, last = 0; first < units.size(); first = last) {
    const uint64_t b = units[first].seq;
    while (last < units.size() && units[last].seq == b) ++last;
    std::fill(m.begin(), m.end(), -std::numeric_limits<float>::infinity());
    std::fill(l.begin(), l.end(), 0.0f);
    std::fill(out + b * per_seq, out + (b + 1) * per_seq, 0.0f);
    for (int pass = 0; pass < 2; ++pass) {  // the maxima, then the weighted sums
      for (uint64_t u = first; u < last; ++u) {
        const uint64_t first_q = uint64_t{units[u].head} * g;
        for (uint64_t j = 0; j < uint64_t{units[u].heads} * g; ++j) {
          const uint64_t hq = first_q + j;
          if (pass == 0) {
            m[hq] = std::max(m[hq], partials[u].m[j]);
            continue;
          }
          const float w = std::exp(partials[u].m[j] - m[hq]);
          l[hq] += partials[u].l[j] * w;
          const float* acc = &partials[u].acc[j * d];
          float* o = out + b * per_seq + hq * d;
          for (uint32_t i = 0; i < d; ++i) o[i] += acc[i] * w;
        }
      }
    }
    for (uint32_t hq = 0; hq < s.q_heads; ++hq) {
      const float normalize = kv.v_scale / l[hq];  // V's tensor scale, applied once
      float* o = out + b * per_seq + uint64_t{hq} * d;
      for (uint32_t i = 0; i < d; ++i) o[i] *= normalize;
    }
  }
}

Comparison compare(const std::vector<double>& reference, const float* out, double atol,
                   double rtol) {
  Comparison c;
  c.pass = true;
  for (uint64_t i = 0; i < reference.size(); ++i) {
    const double o = out[i], r = reference[i];
    if (!std::isfinite(o)) {
      c.all_finite = false;
      c.pass = false;
      continue;
    }
    const double err = std::fabs(o - r);
    c.max_abs_error = std::max(c.max_abs_error, err);
    c.max_rel_error = std::max(c.max_rel_error, err / std::max(std::fabs(r), 1e-6));
    if (err > atol + rtol * std::fabs(r)) c.pass = false;
  }
  return c;
}

}  // namespace kvbench
