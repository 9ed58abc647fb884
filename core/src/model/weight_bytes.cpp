// What a checkpoint's tensors count and weigh: parameters (total, active, draft), the bytes of each
// module class at the format the checkpoint stores it in, per pipeline stage and per layer.
#include <algorithm>
#include <map>

#include "base/checked_math.hpp"
#include "kvscope/model/parallelism.hpp"
#include "kvscope/model/weights.hpp"

namespace kvscope {
namespace {

// The tensor's name for layer `layer` ("{}" replaced).
std::string name_at(const WeightTensor& t, uint32_t layer) {
  std::string name = t.name;
  const size_t at = name.find("{}");
  if (at != std::string::npos) name.replace(at, 2, std::to_string(layer));
  return name;
}

bool has_digit(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The layer numbers a module name or pattern names: "model.layers.21.self_attn" names 21.
std::vector<uint32_t> named_layers(const std::string& s) {
  std::vector<uint32_t> out;
  for (size_t at = s.find("layers."); at != std::string::npos; at = s.find("layers.", at + 1)) {
    size_t end = at + 7;
    uint64_t n = 0;
    while (end < s.size() && s[end] >= '0' && s[end] <= '9' && n < 1'000'000)
      n = n * 10 + static_cast<uint64_t>(s[end++] - '0');
    if (end > at + 7 && end < s.size() && s[end] == '.') out.push_back(static_cast<uint32_t>(n));
  }
  return out;
}

// A storage's name patterns by the one layer each names, so a tensor of layer L is matched
// against L's and the rest only (ModelOpt lists hundreds, layer by layer). A plain name or a
// trailing-* glob matches only names that contain what it names; anything else is never indexed.
class PatternIndex {
 public:
  explicit PatternIndex(const PatternList& patterns) : empty_(patterns.empty()) {
    for (const std::string& p : patterns) {
      const std::vector<uint32_t> layers = named_layers(p);
      const size_t wild = p.find_first_of("*?");
      const bool indexable = p.compare(0, 3, "re:") != 0 &&
                             (wild == std::string::npos || wild + 1 == p.size()) &&
                             layers.size() == 1;
      (indexable ? by_layer_[layers[0]] : any_).push_back(&p);
    }
  }
  bool empty() const { return empty_; }
  bool matches(const std::string& name) const {
    const auto hit = [&](const std::vector<const std::string*>& list) {
      return std::any_of(list.begin(), list.end(),
                         [&](const std::string* p) { return module_pattern_matches(*p, name); });
    };
    if (hit(any_)) return true;
    if (by_layer_.empty()) return false;
    for (uint32_t layer : named_layers(name)) {
      const auto bucket = by_layer_.find(layer);
      if (bucket != by_layer_.end() && hit(bucket->second)) return true;
    }
    return false;
  }

 private:
  bool empty_;
  std::vector<const std::string*> any_;
  std::map<uint32_t, std::vector<const std::string*>> by_layer_;
};

// The storage with its patterns indexed, built once per pass over the tensors.
struct IndexedStorage {
  const WeightStorage& s;
  PatternIndex kept;
  std::vector<PatternIndex> rules;
  explicit IndexedStorage(const WeightStorage& storage) : s(storage), kept(storage.kept_patterns) {
    for (const StorageRule& r : storage.rules) rules.emplace_back(r.patterns);
  }
};

// The format of tensor `t` in layer `layer` (any layer when no pattern names a layer).
const MatrixFormat& format_of(const IndexedStorage& x, const WeightTensor& t, uint32_t layer) {
  const WeightStorage& s = x.s;
  if (!t.linear && !(s.whole_file && t.module == ModuleClass::kEmbedding)) return s.plain;
  if (s.whole_file) return s.plain;
  const std::string name = name_at(t, layer);
  if (std::find(s.kept_modules.begin(), s.kept_modules.end(), t.module) != s.kept_modules.end())
    return s.plain;
  if (x.kept.matches(name)) return s.plain;
  for (size_t i = 0; i < s.rules.size(); ++i) {
    const StorageRule& r = s.rules[i];
    const bool module_ok = r.modules.empty() || std::find(r.modules.begin(), r.modules.end(),
                                                          t.module) != r.modules.end();
    if (module_ok && (x.rules[i].empty() || x.rules[i].matches(name))) return r.format;
  }
  return s.plain;
}

// Patterns that name layers are matched per layer; this bounds that work (real configs need
// under 10^6: Qwen3-235B's 282 exclusions over 94 layers).
constexpr uint64_t kMaxPatternChecks = 20'000'000;

uint64_t layer_patterns(const WeightStorage& s) {
  uint64_t n = static_cast<uint64_t>(
      std::count_if(s.kept_patterns.begin(), s.kept_patterns.end(), has_digit));
  for (const StorageRule& r : s.rules)
    n += static_cast<uint64_t>(std::count_if(r.patterns.begin(), r.patterns.end(), has_digit));
  return n;
}

// Every layer of every tensor is checked against every layer-specific pattern: refused past the
// bound. Returns whether formats can differ by layer.
Result<bool> check_pattern_work(const std::vector<WeightTensor>& tensors, const WeightStorage& s) {
  const uint64_t patterns = layer_patterns(s);
  if (patterns == 0) return Result<bool>::success(false);
  CheckedU64 checks;
  for (const WeightTensor& t : tensors) checks += std::max<uint64_t>(1, t.layer_count);
  checks = checks * patterns;
  if (checks.overflowed() || checks.value() > kMaxPatternChecks) {
    return Result<bool>::failure(make_error(
        kOutOfRange, "quantization_config",
        std::to_string(patterns) +
            " module patterns that name layers, over this many layers, are more than kvscope "
            "evaluates"));
  }
  return Result<bool>::success(true);
}

}  // namespace

Result<ParameterCount> count_parameters(const std::vector<WeightTensor>& tensors,
                                        uint32_t moe_experts, uint32_t experts_per_token) {
  ParameterCount p;
  CheckedU64 total, draft, routed_read;
  for (const WeightTensor& t : tensors) {
    const uint64_t n = t.params();
    if (t.draft) {
      draft += n;
      continue;
    }
    total += n;
    switch (t.module) {
      case ModuleClass::kEmbedding:
        p.embedding += n;
        break;
      case ModuleClass::kLmHead:
        p.lm_head += n;
        break;
      case ModuleClass::kAttention:
        p.attention += n;
        break;
      case ModuleClass::kRecurrent:
        p.recurrent += n;
        break;
      case ModuleClass::kMlp:
        p.mlp += n;
        break;
      case ModuleClass::kRouter:
        p.routed_experts += n;
        routed_read += n;
        break;
      case ModuleClass::kRoutedExperts:
        p.routed_experts += n;
        routed_read += CheckedU64(n / moe_experts) * experts_per_token;
        break;
      case ModuleClass::kSharedExperts:
        p.shared_experts += n;
        break;
      case ModuleClass::kNorms:
        p.norms += n;
        break;
    }
  }
  if (total.overflowed() || draft.overflowed() || routed_read.overflowed()) {
    return Result<ParameterCount>::failure(
        make_error(kOutOfRange, "model", "parameter count exceeds 2^64-1"));
  }
  p.total = total.value();
  p.draft = draft.value();
  // A token reads one row of the embedding table, so the table is not part of what it reads.
  p.active_per_token = p.total - p.embedding - p.routed_experts + routed_read.value();
  return Result<ParameterCount>::success(p);
}

Result<ParameterCount> count_parameters(const ModelShape& shape) {
  const Result<std::vector<WeightTensor>> tensors = weight_tensors(shape);
  if (!tensors.ok) return Result<ParameterCount>::failure(tensors.error);
  return count_parameters(tensors.value, shape.moe.num_experts, shape.moe.experts_per_token);
}

std::vector<WeightTensor> stage_tensors(const std::vector<WeightTensor>& tensors,
                                        size_t layer_count, uint32_t rank,
                                        const PipelineStages& stages, bool with_draft) {
  const bool first_stage = rank == 0, last_stage = rank + 1 == stages.count;
  const auto [first, end] = pipeline_layers(layer_count, rank, stages);
  std::vector<WeightTensor> out;
  for (const WeightTensor& t : tensors) {
    if (t.layer_count == 0) {
      if (!(t.before_layers ? first_stage : last_stage)) continue;
      out.push_back(t);
      out.back().tied = t.tied && first_stage;
      continue;
    }
    if (t.draft) {  // the MTP layer's own embedding and head copies: the target's are shared
      const bool copy = t.module == ModuleClass::kEmbedding || t.module == ModuleClass::kLmHead;
      if (with_draft && last_stage && !copy) out.push_back(t);
      continue;
    }
    const size_t lo = std::max<size_t>(first, t.first_layer);
    const size_t hi = std::min<size_t>(end, size_t{t.first_layer} + t.layer_count);
    if (lo >= hi) continue;
    out.push_back(t);
    out.back().first_layer = static_cast<uint32_t>(lo);
    out.back().layer_count = static_cast<uint32_t>(hi - lo);
  }
  return out;
}

Result<WeightBytes> weight_bytes(const std::vector<WeightTensor>& tensors,
                                 const WeightStorage& storage, uint32_t tp,
                                 ModuleSharding sharding) {
  using R = Result<WeightBytes>;
  if (tp == 0)
    return R::failure(make_error(kInvalidValue, "tensor_parallel", "must be at least 1"));
  WeightBytes out;
  CheckedU64 total, draft, quantized, plain;
  const Result<bool> per_layer_formats = check_pattern_work(tensors, storage);
  if (!per_layer_formats.ok) return R::failure(per_layer_formats.error);
  const bool per_layer = per_layer_formats.value;
  const IndexedStorage indexed(storage);
  for (const WeightTensor& t : tensors) {
    if (t.tied) continue;  // stored with the embedding
    const uint32_t count = std::max<uint32_t>(1, t.layer_count);
    // vLLM splits each tensor over the TP ranks unless it is replicated or has fewer heads; routed
    // experts over sharding.ranks, as slices or (whole) as ceil(experts / ranks) of them.
    const bool routed = t.module == ModuleClass::kRoutedExperts && sharding.ranks != 0;
    const bool dense = sharding.dense_ranks != 0 &&
                       (t.module == ModuleClass::kMlp || t.module == ModuleClass::kSharedExperts ||
                        t.module == ModuleClass::kLmHead);
    const uint64_t ways = routed  ? sharding.ranks
                          : dense ? sharding.dense_ranks
                          : sharding.replicated_embedding && t.module == ModuleClass::kEmbedding
                              ? 1
                              : tp;
    const bool whole = routed && sharding.whole && t.copies > 1;
    const uint64_t copies = whole ? ceil_div(t.copies, ways) : t.copies;
    const uint64_t shards = whole                  ? 1
                            : t.max_tp_shards == 0 ? ways
                                                   : std::min<uint64_t>(ways, t.max_tp_shards);
    for (uint32_t k = 0; k < count;) {
      const MatrixFormat& f = format_of(indexed, t, t.first_layer + k);
      uint32_t run = per_layer ? 1 : count;
      while (k + run < count && &format_of(indexed, t, t.first_layer + k + run) == &f) ++run;
      const Result<uint64_t> bytes = matrix_bytes(f, t.rows, t.cols, copies);
      if (!bytes.ok) return R::failure(bytes.error);
      const CheckedU64 all = CheckedU64(bytes.value) * run;
      const CheckedU64 held = all.overflowed() ? all : CheckedU64(ceil_div(all.value(), shards));
      const CheckedU64 params = CheckedU64(t.rows) * t.cols * t.copies * run;
      total += held;
      if (t.draft) draft += held;
      (f.quantized ? quantized : plain) += params;
      auto same = std::find_if(out.modules.begin(), out.modules.end(), [&](const ModuleBytes& m) {
        return m.module == t.module && m.format == f.name && m.draft == t.draft;
      });
      if (same == out.modules.end()) {
        out.modules.push_back(ModuleBytes{t.module, f.name, 0, 0, t.draft});
        same = out.modules.end() - 1;
      }
      same->params += params.value();
      same->bytes += held.value();
      k += run;
    }
  }
  if (total.overflowed() || quantized.overflowed() || plain.overflowed()) {
    return R::failure(make_error(kOutOfRange, "weight_dtype", "weight bytes exceed 2^64-1"));
  }
  out.total = total.value();
  out.draft = draft.value();
  out.quantized_params = quantized.value();
  out.unquantized_params = plain.value();
  return R::success(std::move(out));
}

Result<LayerWeightBytes> layer_weight_bytes(const std::vector<WeightTensor>& tensors,
                                            const WeightStorage& storage, size_t layer_count) {
  using R = Result<LayerWeightBytes>;
  LayerWeightBytes out;
  out.per_layer.assign(layer_count, 0);
  CheckedU64 before, after;
  std::vector<CheckedU64> layers(layer_count);
  const Result<bool> per_layer_formats = check_pattern_work(tensors, storage);
  if (!per_layer_formats.ok) return R::failure(per_layer_formats.error);
  const bool per_layer = per_layer_formats.value;
  const IndexedStorage indexed(storage);
  for (const WeightTensor& t : tensors) {
    if (t.draft || t.tied) continue;
    const uint32_t count = std::max<uint32_t>(1, t.layer_count);
    Result<uint64_t> bytes =
        matrix_bytes(format_of(indexed, t, t.first_layer), t.rows, t.cols, t.copies);
    for (uint32_t k = 0; k < count; ++k) {
      const uint32_t layer = t.first_layer + k;
      if (per_layer && k != 0)
        bytes = matrix_bytes(format_of(indexed, t, layer), t.rows, t.cols, t.copies);
      if (!bytes.ok) return R::failure(bytes.error);
      if (t.layer_count == 0) {
        (t.before_layers ? before : after) += bytes.value;
      } else if (layer < layer_count) {
        layers[layer] += bytes.value;
      }
    }
  }
  for (size_t i = 0; i < layer_count; ++i) {
    if (layers[i].overflowed())
      return R::failure(make_error(kOutOfRange, "weight_dtype", "weight bytes exceed 2^64-1"));
    out.per_layer[i] = layers[i].value();
  }
  if (before.overflowed() || after.overflowed())
    return R::failure(make_error(kOutOfRange, "weight_dtype", "weight bytes exceed 2^64-1"));
  out.embedding = before.value();
  out.output = after.value();
  return R::success(std::move(out));
}

}  // namespace kvscope
