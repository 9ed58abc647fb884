// One trial of the solver's search: a replica layout for one weight and KV choice, planned with
// the engine's own arithmetic, then sized in replicas until the target's sequences fit and each
// decodes fast enough.
#include "solve/solve_trials.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/checked_math.hpp"
#include "kvscope/base/units.hpp"

namespace kvscope::solve_search {
namespace {

// Why a planned replica does not start, in the solver's words.
void refused(const Search& s, const PlanReport& r, Trial& t) {
  if (r.context_limit_exceeded) {
    t.constraint = "context_limit";
    t.reason = r.startup_error;
    return;
  }
  bool weights_alone = r.kv_pool_bytes == 0;
  for (const DeviceBuffers& d : r.devices)
    weights_alone = weights_alone || (d.memory_bytes != 0 && d.weights_bytes > d.memory_bytes);
  if (weights_alone) {
    t.constraint = "weights";
    t.reason = "the weights (" + format_gb(r.weights_bytes) + " per GPU) leave no room for a KV " +
               "cache in " + format_gb(r.gpu_memory_bytes);
    return;
  }
  t.constraint = "kv_pool";
  t.reason = "the KV pool (" + format_gb(r.kv_pool_bytes) + " per GPU) holds " +
             decimal(std::floor(r.target.sequences_that_fit * 10) / 10, 1) +
             " of one sequence of " + with_commas(s.context_tokens) + " tokens";
  if (s.engine->one_server_devices) {
    t.reason = "one sequence of " + with_commas(s.context_tokens) +
               " tokens does not fit beside the weights";
  }
}

}  // namespace

std::string decimal(double value, int digits) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

// The plan input for one replica layout (dp replicas of it); llama.cpp: one server of `tp x pp`
// devices with `slots` sequences.
PlanInput trial_input(const Search& s, const Card& card, const Trial& t, uint64_t dp,
                      uint64_t slots) {
  PlanInput in = s.base;
  in.gpu_id = card.id == "custom" ? std::string() : card.id;
  in.gpu_memory_bytes = card.id == "custom" ? card.memory_bytes : 0;
  in.kv_memory_bytes = 0;
  in.model.kv_dtype = s.kv_choices[t.kv].choice;
  serve_weights(in, s.weight_choices[t.weight]);
  in.model.prompt_tokens = s.prompt_tokens;
  in.require_concurrency = 0;
  if (s.engine->one_server_devices) {
    in.tensor_parallel = in.pipeline_parallel = 1;
    in.gpus = t.replica_gpus();
    in.llama_cpp.parallel = in.ollama.num_parallel = slots;
    in.ollama.num_ctx = s.context_tokens;  // Ollama: num_ctx per slot, -c num_ctx x slots
    in.model.context_tokens = slots * s.context_tokens;  // the caller keeps it below 2^40
    in.model.batch = slots;
    in.max_model_len = 0;
    return in;
  }
  in.tensor_parallel = t.tp;
  in.pipeline_parallel = t.pp;
  in.gpus = t.replica_gpus() * dp;
  in.max_model_len = s.context_tokens;
  in.model.context_tokens = s.context_tokens;
  in.model.batch = s.options.concurrency;
  return in;
}

// The figures every trial reports from its plan.
void record(const PlanReport& r, Trial& t) {
  t.kv_name = r.estimate.kv_dtype.name;
  t.weight_name = r.weights.name;
  t.max_model_len = r.max_model_len;
  t.utilization = r.gpu_memory_bytes == 0 ? 0
                                          : static_cast<double>(r.requested_bytes) /
                                                static_cast<double>(r.gpu_memory_bytes);
  t.weights_bytes = r.weights_bytes;
  t.pool_bytes = r.kv_pool_bytes;
}

bool speed_targets(const SolveOptions& o) {
  return o.min_decode_tokens_per_s > 0 || o.max_ttft_s > 0;
}

// Decode tokens/s of each of `batch` sequences at the target's context on one replica (llama.cpp:
// one server, whose plan's context is all its slots' cells), from a plan with its roofline.
Result<double> per_user_tokens_per_s(const Search& s, const PlanState& state, uint64_t batch) {
  const PlanReport& r = state.report;
  const Result<StepEstimate> step =
      decode_through_stages(state.loads, r.estimate.kv_dtype, r.estimate.state_dtype,
                            r.roofline.peaks, batch, s.context_tokens);
  if (!step.ok) return Result<double>::failure(step.error);
  return Result<double>::success(step.value.time_s > 0 ? 1.0 / step.value.time_s : 0.0);
}

// The prefill of the target's prompt on one replica; NaN when the card has no dense peak (its
// compute time unknown, never free).
Result<double> prefill_seconds(const Search& s, const PlanState& state) {
  const PlanReport& r = state.report;
  if (r.roofline.peaks.flops <= 0) return Result<double>::success(std::nan(""));
  const Result<StepEstimate> step = prefill_through_stages(
      state.loads, r.estimate.kv_dtype, r.estimate.state_dtype, r.roofline.peaks, s.prompt_tokens);
  if (!step.ok) return Result<double>::failure(step.error);
  return Result<double>::success(step.value.time_s);
}

// Replicas for the sequences, then for the decode floor (fewer sequences per replica decode
// faster), then the per-user speed at what each replica runs. Without speed targets the trials
// were planned for capacity alone: the options' own plans give their speed.
Result<bool> size_replicas(const Search& s, const PlanState& state, Trial& t) {
  const PlanReport& r = state.report;
  const SolveOptions& o = s.options;
  const uint64_t n = o.concurrency;
  t.dp_for_pool = t.dp_planned != 0 ? t.dp_planned : ceil_div(n, t.capacity);
  t.dp = t.dp_for_pool;
  if (!speed_targets(o)) return Result<bool>::success(true);
  t.speed = r.roofline.available;
  if (!t.speed) {
    if (o.min_decode_tokens_per_s > 0 || o.max_ttft_s > 0) {
      t.works = false;
      t.constraint = o.max_ttft_s > 0 ? "ttft" : "decode_speed";
      t.reason = "no bandwidth for this card: " + r.roofline.reason;
    }
    return Result<bool>::success(true);
  }
  const Result<double> prefill = prefill_seconds(s, state);
  if (!prefill.ok) return Result<bool>::failure(prefill.error);
  t.prefill_s = prefill.value;
  if (o.max_ttft_s > 0 && std::isnan(t.prefill_s)) {  // unknown is never within a target
    t.works = false;
    t.constraint = "ttft";
    t.reason =
        "no dense peak for this card (catalogue or --gpu-tflops): its prefill time is unknown";
    return Result<bool>::success(true);
  }
  if (o.max_ttft_s > 0 && t.prefill_s > o.max_ttft_s) {
    t.works = false;
    t.constraint = "ttft";
    t.reason = "a prefill of " + with_commas(s.prompt_tokens) + " tokens takes " +
               decimal(t.prefill_s, 2) + " s on one replica, more than " +
               decimal(o.max_ttft_s, 2) + " s";
    return Result<bool>::success(true);
  }
  const auto per_user = [&](uint64_t batch) { return per_user_tokens_per_s(s, state, batch); };
  if (o.min_decode_tokens_per_s > 0) {
    const Result<double> alone = per_user(1);
    if (!alone.ok) return Result<bool>::failure(alone.error);
    if (alone.value < o.min_decode_tokens_per_s) {
      t.works = false;
      t.constraint = "decode_speed";
      t.reason = "one sequence alone decodes at " + decimal(alone.value, 1) +
                 " tokens/s on this replica, below " + decimal(o.min_decode_tokens_per_s, 1);
      return Result<bool>::success(true);
    }
    // The largest batch per replica that still decodes fast enough (speed falls with the batch).
    uint64_t lo = 1, hi = ceil_div(n, t.dp);
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo + 1) / 2;
      const Result<double> at = per_user(mid);
      if (!at.ok) return Result<bool>::failure(at.error);
      if (at.value >= o.min_decode_tokens_per_s)
        lo = mid;
      else
        hi = mid - 1;
    }
    t.dp = std::max(t.dp, ceil_div(n, lo));
  }
  const Result<double> speed = per_user(ceil_div(n, t.dp));
  if (!speed.ok) return Result<bool>::failure(speed.error);
  t.per_user_tokens_per_s = speed.value;
  return Result<bool>::success(true);
}

namespace {

// What one replica of `dp` holds (vLLM, SGLang, TensorRT-LLM, plain).
Result<PlanState> plan_replicas(const Search& s, const Card& card, Trial& t, Planner& plan,
                                uint64_t dp) {
  Result<PlanState> p = plan(trial_input(s, card, t, dp, 0));
  t.planned = true;
  if (!p.ok) return p;
  const PlanReport& r = p.value.report;
  record(r, t);
  if (!r.starts) {
    refused(s, r, t);
    return p;
  }
  // With length distributions a replica holds the requests its pool sustains at p99, else the
  // sequences of the full context.
  t.fit = r.has_workload ? static_cast<double>(r.workload.p99_concurrency)
                         : r.target.sequences_that_fit_per_replica;
  t.capacity = static_cast<uint64_t>(std::floor(t.fit));
  if (r.max_running_requests != 0 && r.max_running_requests < t.capacity) {
    t.capacity = r.max_running_requests;
    t.constraint = "running_requests";  // binds only if the target needs more replicas for it
  }
  t.works = t.capacity > 0;
  if (!t.works) refused(s, r, t);
  return p;
}

// Replicas sharing their experts (Search::experts_over_replicas): the fewest that hold the
// sequences, found by planning replica counts (what they hold together only grows with them).
Result<PlanState> plan_sharing_experts(const Search& s, const Card& card, Trial& t, Planner& plan) {
  const uint64_t n = s.options.concurrency;
  const auto holds = [n](const Trial& x, uint64_t dp) { return x.works && x.capacity * dp >= n; };
  uint64_t hi = std::max<uint64_t>(1, s.options.max_gpus / t.replica_gpus());
  Trial most = t;
  Result<PlanState> best = plan_replicas(s, card, most, plan, hi);
  if (!best.ok || !holds(most, hi)) {  // refused, or more replicas than max_gpus allows
    t = most;
    return best;
  }
  Trial found = most;
  uint64_t lo = 1;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    Trial at = t;
    Result<PlanState> p = plan_replicas(s, card, at, plan, mid);
    if (!p.ok) return p;
    if (holds(at, mid)) {
      hi = mid;
      found = at;
      best = std::move(p);
    } else {
      lo = mid + 1;
    }
  }
  t = found;
  t.dp_planned = hi;
  return best;
}

}  // namespace

// Plans one replica layout (vLLM, SGLang, TensorRT-LLM, plain): what one replica holds.
Result<PlanState> plan_replica(const Search& s, const Card& card, Trial& t, Planner& plan) {
  if (s.experts_over_replicas) return plan_sharing_experts(s, card, t, plan);
  return plan_replicas(s, card, t, plan, 1);
}

namespace {

// A server that fits layers to the card (Ollama) starts with some on the CPU; a buyer's plan keeps
// every layer on the GPUs.
bool on_gpus(const PlanReport& r) {
  return r.starts && (!r.offload.present || r.offload.gpu_layers == r.offload.layers);
}

}  // namespace

// llama.cpp, Ollama: the most slots one server of `tp x pp` devices holds at the context, found with
// its own buffer arithmetic (one plan for all N, else a search below what fits).
Result<PlanState> plan_server(const Search& s, const Card& card, Trial& t, Planner& plan) {
  const uint64_t n = s.options.concurrency;
  const auto at = [&](uint64_t slots) { return plan(trial_input(s, card, t, 1, slots)); };
  t.planned = true;
  const uint64_t max_slots = std::max<uint64_t>(1, (uint64_t{1} << 40) / s.context_tokens);
  Result<PlanState> p = at(std::min(n, max_slots));
  if (!p.ok) return p;
  uint64_t slots = std::min(n, max_slots);
  if (!on_gpus(p.value.report)) {
    // The cells that fit beside the weights, in whole contexts: exact for full-attention
    // caches, and a start for the search where sliding windows and states scale with slots.
    const uint64_t guess = std::min(slots - 1, p.value.report.max_context / s.context_tokens);
    uint64_t lo = 0, hi = slots - 1;
    Result<PlanState> best = p;
    if (guess > 0) {
      Result<PlanState> q = at(guess);
      if (!q.ok) return q;
      if (on_gpus(q.value.report)) {
        lo = guess;
        best = std::move(q);
        if (guess < hi) {  // one more slot: where it fails, the guess was exact
          Result<PlanState> more = at(guess + 1);
          if (!more.ok) return more;
          if (on_gpus(more.value.report)) {
            lo = guess + 1;
            best = std::move(more);
          } else {
            hi = guess;
          }
        }
      } else {
        hi = guess - 1;
      }
    }
    while (lo < hi) {  // the largest slot count that starts
      const uint64_t mid = lo + (hi - lo + 1) / 2;
      Result<PlanState> q = at(mid);
      if (!q.ok) return q;
      if (on_gpus(q.value.report)) {
        lo = mid;
        best = std::move(q);
      } else {
        hi = mid - 1;
      }
    }
    if (lo == 0) {
      Result<PlanState> one = at(1);
      if (!one.ok) return one;
      record(one.value.report, t);
      if (!on_gpus(one.value.report)) {
        refused(s, one.value.report, t);
        return one;
      }
      lo = 1;
      best = std::move(one);
    }
    slots = lo;
    p = std::move(best);
  }
  record(p.value.report, t);
  t.max_model_len = s.context_tokens;  // per slot; -c is slots x this
  t.capacity = slots;
  t.fit = static_cast<double>(slots);
  t.works = true;
  return p;
}

}  // namespace kvscope::solve_search
