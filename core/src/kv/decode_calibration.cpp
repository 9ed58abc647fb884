// The catalogue's decode-efficiency measurement nearest to a decode step.
#include "kvscope/kv/decode_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kvscope/base/elementary_math.hpp"

namespace kvscope {
namespace {

// Each anchor's KV dtype, parsed once (in the catalogue's order).
const std::vector<Result<Dtype>>& anchor_dtypes() {
  static const std::vector<Result<Dtype>> dtypes = [] {
    std::vector<Result<Dtype>> out;
    for (const DecodeEfficiencyAnchor& a : decode_efficiency_anchors())
      out.push_back(parse_dtype(a.kv_dtype, DtypeUse::kKv, "decode_efficiency"));
    return out;
  }();
  return dtypes;
}

}  // namespace

const DecodeEfficiencyAnchor* nearest_decode_anchor(const GpuEntry& gpu, const Dtype& kv,
                                                    uint64_t batch, uint64_t context) {
  const DecodeEfficiencyAnchor* best = nullptr;
  double best_distance = 0;
  const std::vector<DecodeEfficiencyAnchor>& anchors = decode_efficiency_anchors();
  for (size_t i = 0; i < anchors.size(); ++i) {
    const DecodeEfficiencyAnchor& a = anchors[i];
    if (a.device_class != gpu.device_class || a.datasheet_bytes_per_s <= 0) continue;
    const Result<Dtype>& measured = anchor_dtypes()[i];
    // Another KV width reads other bytes with other conversions: only when none of this width.
    const bool same_width = measured.ok && measured.value.block_bits == kv.block_bits &&
                            measured.value.block_values == kv.block_values;
    const double width_penalty = same_width ? 0 : 1e6;
    // Apart in log scale (natural logarithms: the nearest anchor is the same in any base).
    const double distance =
        width_penalty +
        std::hypot(natural_log(static_cast<double>(std::max<uint64_t>(batch, 1)) /
                               static_cast<double>(a.batch)),
                   natural_log(static_cast<double>(std::max<uint64_t>(context, 1)) /
                               static_cast<double>(a.context)));
    if (best == nullptr || distance < best_distance) {
      best = &a;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace kvscope
