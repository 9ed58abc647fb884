// SGLang on one GPU: python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py
// (profile_max_num_token, get_cell_size_per_token, handle_max_mamba_cache, init_memory,
// set_num_tokens_hybrid_swa); python/sglang/srt/configs/model_config.py (is_hybrid_swa_model);
// shared/docs/engine-formulas.md §2.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "base/one_of.hpp"
#include "engines/engine_profiles.hpp"
#include "kvscope/base/units.hpp"
#include "kvscope/kv/kv_arithmetic.hpp"

namespace kvscope::engines {

// kvscope's mem_fraction_static for SGLang's early-2026 line (its fallback when it cannot size
// the reserve from the GPU, server_args.py _handle_gpu_memory_settings); the late-2026 line
// derives it from the card as SGLang does (card_fraction).
constexpr double kSglangDefaultMemFractionStatic = 0.88;
// Mamba slots each running request may hold with the radix cache on
// (MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO; 1 with --disable-radix-cache).
constexpr uint64_t kMambaSlotsPerRequest = 3;
// max_running_requests under speculative decoding when none is given: server_args.py's "Max
// running requests is reset to 48 for speculative decoding".
constexpr uint64_t kSpeculativeRequests = 48;

namespace {

// The recurrent-state slot of one request on this GPU (BaseLinearStateParams.mamba_cache_per_req:
// convolution states in `conv`, SSM states in the resolved dtype). Empty when the shape keeps no
// recurrent state.
Result<StatePool> state_slot(const ModelShape& shape, const Dtype& conv) {
  using R = Result<StatePool>;
  StatePool pool;
  const Result<Dtype> ssm = ssm_state_dtype(shape, conv);
  if (!ssm.ok) return R::failure(ssm.error);
  CheckedU64 conv_bytes, ssm_bytes;
  bool attention = false;
  for (const LayerSpec& l : shape.layers) {
    attention = attention || l.keeps_tokens();
    if (l.state == StateKind::kNone) continue;
    if (l.state == StateKind::kMamba || l.state == StateKind::kLinearAttention) {
      return R::failure(make_error(
          kUnsupported, "engine",
          std::string("sglang: ") + state_kind_name(l.state) + " state pools are not modelled"));
    }
    const uint64_t ssm_values = std::min(l.ssm_state_values, l.state_values);
    const Result<uint64_t> c = row_bytes(conv, l.state_values - ssm_values, 1, "state_dtype");
    const Result<uint64_t> t = row_bytes(ssm.value, ssm_values, 1, "ssm_state_dtype");
    if (!c.ok) return R::failure(c.error);
    if (!t.ok) return R::failure(t.error);
    conv_bytes += c.value;
    ssm_bytes += t.value;
  }
  if (conv_bytes.overflowed() || ssm_bytes.overflowed())
    return R::failure(make_error(kOutOfRange, "state_dtype", "recurrent state exceeds 2^64-1"));
  if (conv_bytes.value() + ssm_bytes.value() != 0 && !attention) {
    return R::failure(make_error(kUnsupported, "engine",
                                 "sglang: attention-free models are not modelled (its hybrid pools "
                                 "size the KV cache from the attention layers)"));
  }
  pool.conv_bytes_per_slot = conv_bytes.value();
  pool.ssm_bytes_per_slot = ssm_bytes.value();
  pool.conv_dtype = conv.name;
  pool.ssm_dtype = ssm.value.name;
  return R::success(pool);
}

// handle_max_mamba_cache: speculative decoding's intermediate states first, then a fixed slot
// count or the share mamba_full_memory_ratio gives the states against the KV pool; returns the
// memory left for the KV pool.
Result<uint64_t> reserve_states(StatePool& states, uint64_t rest, uint64_t given_running,
                                const PlanReport& r, const PlanInput& in,
                                std::vector<std::string>& notes) {
  using R = Result<uint64_t>;
  const uint64_t slot = states.conv_bytes_per_slot + states.ssm_bytes_per_slot;
  if (!r.speculative.method.empty()) {  // draft tokens = steps + 1
    const uint64_t draft = r.speculative.num_speculative_tokens + 1;
    const CheckedU64 spec = CheckedU64(slot) * given_running * draft;
    rest = left_after(rest, spec);
    notes.push_back("speculative decoding: " + format_gib(spec.overflowed() ? 0 : spec.value()) +
                    " of intermediate states for " + with_commas(given_running) + " requests x " +
                    std::to_string(draft) + " draft tokens set aside first");
  }
  if (in.sglang.max_mamba_cache_size != 0) {
    states.slots = in.sglang.max_mamba_cache_size;
  } else if (in.sglang.disable_radix_cache && given_running != 0) {
    states.slots = given_running;
  } else {
    const double share = static_cast<double>(rest) * in.sglang.mamba_full_memory_ratio /
                         (1 + in.sglang.mamba_full_memory_ratio);
    states.slots = static_cast<uint64_t>(share / static_cast<double>(slot));
  }
  const CheckedU64 reserved = CheckedU64(states.slots) * slot;
  const CheckedU64 allocated = (CheckedU64(states.slots) + 1) * slot;  // one padding slot
  if (allocated.overflowed())
    return R::failure(
        make_error(kOutOfRange, "sglang.max_mamba_cache_size", "state pool exceeds 2^64-1"));
  states.reserved_bytes = reserved.value();
  states.bytes = allocated.value();
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%g", in.sglang.mamba_full_memory_ratio);
  notes.push_back(
      "recurrent states: " + with_commas(states.slots) + " slots of " + format_binary_size(slot) +
      " (conv " + states.conv_dtype + ", SSM " + states.ssm_dtype + ") set aside first, " +
      (in.sglang.max_mamba_cache_size != 0 ? std::string("--max-mamba-cache-size")
                                           : std::string("mamba_full_memory_ratio ") + ratio) +
      "; SGLang allocates one more as padding");
  return R::success(left_after(rest, reserved));
}

// Architectures SGLang gives a hybrid SWA pool (is_hybrid_swa_model,
// python/sglang/srt/configs/model_config.py); releases of 2025 listed no Gemma 4.
bool hybrid_swa_architecture(const ModelShape& shape, const std::string& version) {
  const bool gemma4 = version != "2025";
  return std::any_of(shape.architectures.begin(), shape.architectures.end(), [&](const auto& a) {
    return is_one_of(a, {"Llama4ForConditionalGeneration", "GptOssForCausalLM", "MiMoV2ForCausalLM",
                         "MiMoV2FlashForCausalLM", "Step3p5ForCausalLM"}) ||
           (gemma4 && is_one_of(a, {"Gemma4ForCausalLM", "Gemma4ForConditionalGeneration"}));
  });
}

// Bytes per token of the full and of the sliding layers on this GPU.
struct LayerBytes {
  uint64_t full = 0;
  uint64_t sliding = 0;
  uint64_t window = 0;  // the widest window
};

Result<LayerBytes> full_and_sliding(const ModelShape& shape, const Dtype& kv) {
  LayerBytes b;
  for (const LayerSpec& l : shape.layers) {
    const Result<uint64_t> per_token = kv_bytes_per_token_per_layer(l, kv);
    if (!per_token.ok) return Result<LayerBytes>::failure(per_token.error);
    (l.windowed() ? b.sliding : b.full) += per_token.value;  // cell_bytes has checked the sums
    if (l.windowed()) b.window = std::max(b.window, l.window_tokens);
  }
  return Result<LayerBytes>::success(b);
}

// How many prefill CUDA graphs SGLang captures up to `max_bs` tokens: its ladder's buckets
// (arg_groups/cuda_graph_hook.py, generate_prefill_cuda_graph_batch_sizes).
uint64_t prefill_graph_buckets(uint64_t max_bs) {
  uint64_t n = 0;
  for (const auto& [from, to, step] : {std::array<uint64_t, 3>{4, 32, 4},
                                       {48, 256, 16},
                                       {288, 512, 32},
                                       {576, 1024, 64},
                                       {1280, 4096, 256},
                                       {4608, UINT64_MAX, 512}})
    for (uint64_t bs = from; bs <= std::min(to, max_bs); bs += step) ++n;
  return n;
}

// SGLang's default mem_fraction_static from the card (python/sglang/srt/arg_groups/memory_hook.py,
// handle_gpu_memory_settings, in the source of October 2026): of the card's MiB, what it keeps for
// activations of a chunked-prefill batch, NCCL per rank and the decode and prefill CUDA graphs (the
// prefill graph on by default since PR #23906; off under pipeline parallelism), at least 10 GiB on
// cards over 60 GiB, as round((card - reserved) / card, 3).
double card_fraction(const PlanReport& r, const ModelShape& shape, const PlanInput& in) {
  const double card = static_cast<double>(r.gpu_memory_bytes) / (1 << 20);  // MiB
  // Under DP attention the plan's TP is one rank's; SGLang's tp_size counts every GPU.
  const uint64_t dp = in.sglang.enable_dp_attention && in.data_parallel > 1 ? in.data_parallel : 1;
  const uint64_t tp_size = uint64_t{in.tensor_parallel} * dp;
  const bool wide = tp_size >= 4;
  const double tier_gib = card / 1024;
  const uint64_t chunk = tier_gib < 20    ? 2048
                         : tier_gib < 60  ? 4096
                         : tier_gib < 160 ? 8192
                                          : 16384;
  const uint64_t decode_bs = tier_gib < 20    ? 8
                             : tier_gib < 35  ? (wide ? 160 : 48)
                             : tier_gib < 60  ? (wide ? 160 : 32)
                             : tier_gib < 160 ? (wide ? 512 : 256)
                                              : 512;
  const bool mla = shape.mla.kv_lora_rank != 0;
  const double prefill_graphs = in.pipeline_parallel > 1 ? 0
                                : mla                    ? 1.5 * 1024
                                      : 8.0 * static_cast<double>(prefill_graph_buckets(chunk));
  // DP attention pads its graphs (reserve_for_graph_mb: "DP attention needs more padding"): 3 MiB
  // a decode batch slot per rank, 1.5 more past 300 slots.
  const double dp_graphs =
      dp == 1 ? 0 : static_cast<double>(decode_bs * dp) * (decode_bs > 300 ? 4.5 : 3.0);
  // Activations of max(chunk, 2048) tokens (the chunk before DP attention divides it): every
  // tier's chunk is 2048 or more.
  double reserved =
      512 + 1.5 * static_cast<double>(chunk) +
      static_cast<double>(tp_size) * static_cast<double>(in.pipeline_parallel) / 8 * 1024 +
      2.0 * static_cast<double>(decode_bs) + dp_graphs + prefill_graphs;
  if (card > 60 * 1024) reserved = std::max(reserved, 10.0 * 1024);
  return std::round((card - reserved) / card * 1000) / 1000;
}

// What a vision tower leaves of the default fraction (memory_hook.py / server_args.py
// adjust_mem_fraction_for_vlm): 0.95 x (1 - 0.1 x (its layers x hidden^2 over ViT-L/14's 24 x
// 1024^2, less 1)), the second factor held within [0.8, 1.05].
double vision_share(const ModelShape& shape) {
  const double ratio = static_cast<double>(shape.vision_layers) *
                       static_cast<double>(shape.vision_hidden_size) *
                       static_cast<double>(shape.vision_hidden_size) / (24.0 * 1024 * 1024);
  return 0.95 * std::clamp(1.0 - 0.1 * (ratio - 1.0), 0.8, 1.05);
}

// --mem-fraction-static (SGLang's default when not given), once the ratios are checked.
Result<double> static_fraction(const PlanReport& r, const ModelShape& shape, const PlanInput& in) {
  using RD = Result<double>;
  if (!(in.sglang.mamba_full_memory_ratio > 0 && in.sglang.mamba_full_memory_ratio <= 1e6)) {
    return RD::failure(
        make_error(kInvalidValue, "sglang.mamba_full_memory_ratio", "must be a positive number"));
  }
  if (!(in.sglang.swa_full_tokens_ratio > 0 && in.sglang.swa_full_tokens_ratio <= 1e6)) {
    return RD::failure(
        make_error(kInvalidValue, "sglang.swa_full_tokens_ratio", "must be a positive number"));
  }
  double fraction = in.sglang.mem_fraction_static != 0 ? in.sglang.mem_fraction_static
                    : r.engine_version == "late-2026" && r.gpu_memory_bytes != 0
                        ? card_fraction(r, shape, in)
                        : kSglangDefaultMemFractionStatic;
  if (in.sglang.mem_fraction_static == 0 && shape.vision_layers != 0)
    fraction *= vision_share(shape);
  if (in.sglang.mem_fraction_static == 0 && !(fraction > 0)) {  // SGLang's own default
    char shown[16];
    std::snprintf(shown, sizeof shown, "%.3g", fraction);
    return RD::failure(
        make_error(kOutOfRange, "sglang.mem_fraction_static",
                   "SGLang's default for this card is " + std::string(shown) +
                       ": what it reserves for activations, CUDA graphs and NCCL over tp x pp = " +
                       std::to_string(uint64_t{in.tensor_parallel} * in.pipeline_parallel) +
                       " ranks exceeds the card; give --mem-fraction-static or fewer ranks"));
  }
  if (!(fraction > 0 && fraction <= 1)) {
    return RD::failure(make_error(kInvalidValue, "sglang.mem_fraction_static", "must be in (0, 1]"));
  }
  return RD::success(fraction);
}

// The static budget: rest = free after weights - total x (1 - fraction), with total the free
// memory before loading.
void static_budget(PlanReport& r, const ModelShape& shape, const PlanInput& in, double fraction) {
  if (in.sglang.mem_fraction_static == 0 && !r.kv_memory_given) {
    char shown[16], base[16], share[16];
    std::snprintf(shown, sizeof shown, "%.3g", fraction);
    std::snprintf(base, sizeof base, "%.3g",
                  shape.vision_layers != 0 ? fraction / vision_share(shape) : fraction);
    std::snprintf(share, sizeof share, "%.4f", vision_share(shape));
    r.notes.push_back(
        "mem_fraction_static " + std::string(shown) +
        (shape.vision_layers != 0
             ? " = " + std::string(base) + " x " + share +
                   " for the vision tower (adjust_mem_fraction_for_vlm), " + base + " being"
             : std::string(":")) +
        (r.engine_version == "late-2026"
             ? " SGLang's default for this card (memory_hook.py)"
             : " SGLang's fallback; kvscope's late-2026 line derives it from the card") +
        " (pass --mem-fraction-static to match a server log)");
  }
  if (r.kv_memory_given) return;
  r.requested_bytes = static_cast<uint64_t>(static_cast<double>(r.gpu_memory_bytes) * fraction);
  const uint64_t reserve = r.gpu_memory_bytes - r.requested_bytes;
  r.kv_pool_bytes = left_after(r.gpu_memory_bytes, CheckedU64(r.weights_bytes) + reserve);
  r.notes.push_back(
      "SGLang takes the fraction of the memory free before loading; the whole card is assumed "
      "free");
}

// init_memory: the request cap from the profiled pool (unless given), then at most the state
// slots over the slots one request takes.
uint64_t running_requests(PlanReport& r, const PlanInput& in, const StatePool& states,
                          bool recurrent, uint64_t given_running, uint64_t profiled) {
  uint64_t running = given_running;
  if (running == 0) {
    const double from_pool =
        static_cast<double>(profiled) / static_cast<double>(r.max_model_len) * 512;
    running = std::min<uint64_t>(std::max<uint64_t>(static_cast<uint64_t>(from_pool), 2048), 4096);
  }
  const uint64_t per_request = in.sglang.disable_radix_cache ? 1 : kMambaSlotsPerRequest;
  if (recurrent && states.slots / per_request < running) {
    running = states.slots / per_request;
    r.notes.push_back("max_running_requests " + with_commas(running) + ": the state slots over " +
                      std::to_string(per_request) + " per request" +
                      (in.sglang.disable_radix_cache ? " (radix cache off)" : " (radix cache on)"));
  }
  return running;
}

// swa_full_tokens_ratio: the one given, else 0.8, and from the late-2026 line 0.15 for Gemma 4's
// MoE checkpoints (server_args.py _handle_model_specific_adjustments; dense Gemma 4 keeps 0.8,
// which SGLang's test_dense_gemma4_default_preserved says avoids starving the SWA pool).
double swa_full_tokens_ratio(const PlanReport& r, const ModelShape& shape, const PlanInput& in) {
  const bool given = in.sglang.swa_full_tokens_ratio != SglangOptions{}.swa_full_tokens_ratio;
  const bool gemma4_moe =
      shape.moe.num_experts != 0 &&
      std::any_of(shape.architectures.begin(), shape.architectures.end(), [](const auto& a) {
        return is_one_of(a, {"Gemma4ForCausalLM", "Gemma4ForConditionalGeneration"});
      });
  return !given && gemma4_moe && r.engine_version == "late-2026" ? 0.15
                                                                 : in.sglang.swa_full_tokens_ratio;
}

// set_num_tokens_hybrid_swa: the profiled bytes split so that sliding layers hold
// swa_full_tokens_ratio as many tokens as the full layers; the sliding layers' tokens.
uint64_t split_hybrid_swa(PlanReport& r, const ModelShape& shape, const PlanInput& in,
                          const LayerBytes& b, uint64_t profiled, uint64_t page) {
  const double ratio_value = swa_full_tokens_ratio(r, shape, in);
  const double total = static_cast<double>(profiled) * static_cast<double>(b.full + b.sliding);
  const double denominator =
      static_cast<double>(b.full) + ratio_value * static_cast<double>(b.sliding);
  const uint64_t full = b.full == 0 ? 0 : static_cast<uint64_t>(total / denominator);
  const uint64_t swa_tokens =
      b.full == 0 ? profiled
                  : static_cast<uint64_t>(static_cast<double>(full) * ratio_value) / page * page;
  r.kv_pool_tokens = full / page * page;
  r.swa_pool_tokens = swa_tokens;
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%g", ratio_value);
  r.notes.push_back("hybrid SWA pool: " + with_commas(r.kv_pool_tokens) +
                    " tokens for the full layers, " + with_commas(swa_tokens) +
                    " for the sliding ones (swa_full_tokens_ratio " + ratio +
                    "; --disable-hybrid-swa-memory for one pool)");
  return swa_tokens;
}

// One request of max_model_len: every token in the full layers, its window in the sliding ones
// (the SWA pool evicts what falls out of it); the sequences and the longest context the pools hold.
Result<bool> request_capacity(PlanReport& r, const LayerBytes& b, bool hybrid_swa,
                              uint64_t swa_tokens, uint64_t cell) {
  const uint64_t len = r.max_model_len;
  const uint64_t kept = hybrid_swa ? std::min(len, b.window) : len;
  const CheckedU64 needed = hybrid_swa ? CheckedU64(b.full) * len + CheckedU64(b.sliding) * kept
                                       : CheckedU64(cell) * len;
  if (needed.overflowed())
    return Result<bool>::failure(make_error(kOutOfRange, "max_model_len", "KV bytes exceed 2^64-1"));
  r.kv_bytes_needed = needed.value();
  double sequences = b.full == 0 && hybrid_swa
                         ? static_cast<double>(swa_tokens) / static_cast<double>(kept)
                         : static_cast<double>(r.kv_pool_tokens) / static_cast<double>(len);
  if (hybrid_swa && b.full != 0)
    sequences = std::min(sequences, static_cast<double>(swa_tokens) / static_cast<double>(kept));
  r.max_concurrency = std::min(sequences, static_cast<double>(r.max_running_requests));
  r.max_context = !hybrid_swa   ? r.kv_pool_tokens
                  : b.full == 0 ? (swa_tokens >= b.window ? kMaxSearchTokens : swa_tokens)
                  : swa_tokens >= b.window ? r.kv_pool_tokens
                                           : std::min(r.kv_pool_tokens, swa_tokens);
  r.max_model_len_that_fits = std::min(r.max_model_len, r.max_context);
  return Result<bool>::success(true);
}

// Whether it starts (a profiled pool), in SGLang's words when not; what starts but cannot serve.
void check_startup(PlanReport& r, double fraction, uint64_t profiled) {
  r.starts = profiled > 0;
  if (!r.starts) {
    char fraction_text[16];
    std::snprintf(fraction_text, sizeof fraction_text, "%g", fraction);
    r.startup_error =
        std::string(
            "Not enough memory. Please try to increase --mem-fraction-static. Current value: ") +
        fraction_text;
  } else if (r.max_running_requests == 0) {
    r.notes.push_back(
        "SGLang starts, but max_running_requests is 0: the state pool holds fewer "
        "slots than one request takes");
  } else if (r.max_context < r.max_model_len) {
    r.notes.push_back(
        "the pool holds fewer tokens than context_len: SGLang starts, but no request can reach it");
  }
}

}  // namespace

Result<PlanReport> plan_sglang(PlanReport r, const ModelShape& shape, const PlanInput& in) {
  using R = Result<PlanReport>;
  // Convolution states in bf16 (SGLANG_MAMBA_CONV_DTYPE's default) unless --state-dtype says.
  const Dtype conv = in.model.state_dtype == "auto" || in.model.state_dtype.empty()
                         ? parse_dtype("bf16", DtypeUse::kKv, "state_dtype").value
                         : r.estimate.state_dtype;
  Result<StatePool> slot = state_slot(shape, conv);
  if (!slot.ok) return R::failure(slot.error);
  StatePool& states = slot.value;
  const bool recurrent = states.conv_bytes_per_slot + states.ssm_bytes_per_slot != 0;
  const Result<double> fraction = static_fraction(r, shape, in);
  if (!fraction.ok) return R::failure(fraction.error);
  const Result<uint64_t> cell = cell_bytes(shape, r.estimate.kv_dtype);
  if (!cell.ok) return R::failure(cell.error);
  static_budget(r, shape, in, fraction.value);
  if (!shape.layers.empty() && shape.layers[0].attention == AttentionKind::kCompressed)
    return plan_sglang_deepseek_v4(std::move(r), shape, in, fraction.value);
  // With speculative decoding server_args.py resets an unset request cap to 48.
  const uint64_t given_running = in.sglang.max_running_requests != 0
                                     ? in.sglang.max_running_requests
                                 : !r.speculative.method.empty() ? kSpeculativeRequests
                                                                 : 0;
  if (recurrent) {
    const Result<uint64_t> left =
        reserve_states(states, r.kv_pool_bytes, given_running, r, in, r.notes);
    if (!left.ok) return R::failure(left.error);
    r.kv_pool_bytes = left.value;
    r.state_pool = states;
  }
  const uint64_t page = r.block_size_tokens == 0 ? 1 : r.block_size_tokens;  // page_size, default 1
  const uint64_t profiled = cell.value == 0 ? 0 : r.kv_pool_bytes / cell.value / page * page;
  r.kv_pool_tokens = profiled;
  r.max_running_requests = running_requests(r, in, states, recurrent, given_running, profiled);

  const Result<LayerBytes> split = full_and_sliding(shape, r.estimate.kv_dtype);
  if (!split.ok) return R::failure(split.error);
  const bool hybrid_swa = !in.sglang.disable_hybrid_swa_memory && split.value.sliding != 0 &&
                          hybrid_swa_architecture(shape, r.engine_version);
  const uint64_t swa_tokens =
      hybrid_swa ? split_hybrid_swa(r, shape, in, split.value, profiled, page) : 0;
  if (const Result<bool> c = request_capacity(r, split.value, hybrid_swa, swa_tokens, cell.value); !c.ok)
    return R::failure(c.error);
  check_startup(r, fraction.value, profiled);
  return R::success(std::move(r));
}

// SGLang reads mamba_ssm_dtype (text_config's too) and otherwise keeps float32
// (mamba2_state_dtype, sglang/srt/configs/mamba_utils.py).
void sglang_ssm_state_default(ModelShape& shape) {
  if (shape.ssm_state_dtype_key != "mamba_ssm_dtype") shape.ssm_state_dtype = "fp32";
}

// `python -m sglang.launch_server` with the plan's length, budget, cache dtype and layout
// (python/sglang/srt/server_args.py).
LaunchCommand launch_sglang(const PlanInput& in, const PlanReport& r, std::string_view model) {
  LaunchCommand out;
  std::vector<std::string> w;
  if (in.allow_long_context) w.push_back("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1");
  if (std::string env = pp_partition_env("SGLANG_PP_LAYER_PARTITION", in); !env.empty())
    w.push_back(std::move(env));
  w.insert(w.end(), {"python", "-m", "sglang.launch_server", "--model-path", std::string(model),
                     "--context-length", std::to_string(r.max_model_len)});
  if (in.sglang.mem_fraction_static > 0)
    w.insert(w.end(), {"--mem-fraction-static", shortest_decimal(in.sglang.mem_fraction_static)});
  if (in.sglang.mamba_full_memory_ratio != SglangOptions{}.mamba_full_memory_ratio) {
    w.insert(w.end(),
             {"--mamba-full-memory-ratio", shortest_decimal(in.sglang.mamba_full_memory_ratio)});
  }
  if (r.estimate.shape.model_type == "deepseek_v4" && r.estimate.kv_dtype.name == "bf16") {
    w.insert(w.end(), {"--kv-cache-dtype", "bfloat16"});  // "auto" is fp8_e4m3 for DeepSeek-V4
  } else if (in.model.kv_dtype != "auto") {
    // fp4_e2m1 is MXFP4 (a scale per 32 values), not the nvfp4 kvscope sizes.
    const std::string name =
        engine_kv_dtype("SGLang", "--kv-cache-dtype", r.estimate.kv_dtype.name,
                        {{"fp16", "auto"},
                         {"bf16", "auto"},
                         {"fp8", "fp8_e4m3"},
                         {"fp8_ds_mla", "fp8_e4m3"},
                         {"fp8_e5m2", "fp8_e5m2"}},
                        "python/sglang/srt/server_args.py add_cli_args", out.unexpressed);
    if (!name.empty()) w.insert(w.end(), {"--kv-cache-dtype", name});
  }
  // python/sglang/srt/layers/quantization/fp8.py: an unquantized checkpoint in fp8 at load.
  for (std::string& flag : weight_dtype_flags("SGLang", "--quantization", in, r, out.unexpressed))
    w.push_back(std::move(flag));
  // The registered spellings (server_args.py): "--tp" works only as an argparse prefix, and
  // "--pp" is an ambiguous one (--pp-size, --pp-max-micro-batch-size, ...).
  // Under DP attention --tp counts every GPU of the ranks (the plan's TP is one rank's).
  const uint64_t tp = r.tensor_parallel * (r.dp_attention ? r.data_parallel : 1);
  if (tp > 1) w.insert(w.end(), {"--tp-size", std::to_string(tp)});
  if (r.pipeline_parallel > 1)
    w.insert(w.end(), {"--pp-size", std::to_string(r.pipeline_parallel)});
  if (r.data_parallel > 1) w.insert(w.end(), {"--dp-size", std::to_string(r.data_parallel)});
  if (r.dp_attention) w.push_back("--enable-dp-attention");
  const SglangOptions defaults;
  if (in.sglang.max_mamba_cache_size != 0)
    w.insert(w.end(), {"--max-mamba-cache-size", std::to_string(in.sglang.max_mamba_cache_size)});
  if (in.sglang.max_running_requests != 0)
    w.insert(w.end(), {"--max-running-requests", std::to_string(in.sglang.max_running_requests)});
  if (in.sglang.disable_radix_cache) w.push_back("--disable-radix-cache");
  if (in.sglang.swa_full_tokens_ratio != defaults.swa_full_tokens_ratio) {
    w.insert(w.end(),
             {"--swa-full-tokens-ratio", shortest_decimal(in.sglang.swa_full_tokens_ratio)});
  }
  if (in.sglang.disable_hybrid_swa_memory) w.push_back("--disable-hybrid-swa-memory");
  out.command = shell_command(w);
  return out;
}

}  // namespace kvscope::engines
