// llama.cpp: K and V tensors per layer sized by the context, not by a memory budget, on the device
// that holds the layer (src/llama-kv-cache.cpp llama_kv_cache constructor,
// src/llama-kv-cache-iswa.cpp, src/llama-context.cpp n_ctx padding, src/llama-model.cpp
// load_hparams (which architectures get sliding-window layers) and load_tensors (which device each
// layer goes to); shared/docs/engine-formulas.md §3).
#include <algorithm>
#include <cctype>
#include <cstdio>

#include "base/one_of.hpp"
#include "engines/engine_profiles.hpp"
#include "engines/llama_server.hpp"
#include "kvscope/base/units.hpp"
#include "kvscope/model/weights.hpp"

namespace kvscope::engines {

// The cells a cache is padded to: 256 (llama-context.cpp n_ctx = GGML_PAD(n_ctx, 256), and every
// cache since PR #17046); builds of 2025 padded to 256 with flash attention and 32 without
// (llama_kv_cache_unified::get_padding, PR #7257, until PR #16812).
uint64_t context_pad(const PlanInput& in) {
  return in.engine_version == "2025" && !in.llama_cpp.flash_attn ? 32 : 256;
}

CheckedU64 pad(uint64_t n, uint64_t to) { return CheckedU64(ceil_div(n, to)) * to; }

// Architectures whose load_hparams gives sliding-window layers (set_swa_pattern / a per-layer
// pattern), by the Hugging Face model_type they convert from. Everything else keeps full caches
// whatever config.json says: Mistral-7B-v0.1 converts to LLM_ARCH_LLAMA (no n_swa read), Phi-3
// reads n_swa and then disables SWA ("Phi SWA is currently disabled"), Qwen2 ignores
// use_sliding_window.
bool llamacpp_windows(const std::string& model_type) {
  return is_one_of(model_type,
                   {"gemma2", "gemma3", "gemma3_text", "gemma3n", "gemma3n_text", "gemma4",
                    "gemma4_text", "cohere2", "gpt_oss", "llama4", "llama4_text", "olmo2", "olmo3",
                    "exaone4", "mimo_v2", "mimo_v2_flash", "smallthinker"});
}

// The GGUF the plan's --weight-dtype names, as GGUF files are named (model-Q4_K_M.gguf); a
// format with no GGUF type is a line for `unexpressed`.
std::string gguf_file_name(const PlanInput& in, const PlanReport& r,
                           std::vector<std::string>& unexpressed) {
  const std::string& chosen = r.weights.name;
  if (in.weight_dtype == "auto") return "model.gguf";
  if (!r.weights.whole_file && !is_one_of(chosen, {"fp32", "fp16", "bf16"})) {
    unexpressed.push_back("llama.cpp has no GGUF type for " + chosen +
                          " weights (ggml's types: f16, bf16, q8_0, q4_k_m, ...): model.gguf "
                          "holds what it was quantized to");
    return "model.gguf";
  }
  std::string type = chosen == "fp32" ? "F32" : chosen == "fp16" ? "F16" : chosen;
  std::transform(type.begin(), type.end(), type.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return "model-" + type + ".gguf";
}

namespace {

// Cells of one stream for `n_ctx` requested: unified, one stream of PAD(n_ctx, 256); otherwise a
// stream per sequence of PAD(PAD(n_ctx, 256) / n_seq, 256), never past the first.
CheckedU64 stream_cells(uint64_t n_ctx, const PlanInput& in) {
  const CheckedU64 ctx = pad(n_ctx, context_pad(in));
  if (in.llama_cpp.kv_unified || ctx.overflowed()) return ctx;
  return pad(ctx.value() / in.llama_cpp.parallel, context_pad(in));
}

// llama.cpp's cells of one layer over its streams: a full layer a stream's cells; a sliding one
// (iSWA) PAD(min(size_base, n_swa x (unified ? n_seq : 1) + n_ubatch), pad) per stream.
CheckedU64 llamacpp_layer_cells(const LayerSpec& l, uint64_t n_ctx, const PlanInput& in,
                                const LlamaServerRules&) {
  const CheckedU64 stream = stream_cells(n_ctx, in);
  if (stream.overflowed()) return stream;
  const uint64_t streams = in.llama_cpp.kv_unified ? 1 : in.llama_cpp.parallel;
  uint64_t cells = stream.value();
  if (l.windowed()) {
    const CheckedU64 swa_cells =
        CheckedU64(l.window_tokens) * (in.llama_cpp.kv_unified ? in.llama_cpp.parallel : 1) +
        in.llama_cpp.ubatch;
    if (!swa_cells.overflowed())
      cells = pad(std::min(cells, swa_cells.value()), context_pad(in)).value();
  }
  return CheckedU64(cells) * streams;
}

Result<uint64_t> too_large(const char* field, const char* what) {
  return Result<uint64_t>::failure(
      make_error(kOutOfRange, field, std::string(what) + " exceed 2^64-1"));
}

// The K and V widths llama.cpp gives one layer: an MLA layer keeps its latent (kv_lora_rank +
// rope) as K and, since PR #19067, no V; builds before it also kept a kv_lora_rank V, and GGUFs
// converted before PR #12801 store per-head K and V (llama-model.cpp n_embd_head_k_mla).
LayerSpec server_layer(const LayerSpec& l, const ModelShape& shape, const PlanInput& in,
                       const LlamaServerRules& rules) {
  LayerSpec out = l;
  if (l.attention == AttentionKind::kMla) {
    out.attention = AttentionKind::kFull;
    if (in.llama_cpp.legacy_mla_gguf) {
      out.kv_heads = shape.num_attention_heads;
      out.k_head_dim = shape.mla.qk_nope_head_dim + shape.mla.qk_rope_head_dim;
      out.v_head_dim = shape.mla.v_head_dim;
    } else {
      out.v_head_dim = in.llama_cpp.mla_v_cache ? shape.mla.kv_lora_rank : 0;
    }
    out.indexer_head_dim = 0;  // llama.cpp has no DeepSeek sparse-attention indexer
  }
  if (out.windowed() && (!rules.windows(shape.model_type) || in.llama_cpp.swa_full)) {
    out.attention = AttentionKind::kFull;
    out.window_tokens = 0;
  }
  return out;
}

// One layer's buffers: K + V cells (llama_kv_cache), R + S states (llama_memory_recurrent).
struct LayerBuffers {
  uint64_t kv = 0;
  uint64_t state = 0;
};

// The buffers of each layer for `n_ctx` requested context cells.
Result<std::vector<LayerBuffers>> layer_buffers(const ModelShape& shape, const Dtype& k,
                                                const Dtype& v, uint64_t n_ctx, const PlanInput& in,
                                                const LlamaServerRules& rules) {
  using R = Result<std::vector<LayerBuffers>>;
  std::vector<LayerBuffers> out;
  out.reserve(shape.layers.size());
  for (const LayerSpec& spec : shape.layers) {
    const LayerSpec l = server_layer(spec, shape, in, rules);
    const Result<uint64_t> per_cell = kv_bytes_per_token_per_layer(l, k, v);
    if (!per_cell.ok) return R::failure(per_cell.error);
    const CheckedU64 cells = rules.layer_cells(l, n_ctx, in, rules);
    if (cells.overflowed()) return R::failure(too_large("context_tokens", "context cells").error);
    // llama_memory_recurrent: one R and S state per sequence, in f32.
    const CheckedU64 kv = CheckedU64(per_cell.value) * cells.value();
    const CheckedU64 state = CheckedU64(l.state_values) * 4 * in.llama_cpp.parallel;
    if (kv.overflowed() || state.overflowed() || (kv + state).overflowed())
      return R::failure(too_large("context_tokens", "KV buffer bytes").error);
    out.push_back(LayerBuffers{kv.value(), state.value()});
  }
  return R::success(std::move(out));
}

Result<uint64_t> sum(const std::vector<LayerBuffers>& layers) {
  CheckedU64 total;
  for (const LayerBuffers& b : layers) total += CheckedU64(b.kv) + b.state;
  if (total.overflowed()) return too_large("context_tokens", "KV buffer bytes");
  return Result<uint64_t>::success(total.value());
}

// The device of each layer and of the output layer (index n_layer), -1 for the CPU
// (llama_model::load_tensors): the last `ngl` go to the GPUs, split at the cumulative
// --tensor-split fractions; since PR #18148 the output layer is offloaded first.
std::vector<int> layer_devices(size_t n_layer, uint64_t ngl_given, const PlanInput& in,
                               size_t devices) {
  std::vector<double> split = in.llama_cpp.tensor_split;
  if (split.empty()) split.assign(devices, 1.0);  // equal cards split by their (equal) memory
  double total = 0;
  for (double s : split) total += s;
  std::vector<double> cumulative;
  double running = 0;
  for (double s : split) cumulative.push_back((running += s) / total);
  const size_t with_output = n_layer + 1;
  const size_t ngl = static_cast<size_t>(std::min<uint64_t>(ngl_given, with_output));
  const size_t first_gpu =
      in.llama_cpp.output_layer_last ? (n_layer > ngl ? n_layer - ngl : 0) : with_output - ngl;
  std::vector<int> out(with_output, -1);
  for (size_t il = 0; il < with_output; ++il) {
    if (il < first_gpu || il - first_gpu >= ngl) continue;
    const double at = static_cast<double>(il - first_gpu) / static_cast<double>(ngl);
    for (size_t d = 0; d < cumulative.size(); ++d) {
      if (cumulative[d] > at) {
        out[il] = static_cast<int>(d);
        break;
      }
    }
  }
  return out;
}

// The devices of one server (--gpus, at least one), once its slots and --tensor-split are checked.
Result<size_t> server_devices(const PlanInput& in) {
  using RS = Result<size_t>;
  constexpr uint64_t kMaxDevices = 64;  // one llama-server's GPUs
  if (in.gpus > kMaxDevices) {
    return RS::failure(
        make_error(kOutOfRange, "gpus", "llama.cpp splits one server over at most 64 devices"));
  }
  const size_t devices = static_cast<size_t>(std::max<uint64_t>(1, in.gpus));
  if (!in.llama_cpp.tensor_split.empty() && in.llama_cpp.tensor_split.size() != devices) {
    return RS::failure(make_error(kInvalidValue, "llama_cpp.tensor_split",
                                  std::to_string(in.llama_cpp.tensor_split.size()) +
                                      " fractions for " + std::to_string(devices) +
                                      " GPUs (--gpus)"));
  }
  for (double s : in.llama_cpp.tensor_split) {
    if (!(s >= 0 && s <= 1e12)) {
      return RS::failure(
          make_error(kInvalidValue, "llama_cpp.tensor_split", "fractions must be 0 or more"));
    }
  }
  return RS::success(devices);
}

// What a server's devices hold: each layer's weights (the token embedding stays on the CPU) and
// buffers, spread by layer_devices. Weights known otherwise (--weights-bytes, an index's
// total_size) are spread as the computed ones are.
struct ServerLayers {
  LayerWeightBytes weights;
  double weight_scale = 1;
  std::vector<LayerBuffers> buffers;
  size_t devices = 1;
  uint64_t compute_bytes = 0;  // on the output layer's GPU, when fitting
  uint64_t margin_bytes = 0;   // kept free on each GPU, when fitting
};

// --fit's margin is free memory it leaves beside what it places on a device: one given no layer,
// no output layer and no cache allocates nothing there (every layer on the CPU), whatever the
// margin.
uint64_t fit_margin(const ServerLayers& s, const DeviceBuffers& b, bool keeps_cache) {
  return b.layer_count != 0 || b.output_layer || keeps_cache ? s.margin_bytes : 0;
}

Result<ServerLayers> server_layers(const ModelShape& shape, const PlanReport& r,
                                   std::vector<LayerBuffers> buffers, size_t devices) {
  using RS = Result<ServerLayers>;
  const Result<std::vector<WeightTensor>> tensors = weight_tensors(r.estimate.shape);
  if (!tensors.ok) return RS::failure(tensors.error);
  const Result<LayerWeightBytes> weights =
      layer_weight_bytes(tensors.value, r.weights, shape.layers.size());
  if (!weights.ok) return RS::failure(weights.error);
  ServerLayers out;
  out.weights = weights.value;
  out.buffers = std::move(buffers);
  out.devices = devices;
  CheckedU64 computed = CheckedU64(out.weights.embedding) + out.weights.output;
  for (uint64_t bytes : out.weights.per_layer) computed += bytes;
  if (!computed.overflowed() && computed.value() != 0 && computed.value() != r.weights_bytes)
    out.weight_scale = static_cast<double>(r.weights_bytes) / static_cast<double>(computed.value());
  return RS::success(std::move(out));
}

// Where each layer lives (layer_devices: -1 the CPU) and what each device holds: the GPUs, then
// the CPU last.
struct Placement {
  std::vector<int> layer_device;
  std::vector<DeviceBuffers> on;

  size_t gpus() const { return on.size() - 1; }
  // Where device `d` of layer_device (-1: the CPU) is in `on`.
  size_t index(int d) const { return d < 0 ? gpus() : static_cast<size_t>(d); }
};

// `ngl` layers (the output layer counts as one) on the GPUs, and whether each GPU holds its
// weights, buffers and what it keeps free (and, on the first, the overhead).
Placement place_layers(const ServerLayers& s, uint64_t ngl, const PlanReport& r,
                       const PlanInput& in) {
  const size_t n_layer = s.buffers.size();
  Placement p;
  p.layer_device = layer_devices(n_layer, ngl, in, s.devices);
  p.on.resize(s.devices + 1);
  for (size_t d = 0; d < s.devices; ++d) p.on[d].device = "CUDA" + std::to_string(d);
  p.on[s.devices].device = "CPU";
  p.on[s.devices].weights_bytes = s.weights.embedding;
  for (size_t il = 0; il <= n_layer; ++il) {
    DeviceBuffers& b = p.on[p.index(p.layer_device[il])];
    if (il == n_layer) {
      b.output_layer = true;
      b.weights_bytes += s.weights.output;
      continue;
    }
    if (b.layer_count == 0) b.first_layer = static_cast<uint32_t>(il);
    ++b.layer_count;
    b.weights_bytes += s.weights.per_layer[il];
    // -nkvo keeps every layer's K/V in host memory.
    DeviceBuffers& kv = in.llama_cpp.kv_offload ? b : p.on[s.devices];
    kv.kv_bytes += s.buffers[il].kv;
    kv.state_bytes += s.buffers[il].state;
  }
  if (s.weight_scale != 1) {
    for (DeviceBuffers& b : p.on)
      b.weights_bytes =
          static_cast<uint64_t>(static_cast<double>(b.weights_bytes) * s.weight_scale);
  }
  for (size_t d = 0; d < p.gpus(); ++d) {
    DeviceBuffers& b = p.on[d];
    b.memory_bytes = r.kv_memory_given ? in.kv_memory_bytes : r.gpu_memory_bytes;
    CheckedU64 used = CheckedU64(b.kv_bytes) + b.state_bytes +
                      fit_margin(s, b, b.kv_bytes != 0 || b.state_bytes != 0) +
                      (b.output_layer ? s.compute_bytes : 0);
    if (!r.kv_memory_given) used += CheckedU64(b.weights_bytes) + (d == 0 ? in.overhead_bytes : 0);
    b.fits = !used.overflowed() && used.value() <= b.memory_bytes;
  }
  return p;
}

bool all_fit(const Placement& p) {
  return std::all_of(p.on.begin(), p.on.end(), [](const DeviceBuffers& b) { return b.fits; });
}

// The layers as -ngl puts them, or, when fitting and -ngl is not given, as many as fit (from the
// output layer down, as llama.cpp's --fit fills each device back to front).
Placement placed(const ServerLayers& s, const PlanReport& r, const PlanInput& in,
                 const LlamaServerRules& rules) {
  const uint64_t with_output = s.buffers.size() + 1;
  if (!rules.fit_layers || in.llama_cpp.n_gpu_layers != LlamacppOptions{}.n_gpu_layers)
    return place_layers(s, in.llama_cpp.n_gpu_layers, r, in);
  for (uint64_t ngl = with_output;; --ngl) {
    Placement p = place_layers(s, ngl, r, in);
    if (all_fit(p) || ngl == 0) return p;
  }
}

// The longest context (-c) whose buffers fit beside each device's weights where `p` put them.
uint64_t longest_context(const ModelShape& shape, const PlanReport& r, const Dtype& v,
                         const PlanInput& in, const LlamaServerRules& rules, const Placement& p,
                         const ServerLayers& s) {
  const auto fits_at = [&](uint64_t ctx) {
    const Result<std::vector<LayerBuffers>> b =
        layer_buffers(shape, r.estimate.kv_dtype, v, ctx, in, rules);
    if (!b.ok) return false;
    std::vector<CheckedU64> per_device(p.on.size());
    for (size_t il = 0; il < b.value.size(); ++il) {
      const int d = in.llama_cpp.kv_offload ? p.layer_device[il] : -1;
      per_device[p.index(d)] += CheckedU64(b.value[il].kv) + b.value[il].state;
    }
    for (size_t d = 0; d < p.gpus(); ++d) {
      const CheckedU64 used =
          (r.kv_memory_given ? CheckedU64(0) : CheckedU64(p.on[d].weights_bytes)) + per_device[d] +
          (d == 0 ? in.overhead_bytes : 0) + fit_margin(s, p.on[d], per_device[d].value() != 0) +
          (p.on[d].output_layer ? s.compute_bytes : 0);
      if (used.overflowed() || used.value() > p.on[d].memory_bytes) return false;
    }
    return true;
  };
  return largest_fitting(rules.cell_pad, kMaxSearchTokens, fits_at);
}

// The refusal when the buffers do not fit, and what the plan leaves out.
void add_startup_error_and_notes(PlanReport& r, const ModelShape& shape, const PlanInput& in,
                                 size_t devices, uint64_t cell_pad, bool fitted) {
  if (!r.starts) {
    r.startup_error =
        "the K and V buffers (" + format_gib(r.kv_pool_bytes) +
        ") do not fit beside the weights on " +
        (devices > 1 ? std::to_string(devices) + " GPUs of " : std::string()) +
        format_gib(r.gpu_memory_bytes) +
        ": llama.cpp fails to allocate them (or offloads layers to the CPU with --n-gpu-layers)";
  }
  r.notes.push_back("llama.cpp: n_ctx padded to " + std::to_string(cell_pad) + " cells, " +
                    std::string(in.llama_cpp.kv_unified ? "one unified cache for "
                                                        : "one stream per sequence for ") +
                    std::to_string(in.llama_cpp.parallel) + " sequences" +
                    (fitted ? std::string() : "; compute buffers not included"));
  if (!llamacpp_windows(shape.model_type) &&
      std::any_of(shape.layers.begin(), shape.layers.end(),
                  [](const LayerSpec& l) { return l.windowed(); })) {
    r.notes.push_back("llama.cpp gives " + shape.model_type +
                      " no sliding-window cache (src/llama-model.cpp load_hparams): every layer "
                      "keeps the full context");
  }
}

}  // namespace

LlamaServerRules llamacpp_rules(const PlanInput& in) {
  LlamaServerRules rules;
  rules.layer_cells = llamacpp_layer_cells;
  rules.windows = llamacpp_windows;
  rules.cell_pad = context_pad(in);
  return rules;
}

Result<PlanReport> plan_llama_server(PlanReport r, const ModelShape& shape, const PlanInput& in,
                                     uint64_t n_ctx, const LlamaServerRules& rules) {
  using R = Result<PlanReport>;
  const Result<size_t> devices = server_devices(in);
  if (!devices.ok) return R::failure(devices.error);
  const Result<Dtype> v = in.llama_cpp.v_dtype.empty()
                              ? Result<Dtype>::success(r.estimate.kv_dtype)
                              : parse_dtype(in.llama_cpp.v_dtype, DtypeUse::kKv, "v_dtype");
  if (!v.ok) return R::failure(v.error);
  Result<std::vector<LayerBuffers>> buffers =
      layer_buffers(shape, r.estimate.kv_dtype, v.value, n_ctx, in, rules);
  if (!buffers.ok) return R::failure(buffers.error);
  const Result<uint64_t> total_buffers = sum(buffers.value);
  if (!total_buffers.ok) return R::failure(total_buffers.error);
  const CheckedU64 pool_tokens = rules.layer_cells(LayerSpec{}, n_ctx, in, rules);
  if (pool_tokens.overflowed()) return R::failure(too_large("context_tokens", "KV cells").error);
  // What it allocates is the pool; a sequence may use up to n_ctx_seq cells of it.
  r.kv_pool_bytes = total_buffers.value;
  r.kv_bytes_needed = total_buffers.value;
  r.kv_pool_tokens = pool_tokens.value();
  r.max_concurrency = static_cast<double>(in.llama_cpp.parallel);
  r.block_size_tokens = 0;

  Result<ServerLayers> layers = server_layers(shape, r, std::move(buffers.value), devices.value);
  if (!layers.ok) return R::failure(layers.error);
  ServerLayers& s = layers.value;
  if (rules.fit_layers) {
    s.margin_bytes = rules.fit_margin_bytes;
    // The worst-case graph llama.cpp reserves holds n_ubatch rows of logits and of the hidden
    // state in f32: 258.50 MiB for Llama-3-8B at n_ubatch 512 ("CUDA0 compute buffer size").
    const CheckedU64 compute =
        CheckedU64(in.llama_cpp.ubatch) * 4 * (CheckedU64(shape.vocab_size) + shape.hidden_size);
    s.compute_bytes = compute.overflowed() ? UINT64_MAX : compute.value();
  }
  const Placement p = placed(s, r, in, rules);
  r.starts = all_fit(p) ||
             (rules.fit_layers && in.llama_cpp.n_gpu_layers == LlamacppOptions{}.n_gpu_layers);
  r.weights_bytes = 0;  // the GPU that holds the most, as llama.cpp's "CUDA0 model buffer size"
  uint64_t gpu_layers = 0;
  for (size_t d = 0; d < p.gpus(); ++d) {
    r.weights_bytes = std::max(r.weights_bytes, p.on[d].weights_bytes);
    gpu_layers += p.on[d].layer_count + (p.on[d].output_layer ? 1 : 0);
  }
  r.devices = p.on;
  if (rules.fit_layers) {
    r.offload =
        LayerOffload{true, gpu_layers, shape.layers.size() + 1, s.margin_bytes, s.compute_bytes};
  }
  if (!r.kv_memory_given) r.requested_bytes = r.gpu_memory_bytes;
  // The longest context with every layer on the GPUs when fitting, else where -ngl put them.
  const bool spilled = rules.fit_layers && gpu_layers < shape.layers.size() + 1;
  r.max_context = longest_context(shape, r, v.value, in, rules,
                                  spilled ? place_layers(s, shape.layers.size() + 1, r, in) : p, s);
  r.max_model_len_that_fits = r.max_context / rules.cell_pad * rules.cell_pad;
  return R::success(std::move(r));
}

Result<PlanReport> plan_llamacpp(PlanReport r, const ModelShape& shape, const PlanInput& given) {
  using R = Result<PlanReport>;
  // Builds of 2025 also kept an MLA V cache and offloaded the first layers with -ngl.
  PlanInput in = given;
  in.engine_version = r.engine_version;
  if (in.engine_version == "2025") in.llama_cpp.mla_v_cache = in.llama_cpp.output_layer_last = true;
  if (in.llama_cpp.parallel == 0)
    return R::failure(make_error(kInvalidValue, "llama_cpp.parallel", "must be at least 1"));
  LlamaServerRules rules = llamacpp_rules(in);
  uint64_t n_ctx = in.model.context_tokens != 0 ? in.model.context_tokens : r.max_model_len;
  // No context asked for: builds of 2026 take n_ctx_train and --fit (on by default) shrinks it to
  // what the GPUs hold with 1 GiB free, not under 4,096 per stream, then moves layers to the CPU
  // unless -ngl was given (common/fit.cpp common_params_fit_impl, PR #16653, #22171).
  const bool fitted = given.model.context_tokens == 0 && given.max_model_len == 0 &&
                      in.engine_version != "2025" && !r.kv_memory_given;
  const uint64_t streams = in.llama_cpp.kv_unified ? 1 : in.llama_cpp.parallel;
  // The fit's context and its step, one stream each: beyond 2^64 cells no server is planned.
  const CheckedU64 fit_ctx = CheckedU64(n_ctx) * streams;
  const CheckedU64 step = CheckedU64(rules.cell_pad) * streams;
  const CheckedU64 least = CheckedU64(4096) * streams;  // --fit's floor per stream
  if (fitted && (fit_ctx.overflowed() || step.overflowed() || least.overflowed())) {
    return R::failure(make_error(kOutOfRange, "llama_cpp.parallel",
                                 std::to_string(in.llama_cpp.parallel) +
                                     " streams of the model's context exceed 2^64-1 cells"));
  }
  if (fitted) {
    rules.fit_layers = true;
    rules.fit_margin_bytes = 1024 * (uint64_t{1} << 20);  // --fit-target
    n_ctx = fit_ctx.value();
  }
  // Fitting keeps `r` for a second plan at the context that fits.
  Result<PlanReport> planned =
      plan_llama_server(fitted ? PlanReport(r) : std::move(r), shape, in, n_ctx, rules);
  if (fitted && planned.ok && planned.value.offload.gpu_layers < planned.value.offload.layers) {
    n_ctx = std::max(planned.value.max_context / step.value() * step.value(), least.value());
    planned = plan_llama_server(std::move(r), shape, in, n_ctx, rules);
  }
  if (!planned.ok) return planned;
  PlanReport& out = planned.value;
  out.max_model_len = stream_cells(n_ctx, in).value();  // plan_llama_server checked it fits
  add_startup_error_and_notes(out, shape, in, static_cast<size_t>(std::max<uint64_t>(1, in.gpus)),
                              rules.cell_pad, fitted);
  if (fitted) {
    out.estimate.workload.context_tokens = out.max_model_len;
    out.notes.push_back("llama.cpp: no -c, so --fit took n_ctx " + with_commas(n_ctx) +
                        " (n_ctx_train, cut to what the GPUs hold with 1 GiB free beside an "
                        "estimated compute buffer, 4,096 per sequence at least)" +
                        (out.offload.gpu_layers < out.offload.layers
                             ? ", then " + std::to_string(out.offload.gpu_layers) + " of " +
                                   std::to_string(out.offload.layers) + " layers on the GPUs"
                             : std::string()));
  }
  return planned;
}

// llama.cpp keeps every recurrent state in f32 (llama_memory_recurrent).
void llamacpp_ssm_state_default(ModelShape& shape) { shape.ssm_state_dtype = "fp32"; }

// `llama-server` with the plan's -c (all slots together), slots and cache types
// (tools/server/README.md).
LaunchCommand launch_llamacpp(const PlanInput& in, const PlanReport& r, std::string_view) {
  LaunchCommand out;
  const uint64_t n_ctx = in.model.context_tokens != 0 ? in.model.context_tokens : r.max_model_len;
  // A plan --fit sized (no context asked for) leaves -c and -ngl to llama-server's --fit.
  const bool fitted = r.offload.present;
  std::vector<std::string> w = {"llama-server", "-m", gguf_file_name(in, r, out.unexpressed)};
  if (!fitted) w.insert(w.end(), {"-c", std::to_string(n_ctx)});
  w.insert(w.end(), {"--parallel", std::to_string(in.llama_cpp.parallel)});
  if (in.model.kv_dtype != "auto" || !in.llama_cpp.v_dtype.empty()) {
    // ggml's type names, the list -ctk and -ctv accept (common/arg.cpp kv_cache_types).
    const auto ggml_name = [&](const std::string& kv, const char* flag) {
      return engine_kv_dtype("llama.cpp", flag, kv,
                             {{"fp32", "f32"},
                              {"fp16", "f16"},
                              {"bf16", "bf16"},
                              {"q8_0", "q8_0"},
                              {"q4_0", "q4_0"},
                              {"q4_1", "q4_1"},
                              {"iq4_nl", "iq4_nl"},
                              {"q5_0", "q5_0"},
                              {"q5_1", "q5_1"}},
                             "common/arg.cpp kv_cache_types", out.unexpressed);
    };
    const std::string k = ggml_name(r.estimate.kv_dtype.name, "-ctk");
    const Result<Dtype> v = in.llama_cpp.v_dtype.empty()
                                ? Result<Dtype>::success(r.estimate.kv_dtype)
                                : parse_dtype(in.llama_cpp.v_dtype, DtypeUse::kKv, "v_dtype");
    const std::string v_name = v.ok ? ggml_name(v.value.name, "-ctv") : std::string();
    if (!k.empty()) w.insert(w.end(), {"-ctk", k});
    if (!v_name.empty()) w.insert(w.end(), {"-ctv", v_name});
    // A quantized V cache needs flash attention (llama-context.cpp refuses it otherwise); -fa
    // takes on|off|auto since the 2025 change, a bare switch before.
    if (v.ok && v.value.block_values > 1) w.insert(w.end(), {"-fa", "on"});
  }
  if (!in.llama_cpp.flash_attn && std::find(w.begin(), w.end(), "-fa") == w.end())
    w.insert(w.end(), {"-fa", "off"});
  // An explicit --parallel leaves common.h's kv_unified = false (tools/server/server.cpp unifies
  // only the automatic -np, 4 slots): the plan's shared cache needs -kvu in builds of 2026.
  if (!in.llama_cpp.kv_unified) w.push_back("--no-kv-unified");
  if (in.llama_cpp.kv_unified && in.llama_cpp.parallel > 1 && r.engine_version != "2025")
    w.push_back("-kvu");
  // Every layer on the GPUs, as the plan sizes them: builds before -ngl's "auto" default kept
  // layers on the CPU unless told.
  if (!fitted || in.llama_cpp.n_gpu_layers != LlamacppOptions{}.n_gpu_layers) {
    w.insert(w.end(), {"-ngl", in.llama_cpp.n_gpu_layers == LlamacppOptions{}.n_gpu_layers
                                   ? std::string("999")
                                   : std::to_string(in.llama_cpp.n_gpu_layers)});
  }
  if (!in.llama_cpp.tensor_split.empty()) {
    std::string split;
    for (double s : in.llama_cpp.tensor_split)
      split += (split.empty() ? "" : ",") + shortest_decimal(s);
    w.insert(w.end(), {"-ts", split});
  }
  if (in.llama_cpp.swa_full) w.push_back("--swa-full");
  if (!in.llama_cpp.kv_offload) w.push_back("-nkvo");
  out.command = shell_command(w);
  return out;
}

}  // namespace kvscope::engines
