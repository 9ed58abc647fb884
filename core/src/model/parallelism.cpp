// Sharding of a model shape over tensor- and pipeline-parallel ranks.
#include "kvscope/model/parallelism.hpp"

#include <algorithm>
#include <string>

#include "base/checked_math.hpp"

namespace kvscope {

std::pair<size_t, size_t> pipeline_layers(size_t layers, uint32_t rank, const PipelineStages& stages) {
  const uint32_t pp = stages.count;
  std::vector<size_t> partitions(stages.partition.begin(), stages.partition.end());
  if (partitions.size() != pp) {
    partitions.assign(pp, layers / pp);
    for (size_t i = 2; i < layers % pp + 2; ++i) ++partitions[pp - i];
  }
  size_t first = 0;
  for (uint32_t r = 0; r < rank; ++r) first += partitions[r];
  return {first, first + partitions[rank]};
}

Result<PipelineStages> pipeline_stages(uint32_t stages, const std::vector<double>& partition,
                                       size_t layers) {
  using R = Result<PipelineStages>;
  if (partition.empty()) return R::success(PipelineStages(stages));
  if (partition.size() != stages) {
    return R::failure(make_error(kInvalidValue, "pp_layer_partition",
                                 std::to_string(partition.size()) + " stages listed for " +
                                     std::to_string(stages) + " pipeline stages"));
  }
  std::vector<uint32_t> counts;
  uint64_t sum = 0;
  for (double n : partition) {
    if (!(n >= 1 && n <= 1e6 && n == static_cast<double>(static_cast<uint32_t>(n)))) {
      return R::failure(make_error(kInvalidValue, "pp_layer_partition",
                                   "each stage needs a whole number of layers, at least 1"));
    }
    counts.push_back(static_cast<uint32_t>(n));
    sum += counts.back();
  }
  if (sum != layers) {
    return R::failure(make_error(kInvalidValue, "pp_layer_partition",
                                 "the stages hold " + std::to_string(sum) + " layers; the model has " +
                                     std::to_string(layers)));
  }
  return R::success(PipelineStages(stages, std::move(counts)));
}

Result<ModelShape> shard_shape(const ModelShape& shape, uint32_t tp, uint32_t rank,
                               const PipelineStages& stages) {
  using R = Result<ModelShape>;
  const uint32_t pp = stages.count;
  if (tp == 0)
    return R::failure(make_error(kInvalidValue, "tensor_parallel", "must be at least 1"));
  if (pp == 0 || pp > shape.layers.size()) {
    return R::failure(make_error(
        kInvalidValue, "pipeline_parallel",
        "must be between 1 and the model's " + std::to_string(shape.layers.size()) + " layers"));
  }
  // vllm/config/model.py verify_with_parallel_config.
  if (shape.num_attention_heads % tp != 0) {
    return R::failure(make_error(
        kInvalidValue, "tensor_parallel",
        "Total number of attention heads (" + std::to_string(shape.num_attention_heads) +
            ") must be divisible by tensor parallel size (" + std::to_string(tp) + ")."));
  }
  ModelShape out = shape;
  const auto [first, end] = pipeline_layers(shape.layers.size(), rank, stages);
  out.layers.assign(shape.layers.begin() + static_cast<std::ptrdiff_t>(first),
                    shape.layers.begin() + static_cast<std::ptrdiff_t>(end));
  out.num_attention_heads = shape.num_attention_heads / tp;
  for (LayerSpec& l : out.layers) {
    // QKVParallelLinear: KV heads split when there are at least tp of them, else replicated.
    if (l.attention != AttentionKind::kMla && l.attention != AttentionKind::kNone) {
      if (l.kv_heads % tp != 0 && tp % l.kv_heads != 0) {
        return R::failure(make_error(kInvalidValue, "tensor_parallel",
                                     "num_key_value_heads (" + std::to_string(l.kv_heads) +
                                         ") and tensor parallel size (" + std::to_string(tp) +
                                         ") must divide one another"));
      }
      l.kv_heads = l.kv_heads >= tp ? l.kv_heads / tp : 1;
    }
    l.state_values = ceil_div(l.state_values, tp);
    l.ssm_state_values = std::min(l.state_values, ceil_div(l.ssm_state_values, tp));
    l.mixer_params = ceil_div(l.mixer_params, tp);
  }
  return R::success(std::move(out));
}

}  // namespace kvscope
