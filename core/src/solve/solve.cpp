// `kvscope solve`: per GPU type, every weight and KV choice and every replica layout, planned with
// the engine's own arithmetic (plan_state), replicated until the target fits; the fewest GPUs per
// GPU type, ranked by $/hour, and why the layouts with fewer GPUs fail.
#include "kvscope/solve/solve.hpp"

#include <algorithm>
#include <cmath>

#include "base/checked_math.hpp"
#include "kvscope/base/units.hpp"
#include "plan/plan_state.hpp"
#include "solve/solve_search.hpp"

namespace kvscope {
namespace {

using R = Result<SolveReport>;
using namespace solve_search;

// The options, cheapest first: priced ones by $/hour, then the rest by GPUs; at equal cost the
// option nearer the checkpoint as stored (fewer changes), then the larger margin.
bool cheaper(const Ranked& a, const Ranked& b) {
  const SolveOption& x = a.option;
  const SolveOption& y = b.option;
  if (x.meets_target != y.meets_target) return x.meets_target;
  if (!x.meets_target) return x.sequences_that_fit > y.sequences_that_fit;
  if (x.priced != y.priced) return x.priced;
  if (x.priced && x.usd_per_hour != y.usd_per_hour) return x.usd_per_hour < y.usd_per_hour;
  if (x.gpus != y.gpus) return x.gpus < y.gpus;
  if (a.changes != b.changes) return a.changes < b.changes;
  return x.margin > y.margin;
}

}  // namespace

Result<SolveReport> solve(const PlanInput& base, const SolveOptions& options) {
  PlanMemo memo;
  const Result<Search> prepared = prepare_search(base, options, memo);
  if (!prepared.ok) return R::failure(prepared.error);
  const Search& s = prepared.value;
  SolveReport out;
  out.model_id = base.model.model_id;
  out.model_name = s.model_name;
  out.engine = base.engine;
  out.engine_label = std::string(s.engine->info.label);
  const Result<const EngineVersion*> version = resolve_engine_version(s.engine->info, base.engine_version);
  if (!version.ok) return R::failure(version.error);
  if (version.value != nullptr) {
    out.engine_version = version.value->id;
    out.engine_version_label = version.value->label;
  }
  out.concurrency = options.concurrency;
  out.context_tokens = s.context_tokens;
  out.prompt_tokens = s.prompt_tokens;
  out.prompt_lengths = base.prompt_lengths;
  out.output_lengths = base.output_lengths;
  out.min_decode_tokens_per_s = options.min_decode_tokens_per_s;
  out.max_ttft_s = options.max_ttft_s;
  for (const KvChoice& k : s.kv_choices) out.kv_dtypes.push_back(k.choice);
  for (const WeightChoice& w : s.weight_choices) out.weight_dtypes.push_back(w.choice);
  out.max_tp = options.max_tp;
  out.max_pp = options.max_pp;
  out.max_gpus = options.max_gpus;
  out.notes = s.notes;

  std::vector<Ranked> ranked;
  uint64_t budget = kTrialPlanBudget;
  for (const Card& card : s.cards) {
    const Result<CardResult> searched = search_card(s, card, memo, budget);
    if (!searched.ok) return R::failure(searched.error);
    out.plans_run += searched.value.gpu.plans_run;
    out.gpus.push_back(searched.value.gpu);
    ranked.insert(ranked.end(), searched.value.options.begin(), searched.value.options.end());
  }
  std::stable_sort(ranked.begin(), ranked.end(), cheaper);
  for (Ranked& r : ranked) out.options.push_back(std::move(r.option));
  out.met = !out.options.empty() && out.options.front().meets_target;
  // Ties and near-ties with the best, by $/hour where both are priced.
  if (out.met && out.options.front().priced) {
    const double best = out.options.front().usd_per_hour;
    for (SolveOption& o : out.options) {
      if (o.meets_target && o.priced && best > 0) o.cost_vs_best = o.usd_per_hour / best;
    }
  }
  std::string cut;
  for (const SolveGpu& g : out.gpus)
    if (g.search_cut) cut += (cut.empty() ? "" : ", ") + g.gpu_id;
  if (!cut.empty()) {
    out.notes.push_back("the search stopped after " + std::to_string(kTrialPlanBudget) +
                        " trial plans: " + cut + " not searched in full (name fewer GPUs, or lower "
                        "max_gpus, max_tp or max_pp)");
  }
  if (std::any_of(out.options.begin(), out.options.end(),
                  [](const SolveOption& o) { return o.meets_target && o.pp > 1; })) {
    out.notes.push_back(
        "pipeline stages decode one batch after another in these estimates (no overlap of "
        "micro-batches): a PP layout's tokens/s is a lower bound, its capacity exact");
  }
  std::string unpriced;
  for (const SolveGpu& g : out.gpus) {
    if (g.met && !g.priced) unpriced += (unpriced.empty() ? "" : ", ") + g.gpu_id;
  }
  if (!unpriced.empty()) {
    out.notes.push_back("no price for " + unpriced +
                        ": ranked after the priced GPUs, by GPU count (give --price ID=USD)");
  }
  if (!out.met) {
    out.notes.push_back("no layout of at most " + std::to_string(options.max_gpus) +
                        (options.max_gpus == 1 ? " GPU" : " GPUs") +
                        " meets the target; the closest per GPU type are listed");
  }
  return R::success(std::move(out));
}

}  // namespace kvscope
