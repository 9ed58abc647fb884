// Grouping and naming of layer layouts.
#include "kvscope/model/model_shape.hpp"

namespace kvscope {

ModelShape::ModelShape() = default;

std::vector<LayerGroup> group_layers(const ModelShape& shape) {
  std::vector<LayerGroup> groups;
  for (uint32_t i = 0; i < shape.layers.size(); ++i) {
    const LayerSpec& spec = shape.layers[i];
    LayerGroup* found = nullptr;
    for (LayerGroup& g : groups) {
      if (g.spec.same_cache_layout(spec)) {
        found = &g;
        break;
      }
    }
    if (found == nullptr) {
      groups.push_back(LayerGroup{spec, {}});
      found = &groups.back();
      found->layer_indices.reserve(shape.layers.size() - i);
    }
    found->layer_indices.push_back(i);
  }
  return groups;
}

const char* attention_kind_name(AttentionKind kind) {
  switch (kind) {
    case AttentionKind::kFull:
      return "full";
    case AttentionKind::kSlidingWindow:
      return "sliding_window";
    case AttentionKind::kChunked:
      return "chunked";
    case AttentionKind::kMla:
      return "mla";
    case AttentionKind::kCompressed:
      return "compressed";
    case AttentionKind::kShared:
      return "shared";
    case AttentionKind::kNone:
      return "none";
  }
  return "none";
}

const char* state_kind_name(StateKind kind) {
  switch (kind) {
    case StateKind::kNone:
      return "";
    case StateKind::kMamba:
      return "mamba";
    case StateKind::kMamba2:
      return "mamba2";
    case StateKind::kGatedDeltaNet:
      return "gated_delta_net";
    case StateKind::kLinearAttention:
      return "linear_attention";
    case StateKind::kShortConv:
      return "short_conv";
    case StateKind::kKimiDelta:
      return "kimi_delta";
  }
  return "";
}

std::string layer_kind_label(const LayerSpec& spec) {
  if (spec.attention ==
      AttentionKind::kCompressed)  // compressed_4, compressed_128; 0 = window only
    return "compressed_" + std::to_string(spec.compress_ratio);
  if (spec.state == StateKind::kNone) return attention_kind_name(spec.attention);
  if (spec.attention == AttentionKind::kNone) return "recurrent";
  return std::string(attention_kind_name(spec.attention)) + "+recurrent";
}

}  // namespace kvscope
