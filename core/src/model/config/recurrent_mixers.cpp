// Recurrent mixers: per-sequence state sizes and parameter counts of Mamba, Mamba-2, gated delta
// net, Kimi delta, lightning attention and short-convolution layers.
#include <algorithm>
#include <cctype>
#include <optional>

#include "model/config/importer.hpp"
#include "base/checked_math.hpp"
#include "kvscope/model/dtype.hpp"

namespace kvscope::config {

LayerSpec Importer::recurrent_layer(StateKind kind, ConfigReader* fields) {
  LayerSpec s;
  s.attention = AttentionKind::kNone;
  s.state = kind;
  const MixerSize m = recurrent_mixer(kind, fields);
  s.state_values = m.conv_values + m.ssm_values;
  s.ssm_state_values = m.ssm_values;
  s.mixer_params = m.params;
  return s;
}

LayerSpec Importer::attention_and_recurrent_layer(size_t i, StateKind kind) {
  LayerSpec s = attention_layer(i, AttentionKind::kFull, 0);
  const LayerSpec m = recurrent_layer(kind);
  s.state = m.state;
  s.state_values = m.state_values;
  s.ssm_state_values = m.ssm_state_values;
  s.mixer_params = m.mixer_params;
  return s;
}

Importer::MixerSize Importer::recurrent_mixer(StateKind kind, ConfigReader* fields) {
  if (r_.failed()) return {};
  const uint64_t hidden = shape_.hidden_size;
  switch (kind) {
    case StateKind::kMamba: {
      const uint64_t d_state = r_.require_count({"mamba_d_state", "state_size"}, 1, kMaxHeadDim);
      const uint64_t d_conv = r_.require_count({"mamba_d_conv", "conv_kernel"}, 1, 1024);
      uint64_t d_inner = 0;
      if (is_one_of(type(), {"mamba", "falcon_mamba"})) {
        d_inner = r_.require_count({"intermediate_size"}, 1, kMaxWidth);
      } else {
        d_inner = r_.require_count({"mamba_expand", "expand"}, 1, 64) * hidden;
      }
      uint64_t dt_rank = ceil_div(hidden, 16);  // "auto"
      if (r_.has("mamba_dt_rank") && r_.config()["mamba_dt_rank"].is_number()) {
        dt_rank = r_.require_count({"mamba_dt_rank"}, 1, kMaxWidth);
      } else if (r_.has("time_step_rank") && r_.config()["time_step_rank"].is_number()) {
        dt_rank = r_.require_count({"time_step_rank"}, 1, kMaxWidth);
      }
      return {d_inner * (d_conv - 1), d_inner * d_state,
              hidden * 2 * d_inner + d_inner * (d_conv + 1) + d_inner * (dt_rank + 2 * d_state) +
                  (dt_rank + 1) * d_inner + d_inner * d_state + d_inner + d_inner * hidden};
    }
    case StateKind::kMamba2: {
      const uint64_t d_state =
          r_.require_count({"ssm_state_size", "mamba_d_state", "state_size"}, 1, kMaxHeadDim);
      const uint64_t d_conv = r_.require_count({"conv_kernel", "mamba_d_conv"}, 1, 1024);
      // A pure Mamba2Config names its mixer's heads num_heads and head_dim.
      const bool pure = type() == "mamba2";
      const uint64_t n_heads =
          pure ? heads_ : r_.require_count({"mamba_num_heads", "mamba_n_heads"}, 1, kMaxHeads);
      const uint64_t head =
          pure ? shape_.head_dim
               : r_.require_count({"mamba_head_dim", "mamba_d_head"}, 1, kMaxHeadDim);
      const uint64_t groups = r_.require_count({"n_groups", "mamba_n_groups"}, 1, kMaxHeads);
      uint64_t d_inner = n_heads * head;
      if (auto ssm = r_.count("mamba_d_ssm", 1, kMaxWidth)) d_inner = *ssm;
      const uint64_t conv_dim = d_inner + 2 * groups * d_state;
      return {conv_dim * (d_conv - 1), n_heads * head * d_state,
              hidden * (d_inner + conv_dim + n_heads) + conv_dim * (d_conv + 1) + 3 * n_heads +
                  d_inner + d_inner * hidden};
    }
    case StateKind::kGatedDeltaNet: {
      const uint64_t k_heads = r_.require_count({"linear_num_key_heads"}, 1, kMaxHeads);
      const uint64_t v_heads = r_.require_count({"linear_num_value_heads"}, 1, kMaxHeads);
      const uint64_t k_dim = r_.require_count({"linear_key_head_dim"}, 1, kMaxHeadDim);
      const uint64_t v_dim = r_.require_count({"linear_value_head_dim"}, 1, kMaxHeadDim);
      const uint64_t d_conv = r_.require_count({"linear_conv_kernel_dim"}, 1, 1024);
      const uint64_t key_dim = k_heads * k_dim, value_dim = v_heads * v_dim;
      const uint64_t conv_dim = 2 * key_dim + value_dim;
      return {conv_dim * (d_conv - 1), v_heads * k_dim * v_dim,
              hidden * (2 * key_dim + 2 * value_dim) + hidden * 2 * v_heads + conv_dim * d_conv +
                  2 * v_heads + v_dim + value_dim * hidden};
    }
    case StateKind::kLinearAttention: {
      const uint64_t width = heads_ * shape_.head_dim;
      return {0, heads_ * shape_.head_dim * shape_.head_dim, 5 * hidden * width + width};
    }
    case StateKind::kShortConv: {
      const uint64_t kernel = r_.require_count({"conv_L_cache"}, 2, 1024);
      return {hidden * (kernel - 1), 0, 3 * hidden * hidden + hidden * kernel + hidden * hidden};
    }
    case StateKind::kKimiDelta: {
      // Kimi Delta Attention (linear_attn_config): q, k, v short convolutions and a
      // head_dim x head_dim state per head; q/k/v/o projections, low-rank forget and output
      // gates (head_dim wide), and a beta per head.
      ConfigReader& f = fields != nullptr ? *fields : r_;
      const uint64_t heads = f.require_count({"num_heads"}, 1, kMaxHeads);
      const uint64_t dim = f.require_count({"head_dim"}, 1, kMaxHeadDim);
      const uint64_t kernel = f.require_count({"short_conv_kernel_size"}, 1, 1024);
      if (f.failed() && &f != &r_) {
        const Error& e = f.error();
        r_.fail_at(e.code.c_str(), e.field, e.message.substr(e.field.size() + 2));
      }
      const uint64_t width = heads * dim;
      return {3 * width * (kernel - 1), heads * dim * dim,
              4 * hidden * width + 2 * (hidden * dim + dim * width) + hidden * heads +
                  3 * width * kernel};
    }
    case StateKind::kNone:
      return {};
  }
  return {};
}

StateKind Importer::mamba_kind() const {
  return is_one_of(type(),
                   {"mamba2", "nemotron_h", "falcon_h1", "zamba2", "bamba", "granitemoehybrid"})
             ? StateKind::kMamba2
             : StateKind::kMamba;
}

}  // namespace kvscope::config
