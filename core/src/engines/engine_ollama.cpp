// Ollama (github.com/ollama/ollama, read at v0.24.0 and v0.33.0-rc2): since 0.30 it starts
// llama-server with -c num_ctx x num_parallel and -np num_parallel and lets llama.cpp's --fit
// choose the layers on the GPUs (llm/llama_server.go startLlamaServer, PR #16031); from 0.11.11 to
// 0.24 its own engine kept the caches (kvcache/causal.go) and placed the layers (llm/server.go
// createLayout). Either way the context comes from Ollama's settings, not a memory budget.
#include <algorithm>
#include <cctype>

#include "base/one_of.hpp"
#include "engines/engine_profiles.hpp"
#include "engines/llama_server.hpp"
#include "kvscope/base/units.hpp"

namespace kvscope::engines {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

bool runs_llama_server(std::string_view version) { return version == "0.30"; }

// server/routes.go Serve (PR #13946, 0.15.5): the default num_ctx by the VRAM of every GPU,
// "slightly lower thresholds (47/23 GiB vs. 48/24 GiB)"; 4096 before (envconfig ContextLength).
uint64_t default_num_ctx(uint64_t total_vram, std::string_view version) {
  if (version == "0.12") return 4096;
  if (total_vram >= 47 * kGiB) return 262144;
  if (total_vram >= 23 * kGiB) return 32768;
  return 4096;
}

// The architectures whose sliding layers Ollama's own engine cached by window (model/models/*:
// kvcache.NewSWACache / NewSWAMemCache at v0.24.0); Llama 4's chunked cache and the rest full.
bool ollama_windows(const std::string& model_type) {
  return is_one_of(model_type, {"gemma2", "gemma3", "gemma3_text", "gemma3n", "gemma3n_text",
                                "gemma4", "gemma4_text", "gpt_oss", "olmo3"});
}

// The models its own engine ran with flash attention unless told otherwise (fs/ggml/ggml.go
// FlashAttention at v0.24.0), by the Hugging Face model_type they convert from.
bool flash_attention_by_default(const std::string& model_type) {
  return is_one_of(model_type,
                   {"gemma3", "gemma3_text", "gemma4", "gemma4_text", "gpt_oss", "lfm2", "lfm2_moe",
                    "mistral3", "nemotron_h", "olmo3", "qwen3", "qwen3_moe", "qwen3_next",
                    "qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe"});
}

// kvcache/causal.go (*Causal).Init: a full layer keeps num_parallel x num_ctx cells; a sliding one
// num_parallel x its memory (the window, at least sliding_memory_tokens; one more with parallel
// sequences) + num_batch, unless that reaches num_ctx; each padded to 256 (the ggml backend's
// CachePadding).
CheckedU64 ollama_cache_cells(const LayerSpec& l, uint64_t n_ctx, const PlanInput& in,
                              const LlamaServerRules& rules) {
  const uint64_t np = in.llama_cpp.parallel;
  if (l.windowed()) {
    uint64_t memory = std::max(l.window_tokens, rules.sliding_memory_tokens);
    if (np > 1) memory = std::max(memory, l.window_tokens + 1);
    const CheckedU64 cells = CheckedU64(memory) * np + in.llama_cpp.ubatch;
    if (memory < n_ctx / np) return cells.overflowed() ? cells : pad(cells.value(), 256);
  }
  return pad(n_ctx, 256);
}

// server/sched.go automaticGenerationBatch (0.30-): -b/-ub of 512 up to 4,096 tokens in all,
// 1,024 to 32,768 and 2,048 past, lowered while its prediction (the GGUF's bytes and an f16 KV of
// every layer at the fewest KV heads, llm/llama_server.go PredictServerVRAM) passes 60% (2,048) or
// 75% (1,024) of the free memory or leaves no room under 80% for the batch's surcharge (2 GiB,
// 768 MiB); without flash attention on CUDA 512, or 256 past 4,096 tokens on cards of 8 GiB or
// less.
uint64_t automatic_batch(const ModelShape& shape, uint64_t weights, uint64_t ctx, uint64_t free,
                         uint64_t card, bool flash_attention) {
  if (!flash_attention) return ctx > 4096 && card <= 8 * kGiB ? 256 : 512;
  uint32_t kv_heads = UINT32_MAX;
  for (const LayerSpec& l : shape.layers)
    if (l.keeps_tokens() && l.kv_heads > 0) kv_heads = std::min(kv_heads, l.kv_heads);
  if (kv_heads == UINT32_MAX) kv_heads = 1;
  const uint64_t head_dim =
      shape.num_attention_heads > 0 ? shape.hidden_size / shape.num_attention_heads : 0;
  const CheckedU64 predicted =
      CheckedU64(weights) + CheckedU64(2) * shape.layers.size() * kv_heads * head_dim * ctx * 2;
  const auto fits = [&](uint64_t batch) {
    if (predicted.overflowed()) return false;
    const uint64_t p = predicted.value(), threshold = free / 100 * 80;
    const uint64_t headroom_percent = batch >= 2048 ? 60 : 75;
    const uint64_t surcharge = batch >= 2048 ? 2 * kGiB : 768 * kMiB;
    return p <= threshold && p <= free / 100 * headroom_percent && surcharge <= threshold - p;
  };
  uint64_t batch = ctx > 32768 ? 2048 : ctx > 4096 ? 1024 : 512;
  while (batch > 512 && !fits(batch)) batch /= 2;
  return batch;
}

// "f16", "q8_0", "q4_0" for OLLAMA_KV_CACHE_TYPE from kvscope's KV dtype (fs/ggml/ggml.go
// SupportsKVCacheType); empty when Ollama has none.
std::string ollama_kv_type(const std::string& kv) {
  if (kv == "auto" || kv == "fp16" || kv == "f16") return "f16";
  if (kv == "q8_0" || kv == "q4_0") return kv;
  return {};
}

}  // namespace

// Ollama's settings into the request's common fields: OLLAMA_KV_CACHE_TYPE is the KV dtype (f16
// when unset).
Result<bool> ollama_request_options(PlanInput& in) {
  using RB = Result<bool>;
  OllamaOptions& o = in.ollama;
  if (o.num_parallel == 0)
    return RB::failure(make_error(kInvalidValue, "ollama.num_parallel", "must be at least 1"));
  std::string fa = o.flash_attention;
  std::transform(fa.begin(), fa.end(), fa.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (fa == "1" || fa == "true") fa = "on";
  if (fa == "0" || fa == "false") fa = "off";
  if (fa.empty()) fa = "auto";
  if (!is_one_of(fa, {"auto", "on", "off"})) {
    return RB::failure(make_error(kInvalidValue, "ollama.flash_attention",
                                  "expected auto, on or off, got " + quote_user_text(fa)));
  }
  o.flash_attention = fa;
  const std::string from_kv = ollama_kv_type(in.model.kv_dtype);
  if (!o.kv_cache_type.empty()) {
    if (ollama_kv_type(o.kv_cache_type).empty() || o.kv_cache_type == "auto") {
      return RB::failure(make_error(
          kInvalidValue, "ollama.kv_cache_type",
          "OLLAMA_KV_CACHE_TYPE takes f16, q8_0 or q4_0, not " + quote_user_text(o.kv_cache_type)));
    }
    if (in.model.kv_dtype != "auto" && from_kv != ollama_kv_type(o.kv_cache_type)) {
      return RB::failure(make_error(kInvalidValue, "ollama.kv_cache_type",
                                    o.kv_cache_type + " differs from kv_dtype " +
                                        quote_user_text(in.model.kv_dtype) + ": give one of them"));
    }
  } else if (from_kv.empty()) {
    return RB::failure(make_error(kInvalidValue, "kv_dtype",
                                  "Ollama's KV cache (OLLAMA_KV_CACHE_TYPE) is f16, q8_0 or q4_0, "
                                  "not " +
                                      quote_user_text(in.model.kv_dtype)));
  }
  o.kv_cache_type = o.kv_cache_type.empty() ? from_kv : ollama_kv_type(o.kv_cache_type);
  in.model.kv_dtype = o.kv_cache_type == "f16" ? "fp16" : o.kv_cache_type;
  return RB::success(true);
}

Result<PlanReport> plan_ollama(PlanReport r, const ModelShape& shape, const PlanInput& given) {
  using R = Result<PlanReport>;
  const std::string version = r.engine_version;
  const OllamaOptions& o = given.ollama;
  const uint64_t devices = std::max<uint64_t>(1, given.gpus);
  OllamaResolved& out = r.ollama;
  out.present = true;
  // The default by the sum of every GPU's total memory (less OLLAMA_GPU_OVERHEAD, which kvscope
  // leaves at 0), capped at the model's trained context (llm/server.go "requested context size
  // too large for model") per sequence, before num_parallel multiplies it.
  out.total_vram_bytes = r.kv_memory_given ? 0 : r.gpu_memory_bytes * devices;
  out.default_num_ctx = default_num_ctx(out.total_vram_bytes, version);
  out.num_ctx = o.num_ctx != 0 ? o.num_ctx : out.default_num_ctx;
  out.num_ctx_source = o.num_ctx != 0 ? "num_ctx given (OLLAMA_CONTEXT_LENGTH or PARAMETER num_ctx)"
                       : version == "0.12"
                           ? "Ollama's default before 0.15.5"
                           : "Ollama's default for " + format_gib(out.total_vram_bytes) +
                                 " of VRAM (4,096 under "
                                 "23 GiB, 32,768 under 47 GiB, 262,144 from 47 GiB)";
  const uint64_t trained = shape.max_position_embeddings;
  if (trained != 0 && out.num_ctx > trained) {
    r.notes.push_back("Ollama: num_ctx " + with_commas(out.num_ctx) + " is past the model's " +
                      with_commas(trained) + " (n_ctx_train): it runs at " + with_commas(trained) +
                      " (\"requested context size too large for model\")");
    out.num_ctx = trained;
  }
  out.num_parallel = o.num_parallel;
  const CheckedU64 n_ctx = CheckedU64(out.num_ctx) * out.num_parallel;
  if (n_ctx.overflowed() || n_ctx.value() > UINT32_MAX) {
    return R::failure(make_error(kOutOfRange,
                                 o.num_ctx != 0 ? "ollama.num_ctx" : "ollama.num_parallel",
                                 "num_ctx x num_parallel is past 4,294,967,295, the most cells "
                                 "llama.cpp's n_ctx holds"));
  }
  // Flash attention: since 0.30 llama.cpp's "auto" (on for the GPUs kvscope lists); before, on
  // for the models Ollama named unless OLLAMA_FLASH_ATTENTION said otherwise.
  out.flash_attention =
      o.flash_attention == "on" ||
      (o.flash_attention == "auto" &&
       (runs_llama_server(version) || flash_attention_by_default(shape.model_type)));
  out.kv_cache_type = o.kv_cache_type;
  std::string refusal;
  if (!out.flash_attention && out.kv_cache_type != "f16") {
    if (runs_llama_server(version)) {
      refusal = "llama-server refuses a quantized V cache (" + out.kv_cache_type +
                ") without flash attention (OLLAMA_FLASH_ATTENTION=0): set it to 1 or "
                "leave it unset";
    } else {
      r.notes.push_back(
          "Ollama " + r.engine_version_label + ": OLLAMA_KV_CACHE_TYPE=" + out.kv_cache_type +
          " is ignored without flash attention (" +
          (o.flash_attention == "off" ? std::string("OLLAMA_FLASH_ATTENTION=0")
                                      : shape.model_type + " is not a model it enables it for") +
          "): the cache is f16 (\"quantized kv cache requested but flash attention "
          "disabled\")");
      out.kv_cache_type = "f16";
      const Result<Dtype> f16 = parse_dtype("fp16", DtypeUse::kKv, "kv_dtype");
      if (!f16.ok) return R::failure(f16.error);
      r.estimate.kv_dtype = f16.value;
    }
  }
  // The slots llama-server or Ollama's cache keeps, and the batch that sizes the compute buffer.
  PlanInput in = given;
  in.llama_cpp = LlamacppOptions{};
  in.llama_cpp.parallel = out.num_parallel;
  in.llama_cpp.legacy_mla_gguf = given.llama_cpp.legacy_mla_gguf;  // Ollama library GGUFs of 2024
  in.llama_cpp.kv_unified = !runs_llama_server(version);           // -np given: a stream per slot
  in.llama_cpp.flash_attn = out.flash_attention;
  in.llama_cpp.output_layer_last = !runs_llama_server(version);  // Ollama dropped it first
  in.llama_cpp.n_gpu_layers = o.num_gpu;
  const uint64_t free = left_after(r.gpu_memory_bytes * devices, CheckedU64(given.overhead_bytes));
  out.num_batch = o.num_batch != 0 ? o.num_batch
                  : runs_llama_server(version)
                      ? automatic_batch(shape, r.weights_bytes, n_ctx.value(), free,
                                        r.gpu_memory_bytes, out.flash_attention)
                      : 512;
  in.llama_cpp.ubatch = out.num_batch;
  LlamaServerRules rules = llamacpp_rules(in);
  rules.fit_layers = true;
  if (runs_llama_server(version)) {
    rules.fit_margin_bytes = 1024 * kMiB;  // common/arg.cpp --fit-target, LLAMA_ARG_FIT_TARGET
  } else {
    rules.layer_cells = ollama_cache_cells;
    rules.windows = ollama_windows;
    rules.fit_margin_bytes = 457 * kMiB;  // ml/device.go MinimumMemory (CUDA, ROCm)
    // gpt-oss and Gemma 4 keep 4,096 tokens of their sliding layers (kvcache.NewSWAMemCache).
    if (is_one_of(shape.model_type, {"gpt_oss", "gemma4", "gemma4_text"}))
      rules.sliding_memory_tokens = 4096;
  }
  Result<PlanReport> planned = plan_llama_server(std::move(r), shape, in, n_ctx.value(), rules);
  if (!planned.ok) return planned;
  PlanReport& p = planned.value;
  const OllamaResolved& ran = p.ollama;
  if (!refusal.empty()) {
    p.starts = false;
    p.startup_error = refusal;
  }
  p.max_model_len = ran.num_ctx;
  // The longest num_ctx with every layer on the GPUs.
  p.max_context = p.max_context / ran.num_parallel;
  p.max_model_len_that_fits = p.max_context / 256 * 256;
  const LayerOffload& f = p.offload;
  if (f.gpu_layers < f.layers) {
    p.notes.push_back("Ollama: " + std::to_string(f.gpu_layers) + " of " +
                      std::to_string(f.layers) + " layers on the GPU" + (devices > 1 ? "s" : "") +
                      ", " + std::to_string(f.layers - f.gpu_layers) +
                      " on the CPU: each token then waits on host memory (\"offloaded " +
                      std::to_string(f.gpu_layers) + "/" + std::to_string(f.layers) +
                      " layers to GPU\")");
  }
  p.notes.push_back(
      std::string(runs_llama_server(version)
                      ? "Ollama runs llama-server with -c num_ctx x num_parallel, -np num_parallel "
                        "(a stream per slot) and no -ngl: llama.cpp's --fit keeps "
                      : "Ollama's own cache (kvcache/causal.go) and layout keep ") +
      format_gib(f.fit_margin_bytes) + " free on each GPU beside a compute buffer of " +
      format_gib(f.compute_bytes) + " (estimated: -ub " + std::to_string(ran.num_batch) +
      " rows of logits and hidden state in f32)");
  // No context given: the sequences are num_ctx long, as Ollama runs them.
  if (given.model.context_tokens == 0 && given.max_model_len == 0) {
    std::vector<std::string>& said = p.estimate.assumptions;
    said.erase(
        std::remove_if(said.begin(), said.end(),
                       [](const std::string& a) { return a.rfind("context not given", 0) == 0; }),
        said.end());
    said.push_back("context not given: Ollama's num_ctx, " + with_commas(ran.num_ctx) + " tokens");
    p.estimate.workload.context_tokens = ran.num_ctx;
  }
  // Sequences longer than num_ctx are cut (or shifted) to it.
  TargetFit& t = p.target;
  t.present = true;
  t.sequences = given.model.batch;
  t.context_tokens = p.estimate.workload.context_tokens;
  t.sequences_that_fit =
      t.context_tokens <= ran.num_ctx ? static_cast<double>(ran.num_parallel) : 0;
  t.sequences_that_fit_per_replica = t.sequences_that_fit;  // one server
  t.met = p.starts && t.sequences_that_fit >= static_cast<double>(t.sequences);
  if (!p.starts) {
    t.reason = "Ollama does not start";
  } else if (t.context_tokens > ran.num_ctx) {
    t.reason = "Ollama's num_ctx is " + with_commas(ran.num_ctx) +
               (in.ollama.num_ctx != 0 ? std::string()
                : version == "0.12"
                    ? std::string(" (its default)")
                    : " (its default for " + format_gib(ran.total_vram_bytes) + " of VRAM)") +
               ", shorter than " + with_commas(t.context_tokens) +
               " tokens: it cuts the prompt; set OLLAMA_CONTEXT_LENGTH=" +
               std::to_string(t.context_tokens);
  } else if (!t.met) {
    t.reason = std::to_string(ran.num_parallel) + " slot" + (ran.num_parallel == 1 ? "" : "s") +
               " serve" + (ran.num_parallel == 1 ? "s" : "") + " fewer than " +
               std::to_string(t.sequences) +
               " sequences at once: set OLLAMA_NUM_PARALLEL=" + std::to_string(t.sequences);
  }
  return planned;
}

// `ollama serve` with the plan's settings in its environment, then the model created from its
// GGUF (a Modelfile's FROM) and run (docs/faq.mdx, docs/modelfile.mdx).
LaunchCommand launch_ollama(const PlanInput& in, const PlanReport& r, std::string_view model) {
  LaunchCommand out;
  const OllamaResolved& o = r.ollama;
  std::vector<std::string> serve;
  if (in.ollama.num_ctx != 0) serve.push_back("OLLAMA_CONTEXT_LENGTH=" + std::to_string(o.num_ctx));
  if (o.num_parallel != 1) serve.push_back("OLLAMA_NUM_PARALLEL=" + std::to_string(o.num_parallel));
  if (o.kv_cache_type != "f16") serve.push_back("OLLAMA_KV_CACHE_TYPE=" + o.kv_cache_type);
  if (in.ollama.flash_attention != "auto")
    serve.push_back(std::string("OLLAMA_FLASH_ATTENTION=") + (o.flash_attention ? "1" : "0"));
  serve.push_back("ollama");
  serve.push_back("serve");
  std::string name(
      model.substr(model.rfind('/') == std::string_view::npos ? 0 : model.rfind('/') + 1));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::string gguf = gguf_file_name(in, r, out.unexpressed);
  std::vector<std::string> modelfile = {"FROM ./" + gguf};
  if (in.ollama.num_batch != 0)
    modelfile.push_back("PARAMETER num_batch " + std::to_string(in.ollama.num_batch));
  if (in.ollama.num_gpu != OllamaOptions{}.num_gpu)
    modelfile.push_back("PARAMETER num_gpu " + std::to_string(in.ollama.num_gpu));
  std::string lines;
  for (const std::string& l : modelfile) lines += (lines.empty() ? "" : "\\n") + l;
  out.command = shell_command(serve) + " & printf " + shell_command({lines + "\\n"}) +
                " > Modelfile && " + shell_command({"ollama", "create", name, "-f", "Modelfile"}) +
                " && " + shell_command({"ollama", "run", name});
  return out;
}

}  // namespace kvscope::engines
