// Per GPU type: replica layouts from the fewest GPUs up, each weight and KV choice planned with
// the engine's own arithmetic, replicated until the target's sequences fit and each decodes fast
// enough; the fewest GPUs per choice, and why the layouts with fewer GPUs fall short.
#include <algorithm>
#include <cmath>

#include "base/checked_math.hpp"
#include "kvscope/base/units.hpp"
#include "solve/solve_trials.hpp"

namespace kvscope::solve_search {
namespace {

constexpr size_t kMaxCheaperFailures = 12;

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

