// `kvscope explain` for llama.cpp (buffers sized to order from its context, slots and cache
// types) and for SGLang and TensorRT-LLM (the pool they allocated, in tokens and bytes).
#include <algorithm>
#include <cmath>

#include "explain/explain_figures.hpp"
#include "kvscope/base/elementary_math.hpp"
#include "kvscope/base/units.hpp"

namespace kvscope::explaining {

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
  double state = 0;
  for (const DeviceBuffers& d : p.value.devices) state += static_cast<double>(d.state_bytes);
  double kv = 0;
  for (const DeviceBuffers& d : p.value.devices) kv += static_cast<double>(d.kv_bytes);
  const std::string layers_differ = "llama.cpp's cells or layer types for this model differ from kvscope's";
  size_t caches = 0, buffer_lines = 0, rs_lines = 0;
  const PrintedFigure size_total = summed(log, "kv_size_mib", caches);
  const PrintedFigure buffers = summed(log, "kv_buffer_mib", buffer_lines);
  if (caches > 0) {
    x.direct(size_total, caches > 1 ? "K and V caches, all " + std::to_string(caches) + " together" : "K and V cache size",
             "MiB", mib(kv), layers_differ);
  } else if (buffer_lines > 0) {
    x.direct(buffers, buffer_lines > 1 ? "KV buffers, every device" : "KV buffer size", "MiB", mib(kv), layers_differ);
  }
  // The recurrent state: its size line, else every device's buffer together.
  const PrintedFigure* state_size = log.figure("rs_size_mib");
  const PrintedFigure rs_total = state_size != nullptr ? *state_size : summed(log, "rs_buffer_mib", rs_lines);
  if (state_size != nullptr || rs_lines > 0)
    x.direct(rs_total, rs_lines > 1 ? "recurrent-state buffers, every device" : "recurrent-state memory", "MiB",
             mib(state), "llama.cpp's state sizes for this model differ from kvscope's");
  if (const PrintedFigure* t = log.figure("n_ctx_train"))
    x.direct(*t, "n_ctx_train", "tokens", static_cast<double>(p.value.estimate.shape.max_position_embeddings),
             "the GGUF's context_length is not the config's max_position_embeddings");
  r.calibration = {"context " + std::to_string(in.model.context_tokens) + " cells, " +
                   std::to_string(in.llama_cpp.parallel) + " slots, K " + in.model.kv_dtype +
                   (in.llama_cpp.v_dtype.empty() ? "" : ", V " + in.llama_cpp.v_dtype) + " as the log printed them"};
  r.calibrated = true;
}

namespace {

// What SGLang's and TensorRT-LLM's logs say of the deployment: the engine, tensor parallel, the
// KV dtype and SGLang's context length.
void read_pool_arguments(const LogReading& log, PlanInput& in, ExplainReport& r) {
  in.engine = log.engine;
  uint64_t n = 0;
  if (count_of(log.argument("tp_size"), n) && n > 0 && n <= 65536)
    in.tensor_parallel = static_cast<uint32_t>(n);
  if (const std::string* kv = log.argument("kv_cache_dtype"); kv != nullptr && *kv != "auto")
    in.model.kv_dtype = *kv;
  if (const PrintedFigure* c = log.figure("sglang_context_len")) in.max_model_len = static_cast<uint64_t>(c->value);
  r.arguments = {{"tensor_parallel", std::to_string(in.tensor_parallel)}, {"kv_cache_dtype", in.model.kv_dtype}};
}

}  // namespace

// SGLang: the K and V buffers it allocated (after any recurrent-state pool) and the tokens they
// hold, reproduced from one token's cell on this GPU, whatever else the budget held.
void explain_sglang(const LogReading& log, PlanInput& in, ExplainReport& r, Explainer& x) {
  read_pool_arguments(log, in, r);
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
  const PrintedFigure* bytes = log.figure("trt_allocated_gib");
  const PrintedFigure* tokens = log.figure("trt_max_tokens");
  if (bytes != nullptr && tokens != nullptr)
    x.from_budget(*tokens, "max tokens in the paged KV cache", "tokens", *bytes, kGiB, tokens_in,
                  "TensorRT-LLM's block for this model differs from kvscope's");
}

}  // namespace kvscope::explaining
