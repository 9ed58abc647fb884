// Storage formats of weight matrices and the module-name patterns quantization configs use.
#include "kvscope/model/weight_format.hpp"

#include <cctype>
#include <functional>

#include "base/checked_math.hpp"

namespace kvscope {
namespace {

// A small backtracking regular expression: enough for the patterns quantization configs write
// ("re:.*mlp.gate$", "re:model.layers.[0-9]+.self_attn.*", "re:.*(q|k|v)_proj"), with a step
// budget so a hostile pattern cannot take long.
class Regex {
 public:
  explicit Regex(const std::string& pattern) : p_(pattern) {
    root_ = parse_alternatives();
    if (pos_ != p_.size()) valid_ = false;
  }

  // Python's re.match: from the start of `text`, not necessarily to its end.
  bool match_prefix(const std::string& text) {
    if (!valid_) return false;
    text_ = &text;
    steps_ = 0;
    return match_repeat(root_, 0, 0, [](size_t) { return true; });
  }

 private:
  struct Node {
    enum Kind { kChar, kAny, kClass, kGroup, kStart, kEnd } kind = kChar;
    char c = 0;
    std::string ranges;  // kClass: pairs of inclusive bounds
    bool negated = false;
    std::vector<std::vector<Node>> alternatives;  // kGroup
    size_t min = 1, max = 1;
  };
  using Next = std::function<bool(size_t)>;
  static constexpr size_t kMaxSteps = 200000;
  static constexpr size_t kMany = static_cast<size_t>(-1);

  Node parse_alternatives() {
    Node group;
    group.kind = Node::kGroup;
    group.alternatives.emplace_back();
    while (pos_ < p_.size() && valid_) {
      const char c = p_[pos_];
      if (c == ')') break;
      if (c == '|') {
        ++pos_;
        group.alternatives.emplace_back();
        continue;
      }
      Node atom = parse_atom();
      parse_quantifier(atom);
      group.alternatives.back().push_back(std::move(atom));
    }
    return group;
  }

  void add_escape(Node& n, char e) {
    n.kind = Node::kClass;
    if (e == 'd') {
      n.ranges = "09";
    } else if (e == 'w') {
      n.ranges = "azAZ09__";
    } else if (e == 's') {
      n.ranges = "  \t\t\n\n";
    } else {
      n.ranges = std::string(2, e);
    }
  }

  Node parse_atom() {
    Node n;
    const char c = p_[pos_++];
    if (c == '.') {
      n.kind = Node::kAny;
    } else if (c == '^') {
      n.kind = Node::kStart;
    } else if (c == '$') {
      n.kind = Node::kEnd;
    } else if (c == '\\') {
      if (pos_ >= p_.size()) {
        valid_ = false;
        return n;
      }
      add_escape(n, p_[pos_++]);
    } else if (c == '(') {
      if (p_.compare(pos_, 2, "?:") == 0) pos_ += 2;
      n = parse_alternatives();
      if (pos_ >= p_.size() || p_[pos_] != ')') valid_ = false;
      ++pos_;
    } else if (c == '[') {
      n.kind = Node::kClass;
      if (pos_ < p_.size() && p_[pos_] == '^') {
        n.negated = true;
        ++pos_;
      }
      bool first = true;
      while (pos_ < p_.size() && (p_[pos_] != ']' || first)) {
        char lo = p_[pos_++];
        if (lo == '\\' && pos_ < p_.size()) {
          Node e;
          add_escape(e, p_[pos_++]);
          n.ranges += e.ranges;
          first = false;
          continue;
        }
        char hi = lo;
        if (pos_ + 1 < p_.size() && p_[pos_] == '-' && p_[pos_ + 1] != ']') {
          hi = p_[pos_ + 1];
          pos_ += 2;
        }
        n.ranges += lo;
        n.ranges += hi;
        first = false;
      }
      if (pos_ >= p_.size()) valid_ = false;
      ++pos_;
    } else if (c == '*' || c == '+' || c == '?' || c == '{') {
      valid_ = false;  // a quantifier with nothing to repeat
    } else {
      n.c = c;
    }
    return n;
  }

  void parse_quantifier(Node& n) {
    if (pos_ >= p_.size()) return;
    const char q = p_[pos_];
    if (q == '*' || q == '+' || q == '?') {
      n.min = q == '+' ? 1 : 0;
      n.max = q == '?' ? 1 : kMany;
      ++pos_;
      if (pos_ < p_.size() && p_[pos_] == '?') ++pos_;  // lazy: same set of matches
    }
  }

  bool single(const Node& n, size_t i) const {
    const std::string& t = *text_;
    if (i >= t.size()) return false;
    if (n.kind == Node::kAny) return t[i] != '\n';
    if (n.kind == Node::kChar) return t[i] == n.c;
    bool in = false;
    for (size_t r = 0; r + 1 < n.ranges.size(); r += 2) {
      in = in || (t[i] >= n.ranges[r] && t[i] <= n.ranges[r + 1]);
    }
    return in != n.negated;
  }

  bool match_sequence(const std::vector<Node>& seq, size_t k, size_t i, const Next& next) {
    if (++steps_ > kMaxSteps) return false;
    if (k == seq.size()) return next(i);
    const Node& n = seq[k];
    return match_repeat(n, 0, i, [&](size_t j) { return match_sequence(seq, k + 1, j, next); });
  }

  // `n` matched `count` times so far, ending at i; greedy, then fewer.
  bool match_repeat(const Node& n, size_t count, size_t i, const Next& next) {
    if (++steps_ > kMaxSteps) return false;
    if (count < n.max) {
      const bool more = match_node_once(n, i, [&](size_t j) {
        return j != i && match_repeat(n, count + 1, j, next);  // no empty loops
      });
      if (more) return true;
    }
    return count >= n.min && next(i);
  }

  bool match_node_once(const Node& n, size_t i, const Next& next) {
    switch (n.kind) {
      case Node::kStart:
        return i == 0 && next(i);
      case Node::kEnd:
        return i == text_->size() && next(i);
      case Node::kGroup:
        for (const std::vector<Node>& alt : n.alternatives) {
          if (match_sequence(alt, 0, i, next)) return true;
        }
        return false;
      default:
        return single(n, i) && next(i + 1);
    }
  }

  std::string p_;
  size_t pos_ = 0;
  bool valid_ = true;
  Node root_;
  const std::string* text_ = nullptr;
  size_t steps_ = 0;
};

// fnmatch-style: '*' any run of characters, '?' one character. Linear backtracking to the last
// star only, so a pattern of many stars stays O(pattern x name) (found by fuzz_config_import).
bool glob_matches(const char* p, const char* t) {
  const char* star = nullptr;
  const char* resume = nullptr;
  while (*t != '\0') {
    if (*p == '*') {
      star = p++;
      resume = t;
    } else if (*p != '\0' && (*p == '?' || *p == *t)) {
      ++p;
      ++t;
    } else if (star != nullptr) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (*p == '*') ++p;
  return *p == '\0';
}

}  // namespace

const char* module_class_name(ModuleClass module) {
  switch (module) {
    case ModuleClass::kEmbedding:
      return "embedding";
    case ModuleClass::kAttention:
      return "attention";
    case ModuleClass::kRecurrent:
      return "recurrent";
    case ModuleClass::kMlp:
      return "mlp";
    case ModuleClass::kRouter:
      return "router";
    case ModuleClass::kRoutedExperts:
      return "routed_experts";
    case ModuleClass::kSharedExperts:
      return "shared_experts";
    case ModuleClass::kNorms:
      return "norms";
    case ModuleClass::kLmHead:
      return "lm_head";
  }
  return "";
}

Result<uint64_t> matrix_bytes(const MatrixFormat& f, uint64_t rows, uint64_t cols,
                              uint64_t copies) {
  const CheckedU64 values = CheckedU64(rows) * cols;
  const CheckedU64 value_bits =
      CheckedU64(values.value() / f.group_values) * f.group_bits +
      ceil_div((values.value() % f.group_values) * f.group_bits, f.group_values);
  const uint64_t tile_r = f.tile_rows == 0 ? rows : f.tile_rows;
  const uint64_t tile_c = f.tile_cols == 0 ? cols : f.tile_cols;
  const CheckedU64 tiles = f.tile_bits == 0 || rows == 0 || cols == 0
                               ? CheckedU64(0)
                               : CheckedU64(ceil_div(rows, tile_r)) * ceil_div(cols, tile_c);
  const CheckedU64 tile_bits = tiles * f.tile_bits;
  const CheckedU64 nested =
      f.nested_tiles == 0 ? CheckedU64(0)
                          : CheckedU64(ceil_div(tiles.value(), f.nested_tiles)) * f.nested_bits;
  const CheckedU64 col_bits = CheckedU64(cols) * f.bits_per_col;
  const CheckedU64 bits = value_bits + tile_bits + nested + col_bits;
  const CheckedU64 one =
      CheckedU64(bits.overflowed() ? 0 : ceil_div(bits.value(), 8)) + f.tensor_bytes;
  const CheckedU64 total = one * copies;
  if (values.overflowed() || bits.overflowed() || total.overflowed()) {
    return Result<uint64_t>::failure(
        make_error(kOutOfRange, "weight_dtype", "weight bytes exceed 2^64-1"));
  }
  return Result<uint64_t>::success(total.value());
}

MatrixFormat plain_format(const Dtype& dtype) {
  MatrixFormat f;
  f.name = dtype.name;
  f.group_values = dtype.block_values;
  f.group_bits = dtype.block_bits;
  f.quantized = dtype.block_bits < 16 * dtype.block_values;
  return f;
}

MatrixFormat quantized_format(std::string name, uint32_t bits, uint32_t tile_rows,
                              uint32_t tile_cols, uint32_t tile_bits) {
  MatrixFormat f;
  f.name = std::move(name);
  f.group_values = 1;
  f.group_bits = bits;
  f.tile_rows = tile_rows;
  f.tile_cols = tile_cols;
  f.tile_bits = tile_bits;
  f.quantized = true;
  return f;
}

MatrixFormat fp4_group_format(std::string name, uint32_t group, uint32_t scale_bits) {
  MatrixFormat f;
  f.name = std::move(name);
  f.group_values = group;
  f.group_bits = group * 4 + scale_bits;
  f.quantized = true;
  return f;
}

WeightStorage plain_storage(const Dtype& dtype) {
  WeightStorage s;
  s.name = dtype.name;
  s.plain = plain_format(dtype);
  s.summary = "every tensor in " + dtype.name;
  s.exact = dtype.exact;
  return s;
}

WeightStorage storage_from_dtype(const Dtype& dtype, const Dtype& unquantized) {
  WeightStorage s;
  s.plain = plain_format(unquantized);
  const MatrixFormat f = plain_format(dtype);
  if (!f.quantized && dtype.name == unquantized.name) return plain_storage(dtype);
  s.name = dtype.name;
  s.method = "weight_dtype";
  s.whole_file = dtype.whole_file;
  s.exact = dtype.exact;
  s.fp8_compute = dtype.name == "fp8";
  if (dtype.whole_file) {
    s.plain = f;
    s.summary = "every tensor in " + dtype.name + " (a GGUF type: embeddings too)";
    return s;
  }
  s.rules.push_back(StorageRule{{}, {}, f});
  s.kept_modules = {ModuleClass::kLmHead, ModuleClass::kRouter};
  s.summary = "linear layers in " + dtype.name + "; embeddings, head, norms and routers in " +
              unquantized.name;
  return s;
}

bool module_pattern_matches(const std::string& pattern, const std::string& name) {
  if (pattern.compare(0, 3, "re:") == 0) return Regex(pattern.substr(3)).match_prefix(name);
  if (pattern.empty()) return false;
  size_t wild = std::string::npos;  // a plain loop: find_first_of was most of a plan's time
  for (size_t i = 0; i < pattern.size() && wild == std::string::npos; ++i)
    if (pattern[i] == '*' || pattern[i] == '?') wild = i;
  // "model.layers.21.self_attn*" (ModelOpt's exclusions, hundreds of them): the module or a
  // parent starts so exactly when the module does.
  if (wild + 1 == pattern.size() && pattern[wild] == '*')
    return name.compare(0, wild, pattern, 0, wild) == 0;
  if (wild != std::string::npos) {
    // A glob names the module or one of its parents.
    if (glob_matches(pattern.c_str(), name.c_str())) return true;
    for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
      if (glob_matches(pattern.c_str(), name.substr(0, dot).c_str())) return true;
    }
    return false;
  }
  // A name: the module itself, a parent ("model.layers.0.mlp"), or a trailing part ("gate",
  // "self_attn", "mlp.gate"), always at dot boundaries.
  for (size_t at = name.find(pattern); at != std::string::npos; at = name.find(pattern, at + 1)) {
    const size_t end = at + pattern.size();
    if ((at == 0 || name[at - 1] == '.') && (end == name.size() || name[end] == '.')) return true;
  }
  return false;
}

}  // namespace kvscope
