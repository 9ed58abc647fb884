// kvbench's correctness check (bench_check.hpp).
#include "bench_check.hpp"

#include <algorithm>
#include <cstddef>

#include "decode_attention.hpp"

namespace kvbench {

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

}  // namespace kvbench
