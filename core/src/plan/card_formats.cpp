// The engines' own checks of a card, as their current releases make them (vLLM main of
// 2026-08-20, SGLang main of 2026-08-18: the sources of each floor below). A plan asking for what
// the card cannot run fails as the engine would; the solver leaves such formats out on that card.
#include "plan/card_formats.hpp"

#include <cstdlib>
#include <string>

#include "kvscope/kv/estimate.hpp"
#include "kvscope/model/catalog.hpp"

namespace kvscope {
namespace {

// NVIDIA's compute capability as major x 10 + minor ("8.9" -> 89); 0 for AMD's gfx targets,
// which every floor below admits (ROCm reports gfx942 and gfx950 as 9.4 and 9.5).
int capability(const GpuEntry& gpu) {
  const std::string& cc = gpu.compute_capability;
  if (cc.size() < 3 || cc[0] < '0' || cc[0] > '9') return 0;
  const size_t dot = cc.find('.');
  if (dot == std::string::npos) return 0;
  return std::atoi(cc.c_str()) * 10 + std::atoi(cc.c_str() + dot + 1);
}

// The least compute capability a weight format needs under an engine: its quantization config's
// get_min_capability(), or where the kernels it falls back to stop.
struct WeightFloor {
  const char* engine;
  const char* method;  // WeightStorage::method ("weight_dtype": kvscope's own --weight-dtype)
  const char* name;    // a part of WeightStorage::name that picks the row; "" = any
  int capability;
};
constexpr WeightFloor kWeightFloors[] = {
    // vllm/model_executor/layers/quantization/fp8.py Fp8Config: 75 since PR #29901 (Marlin on
    // sm75).
    {"vllm", "fp8", "", 75},
    {"vllm", "weight_dtype", "fp8", 75},  // --quantization fp8, the same config
    // modelopt.py: ModelOptNvFp4Config 75 (Marlin), ModelOptFp8Config 80 since PR #50019.
    {"vllm", "modelopt", "nvfp4", 75},
    {"vllm", "modelopt", "fp8", 80},
    {"vllm", "mxfp4", "", 80},  // mxfp4.py Mxfp4Config, PR #22714 (gpt-oss on Ampere)
    {"vllm", "awq", "", 75},    // AutoAWQConfig
    // auto_gptq.py says 60, but marlin_utils.verify_marlin_supported offers no type below 7.5.
    {"vllm", "gptq", "", 75},
    // compressed_tensors.py: each scheme's own floor; W4A16 and int8 75, fp8 weight-only from 75.
    {"vllm", "compressed-tensors", "", 75},
    // SGLang: fp8.py 80 (Marlin for dense layers on 8.0-8.8), modelopt_quant.py FP8 89 and NVFP4
    // 80, compressed_tensors_w4a4_nvfp4.py 100 (the Marlin fallback reverted, PR #22047),
    // compressed_tensors_wNa16.py 80.
    {"sglang", "fp8", "", 80},
    {"sglang", "weight_dtype", "fp8", 80},
    {"sglang", "modelopt", "nvfp4", 80},
    {"sglang", "modelopt", "fp8", 89},
    {"sglang", "compressed-tensors", "nvfp4", 100},
    {"sglang", "compressed-tensors", "int4", 80},
};

// DeepSeek-V4's kernels in the engines' own releases run on Hopper and Blackwell (sparse MLA on
// fp8_ds_mla, MXFP4 experts; sm120 from vLLM PR #43477) and on AMD's MI350/MI355 (CDNA 4: vLLM
// issue #52644 runs it there; SGLang's MI35x ROCm image, sgl-project/sglang issue #31337); vLLM
// adds CDNA 3 (PR #40871), SGLang not (issue #27890). Older cards run it only in forks.
Result<bool> runs_model(const EngineProfile& engine, const ModelShape& shape, const GpuEntry& gpu,
                        int cc) {
  using R = Result<bool>;
  const bool vllm = engine.info.id == "vllm";
  // TensorRT-LLM 1.x builds for Ampere and newer (its support matrix): Volta left with 0.15 (PR
  // #2389), Turing with 0.14 (NVIDIA/TensorRT-LLM issue #2620).
  if (engine.info.id == "tensorrt-llm" && cc != 0 && cc < 80) {
    return R::failure(make_error(kUnsupported, "gpu",
                                 "TensorRT-LLM 1.x supports Ampere and newer GPUs, not the " +
                                     gpu.name + " (compute capability " + gpu.compute_capability +
                                     ")"));
  }
  if (!vllm && engine.info.id != "sglang") return R::success(true);
  // maybe_downgrade_dtype_for_legacy_gpu (model_runner_components/load_model_utils.py).
  if (!vllm && cc != 0 && cc < 75)
    return R::failure(make_error(kUnsupported, "gpu", "SGLang only supports sm75 and above."));
  const bool compressed =
      !shape.layers.empty() && shape.layers[0].attention == AttentionKind::kCompressed;
  if (!compressed) return R::success(true);
  const std::string& arch = gpu.device_class;
  const bool runs = arch.rfind("hopper", 0) == 0 || arch.rfind("blackwell", 0) == 0 ||
                    arch.rfind("cdna4", 0) == 0 || (vllm && arch.rfind("cdna3", 0) == 0);
  if (runs) return R::success(true);
  return R::failure(make_error(
      kUnsupported, "gpu",
      std::string(engine.info.label) + " runs DeepSeek-V4 on Hopper and Blackwell GPUs and AMD's " +
          (vllm ? "MI300 and MI350 series" : "MI350 series") + ", not on the " + gpu.name + " (" +
          arch + "); forks for older cards exist outside its releases"));
}

Result<bool> runs_formats(const EngineProfile& engine, const ModelShape& shape, const PlanReport& r,
                          const GpuEntry& gpu, int cc) {
  using R = Result<bool>;
  if (cc == 0) return R::success(true);
  for (const WeightFloor& f : kWeightFloors) {
    if (engine.info.id != f.engine || r.weights.method != f.method ||
        r.weights.name.find(f.name) == std::string::npos || cc >= f.capability)
      continue;
    // vllm/config/vllm.py's capability gate, in its words (SGLang's model_loader/loader.py alike).
    return R::failure(make_error(
        kUnsupported, "weight_dtype",
        "The quantization method " +
            std::string(r.weights.method == "weight_dtype" ? "fp8" : r.weights.method) +
            " is not supported for the current GPU. Minimum capability: " +
            std::to_string(f.capability) + ". Current capability: " + std::to_string(cc) + "."));
  }
  // vLLM's fp8 KV cache: below 8.0 only Triton attention is left (FlashAttention needs 8.0 and
  // FlashInfer's floor is 8.0, PR #45375), and it refuses fp8 below 8.9 (PR #43914); MLA's
  // backends refuse it below 8.9 too (triton_mla.py, PR #47060; FlashMLA needs 9.0).
  const bool fp8_kv = r.estimate.kv_dtype.name.rfind("fp8", 0) == 0;
  const bool mla = shape.mla.kv_lora_rank != 0;
  if (engine.info.id == "vllm" && fp8_kv && cc < (mla ? 89 : 80)) {
    return R::failure(make_error(
        kUnsupported, "kv_dtype",
        std::string("FP8 KV cache is not supported by the Triton ") + (mla ? "MLA" : "attention") +
            " backend on " + gpu.name + " (compute capability " + gpu.compute_capability +
            "); native FP8 (fp8e4nv) requires SM89+. Re-run with --kv-cache-dtype auto."));
  }
  return R::success(true);
}

}  // namespace

Result<bool> card_runs(const EngineProfile& engine, const ModelShape& shape, PlanReport& r) {
  if (r.gpu_id.empty()) return Result<bool>::success(true);
  const Result<GpuEntry> gpu = find_gpu(r.gpu_id);
  if (!gpu.ok) return Result<bool>::success(true);
  const int cc = capability(gpu.value);
  const Result<bool> model = runs_model(engine, shape, gpu.value, cc);
  if (!model.ok) return model;
  // A bf16 checkpoint on a card without bf16: vLLM falls back to fp16 (PR #17265,
  // ModelConfig._resolve_auto_dtype), SGLang forces it (maybe_downgrade_dtype_for_legacy_gpu),
  // the cache with it: the same bytes.
  const bool engine_casts = engine.info.id == "vllm" || engine.info.id == "sglang";
  if (engine_casts && cc != 0 && cc < 80 && serving_dtype(shape) == "bf16") {
    r.notes.push_back(gpu.value.name + " (compute capability " + gpu.value.compute_capability +
                      ") has no bf16: " + std::string(engine.info.label) +
                      " serves this bf16 checkpoint and its cache in fp16, the same bytes");
  }
  return runs_formats(engine, shape, r, gpu.value, cc);
}

}  // namespace kvscope
