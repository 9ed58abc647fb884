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
  o.sequences_that_fit = t.fit * static_cast<double>(dp);
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
  o.max_concurrency = r.total_max_concurrency;
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
    if (t.works && s.experts_over_replicas) {  // what a replica holds grows with their count
      o.reason = std::to_string(o.dp) + (o.dp == 1 ? " replica holds" : " replicas hold") +
                 " fewer than " + with_commas(n) + " sequences of " +
                 with_commas(s.context_tokens) + " tokens; " + std::to_string(t.dp_for_pool) +
                 ", sharing the experts, hold " + with_commas(t.capacity * t.dp_for_pool);
    }
  } else {
    o.binding_constraint = "decode_speed";
    o.reason = std::to_string(ceil_div(n, o.dp)) + " sequences per replica decode below " +
               decimal(s.options.min_decode_tokens_per_s, 1) + " tokens/s each";
  }
  return o;
}

// One GPU type's search: each weight and KV choice over the replica layouts, the best per choice
// (best_), then the report's options, the closest miss and why cheaper layouts fall short.
class CardSearch {
 public:
  CardSearch(const Search& s, const Card& card, PlanMemo& memo, uint64_t& budget)
      : s_(s),
        o_(s.options),
        card_(card),
        budget_(budget),
        plans_{memo},
        choices_(s.weight_choices.size() * s.kv_choices.size()),
        best_(choices_, -1),
        least_(choices_, 0),
        card_refuses_(choices_, false) {
    out_.gpu.gpu_id = card.id;
    out_.gpu.gpu_name = card.name;
    out_.gpu.memory_bytes = card.memory_bytes;
    out_.gpu.priced = card.priced;
    out_.gpu.usd_per_hour = card.usd_per_hour;
    out_.gpu.price_source = card.price_source;
    for (size_t c = 0; c < choices_; ++c) {
      const CheckedU64 need =
          CheckedU64(s.kv_choices[c % s.kv_choices.size()].bytes_per_sequence) * o_.concurrency +
          s.weight_choices[c / s.kv_choices.size()].bytes;
      least_[c] = need.overflowed() ? UINT64_MAX : ceil_div(need.value(), card.memory_bytes);
    }
    memo.capacity_only = !speed_targets(o_);
  }

  Result<CardResult> run();

 private:
  size_t changes(size_t c) const { return c / s_.kv_choices.size() + c % s_.kv_choices.size(); }
  uint64_t best_gpus(size_t c) const { return trials_[static_cast<size_t>(best_[c])].gpus(); }
  uint64_t limit_for(size_t c) const;
  bool bounded_out(Trial& t, size_t c, uint64_t limit);
  Result<PlanState> plan_trial(Trial& t) {  // one server's devices (llama.cpp), else one replica
    return s_.engine->one_server_devices ? plan_server(s_, card_, t, plans_)
                                         : plan_replica(s_, card_, t, plans_);
  }
  Result<bool> try_layout(uint32_t tp, uint32_t pp, size_t c);
  Result<bool> add_best_options();
  Result<bool> add_closest_miss();
  void add_cheaper_failures();

  const Search& s_;
  const SolveOptions& o_;
  const Card& card_;
  uint64_t& budget_;  // plans left for the whole solve
  Planner plans_;
  const size_t choices_;  // weight choice w, KV choice k as c = w x kv choices + k
  std::vector<int> best_;        // per choice, its trial with the fewest GPUs
  std::vector<uint64_t> least_;  // per choice, the GPUs its weights and sequences' caches need at least
  std::vector<bool> card_refuses_;  // per choice: the engine does not run its formats on this card
  std::vector<Trial> trials_;
  uint64_t card_best_ = 0;
  CardResult out_;
};

// A choice is searched up to its own best, below the best of every choice nearer the checkpoint
// (else it is not worth its changes), and not past twice the card's best.
uint64_t CardSearch::limit_for(size_t c) const {
  uint64_t limit = best_[c] >= 0 ? best_gpus(c) : card_best_ != 0 ? 2 * card_best_ : o_.max_gpus;
  for (size_t d = 0; d < choices_; ++d) {
    if (best_[d] >= 0 && changes(d) < changes(c)) limit = std::min(limit, best_gpus(d) - 1);
  }
  return limit;
}

// Whether `t` is settled without a plan: its choice outgrows max_gpus cards, or no GPU of the
// replica holds its share of the weights, or all its memory holds too few sequences to beat the
// limit; each said as a trial (the first outgrowing layout only).
bool CardSearch::bounded_out(Trial& t, size_t c, uint64_t limit) {
  const uint64_t size = t.replica_gpus();
  const std::string& kv_name = s_.kv_choices[t.kv].name;
  if (least_[c] > o_.max_gpus) {
    if (size == 1) {
      t.kv_name = kv_name;
      t.constraint = "max_gpus";
      t.reason = "its weights and " + with_commas(o_.concurrency) + " sequences' caches need " +
                 "at least " + with_commas(least_[c]) + " GPUs of " +
                 format_gb(card_.memory_bytes) + ", more than max_gpus " + with_commas(o_.max_gpus);
      trials_.push_back(t);
    }
    return true;
  }
  const uint64_t whole = s_.weight_choices[t.weight].bytes;
  // Replicas sharing experts hold less than the whole weights each: the bounds below assume not.
  if (whole == 0 || s_.experts_over_replicas) return false;
  const CheckedU64 memory = CheckedU64(card_.memory_bytes) * size;
  const uint64_t per_sequence = std::max<uint64_t>(1, s_.kv_choices[t.kv].bytes_per_sequence);
  const uint64_t at_most =
      memory.overflowed() || memory.value() <= whole ? 0 : (memory.value() - whole) / per_sequence;
  if (at_most == 0 && whole / size > card_.memory_bytes) {
    t.kv_name = kv_name;
    t.constraint = "weights";
    t.reason = "the weights (" + format_gb(whole) + ") are more than " +
               (size == 1 ? "the " + format_gb(card_.memory_bytes) + " of one GPU"
                          : std::to_string(size) + " GPUs of " + format_gb(card_.memory_bytes) +
                                " hold");
    trials_.push_back(t);
    return true;
  }
  if (at_most != 0 && size * ceil_div(o_.concurrency, at_most) <= limit) return false;
  // Not planned: even all its memory less the weights falls short (said only for layouts with
  // fewer GPUs than the best, which is what the report explains).
  t.kv_name = kv_name;
  t.constraint = "kv_pool";
  t.reason = at_most == 0 ? "all " + format_gb(memory.value()) + " less the weights (" +
                                format_gb(whole) + ") holds less than one sequence of " +
                                with_commas(s_.context_tokens) + " tokens (" +
                                format_gb(s_.kv_choices[t.kv].bytes_per_sequence) + ")"
                          : "all its memory less the weights holds at most " +
                                with_commas(at_most) + " of " + with_commas(o_.concurrency) +
                                " sequences per replica";
  trials_.push_back(t);
  return true;
}

// One replica layout for choice c (weights w, KV k), unless it cannot beat the limit.
Result<bool> CardSearch::try_layout(uint32_t tp, uint32_t pp, size_t c) {
  Trial t;
  t.tp = tp;
  t.pp = pp;
  t.weight = c / s_.kv_choices.size();
  t.kv = c % s_.kv_choices.size();
  const uint64_t limit = limit_for(c);
  if (card_refuses_[c] || t.replica_gpus() > limit || bounded_out(t, c, limit))
    return Result<bool>::success(false);
  if (plans_.plans >= budget_) {
    out_.gpu.search_cut = true;
    return Result<bool>::success(false);
  }
  const Result<PlanState> p = plan_trial(t);
  if (!p.ok) {
    const std::string& field = p.error.field;
    // A weight format or KV dtype the engine does not run on this card: no layout of it will.
    const bool format =
        p.error.code == kUnsupported && (field == "weight_dtype" || field == "kv_dtype");
    if (field != "tensor_parallel" && field != "pipeline_parallel" && !format)
      return Result<bool>::failure(p.error);
    card_refuses_[c] = format;
    t.constraint = format ? "card_format" : field == "tensor_parallel" ? "heads" : "layers";
    t.reason = p.error.message;
    trials_.push_back(t);
    return Result<bool>::success(false);
  }
  if (t.works) {
    const Result<bool> sized = size_replicas(s_, p.value, t);
    if (!sized.ok) return sized;
  }
  if (t.works && t.gpus() > o_.max_gpus) {
    t.constraint = t.dp > t.dp_for_pool ? "decode_speed" : "max_gpus";
    t.reason = "needs " + std::to_string(t.dp) + " replicas of " + std::to_string(t.replica_gpus()) +
               " = " + with_commas(t.gpus()) + " GPUs, more than max_gpus " + with_commas(o_.max_gpus);
  }
  trials_.push_back(t);
  const Trial& added = trials_.back();
  if (added.works && added.gpus() <= o_.max_gpus && (best_[c] < 0 || added.gpus() < best_gpus(c))) {
    best_[c] = static_cast<int>(trials_.size() - 1);
    card_best_ = card_best_ == 0 ? added.gpus() : std::min(card_best_, added.gpus());
  }
  return Result<bool>::success(true);
}

// Each choice's best, unless a choice nearer the checkpoint is as good: not worth its changes.
Result<bool> CardSearch::add_best_options() {
  for (size_t c = 0; c < choices_; ++c) {
    if (best_[c] < 0) continue;
    const Trial& t = trials_[static_cast<size_t>(best_[c])];
    bool dominated = false;
    for (size_t d = 0; d < choices_ && !dominated; ++d)
      dominated = best_[d] >= 0 && changes(d) < t.weight + t.kv && best_gpus(d) <= t.gpus();
    if (dominated) continue;
    Result<SolveOption> option = option_of(s_, card_, t, t.dp, plans_);
    if (!option.ok) return Result<bool>::failure(option.error);
    out_.options.push_back(Ranked{std::move(option.value), t.weight + t.kv});
    const uint64_t gpus = out_.options.back().option.gpus;
    out_.gpu.best_gpus = out_.gpu.best_gpus == 0 ? gpus : std::min(out_.gpu.best_gpus, gpus);
  }
  return Result<bool>::success(true);
}

// The closest miss: the working replica that holds the most within max_gpus, else the largest
// layout tried, with why it fails. A failing layout ranks by how few GPUs its choice needs at
// least, then by its size.
Result<bool> CardSearch::add_closest_miss() {
  const auto holds = [&](const Trial& t) {
    const double needs = static_cast<double>(least_[t.weight * s_.kv_choices.size() + t.kv]);
    return t.works ? t.fit * static_cast<double>(std::max<uint64_t>(1, o_.max_gpus / t.replica_gpus()))
                   : -needs + 1e-6 * static_cast<double>(t.replica_gpus());
  };
  const auto closest = std::max_element(
      trials_.begin(), trials_.end(), [&](const Trial& a, const Trial& b) { return holds(a) < holds(b); });
  if (closest == trials_.end()) return Result<bool>::success(false);
  const uint64_t dp = closest->works ? std::max<uint64_t>(1, o_.max_gpus / closest->replica_gpus()) : 1;
  Result<SolveOption> miss = option_of(s_, card_, *closest, dp, plans_);
  if (!miss.ok) return Result<bool>::failure(miss.error);
  miss.value.meets_target = false;
  if (miss.value.binding_constraint.empty()) {
    miss.value.binding_constraint = closest->constraint.empty() ? "max_gpus" : closest->constraint;
    miss.value.reason = closest->reason;
  }
  out_.options.push_back(Ranked{std::move(miss.value), closest->weight + closest->kv});
  return Result<bool>::success(true);
}

// Layouts with fewer GPUs than the best (all of them when none meets): why each falls short.
void CardSearch::add_cheaper_failures() {
  const uint64_t bound = out_.gpu.met ? out_.gpu.best_gpus : UINT64_MAX;
  std::vector<Trial> shorter;
  for (const Trial& t : trials_) {
    if (t.replica_gpus() < bound && !(t.works && t.gpus() < bound)) shorter.push_back(t);
  }
  std::stable_sort(shorter.begin(), shorter.end(), [](const Trial& a, const Trial& b) {
    return a.replica_gpus() != b.replica_gpus() ? a.replica_gpus() > b.replica_gpus()
                                                : a.weight + a.kv < b.weight + b.kv;
  });
  for (Trial& t : shorter) {
    if (out_.gpu.cheaper_failures.size() >= kMaxCheaperFailures) break;
    // One the memory bound spared is planned now, so it fails in the engine's own words.
    if (!t.planned && t.constraint == "kv_pool") {
      Trial planned;
      planned.tp = t.tp;
      planned.pp = t.pp;
      planned.weight = t.weight;
      planned.kv = t.kv;
      const Result<PlanState> p = plan_trial(planned);
      if (p.ok) {
        if (planned.works) planned.dp_for_pool = planned.dp = ceil_div(o_.concurrency, planned.capacity);
        t = planned;
      }
    }
    SolveOption failure = cheaper_failure(s_, card_, t, out_.gpu.met ? bound : o_.max_gpus + 1);
    // TP and PP of one size often fall short alike: one row says it.
    const bool said = std::any_of(
        out_.gpu.cheaper_failures.begin(), out_.gpu.cheaper_failures.end(), [&](const SolveOption& f) {
          return f.gpus == failure.gpus && f.kv_dtype == failure.kv_dtype &&
                 f.weights_choice == failure.weights_choice && f.reason == failure.reason;
        });
    if (!said) out_.gpu.cheaper_failures.push_back(std::move(failure));
  }
}

Result<CardResult> CardSearch::run() {
  using RC = Result<CardResult>;
  // Each choice from the one that needs the least memory, whose best bounds the others' search.
  std::vector<size_t> order(choices_);
  for (size_t c = 0; c < choices_; ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return least_[a] < least_[b]; });
  const std::vector<std::pair<uint32_t, uint32_t>> all = layouts(s_);
  for (size_t c : order) {
    for (const auto& [tp, pp] : all) {
      const Result<bool> tried = try_layout(tp, pp, c);
      if (!tried.ok) return RC::failure(tried.error);
    }
  }
  budget_ -= std::min(budget_, plans_.plans);
  out_.gpu.plans_run = plans_.plans;
  if (const Result<bool> added = add_best_options(); !added.ok) return RC::failure(added.error);
  out_.gpu.met = out_.gpu.best_gpus != 0;
  if (!out_.gpu.met) {
    if (const Result<bool> added = add_closest_miss(); !added.ok) return RC::failure(added.error);
  }
  add_cheaper_failures();
  out_.gpu.plans_run = plans_.plans;
  return RC::success(std::move(out_));
}

}  // namespace

Result<CardResult> search_card(const Search& s, const Card& card, PlanMemo& memo,
                               uint64_t& budget) {
  return CardSearch(s, card, memo, budget).run();
}

}  // namespace kvscope::solve_search
