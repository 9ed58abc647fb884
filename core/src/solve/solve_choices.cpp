// What the solver may choose, checked once before it searches: the GPU types and their prices,
// the target's context, the KV dtypes and the weights the model is available in (its checkpoint,
// what the engine makes of it as it loads, the catalogue's quantized checkpoints of it).
#include <algorithm>
#include <cmath>

#include "kvscope/model/catalog.hpp"
#include "kvscope/base/units.hpp"
#include "plan/plan_state.hpp"
#include "solve/solve_search.hpp"

namespace kvscope::solve_search {
namespace {

using R = Result<Search>;

bool listed(const std::vector<std::string_view>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

Card card_of(const GpuEntry& g) {
  return Card{g.id, g.name, g.memory_bytes, g.usd_per_hour > 0, g.usd_per_hour, g.price_source};
}

Result<std::vector<Card>> cards_of(const PlanInput& base, const SolveOptions& o) {
  using RC = Result<std::vector<Card>>;
  std::vector<Card> cards;
  const bool custom = base.gpu_memory_bytes != 0;
  if (o.gpu_ids.empty()) {
    for (const GpuEntry& g : gpu_catalog()) cards.push_back(card_of(g));
  }
  for (const std::string& id : o.gpu_ids) {
    if (id == "custom" && custom) continue;
    const Result<GpuEntry> g = find_gpu(id);
    if (!g.ok) return RC::failure(g.error);
    const bool seen = std::any_of(cards.begin(), cards.end(),
                                  [&](const Card& c) { return c.id == g.value.id; });
    if (!seen) cards.push_back(card_of(g.value));
  }
  if (custom) {
    cards.push_back(Card{"custom", format_gb_trimmed(base.gpu_memory_bytes) + " card",
                         base.gpu_memory_bytes, false, 0, ""});
  }
  if (cards.empty())
    return RC::failure(make_error(kMissingField, "gpu", "give GPU ids, or none for all"));
  for (const auto& [id, usd] : o.prices_usd_per_hour) {
    const std::string field = "prices_usd_per_hour." + id;
    if (!(std::isfinite(usd) && usd >= 0 && usd <= 1e6))
      return RC::failure(make_error(kOutOfRange, field, "must be between 0 and 1,000,000 $/hour"));
    std::string wanted = id;
    if (id != "custom") {
      const Result<GpuEntry> g = find_gpu(id);
      if (!g.ok) return RC::failure(make_error(kUnknownId, field, g.error.message));
      wanted = g.value.id;
    }
    for (Card& c : cards) {
      if (c.id != wanted) continue;
      c.priced = true;
      c.usd_per_hour = usd;
      c.price_source = "given (--price)";
    }
  }
  return RC::success(std::move(cards));
}

// The input with one card, one GPU, the engine's defaults: plans the model once to check it and
// to read its shape, dtypes and context limit.
PlanInput probe_input(const PlanInput& base, const Card& card) {
  PlanInput in = base;
  in.gpu_id = card.id == "custom" ? std::string() : card.id;
  in.gpu_memory_bytes = card.id == "custom" ? card.memory_bytes : 0;
  in.kv_memory_bytes = 0;
  in.tensor_parallel = in.pipeline_parallel = 1;
  in.gpus = 0;
  in.max_model_len = 0;
  in.require_concurrency = 0;
  in.model.kv_dtype = "auto";
  in.model.batch = 1;
  in.llama_cpp.parallel = 1;
  return in;
}

// A catalogue checkpoint as a weight choice, named by how it is stored; `method` its
// quantization method (empty for a 16-bit checkpoint).
Result<WeightChoice> checkpoint_choice(const ModelEntry& m, std::string& method) {
  EstimateInput in;
  in.model_id = m.id;
  const Result<EstimateReport> e = estimate(in);
  if (!e.ok) return Result<WeightChoice>::failure(e.error);
  method = e.value.shape.weights.method;
  const std::string stored =
      method.empty() ? serving_dtype(e.value.shape) : e.value.shape.weights.name;
  return Result<WeightChoice>::success(
      WeightChoice{m.id, "auto", m.id, stored + " (" + m.hf_id + ")", 0});
}

// Catalogue checkpoints of the same model (their base_model, or the model's own base), which
// the engine loads: an unquantized one always, a quantized one when it reads its method.
Result<std::vector<WeightChoice>> catalogue_checkpoints(const PlanInput& base,
                                                        const EngineInfo& engine) {
  using RW = Result<std::vector<WeightChoice>>;
  std::vector<WeightChoice> out;
  if (base.model.model_id.empty() || engine.checkpoint_methods.empty()) return RW::success(out);
  const Result<ModelEntry> self = find_model(base.model.model_id);
  if (!self.ok) return RW::success(out);
  auto root_of = [](const ModelEntry& e) {
    if (e.base_model.empty()) return e.id;
    const Result<ModelEntry> b = find_model(e.base_model);
    return b.ok ? b.value.id : e.id;
  };
  const std::string root = root_of(self.value);
  for (const ModelEntry& m : model_catalog()) {
    if (m.id == self.value.id || root_of(m) != root) continue;
    std::string method;
    const Result<WeightChoice> choice = checkpoint_choice(m, method);
    if (!choice.ok) return RW::failure(choice.error);
    if (!method.empty() && !listed(engine.checkpoint_methods, "*") &&
        !listed(engine.checkpoint_methods, method)) {
      continue;
    }
    out.push_back(choice.value);
  }
  return RW::success(out);
}

Result<WeightChoice> weight_choice(const std::string& choice, const PlanInput& probe,
                                   const PlanReport& r, PlanMemo& memo) {
  using RW = Result<WeightChoice>;
  if (choice == "auto") return RW::success(WeightChoice{choice, "auto", "", r.weights.name, 0});
  if (const Result<ModelEntry> m = find_model(choice); m.ok) {
    std::string method;
    Result<WeightChoice> w = checkpoint_choice(m.value, method);
    if (w.ok) w.value.choice = choice;
    return w;
  }
  PlanInput in = probe;
  in.weight_dtype = choice;
  const Result<PlanState> p = plan_state(in, &memo);
  if (!p.ok) {
    return RW::failure(make_error(kInvalidValue, "weight_dtypes",
                                  quote_user_text(choice) +
                                      " is neither a weight dtype nor a catalogue model: " +
                                      p.error.message));
  }
  return RW::success(WeightChoice{choice, choice, "", p.value.report.weights.name, 0});
}

}  // namespace

void serve_weights(PlanInput& in, const WeightChoice& w) {
  in.weight_dtype = w.weight_dtype;
  if (!w.model_id.empty()) {
    in.model.model_id = w.model_id;
    in.model.config_json.clear();
    in.model.config_name.clear();
    in.weights_index_json.clear();
    in.quantization_config_json.clear();
    in.weights_bytes = 0;
  }
  if (w.weight_dtype != "auto") {
    in.weights_index_json.clear();
    in.weights_bytes = 0;
  }
}

Result<Search> prepare_search(const PlanInput& base, const SolveOptions& o, PlanMemo& memo) {
  Search s;
  s.base = base;
  s.options = o;
  if (o.concurrency == 0)
    return R::failure(make_error(kMissingField, "concurrency", "required: sequences at once"));
  if (!(std::isfinite(o.min_decode_tokens_per_s) && o.min_decode_tokens_per_s >= 0))
    return R::failure(make_error(kOutOfRange, "min_decode_tokens_per_s", "must be 0 or more"));
  if (!(std::isfinite(o.max_ttft_s) && o.max_ttft_s >= 0))
    return R::failure(make_error(kOutOfRange, "max_ttft_s", "must be 0 or more"));
  if (base.kv_memory_bytes != 0) {
    return R::failure(make_error(kInvalidValue, "kv_memory_bytes",
                                 "solve sizes whole cards: give gpu ids or gpu_memory_bytes"));
  }
  const Result<std::vector<Card>> cards = cards_of(base, o);
  if (!cards.ok) return R::failure(cards.error);
  s.cards = cards.value;

  // Cards the engine does not run the model on (DeepSeek-V4's kernels, SGLang below sm75) are left
  // out, and said; a card that cannot run a format or KV dtype stays, for the choices it can run
  // (each trial refused as the engine would).
  std::vector<std::string> refused;
  for (auto card = s.cards.begin(); card != s.cards.end();) {
    const Result<PlanState> p = plan_state(probe_input(base, *card), &memo);
    const bool unsupported = !p.ok && p.error.code == kUnsupported && p.error.field == "gpu";
    if (unsupported && s.cards.size() == 1) return R::failure(p.error);  // every card refused
    if (unsupported) refused.push_back(card->name);
    card = unsupported ? s.cards.erase(card) : card + 1;
  }
  // One plan checks the model, the engine and its knobs, and weighs each weight choice: on the
  // first card's memory alone, what every card shares (no card's own checks).
  PlanInput probe = probe_input(base, s.cards.front());
  probe.gpu_memory_bytes = s.cards.front().memory_bytes;
  probe.gpu_id.clear();
  const Result<PlanState> probed = plan_state(probe, &memo);
  if (!probed.ok) return R::failure(probed.error);
  if (!refused.empty()) {
    std::string names;
    for (const std::string& n : refused) names += (names.empty() ? "" : ", ") + n;
    s.notes.push_back(std::string("left out, as ") + base.engine +
                      " does not run this model on them: " + names);
  }
  const PlanReport& r = probed.value.report;
  s.engine = find_engine_profile(base.engine);
  s.model_name = r.estimate.model_name;
  s.experts_over_replicas =
      s.engine->moe_over_data_parallel && r.estimate.shape.moe.num_experts != 0;
  s.context_tokens = base.model.context_tokens != 0
                         ? base.model.context_tokens
                         : s.engine->default_max_model_len(r.context_limit, r.estimate.shape);
  if (s.context_tokens == 0) {
    return R::failure(make_error(kMissingField, "context_tokens",
                                 "required: the config has no max_position_embeddings"));
  }
  s.prompt_tokens = base.model.prompt_tokens != 0 ? base.model.prompt_tokens : s.context_tokens;

  // KV dtypes, the model's first; two names for one dtype are tried once.
  std::vector<std::string> kv = o.kv_dtypes;
  if (kv.empty()) kv.assign(s.engine->info.kv_dtype_choices.begin(), s.engine->info.kv_dtype_choices.end());
  for (const std::string& choice : kv) {
    Dtype dtype = r.estimate.kv_dtype;
    if (choice != "auto") {
      const Result<Dtype> d = parse_dtype(choice, DtypeUse::kKv, "kv_dtypes");
      if (!d.ok) return R::failure(d.error);
      dtype = d.value;
    }
    const bool seen = std::any_of(s.kv_choices.begin(), s.kv_choices.end(),
                                  [&](const KvChoice& k) { return k.name == dtype.name; });
    if (seen) continue;
    // Every layout of every engine stores at least this per sequence (the model as planned); with
    // length distributions requests are shorter, and only the weights bound the search.
    const Result<KvEstimate> one = kv_totals(r.estimate.shape, dtype, r.estimate.state_dtype,
                                             KvWorkload{s.context_tokens, 1, 0, 0});
    if (!one.ok) return R::failure(one.error);
    const bool lengths = !base.prompt_lengths.empty() || !base.output_lengths.empty();
    s.kv_choices.push_back(
        KvChoice{choice, dtype.name, lengths ? 0 : one.value.kv_bytes_per_sequence});
  }

  // Weights: the checkpoint as stored, what the engine quantizes a 16-bit one to as it loads, the
  // catalogue's other checkpoints of the model.
  if (o.weight_dtypes.empty()) {
    s.weight_choices.push_back(WeightChoice{"auto", "auto", "", r.weights.name, 0});
    if (r.estimate.shape.weights.method.empty()) {
      for (std::string_view f : s.engine->info.load_time_weight_dtypes) {
        const Result<WeightChoice> w = weight_choice(std::string(f), probe, r, memo);
        if (!w.ok) return R::failure(w.error);
        s.weight_choices.push_back(w.value);
      }
    }
    const Result<std::vector<WeightChoice>> siblings =
        catalogue_checkpoints(base, s.engine->info);
    if (!siblings.ok) return R::failure(siblings.error);
    s.weight_choices.insert(s.weight_choices.end(), siblings.value.begin(), siblings.value.end());
  }
  for (const std::string& choice : o.weight_dtypes) {
    const Result<WeightChoice> w = weight_choice(choice, probe, r, memo);
    if (!w.ok) return R::failure(w.error);
    const bool seen = std::any_of(s.weight_choices.begin(), s.weight_choices.end(),
                                  [&](const WeightChoice& x) { return x.choice == choice; });
    if (!seen) s.weight_choices.push_back(w.value);
  }
  // What each weighs on one GPU: the same on every card, the bound that spares plans.
  for (WeightChoice& w : s.weight_choices) {
    PlanInput in = probe;
    serve_weights(in, w);
    const Result<PlanState> p = plan_state(in, &memo);
    if (!p.ok) return R::failure(p.error);
    w.bytes = p.value.report.weights_bytes;
  }
  if (s.engine->one_server_devices) {
    s.notes.push_back(std::string(s.engine->info.label) +
                      ": a replica is one server over its devices (-sm layer: pp counts them), "
                      "its slots (-np) sharing one cache of -c = slots x context cells");
  }
  return R::success(std::move(s));
}

}  // namespace kvscope::solve_search
