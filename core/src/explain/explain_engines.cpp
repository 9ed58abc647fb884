// `kvscope explain` for llama.cpp (buffers sized to order from its context, slots and cache
// types) and for SGLang and TensorRT-LLM (the pool they allocated, in tokens and bytes).
#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "base/checked_math.hpp"
#include "engines/engine_profiles.hpp"
#include "explain/explain_figures.hpp"
#include "kvscope/base/elementary_math.hpp"
#include "kvscope/base/units.hpp"

namespace kvscope::explaining {

namespace {

// llama.cpp's K/V and recurrent-state buffers as it printed them, beside the plan's (llama-server,
// and Ollama's llama-server since 0.30).
void explain_llamacpp_buffers(const LogReading& log, const PlanReport& p, Explainer& x) {
  double state = 0;
  for (const DeviceBuffers& d : p.devices) state += static_cast<double>(d.state_bytes);
  double kv = 0;
  for (const DeviceBuffers& d : p.devices) kv += static_cast<double>(d.kv_bytes);
  const std::string layers_differ =
      "llama.cpp's cells or layer types for this model differ from kvscope's";
  size_t caches = 0, buffer_lines = 0, rs_lines = 0;
  const PrintedFigure size_total = summed(log, "kv_size_mib", caches);
  const PrintedFigure buffers = summed(log, "kv_buffer_mib", buffer_lines);
  if (caches > 0) {
    x.direct(size_total,
             caches > 1 ? "K and V caches, all " + std::to_string(caches) + " together"
                        : "K and V cache size",
             "MiB", mib(kv), layers_differ);
  } else if (buffer_lines > 0) {
    x.direct(buffers, buffer_lines > 1 ? "KV buffers, every device" : "KV buffer size", "MiB",
             mib(kv), layers_differ);
  }
  // The recurrent state: its size line, else every device's buffer together.
  const PrintedFigure* state_size = log.figure("rs_size_mib");
  const PrintedFigure rs_total =
      state_size != nullptr ? *state_size : summed(log, "rs_buffer_mib", rs_lines);
  if (state_size != nullptr || rs_lines > 0)
    x.direct(rs_total,
             rs_lines > 1 ? "recurrent-state buffers, every device" : "recurrent-state memory",
             "MiB", mib(state), "llama.cpp's state sizes for this model differ from kvscope's");
  if (const PrintedFigure* t = log.figure("n_ctx_train"))
    x.direct(*t, "n_ctx_train", "tokens",
             static_cast<double>(p.estimate.shape.max_position_embeddings),
             "the GGUF's context_length is not the config's max_position_embeddings");
}

}  // namespace

// llama.cpp: buffers sized to order, from the context, slots and cache types it printed.
void explain_llamacpp(const LogReading& log, PlanInput& in, ExplainReport& r, Explainer& x) {
  in.engine = "llama.cpp";
  in.tensor_parallel = in.pipeline_parallel = 1;
  if (const std::string* fa = log.argument("flash_attn"); fa != nullptr && (*fa == "0" || *fa == "false" || *fa == "disabled"))
    in.llama_cpp.flash_attn = false;
  if (in.engine_version.empty() && log.argument("kv_cache_class") != nullptr) in.engine_version = "2025";
  if (const PrintedFigure* c = log.figure("n_ctx")) {
    in.model.context_tokens = static_cast<uint64_t>(c->value);
  } else if (const PrintedFigure* cells = log.figure("non_swa_cells")) {
    in.model.context_tokens = static_cast<uint64_t>(cells->value);  // the full layers' cache is the context
  }
  if (const PrintedFigure* s = log.figure("n_seq_max"); s != nullptr && s->value >= 1)
    in.llama_cpp.parallel = static_cast<uint64_t>(s->value);
  if (const PrintedFigure* u = log.figure("n_ubatch"); u != nullptr && u->value >= 1)
    in.llama_cpp.ubatch = static_cast<uint64_t>(u->value);
  if (const std::string* k = log.argument("type_k")) in.model.kv_dtype = *k;
  if (const std::string* v = log.argument("type_v"); v != nullptr && (log.argument("type_k") == nullptr || *v != *log.argument("type_k")))
    in.llama_cpp.v_dtype = *v;
  if (const std::string* u = log.argument("kv_unified")) in.llama_cpp.kv_unified = *u == "true" || *u == "1";
  if (const std::string* s = log.argument("swa_full")) in.llama_cpp.swa_full = *s == "true" || *s == "1";
  std::vector<std::string> devices;
  for (const PrintedFigure& f : log.figures) {
    if (f.key == "kv_buffer_mib" && f.detail != "CPU" &&
        std::find(devices.begin(), devices.end(), f.detail) == devices.end())
      devices.push_back(f.detail);
  }
  if (devices.size() > 1) in.gpus = devices.size();
  if (in.gpu_id.empty() && in.gpu_memory_bytes == 0) in.gpu_memory_bytes = uint64_t{1} << 50;  // buffers do not depend on the card
  if (const Result<PlanReport> probe = plan(in); probe.ok) {
    const ModelShape& shape = probe.value.estimate.shape;
    // An MLA cache that prints a V part is the layout before PR #19067, which kept V apart.
    if (const PrintedFigure* v = log.figure("kv_v_mib"); v != nullptr && v->value > 0 && shape.mla.kv_lora_rank != 0)
      in.llama_cpp.mla_v_cache = true;
    // The SWA cache holds PAD(n_swa x streams + ubatch, 256) cells (llama-kv-cache-iswa.cpp): fewer
    // than the default ubatch gives say the ubatch was smaller, and by how much.
    uint64_t window = 0;
    for (const LayerSpec& l : shape.layers)
      if (l.attention == AttentionKind::kSlidingWindow) window = std::max(window, l.window_tokens);
    if (const PrintedFigure* n_swa = log.figure("n_swa")) window = static_cast<uint64_t>(n_swa->value);
    const PrintedFigure* cells = log.figure("swa_cells");
    const uint64_t streams = in.llama_cpp.kv_unified ? in.llama_cpp.parallel : 1;
    if (log.figure("n_ubatch") == nullptr && cells != nullptr && window != 0 && cells->value > 0) {
      const uint64_t c = static_cast<uint64_t>(cells->value);
      if (c > window * streams && c - window * streams < in.llama_cpp.ubatch)
        in.llama_cpp.ubatch = c - window * streams;
    }
  }
  r.arguments = {{"n_ctx", std::to_string(in.model.context_tokens)},
                 {"n_seq_max", std::to_string(in.llama_cpp.parallel)},
                 {"type_k", in.model.kv_dtype},
                 {"type_v", in.llama_cpp.v_dtype.empty() ? in.model.kv_dtype : in.llama_cpp.v_dtype},
                 {"kv_unified", in.llama_cpp.kv_unified ? "true" : "false"},
                 {"devices", std::to_string(std::max<size_t>(1, devices.size()))}};
  const Result<PlanReport> p = plan(in);
  if (!p.ok) {
    r.notes.push_back("kvscope cannot plan this deployment: " + p.error.message);
    return;
  }
  explain_llamacpp_buffers(log, p.value, x);
  r.calibration = {"context " + std::to_string(in.model.context_tokens) + " cells, " +
                   std::to_string(in.llama_cpp.parallel) + " slots, K " + in.model.kv_dtype +
                   (in.llama_cpp.v_dtype.empty() ? "" : ", V " + in.llama_cpp.v_dtype) + " as the log printed them"};
  r.calibrated = true;
}

namespace {

// The first of the log's arguments named in `keys` that is a count.
bool first_count(const LogReading& log, std::initializer_list<const char*> keys, uint64_t& out) {
  for (const char* key : keys)
    if (count_of(log.argument(key), out)) return true;
  return false;
}

// Ollama's "kv cache" line (0.11.5-0.24) of one device and "memory.required.kv" (to 0.12.10)
// beside the plan's, in the unit each printed.
void explain_ollama_sizes(const LogReading& log, const PlanReport& p, Explainer& x) {
  const std::string differs =
      "Ollama's cache or layer placement for this model differs from kvscope's";
  double total = 0;
  for (const DeviceBuffers& d : p.devices) total += static_cast<double>(d.kv_bytes);
  for (const PrintedFigure& f : log.figures) {
    const bool in_gib = f.key.size() > 4 && f.key.compare(f.key.size() - 4, 4, "_gib") == 0;
    const double unit = in_gib ? kGiB : kMiB;
    if (f.key == "ollama_kv_mib" || f.key == "ollama_kv_gib") {
      double bytes = 0;
      for (const DeviceBuffers& d : p.devices)
        if (d.device == f.detail) bytes = static_cast<double>(d.kv_bytes);
      x.direct(f, "kv cache on " + f.detail, in_gib ? "GiB" : "MiB", bytes / unit, differs);
    }
    if (f.key == "ollama_required_kv_mib" || f.key == "ollama_required_kv_gib") {
      x.direct(f, "memory.required.kv (Ollama's estimate before 0.12.11)", in_gib ? "GiB" : "MiB",
               total / unit,
               "Ollama's estimate (llm/memory.go) counts this model's cache otherwise");
    }
  }
}

}  // namespace

// Ollama: num_ctx, num_parallel and the cache type from the command it started its runner with
// (or llama.cpp's own lines), planned as the Ollama line that printed the log.
void explain_ollama(const LogReading& log, PlanInput& in, ExplainReport& r, Explainer& x) {
  in.engine = "ollama";
  in.tensor_parallel = in.pipeline_parallel = 1;
  const bool server =
      log.argument("ollama_runner") != nullptr || log.figure("n_ctx_seq") != nullptr;
  if (in.engine_version.empty()) {
    in.engine_version = !log.version.empty()                              ? log.version
                        : server                                          ? "0.30"
                        : log.figure("ollama_default_num_ctx") != nullptr ? "0.15"
                                                                          : "0.12";
  }
  uint64_t np = 1, ctx = 0, batch = 0, layers = 0;
  if (first_count(log, {"ollama -np ", "ollama --parallel ", "OLLAMA_NUM_PARALLEL:"}, np) &&
      np == 0)
    np = 1;
  if (const PrintedFigure* s = log.figure("n_seq_max");
      s != nullptr && s->value >= 1 && log.argument("ollama -np ") == nullptr &&
      log.argument("ollama --parallel ") == nullptr)
    np = static_cast<uint64_t>(s->value);
  in.ollama.num_parallel = np;
  if (first_count(log, {"ollama -c ", "ollama --ctx-size "}, ctx) ||
      (log.figure("n_ctx") != nullptr &&
       (ctx = static_cast<uint64_t>(log.figure("n_ctx")->value)) != 0))
    in.ollama.num_ctx = std::max<uint64_t>(1, ctx / np);
  for (const char* key :
       {"ollama --cache-type-k ", "ollama --kv-cache-type ", "OLLAMA_KV_CACHE_TYPE:", "type_k"}) {
    const std::string* kv = log.argument(key);
    if (kv == nullptr || kv->empty()) continue;
    // The KV dtype, as the page and `kvscope plan --kv-dtype` carry it (f16 is Ollama's auto).
    in.model.kv_dtype = *kv == "f16" ? "auto" : *kv;
    in.ollama.kv_cache_type.clear();
    break;
  }
  if (const std::string* fa = log.argument("ollama --flash-attn ")) in.ollama.flash_attention = *fa;
  if (first_count(log, {"ollama -ub ", "ollama --batch-size "}, batch) && batch != 0)
    in.ollama.num_batch = batch;
  if (first_count(log, {"ollama -ngl ", "ollama --n-gpu-layers "}, layers))
    in.ollama.num_gpu = layers;
  const bool card = !in.gpu_id.empty() || in.gpu_memory_bytes != 0;
  if (!card) in.gpu_memory_bytes = uint64_t{1} << 50;  // the buffers do not depend on the card
  r.arguments = {{"num_ctx", std::to_string(in.ollama.num_ctx)},
                 {"num_parallel", std::to_string(np)},
                 {"kv_cache_type", in.model.kv_dtype == "auto" ? "f16" : in.model.kv_dtype}};
  const Result<PlanReport> p = plan(in);
  if (!card) in.gpu_memory_bytes = 0;
  if (!p.ok) {
    r.notes.push_back("kvscope cannot plan this deployment: " + p.error.message);
    return;
  }
  explain_llamacpp_buffers(log, p.value, x);
  explain_ollama_sizes(log, p.value, x);
  if (card) {
    if (const PrintedFigure* d = log.figure("ollama_default_num_ctx"))
      x.direct(*d, "default num_ctx for the VRAM", "tokens",
               static_cast<double>(p.value.ollama.default_num_ctx),
               "the VRAM Ollama summed differs from this card's (give --gpu-memory as it printed "
               "total_vram)");
    if (const PrintedFigure* o = log.figure("offloaded_layers");
        o != nullptr && in.ollama.num_gpu == OllamaOptions{}.num_gpu)
      x.direct(*o, "layers offloaded to the GPUs", "layers",
               static_cast<double>(p.value.offload.gpu_layers),
               "the fit kvscope estimates (weights, compute buffer, margin) differs from what the "
               "card had free");
  }
  if (in.ollama.num_ctx != 0)
    r.calibration = {"num_ctx " + std::to_string(in.ollama.num_ctx) + ", " + std::to_string(np) +
                     " slots as the log printed them"};
  r.calibrated = in.ollama.num_ctx != 0;
}

namespace {

// What SGLang's and TensorRT-LLM's logs say of the deployment: the engine, tensor parallel, the
// KV dtype and SGLang's context length.
void read_pool_arguments(const LogReading& log, PlanInput& in, ExplainReport& r) {
  in.engine = log.engine;
  uint64_t n = 0;
  if (count_of(log.argument("tp_size"), n) && n > 0 && n <= 65536)
    in.tensor_parallel = static_cast<uint32_t>(n);
  // SGLang's DP attention: its printed pools are one GPU's, of one rank's requests.
  if (const std::string* on = log.argument("enable_dp_attention");
      on != nullptr && *on == "True" && count_of(log.argument("dp_size"), n) && n > 1 &&
      n <= 65536) {
    in.sglang.enable_dp_attention = true;
    in.data_parallel = n;
  }
  if (const std::string* kv = log.argument("kv_cache_dtype"); kv != nullptr && *kv != "auto")
    in.model.kv_dtype = *kv;
  if (const PrintedFigure* c = log.figure("sglang_context_len")) in.max_model_len = static_cast<uint64_t>(c->value);
  r.arguments = {{"tensor_parallel", std::to_string(in.tensor_parallel)}, {"kv_cache_dtype", in.model.kv_dtype}};
  if (in.sglang.enable_dp_attention)
    r.arguments.emplace_back("dp_size", std::to_string(in.data_parallel));
}

// SGLang's DeepSeek-V4 pools: the bytes of a full token, the ratio-128 state of the request
// slots, and the full tokens the budget it printed holds (engine_sglang_dsv4.cpp).
void explain_sglang_deepseek_v4(const LogReading& log, PlanInput& in, Explainer& x) {
  const PrintedFigure* per_token = log.figure("sglang_dsv4_bytes_per_full_token");
  const PrintedFigure* available = log.figure("sglang_dsv4_available_gib");
  if (per_token == nullptr || available == nullptr) return;
  if (const PrintedFigure* running = log.figure("sglang_max_running_requests"))
    in.sglang.max_running_requests = static_cast<uint64_t>(running->value);
  const Result<PlanReport> p =
      plan_at_kv_budget(in, uint64_t{1} << 40, in.max_model_len == 0 ? 1024 : 0);
  if (!p.ok) return;
  const Result<engines::SglangDsv4Bytes> bytes =
      engines::sglang_dsv4_bytes(p.value.estimate.shape, engines::sglang_dsv4_swa_ratio(in.sglang),
                                 !p.value.speculative.method.empty());
  if (!bytes.ok) return;
  x.direct(*per_token, "bytes of a full token (bytes_per_full_token)", "bytes",
           bytes.value.per_full_token, "SGLang's pools for this model differ from kvscope's");
  if (const PrintedFigure* c128 = log.figure("sglang_dsv4_c128_fixed_gib")) {
    const uint64_t slots = p.value.max_running_requests + 1, ring = bytes.value.ring128;
    const uint64_t rows = ceil_div(slots * ring + ring + 1, 128) * 128;
    x.direct(*c128, "ratio-128 compressor state of the request slots (c128_state_fixed)", "GiB",
             static_cast<double>(rows * bytes.value.c128_state_row) / kGiB,
             "SGLang keeps another number of request slots");
  }
  if (const PrintedFigure* full = log.figure("sglang_dsv4_full_token")) {
    x.from_budget(
        *full, "full tokens of the pools (full_token)", "tokens", *available, kGiB,
        [&in](uint64_t budget) -> Result<double> {
          const Result<PlanReport> at =
              plan_at_kv_budget(in, budget, in.max_model_len == 0 ? 1024 : 0);
          if (!at.ok) return Result<double>::failure(at.error);
          return Result<double>::success(static_cast<double>(at.value.kv_pool_tokens));
        },
        "SGLang's pools for this model differ from kvscope's");
  }
  // The budget it printed plans the deployment (what the page calibrates to).
  if (in.kv_memory_bytes == 0 && available->value > 0)
    in.kv_memory_bytes = static_cast<uint64_t>(std::llround(available->value * kGiB));
}

}  // namespace

// SGLang: the K and V buffers it allocated (after any recurrent-state pool) and the tokens they
// hold, reproduced from one token's cell on this GPU, whatever else the budget held.
void explain_sglang(const LogReading& log, PlanInput& in, ExplainReport& r, Explainer& x) {
  read_pool_arguments(log, in, r);
  explain_sglang_deepseek_v4(log, in, x);
  Result<double> cell = Result<double>::failure({});  // one token's bytes, planned on first use
  bool cell_planned = false;
  const auto tokens_of_buffers = [&](uint64_t bytes) -> Result<double> {
    if (!cell_planned) {
      cell_planned = true;
      const Result<PlanReport> p = plan_at_kv_budget(in, uint64_t{1} << 40, in.max_model_len == 0 ? 1024 : 0);
      cell = !p.ok ? Result<double>::failure(p.error)
             : p.value.kv_pool_tokens == 0
                 ? Result<double>::failure(make_error(kUnsupported, "model", "no layer keeps per-token KV"))
                 : Result<double>::success(std::round(static_cast<double>(p.value.kv_pool_bytes) /
                                                      static_cast<double>(p.value.kv_pool_tokens)));
    }
    if (!cell.ok) return cell;
    return Result<double>::success(std::floor(static_cast<double>(bytes) / cell.value));
  };
  const PrintedFigure* tokens = log.figure("sglang_tokens");
  if (tokens == nullptr) tokens = log.figure("max_total_num_tokens");
  const PrintedFigure* k = log.figure("sglang_k_size_gb");
  const PrintedFigure* v = log.figure("sglang_v_size_gb");
  if (const PrintedFigure* kv = log.figure("sglang_kv_size_gb"); tokens != nullptr && kv != nullptr) {
    x.from_budget(*tokens, "tokens the KV buffer holds (#tokens)", "tokens", *kv, kGiB,
                  tokens_of_buffers, "SGLang's cell for this model differs from kvscope's");
  } else if (tokens != nullptr && k != nullptr && v != nullptr) {
    PrintedFigure both = *k;
    both.value = k->value + v->value;
    both.text = as_printed(both.value, k->text);
    x.from_budget(*tokens, "tokens the K and V buffers hold (#tokens)", "tokens", both, kGiB,
                  tokens_of_buffers, "SGLang's cell for this model differs from kvscope's",
                  0.5 * (power_of_ten(-decimals_of(k->text)) + power_of_ten(-decimals_of(v->text))));
  }
}

// TensorRT-LLM: the bytes it allocated for the paged cache and the tokens they hold.
void explain_tensorrt_llm(const LogReading& log, PlanInput& in, ExplainReport& r, Explainer& x) {
  read_pool_arguments(log, in, r);
  const auto tokens_in = [&in](uint64_t bytes) -> Result<double> {
    const Result<PlanReport> p = plan_at_kv_budget(in, bytes, in.max_model_len == 0 ? 1024 : 0);
    if (!p.ok) return Result<double>::failure(p.error);
    return Result<double>::success(static_cast<double>(p.value.kv_pool_tokens));
  };
  // The pool it kept: the last "Allocated" line (the PyTorch backend sizes a trial pool first).
  const PrintedFigure* bytes = nullptr;
  const PrintedFigure* tokens = nullptr;
  for (const PrintedFigure& f : log.figures) {
    if (f.key == "trt_allocated_gib") bytes = &f;
    if (f.key == "trt_max_tokens") tokens = &f;
  }
  if (bytes != nullptr && tokens != nullptr)
    x.from_budget(*tokens, "max tokens in the paged KV cache", "tokens", *bytes, kGiB, tokens_in,
                  "TensorRT-LLM's block for this model differs from kvscope's");
  // One token's K and V on this GPU, and the budget the profile left: (total - peak + the trial
  // pool's bytes) x free_gpu_memory_fraction (_util.py _cal_max_memory).
  if (const PrintedFigure* per_token = log.figure("trt_kv_bytes_per_token")) {
    const Result<PlanReport> p =
        plan_at_kv_budget(in, uint64_t{1} << 30, in.max_model_len == 0 ? 1024 : 0);
    if (p.ok && p.value.block_size_tokens != 0 && p.value.max_model_len != 0) {
      const uint64_t cells =
          ceil_div(p.value.max_model_len, p.value.block_size_tokens) * p.value.block_size_tokens;
      x.direct(*per_token, "kv size per token (K and V of every layer on this GPU)", "bytes",
               static_cast<double>(p.value.kv_bytes_needed / cells),
               "TensorRT-LLM's layers or heads per GPU for this model differ from kvscope's");
    }
  }
  const PrintedFigure* total = log.figure("trt_total_gib");
  const PrintedFigure* peak = log.figure("trt_peak_gib");
  const PrintedFigure* fraction = log.figure("trt_fraction");
  const PrintedFigure* available = log.figure("trt_available_gib");
  if (total != nullptr && peak != nullptr && fraction != nullptr && available != nullptr) {
    const PrintedFigure* temporary = log.figure("trt_temporary_gib");
    const double temp = temporary != nullptr ? temporary->value : 0;
    x.direct(*available, "available KV cache memory", "GiB",
             (total->value - peak->value + temp) * fraction->value,
             "the profile's terms, each rounded to 0.01 GiB, give another budget",
             "(" + total->text + " - " + peak->text + " + " +
                 (temporary != nullptr ? temporary->text : std::string("0")) + ") GiB x " +
                 fraction->text);
  }
}

}  // namespace kvscope::explaining
