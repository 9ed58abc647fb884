// `kvscope explain` for vLLM: the engine config line, the budget it measured (or its itemised
// profile) and the figures it derived from them, against kvscope's vLLM arithmetic.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "engines/engine_table.hpp"
#include "engines/vllm/engine_vllm.hpp"
#include "explain/explain_figures.hpp"
#include "kvscope/base/elementary_math.hpp"
#include "kvscope/base/units.hpp"
#include "kvscope/engines/context_limit.hpp"

namespace kvscope::explaining {
namespace {

// The vLLM line whose arithmetic the log follows: the V0 engine by its block lines or its name
// (0.7 and earlier when the release says so), else the release it prints; empty: the current.
std::string vllm_version_of(const LogReading& log) {
  std::string id;
  if (const EngineProfile* vllm = find_engine_profile("vllm"); vllm != nullptr && !log.version.empty()) {
    const Result<const EngineVersion*> release = resolve_engine_version(vllm->info, log.version);
    if (release.ok && release.value != nullptr) id = release.value->id;
  }
  const bool v0 = log.figure("gpu_blocks") != nullptr || log.figure("cpu_blocks") != nullptr ||
                  log.argument("v0_engine") != nullptr;
  if (v0) return id == "0.7" ? id : "v0";
  // A log that names no release: the newest line whose budget has the terms it prints (a CUDA-graph
  // reserve only from 0.20), or the oldest line that words its refusal as it does.
  if (id.empty() && log.argument("refusal_wording") != nullptr) return "0.21";
  if (id.empty() && log.argument("cudagraph_memory_reserved") == nullptr) return "0.16";
  return id;
}

// The deployment the log's arguments describe, into `in`; the ones the report lists, into `r`.
void read_vllm_arguments(const LogReading& log, PlanInput& in, ExplainReport& r) {
  in.engine = "vllm";
  if (in.engine_version.empty()) in.engine_version = vllm_version_of(log);
  if (const std::string* align = log.argument("mla_cuda_mem_align_kv_cache"); align != nullptr && *align == "0")
    in.vllm.mla_cuda_mem_align_kv_cache = false;
  if (const std::string* split = log.argument("pp_layer_partition"); split != nullptr && in.pp_layer_partition.empty()) {
    for (size_t at = 0; at < split->size();) {  // "16,32"; plan() checks the counts
      const size_t comma = std::min(split->find(',', at), split->size());
      in.pp_layer_partition.push_back(std::atof(split->substr(at, comma - at).c_str()));
      at = comma + 1;
    }
  }
  uint64_t n = 0;
  if (count_of(log.argument("tensor_parallel_size"), n) && n > 0 && n <= 65536)
    in.tensor_parallel = static_cast<uint32_t>(n);
  if (count_of(log.argument("pipeline_parallel_size"), n) && n > 0 && n <= 65536)
    in.pipeline_parallel = static_cast<uint32_t>(n);
  // Each data-parallel rank prints its own figures, of the GPUs a MoE model's experts spread over.
  if (count_of(log.argument("data_parallel_size"), n) && n > 1 && n <= 65536) in.data_parallel = n;
  if (const std::string* on = log.argument("enable_expert_parallel");
      on != nullptr && *on == "True")
    in.vllm.enable_expert_parallel = true;
  if (count_of(log.argument("max_seq_len"), n) || count_of(log.argument("max_model_len"), n))
    in.max_model_len = n;
  // "Maximum concurrency for N tokens per request" is max_model_len.
  if (const PrintedFigure* c = log.figure("max_concurrency"); in.max_model_len == 0 && c != nullptr &&
                                                              count_of(&c->detail, n))
    in.max_model_len = n;
  if (count_of(log.argument("block_size"), n) && n > 0) in.block_size_tokens = n;
  if (const std::string* swap = log.argument("swap_space"); swap != nullptr && std::atof(swap->c_str()) >= 0)
    in.vllm.swap_space_bytes = static_cast<uint64_t>(std::atof(swap->c_str()) * kGiB);
  if (count_of(log.argument("max_num_batched_tokens"), n) && n > 0)
    in.vllm.max_num_batched_tokens = n;
  if (const std::string* kv = log.argument("kv_cache_dtype"); kv != nullptr && *kv != "auto")
    in.model.kv_dtype = *kv;
  if (const std::string* off = log.argument("disable_hybrid_kv_cache_manager"); off != nullptr && *off == "True")
    in.vllm.disable_hybrid_kv_cache_manager = true;
  if (const std::string* on = log.argument("enable_prefix_caching"); on != nullptr && *on == "True")
    in.vllm.enable_prefix_caching = true;
  if (const PrintedFigure* u = log.figure("gpu_memory_utilization"))
    in.vllm.gpu_memory_utilization = u->value;
  else if (const std::string* given = log.argument("gpu_memory_utilization"); given != nullptr && std::atof(given->c_str()) > 0)
    in.vllm.gpu_memory_utilization = std::atof(given->c_str());
  if (in.vllm.gpu_memory_utilization == 0)
    in.vllm.gpu_memory_utilization = engines::vllm_default_utilization(in.engine_version);
  // The CUDA-graph memory it estimated, when it took it out of the budget.
  if (const PrintedFigure* g = log.figure("cudagraph_estimate_gib");
      g != nullptr && g->value > 0 && log.argument("cudagraph_memory_reserved") != nullptr)
    in.vllm.cudagraph_bytes = static_cast<uint64_t>(std::llround(g->value * kGiB));
  if (const std::string* q = log.argument("quantization"); q != nullptr && *q == "fp8")
    in.weight_dtype = "fp8";  // refined by VllmExplainer: a checkpoint already in fp8 is served as stored
  for (const auto& [key, value] : {std::pair{"tensor_parallel_size", in.tensor_parallel},
                                   std::pair{"pipeline_parallel_size", in.pipeline_parallel}})
    r.arguments.emplace_back(key, std::to_string(value));
  if (in.data_parallel > 1)
    r.arguments.emplace_back("data_parallel_size", std::to_string(in.data_parallel));
  r.arguments.emplace_back("max_model_len", in.max_model_len == 0 ? "derived" : std::to_string(in.max_model_len));
  r.arguments.emplace_back("kv_cache_dtype", in.model.kv_dtype);
  r.arguments.emplace_back("gpu_memory_utilization", shortest_decimal(in.vllm.gpu_memory_utilization));
}

bool is_budget(const PrintedFigure& f) {
  return f.key == "available_kv_cache_gib" || f.key == "kv_cache_reserved_gib";
}

// The start-ups a log holds (a failed one, then a retry) and the KV budget each printed.
struct VllmRuns {
  std::vector<size_t> run_of;                   // each figure's run
  std::vector<const PrintedFigure*> budget_of;  // each run's budget: the smallest printed
  std::vector<size_t> budgets_in;               // how many budgets each run printed
  std::vector<std::vector<double>> stage_gib;   // each run's stages' budgets; empty unless all printed
};

// A budget printed after a figure derived from one opens a new run, and each figure is checked
// against its own run's. Every worker prints a budget and vLLM keeps the fewest blocks, so the
// smallest counts. Pipeline stages print their own (worker rank = stage x tp + t): each stage's
// blocks at its own budget, the fewest counting.
VllmRuns find_runs(const LogReading& log, uint32_t tensor_parallel, uint32_t pipeline_parallel) {
  VllmRuns v;
  v.run_of.assign(log.figures.size(), 0);
  size_t runs = 1;
  for (size_t i = 0, derived_seen = 0; i < log.figures.size(); ++i) {
    const PrintedFigure& f = log.figures[i];
    if (is_budget(f) && derived_seen != 0) {
      ++runs;
      derived_seen = 0;
    }
    if (f.key == "gpu_kv_cache_tokens" || f.key == "gpu_blocks" || f.key == "num_gpu_blocks" ||
        f.key == "max_concurrency")
      derived_seen = 1;
    v.run_of[i] = runs - 1;
  }
  v.budget_of.assign(runs, nullptr);
  v.budgets_in.assign(runs, 0);
  v.stage_gib.assign(runs, std::vector<double>(pipeline_parallel, 0));
  for (size_t i = 0; i < log.figures.size(); ++i) {
    const PrintedFigure& f = log.figures[i];
    if (!is_budget(f)) continue;
    ++v.budgets_in[v.run_of[i]];
    const PrintedFigure*& budget = v.budget_of[v.run_of[i]];
    if (budget == nullptr || f.value < budget->value) budget = &f;
    uint64_t rank = 0;
    if (f.key != "available_kv_cache_gib" || !count_of(&f.detail, rank)) continue;
    std::vector<double>& stages = v.stage_gib[v.run_of[i]];
    const size_t stage = static_cast<size_t>(rank / tensor_parallel);
    if (stage < stages.size() && (stages[stage] == 0 || f.value < stages[stage])) stages[stage] = f.value;
  }
  for (std::vector<double>& stages : v.stage_gib) {
    if (pipeline_parallel == 1 || std::any_of(stages.begin(), stages.end(), [](double g) { return g == 0; }))
      stages.clear();
  }
  return v;
}

// The profile vLLM printed while measuring its budget: usable or total memory, weights, the
// activation peak and non-torch memory; complete() when every term is there. Not copied:
// `activation` may point at its own `peak_less_weights`.
struct MeasuredProfile {
  explicit MeasuredProfile(const LogReading& log);
  MeasuredProfile(const MeasuredProfile&) = delete;
  MeasuredProfile& operator=(const MeasuredProfile&) = delete;

  bool complete() const {
    return total != nullptr && weights != nullptr && activation != nullptr && non_torch != nullptr;
  }

  const PrintedFigure* total = nullptr;
  const PrintedFigure* usable = nullptr;  // total x utilization, where the build prints it
  const PrintedFigure* weights = nullptr;
  const PrintedFigure* activation = nullptr;
  const PrintedFigure* non_torch = nullptr;
  const PrintedFigure* peak = nullptr;  // 0.6.4's torch peak, the weights in it
  PrintedFigure peak_less_weights;      // the activation 0.6.4 implies
};

MeasuredProfile::MeasuredProfile(const LogReading& log)
    : total(log.figure("total_gpu_memory_gib")),
      usable(log.figure("usable_gpu_memory_gib")),
      weights(log.figure("weights_gib")),
      activation(log.figure("activation_gib")),
      non_torch(log.figure("non_torch_gib")),
      peak(log.figure("peak_torch_gib")) {
  // 0.6.4 printed the torch peak with the weights in it: the activation is the peak less the
  // weights its loading line printed (vllm/worker/worker.py determine_num_available_blocks).
  const PrintedFigure* loaded = log.figure("model_loading_gib");
  if (weights == nullptr && activation == nullptr && peak != nullptr && loaded != nullptr) {
    weights = loaded;
    peak_less_weights = *peak;
    peak_less_weights.value = peak->value - loaded->value;
    peak_less_weights.text = as_printed(peak_less_weights.value, peak->text);
    activation = &peak_less_weights;
  }
}

// kvscope's vLLM arithmetic beside one log's figures: the ones vLLM measured (explain_measured),
// the ones it derived from its budget (explain_derived), then the plan calibrated (calibrate).
class VllmExplainer {
 public:
  VllmExplainer(const LogReading& log, PlanInput& in, ExplainReport& r, Explainer& x)
      : log_(log), in_(in), r_(r), x_(x),
        runs_(find_runs(log, in.tensor_parallel, in.pipeline_parallel)),
        card_(!in.gpu_id.empty() || in.gpu_memory_bytes != 0) {
    if (!card_) return;
    own_ = plan(in_);
    if (own_.ok && !own_.value.estimate.shape.weights.method.empty() && in_.weight_dtype == "fp8") {
      in_.weight_dtype = "auto";  // --quantization fp8 on an fp8 checkpoint reads it as stored
      own_ = plan(in_);
    }
  }

  void explain_measured();
  void explain_derived();
  void calibrate();

 private:
  // kvscope's figure from a plan and the blocks its stages keep.
  using Pick = double (*)(const PlanReport& p, uint64_t blocks);

  const Result<PlanReport>& at_budget(uint64_t budget, uint64_t max_model_len);
  std::function<Result<double>(uint64_t)> figure_at(size_t run, uint64_t max_model_len, Pick pick);
  const PrintedFigure* pool_before(size_t i) const;
  std::string or_workers(size_t run, std::string why) const;
  void explain_budget(const PrintedFigure& f);
  void explain_error_figure(const PrintedFigure& f);
  void explain_from_budget(size_t i, const PrintedFigure& budget);
  void explain_concurrency_from_pool(const PrintedFigure& f, const PrintedFigure& pool);
  void explain_swap_blocks(const PrintedFigure& f);
  void explain_max_model_len_that_fits(const PrintedFigure& f);
  void calibrate_from_profile(const MeasuredProfile& m, const PrintedFigure* budget);

  const LogReading& log_;
  PlanInput& in_;
  ExplainReport& r_;
  Explainer& x_;
  const VllmRuns runs_;
  const bool card_;  // the card is known: kvscope plans its own budget
  Result<PlanReport> own_ = Result<PlanReport>::failure({});
  // Workers and repeated start-ups print the same budget again: each (budget, length) is planned once.
  std::map<std::pair<uint64_t, uint64_t>, Result<PlanReport>> planned_;
};

const Result<PlanReport>& VllmExplainer::at_budget(uint64_t budget, uint64_t max_model_len) {
  const auto key = std::make_pair(budget, max_model_len);
  if (const auto it = planned_.find(key); it != planned_.end()) return it->second;
  return planned_.emplace(key, plan_at_kv_budget(in_, budget, max_model_len)).first->second;
}

// A figure of the budget `b` (bytes) in the run: from the stages' own budgets moved as far, when
// they printed them, else from `b` on every GPU.
std::function<Result<double>(uint64_t)> VllmExplainer::figure_at(size_t run, uint64_t max_model_len,
                                                                Pick pick) {
  return [this, run, max_model_len, pick](uint64_t b) -> Result<double> {
    const std::vector<double>& stages = runs_.stage_gib[run];
    if (stages.empty()) {
      const Result<PlanReport> p = at_budget(b, max_model_len);
      if (!p.ok) return Result<double>::failure(p.error);
      return Result<double>::success(pick(p.value, p.value.num_blocks));
    }
    const double shift_gib = static_cast<double>(b) / kGiB - runs_.budget_of[run]->value;
    uint64_t blocks = UINT64_MAX;
    Result<PlanReport> last = Result<PlanReport>::failure({});
    for (size_t s = 0; s < stages.size(); ++s) {
      last = at_budget(static_cast<uint64_t>(std::llround(std::max(0.0, stages[s] + shift_gib) * kGiB)),
                       max_model_len);
      if (!last.ok) return Result<double>::failure(last.error);
      blocks = std::min(blocks, last.value.stages[s].num_blocks);
    }
    return Result<double>::success(pick(last.value, blocks));
  };
}

// The pool figure (tokens or V0 blocks) printed last before figure `i`, in its run.
const PrintedFigure* VllmExplainer::pool_before(size_t i) const {
  for (size_t j = i; j-- > 0 && runs_.run_of[j] == runs_.run_of[i];)
    if (log_.figures[j].key == "gpu_kv_cache_tokens" || log_.figures[j].key == "gpu_blocks")
      return &log_.figures[j];
  return nullptr;
}

// A run whose log shows fewer budgets than it has workers: another worker may have had less.
std::string VllmExplainer::or_workers(size_t run, std::string why) const {
  const uint64_t workers = uint64_t{in_.tensor_parallel} * in_.pipeline_parallel;
  if (workers > 1 && runs_.budgets_in[run] < workers) {
    why += "; or a worker the log does not show had less memory: it prints " +
           std::to_string(runs_.budgets_in[run]) + " of the " + std::to_string(workers) +
           " workers' budgets and vLLM keeps the fewest blocks over all (get_kv_cache_configs)";
  }
  return why;
}

// The figures vLLM measured (its budget, weights, activation peak, non-torch memory) and the ones
// a refusal printed.
void VllmExplainer::explain_measured() {
  for (size_t i = 0; i < log_.figures.size(); ++i) {
    const PrintedFigure& f = log_.figures[i];
    if (&f == runs_.budget_of[runs_.run_of[i]]) {
      explain_budget(f);
    } else if ((f.key == "model_loading_gib" || f.key == "weights_gib") && own_.ok) {
      x_.direct(f, "weights per GPU", "GiB", gib(own_.value.weights_bytes),
                "vLLM reports the memory its load allocated; kvscope counts the checkpoint's "
                "tensors (buffers apart)");
    } else if (f.key == "activation_gib" && own_.ok) {
      x_.direct(f, "activation peak", "GiB", gib(own_.value.activation_bytes),
                "measured by vLLM's profiling run; kvscope's is an estimate (calibrated here from "
                "the log)");
    } else if (f.key == "non_torch_gib" && own_.ok) {
      x_.direct(f, "non-torch memory", "GiB", gib(own_.value.non_torch_bytes),
                "measured by vLLM; kvscope's is an estimate (calibrated here from the log)");
    } else if (f.key == "error_derived_max_model_len" || f.key == "error_kv_needed_gib") {
      explain_error_figure(f);
    }
  }
}

void VllmExplainer::explain_budget(const PrintedFigure& f) {
  if (own_.ok) {
    x_.direct(f, "KV cache memory per GPU", "GiB", gib(own_.value.kv_pool_bytes),
              "vLLM measures the activation peak and non-torch memory; kvscope estimates them (" +
                  gib_text(own_.value.activation_bytes) + " + " +
                  gib_text(own_.value.non_torch_bytes) + " GiB)");
  } else if (!card_) {
    r_.inputs.push_back({f.line, "KV cache memory per GPU (measured by vLLM)", f.text, "GiB"});
  } else {
    x_.add(f, "KV cache memory per GPU", "GiB", "", "differs", own_.error.message, {});
  }
}

// What a refusal printed: the max_model_len vLLM derived, the KV one such request needs.
void VllmExplainer::explain_error_figure(const PrintedFigure& f) {
  if (f.key == "error_derived_max_model_len") {
    // A limit derived from sliding_window is the one --disable-sliding-window adds.
    PlanInput launched = in_;
    launched.vllm.disable_sliding_window = f.detail.rfind("sliding_window", 0) == 0;
    const Result<PlanReport> p = launched.vllm.disable_sliding_window
                                     ? plan_at_kv_budget(launched, uint64_t{1} << 40, 0)
                                     : at_budget(uint64_t{1} << 40, 0);
    if (p.ok)
      x_.direct(f, "derived max_model_len", "tokens", static_cast<double>(p.value.context_limit.tokens),
                "kvscope derives " + p.value.context_limit.explanation);
    return;
  }
  const PrintedFigure* len = log_.figure("error_max_seq_len");
  const Result<PlanReport> p = at_budget(uint64_t{1} << 40, len ? static_cast<uint64_t>(len->value) : 0);
  if (p.ok)
    x_.direct(f, "KV cache one max_model_len request needs", "GiB", gib(p.value.kv_bytes_needed),
              "the layers' pages differ from vLLM's for this model");
}

// The figures vLLM derived from its budget (pool tokens, blocks, concurrency, the max_model_len it
// fitted), its V0 swap blocks, and the pool it counted when it printed no budget.
void VllmExplainer::explain_derived() {
  for (size_t i = 0; i < log_.figures.size(); ++i) {
    const PrintedFigure& f = log_.figures[i];
    const PrintedFigure* budget = runs_.budget_of[runs_.run_of[i]];
    const bool pool = f.key == "gpu_kv_cache_tokens" || f.key == "gpu_blocks" || f.key == "num_gpu_blocks";
    if (budget != nullptr && (pool || f.key == "max_concurrency")) {
      explain_from_budget(i, *budget);
    } else if (budget == nullptr && f.key == "max_concurrency" && pool_before(i) != nullptr) {
      explain_concurrency_from_pool(f, *pool_before(i));
    } else if (f.key == "cpu_blocks") {
      explain_swap_blocks(f);
    } else if (budget == nullptr && f.key == "gpu_blocks") {
      r_.inputs.push_back({f.line, "GPU blocks (as vLLM counted them)", f.text, "blocks"});
    } else if (f.key == "autofit_max_model_len" || f.key == "error_estimated_max_len") {
      explain_max_model_len_that_fits(f);
    }
  }
}

// Pool tokens, blocks or concurrency at the run's printed budget.
void VllmExplainer::explain_from_budget(size_t i, const PrintedFigure& budget) {
  const PrintedFigure& f = log_.figures[i];
  const size_t run = runs_.run_of[i];
  if (f.key == "gpu_kv_cache_tokens") {
    x_.from_budget(f, "GPU KV cache size", "tokens", budget, kGiB,
                   figure_at(run, 0, [](const PlanReport& p, uint64_t blocks) {
                     return std::floor(static_cast<double>(blocks) *
                                       static_cast<double>(p.kv_pool_tokens) /
                                       static_cast<double>(std::max<uint64_t>(1, p.num_blocks)));
                   }),
                   or_workers(run, "vLLM's grouping of this model's layers differs from kvscope's"));
  } else if (f.key == "gpu_blocks" || f.key == "num_gpu_blocks") {
    x_.from_budget(f, "GPU blocks", "blocks", budget, kGiB,
                   figure_at(run, 0, [](const PlanReport&, uint64_t blocks) { return static_cast<double>(blocks); }),
                   or_workers(run, "vLLM's page for this model differs from kvscope's"));
  } else {
    uint64_t len = 0;
    count_of(&f.detail, len);
    x_.from_budget(f, "Maximum concurrency for " + f.detail + " tokens per request", "x", budget,
                   kGiB,
                   figure_at(run, len, [](const PlanReport& p, uint64_t blocks) {
                     return p.max_concurrency * static_cast<double>(blocks) /
                            static_cast<double>(std::max<uint64_t>(1, p.num_blocks));
                   }),
                   or_workers(run, "vLLM counts this model's blocks per request differently"));
  }
}

// No budget printed: the concurrency still follows from the tokens or blocks printed before.
void VllmExplainer::explain_concurrency_from_pool(const PrintedFigure& f, const PrintedFigure& pool) {
  const bool blocks = pool.key == "gpu_blocks";
  uint64_t len = 0;
  count_of(&f.detail, len);
  const Result<PlanReport> p = at_budget(uint64_t{1} << 30, len);
  const uint64_t ours = p.ok ? (blocks ? p.value.num_blocks : p.value.kv_pool_tokens) : 0;
  if (ours > 0)
    x_.direct(f, "Maximum concurrency for " + f.detail + " tokens per request", "x",
              p.value.max_concurrency * pool.value / static_cast<double>(ours),
              "vLLM counts this model's blocks per request differently",
              "from the " + pool.text + (blocks ? " blocks" : " tokens") + " of line " +
                  std::to_string(pool.line));
}

// V0's swap space over one block of every layer: the budget does not enter.
void VllmExplainer::explain_swap_blocks(const PrintedFigure& f) {
  const Result<PlanReport> p = at_budget(uint64_t{1} << 30, 0);
  // Releases before 0.7.1 cached DeepSeek's attention as full K and V heads, not the latent.
  const bool early_mla = p.ok && in_.engine_version == "0.7" && p.value.estimate.shape.mla.kv_lora_rank != 0;
  if (p.ok && p.value.swap_blocks != 0)
    x_.direct(f, "CPU swap blocks", "blocks", static_cast<double>(p.value.swap_blocks),
              early_mla ? "vLLM before 0.7.1 cached this MLA model as full K and V heads (its MLA "
                          "cache came in 0.7.1); kvscope counts the latent"
                        : "the launch's --swap-space or tensor parallelism is not in the log: "
                          "kvscope takes vLLM's defaults (4 GiB, the parallelism read)",
              "--swap-space " + shortest_decimal(static_cast<double>(in_.vllm.swap_space_bytes) / kGiB) +
                  " GiB over one block of every layer");
}

// The longest max_model_len the printed memory holds: auto-fitted, or suggested in a refusal.
void VllmExplainer::explain_max_model_len_that_fits(const PrintedFigure& f) {
  const bool autofit = f.key == "autofit_max_model_len";
  const PrintedFigure* available = log_.figure(autofit ? "autofit_available_gib" : "error_available_gib");
  if (available == nullptr) return;
  x_.from_budget(f, autofit ? "max_model_len auto-fitted to the KV cache" : "estimated maximum model length",
                 "tokens", *available, kGiB,
                 [&](uint64_t b) -> Result<double> {
                   const Result<PlanReport> p = at_budget(b, 0);
                   if (!p.ok) return Result<double>::failure(p.error);
                   return Result<double>::success(static_cast<double>(p.value.max_model_len_that_fits));
                 },
                 "vLLM's pages for this model differ from kvscope's");
}

// The plan from the log's machine: its measured profile where it printed one, else its last budget.
void VllmExplainer::calibrate() {
  const PrintedFigure* budget = runs_.budget_of.back();
  const MeasuredProfile m(log_);
  if (m.complete()) {
    calibrate_from_profile(m, budget);
  } else if (budget != nullptr && budget->value <= 0) {
    r_.notes.push_back("vLLM had no memory left for the KV cache (line " + std::to_string(budget->line) +
                       ": " + budget->text + " GiB): give the card to plan it");
  } else if (budget != nullptr) {
    in_.gpu_id.clear();
    in_.gpu_memory_bytes = 0;
    in_.kv_memory_bytes = static_cast<uint64_t>(std::llround(budget->value * kGiB));
    r_.calibration = {"KV budget: " + budget->text + " GiB per GPU as vLLM measured it (line " +
                      std::to_string(budget->line) + ")"};
    r_.calibrated = true;
  }
}

// The card, weights, activation peak and non-torch memory as measured; the budget is then derived,
// not taken: the measured profile gives it back, to the rounding of its four terms.
void VllmExplainer::calibrate_from_profile(const MeasuredProfile& m, const PrintedFigure* budget) {
  const uint64_t gpus_per_replica = uint64_t{in_.tensor_parallel} * in_.pipeline_parallel;
  in_.gpu_id.clear();
  in_.kv_memory_bytes = 0;
  // vLLM also prints total x utilization; some builds (Unsloth's) compute it from another total.
  in_.gpu_memory_bytes = static_cast<uint64_t>(std::llround(
      m.usable != nullptr && in_.vllm.gpu_memory_utilization > 0
          ? m.usable->value / in_.vllm.gpu_memory_utilization * kGiB
          : m.total->value * kGiB));
  in_.weights_bytes = static_cast<uint64_t>(std::llround(m.weights->value * kGiB)) * gpus_per_replica;
  in_.weights_index_json.clear();
  in_.vllm.activation_bytes = static_cast<uint64_t>(std::llround(m.activation->value * kGiB));
  in_.vllm.non_torch_bytes = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(m.non_torch->value * kGiB)));
  r_.calibration = {m.usable != nullptr
                        ? "usable memory: " + m.usable->text + " GiB (total x utilization) as vLLM printed it (line " +
                              std::to_string(m.usable->line) + ")"
                        : "card: " + m.total->text + " GiB as vLLM measured it (line " + std::to_string(m.total->line) + ")",
                    "weights: " + m.weights->text + " GiB per GPU",
                    "activation peak: " + m.activation->text + " GiB" +
                        (m.activation == &m.peak_less_weights ? " (peak_torch_memory " + m.peak->text + " less the weights)" : ""),
                    "non-torch memory: " + m.non_torch->text + " GiB"};
  r_.calibrated = true;
  r_.inputs.clear();
  const Result<PlanReport> calibrated = plan(in_);
  if (budget == nullptr || !calibrated.ok) return;
  const double ours = gib(calibrated.value.kv_pool_bytes);
  double slack = 0;
  for (const PrintedFigure* term : {m.usable != nullptr ? m.usable : m.total, m.weights, m.activation, m.non_torch})
    slack += 0.5 * power_of_ten(-decimals_of(term->text));
  const bool exact = same_digits(ours, *budget);
  const bool rounding = !exact && std::abs(ours - budget->value) <= slack + 0.5 * power_of_ten(-decimals_of(budget->text));
  x_.add(*budget, "KV cache memory per GPU from the measured profile", "GiB",
         as_printed(ours, budget->text), exact ? "exact" : rounding ? "rounding" : "differs",
         exact ? "" : rounding ? "within the rounding of the four printed terms"
                               : "vLLM subtracts something else in this version (CUDA graphs, a reserve)",
         (m.usable != nullptr ? "usable" : "total x utilization") +
             std::string(" - weights - activation peak - non-torch"));
}

}  // namespace

// vLLM: the engine config line, the budget it measured and the figures it derived.
void explain_vllm(const LogReading& log, PlanInput& in, ExplainReport& r, Explainer& x) {
  read_vllm_arguments(log, in, r);
  VllmExplainer vllm(log, in, r, x);
  vllm.explain_measured();
  vllm.explain_derived();
  vllm.calibrate();
}

}  // namespace kvscope::explaining
