// libFuzzer target: arbitrary numbers straight into the core entry points (no CLI parsing). The
// input is a sequence of little-endian 64-bit fields (integers, or doubles by their bits; 0 once
// the input runs out): first a hand-built ModelShape and workload for kv_totals, decode_step
// and prefill, then a PlanInput (a catalogue model or a generated config.json) for plan and
// sweep. Every call must return an error naming its field in one line, or figures that are
// finite, non-negative and consistent; anything else aborts.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../support/report_numbers.hpp"
#include "kvscope/model/catalog.hpp"
#include "kvscope/model/dtype.hpp"
#include "kvscope/kv/kv_arithmetic.hpp"
#include "kvscope/model/parallelism.hpp"
#include "kvscope/plan/plan.hpp"
#include "kvscope/request/report_json.hpp"
#include "kvscope/kv/roofline.hpp"
#include "kvscope/plan/sweeps.hpp"
#include "kvscope/model/weights.hpp"

namespace kvscope {
namespace {

using u128 = unsigned __int128;

// Hand-built shapes repeat at most 4 layer specs 64 times each: the arithmetic is per group, so
// more layers only slow the fuzzer (numeric_safety_test covers 10^6 layers).
constexpr uint64_t kMaxPatterns = 4, kMaxRepeat = 64;
// Generated configs keep at most 256 layers: plan() shards per pipeline stage, so pp x layers
// bounds the time of one input.
constexpr uint64_t kMaxConfigLayers = 256;

class FieldReader {
 public:
  FieldReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 0; i < 8 && pos_ < size_; ++i) v |= uint64_t{data_[pos_++]} << (8 * i);
    return v;
  }
  uint32_t u32() { return static_cast<uint32_t>(u64()); }
  double f64() {
    const uint64_t bits = u64();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  bool flag() { return (u64() & 1) != 0; }
  uint64_t below(uint64_t n) { return u64() % n; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Aborts naming the invariant, so a crash file's run says which one broke.
void require(bool ok, const char* invariant) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_plan: violated: %s\n", invariant);
  std::abort();
}

void check_error(const Error& e) {
  require(!e.code.empty() && !e.field.empty() && !e.message.empty(),
          "error with code, field, message");
  require(e.message.find('\n') == std::string::npos, "one-line error");
}

void check_number(double v) { require(std::isfinite(v) && v >= 0, "finite, non-negative"); }

void check_step(const StepEstimate& s) {
  for (double v : {s.weight_bytes, s.kv_bytes, s.flops, s.memory_time_s, s.compute_time_s, s.time_s,
                   s.experts_read_per_moe_layer}) {
    check_number(v);
  }
}

// Sums and products that hold whatever the shape: groups add up (DeepSeek-V4's compressed entries
// beside the window); unpaged without a prefix the batch holds exactly batch sequences; paging only
// adds; the shared part is inside the total.
void check_kv(const KvEstimate& kv, const KvWorkload& w) {
  u128 per_sequence = 0, total = 0, state = 0;
  for (const GroupKv& g : kv.groups) {
    per_sequence += g.kv_bytes_per_sequence;
    total += g.kv_bytes_total;
    state += g.state_bytes_per_sequence;
    require(g.kv_bytes_per_sequence ==
                u128{g.kv_bytes_per_token} * g.kept_tokens_per_sequence +
                    u128{g.compressed_bytes_per_entry} * g.compressed_entries_per_sequence +
                    g.state_bytes_per_sequence,
            "group sequence = per token x kept + compressed entries + state");
  }
  require(per_sequence == kv.kv_bytes_per_sequence && total == kv.kv_bytes_total &&
              state == kv.state_bytes_per_sequence,
          "groups add up");
  require(kv.shared_prefix_bytes <= kv.kv_bytes_total, "shared part within the total");
  const u128 unshared = u128{kv.kv_bytes_per_sequence} * w.batch;
  if (w.shared_prefix_tokens == 0) {
    require(
        w.block_size_tokens == 0 ? kv.kv_bytes_total == unshared : kv.kv_bytes_total >= unshared,
        "batch x sequence, paging only adds");
  }
}

LayerSpec read_layer(FieldReader& in) {
  LayerSpec l;
  l.attention = static_cast<AttentionKind>(in.below(6));
  l.kv_heads = in.u32();
  l.k_head_dim = in.u32();
  l.v_head_dim = in.u32();
  l.window_tokens = in.u64();
  l.state = static_cast<StateKind>(in.below(6));
  l.state_values = in.u64();
  l.mixer_params = in.u64();
  l.mlp = static_cast<MlpKind>(in.below(3));
  return l;
}

ModelShape read_shape(FieldReader& in) {
  ModelShape s;
  const uint64_t patterns = 1 + in.below(kMaxPatterns);
  for (uint64_t p = 0; p < patterns; ++p) {
    const LayerSpec l = read_layer(in);
    s.layers.insert(s.layers.end(), 1 + in.below(kMaxRepeat), l);
  }
  s.num_attention_heads = in.u32();
  s.head_dim = in.u32();
  s.hidden_size = in.u64();
  s.intermediate_size = in.u64();
  s.vocab_size = in.u64();
  s.tie_word_embeddings = in.flag();
  s.moe.num_experts = in.u32();
  // import_config guarantees top-k <= experts; the roofline's expert count relies on it.
  s.moe.experts_per_token = static_cast<uint32_t>(in.below(uint64_t{s.moe.num_experts} + 1));
  s.moe.expert_intermediate_size = in.u64();
  return s;
}

const Dtype& pick(const std::vector<Dtype>& dtypes, FieldReader& in) {
  return dtypes[in.below(dtypes.size())];
}

// kv_totals, then decode_step and prefill on one GPU of the shape as plan() shards it.
void fuzz_shape(FieldReader& in) {
  static const std::vector<Dtype> kv_dtypes = list_dtypes(DtypeUse::kKv);
  const ModelShape shape = read_shape(in);
  const Dtype& kv = pick(kv_dtypes, in);
  const Dtype& state = pick(kv_dtypes, in);
  KvWorkload w;
  w.context_tokens = in.u64();
  w.batch = in.u64();
  w.block_size_tokens = in.u64();
  w.shared_prefix_tokens = in.u64();
  const Result<KvEstimate> kv_estimate = kv_totals(shape, kv, state, w);
  if (kv_estimate.ok) {
    check_kv(kv_estimate.value, w);
  } else {
    check_error(kv_estimate.error);
  }

  const uint32_t tp = in.u32(), pp = in.u32();
  const uint32_t rank = pp == 0 ? 0 : static_cast<uint32_t>(in.below(pp));
  const Result<std::vector<WeightTensor>> tensors = weight_tensors(shape);
  if (!tensors.ok) return check_error(tensors.error);
  static const std::vector<Dtype> weight_dtypes = list_dtypes(DtypeUse::kWeight);
  const Result<GpuLoad> loaded =
      gpu_load(shape, tensors.value,
               storage_from_dtype(pick(weight_dtypes, in), pick(weight_dtypes, in)), tp, rank, pp);
  if (!loaded.ok) return check_error(loaded.error);
  const GpuLoad& load = loaded.value;
  const HardwarePeaks peaks{in.f64(), in.f64(), "given"};
  const uint64_t batch = in.u64(), context = in.u64(), prompt = in.u64();
  const Result<StepEstimate> decode = decode_step(load, kv, state, peaks, batch, context);
  if (decode.ok) {
    check_step(decode.value);
  } else {
    check_error(decode.error);
  }
  const Result<StepEstimate> first_token = prefill(load, kv, state, peaks, prompt);
  if (first_token.ok) {
    check_step(first_token.value);
  } else {
    check_error(first_token.error);
  }
}

// A Llama-like config.json (sliding layers and experts optional) with numbers around and beyond
// import_config's limits.
std::string generated_config(FieldReader& in) {
  nlohmann::json c;
  c["model_type"] = "gpt_oss";
  const uint64_t layers = in.below(kMaxConfigLayers + 1);
  c["num_hidden_layers"] = layers;
  c["hidden_size"] = in.below((uint64_t{1} << 24) + 2);
  c["intermediate_size"] = in.below((uint64_t{1} << 24) + 2);
  c["num_attention_heads"] = in.below(65538);
  c["num_key_value_heads"] = in.below(65538);
  c["head_dim"] = in.below(65538);
  c["vocab_size"] = in.below((uint64_t{1} << 32) + 2);
  c["max_position_embeddings"] = in.below((uint64_t{1} << 40) + 2);
  const uint64_t window = in.below((uint64_t{1} << 40) + 2);
  const uint64_t sliding_every = in.below(4);  // 0: no sliding layers
  if (sliding_every != 0) {
    c["sliding_window"] = window;
    nlohmann::json types = nlohmann::json::array();
    for (uint64_t i = 0; i < layers; ++i)
      types.push_back(i % sliding_every == 0 ? "sliding_attention" : "full_attention");
    c["layer_types"] = types;
  }
  const uint64_t experts = in.below(300);
  if (experts != 0) {
    c["num_local_experts"] = experts;
    c["num_experts_per_tok"] = in.below(experts + 2);
  }
  static const char* const kTorchDtypes[] = {"bfloat16", "float16", "float32", "int8"};
  c["torch_dtype"] = kTorchDtypes[in.below(4)];
  return c.dump();
}

std::string dtype_name(const std::vector<Dtype>& dtypes, FieldReader& in) {
  const uint64_t i = in.below(dtypes.size() + 2);
  return i < dtypes.size() ? dtypes[i].name : i == dtypes.size() ? "auto" : "no-such-dtype";
}

PlanInput read_plan_input(FieldReader& in) {
  static const std::vector<Dtype> kv_dtypes = list_dtypes(DtypeUse::kKv);
  static const std::vector<Dtype> weight_dtypes = list_dtypes(DtypeUse::kWeight);
  static const char* const kEngines[] = {"plain",        "vllm",      "sglang",
                                         "tensorrt-llm", "llama.cpp", "no-such-engine"};
  PlanInput p;
  p.engine = kEngines[in.below(6)];
  if (in.flag()) {
    p.model.config_json = generated_config(in);
  } else {
    p.model.model_id = model_catalog()[in.below(model_catalog().size())].id;
  }
  p.model.kv_dtype = dtype_name(kv_dtypes, in);
  p.weight_dtype = dtype_name(weight_dtypes, in);
  switch (in.below(4)) {
    case 0:
      p.gpu_id = gpu_catalog()[in.below(gpu_catalog().size())].id;
      break;
    case 1:
      p.gpu_memory_bytes = in.u64();
      break;
    case 2:
      p.kv_memory_bytes = in.u64();
      break;
    default:  // two memory sources: refused
      p.gpu_memory_bytes = in.u64();
      p.kv_memory_bytes = in.u64();
  }
  p.gpu_bandwidth_bytes_per_s = in.f64();
  p.gpu_dense_flops = in.f64();
  p.tensor_parallel = in.u32();
  p.pipeline_parallel = in.u32();
  p.gpus = in.u64();
  p.vllm.gpu_memory_utilization = in.f64();
  p.max_model_len = in.u64();
  p.block_size_tokens = in.u64();
  p.vllm.max_num_batched_tokens = in.u64();
  p.vllm.disable_hybrid_kv_cache_manager = in.flag();
  p.vllm.activation_bytes = in.u64();
  p.vllm.non_torch_bytes = in.u64();
  p.vllm.cudagraph_bytes = in.u64();
  p.overhead_bytes = in.u64();
  p.sglang.mem_fraction_static = in.f64();
  p.tensorrt_llm.free_gpu_memory_fraction = in.f64();
  p.llama_cpp.parallel = in.u64();
  p.llama_cpp.ubatch = in.u64();
  p.llama_cpp.kv_unified = in.flag();
  if (in.flag()) p.llama_cpp.v_dtype = dtype_name(kv_dtypes, in);
  p.weights_bytes = in.u64();
  p.model.context_tokens = in.u64();
  p.model.batch = in.u64();
  p.model.shared_prefix_tokens = in.u64();
  p.model.prompt_tokens = in.u64();
  p.model.output_tokens = in.u64();
  static const char* const kLengths[][2] = {{"", ""},
                                            {"4096", "512"},
                                            {"uniform:512-8192", "uniform:10-900"},
                                            {"lognormal:mean=2000,p99=16000", "1000000000000"},
                                            {"uniform:1-1", ""}};
  const uint64_t lengths = in.below(5);
  p.prompt_lengths = kLengths[lengths][0];
  p.output_lengths = kLengths[lengths][1];
  p.sglang.mamba_full_memory_ratio = in.f64();  // SGLang's state pool
  p.sglang.max_mamba_cache_size = in.u64();
  p.sglang.max_running_requests = in.u64();
  p.sglang.disable_radix_cache = in.flag();
  p.require_concurrency = in.flag() ? in.u64() : 0;
  p.data_parallel = in.flag() ? in.u64() : 0;  // data-parallel ranks: replicas or shared modules
  p.vllm.enable_expert_parallel = in.flag();
  p.sglang.enable_dp_attention = in.flag();
  return p;
}

// A report's figures: finite and non-negative, the pool within the card for the engines that
// budget one, totals the exact sum of the stages over every GPU.
void check_plan(const PlanInput& in, const PlanReport& r) {
  check_number(r.max_concurrency);
  check_number(r.total_max_concurrency);
  for (const PlanStage& s : r.stages) check_number(s.max_concurrency);
  check_step(r.roofline.decode);
  check_step(r.roofline.prefill);
  check_step(r.roofline.decode_at_kv_cap);
  check_number(r.target.sequences_that_fit);
  require(!r.target.met || (r.starts && r.target.reason.empty()), "a met target has started");
  for (double v : {r.workload.mean_prompt_tokens, r.workload.mean_output_tokens,
                   r.workload.mean_tokens_held, r.workload.mean_bytes_per_sequence,
                   r.workload.stddev_bytes_per_sequence, r.workload.expected_concurrency}) {
    check_number(v);
  }
  // llama.cpp allocates what the context asks for, whatever the card holds.
  if (!r.kv_memory_given && in.engine != "llama.cpp")
    require(r.kv_pool_bytes <= r.gpu_memory_bytes, "pool within the card");
  // llama.cpp's pool is the sum over its devices (one server's layer split): each GPU must fit.
  if (!r.kv_memory_given && r.starts && in.engine == "llama.cpp") {
    for (const DeviceBuffers& d : r.devices) {
      if (d.device == "CPU") continue;
      require(d.fits && u128{d.kv_bytes} + d.state_bytes + d.weights_bytes <= d.memory_bytes,
              "a started llama.cpp fits on each GPU");
    }
  } else if (!r.kv_memory_given && r.starts) {
    require(
        u128{r.kv_pool_bytes} + r.weights_bytes + r.state_pool.reserved_bytes <= r.gpu_memory_bytes,
        "a started engine fits");
  }
  require(r.state_pool.bytes == 0 || r.state_pool.bytes >= r.state_pool.reserved_bytes,
          "the state pool holds what was set aside");
  u128 weights = 0, pool = 0;
  for (const PlanStage& s : r.stages) {
    weights += u128{s.weights_bytes} * r.tensor_parallel * r.data_parallel;
    pool += u128{s.kv_pool_bytes} * r.tensor_parallel * r.data_parallel;
  }
  require(weights == r.total_weights_bytes && pool == r.total_kv_pool_bytes,
          "totals = stages x tp x replicas");
  if (in.engine != "llama.cpp") check_kv(r.estimate.kv, r.estimate.workload);
  require(test::first_bad_number(plan_to_json(r)).empty(), "plan JSON numbers");
}

void fuzz_plan(FieldReader& in) {
  const PlanInput input = read_plan_input(in);
  const Result<PlanReport> planned = plan(input);
  if (planned.ok) {
    check_plan(input, planned.value);
  } else {
    check_error(planned.error);
  }
  SweepRange range;
  range.points = static_cast<uint32_t>(in.below(18));  // 0, 1 and 17: refused
  range.min_context = in.u64();
  range.max_context = in.u64();
  range.max_batch = in.u64();
  if (!planned.ok || !in.flag()) return;
  const Result<Sweeps> swept = sweep(input, range);
  if (!swept.ok) return check_error(swept.error);
  for (const std::vector<Series>& group :
       {swept.value.kv_bytes_vs_context,
        std::vector<Series>{swept.value.concurrency_vs_context, swept.value.step_time_vs_batch,
                            swept.value.throughput_vs_batch}}) {
    for (const Series& series : group) {
      for (const auto& [x, y] : series.points) {
        check_number(x);
        check_number(y);
      }
    }
  }
  require(test::first_bad_number(sweeps_to_json(swept.value)).empty(), "sweep JSON numbers");
}

}  // namespace
}  // namespace kvscope

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kvscope::FieldReader in(data, size);
  kvscope::fuzz_shape(in);
  kvscope::fuzz_plan(in);
  return 0;
}
