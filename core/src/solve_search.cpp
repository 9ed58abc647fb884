// Per GPU type: replica layouts from the fewest GPUs up, each weight and KV choice planned with
// the engine's own arithmetic, replicated until the target's sequences fit and each decodes fast
// enough; the fewest GPUs per choice, and why the layouts with fewer GPUs fall short.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kvscope/checked_math.hpp"
#include "kvscope/units.hpp"
#include "plan_state.hpp"
#include "solve_search.hpp"

namespace kvscope::solve_search {
namespace {

constexpr size_t kMaxCheaperFailures = 12;

// One replica layout for one weight and KV choice, as planned.
struct Trial {
  uint32_t tp = 1;
  uint32_t pp = 1;  // llama.cpp: the devices of one server (-sm layer)
  size_t weight = 0;
  size_t kv = 0;
  bool planned = false;   // false: skipped on the weights' lower bound
  bool works = false;     // one replica starts, and meets the time to first token
  uint64_t capacity = 0;  // sequences of the context one replica holds at once
  double fit = 0;         // the same, fractional
  uint64_t dp_for_pool = 0;  // replicas the sequences need
  uint64_t dp = 0;           // replicas the sequences and the decode floor need
  std::string constraint;    // why not, when !works or when dp replicas exceed max_gpus
  std::string reason;
  std::string kv_name;
  std::string weight_name;
  uint64_t max_model_len = 0;
  double utilization = 0;
  uint64_t weights_bytes = 0;
  uint64_t pool_bytes = 0;
  bool speed = false;
  double per_user_tokens_per_s = 0;  // at ceil(N / dp) sequences per replica
  double prefill_s = 0;

  uint64_t replica_gpus() const { return uint64_t{tp} * pp; }
  uint64_t gpus() const { return replica_gpus() * dp; }
};

// Runs the search's plans through the memo, and counts them.
struct Planner {
  PlanMemo& memo;
  uint64_t plans = 0;
  Result<PlanState> operator()(const PlanInput& in) {
    ++plans;
    return plan_state(in, &memo);
  }
};

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
    in.llama_cpp.parallel = slots;
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

// The prefill of the target's prompt on one replica.
Result<double> prefill_seconds(const Search& s, const PlanState& state) {
  const PlanReport& r = state.report;
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
  t.dp_for_pool = ceil_div(n, t.capacity);
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

// Plans one replica layout (vLLM, SGLang, TensorRT-LLM, plain): what one replica holds.
Result<PlanState> plan_replica(const Search& s, const Card& card, Trial& t, Planner& plan) {
  Result<PlanState> p = plan(trial_input(s, card, t, 1, 0));
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
                         : r.target.sequences_that_fit;
  t.capacity = static_cast<uint64_t>(std::floor(t.fit));
  if (r.max_running_requests != 0 && r.max_running_requests < t.capacity) {
    t.capacity = r.max_running_requests;
    t.constraint = "running_requests";  // binds only if the target needs more replicas for it
  }
  t.works = t.capacity > 0;
  if (!t.works) refused(s, r, t);
  return p;
}

// llama.cpp: the most slots one server of `tp x pp` devices holds at the context, found with
// its own buffer arithmetic (one plan for all N, else a search below what fits).
Result<PlanState> plan_server(const Search& s, const Card& card, Trial& t, Planner& plan) {
  const uint64_t n = s.options.concurrency;
  const auto at = [&](uint64_t slots) { return plan(trial_input(s, card, t, 1, slots)); };
  t.planned = true;
  const uint64_t max_slots = std::max<uint64_t>(1, (uint64_t{1} << 40) / s.context_tokens);
  Result<PlanState> p = at(std::min(n, max_slots));
  if (!p.ok) return p;
  uint64_t slots = std::min(n, max_slots);
  if (!p.value.report.starts) {
    // The cells that fit beside the weights, in whole contexts: exact for full-attention
    // caches, and a start for the search where sliding windows and states scale with slots.
    const uint64_t guess = std::min(slots - 1, p.value.report.max_context / s.context_tokens);
    uint64_t lo = 0, hi = slots - 1;
    Result<PlanState> best = p;
    if (guess > 0) {
      Result<PlanState> q = at(guess);
      if (!q.ok) return q;
      if (q.value.report.starts) {
        lo = guess;
        best = std::move(q);
        if (guess < hi) {  // one more slot: where it fails, the guess was exact
          Result<PlanState> more = at(guess + 1);
          if (!more.ok) return more;
          if (more.value.report.starts) {
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
      if (q.value.report.starts) {
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
      if (!one.value.report.starts) {
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

// The replica layouts to try, fewest GPUs first (at equal GPUs, more tensor parallelism: it
// decodes faster than more pipeline stages).
std::vector<std::pair<uint32_t, uint32_t>> layouts(const Search& s) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  const SolveOptions& o = s.options;
  if (s.engine->one_server_devices) {  // one server's devices, within a node
    for (uint32_t d = 1; d <= o.max_tp && d <= o.max_gpus; ++d) out.emplace_back(1, d);
    return out;
  }
  for (uint32_t tp = 1; tp <= o.max_tp; tp *= 2) {
    for (uint32_t pp = 1; pp <= o.max_pp && uint64_t{tp} * pp <= o.max_gpus; ++pp)
      out.emplace_back(tp, pp);
    if (tp > o.max_tp / 2) break;
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    const uint64_t x = uint64_t{a.first} * a.second, y = uint64_t{b.first} * b.second;
    return x != y ? x < y : a.first > b.first;
  });
  return out;
}

// What an option says of its trial: the card, the replica's layout and choices, its memory.
SolveOption trial_option(const Search& s, const Card& card, const Trial& t, uint64_t dp) {
  SolveOption o;
  o.gpu_id = card.id;
  o.gpu_name = card.name;
  o.tp = t.tp;
  o.pp = t.pp;
  o.dp = dp;
  o.gpus = t.replica_gpus() * dp;
  o.kv_dtype = t.kv_name.empty() ? s.kv_choices[t.kv].name : t.kv_name;
  o.weight_dtype = s.weight_choices[t.weight].served;
  o.weights_choice = s.weight_choices[t.weight].choice;
  o.checkpoint = s.weight_choices[t.weight].model_id;
  o.max_model_len = t.max_model_len;
  o.weights_bytes_per_gpu = t.weights_bytes;
  o.kv_pool_bytes_per_gpu = t.pool_bytes;
  o.max_concurrency = t.fit * static_cast<double>(dp);
  return o;
}

// An option of the report from a trial with `dp` replicas: its plan once more at that size for
// the launch command (and the verdict on the whole target), its speed, its price.
Result<SolveOption> option_of(const Search& s, const Card& card, const Trial& t, uint64_t dp,
                              Planner& plan) {
  const uint64_t n = s.options.concurrency;
  SolveOption o = trial_option(s, card, t, dp);
  o.utilization = t.utilization;
  const uint64_t holds = t.capacity * dp;
  o.meets_target = t.works && holds >= n && t.dp <= dp;
  o.margin = static_cast<double>(holds) / static_cast<double>(n) - 1;
  o.speed_available = t.speed;
  o.prefill_s = t.prefill_s;
  if (t.speed && dp == t.dp) {
    o.decode_tokens_per_s_per_user = t.per_user_tokens_per_s;
    o.decode_tokens_per_s = t.per_user_tokens_per_s * static_cast<double>(n);
  }
  o.priced = card.priced;
  o.usd_per_hour = card.usd_per_hour * static_cast<double>(o.gpus);
  o.usd_per_user_hour = o.usd_per_hour / static_cast<double>(n);
  if (o.decode_tokens_per_s > 0)
    o.usd_per_million_output_tokens = o.usd_per_hour / (o.decode_tokens_per_s * 3600) * 1e6;
  // The whole layout planned in full (llama.cpp: one of its dp servers): its launch command, and
  // its speed where the trials did not need one.
  const uint64_t slots = ceil_div(n, dp);
  plan.memo.capacity_only = false;
  const Result<PlanState> p =
      plan(trial_input(s, card, t, dp, std::max<uint64_t>(1, std::min(slots, t.capacity))));
  plan.memo.capacity_only = !speed_targets(s.options);
  if (!p.ok) return Result<SolveOption>::failure(p.error);
  const PlanReport& r = p.value.report;
  if (!speed_targets(s.options) && r.roofline.available && dp == t.dp) {
    const Result<double> prefill = prefill_seconds(s, p.value);
    const Result<double> speed = per_user_tokens_per_s(s, p.value, slots);
    if (!prefill.ok || !speed.ok)
      return Result<SolveOption>::failure(prefill.ok ? speed.error : prefill.error);
    o.speed_available = true;
    o.prefill_s = prefill.value;
    o.decode_tokens_per_s_per_user = speed.value;
    o.decode_tokens_per_s = speed.value * static_cast<double>(n);
    if (o.priced && o.decode_tokens_per_s > 0)
      o.usd_per_million_output_tokens = o.usd_per_hour / (o.decode_tokens_per_s * 3600) * 1e6;
  }
  o.command = r.launch_command;
  o.unexpressed = r.launch_unexpressed;
  if (s.engine->one_server_devices && dp > 1) {
    o.unexpressed.push_back(std::to_string(dp) + " servers like this one, " +
                            std::to_string(slots) +
                            " slots each, behind a load balancer (llama-server has no replicas)");
  }
  if (!s.engine->one_server_devices && !r.has_workload)
    o.meets_target = o.meets_target && r.target.met;
  if (!o.meets_target) {
    o.binding_constraint = t.constraint.empty() ? "kv_pool" : t.constraint;
    o.reason = t.reason;
  }
  return Result<SolveOption>::success(std::move(o));
}

// Why `t` with fewer GPUs than `best` falls short: its replica fails, or as many replicas as stay
// under `best` hold too few sequences or decode too slowly.
SolveOption cheaper_failure(const Search& s, const Card& card, const Trial& t, uint64_t best) {
  SolveOption o = trial_option(s, card, t, t.works ? std::max<uint64_t>(1, (best - 1) / t.replica_gpus()) : 1);
  o.priced = card.priced;
  o.usd_per_hour = card.usd_per_hour * static_cast<double>(o.gpus);
  const uint64_t n = s.options.concurrency;
  if (!t.works || t.dp_for_pool > o.dp || t.constraint == "running_requests") {
    o.binding_constraint = t.works ? (t.constraint.empty() ? "kv_pool" : t.constraint)
                                   : t.constraint;
    o.reason = t.works ? std::to_string(o.dp) + (o.dp == 1 ? " replica holds " : " replicas hold ") +
                             with_commas(t.capacity * o.dp) + " of " + with_commas(n) +
                             " sequences of " + with_commas(s.context_tokens) + " tokens"
                       : t.reason;
  } else {
    o.binding_constraint = "decode_speed";
    o.reason = std::to_string(ceil_div(n, o.dp)) + " sequences per replica decode below " +
               decimal(s.options.min_decode_tokens_per_s, 1) + " tokens/s each";
  }
  return o;
}

}  // namespace

Result<CardResult> search_card(const Search& s, const Card& card, PlanMemo& memo,
                               uint64_t& budget) {
  using RC = Result<CardResult>;
  const SolveOptions& o = s.options;
  CardResult out;
  out.gpu.gpu_id = card.id;
  out.gpu.gpu_name = card.name;
  out.gpu.memory_bytes = card.memory_bytes;
  out.gpu.priced = card.priced;
  out.gpu.usd_per_hour = card.usd_per_hour;
  out.gpu.price_source = card.price_source;
  const size_t choices = s.weight_choices.size() * s.kv_choices.size();
  std::vector<int> best(choices, -1);             // per choice, its trial with the fewest GPUs
  // GPUs every layout of a choice needs at least: its weights and the sequences' caches.
  std::vector<uint64_t> least(choices, 0);
  for (size_t c = 0; c < choices; ++c) {
    const CheckedU64 need =
        CheckedU64(s.kv_choices[c % s.kv_choices.size()].bytes_per_sequence) * o.concurrency +
        s.weight_choices[c / s.kv_choices.size()].bytes;
    least[c] = need.overflowed() ? UINT64_MAX : ceil_div(need.value(), card.memory_bytes);
  }
  std::vector<Trial> trials;
  Planner plans{memo};
  memo.capacity_only = !speed_targets(o);
  uint64_t card_best = 0;
  // One replica layout for choice c (weights w, KV k), unless it cannot beat the limit.
  const auto try_layout = [&](uint32_t tp, uint32_t pp, size_t c) -> Result<bool> {
    const size_t w = c / s.kv_choices.size(), k = c % s.kv_choices.size();
    const uint64_t size = uint64_t{tp} * pp;
    // A choice is searched up to its own best, below the best of every choice nearer the
    // checkpoint (else it is not worth its changes), and not past twice the card's best; one
    // whose weights and sequences outgrow max_gpus cards, no further.
    uint64_t limit = best[c] >= 0 ? trials[static_cast<size_t>(best[c])].gpus()
                     : card_best != 0 ? 2 * card_best
                                      : o.max_gpus;
    for (size_t d = 0; d < choices; ++d) {
      const size_t changes_d = d / s.kv_choices.size() + d % s.kv_choices.size();
      if (best[d] >= 0 && changes_d < w + k)
        limit = std::min(limit, trials[static_cast<size_t>(best[d])].gpus() - 1);
    }
    if (size > limit) return Result<bool>::success(false);
    Trial t;
    t.tp = tp;
    t.pp = pp;
    t.weight = w;
    t.kv = k;
    if (least[c] > o.max_gpus) {  // said once, at the first layout
      if (size == 1) {
        t.kv_name = s.kv_choices[k].name;
        t.constraint = "max_gpus";
        t.reason = "its weights and " + with_commas(o.concurrency) + " sequences' caches need " +
                   "at least " + with_commas(least[c]) + " GPUs of " +
                   format_gb(card.memory_bytes) + ", more than max_gpus " +
                   with_commas(o.max_gpus);
        trials.push_back(t);
      }
      return Result<bool>::success(false);
    }
    // No GPU of a replica holds less than its share of the weights, and all its memory holds at
    // most this many sequences: replicas of it that cannot beat the limit are not planned.
    if (const uint64_t whole = s.weight_choices[w].bytes; whole != 0) {
      const CheckedU64 memory = CheckedU64(card.memory_bytes) * size;
      const uint64_t per_sequence = std::max<uint64_t>(1, s.kv_choices[k].bytes_per_sequence);
      const uint64_t at_most = memory.overflowed() || memory.value() <= whole
                                   ? 0
                                   : (memory.value() - whole) / per_sequence;
      if (at_most == 0 && whole / size > card.memory_bytes) {
        t.kv_name = s.kv_choices[k].name;
        t.constraint = "weights";
        t.reason = "the weights (" + format_gb(whole) + ") are more than " +
                   (size == 1 ? "the " + format_gb(card.memory_bytes) + " of one GPU"
                              : std::to_string(size) + " GPUs of " + format_gb(card.memory_bytes) +
                                    " hold");
        trials.push_back(t);
        return Result<bool>::success(false);
      }
      if (at_most == 0 || size * ceil_div(o.concurrency, at_most) > limit) {
        // Not planned: even all its memory less the weights falls short (said only for layouts
        // with fewer GPUs than the best, which is what the report explains).
        t.kv_name = s.kv_choices[k].name;
        t.constraint = "kv_pool";
        t.reason = at_most == 0
                       ? "all " + format_gb(memory.value()) + " less the weights (" +
                             format_gb(whole) + ") holds less than one sequence of " +
                             with_commas(s.context_tokens) + " tokens (" +
                             format_gb(s.kv_choices[k].bytes_per_sequence) + ")"
                       : "all its memory less the weights holds at most " +
                             with_commas(at_most) + " of " + with_commas(o.concurrency) +
                             " sequences per replica";
        trials.push_back(t);
        return Result<bool>::success(false);
      }
    }
    if (plans.plans >= budget) {
      out.gpu.search_cut = true;
      return Result<bool>::success(false);
    }
    const Result<PlanState> p = s.engine->one_server_devices ? plan_server(s, card, t, plans)
                                                             : plan_replica(s, card, t, plans);
    if (!p.ok) {
      const std::string& field = p.error.field;
      if (field != "tensor_parallel" && field != "pipeline_parallel")
        return Result<bool>::failure(p.error);
      t.constraint = field == "tensor_parallel" ? "heads" : "layers";
      t.reason = p.error.message;
      trials.push_back(t);
      return Result<bool>::success(false);
    }
    if (t.works) {
      const Result<bool> sized = size_replicas(s, p.value, t);
      if (!sized.ok) return sized;
    }
    if (t.works && t.gpus() > o.max_gpus) {
      t.constraint = t.dp > t.dp_for_pool ? "decode_speed" : "max_gpus";
      t.reason = "needs " + std::to_string(t.dp) + " replicas of " + std::to_string(size) + " = " +
                 with_commas(t.gpus()) + " GPUs, more than max_gpus " + with_commas(o.max_gpus);
    }
    trials.push_back(t);
    const Trial& added = trials.back();
    if (added.works && added.gpus() <= o.max_gpus &&
        (best[c] < 0 || added.gpus() < trials[static_cast<size_t>(best[c])].gpus())) {
      best[c] = static_cast<int>(trials.size() - 1);
      card_best = card_best == 0 ? added.gpus() : std::min(card_best, added.gpus());
    }
    return Result<bool>::success(true);
  };
  // Each choice from the one that needs the least memory, whose best bounds the others' search.
  std::vector<size_t> order(choices);
  for (size_t c = 0; c < choices; ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return least[a] < least[b]; });
  const std::vector<std::pair<uint32_t, uint32_t>> all = layouts(s);
  for (size_t c : order) {
    for (const auto& [tp, pp] : all) {
      const Result<bool> tried = try_layout(tp, pp, c);
      if (!tried.ok) return RC::failure(tried.error);
    }
  }
  budget -= std::min(budget, plans.plans);
  out.gpu.plans_run = plans.plans;
  for (size_t c = 0; c < choices; ++c) {
    if (best[c] < 0) continue;
    const Trial& t = trials[static_cast<size_t>(best[c])];
    // A choice no better than one nearer the checkpoint is not an option worth its changes.
    bool dominated = false;
    for (size_t d = 0; d < choices && !dominated; ++d) {
      const size_t changes_d = d / s.kv_choices.size() + d % s.kv_choices.size();
      dominated = best[d] >= 0 && changes_d < t.weight + t.kv &&
                  trials[static_cast<size_t>(best[d])].gpus() <= t.gpus();
    }
    if (dominated) continue;
    Result<SolveOption> option = option_of(s, card, t, t.dp, plans);
    if (!option.ok) return RC::failure(option.error);
    out.options.push_back(Ranked{std::move(option.value), t.weight + t.kv});
    const uint64_t gpus = out.options.back().option.gpus;
    out.gpu.best_gpus = out.gpu.best_gpus == 0 ? gpus : std::min(out.gpu.best_gpus, gpus);
  }
  out.gpu.met = out.gpu.best_gpus != 0;
  if (!out.gpu.met) {
    // The closest miss: the working replica that holds the most within max_gpus, else the
    // largest layout tried, with why it fails.
    // A failing layout ranks by how few GPUs its choice needs at least, then by its size.
    const auto holds = [&](const Trial& t) {
      const double needs = static_cast<double>(least[t.weight * s.kv_choices.size() + t.kv]);
      return t.works ? t.fit * static_cast<double>(std::max<uint64_t>(1, o.max_gpus / t.replica_gpus()))
                     : -needs + 1e-6 * static_cast<double>(t.replica_gpus());
    };
    const auto closest = std::max_element(
        trials.begin(), trials.end(),
        [&](const Trial& a, const Trial& b) { return holds(a) < holds(b); });
    if (closest != trials.end()) {
      const uint64_t dp =
          closest->works ? std::max<uint64_t>(1, o.max_gpus / closest->replica_gpus()) : 1;
      Result<SolveOption> miss = option_of(s, card, *closest, dp, plans);
      if (!miss.ok) return RC::failure(miss.error);
      miss.value.meets_target = false;
      if (miss.value.binding_constraint.empty()) {
        miss.value.binding_constraint =
            closest->constraint.empty() ? "max_gpus" : closest->constraint;
        miss.value.reason = closest->reason;
      }
      out.options.push_back(Ranked{std::move(miss.value), closest->weight + closest->kv});
    }
  }
  // Layouts with fewer GPUs than the best (all of them when none meets): why each falls short.
  const uint64_t bound = out.gpu.met ? out.gpu.best_gpus : UINT64_MAX;
  std::vector<Trial> shorter;
  for (const Trial& t : trials) {
    if (t.replica_gpus() < bound && !(t.works && t.gpus() < bound)) shorter.push_back(t);
  }
  std::stable_sort(shorter.begin(), shorter.end(), [](const Trial& a, const Trial& b) {
    return a.replica_gpus() != b.replica_gpus() ? a.replica_gpus() > b.replica_gpus()
                                                : a.weight + a.kv < b.weight + b.kv;
  });
  for (Trial& t : shorter) {
    if (out.gpu.cheaper_failures.size() >= kMaxCheaperFailures) break;

    // One the memory bound spared is planned now, so it fails in the engine's own words.
    if (!t.planned && t.constraint == "kv_pool") {
      Trial planned;
      planned.tp = t.tp;
      planned.pp = t.pp;
      planned.weight = t.weight;
      planned.kv = t.kv;
      const Result<PlanState> p = s.engine->one_server_devices
                                      ? plan_server(s, card, planned, plans)
                                      : plan_replica(s, card, planned, plans);
      if (p.ok) {
        if (planned.works) planned.dp_for_pool = planned.dp = ceil_div(o.concurrency, planned.capacity);
        t = planned;
      }
    }
    SolveOption failure = cheaper_failure(s, card, t, out.gpu.met ? bound : o.max_gpus + 1);
    // TP and PP of one size often fall short alike: one row says it.
    const bool said = std::any_of(
        out.gpu.cheaper_failures.begin(), out.gpu.cheaper_failures.end(), [&](const SolveOption& f) {
          return f.gpus == failure.gpus && f.kv_dtype == failure.kv_dtype &&
                 f.weights_choice == failure.weights_choice && f.reason == failure.reason;
        });
    if (!said) out.gpu.cheaper_failures.push_back(std::move(failure));
  }
  out.gpu.plans_run = plans.plans;
  return RC::success(std::move(out));
}

}  // namespace kvscope::solve_search
