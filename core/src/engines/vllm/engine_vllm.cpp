// vLLM (V1 engine) on one GPU, after its budget (engine_vllm_budget.cpp) and groups
// (engine_vllm_groups.cpp): vllm/v1/core/kv_cache_utils.py (get_kv_cache_config_from_groups, get_num_blocks,
// _report_kv_cache_config, get_max_concurrency_for_kv_cache_config, _check_enough_kv_cache_memory,
// estimate_max_model_len); see shared/docs/engine-formulas.md §1.
#include "engines/vllm/engine_vllm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/one_of.hpp"
#include "kvscope/base/units.hpp"
#include "kvscope/model/parallelism.hpp"

namespace kvscope::engines {
namespace {

// Python's round(x / 2**30, 2) as vLLM's format_gib prints it ("16.0", "5.59"): halves to even,
// as Python rounds an exact tie (0.125 GiB prints "0.12").
std::string format_gib_like_vllm(uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", std::nearbyint(static_cast<double>(bytes) / kGiB * 100) / 100);
  std::string s = buf;
  while (s.size() > 3 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
  return s;
}

// A line's minor release: "0.29" -> 29, "" (the newest line) -> INT32_MAX; the V0 line "v0" -> 0.
int vllm_line(const std::string& id) {
  if (id.empty()) return INT32_MAX;
  int minor = 0;
  for (size_t i = 2; id.rfind("0.", 0) == 0 && i < id.size(); ++i)
    minor = minor * 10 + (id[i] - '0');
  return minor;
}

double default_utilization(int line) { return line >= 20 ? 0.92 : 0.9; }

}  // namespace

double vllm_default_utilization(const std::string& engine_version) {
  return default_utilization(vllm_line(engine_version));
}

VllmRelease vllm_release(const PlanReport& r, const VllmOptions& options) {
  VllmRelease out;
  const std::string& v = r.engine_version;
  const int line = vllm_line(v);
  const bool dense = r.estimate.shape.moe.num_experts == 0;
  out.v0 = v == "v0" || v == "0.7";
  out.mla_row_align = v == "0.7" && options.mla_cuda_mem_align_kv_cache;
  out.hybrid_allocator = !out.v0 && v != "0.8";
  out.concurrency_by_tokens = v == "0.8";
  out.see_sentence = out.hybrid_allocator;
  out.whole_model_check = v == "0.14";
  out.default_utilization = default_utilization(line);
  out.model_runner_v2 = line >= 29 || (line >= 25 && dense);
  out.reserves_cudagraphs = line >= 20 && (line >= 29 || !out.model_runner_v2);
  out.capacity_from_concurrency = line >= 21;
  out.override_in_check = line >= 21;
  out.in_flight_batches = line >= 26;
  out.largest_card_tier = line >= 28;
  out.null_block = line >= 29;
  out.pads_pages = line >= 25;
  const std::vector<LayerSpec>& layers = r.estimate.shape.layers;
  const bool hybrid = std::any_of(layers.begin(), layers.end(),
                                  [](const LayerSpec& l) { return l.state != StateKind::kNone; }) &&
                      std::any_of(layers.begin(), layers.end(),
                                  [](const LayerSpec& l) { return l.keeps_tokens(); });
  // MambaModelConfig.verify_and_update_config (vllm/model_executor/models/config.py): with
  // prefix caching on, a hybrid's "none" becomes "align" ("all" where the model supports it,
  // none of kvscope's hybrids); a 0.23 log of Qwen3.6-27B under --enable-prefix-caching counts
  // two state blocks a request (tests/data/logs/vllm-v1-qwen3.6-27b-nvfp4-dgx-spark-262k.log).
  const bool prefix_caching = line >= 29 || (options.enable_prefix_caching && line >= 21);
  out.mamba_cache_mode = !options.mamba_cache_mode.empty() ? options.mamba_cache_mode
                         : hybrid && prefix_caching        ? "align"
                                                           : "none";
  out.cpu_backend_wording = line >= 21;
  return out;
}

double vllm_utilization(const VllmOptions& options, const VllmRelease& release) {
  return options.gpu_memory_utilization > 0 ? options.gpu_memory_utilization
                                            : release.default_utilization;
}

namespace {

// The page sizes a hybrid's block is settled by: the largest recurrent state of a layer, the
// largest attention bytes per token of a layer.
struct PageSizes {
  uint64_t mamba_page = 0;
  uint64_t attention_per_token = 0;
};

Result<PageSizes> page_sizes(const ModelShape& shape, const PlanReport& r) {
  using RP = Result<PageSizes>;
  PageSizes pages;
  const Result<Dtype> ssm = ssm_state_dtype(shape, r.estimate.state_dtype);
  if (!ssm.ok) return RP::failure(ssm.error);
  for (const LayerSpec& l : shape.layers) {
    const Result<uint64_t> state = recurrent_state_bytes(l, r.estimate.state_dtype, ssm.value);
    if (!state.ok) return RP::failure(state.error);
    pages.mamba_page = std::max(pages.mamba_page, state.value);
    const Result<uint64_t> per_token = kv_bytes_per_token_per_layer(l, r.estimate.kv_dtype);
    if (!per_token.ok) return RP::failure(per_token.error);
    pages.attention_per_token = std::max(pages.attention_per_token, per_token.value);
  }
  return RP::success(pages);
}

// Hybrid attention + Mamba models: the attention block grows until its page holds a Mamba state,
// then Mamba pages are padded to it (HybridAttentionMambaModelConfig.verify_and_update_config,
// vllm/model_executor/models/config.py). The block, also in r.
uint64_t settle_block_size(PlanReport& r, const PageSizes& pages) {
  uint64_t bs = r.block_size_tokens;
  if (pages.mamba_page > 0 && pages.attention_per_token == 0) {
    // Attention-free (Mamba, Mamba-2): one unpadded state page per request, the "block" spanning
    // max_model_len (MambaSpec without prefix caching).
    bs = r.max_model_len;
    r.block_size_tokens = bs;
    r.notes.push_back("attention-free: one recurrent state of " + format_gib(pages.mamba_page) +
                      " per layer per request; the pool holds states, not tokens");
  } else if (pages.mamba_page > 0) {
    const uint64_t needed = 16 * ceil_div(pages.mamba_page, 16 * pages.attention_per_token);
    if (bs < needed) {
      bs = needed;
      r.notes.push_back(
          "Setting attention block size to " + std::to_string(bs) +
          " tokens to ensure that attention page size is >= mamba page size (vLLM's log)");
    }
    r.block_size_tokens = bs;
  }
  return bs;
}

// How vLLM counts blocks: one group's for a request (each spec's max_memory_usage_bytes), a
// request's over the groups, the bytes max_model_len needs in the layout it checks (`checked`),
// and what a pool holds.
class VllmBlocks {
 public:
  VllmBlocks(const PlanReport& r, const PlanInput& in, const VllmRelease& release,
             const VllmLayout& layout, const VllmLayout& checked)
      : r_(r), in_(in), release_(release), layout_(layout), checked_(checked) {
    for (const VllmType& t : layout.types) smallest_block_ = std::min(smallest_block_, t.block);
  }

  uint64_t blocks_per_group(const VllmType& t, uint64_t len) const;
  CheckedU64 blocks_needed(const VllmLayout& groups, uint64_t len) const {
    CheckedU64 blocks;
    for (const VllmType& t : groups.types)
      blocks += CheckedU64(blocks_per_group(t, len)) * t.groups;
    return blocks;
  }
  CheckedU64 needed_bytes(uint64_t len) const {
    return blocks_needed(checked_, len) * checked_.group_size * checked_.page;
  }
  // What of a pool the start-up check counts (kv_cache_planning.py get_kv_cache_configs): from
  // 0.21 the blocks --num-gpu-blocks-override gives, from 0.29 less the null block that BlockPool
  // holds back (check_memory, PR #47272).
  uint64_t checked_pool(uint64_t pool) const {
    const uint64_t block = checked_.group_size * checked_.page;
    const uint64_t blocks = in_.vllm.num_gpu_blocks_override;
    if (release_.override_in_check && blocks != 0) {
      const CheckedU64 given = CheckedU64(blocks) * block;
      pool = given.overflowed() ? UINT64_MAX : given.value();
    }
    const uint64_t null_block = release_.null_block ? block : 0;
    return pool > null_block ? pool - null_block : 0;
  }
  // Whether a request of a length fits a pool of `pool` bytes.
  std::function<bool(uint64_t)> fits_in(uint64_t pool) const {
    return [this, pool = checked_pool(pool)](uint64_t len) {
      const CheckedU64 bytes = needed_bytes(len);
      return !bytes.overflowed() && bytes.value() <= pool;
    };
  }
  PoolCapacity capacity_at(uint64_t pool) const;

 private:
  CheckedU64 in_flight_tokens() const;

  const PlanReport& r_;
  const PlanInput& in_;
  const VllmRelease& release_;
  const VllmLayout& layout_;
  const VllmLayout& checked_;
  uint64_t smallest_block_ = UINT64_MAX;
};

uint64_t VllmBlocks::blocks_per_group(const VllmType& t, uint64_t len) const {
  // Tokens a windowed spec holds for a request of `len`: its reach, at most the request.
  const auto held = [len](CheckedU64 reach) {
    return reach.overflowed() ? len : std::min(reach.value(), len);
  };
  if (t.kind == AttentionKind::kNone) {
    // MambaSpec.max_memory_usage_bytes: "none" one state (+ one per speculative token), "align"
    // two, "all" one per block of the request (prefix caching of states).
    const uint64_t spec = r_.speculative.num_speculative_tokens;
    return release_.mamba_cache_mode == "all"     ? ceil_div(len, t.block)
           : release_.mamba_cache_mode == "align" ? 2 + spec
                                                  : 1 + spec;
  }
  if (t.kind == AttentionKind::kSlidingWindow)
    return ceil_div(held(CheckedU64(t.window - 1) + in_flight_tokens()), t.block) + 1;
  if (t.kind == AttentionKind::kChunked)
    return ceil_div(held(CheckedU64(t.window) + in_flight_tokens()), t.block);
  return ceil_div(len, t.block);
}

// The tokens a window holds beyond itself: one batch, and from 0.26 every batch in flight
// (VllmConfig.max_in_flight_tokens, max_concurrent_batches, vllm/config/vllm.py; PR #47728): two
// with async scheduling, a pipeline's stages (one more under Model Runner V2).
CheckedU64 VllmBlocks::in_flight_tokens() const {
  const uint64_t pp = in_.pipeline_parallel;
  const uint64_t batches = !release_.in_flight_batches ? 1
                           : pp <= 1                   ? 2
                                                       : pp + (release_.model_runner_v2 ? 1 : 0);
  return CheckedU64(r_.max_num_batched_tokens) * batches;
}

// What a pool of `pool` bytes holds, counted as vLLM does: for the budget, and for the ends of
// its estimated range.
PoolCapacity VllmBlocks::capacity_at(uint64_t pool) const {
  PoolCapacity c;
  c.blocks = in_.vllm.num_gpu_blocks_override != 0 ? in_.vllm.num_gpu_blocks_override
                                                   : pool / layout_.page / layout_.group_size;
  c.tokens = c.blocks / layout_.num_groups * smallest_block_;
  c.concurrency = release_.concurrency_by_tokens
                      ? static_cast<double>(c.tokens) / static_cast<double>(r_.max_model_len)
                      : static_cast<double>(c.blocks) /
                            static_cast<double>(blocks_needed(layout_, r_.max_model_len).value());
  // From 0.21 the printed size is the concurrency in tokens, which holds the windows' reach
  // (kv_cache_utils.py get_kv_cache_capacity; vLLM issue #43308).
  if (release_.capacity_from_concurrency)
    c.tokens = static_cast<uint64_t>(c.concurrency * static_cast<double>(r_.max_model_len));
  c.starts = r_.kv_bytes_needed <= checked_pool(pool);
  c.longest = largest_fitting(1, r_.max_model_len, fits_in(pool));
  return c;
}

// 0.14-0.15 check every layer of the model against each stage's memory: that layout, else none.
Result<VllmLayout> whole_model_layout(PlanReport& r, const PlanInput& in, const VllmRelease& release,
                                      const VllmLayoutRules& rules) {
  if (!release.whole_model_check || in.pipeline_parallel <= 1) return Result<VllmLayout>::success({});
  const Result<ModelShape> model = shard_shape(r.estimate.shape, in.tensor_parallel, 0, 1);
  if (!model.ok) return Result<VllmLayout>::failure(model.error);
  r.notes.push_back("vLLM " + r.engine_version_label +
                    " checks max_model_len with every layer of the model against this stage's "
                    "memory (PR #29431, fixed by PR #33698)");
  return vllm_layout(model.value.layers, rules, nullptr);
}

// A hybrid's groups: what each holds, for the report to explain.
void report_kv_cache_groups(PlanReport& r, const VllmLayout& layout, const VllmBlocks& blocks) {
  KvCacheGroups& g = r.kv_cache_groups;
  g.group_size_layers = layout.group_size;
  g.page_bytes = layout.page;
  g.blocks_per_request = blocks.blocks_needed(layout, r.max_model_len).value();
  for (const VllmType& t : layout.types) {
    g.types.push_back({t.name != nullptr                ? t.name
                       : t.kind == AttentionKind::kNone ? "mamba"
                                                        : attention_kind_name(t.kind),
                       t.window, t.layers, t.groups, t.groups * layout.group_size - t.layers,
                       t.block, blocks.blocks_per_group(t, r.max_model_len)});
  }
}

// vLLM's refusal when the pool is empty or one max_model_len request does not fit
// (_check_enough_kv_cache_memory), in its words; `available` is the pool the check counts.
void set_startup_error(PlanReport& r, const VllmRelease& release, uint64_t available) {
  const bool newer = release.cpu_backend_wording;
  const std::string see =
      release.see_sentence
          ? " See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."
          : "";
  if (available == 0) {  // the range may still reach a pool: counted at its ends
    r.startup_error = std::string(
                          "No available memory for the cache blocks. Try increasing "
                          "`gpu_memory_utilization` when initializing the engine") +
                      (newer ? " (this flag also controls CPU memory reservation on the CPU "
                               "backend, despite its name)."
                             : ".") +
                      see;
  } else if (!r.starts) {
    r.startup_error =
        std::string("To serve at least one request with the ") + (newer ? "model's" : "models's") +
        " max seq len (" + std::to_string(r.max_model_len) + "), (" +
        format_gib_like_vllm(r.kv_bytes_needed) +
        " GiB KV cache is needed, which is larger than the available KV cache memory (" +
        format_gib_like_vllm(available) + " GiB).";
    if (r.max_model_len_that_fits > 0) {
      r.startup_error += " Based on the available memory, the estimated maximum model length is " +
                         std::to_string(r.max_model_len_that_fits) + ".";
    }
    r.startup_error += std::string(" Try increasing `gpu_memory_utilization`") +
                       (newer ? " (which also controls CPU memory on the CPU backend)" : "") +
                       " or decreasing `max_model_len` when initializing the engine." + see;
  }
}

}  // namespace

Result<PlanReport> plan_vllm(PlanReport r, const ModelShape& shape, const PlanInput& in) {
  using R = Result<PlanReport>;
  const VllmRelease release = vllm_release(r, in.vllm);
  const std::string& mode = release.mamba_cache_mode;
  if (mode != "none" && mode != "align" && mode != "all") {
    return R::failure(make_error(kInvalidValue, "vllm.mamba_cache_mode",
                                 "expected none, align or all, got " + quote_user_text(mode)));
  }
  if (in.vllm.mamba_cache_mode.empty() && mode == "align") {
    r.notes.push_back("vLLM " + r.engine_version_label +
                      " caches a hybrid's states for prefixes by default, in align mode: two "
                      "state blocks per request (PR #50991; --mamba-cache-mode none for one)");
  }
  if (!shape.layers.empty() && shape.layers[0].attention == AttentionKind::kCompressed &&
      vllm_line(r.engine_version) < 20) {
    return R::failure(make_error(kUnsupported, "engine_version",
                                 "vLLM " + r.engine_version_label +
                                     " does not run DeepSeek-V4: it came in 0.20.0 (vLLM's "
                                     "DeepSeek-V4 recipe)"));
  }
  const Result<bool> budget = vllm_budget(r, shape, in, release);
  if (!budget.ok) return R::failure(budget.error);
  if (release.v0) return plan_vllm_v0(std::move(r), shape, in, release.mla_row_align);

  const Result<PageSizes> pages = page_sizes(shape, r);
  if (!pages.ok) return R::failure(pages.error);
  // Layers by spec type; sliding and chunked layers become full ones without the hybrid manager.
  // Mamba layers are their own type (kind kNone here) with the padded page.
  VllmLayoutRules rules;
  rules.block_tokens = settle_block_size(r, pages.value);
  rules.attention_per_token = pages.value.attention_per_token;
  rules.mamba_page = pages.value.mamba_page;
  rules.windowed_blocks = release.hybrid_allocator && !in.vllm.disable_hybrid_kv_cache_manager;
  rules.pad_pages = release.pads_pages;
  rules.kv_dtype = r.estimate.kv_dtype;
  const Result<VllmLayout> layout = vllm_layout(shape.layers, rules, &r.notes);
  if (!layout.ok) return R::failure(layout.error);
  const Result<VllmLayout> whole = whole_model_layout(r, in, release, rules);
  if (!whole.ok) return R::failure(whole.error);
  const VllmBlocks blocks(r, in, release, layout.value,
                          whole.value.types.empty() ? layout.value : whole.value);

  const CheckedU64 needed = blocks.needed_bytes(r.max_model_len);
  if (needed.overflowed())
    return R::failure(make_error(kOutOfRange, "max_model_len", "KV bytes exceed 2^64-1"));
  r.kv_bytes_needed = needed.value();
  if (in.vllm.num_gpu_blocks_override != 0) {
    r.notes.push_back("Overriding num_gpu_blocks=" +
                      std::to_string(r.kv_pool_bytes / layout.value.page / layout.value.group_size) +
                      " with num_gpu_blocks_override=" +
                      std::to_string(in.vllm.num_gpu_blocks_override) + " (vLLM's log)");
  }
  set_capacity(r, blocks.capacity_at(r.kv_pool_bytes));
  if (layout.value.num_groups > 1) report_kv_cache_groups(r, layout.value, blocks);
  r.max_context = largest_fitting(1, kMaxSearchTokens, blocks.fits_in(r.kv_pool_bytes));
  fill_estimated_ends(r.estimated, [&blocks](uint64_t pool) { return blocks.capacity_at(pool); });
  set_startup_error(r, release, blocks.checked_pool(r.kv_pool_bytes));
  return R::success(std::move(r));
}

// --disable-sliding-window: every windowed layer a full one, and the window one more limit on
// max_model_len ("sliding_window" among _get_and_verify_max_len's keys, vllm/config/model.py).
bool vllm_shape_options(ModelShape& shape, const PlanInput& in) {
  if (!in.vllm.disable_sliding_window) return false;
  uint64_t window = 0;
  for (LayerSpec& l : shape.layers) {
    if (l.attention != AttentionKind::kSlidingWindow) continue;
    window = window == 0 ? l.window_tokens : std::min(window, l.window_tokens);
    l.attention = AttentionKind::kFull;
    l.window_tokens = 0;
  }
  if (window == 0) return false;
  shape.positions.keys.emplace_back("sliding_window", window);
  return true;
}

// vLLM's per-model SSM state dtype (vllm/model_executor/models/config.py): NemotronH defaults to
// float32, Qwen3.5 takes the config's mamba_ssm_dtype, Kimi's delta-attention state is float32
// (kda_state_dtype); every other model keeps the state dtype.
void vllm_ssm_state_default(ModelShape& shape) {
  const bool kimi_delta =
      std::any_of(shape.layers.begin(), shape.layers.end(),
                  [](const LayerSpec& l) { return l.state == StateKind::kKimiDelta; });
  if (kimi_delta) {
    shape.ssm_state_dtype = "fp32";
  } else if (shape.model_type == "nemotron_h") {
    if (shape.ssm_state_dtype.empty()) shape.ssm_state_dtype = "fp32";
  } else if (shape.model_type.rfind("qwen3_5", 0) != 0) {
    shape.ssm_state_dtype.clear();
  }
}

// vLLM's default block: 16 tokens (vllm/config/cache.py), 64 for MLA, which the FlashMLA backend
// forces (vllm/platforms/cuda.py).
uint64_t vllm_default_block_size(const ModelShape& shape, std::string& note) {
  if (!shape.layers.empty() && shape.layers[0].attention == AttentionKind::kCompressed) {
    note =
        "block size 256: DeepSeek-V4's, as vLLM's recipes and logs run it (at smaller blocks "
        "its compressed pages are smaller than the 64-token window page, which its layout "
        "refuses)";
    return 256;
  }
  if (shape.model_type == "minimax_m3") {
    note =
        "block size 128: MiniMax-M3's, its sparse block (MiniMaxM3SparseBackend supports 128 "
        "only; vllm/models/minimax_m3/common/sparse_attention.py)";
    return 128;
  }
  const bool mla = shape.mla.kv_lora_rank != 0;
  note = mla ? "block size 64: vLLM forces it for the FlashMLA backend (vllm/platforms/cuda.py)"
             : "block size 16: vLLM's default (vllm/config/cache.py)";
  return mla ? 64 : 16;
}

// `vllm serve` with the plan's length, budget, cache dtype and layout (vllm/engine/arg_utils.py).
LaunchCommand launch_vllm(const PlanInput& in, const PlanReport& r, std::string_view model) {
  LaunchCommand out;
  std::vector<std::string> w;
  if (in.allow_long_context) w.push_back("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1");
  if (r.engine_version == "v0") w.push_back("VLLM_USE_V1=0");
  if (std::string env = pp_partition_env("VLLM_PP_LAYER_PARTITION", in); !env.empty())
    w.push_back(std::move(env));
  if (r.engine_version == "0.7" && !in.vllm.mla_cuda_mem_align_kv_cache)
    w.push_back("VLLM_MLA_CUDA_MEM_ALIGN_KV_CACHE=0");
  w.insert(w.end(), {"vllm", "serve", std::string(model), "--max-model-len",
                     std::to_string(r.max_model_len), "--gpu-memory-utilization",
                     shortest_decimal(vllm_utilization(in.vllm, vllm_release(r, in.vllm)))});
  if (!in.speculative_config.empty())
    w.insert(w.end(), {"--speculative-config", in.speculative_config});
  const bool deepseek_v4 = r.estimate.shape.model_type == "deepseek_v4";
  if (deepseek_v4) {  // the recipes' flags: its cache layout and its tokenizer
    w.insert(w.end(), {"--kv-cache-dtype", "fp8_ds_mla", "--tokenizer-mode", "deepseek_v4"});
  } else if (in.model.kv_dtype != "auto") {
    // 16-bit caches are the model's dtype ("auto", the same bytes); the sparse MLA backend turns
    // fp8 into its fp8_ds_mla layout itself.
    const std::string name = engine_kv_dtype("vLLM", "--kv-cache-dtype", r.estimate.kv_dtype.name,
                                             {{"fp16", "auto"},
                                              {"bf16", "auto"},
                                              {"fp8", "fp8"},
                                              {"fp8_e5m2", "fp8_e5m2"},
                                              {"fp8_ds_mla", "fp8"},
                                              {"int8_per_token_head", "int8_per_token_head"},
                                              {"fp8_per_token_head", "fp8_per_token_head"},
                                              {"nvfp4", "nvfp4"}},
                                             "vllm/config/cache.py CacheDType", out.unexpressed);
    if (!name.empty()) w.insert(w.end(), {"--kv-cache-dtype", name});
  }
  // vllm/model_executor/layers/quantization/fp8.py: an unquantized checkpoint in fp8 at load.
  for (std::string& flag : weight_dtype_flags("vLLM", "--quantization", in, r, out.unexpressed))
    w.push_back(std::move(flag));
  if (r.tensor_parallel > 1)
    w.insert(w.end(), {"--tensor-parallel-size", std::to_string(r.tensor_parallel)});
  if (r.pipeline_parallel > 1)
    w.insert(w.end(), {"--pipeline-parallel-size", std::to_string(r.pipeline_parallel)});
  if (r.data_parallel > 1)
    w.insert(w.end(), {"--data-parallel-size", std::to_string(r.data_parallel)});
  if (in.vllm.enable_expert_parallel) w.push_back("--enable-expert-parallel");
  if (in.vllm.enable_prefix_caching) w.push_back("--enable-prefix-caching");
  // DeepSeek-V4's and MiniMax-M3's recipes pass their block outright.
  if (in.block_size_tokens != 0 || deepseek_v4 || r.estimate.shape.model_type == "minimax_m3")
    w.insert(w.end(), {"--block-size", std::to_string(r.block_size_tokens)});
  // A target beyond the scheduler's default running-request cap needs the cap raised.
  const uint64_t per_replica = ceil_div(r.target.sequences, r.data_parallel);
  if (r.target.present && per_replica > (vllm_large_card(r) ? 1024u : 256u))
    w.insert(w.end(), {"--max-num-seqs", std::to_string(per_replica)});
  if (in.vllm.max_num_batched_tokens != 0) {
    w.insert(w.end(), {"--max-num-batched-tokens", std::to_string(in.vllm.max_num_batched_tokens)});
  }
  if (in.vllm.disable_hybrid_kv_cache_manager) w.push_back("--disable-hybrid-kv-cache-manager");
  if (in.vllm.disable_sliding_window) w.push_back("--disable-sliding-window");
  if (in.vllm.enforce_eager) w.push_back("--enforce-eager");
  if (in.vllm.num_gpu_blocks_override != 0) {
    w.insert(w.end(), {"--num-gpu-blocks-override", std::to_string(in.vllm.num_gpu_blocks_override)});
  }
  if (vllm_release(r, in.vllm).v0 && in.vllm.swap_space_bytes != VllmOptions{}.swap_space_bytes) {
    w.insert(w.end(), {"--swap-space", shortest_decimal(static_cast<double>(in.vllm.swap_space_bytes) / kGiB)});
  }
  if (!in.vllm.mamba_cache_mode.empty())
    w.insert(w.end(), {"--mamba-cache-mode", in.vllm.mamba_cache_mode});
  // A KV budget given outright: --kv-cache-memory-bytes sizes the pool whatever
  // gpu_memory_utilization says (vllm/config/cache.py CacheConfig.kv_cache_memory_bytes, in the
  // 0.14 line and later), which still gates the start on the free memory.
  if (r.kv_memory_given) {
    if (is_one_of(r.engine_version, {"0.8", "v0", "0.7"})) {
      out.unexpressed.push_back("vLLM " + r.engine_version_label +
                                " sizes its KV cache only from --gpu-memory-utilization: a budget "
                                "of " +
                                std::to_string(in.kv_memory_bytes) +
                                " bytes needs --kv-cache-memory-bytes, of later releases");
    } else {
      w.insert(w.end(), {"--kv-cache-memory-bytes", std::to_string(in.kv_memory_bytes)});
    }
  }
  out.command = shell_command(w);
  return out;
}

}  // namespace kvscope::engines
