// Start-up logs read as the engines print them (their format strings, cited per engine below):
// markers found with plain string search, numbers read after them; one pass, bounded.
#include "kvscope/explain/log_reading.hpp"

#include <algorithm>
#include <cstdlib>

#include "explain/log_text.hpp"

namespace kvscope {
namespace {

using namespace log_text;

constexpr size_t kMaxLogBytes = 16u << 20;
constexpr size_t kMaxLineBytes = 64u << 10;
// Each figure costs explain a few plans: a log's first 200 are read, the rest counted.
constexpr size_t kMaxFigures = 200;

class Reader {
 public:
  LogReading out;

  void figure(std::string key, const std::string& text, double value, size_t line,
              std::string detail = {}) {
    if (out.figures.size() == kMaxFigures) {
      ++out.figures_dropped;
      return;
    }
    out.figures.push_back(PrintedFigure{std::move(key), text, value, std::move(detail), line});
  }
  bool read(std::string key, std::string_view line, std::string_view marker, size_t n,
            std::string detail = {}) {
    std::string text;
    double value = 0;
    if (!number_after(line, marker, text, value)) return false;
    figure(std::move(key), text, value, n, std::move(detail));
    return true;
  }
  void argument(const std::string& key, const std::string& value) {
    if (value.empty() || out.argument(key) != nullptr) return;
    out.arguments.emplace_back(key, value);
  }
  // The key=value arguments an engine echoes after `marker`, and the model among them.
  void arguments_after(std::string_view line, const char* marker, const char* model_key) {
    for (const auto& [k, v] : pairs_after(line, marker)) argument(k, v);
    if (const std::string* m = out.argument(model_key); m != nullptr && out.model.empty())
      out.model = *m;
  }
  void engine(const char* id) {
    // Ollama's log carries the llama.cpp lines of the server it started: they are its own.
    const std::string_view which(id);
    if (out.engine == "ollama" && which == "llama.cpp") return;
    if (which == "ollama" && out.engine == "llama.cpp") {
      out.engine = id;
      return;
    }
    if (out.engine.empty()) {
      out.engine = id;
    } else if (out.engine != id &&
               std::find(out.other_engines.begin(), out.other_engines.end(), id) == out.other_engines.end()) {
      out.other_engines.push_back(id);
    }
  }

  // vLLM: vllm/engine/llm_engine.py and vllm/v1/engine/core.py (the config line),
  // vllm/v1/core/kv_cache_utils.py _report_kv_cache_config, vllm/v1/worker/gpu_worker.py
  // (available memory), vllm/worker/worker.py (V0 profiling summary), vllm/executor (# GPU blocks).
  void vllm(std::string_view line, size_t n) {
    vllm_arguments(line);
    vllm_figures(line, n);
    vllm_messages(line, n);
  }

  // The config line, a pasted launch command, the variables and scheduler line that set options.
  void vllm_arguments(std::string_view line) {
    if (const size_t at = line.find("LLM engine (v"); at != std::string_view::npos) {
      engine("vllm");
      const size_t end = line.find(')', at);
      if (end != std::string_view::npos && out.version.empty())
        out.version = std::string(line.substr(at + 13, std::min<size_t>(end - at - 13, 40)));
      arguments_after(line, "with config:", "model");
    }
    // A pasted launch command: its model and flags, as the config line would echo them.
    for (const char* command : {"vllm serve ", "vllm.entrypoints.openai.api_server "}) {
      if (line.find(command) == std::string_view::npos) continue;
      engine("vllm");
      for (const auto& [k, v] : command_flags(line, command)) argument(k, v);
      if (const std::string* m = out.argument("model"); m != nullptr && out.model.empty())
        out.model = *m;
    }
    // The V0 engine by name, or by the variables that choose it and its MLA row padding.
    if (line.find("V0 LLM engine") != std::string_view::npos ||
        line.find("VLLM_USE_V1=0") != std::string_view::npos)
      argument("v0_engine", "True");
    if (line.find("VLLM_MLA_CUDA_MEM_ALIGN_KV_CACHE=0") != std::string_view::npos)
      argument("mla_cuda_mem_align_kv_cache", "0");
    // The scheduler's line says the batched tokens (the card's default when no flag set them).
    if (line.find("Chunked prefill is enabled with max_num_batched_tokens=") != std::string_view::npos) {
      std::string tokens = word_after(line, "max_num_batched_tokens=");
      if (!tokens.empty() && tokens.back() == '.') tokens.pop_back();  // the sentence's full stop
      argument("max_num_batched_tokens", tokens);
    }
    if (line.find("VLLM_PP_LAYER_PARTITION=") != std::string_view::npos)
      argument("pp_layer_partition", word_after(line, "VLLM_PP_LAYER_PARTITION="));
    if (line.find("vLLM API server version") != std::string_view::npos) {
      engine("vllm");
      if (out.version.empty()) out.version = word_after(line, "vLLM API server version");
    }
    if (line.find("non-default args:") != std::string_view::npos) {
      engine("vllm");
      arguments_after(line, "non-default args:", "model");
    }
  }

  // The figures vLLM prints as it sizes the cache: weights, profile, budget, pool, concurrency.
  void vllm_figures(std::string_view line, size_t n) {
    // "marker figure" pairs; V0 printed "Loading model weights took X GB" with X in GiB
    // (model_memory_usage / 2**30); 0.6.5 printed its profile as a table, one figure a line
    // ("total_gpu_memory     79.22GiB").
    static constexpr std::pair<const char*, const char*> kFigures[] = {
        {"model_loading_gib", "Model loading took"},
        {"model_loading_gib", "model weights took"},
        {"gpu_kv_cache_tokens", "GPU KV cache size:"},
        {"gpu_blocks", "GPU blocks:"},
        {"gpu_blocks", "cuda blocks:"},  // V0 on CUDA, early 2025
        {"cpu_blocks", "CPU blocks:"},
        {"num_gpu_blocks", "num_gpu_blocks is:"},  // V1's cache_config_info line
        {"kv_cache_reserved_gib", "reserved for KV Cache is"},
        {"kv_cache_reserved_gib", "kv_cache_size="},
        {"kv_cache_reserved_gib", "available_kv_cache_memory"},
        {"total_gpu_memory_gib", "total_gpu_memory ("},
        {"total_gpu_memory_gib", "total_gpu_memory="},
        {"total_gpu_memory_gib", "total_gpu_memory"},
        {"gpu_memory_utilization", "gpu_memory_utilization ("},
        {"gpu_memory_utilization", "gpu_memory_utilization"},
        {"usable_gpu_memory_gib", "the current vLLM instance can use"},
        {"weights_gib", "model weights take"},
        {"non_torch_gib", "non_torch_memory takes"},
        {"non_torch_gib", "non_torch_memory"},
        {"non_torch_gib", "non_torch_memory="},
        {"gpu_memory_utilization", "gpu_memory_utilization="},
        {"activation_gib", "activation peak memory takes"},
        {"activation_gib", "PyTorch activation peak memory"},
        {"peak_torch_gib", "peak_torch_memory="},  // 0.6.4: weights + activation
        // gpu_model_runner.py profile_cudagraph_memory (0.17 on); subtracted from the budget when
        // gpu_worker.py says "CUDA graph memory profiling is enabled" (the default from 0.20).
        {"cudagraph_estimate_gib", "Estimated CUDA graph memory:"},
        // 0.1x-0.2x's MemoryProfilingResult (DEBUG): "... torch peak memory increase: 1.89GiB;
        // non-torch forward increase memory: 0.25GiB; weights memory: 14.99GiB."
        {"activation_gib", "torch peak memory increase:"},
        {"non_torch_gib", "non-torch forward increase memory:"},
        {"weights_gib", "weights memory:"},
    };
    // The worker's init snapshot (DEBUG, gpu_worker.py): only the card of it; its non-torch
    // memory is what was there before the model.
    if (line.find("init memory snapshot:") != std::string_view::npos) {
      if (read("total_gpu_memory_gib", line, "total_memory=", n)) engine("vllm");
      return;
    }
    bool vllm_figure = false;
    for (const auto& [key, marker] : kFigures) vllm_figure = read(key, line, marker, n) || vllm_figure;
    vllm_figure = read("available_kv_cache_gib", line, "Available KV cache memory:", n,
                       word_after(line, "rank=")) || vllm_figure;
    // "total_gpu_memory (79.15GiB) x gpu_memory_utilization (0.70) = 55.09GiB"
    if (line.find("gpu_memory_utilization (") != std::string_view::npos)
      vllm_figure = read("usable_gpu_memory_gib", line, ") =", n) || vllm_figure;
    if (vllm_figure) engine("vllm");
    if (const size_t at = line.find("Maximum concurrency for"); at != std::string_view::npos) {
      std::string context, value_text;
      double tokens = 0, value = 0;
      if (number_after(line, "Maximum concurrency for", context, tokens) &&
          number_after(line, "tokens per request:", value_text, value, at)) {
        engine("vllm");
        figure("max_concurrency", value_text, value, n, context);
      }
    }
  }

  // Its refusals and auto-fit messages, with the figures in them.
  void vllm_messages(std::string_view line, size_t n) {
    // _check_enough_kv_cache_memory: "...max seq len (L), (X GiB KV cache is needed, which is
    // larger than the available KV cache memory (Y GiB). ... maximum model length is Z."
    if (const size_t at = line.find("KV cache is needed"); at != std::string_view::npos) {
      engine("vllm");
      // "the model's max seq len": the wording of 0.22 on (vLLM issue #44376), "models's" before.
      if (line.find("the model's max seq len") != std::string_view::npos)
        argument("refusal_wording", "model's");
      const size_t open = line.rfind('(', at);
      if (open != std::string_view::npos) read("error_kv_needed_gib", line.substr(open), "(", n);
      read("error_max_seq_len", line, "max seq len (", n);
      read("error_available_gib", line, "available KV cache memory (", n);
      read("error_estimated_max_len", line, "maximum model length is", n);
    }
    if (line.find("is greater than the derived max_model_len") != std::string_view::npos) {
      engine("vllm");
      read("error_user_max_model_len", line, "max_model_len (", n);
      // "derived max_model_len (max_position_embeddings=32768 or ...)": the first number after it.
      std::string text;
      double value = 0;
      const size_t at = line.find("derived max_model_len (");
      if (number_after(line, "(", text, value, at) || number_after(line, "=", text, value, at))
        figure("error_derived_max_model_len", text, value, n, word_after(line.substr(at), "("));
    }
    // kv_cache_utils.py: "Auto-fit max_model_len: reduced from A to B to fit in available GPU
    // memory (X GiB available for KV cache)".
    if (line.find("Auto-fit max_model_len") != std::string_view::npos) {
      engine("vllm");
      std::string text;
      double value = 0;
      if (const size_t at = line.find("reduced from"); at != std::string_view::npos) {
        const size_t to = line.find(" to ", at);
        if (to != std::string_view::npos && number_after(line, " to ", text, value, to))
          figure("autofit_max_model_len", text, value, n);
      }
      read("autofit_available_gib", line, "memory (", n);
    }
    if (line.find("CUDA graph memory profiling is enabled") != std::string_view::npos) {
      engine("vllm");
      argument("cudagraph_memory_reserved", "True");
    }
    if (line.find("Hybrid KV cache manager is disabled") != std::string_view::npos) {
      engine("vllm");
      argument("disable_hybrid_kv_cache_manager", "True");
    }
    if (line.find("No available memory for the cache blocks") != std::string_view::npos) {
      engine("vllm");
      figure("error_no_memory", "0", 0, n);
    }
  }

  // llama.cpp: src/llama-model.cpp print_info (hyper-parameters), src/llama-context.cpp (n_ctx,
  // n_seq_max), src/llama-kv-cache.cpp ("%10s KV buffer size", "size = %7.2f MiB (%6u cells, ...)").
  void llamacpp(std::string_view line, size_t n) {
    const bool ours = line.find("llama_") != std::string_view::npos ||
                      line.find("print_info:") != std::string_view::npos ||
                      line.find("llm_load_") != std::string_view::npos ||
                      line.find("load_tensors:") != std::string_view::npos;
    if (!ours) return;
    engine("llama.cpp");
    if (line.find("general.name") != std::string_view::npos && out.model.empty()) {
      const size_t eq = line.find("= ");
      if (eq != std::string_view::npos) {
        std::string name(line.substr(eq + 2, 200));
        while (!name.empty() && name.back() == ' ') name.pop_back();
        out.model = name;
      }
    }
    // "print_info: n_ctx_train      = 131072", "llama_context: n_ctx         = 4096"
    static constexpr std::pair<const char*, const char*> kHyper[] = {
        {"n_ctx_train", ": n_ctx_train "}, {"n_layer", ": n_layer "}, {"n_head_kv", ": n_head_kv "},
        {"n_embd_head_k", ": n_embd_head_k "}, {"n_embd_head_v", ": n_embd_head_v "},
        {"n_swa", ": n_swa "}, {"n_ctx", ": n_ctx "}, {"n_seq_max", ": n_seq_max "},
        {"n_ubatch", ": n_ubatch "}, {"n_ctx_per_seq", ": n_ctx_per_seq "}, {"n_ctx_seq", ": n_ctx_seq "}};
    for (const auto& [key, marker] : kHyper) {
      const size_t at = line.find(marker);
      if (at == std::string_view::npos) continue;
      const size_t eq = line.find('=', at);
      std::string text;
      double value = 0;
      if (eq != std::string_view::npos && number_after(line, "=", text, value, eq))
        figure(key, text, value, n);
    }
    static constexpr std::pair<const char*, const char*> kSwitches[] = {
        {"kv_unified", " kv_unified "}, {"flash_attn", " flash_attn "}, {"swa_full", " swa_full "},
        {"causal_attn", " causal_attn "}};
    for (const auto& [key, marker] : kSwitches) {
      const size_t at = line.find(marker);
      if (at == std::string_view::npos) continue;
      const size_t eq = line.find('=', at);
      if (eq != std::string_view::npos) argument(key, word_after(line.substr(eq), "="));
    }
    if (line.find("type_k") != std::string_view::npos) argument("type_k", word_after(line, "type_k = "));
    if (line.find("type_v") != std::string_view::npos) argument("type_v", word_after(line, "type_v = "));
    // "size = 1024.00 MiB (  8192 cells,  32 layers,  1/1 seqs), K (f16): ..., V (f16): ..."; the
    // recurrent memory prints "R (f32): ..., S (f32): ..." in the same shape.
    if (const size_t at = line.find(" size = "); at != std::string_view::npos &&
                                                 line.find("cells") != std::string_view::npos) {
      std::string cells, size;
      double c = 0, mib = 0;
      const bool recurrent = line.find(" R (") != std::string_view::npos;
      if (number_after(line, " size = ", size, mib) && number_after(line, "(", cells, c, at)) {
        figure(recurrent ? "rs_size_mib" : "kv_size_mib", size, mib, n, cells + " cells");
        if (!recurrent) {
          cache_types(line, n);
        }
      }
    }
    // iSWA: "creating     SWA KV cache, size = 768 cells"; "using full-size SWA cache".
    if (line.find("creating") != std::string_view::npos && line.find("SWA KV cache, size") != std::string_view::npos) {
      const bool sliding = line.find("non-SWA") == std::string_view::npos;
      read(sliding ? "swa_cells" : "non_swa_cells", line, "size =", n);
    }
    if (line.find("using full-size SWA cache") != std::string_view::npos) argument("swa_full", "true");
    // The cache's class before its 2025 rename: builds that padded by flash attention.
    if (line.find("llama_kv_cache_unified") != std::string_view::npos)
      argument("kv_cache_class", "llama_kv_cache_unified");
    if (line.find("KV self size") != std::string_view::npos) {
      read("kv_size_mib", line, "KV self size =", n) || read("kv_size_mib", line, "KV self size  =", n);
      cache_types(line, n);
    }
    for (const auto& [marker, key] : {std::pair{"KV buffer size", "kv_buffer_mib"},
                                      std::pair{"RS buffer size", "rs_buffer_mib"}}) {
      const size_t at = line.find(marker);
      if (at == std::string_view::npos) continue;
      // The device is the word before the marker ("llama_kv_cache:      CUDA0 KV buffer size").
      size_t end = at;
      while (end > 0 && line[end - 1] == ' ') --end;
      size_t start = end;
      while (start > 0 && line[start - 1] != ' ' && line[start - 1] != ':') --start;
      std::string text;
      double value = 0;
      if (number_after(line, "=", text, value, at))
        figure(key, text, value, n, std::string(line.substr(start, std::min<size_t>(end - start, 40))));
    }
  }

  // "K (f16): 1098.00 MiB, V (f16): 976.00 MiB": the types, and V's size (MLA caches without V
  // print 0).
  void cache_types(std::string_view line, size_t n) {
    argument("type_k", word_after(line, " K ("));
    argument("type_v", word_after(line, " V ("));  // not ik_llama.cpp's "c^KV (f16)"
    std::string v_text;
    double v = 0;
    if (const size_t at = line.find(" V ("); at != std::string_view::npos && number_after(line, "):", v_text, v, at))
      figure("kv_v_mib", v_text, v, n);
  }

  // Ollama: server/routes.go ("vram-based default context", "Listening on ... (version X)"),
  // llm/llama_server.go ("starting llama-server" cmd=, 0.30-), llm/server.go ("starting llama
  // server" cmd= of its own runner, before), ml/device.go BackendMemory.Log ("kv cache"
  // device=CUDA0 size="334.0 MiB", 0.11.5-0.24), llm/memory.go (memory.required.kv=, to 0.12.10).
  void ollama(std::string_view line, size_t n) {
    // "load_tensors: offloaded 37/37 layers to GPU" (llama.cpp), msg="offloaded 0/35 layers to GPU"
    // (Ollama's own engine).
    if (const size_t at = line.find("offloaded ");
        at != std::string_view::npos && line.find(" layers to GPU") != std::string_view::npos)
      read("offloaded_layers", line, "offloaded ", n, word_after(line.substr(at), "/"));
    if (line.find("msg=") == std::string_view::npos &&
        line.find("OLLAMA_") == std::string_view::npos)
      return;
    if (line.find("vram-based default context") != std::string_view::npos) {
      engine("ollama");
      read("ollama_default_num_ctx", line, "default_num_ctx=", n);
    }
    if (const size_t at = line.find("(version ");
        at != std::string_view::npos && line.find("Listening on") != std::string_view::npos) {
      engine("ollama");
      if (out.version.empty()) out.version = word_after(line.substr(at), "(version ");
    }
    if (line.find("msg=\"starting llama-server\"") != std::string_view::npos) {
      engine("ollama");
      argument("ollama_runner", "llama-server");
      for (const char* flag :
           {" -c ", " -np ", " --cache-type-k ", " --flash-attn ", " -ub ", " -ngl "})
        argument(std::string("ollama") + flag, word_after(line, flag));
    }
    if (line.find("msg=\"starting llama server\"") != std::string_view::npos) {
      engine("ollama");
      for (const char* flag : {" --ctx-size ", " --parallel ", " --kv-cache-type ",
                               " --batch-size ", " --n-gpu-layers "})
        argument(std::string("ollama") + flag, word_after(line, flag));
      if (line.find(" --flash-attn") != std::string_view::npos)
        argument("ollama --flash-attn ", "on");
    }
    for (const char* env :
         {"OLLAMA_KV_CACHE_TYPE:", "OLLAMA_FLASH_ATTENTION:", "OLLAMA_NUM_PARALLEL:"}) {
      if (line.find(env) == std::string_view::npos ||
          line.find("server config") == std::string_view::npos)
        continue;
      engine("ollama");
      argument(env, word_after(line, env));
    }
    // Sizes as format.HumanBytes2 prints them: "%.1f MiB" or "%.1f GiB".
    const auto size = [&](const char* key, std::string_view marker, std::string detail) {
      std::string text;
      double value = 0;
      const size_t at = line.find(marker);
      if (at == std::string_view::npos || !number_after(line, marker, text, value)) return;
      const std::string_view after = line.substr(at + marker.size() + text.size());
      const char* unit = after.rfind(" GiB", 0) == 0   ? "_gib"
                         : after.rfind(" MiB", 0) == 0 ? "_mib"
                                                       : nullptr;
      if (unit == nullptr) return;
      engine("ollama");
      figure(std::string(key) + unit, text, value, n, std::move(detail));
    };
    if (line.find("msg=\"kv cache\"") != std::string_view::npos)
      size("ollama_kv", "size=\"", word_after(line, "device="));
    size("ollama_required_kv", "memory.required.kv=\"", {});
  }

  // SGLang: python/sglang/srt/mem_cache/memory_pool.py ("KV Cache is allocated. #tokens: N, K
  // size: X GB, V size: Y GB", GB = 2^30) and model_runner.py (max_total_num_tokens).
  void sglang(std::string_view line, size_t n) {
    // "#tokens: N, K size: X GB, V size: Y GB"; MLA: "#tokens: N, KV size: X GB"; early 2025
    // builds: "K size: X GB, V size: Y GB." with max_total_num_tokens on a later line.
    if (line.find("KV Cache is allocated") != std::string_view::npos) {
      engine("sglang");
      read("sglang_tokens", line, "#tokens:", n);
      read("sglang_kv_size_gb", line, "KV size:", n) ||
          (read("sglang_k_size_gb", line, "K size:", n) && read("sglang_v_size_gb", line, "V size:", n));
    }
    if (line.find("max_total_num_tokens=") != std::string_view::npos) {
      engine("sglang");
      read("max_total_num_tokens", line, "max_total_num_tokens=", n);
      read("sglang_max_running_requests", line, "max_running_requests=", n);
      read("sglang_context_len", line, "context_len=", n);
    }
    if (line.find("ServerArgs(") != std::string_view::npos) {
      engine("sglang");
      arguments_after(line, "ServerArgs(", "model_path");
    }
    // DeepSeek-V4's pools (pool_configurator.py DSV4PoolConfigurator.calculate_pool_sizes, GB =
    // 2^30); builds of May 2026 printed "DSv4 memory calculation" by an older formula.
    if (line.find("DSV4 memory calculation:") != std::string_view::npos) {
      engine("sglang");
      read("sglang_dsv4_bytes_per_full_token", line, "bytes_per_full_token=", n);
      read("sglang_dsv4_available_gib", line, "available_bytes=", n);
      read("sglang_dsv4_c128_fixed_gib", line, "c128_state_fixed=", n);
      read("sglang_dsv4_full_token", line, ", full_token=", n);
    }
  }

  // TensorRT-LLM: cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp ("Allocated %.2f GiB for max
  // tokens in paged KV cache (%d).").
  void tensorrt_llm(std::string_view line, size_t n) {
    if (line.find("tokens in paged KV cache") != std::string_view::npos &&
        line.find("[TensorRT-LLM]") != std::string_view::npos) {
      engine("tensorrt-llm");
      read("trt_using_tokens", line, "Using", n);
    }
    if (line.find("for max tokens in paged KV cache") != std::string_view::npos) {
      engine("tensorrt-llm");
      read("trt_allocated_gib", line, "Allocated", n);
      read("trt_max_tokens", line, "paged KV cache (", n);
    }
    // The PyTorch backend's profile (tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator
    // _cal_max_memory, configure_kv_cache_capacity): "Peak memory during memory usage profiling
    // (torch + non-torch): P GiB, available KV cache memory when calculating max tokens: A GiB,
    // fraction is set F, kv size [per token ]is B. device total memory T GiB, [...] X GiB", then
    // "Estimated max memory in KV cache : M GiB".
    if (line.find("Peak memory during memory usage profiling") != std::string_view::npos) {
      engine("tensorrt-llm");
      read("trt_peak_gib", line, "(torch + non-torch):", n);
      read("trt_available_gib", line, "when calculating max tokens:", n);
      read("trt_fraction", line, "fraction is set", n);
      read("trt_kv_bytes_per_token", line, "kv size per token is", n) ||
          read("trt_kv_bytes_per_token", line, "kv size is", n);
      read("trt_total_gib", line, "device total memory", n);
      read("trt_temporary_gib", line, "temporary kv cache memory during profiling", n) ||
          read("trt_temporary_gib", line, "tmp kv_mem", n);
    }
    if (line.find("Estimated max memory in KV cache") != std::string_view::npos) {
      engine("tensorrt-llm");
      read("trt_estimated_max_gib", line, "KV cache :", n);
    }
  }
};

}  // namespace

const std::string* LogReading::argument(std::string_view key) const {
  for (const auto& [k, v] : arguments)
    if (k == key) return &v;
  return nullptr;
}

const PrintedFigure* LogReading::figure(std::string_view key) const {
  for (const PrintedFigure& f : figures)
    if (f.key == key) return &f;
  return nullptr;
}

Result<LogReading> read_log(std::string_view text) {
  using R = Result<LogReading>;
  if (text.size() > kMaxLogBytes)
    return R::failure(make_error(kOutOfRange, "log", "larger than 16 MiB"));
  const size_t nul = text.find('\0');
  if (nul != std::string_view::npos)
    return R::failure(make_error(kInvalidValue, "log", "not a text log (a NUL byte at offset " +
                                                           std::to_string(nul) + ")"));
  Reader r;
  std::string cleaned;
  size_t n = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++n;
    std::string_view raw = text.substr(start, end - start);
    if (raw.size() > kMaxLineBytes) {
      raw = raw.substr(0, kMaxLineBytes);
      ++r.out.lines_cut;
    }
    const std::string_view line = clean(raw, cleaned);
    start = end + 1;
    if (annotation(line)) continue;
    r.vllm(line, n);
    r.llamacpp(line, n);
    r.ollama(line, n);
    r.sglang(line, n);
    r.tensorrt_llm(line, n);
  }
  r.out.lines = n;
  return R::success(std::move(r.out));
}

}  // namespace kvscope
